/* timing.h: the time model: a training step in seconds from FLOPs and bytes moved. */
#ifndef NDLUA_TIMING_H
#define NDLUA_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "derive.h"
#include "layout.h"
#include "memory.h"
#include "model.h"
#include "pipeline_sim.h"
#include "pipeline_trace.h"
#include "pricing_ctx.h"
#include "run.h"

#define HW_MAX_LEVELS 8

/* A device and its interconnect, from a hardware profile (lua/nd/hardware/). */
typedef struct {
    double peak_tflops;      /* dense bf16 peak, for MFU */
    double sustained_tflops; /* what the layers' kernels reach */
    double memory_gbps;      /* HBM bandwidth the element-wise ops reach (GB/s); 0: not priced */
    double attention_tflops; /* what a flash attention kernel reaches, its FLOPs as ndlua counts
                              * them (the forward's, twice that backward); 0: sustained_tflops */
    double sm_count;         /* streaming multiprocessors a GEMM's output tiles run on; 0: not priced */
    double gemm_tile_m, gemm_tile_n; /* the output tile a GEMM kernel computes on one SM (rows, columns) */
    double attention_knee;   /* keys a query at which a flash kernel runs at half its long-sequence rate; 0: none */
    double attention_from;   /* keys a query from which attention_tflops holds */
    int n_levels;
    struct hw_level {
        int64_t devices; /* devices the level joins (node, pod, ...) */
        double gbps;     /* GB/s a device moves within it */
    } levels[HW_MAX_LEVELS];
    double overlap_dp, overlap_tp, overlap_cp, overlap_ep, overlap_pp; /* shares hidden behind compute */
    double nd_comm_divisor; /* the reference score's communication divisor (A3: 2) */
} hardware_t;

/* The parts of one training step, in seconds. */
typedef struct {
    double forward, backward, recompute;       /* compute of the slowest stage, all micro-batches */
    double tp, cp, ep, pp, dp;                 /* exposed communication */
    double bubble;                             /* pipeline fill and drain */
    double optimizer;                          /* the optimizer step (memory bound) */
    double step;                               /* the step */
    double order_stall;                        /* what the interleaved order's span adds to the
                                                * closed form (its chunks unequal); 0 if nothing */
    double floor, floor_held;                  /* no split nor recompute of the layout steps
                                                * below max(floor + y, floor_held), y what the
                                                * stages' seconds summed past floor_sum's raise
                                                * pipeline_floor_seconds (timing_run_memo) */
    int64_t straggler;                         /* that stage */
    double model_flops;                        /* 3 x forward FLOPs of the step's tokens */
    double tokens_per_s_per_device, mfu;
} step_time;

/* Bytes one rank moves per micro-batch for one layer of kind k, by collective. */
typedef struct {
    double tp, cp, ep;
    double etp; /* the expert-TP group's gather and reduce-scatter of the dispatched tokens */
} layer_traffic;

layer_traffic layer_traffic_bytes(const price_ctx *c, const layer_kind *k);
/* Weights of one layer of kind k on one rank (TP, and EP and expert TP for experts). */
double layer_rank_weights(const price_ctx *c, const layer_kind *k);
/* Bytes one rank moves per step for data parallelism (gathers and reductions) of W weights. */
double dp_traffic_bytes(const price_ctx *c, double weights);
/* Seconds of an expert all-to-all of `bytes` a rank over `ep` ranks `stride` devices apart: the
 * node's peers over its links, the others over the level the group spans, at once. */
double ep_all_to_all_seconds(const hardware_t *hw, double bytes, int64_t ep, int64_t stride);
/* The same bytes on DeepEP's internode kernels: once a destination node over
 * the network, forwarded inside it (timing.c). */
double deepep_seconds(const hardware_t *hw, double bytes, int64_t ep, int64_t stride, int64_t experts, int64_t k,
                      int64_t node_limit);
/* The per-device bandwidth (GB/s) of the smallest level spanning `span` consecutive devices. */
double level_gbps(const hardware_t *hw, int64_t span);
/* The FLOPs a GEMM of m rows, inner width k and n columns (bc bytes an element) takes beyond its
 * 2mkn where it is memory bound at `ridge` FLOPs a byte: ridge·bc·(mk + kn + mn) − 2mkn, or 0. */
double gemm_roofline_excess(double m, double k, double n, double bc, double ridge);

/* What prices a kernel's shape on a device: a GEMM's roofline ridge and waves of output tiles, a
 * flash attention kernel's rate at short keys. */
