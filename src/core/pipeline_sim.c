/* pipeline_sim.c: an interleaved pipeline's timeline in its schedule's order.
 *
 * The orders (as lua/nd/pipeline_timeline.lua builds them, which cites its
 * sources in full):
 *   forwards   Megatron-LM's get_schedule_table (megatron/core/
 *              pipeline_parallel/schedules.py): groups of S micro-batches
 *              chunk by chunk (chunk 0 of micro-batches 0..S-1, chunk 1 of
 *              the same, ..., then the next S); the r = m mod S extra
 *              micro-batches open the first group (MindFormers' toolkit/
 *              pipeline_balance/simulator/pipeline_builder.py,
 *              build_virtualpipeline);
 *   backwards  the same table with the chunks reversed (get_model_chunk_id
 *              with forward = false);
 *   stage s    `warm` forwards, then one forward and one backward in turn,
 *              then the backwards left, where warm is
 *                interleaved  2·(S − s − 1) + (v − 1)·S + r·(v − 1)
 *                             (get_pp_rank_microbatches; the remainder's
 *                             share as build_virtualpipeline adds it)
 *                less memory  v·S − s − 1 (build_virtualpipeline2)
 *              and one chunk is plain 1F1B: warm S − s − 1.
 * Dependencies: place k = chunk·S + s along a micro-batch's path; a forward
 * waits for the same micro-batch's forward at place k − 1, a backward for
 * its backward at place k + 1, the last place's backward for its own
 * forward. Each operation starts at max(its stage's clock, its input's
 * end) and takes f (forward) or r + b (backward) seconds, the sums done in
 * the Lua module's order so both give the same doubles.
 *
 * Stored: the end times of each (place, micro-batch), the forward table
 * (m·v entries, the same on every stage) and per stage its clock and the
 * forwards and backwards it ran (which say its next operation). Stages
 * run until blocked; a stage that made progress wakes its two neighbours
 * (the only stages waiting on it), so the work is O(S·m·v) operations plus
 * O(1) per wake. */
#include "pipeline_sim.h"

#include <stdbool.h>

/* The workspace holds doubles and int64_t counters, 8 bytes each. */
_Static_assert(sizeof(double) == 8 && sizeof(int64_t) == 8, "8-byte doubles and int64_t");

size_t pipeline_sim_work_bytes(int64_t S, int64_t v, int64_t m)
{
    if (S <= 0 || v <= 0 || m <= 0)
        return 0;
    /* 2·S·v·m end times, the 2·m·v table, 6 counters a stage: 8 bytes each */
    uint64_t cap = (uint64_t)(SIZE_MAX / 8), k = (uint64_t)S, words;
    if ((uint64_t)v > cap / k)
        return 0;
    k *= (uint64_t)v; /* places */
    if ((uint64_t)m > cap / 4 / k)
        return 0;
    words = 2 * k * (uint64_t)m + 2 * (uint64_t)v * (uint64_t)m; /* at most 4·k·m */
    if ((uint64_t)S > cap / 8 || words > cap - 7 * (uint64_t)S)
        return 0;
    return (size_t)(words + 7 * (uint64_t)S) * 8;
}

const char *pipeline_sim_refusal(pipe_order o, int64_t S, int64_t v, int64_t m)
{
    if (S <= 0 || v <= 0 || m <= 0)
        return "the stages, chunks and micro-batches must be positive";
    if (v > 1 && m < S)
        return "interleaved 1F1B needs at least one micro-batch a stage";
    if (o == PIPE_ORDER_LESS_MEMORY && v > 1 && m % S != 0)
        return "the less-memory order needs the micro-batches a multiple of the stages";
    if (pipeline_sim_work_bytes(S, v, m) == 0)
        return "the pipeline is too large to simulate";
    return NULL;
}

/* Forwards stage s runs before its first backward. */
static int64_t warm_up(pipe_order o, int64_t S, int64_t v, int64_t m, int64_t s)
{
    if (v == 1)
        return S - s - 1;
    if (o == PIPE_ORDER_LESS_MEMORY)
        return v * S - s - 1;
    return 2 * (S - s - 1) + (v - 1) * S + (m % S) * (v - 1);
}

/* Entry i of the forward table: its chunk and micro-batch. */
static void forward_entry(int64_t S, int64_t v, int64_t m, int64_t i, int64_t *chunk, int64_t *mb)
{
    if (v == 1) {
        *chunk = 0;
        *mb = i;
        return;
    }
    int64_t r = m % S, first = v * (r + S);
    if (i < first) { /* the first group: r + S micro-batches a chunk */
        *chunk = i / (r + S);
        *mb = i % (r + S);
        return;
    }
    i -= first;
    int64_t g = 1 + i / (v * S), in = i % (v * S);
    *chunk = in / S;
    *mb = r + g * S + in % S;
}

