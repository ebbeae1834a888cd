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

/* The micro-batches one pipeline schedule runs: local_batch_size /
 * micro_batch_size where the runtime runs one schedule per local batch
 * (pipeline_opts) and the run states a local batch that splits the step
 * into whole schedules, else all of the step's micro_batch_num. */
int64_t schedule_micro_batches(const run_t *r);
/* The schedules a step runs: micro_batch_num / schedule_micro_batches. */
int64_t schedule_count(const run_t *r);
/* Why the run's local batch cannot split its step into schedules (a static
 * message), or NULL where it can or none is stated. */
const char *schedule_local_batch_refusal(const run_t *r);

#endif
