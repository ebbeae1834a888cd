/* estimate.h: the per-stage memory estimate of a model under a run. */
#ifndef NDLUA_ESTIMATE_H
#define NDLUA_ESTIMATE_H

#include <stdbool.h>
#include <stdint.h>

#include "activations.h"
#include "derive.h"
#include "layout.h"
#include "memory.h"
#include "model.h"
#include "run.h"

/* The default allocator reserve: 1 GiB a stage that holds any activation,
 * as the reference's safety buffer. */
#define DEFAULT_RESERVE_BYTES ((double)(1 << 30))

typedef enum { ROW_LAYERS, ROW_EMBEDDING, ROW_OUTPUT, ROW_MTP_MODULE } row_type;

/* One run of layers of one kind in one chunk (or the embedding, the output,
 * an MTP module's own tables). Bytes are per layer; activations are what
 * one layer keeps for one micro-batch, held in_flight times at the peak. */
typedef struct {
    int64_t chunk;
    row_type type;
    const char *kind;       /* the kind's name, "embedding", "output" or "mtp_module" */
    bool vision, mtp, census;
    int64_t count;
    recompute_mode mode;
    static_bytes static_per_layer;
    double activation_per_layer, comm_per_layer;
    int64_t in_flight;
} estimate_row;

typedef struct {
    static_bytes stat;        /* on the device */
    static_bytes host_stat;   /* offloaded to host memory */
    double activations, comm, backward_overhead, reserve, total;
    /* allocated: what the framework's tensors hold at the peak (PyTorch's
     * max_memory_allocated); reserved: what its caching allocator holds,
     * allocated x (1 + fragmentation) and the gradients' own pool; total:
     * reserved + the reserve for what no allocator counts (CUDA context,
     * NCCL, workspaces) */
    double allocated, reserved;
    /* gradients not live at the peak that the allocator keeps reserved in
     * the pool of the stream that allocates them (grad_stream_pool) */
    double grad_pool;
    double host_activations, host; /* activations offloaded; all host bytes */
    /* the attention swap's: its layers' swappable bytes, and the stage's last such layer's */
    double swap_sum, swap_last;
    double held_params; /* FSDP weights kept gathered from forward to backward (inside comm) */
    /* the pipeline's receive buffers beside the activations (recv_buffers_per_micro_batch) */
    double recv_buffers;
    int first_row, n_rows;
} stage_estimate;

/* One layer of a kind at one recompute option, priced once an estimate. */
typedef struct {
    bool ready, census;
    static_bytes stat;
    double activation, comm, working;
    double swappable; /* the attention module's saved tensors a layer, which the attention swap moves */
} kind_price;

/* A layer kind's formula split, kept across estimates while the inputs that
 * shape it stay the same (the search prices many runs of one model). */
typedef struct {
    const model_t *model;
    double seq, capacity_factor;
    int64_t cp, top_k;
    int algo, flash, core, grouped_gemm, bc, bn, bs, bd, keep_set, op_sac, fused_norm, fused_swiglu, repeat_kv;
    signed char keep[SW_COUNT];
} act_key;

typedef struct {
    bool valid;
    act_key key;
    act_split value;
} act_cache_entry;

