/* pricing_ctx.h: what the memory and time formulas read (the model, the run, its derived facts), as one argument. */
#ifndef NDLUA_PRICING_CTX_H
#define NDLUA_PRICING_CTX_H

#include "derive.h"
#include "model.h"
#include "run.h"

/* The model, the run and the facts derive() computed from them; the
 * formulas of memory.h, activations.h, timing.h and nd_score.h take it
 * first. It borrows the three: the caller keeps them alive. */
typedef struct {
    const model_t *m;
    const run_t *r;
    const derived_t *d;
} price_ctx;

#endif
