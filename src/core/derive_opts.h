/* derive_opts.h: the run's sharding (with its communication buffers) and precision components,
 * from which derive (derive.c) computes the divisors and byte widths of the memory model, and
 * which derive.c describes (SHARDING_FIELDS, PRECISION_FIELDS); memory.c reads the buffers. */
#ifndef NDLUA_DERIVE_OPTS_H
#define NDLUA_DERIVE_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "fields.h"

/* Sharding: ZeRO / HyperParallel FSDP / Megatron's distributed optimizer,
 * the embedding's and experts' shards, and the buffers the collectives
 * run in. */
typedef struct {
    bool optimizer_parallel;    /* optimizer states sharded over DP (ZeRO-1) */
    tristate param_shard;       /* parameters sharded with them (ZeRO-3 / FSDP); unstated: as optimizer_parallel */
    bool grad_shard;            /* gradients sharded over the full optimizer shard (ZeRO-2) */
    bool grad_shard_as_params;  /* gradients sharded as the parameters are (FSDP's reduce-scatter) */
    bool shard_spans_cp;        /* the optimizer shard spans DP x CP */
    bool reshard_params;        /* gathered weights freed after the forward and gathered again for the backward */
    tristate keep_gathered_params; /* weights gathered for the forward kept through the backward (MindSpore's
                                    * parallel optimizer without its all-gather recomputed); unstated:
                                    * reshard_params decides */
    bool deferred_grad_accumulation, overlapped_grad_reduce;
    int64_t optimizer_shard, expert_shard; /* 0: unstated */
    bool expert_shard_group;    /* experts sharded over their expert-data-parallel group */
    bool vocab_emb_dp, emb_dp_sharded, shard_mtp_param;
    tristate shard_activations; /* activations sliced over TP; unstated: the family's */
    /* DP collectives run in the contiguous gradient and parameter buffers
     * (Megatron's DDP and distributed optimizer): no bucket beside them */
    bool inplace_dp_buffers;
    /* TP's all-reduces run in place in the matmuls' outputs (Megatron): no
     * buffer beside them unless sequence parallelism gathers */
    bool inplace_tp_reduce;
    /* FSDP copies each gathered parameter out of its all-gather buffer and
     * each gradient into its reduce-scatter buffer (FSDP2's foreach copy-in
     * and copy-out), HBM work beside the collectives */
    bool gather_copies;
    /* Under pipeline parallelism the stage's gradients accumulate unsharded,
     * in the reduce width, through every micro-batch of the step and are
     * reduce-scattered once after the last backward (PyTorch's pipelining
     * schedules call FSDP2's set_requires_gradient_sync(last_backward)) */
    bool pp_unsharded_grads;
    /* Under pipeline parallelism the stage keeps its gathered weights from
     * one micro-batch to the next (torchtitan's apply_fsdp: no
     * reshard_after_forward when PP is on) */
    bool pp_keeps_gathered;
    /* grad_shard divides the gradients over the optimizer shard group
     * (ranks·t·param_cp), not the whole data-parallel degree: MindSpore's
     * accu_grads are cloned from the parameters and sliced as they are;
     * without grad_shard they stay whole over DP, the embedding's too,
     * though the parallel optimizer shards the weights themselves */
    bool grad_shard_opt_group;
    /* FSDP2's prefetch (or DeepSpeed ZeRO-3's with overlap_comm): each
     * unit's all-gather issued ahead of it and its reduce-scatter on its own
     * stream, so the DP collectives are priced by the compute that hides
     * them (timing.c dp_exposed_seconds) rather than at the fixed share */
    bool fsdp_prefetch;
    /* the parameters a gradient bucket gathers before its collective is
     * issued, so the last bucket's is what the backward leaves exposed: with
     * fsdp_prefetch, DeepSpeed ZeRO-3's reduce_bucket_size (0: one unit's,
     * FSDP2 reducing each unit on its own); without sharded weights, under
     * overlapped_grad_reduce, DDP's buckets (-1: Megatron's default,
     * max(4e7, 1e6 x dp); 0: none, the fixed overlap share) */
    int64_t reduce_bucket;
    /* the parallel optimizer shards the embedding over the optimizer shard
     * group (optimizer_ranks), as every other parameter, not over the whole
     * data-parallel degree: MindSpore cuts each parameter's repeated devices
     * into groups of optimizer_weight_shard_size (OperatorInfo::
     * CreateGroupForOptShard); else the seed's rule (d) */
    bool emb_opt_group;
    /* the embedding and the output head are FSDP units of their own (a
     * fully_shard each, as MindSpeed-LLM's FSDP2 fsdp_modules list
     * embed_tokens and lm_head), not left to the root group with the final
     * norm as torchtitan's apply_fsdp leaves them: the head's unit reduces
     * its gradients as the backward starts, so the backward's end holds the
     * embedding's reduce-scatter alone */
    bool fsdp_table_units;
    /* under vocab_emb_dp the embedding and the output head stay whole on
     * every TP rank at any pipeline degree (MindFormers' LlamaEmbedding.shard:
     * gather ((1, 1), (dp, 1)); DeepseekV2ForCausalLM: lm_head ((dp·cp, 1),
     * (1, 1))), so the parallel optimizer slices each over the dp x tp ranks
     * that repeat it, or its groups of optimizer_shard, and their accu_grads
     * are whole; else the seed's rule (TP-split unless PP is 1) */
    bool tables_whole_tp;
    /* the MTP modules run the model's own head over their outputs (MindFormers:
     * one lm_head over the concatenated outputs) and hold no head of their
     * own; else each holds one, as the seed prices it */
    bool mtp_shares_head;
} sharding_opts;

/* Precision: byte widths (-1: the family's), the optimizer's states a
 * parameter, gradient accumulation in its own buffer, 16-bit copies of
 * wider weights (unstated: the family's, or as the sharding implies). */
typedef struct {
    int param_bytes, compute_bytes, softmax_bytes;
    int grad_bytes, optimizer_state_bytes, main_param_bytes, norm_bytes, dropout_bytes, optimizer_states;
    tristate grad_accumulation, param_casts;
} precision_opts;

extern const field_desc SHARDING_FIELDS[];
extern const field_desc PRECISION_FIELDS[];

#endif