typedef struct {
    double ridge;                /* FLOPs a byte where a GEMM turns memory bound; 0: not priced */
    double sms, tile_m, tile_n;  /* SMs and the output tile (rows, columns); 0: waves not priced */
    double attention_knee, attention_from; /* hardware_t's; 0: not priced */
} kernel_pricing;

/* The share of the profile's attention rate a flash kernel over `keys` keys a query reaches:
 * keys·(from + knee) / (from·(keys + knee)) below `from` tokens, 1 from there on or unpriced. */
double attention_key_efficiency(const kernel_pricing *g, double keys);

/* The share of the SMs' time `count` GEMMs of one launch (a grouped GEMM: each of rows x cols
 * outputs) put to use: their rows·cols·count over the waves of tile_m x tile_n tiles they take,
 * ceil(count·ceil(rows/tile_m)·ceil(cols/tile_n) / sms) waves of sms tiles; 1 where not priced. */
double gemm_wave_efficiency(const kernel_pricing *g, double rows, double cols, double count);

/* FLOPs a launch of `count` GEMMs of m x k by k x n takes beyond its 2mkn·count, forward and its
 * two backward GEMMs (the input's gradient, m x k out; the weight's, k x n out): each at
 * max(2mkn / wave efficiency, ridge·bytes). */
typedef struct {
    double forward, backward;
} gemm_excess_flops;
gemm_excess_flops gemm_excess(const kernel_pricing *g, double m, double k, double n, double count, double bc);
/* The bus bandwidth (GB/s) of a collective over `size` ranks `stride` devices apart: the
 * spanning level's, times the members each node holds when the group spans nodes with several
 * members in each (their NICs carry the node's share together), at most the node's links'. */
double group_gbps(const hardware_t *hw, int64_t size, int64_t stride);
/* Seconds of `comm` a phase's compute cannot hide beyond its edge when each of `units` units'
 * collectives runs behind the compute of the unit before it: (units - 1)/units of what comm
 * outlasts compute. */
double exposed_seconds(double comm, double compute, double units);
/* The pipeline's step time from the stage times (seconds a micro-batch) under the run's schedule. */
double pipeline_step(const run_t *r, const double *stage_times, int64_t pp, double *bubble);

/* One layer of a kind at one recompute mode as a step prices it, for one
 * micro-batch: forward FLOPs, the FLOPs a recompute reruns, HBM bytes of
 * the element-wise ops (forward, rerun), the weights on a rank and
 * collective bytes. */
typedef struct {
    bool ready;
    double forward_flops, rerun_flops, rerun_moved, moved, weights;
    layer_traffic traffic;
    double attention_flops, rerun_attention_flops; /* a flash kernel's share of the FLOPs */
    double backward_extra_flops; /* the backward GEMMs' shape excess beyond twice the forward's */
} layer_time;

/* What one stage's layers do a micro-batch: the sums of their layer_times. */
typedef struct {
    int64_t epoch;                          /* the timing_memo epoch it was worked out in (0: never) */
    double forward_flops, recompute_flops;  /* one micro-batch */
    double backward_extra_flops;            /* the backward's FLOPs beyond twice the forward's */
    double forward_attention_flops, recompute_attention_flops; /* a flash kernel's share of them */
    double forward_moved, recompute_moved;  /* HBM bytes of the element-wise ops, one micro-batch */
    double tp, cp, ep;                      /* bytes one micro-batch, forward and backward */
    double etp;                             /* expert-TP gathers of dispatched tokens, as ep */
    double tp_once, cp_once, ep_once;       /* the same without a full recompute's resend */
    double etp_once;
    double cp_bare;                         /* cp_once of layers without a flash kernel's attention */
    double weights;                         /* weights on one rank (for DP traffic) */
    double layers;                          /* its layers (the units FSDP gathers one by one) */
    param_split updated;                    /* the parameters its optimizer steps (a trained
                                             * vision tower's among the non-expert ones) */
    int embeddings, outputs;                /* the tables its chunks hold */
} stage_work;

/* Seconds of a stage's context-parallel sends (comm seconds a micro-batch) its attention does not
 * hide: ring attention's excess over (cp − 1)/cp of the attention, at least the (1 − overlap.cp) share. */
double cp_exposed_seconds(const stage_work *w, const run_t *r, const hardware_t *hw, double comm);

