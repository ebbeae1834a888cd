/* pipeline_trace.c: pipeline_sim's timeline replayed from a recording.
 *
 * Which operation the interpreter (pipeline_sim.c) runs next never depends
 * on the seconds: a stage waits until its next operation's input has run,
 * not until a time. So for one order, S, v and m the interpreter runs the
 * same operations in the same order, round by round, for any cells; only
 * the round where the periodic shortcut matches (which compares times)
 * differs. A recording keeps, once per (order, S, v, m):
 *   - the operations of each round (rounds 1..R), with the counts the
 *     shortcut reads at the round's end (forwards and backwards a stage
 *     ran, micro-batches begun and ended);
 *   - the operations after the last round whose cap stays below the table's
 *     end (the tail).
 * The tail is the same after any jump: a jump from round g lands on the
 * state the last round would leave (its micro-batches at the same slots of
 * the ring: a slot is the micro-batch's number mod the ring's size), and
 * without a jump the rounds run up to that last round. A replay runs the
 * recorded operations on the cells (the same maxima and sums as the
 * interpreter, so the same doubles), checks the shortcut after each round
 * as the interpreter does, and runs the tail. The recording is made by the
 * interpreter itself over zero seconds (every time 0: the shortcut's match
 * reduces to its counts and which times are set), which first matches at a
 * round g0 no later than any cells' match (so a replay neither compares
 * nor keeps a round's times before g0 − 1); it records 8 rounds past g0
 * (RECORD_PAST), and a replay that has not matched by the last recorded
 * round answers PIPE_TRACE_UNCOVERED (the caller runs the interpreter). */
#include "pipeline_trace.h"
#include "pipeline_sim_state.h"

#include <stdlib.h>
#include <string.h>

/* Rounds recorded past the first the zero-second timeline matches. */
#define RECORD_PAST 8
/* The most operations a recording holds (16 bytes each). */
#define RECORD_LIMIT ((size_t)1 << 21)

struct pipe_trace {
    pipe_order o;
    int64_t S, v, m;
    bool waits;         /* the order waits on itself: pipeline_sim answers −1 */
    pipe_op *ops;
    size_t n_ops;
    int64_t rounds;     /* rounds recorded */
    bool all_rounds;    /* every round whose cap stays below the table's end */
    int64_t matched;    /* the first round the zero-second timeline matches (0: none) */
    size_t *round_end;  /* ops[0, round_end[0]) round 1, ...; the tail after round_end[rounds − 1] */
    int64_t *counts;    /* a round's nf[S], nb[S], begun, ended (2·S + 2 each) */
    size_t tail_from;
};

void pipeline_trace_free(pipe_trace *t)
{
    if (t == NULL)
        return;
    free(t->ops);
    free(t->round_end);
    free(t->counts);
    free(t);
}

size_t pipeline_trace_bytes(const pipe_trace *t)
{
    return sizeof *t + t->n_ops * sizeof *t->ops + (size_t)t->rounds * (sizeof *t->round_end +
           (size_t)(2 * t->S + 2) * sizeof *t->counts);
}

size_t pipeline_trace_work_bytes(int64_t S, int64_t v, int64_t m)
{
    size_t sim = pipeline_sim_work_bytes(S, v, m), lens = (size_t)(2 * S * v) * sizeof(double);
    return sim == 0 || sim > SIZE_MAX - lens ? 0 : sim + lens;
}

bool pipeline_trace_of(const pipe_trace *t, pipe_order o, int64_t S, int64_t v, int64_t m)
{
    return t->o == o && t->S == S && t->v == v && t->m == m;
}

/* Keeps the round's end and counts; false when out of memory. */
static bool keep_round(pipe_trace *t, const sim_state *st, const pipe_op_log *log)
{
    int64_t S = t->S, w = 2 * S + 2;
    size_t *ends = realloc(t->round_end, (size_t)(t->rounds + 1) * sizeof *ends);
    if (ends == NULL)
        return false;
    t->round_end = ends;
    int64_t *counts = realloc(t->counts, (size_t)((t->rounds + 1) * w) * sizeof *counts);
    if (counts == NULL)
        return false;
    t->counts = counts;
    int64_t *c = counts + t->rounds * w;
    memcpy(c, st->nf, (size_t)S * sizeof *c);
    memcpy(c + S, st->nb, (size_t)S * sizeof *c);
    c[2 * S] = st->begun;
    c[2 * S + 1] = st->ended;
    ends[t->rounds++] = log->n;
    return true;
}

