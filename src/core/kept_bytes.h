/* kept_bytes.h: what autograd keeps for backward, by tensor (kept_bytes.c): the split by
 * parallel group, a recompute switch, a norm, an attention score. */
#ifndef NDLUA_KEPT_BYTES_H
#define NDLUA_KEPT_BYTES_H

#include "derive.h"
#include "model.h"

/* Bytes per token (of one CP rank, micro-batch size 1) a layer keeps, split
 * as parallelism divides them: `shared` is divided by sequence parallelism
 * (sp), `tp` by the TP degree, `expert` by the expert TP degree. K/V kept
 * whole under ring CP are already multiplied by cp. `layer` holds what a
 * layer keeps once, not per token (an fp32 router weight, group sizes). */
typedef struct {
    double shared, tp, expert;
    /* bytes a layer keeps once a micro-batch, whatever its tokens: replicated
     * over TP ranks, and split over them */
    double layer, layer_tp;
} act_split;

/* Two fp32 statistics per head and token, as a flash-attention kernel keeps them. */
#define FLASH_STATS_BYTES 8.0

/* 1 where the switch set `keep` keeps switch sw's activation (NULL: a plain layer keeps all), else 0. */
static inline double keeps(const signed char *keep, int sw) { return keep == NULL || keep[sw] ? 1.0 : 0.0; }

/* One norm of width w, a token. */
double kept_norm_bytes(const model_t *m, const derived_t *d, const signed char *keep, double w);
/* What a kept norm of width w holds once a layer. */
double kept_norm_layer_bytes(const model_t *m, const signed char *keep, double w);
/* One attention score without flash attention. */
double kept_score_bytes(const derived_t *d, const signed char *keep);

#endif
