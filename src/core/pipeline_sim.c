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
 * O(1) per wake. Which operation runs next depends only on which have run,
 * never on their times; given a log (pipeline_sim_state.h) the interpreter
 * writes each operation it runs, and pipeline_trace.c replays them. */
#include "pipeline_sim.h"
#include "pipeline_sim_state.h"

#include <math.h>
#include <stdlib.h>

/* The workspace holds doubles and int64_t counters, 8 bytes each. */
_Static_assert(sizeof(double) == 8 && sizeof(int64_t) == 8, "8-byte doubles and int64_t");

/* The micro-batches a snapshot of the periodic shortcut holds at most. */
static int64_t snap_window(int64_t S, int64_t m) { return m < 4 * S ? m : 4 * S; }

/* The micro-batches whose end times are kept, in a ring by micro-batch: a
 * micro-batch's times are read only between its first forward and its last
 * backward at place 0 (stage 0's first chunk), and stage 0 holds fewer than
 * 8·S micro-batches begun and not ended: its forwards run at most its
 * warm-up, (v + 2)·S + v·(m mod S) table entries, ahead of its backwards,
 * which span at most that over S·v plus two groups of S + (m mod S). */
static int64_t ring_size(int64_t S, int64_t m) { return m < 8 * S ? m : 8 * S; }