/* Records the interpreter's operations over zero seconds into t; false when out of memory or too long. */
static bool record(pipe_trace *t, void *work, const pipe_cell *zero)
{
    int64_t S = t->S, v = t->v, m = t->m, n = m * v, left = 2 * n * S, P = S * v, base = v * (m % S), g0 = 0;
    bool kept = true;
    sim_state st;
    snapshot sn;
    pipe_op_log log = {NULL, 0, 0, RECORD_LIMIT, false};
    sim_start(&st, &sn, t->o, S, v, m, work);
    st.log = &log;
    t->all_rounds = true;
    for (int64_t g = 1; base + g * P < n; g++) {
        st.cap = base + g * P;
        left -= sim_run_all(&st, S, v, m, zero, NULL);
        if (log.short_of || !(kept = keep_round(t, &st, &log)))
            break;
        int64_t lo = st.ended, hi = st.begun;
        double lambda;
        int64_t J = (n - 1 - base) / P - g;
        if (sim_steady(&sn, S, base + P) && J > 0 && hi + J * S <= m &&
            sim_repeats(&st, &sn, S, v, lo, hi, &lambda)) {
            if (g0 == 0)
                t->matched = g0 = g;
            if (g >= g0 + RECORD_PAST) { /* on to the last round: the tail is all that is left */
                sim_shift_times(&st, &sn, S, v, m, lo, hi, J, lambda);
                sim_shift_counts(&st, S, v, J);
                left -= 2 * J * P * S;
                t->all_rounds = false;
                break;
            }
        }
        sim_take(&sn, &st, S, v, m, lo, hi);
    }
    t->ops = log.ops; /* freed with t */
    if (!kept || log.short_of)
        return false;
    t->tail_from = log.n;
    st.cap = n;
    left -= sim_run_all(&st, S, v, m, zero, NULL);
    t->ops = log.ops;
    t->n_ops = log.n;
    t->waits = left > 0 || st.overflow;
    return kept && !log.short_of;
}

pipe_trace *pipeline_trace_new(pipe_order o, int64_t S, int64_t v, int64_t m)
{
    size_t work = pipeline_sim_work_bytes(S, v, m);
    /* the ops' indices into the times are int32_t: 2·S·v·ring < 2^31 (ring ≤ 8S) */
    if (pipeline_sim_refusal(o, S, v, m) != NULL || S > 4096 || S * v > ((int64_t)1 << 30) / (16 * S))
        return NULL;
    pipe_trace *t = calloc(1, sizeof *t);
    void *space = malloc(work);
    pipe_cell *zero = calloc((size_t)(S * v), sizeof *zero);
    bool ok = t != NULL && space != NULL && zero != NULL;
    if (ok) {
        *t = (pipe_trace){.o = o, .S = S, .v = v, .m = m};
        ok = record(t, space, zero);
    }
    free(space);
    free(zero);
    if (!ok) {
        pipeline_trace_free(t);
        return NULL;
    }
    return t;
}

/* Runs ops [from, to) over the seconds len: each starts at the later of its
 * stage's clock and its input's end, as run_stage does. */
static void replay_ops(const pipe_op *ops, size_t from, size_t to, const double *len, const sim_state *st, int64_t K)
{
    double *times = st->done_f, *clock = st->clock;
    int64_t back = K * st->ring; /* done_b's place in the times */
    for (size_t i = from; i < to; i++) {
        const pipe_op *op = &ops[i];
        int32_t s = op->stage & ~PIPE_OP_BEGINS;
        if (op->stage & PIPE_OP_BEGINS) /* dst is the micro-batch's slot·K: place 0's forward */
            sim_unset(times + op->dst, times + back + op->dst, K);
        double ready = op->src < 0 ? 0.0 : times[op->src];
        double c = clock[s];
        double begin = ready > c ? ready : c;
        c = begin + len[op->len];
        clock[s] = c;
        times[op->dst] = c;
    }
}

int pipeline_trace_sim(const pipe_trace *t, const pipe_cell *cell, void *work, size_t work_bytes, double *span)
{
    int64_t S = t->S, v = t->v, m = t->m, n = m * v, P = S * v, base = v * (m % S), K = S * v;
    if (t->waits || work == NULL || work_bytes < pipeline_trace_work_bytes(S, v, m))
        return -1;
    sim_state st;
    snapshot sn;
    sim_start(&st, &sn, t->o, S, v, m, work);
    /* the seconds by ops' len index, past pipeline_sim's workspace: the sums as run_stage takes them */
    double *len = (double *)((char *)work + pipeline_sim_work_bytes(S, v, m));
    for (int64_t i = 0; i < K; i++) {
        len[2 * i] = cell[i].f;
        len[2 * i + 1] = cell[i].r + cell[i].b;
    }
    size_t at = 0;
    int64_t g = 1;
    for (; base + g * P < n; g++) {
        if (g > t->rounds)
            return PIPE_TRACE_UNCOVERED;
        replay_ops(t->ops, at, t->round_end[g - 1], len, &st, K);
        at = t->round_end[g - 1];
        /* no cells match before the recording's first match, whose snapshot is the round before's */
        if (t->matched == 0 || g < t->matched - 1)
            continue;
        const int64_t *c = t->counts + (g - 1) * (2 * S + 2);
        memcpy(st.nf, c, (size_t)S * sizeof *c);
        memcpy(st.nb, c + S, (size_t)S * sizeof *c);
        int64_t lo = c[2 * S + 1], hi = c[2 * S];
        double lambda;
        int64_t J = (n - 1 - base) / P - g;
        if (sim_steady(&sn, S, base + P) && J > 0 && hi + J * S <= m &&
            sim_repeats(&st, &sn, S, v, lo, hi, &lambda)) {
            sim_shift_times(&st, &sn, S, v, m, lo, hi, J, lambda);
            break;
        }
        sim_take(&sn, &st, S, v, m, lo, hi);
    }
    replay_ops(t->ops, t->tail_from, t->n_ops, len, &st, K);
    *span = sim_span(&st, S);
    return 0;
}