/* The parts of a stage's micro-batch: forward, backward, recompute, TP, CP, EP, PP seconds. */
#define STAGE_PARTS 7

/* The pipeline of one layout and every degree but OP: the step without
 * its DP communication, which alone reads OP (the sharding), and what
 * that needs. DP seconds grow with a stage's weights, so the stage with
 * the most weights sends the step's. */
typedef struct {
    int64_t epoch;       /* as a stage_work's */
    double step, bubble; /* seconds: the pipeline's step before DP, its fill and drain */
    double order_stall;  /* seconds the interleaved order's span adds to the closed form */
    double floor;        /* seconds: pipeline_floor_seconds of the layout */
    double floor_most;   /* seconds: the same with the largest stage's floor (stage_floor_most) */
    int64_t straggler;   /* the slowest stage */
    double worst[STAGE_PARTS]; /* its micro-batch's parts */
    double weights;      /* the most weights a stage holds on one rank */
    double weights_sum;  /* the stages' weights summed, at least what any split of the layout's
                          * layers gives (a tied table counted once) */
    /* that stage's compute a micro-batch under which its DP collectives run
     * (forward; backward with its recompute), and its layers */
    double hide_forward, hide_backward, units;
} pipeline_time;

/* What timing_run_memo keeps across runs of one model and sequence: the
 * layer prices (3 x n_kinds by kind and mode, owned by the caller, valid
 * while the degrees they read stay; NULL: priced each time), the stages'
 * work (pp entries owned by the caller, each valid while its epoch is
 * works_epoch: the caller keeps the layout and every degree but OP, which
 * no work reads; NULL: worked out each time) and the pipeline they make
 * (one entry, valid on the same terms; NULL: none), the model's FLOPs a
 * token at the sequence, a scratch for the stage times and one for the
 * interleaved order's timeline, and the recordings of that timeline by
 * size (pipeline_trace.h), made as sizes come and kept up to a budget. */
typedef struct {
    layer_time *layers;
    stage_work *works;
    pipeline_time *pipeline;
    int64_t works_epoch;
    bool has_flops;
    int64_t flops_seq;
    double flops_total;
    double *stage_x;
    int64_t cap_x;
    void *sim;           /* the interleaved order's workspace: per-chunk seconds, then pipeline_sim's */
    size_t sim_bytes;
    pipe_trace **traces; /* n_traces recordings, traces_bytes in all */
    size_t n_traces, traces_bytes;
    kernel_pricing gemm; /* the hardware's GEMM shape prices (set by timing_run_memo) */
} timing_memo;

/* Prices a step of the run over its layout. */
void timing_run(const price_ctx *c, const layout_t *l, const hardware_t *hw, step_time *out);
/* The same, keeping what memo allows across calls (the search). */
void timing_run_memo(const price_ctx *c, const layout_t *l, const hardware_t *hw, timing_memo *memo, step_time *out);
/* Seconds one micro-batch takes on each stage of layout l (x: r->pp
 * entries, the sum of the stage's parts as the step prices them) and the
 * forward part of them (forward: r->pp entries, or NULL). */
void timing_stage_seconds(const price_ctx *c, const layout_t *l, const hardware_t *hw, double *x, double *forward);
/* The seconds one layer of a kind at a recompute mode adds to its stage's micro-batch by its rerun
 * (stage_micro_batch_time's recompute part: the rerun's FLOPs, its flash-kernel share, its bytes). */
double timing_rerun_seconds(const price_ctx *c, const hardware_t *hw, int kind, recompute_mode mode);
/* Seconds a micro-batch of each chunk takes on each stage of layout l
 * (cell: r->pp·vpp entries, stage·vpp + chunk), forward, recompute and the
 * rest, each stage's summing to x[stage] (timing_stage_seconds): what the
 * interleaved order's timeline is priced from. */
void timing_chunk_seconds(const price_ctx *c, const layout_t *l, const hardware_t *hw, const double *x, pipe_cell *cell);
/* A step's model FLOPs (3 x the forward's, flops_per_token a token), its
 * tokens a second a device and its MFU, from t->step and the run. */
void timing_rates(step_time *t, const run_t *r, double flops_per_token, const hardware_t *hw);
/* The model's forward FLOPs a token at a sequence length. */
double timing_flops_per_token(const model_t *m, int64_t seq);
/* Marks every layer price of layers (3 x n_kinds) as not yet computed. */
void timing_forget_layers(layer_time *layers, const model_t *m);
void timing_memo_free(timing_memo *memo);

#endif