typedef struct {
    int64_t pp;
    stage_estimate *stages;
    estimate_row *rows;
    int n_rows, cap_rows;
    double peak;
    int64_t peak_stage;
    bool fits;
    bool census_used;
    bool op_sac_fallback; /* a selective layer torchtitan's per-op rule does not price */
    derived_t derived, vision_derived;
    layout_t layout;          /* built here unless a layout is given */
    layout_t vision_layout;
    kind_price *vision_memo;
    int vision_memo_cap;
    const layout_t *lay;      /* the layout priced: &layout or the given one */
    /* The search's pricing: stage sums without rows, and no stage priced
     * that cannot raise the peak (laid out like an earlier one, holding no
     * more micro-batches): only peak and peak_stage are to be read. */
    bool peak_only;
    /* The search's early stop: with stop_early, the estimate ends at the
     * first stage whose total passes stop_above (peak is then that stage's
     * total, a lower bound of the true peak, `stopped` is set, and the
     * stages after it hold nothing to read). */
    bool stop_early, stopped;
    double stop_above;
    /* The search's reuse across candidates that differ only in what their
     * layer prices do not read (VPP): when set, the estimate takes
     * reuse_derived as the run's derived values and fills reuse_memo
     * (estimate_memo_entries: by kind and recompute mode, then the
     * embedding, output head and MTP module) instead of pricing afresh. */
    const derived_t *reuse_derived;
    kind_price *reuse_memo;
    /* The search's micro-batches in flight, when set: max(1, micro_factor)
     * of each stage and chunk (pp x vpp, stage-major) of the run priced. */
    const int64_t *micro_factors;
    /* The search's stages to price, when set: n_live of them, ascending,
     * as estimate_live_stages lists them for the layout and micro_factors. */
    const int64_t *live;
    int64_t n_live;
    const derived_t *dv;      /* the run's derived values: &derived or reuse_derived */
    kind_price *memo;         /* estimate_memo_entries (layer kinds x 3 recompute options, then the tables) */
    int memo_cap;
    act_cache_entry *act_cache; /* n_kinds x 2 (plain, switched) */
    int act_cache_cap;
    char error[256];
} estimate_t;

void estimate_init(estimate_t *e);
void estimate_free(estimate_t *e);

/* Estimates every stage. Returns 0, or -1 with e->error (a layout that
 * does not fit the stack). Reuses e's memory across calls. All byte values
 * are doubles; callers round each reported component to the nearest byte. */
int estimate_run(estimate_t *e, const model_t *m, const run_t *r);
/* The entries of a price memo: 3 recompute options a layer kind, then the
 * embedding (untied, tied to a head on the same stage), the output head and
 * an MTP module. */
#define MEMO_TABLES 4
static inline int estimate_memo_entries(const model_t *m) { return 3 * m->n_kinds + MEMO_TABLES; }
/* Marks every price of the memo (estimate_memo_entries) as not yet computed. */
void estimate_forget_prices(kind_price *memo, const model_t *m);
/* Marks as not yet computed the prices of the memo that read the expert
 * degrees (the layer kinds with routed or shared experts): the others (the
 * dense kinds and the tables) divide no part by EP or the expert shards, so
 * they hold for any EP (spec/candidate_run_spec.lua checks it). */
void estimate_forget_expert_prices(kind_price *memo, const model_t *m);

/* A layer of a kind as a lower bound of any split's stage bytes reads it:
 * its static bytes (no split, chunk or recompute changes them: the price
 * memo's mem_layer_static reads no mode), the least activation bytes it
 * keeps a micro-batch and the least of its communication buffers (a stage
 * holds the largest of its layers', accumulate). */
typedef struct {
    double stat, act, comm;
    double work; /* the least of its working set and communication buffers at its backward (price_afresh) */
} kind_least;

/* Prices every layer kind of m under r, whose layers are all at r's one
 * recompute mode `mode` (the search's candidate run): least[k] (n_kinds
 * entries) gets the kind's static bytes a layer and the lesser of its
 * activation bytes, and of its communication buffers, at off and at `mode`
 * (a run mixing off with `mode` derives what r does: the switches read
 * whether any layer is selective).
 * Returns what the output head works with beyond what it keeps at its
 * backward (output_extra). Uses e's derived values. */
double estimate_kind_least(estimate_t *e, const model_t *m, const run_t *r, recompute_mode mode, kind_least *least);

/* The same over a layout already built for this model and run (the search caches them). */
int estimate_run_layout(estimate_t *e, const model_t *m, const run_t *r, const layout_t *given);
/* The stages of run r over layout l that can raise the peak (micro_factors:
 * as estimate_t's, or NULL), ascending, into out (r->pp entries); their count. */
int64_t estimate_live_stages(const layout_t *l, const run_t *r, const int64_t *micro_factors, int64_t *out);


#endif