void pipeline_sim_op(pipe_order o, int64_t S, int64_t v, int64_t m, int64_t s, int64_t p, int *backward,
                     int64_t *chunk, int64_t *mb)
{
    int64_t n = m * v, warm = warm_up(o, S, v, m, s), i;
    if (warm > n)
        warm = n;
    if (p < warm) {
        *backward = 0;
        i = p;
    } else if (p - warm < 2 * (n - warm)) {
        int64_t q = p - warm;
        *backward = (int)(q % 2);
        i = *backward ? q / 2 : warm + q / 2;
    } else {
        *backward = 1;
        i = n - warm + (p - warm - 2 * (n - warm));
    }
    forward_entry(S, v, m, i, chunk, mb);
    if (*backward)
        *chunk = v - 1 - *chunk;
}

/* A stage's next operation is a forward while it has run fewer than its
 * warm-up, or fewer than its backwards' count past the warm-up; every
 * forward done, backwards. */
typedef struct {
    double *done_f, *done_b, *clock; /* end times by place·m + mb (−1: not yet); a stage's clock */
    int64_t *entry, *chunk;          /* the forward table: place·m + mb of stage 0's place, and chunk */
    int64_t *nf, *nb, *warm;         /* a stage's forwards and backwards run, and its warm-up */
    int64_t *stack, *queued;         /* stages to try; whether queued */
    int64_t n_stack;
} sim_state;

static void wake(sim_state *st, int64_t s)
{
    if (!st->queued[s]) {
        st->queued[s] = 1;
        st->stack[st->n_stack++] = s;
    }
}

/* Runs stage s until it is blocked or done; the operations it ran. The
 * (place, micro-batch) of entry e of the table on stage s is e + s·m, the
 * place before it e + s·m − m (none below 0), the one after it e + s·m + m. */
static int64_t run_stage(sim_state *st, int64_t S, int64_t v, int64_t m, int64_t s, const pipe_cell *cell,
                         double *start)
{
    int64_t n = m * v, last = (S * v - 1) * m, ran = 0;
    double clock = st->clock[s];
    for (;;) {
        int64_t nf = st->nf[s], nb = st->nb[s];
        int backward;
        if (nf < st->warm[s])
            backward = 0;
        else if (nf == n)
            backward = nb < n ? 1 : -1;
        else
            backward = nf - st->warm[s] == nb ? 0 : 1;
        if (backward < 0)
            break;
        int64_t i = backward ? nb : nf, chunk = st->chunk[i], at, here;
        double ready, len;
        const pipe_cell *c;
        if (!backward) {
            here = st->entry[i] + s * m;
            at = here - m;
            ready = at < 0 ? 0.0 : st->done_f[at];
            c = &cell[s * v + chunk];
            len = c->f;
        } else {
            int64_t back = v - 1 - chunk;
            here = st->entry[i] + (back - chunk) * S * m + s * m;
            ready = here >= last ? st->done_f[here] : st->done_b[here + m];
            c = &cell[s * v + back];
            len = c->r + c->b;
        }
        if (ready < 0)
            break;
        double begin = ready > clock ? ready : clock;
        if (start != NULL)
            start[s * 2 * n + nf + nb] = begin;
        clock = begin + len;
        if (backward) {
            st->done_b[here] = clock;
            st->nb[s] = nb + 1;
        } else {
            st->done_f[here] = clock;
            st->nf[s] = nf + 1;
        }
        ran++;
    }
    st->clock[s] = clock;
    return ran;
}

int pipeline_sim(pipe_order o, int64_t S, int64_t v, int64_t m, const pipe_cell *cell, void *work,
                 size_t work_bytes, double *start, double *span)
{
    if (pipeline_sim_refusal(o, S, v, m) != NULL || work == NULL || work_bytes < pipeline_sim_work_bytes(S, v, m))
        return -1;
    int64_t places = S * v, n = m * v, left = 2 * n * S;
    sim_state st;
    double *d = work;
    st.done_f = d;
    st.done_b = d + places * m;
    st.clock = d + 2 * places * m;
    st.entry = (int64_t *)(st.clock + S);
    st.chunk = st.entry + n;
    st.nf = st.chunk + n;
    st.nb = st.nf + S;
    st.warm = st.nb + S;
    st.stack = st.warm + S;
    st.queued = st.stack + S;
    st.n_stack = 0;
    for (int64_t i = 0; i < 2 * places * m; i++)
        d[i] = -1.0;
    for (int64_t i = 0; i < n; i++) {
        int64_t chunk, mb;
        forward_entry(S, v, m, i, &chunk, &mb);
        st.entry[i] = chunk * S * m + mb;
        st.chunk[i] = chunk;
    }
    for (int64_t s = S - 1; s >= 0; s--) {
        int64_t warm = warm_up(o, S, v, m, s);
        st.clock[s] = 0.0;
        st.nf[s] = st.nb[s] = st.queued[s] = 0;
        st.warm[s] = warm < n ? warm : n;
        wake(&st, s);
    }
    while (st.n_stack > 0) {
        int64_t s = st.stack[--st.n_stack];
        st.queued[s] = 0;
        int64_t ran = run_stage(&st, S, v, m, s, cell, start);
        if (ran > 0) {
            left -= ran;
            wake(&st, (s + 1) % S);
            wake(&st, (s + S - 1) % S);
        }
    }
    if (left > 0)
        return -1; /* the order waits on itself */
    double most = 0.0;
    for (int64_t s = 0; s < S; s++)
        if (st.clock[s] > most)
            most = st.clock[s];
    *span = most;
    return 0;
}
