/* layout_opts.h: the run's pipeline and recompute components, which the layout (layout.c) reads to
 * place each layer on its stage and give it its recompute option, and which layout.c describes
 * (PIPELINE_FIELDS, RECOMPUTE_FIELDS); the schedule (schedule.c) and derive (derive.c) read them too.
 * Beside them the parallelism component: which degrees the runtime lets compose, read by layout.c's
 * rules (PARALLELISM_FIELDS), which the search and the estimate share. */
#ifndef NDLUA_LAYOUT_OPTS_H
#define NDLUA_LAYOUT_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "fields.h"

typedef enum { SCHED_1F1B, SCHED_GPIPE, SCHED_SEQPIPE, SCHED_ZERO_BUBBLE_V } pp_schedule;
/* The schedules by the names a run or a yaml gives (aliases beside them), each one's
 * schedule: the one statement of them (nd.core.types.run.choices.pp_schedule). */
extern const field_choices PP_SCHEDULES;
/* In the order RECOMPUTE_NAMES names them: a name's value is its place in the list. */
typedef enum { REC_OFF, REC_SELECTIVE, REC_FULL } recompute_mode;
/* In the order RECOMPUTE_FIELDS names them: a name's value is its place in the list. */
typedef enum { RULE_HYPERPARALLEL, RULE_MINDFORMERS, RULE_MEGATRON, RULE_TORCHTITAN } selective_rule;

/* The ops a selective recompute can drop: 1 keeps the op's activation, 0 recomputes it. */
enum switch_index { SW_ATTBMM, SW_HEADCAST, SW_DROPOUT, SW_SOFTMAX, SW_NORMOP, SW_GATHER, SW_FFACT, SW_ATTUP, SW_COUNT };

/* How a per-stage form is stated: not at all, as a flag for every layer,
 * or as counts per stage (n = pp) or per chunk (n = pp·vpp, chunk-major). */
typedef enum { FORM_NONE, FORM_ALL, FORM_STAGES, FORM_CHUNKS } stage_form;

typedef struct {
    stage_form form;
    int64_t *counts; /* first counts layers of each stage (or chunk) */
} per_stage;

/* Layers [first, first + count) in model order (body then MTP) with one
 * recompute option; count < 0 runs to the last layer. A selective range may
 * name ops to keep or recompute (has_ops), the others kept. */
typedef struct {
    int64_t first, count;
    recompute_mode mode;
    bool has_ops;
    signed char ops[SW_COUNT];
} recompute_range;

/* The pipeline: its schedule, the sequence chunks of seq-pipe, the layers
 * each stage holds beyond the balanced split (offset: FORM_STAGES or
 * FORM_CHUNKS, or FORM_NONE = balanced), and whether the MTP layers and the
 * embedding and output count in the offsets' slots. A runtime that runs one
 * pipeline schedule per local batch (schedule_per_local_batch: PyTorch's
 * torch.distributed.pipelining, whose schedule.step() fills and drains the
 * pipe over its own n_microbatches, called once a local batch by torchtitan
 * and NeMo AutoModel) runs a step as schedules of local_batch_size /
 * micro_batch_size micro-batches each (schedule.c schedule_micro_batches);
 * local_batch_size 0 (unstated), or a runtime that runs all of a step's
 * micro-batches in one schedule (Megatron-LM's forward_backward_func,
 * HyperParallel), prices one schedule a step. */
typedef struct {
    pp_schedule schedule;
    int64_t seq_split;
    per_stage offset;
    bool mtp_in_offset, emb_out_in_offset;
    int64_t local_batch_size;
    bool schedule_per_local_batch;
    /* FSDP's gradient sync (reduce-scatter) and reshard run at each
     * schedule's last backward, not once a step: torch.distributed.pipelining's
     * stage (stage.py backward_maybe_with_nosync) calls the FSDP groups'
     * post_backward whenever its last_backward is true, which each
     * schedule.step() sets on its own last micro-batch (timing.c
     * dp_exposed_seconds); false where the recipe defers it to the step's
     * last local batch */
    bool dp_sync_per_schedule;
    /* torch.distributed.pipelining allocates a stage's receive buffers once,
     * one per micro-batch of the schedule, and keeps them all run
     * (estimate.c recv_buffers) */
    bool recv_buffers_per_micro_batch;
} pipeline_opts;

/* Recompute: per-stage counts of fully or selectively recomputed layers,
 * or ranges of layers with one option each (n_ranges > 0: the ranges
 * replace the per-stage forms); the rule a selective recompute follows;
 * MindFormers' recompute of the sequence-parallel all-gather, and a fully
 * recomputed layer's input kept sliced over TP. */
typedef struct {
    per_stage full, selective;
    recompute_range *ranges;
    int n_ranges;
    selective_rule rule;
    bool selective_comm_recompute, recompute_slice_activation;
} recompute_opts;

/* Which degrees the runtime composes where the reference planner refuses
 * the pair: sequence parallelism beside context parallelism (sp_with_cp;
 * false: the reference's "CP+SP incompatible", layout_sp_cp_fits); and
 * whether a stated etp of 1 is the expert layers' TP degree (expert_folding:
 * Megatron-Core's MoE parallel folding, derive.c etp_stated; false: etp <= 1
 * is not stated, the reference's reading). */
typedef struct {
    bool sp_with_cp, expert_folding;
} parallelism_opts;

/* Their flat fields in a run table (the per-stage forms and ranges are read settled, apart). */
extern const field_desc PIPELINE_FIELDS[];
extern const field_desc RECOMPUTE_FIELDS[];
extern const field_desc PARALLELISM_FIELDS[];

#endif
