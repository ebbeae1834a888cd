/* layout.h: the pipeline layout: which layers each stage and chunk holds, and how they recompute. */
#ifndef NDLUA_LAYOUT_H
#define NDLUA_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "run.h"

/* A run of consecutive layers of one kind with one recompute option. */
typedef struct {
    int kind;                    /* index into the model's kinds */
    int64_t first, count;        /* model-order index of its first layer */
    bool mtp;
    recompute_mode mode;
    const signed char *switches; /* a selective range's own ops, else NULL (the run's rule) */
} layer_run;

typedef struct {
    int64_t first, count;        /* the chunk's layers in model order */
    bool embedding, output;      /* the chunk holds the embedding / the output head */
    int first_run, n_runs;       /* its runs in layout.runs */
} chunk_layout;

typedef struct {
    int64_t pp, vpp;
    chunk_layout *chunks;        /* pp·vpp, index stage·vpp + chunk */
    layer_run *runs;
    int n_runs, cap_runs;
    int64_t *counts;             /* scratch: layers per (stage, chunk) */
    int64_t *same_as;            /* per stage: the first stage holding the same runs,
                                  * embedding and output in each chunk (itself if none) */
    char error[256];
} layout_t;

void layout_init(layout_t *l);
void layout_free(layout_t *l);

/* Places the model's layers over the run's stages and chunks. Returns 0, or
 * -1 with l->error naming what does not fit (an offset that misplaces
 * layers, a range past the last layer). Reuses l's memory across calls. */
int layout_build(layout_t *l, const model_t *m, const run_t *r);

/* The layout rules a strategy keeps whatever priced it: the search refuses
 * a candidate that breaks one (src/search/search_nest.c) and nd.estimate a
 * run that does (layout_refusal), so an impossible layout is never priced
 * by one and refused by the other. Each is true when the strategy keeps it. */

/* The layers a pipeline spreads: the body and the MTP layers. */
int64_t layout_layers(const model_t *m);
/* No stage without a layer: pp at most the layers. */
bool layout_pp_fits(int64_t layers, int64_t pp);
/* No chunk without a layer: vpp at most a stage's layers (1 without a
 * pipeline), and DualPipeV runs two chunks a stage at most. */
bool layout_vpp_fits(int64_t layers, int64_t pp, int64_t vpp, pp_schedule schedule);
/* Context parallelism splits each sequence into 2·cp equal chunks (the
 * load-balanced ring's halves), so 2·cp divides it. */
bool layout_cp_splits(int64_t seq_length, int64_t cp);
/* Ulysses spreads the KV heads over tp·cp ranks, so tp·cp divides them. */
bool layout_cp_heads_fit(const model_t *m, cp_algorithm algo, int64_t tp, int64_t cp);
/* The search's CP rule (the reference's validate_cp_constraints, "CP+SP
 * incompatible"): no sequence parallelism beside cp > 1, unless the
 * runtime composes them (p->sp_with_cp: Megatron-LM and torchtitan, whose
 * profiles say so). Under a runtime that does not, nd.estimate still prices
 * that layout and says the search refuses it (layout_caution). */
bool layout_sp_cp_fits(const parallelism_opts *p, bool sequence_parallel, int64_t cp);

/* The first of those rules run r breaks, said in `why` (n bytes), with
 * the option it comes from; NULL when it keeps them all. */
const char *layout_refusal(const model_t *m, const run_t *r, char *why, size_t n);
/* The first rule run r breaks that the search keeps and nd.estimate only
 * warns of (layout_sp_cp_fits), said in `why` (n bytes); NULL when none. */
const char *layout_caution(const run_t *r, char *why, size_t n);

static inline chunk_layout *layout_chunk(const layout_t *l, int64_t stage, int64_t chunk)
{
    return &l->chunks[stage * l->vpp + chunk];
}

#endif
