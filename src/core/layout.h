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

static inline chunk_layout *layout_chunk(const layout_t *l, int64_t stage, int64_t chunk)
{
    return &l->chunks[stage * l->vpp + chunk];
}

#endif