size_t pipeline_sim_work_bytes(int64_t S, int64_t v, int64_t m)
{
    if (S <= 0 || v <= 0 || m <= 0)
        return 0;
    /* 2·S·v·ring end times, a snapshot of 2·S·v·window end times, 9
     * counters and two table walks (6 each) a stage: 8 bytes each (24 a
     * stage, 21 used) */
    uint64_t cap = (uint64_t)(SIZE_MAX / 8), k = (uint64_t)S, words;
    if ((uint64_t)v > cap / k)
        return 0;
    k *= (uint64_t)v; /* places */
    if ((uint64_t)m > cap / 8 / k)
        return 0;
    words = 2 * k * (uint64_t)ring_size(S, m) + 2 * k * (uint64_t)snap_window(S, m); /* <= 4·k·m */
    if ((uint64_t)S > cap / 32 || words > cap - 24 * (uint64_t)S)
        return 0;
    return (size_t)(words + 24 * (uint64_t)S) * 8;
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
static void walk_start(table_walk *w, int64_t S, int64_t m)
{
    *w = (table_walk){0, 0, 0, 0, m % S + S, 0};
}

static void walk_next(table_walk *w, int64_t S, int64_t v, int64_t ring)
{
    if (++w->j < w->size)
        return;
    w->j = 0;
    if (++w->c < v)
        return;
    w->c = 0;
    w->first += w->size;
    w->slot += w->size;
    if (w->slot >= ring)
        w->slot -= ring;
    w->size = S;
    w->g++;
}

static void wake(sim_state *st, int64_t s)
{
    if (!st->queued[s]) {
        st->queued[s] = 1;
        st->stack[st->n_stack++] = s;
    }
}

void sim_unset(double *f, double *b, int64_t places)
{
    b[0] = -1.0;
    for (int64_t k = 1; k < places; k++)
        f[k] = b[k] = -1.0;
}

/* Writes an operation the interpreter ran to its log (pipeline_sim_state.h). */
static void log_op(pipe_op_log *log, int32_t dst, int32_t src, int32_t len, int32_t stage)
{
    if (log->short_of)
        return;
    if (log->n == log->cap) {
        size_t cap = log->cap ? 2 * log->cap : 1024;
        pipe_op *ops = log->n < log->limit && cap <= SIZE_MAX / sizeof *ops ? realloc(log->ops, cap * sizeof *ops) : NULL;
        if (ops == NULL) {
            log->short_of = true;
            return;
        }
        log->ops = ops;
        log->cap = cap;
    }
    log->ops[log->n++] = (pipe_op){dst, src, len, stage};
}

/* Runs stage s until it is blocked or done; the operations it ran. The
 * (place, micro-batch) of entry e of the table on stage s is e + s·m, the
 * place before it e + s·m − m (none below 0), the one after it e + s·m + m. */
static int64_t run_stage(sim_state *st, int64_t S, int64_t v, int64_t m, int64_t s, const pipe_cell *cell,
                         double *start)
{
    int64_t n = m * v, K = S * v, ran = 0;
    double clock = st->clock[s];
    for (;;) {
        int64_t nf = st->nf[s], nb = st->nb[s];
        int backward;
        if (nf < st->warm[s])
            backward = nf < st->cap ? 0 : -1;
        else if (nf == n)
            backward = nb < n ? 1 : -1;
        else
            backward = nf - st->warm[s] == nb ? (nf < st->cap ? 0 : -1) : 1;
        if (backward < 0)
            break;
        const table_walk *w = backward ? &st->wb[s] : &st->wf[s];
        int64_t chunk = w->c, mb = w->slot + w->j, k, here; /* mb: its slot in the ring */
        if (mb >= st->ring)
            mb -= st->ring;
        double ready, len;
        const pipe_cell *c;
        if (!backward) {
            k = chunk * S + s;
            here = mb * K + k;
            if (k == 0 && st->begun - st->ended >= st->ring) {
                st->overflow = true;
                break;
            }
            if (k == 0) /* the micro-batch's first operation: its end times start unset */
                sim_unset(st->done_f + mb * K, st->done_b + mb * K, K);
            /* a micro-batch not begun has no end times set yet */
            ready = k == 0 ? 0.0 : w->first + w->j >= st->begun ? -1.0 : st->done_f[here - 1];
            c = &cell[s * v + chunk];
            len = c->f;
        } else {
            int64_t back = v - 1 - chunk;
            k = back * S + s;
            here = mb * K + k;
            ready = k == K - 1 ? st->done_f[here] : st->done_b[here + 1];
            c = &cell[s * v + back];
            len = c->r + c->b;
        }
        if (ready < 0)
            break;
        if (st->log != NULL) { /* indices into the times: done_b lies K·ring past done_f */
            int64_t back = K * st->ring, src = !backward ? (k == 0 ? -1 : here - 1) : k == K - 1 ? here : back + here + 1;
            log_op(st->log, (int32_t)(backward ? back + here : here), (int32_t)src,
                   (int32_t)(2 * (c - cell) + backward), (int32_t)s | (!backward && k == 0 ? PIPE_OP_BEGINS : 0));
        }
        double begin = ready > clock ? ready : clock;
        if (start != NULL)
            start[s * 2 * n + nf + nb] = begin;
        clock = begin + len;
        if (k == 0) /* place 0: stage 0's first chunk */
            *(backward ? &st->ended : &st->begun) += 1;
        if (backward) {
            st->done_b[here] = clock;
            st->nb[s] = nb + 1;
            walk_next(&st->wb[s], S, v, st->ring);
        } else {
            st->done_f[here] = clock;
            st->nf[s] = nf + 1;
            walk_next(&st->wf[s], S, v, st->ring);
        }
        ran++;
    }
    st->clock[s] = clock;
    return ran;
}

int64_t sim_run_all(sim_state *st, int64_t S, int64_t v, int64_t m, const pipe_cell *cell, double *start)
{
    int64_t done = 0;
    for (int64_t s = S - 1; s >= 0; s--)
        wake(st, s);
    while (st->n_stack > 0) {
        int64_t s = st->stack[--st->n_stack];
        st->queued[s] = 0;
        int64_t ran = run_stage(st, S, v, m, s, cell, start);
        if (ran > 0) {
            done += ran;
            wake(st, (s + 1) % S);
            wake(st, (s + S - 1) % S);
        }
    }
    return done;
}

/* The periodic shortcut. The forward table repeats every P = S·v entries
 * past its first group (micro-batches shifted by S), and so does each
 * stage's order between its warm-up and its cool-down. Run in rounds, the
 * forwards capped at entry A_g = v·(m mod S) + g·P, a round takes the
 * state (each stage's clock and counts, the end times of the micro-batches
 * begun and not finished) to the next by one map, the same every round
 * while the cap stays below the table's end, and that map commutes with
 * adding a constant to every time. So once a round's state is the one
 * before with every time λ later (and the micro-batches S on), every later
 * round's is too: the shortcut moves the state J rounds on at once, then
 * runs the rest. A max-plus map moves no time by more than its inputs
 * moved, so a state matched within ε drifts at most J·ε from the
 * simulation's; ε is 1e-12 of the times, the matches' rounding. */
static bool near(double a, double b) { return fabs(a - b) <= 1e-12 * fabs(a); }

bool sim_repeats(const sim_state *st, const snapshot *sn, int64_t S, int64_t v, int64_t lo, int64_t hi,
                 double *lambda)
{
    int64_t P = S * v, K = S * v, w = sn->hi - sn->lo;
    if (!sn->have || lo != sn->lo + S || hi != sn->hi + S)
        return false;
    double l = st->clock[0] - sn->clock[0];
    for (int64_t s = 0; s < S; s++)
        if (st->nf[s] != sn->nf[s] + P || st->nb[s] != sn->nb[s] + P || !near(st->clock[s], sn->clock[s] + l))
            return false;
    for (int64_t j = 0; j < w; j++) {
        int64_t at = ((lo + j) % st->ring) * K;
        for (int64_t k = 0; k < K; k++) {
            double f = st->done_f[at + k], b = st->done_b[at + k];
            double f0 = sn->val[k * w + j], b0 = sn->val[(K + k) * w + j];
            if ((f < 0) != (f0 < 0) || (b < 0) != (b0 < 0) || (f >= 0 && !near(f, f0 + l)) ||
                (b >= 0 && !near(b, b0 + l)))
                return false;
        }
    }
    *lambda = l;
    return true;
}

void sim_take(snapshot *sn, const sim_state *st, int64_t S, int64_t v, int64_t m, int64_t lo, int64_t hi)
{
    int64_t K = S * v, w = hi - lo;
    sn->have = w <= snap_window(S, m);
    if (!sn->have)
        return;
    sn->lo = lo;
    sn->hi = hi;
    for (int64_t j = 0; j < w; j++) {
        int64_t at = ((lo + j) % st->ring) * K;
        for (int64_t k = 0; k < K; k++) {
            sn->val[k * w + j] = st->done_f[at + k];
            sn->val[(K + k) * w + j] = st->done_b[at + k];
        }
    }
    for (int64_t s = 0; s < S; s++) {
        sn->clock[s] = st->clock[s];
        sn->nf[s] = st->nf[s];
        sn->nb[s] = st->nb[s];
    }
}

/* A jump moves the state J rounds on: the window's times to S·J
 * micro-batches on, J·λ later (through the snapshot's buffer: the ring's
 * slots may overlap), and the counts J·P on. */
void sim_shift_times(sim_state *st, snapshot *sn, int64_t S, int64_t v, int64_t m, int64_t lo, int64_t hi, int64_t J,
                     double lambda)
{
    int64_t K = S * v, shift = J * S;
    double t = (double)J * lambda;
    sim_take(sn, st, S, v, m, lo, hi);
    int64_t w = hi - lo;
    for (int64_t j = 0; j < w; j++)
        for (int64_t k = 0; k < K; k++) {
            int64_t at = ((lo + j + shift) % st->ring) * K + k;
            double f = sn->val[k * w + j], b = sn->val[(K + k) * w + j];
            st->done_f[at] = f < 0 ? -1.0 : f + t;
            st->done_b[at] = b < 0 ? -1.0 : b + t;
        }
    for (int64_t s = 0; s < S; s++)
        st->clock[s] += t;
}

void sim_shift_counts(sim_state *st, int64_t S, int64_t v, int64_t J)
{
    int64_t shift = J * S;
    st->begun += shift;
    st->ended += shift;
    for (int64_t s = 0; s < S; s++) {
        st->nf[s] += J * S * v;
        st->nb[s] += J * S * v;
        /* both walks are past the first group: J groups on */
        table_walk *walks[2] = {&st->wf[s], &st->wb[s]};
        for (int i = 0; i < 2; i++) {
            walks[i]->g += J;
            walks[i]->first += shift;
            walks[i]->slot = walks[i]->first % st->ring;
        }
    }
}

bool sim_steady(const snapshot *sn, int64_t S, int64_t from)
{
    for (int64_t s = 0; s < S && sn->have; s++)
        if (sn->nb[s] < from)
            return false;
    return true;
}

double sim_span(const sim_state *st, int64_t S)
{
    double most = 0.0;
    for (int64_t s = 0; s < S; s++)
        if (st->clock[s] > most)
            most = st->clock[s];
    return most;
}

void sim_start(sim_state *st, snapshot *sn, pipe_order o, int64_t S, int64_t v, int64_t m, void *work)
{
    int64_t places = S * v, n = m * v;
    double *d = work;
    st->done_f = d;
    st->ring = ring_size(S, m);
    st->overflow = false;
    st->log = NULL;
    st->done_b = d + places * st->ring;
    st->clock = d + 2 * places * st->ring;
    sn->val = st->clock + S;
    sn->clock = sn->val + 2 * places * snap_window(S, m);
    st->wf = (table_walk *)(sn->clock + S);
    st->wb = st->wf + S;
    st->nf = (int64_t *)(st->wb + S);
    st->nb = st->nf + S;
    st->warm = st->nb + S;
    st->stack = st->warm + S;
    st->queued = st->stack + S;
    sn->nf = st->queued + S;
    sn->nb = sn->nf + S;
    st->n_stack = 0;
    sn->have = false;
    sn->lo = sn->hi = 0;
    st->begun = st->ended = 0; /* a micro-batch's end times are unset as it begins */
    for (int64_t s = S - 1; s >= 0; s--) {
        int64_t warm = warm_up(o, S, v, m, s);
        st->clock[s] = 0.0;
        st->nf[s] = st->nb[s] = st->queued[s] = 0;
        st->warm[s] = warm < n ? warm : n;
        walk_start(&st->wf[s], S, m);
        walk_start(&st->wb[s], S, m);
    }
}

int pipeline_sim(pipe_order o, int64_t S, int64_t v, int64_t m, const pipe_cell *cell, void *work,
                 size_t work_bytes, double *start, double *span)
{
    if (pipeline_sim_refusal(o, S, v, m) != NULL || work == NULL || work_bytes < pipeline_sim_work_bytes(S, v, m))
        return -1;
    int64_t n = m * v, left = 2 * n * S, P = S * v, base = v * (m % S);
    sim_state st;
    snapshot sn;
    sim_start(&st, &sn, o, S, v, m, work);
    /* rounds (only where no start times are asked for: the shortcut skips them) */
    for (int64_t g = 1; start == NULL && base + g * P < n; g++) {
        st.cap = base + g * P;
        left -= sim_run_all(&st, S, v, m, cell, NULL);
        int64_t lo = st.ended, hi = st.begun;
        double lambda;
        int64_t J = (n - 1 - base) / P - g; /* the rounds left whose cap stays below n */
        /* the snapshot's backwards all past the first group */
        if (sim_steady(&sn, S, base + P) && J > 0 && hi + J * S <= m &&
            sim_repeats(&st, &sn, S, v, lo, hi, &lambda)) {
            sim_shift_times(&st, &sn, S, v, m, lo, hi, J, lambda);
            sim_shift_counts(&st, S, v, J);
            left -= 2 * J * P * S;
            break;
        }
        sim_take(&sn, &st, S, v, m, lo, hi);
    }
    st.cap = n;
    left -= sim_run_all(&st, S, v, m, cell, start);
    if (left > 0 || st.overflow)
        return -1; /* the order waits on itself (or holds more micro-batches than the ring) */
    *span = sim_span(&st, S);
    return 0;
}
