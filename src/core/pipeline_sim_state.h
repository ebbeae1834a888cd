/* pipeline_sim_state.h: the timeline's state between rounds, shared by the
 * interpreter (pipeline_sim.c) and its recorded replay (pipeline_trace.c).
 * Not a public interface: only those two files include it. */
#ifndef NDLUA_PIPELINE_SIM_STATE_H
#define NDLUA_PIPELINE_SIM_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipeline_cell.h"

/* One operation as the interpreter ran it: it waits for end time src of
 * the state's times (−1: none, its input is ready at 0), takes len (an
 * index into the run's 2·S·v seconds: cell·2, +1 for a backward) on
 * stage `stage`, and writes its end to time dst. A forward that begins
 * its micro-batch (place 0) first unsets the micro-batch's times: flagged
 * by PIPE_OP_BEGINS in stage. */
#define PIPE_OP_BEGINS ((int32_t)1 << 30)
typedef struct {
    int32_t dst, src, len, stage;
} pipe_op;

/* Where the interpreter writes the operations it runs (NULL: nowhere). */
typedef struct {
    pipe_op *ops;
    size_t n, cap, limit; /* limit: the most operations it takes */
    bool short_of;        /* an operation was not written (out of memory or past limit) */
} pipe_op_log;

/* A walk along the forward table without dividing: group g (the first
 * r + S micro-batches a chunk, then S), chunk c, the j-th of the block's
 * micro-batches, which start at `first`. */
typedef struct {
    int64_t g, c, j, first, size, slot; /* slot: first's slot in the ring (first mod the ring's size) */
} table_walk;

typedef struct {
    double *done_f, *done_b, *clock; /* end times by slot·places + place (−1: not yet); a stage's clock */
    table_walk *wf, *wb;             /* a stage's next forward's and backward's table entries */
    int64_t *nf, *nb, *warm;         /* a stage's forwards and backwards run, and its warm-up */
    int64_t *stack, *queued;         /* stages to try; whether queued */
    int64_t n_stack;
    int64_t cap;                     /* forwards run only below this table entry */
    int64_t begun, ended;            /* micro-batches begun (forward at place 0 run) and ended (backward
                                      * at place 0 run): both in micro-batch order, stage 0's orders */
    int64_t ring;                    /* micro-batches the end times are kept for (ring_size) */
    bool overflow;                   /* more micro-batches begun and not ended than the ring holds */
    pipe_op_log *log;                /* where the operations run are written, or NULL */
} sim_state;

/* A round's state as the periodic shortcut keeps it (pipeline_sim.c). */
typedef struct {
    bool have;
    int64_t lo, hi;        /* the micro-batches begun and not finished */
    double *val, *clock;   /* their end times by place (forwards, then backwards); the clocks */
    int64_t *nf, *nb;
} snapshot;

/* Lays the state and the snapshot out over the workspace (at least
 * pipeline_sim_work_bytes) and starts them: no operation run. */
void sim_start(sim_state *st, snapshot *sn, pipe_order o, int64_t S, int64_t v, int64_t m, void *work);
/* Runs every stage until none can run; the operations run. */
int64_t sim_run_all(sim_state *st, int64_t S, int64_t v, int64_t m, const pipe_cell *cell, double *start);
/* Whether the snapshot's backwards are all past the table's first group (from base + P on). */
bool sim_steady(const snapshot *sn, int64_t S, int64_t from);
/* Whether the state is the snapshot's, S micro-batches on and *lambda later. */
bool sim_repeats(const sim_state *st, const snapshot *sn, int64_t S, int64_t v, int64_t lo, int64_t hi,
                 double *lambda);
/* Keeps the state's window [lo, hi) and clocks in the snapshot. */
void sim_take(snapshot *sn, const sim_state *st, int64_t S, int64_t v, int64_t m, int64_t lo, int64_t hi);
/* Moves the window's times S·J micro-batches on and J·λ later, and the clocks J·λ later. */
void sim_shift_times(sim_state *st, snapshot *sn, int64_t S, int64_t v, int64_t m, int64_t lo, int64_t hi, int64_t J,
                     double lambda);
/* Moves the counts and table walks J rounds on (the rest of a jump). */
void sim_shift_counts(sim_state *st, int64_t S, int64_t v, int64_t J);
/* The latest clock: the span. */
double sim_span(const sim_state *st, int64_t S);
/* Unsets a micro-batch's end times at every place but the first forward's (its slot's times at f, b). */
void sim_unset(double *f, double *b, int64_t places);

#endif
