/* pipeline_sim.h: the span of an interleaved pipeline in its schedule's own order, from
 * per-stage, per-chunk seconds of one micro-batch (no communication time). The C twin of
 * lua/nd/pipeline_timeline.lua's "interleaved" and "interleaved-less-memory" orders. */
#ifndef NDLUA_PIPELINE_SIM_H
#define NDLUA_PIPELINE_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline_cell.h"

/* The bytes of workspace pipeline_sim needs for S stages, v chunks a stage
 * and m micro-batches; 0 when that does not fit a size_t. */
size_t pipeline_sim_work_bytes(int64_t S, int64_t v, int64_t m);

/* Why the order cannot run S stages of v chunks over m micro-batches
 * (a static message), or NULL when it can. */
const char *pipeline_sim_refusal(pipe_order o, int64_t S, int64_t v, int64_t m);

/* The order's timeline: each operation starts once its stage is free and
 * its input is ready. cell: S·v entries, index stage·v + chunk. work: the
 * caller's workspace of work_bytes (at least pipeline_sim_work_bytes),
 * suitably aligned for doubles. start: S·2·m·v entries that get each
 * stage's operations' start times in the stage's order (stage s's at
 * s·2·m·v); or NULL, and the steady part of the order, once it repeats
 * itself, is skipped over (pipeline_sim.c: the periodic shortcut; the span
 * within 1e-12 of the full timeline's). Sets *span to the last operation's
 * end and returns 0; returns -1 where the order refuses the sizes, the
 * workspace is short, or the order waits on itself. O(S·m·v) time at
 * most. */
int pipeline_sim(pipe_order o, int64_t S, int64_t v, int64_t m, const pipe_cell *cell, void *work,
                 size_t work_bytes, double *start, double *span);

/* The operation at position p (0-based) of stage s's order: *backward,
 * *chunk, *mb (0-based). The sizes must be ones the order runs. */
void pipeline_sim_op(pipe_order o, int64_t S, int64_t v, int64_t m, int64_t s, int64_t p, int *backward,
                     int64_t *chunk, int64_t *mb);

#endif
