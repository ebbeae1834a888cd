/* nd_score.h: the reference planner's relative score (unitless, lower is better). */
#ifndef NDLUA_ND_SCORE_H
#define NDLUA_ND_SCORE_H

#include "derive.h"
#include "layout.h"
#include "model.h"
#include "pricing_ctx.h"
#include "run.h"
#include "timing.h"

/* The score the reference planner ranks by (search-ranking-cli §d): FLOP-
 * and byte-weighted work of the straggler stage through the pipeline.
 * Returns a negative number when out of memory. */
double nd_score(const price_ctx *c, const layout_t *l, const hardware_t *hw);

#endif
