/* nd_score.h: the reference planner's relative score (unitless, lower is better). */
#ifndef NDLUA_ND_SCORE_H
#define NDLUA_ND_SCORE_H

#include "core/derive.h"
#include "core/layout.h"
#include "core/model.h"
#include "core/pricing_ctx.h"
#include "core/run.h"
#include "core/timing.h"

/* The score the reference planner ranks by (search-ranking-cli §d): FLOP-
 * and byte-weighted work of the straggler stage through the pipeline.
 * Returns a negative number when out of memory. */
double nd_score(const price_ctx *c, const layout_t *l, const hardware_t *hw);

#endif
