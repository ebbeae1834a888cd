/* pipeline_trace.h: pipeline_sim's span from a recording of the operations
 * it runs for one order and size, made once and replayed for any seconds
 * (pipeline_trace.c): the same doubles, without the interpreter's work of
 * finding each stage's next operation. */
#ifndef NDLUA_PIPELINE_TRACE_H
#define NDLUA_PIPELINE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipeline_sim.h"

typedef struct pipe_trace pipe_trace;

/* What pipeline_trace_sim answers where the recording does not reach the
 * round its cells' periodic shortcut needs: run pipeline_sim instead. */
#define PIPE_TRACE_UNCOVERED 1

/* The recording for (o, S, v, m); NULL when the order refuses the sizes,
 * they are too large to record, or out of memory (pipeline_sim stands). */
pipe_trace *pipeline_trace_new(pipe_order o, int64_t S, int64_t v, int64_t m);
void pipeline_trace_free(pipe_trace *t);
/* The bytes the recording holds. */
size_t pipeline_trace_bytes(const pipe_trace *t);
/* Whether t records (o, S, v, m). */
bool pipeline_trace_of(const pipe_trace *t, pipe_order o, int64_t S, int64_t v, int64_t m);
/* The workspace pipeline_trace_sim needs; 0 when that does not fit a size_t. */
size_t pipeline_trace_work_bytes(int64_t S, int64_t v, int64_t m);
/* pipeline_sim(o, S, v, m, cell, ..., NULL, span) of the recorded sizes:
 * the same *span (bit for bit) and return value, or PIPE_TRACE_UNCOVERED
 * (span not set). work: work_bytes ≥ pipeline_trace_work_bytes, aligned
 * for doubles. */
int pipeline_trace_sim(const pipe_trace *t, const pipe_cell *cell, void *work, size_t work_bytes, double *span);

#endif
