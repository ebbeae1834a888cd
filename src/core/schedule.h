/* schedule.h: micro-batches of activations a pipeline chunk holds at its stage's peak. */
#ifndef NDLUA_SCHEDULE_H
#define NDLUA_SCHEDULE_H

#include <stdint.h>

#include "run.h"

/* Micro-batches of activations (stage, chunk) holds at its peak, under the
 * run's schedule (memory-model.md §8.1). May be 0 (DualPipeV's last stage
 * second chunk); activations are priced with at least 1. */
int64_t micro_factor(const run_t *r, int64_t stage, int64_t chunk);
/* The micro-batches (stage, chunk)'s activations are priced with: micro_factor, at least 1. */
int64_t micro_factor_priced(const run_t *r, int64_t stage, int64_t chunk);

#endif
