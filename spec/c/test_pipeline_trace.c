/* test_pipeline_trace.c: the span replayed from a recording of the
 * interleaved orders (src/core/pipeline_trace.c) against the interpreter
 * that the recording was made by (src/core/pipeline_sim.c), which
 * spec/pipeline_sim_spec.lua holds to lua/nd/pipeline_timeline.lua.
 *
 * Where the expected numbers come from:
 *   - the hand case (S = 2, v = 2, m = 2) is spec/timing_interleaved_spec.lua's,
 *     derived there operation by operation: 24 s;
 *   - every other span is pipeline_sim's for the same cells, compared bit
 *     for bit (the replay must take the same maxima and sums), over random
 *     sizes and cells, long pipelines among them (the periodic shortcut's
 *     match compared in both), and cells equal everywhere (its match at the
 *     first round it can be);
 *   - where the cells match past the rounds recorded, the replay says so
 *     (PIPE_TRACE_UNCOVERED: the caller runs the interpreter);
 *   - a recording of 400 micro-batches a stage holds fewer operations than
 *     the 2·S·m·v the timeline runs: its rounds past the match are not kept
 *     (counted from pipeline_trace_bytes: 16 bytes an operation). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/pipeline_sim.h"
#include "core/pipeline_trace.h"

static uint64_t rng_state = 88172645463325252ull;

static uint64_t next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int64_t below(int64_t n) { return (int64_t)(next() % (uint64_t)n); }
static double unit(void) { return (double)(next() >> 11) / 9007199254740992.0; }

typedef struct {
    int same, uncovered, compared;
} tally;

/* Compares the replay with the interpreter on one case; false on a difference. */
static bool agrees(pipe_order o, int64_t S, int64_t v, int64_t m, const pipe_cell *cell, tally *t)
{
    size_t work = pipeline_trace_work_bytes(S, v, m);
    void *a = malloc(work), *b = malloc(work);
    pipe_trace *tr = pipeline_trace_new(o, S, v, m);
    bool ok = a != NULL && b != NULL && tr != NULL;
    if (ok) {
        double want = -1.0, got = -1.0;
        int rw = pipeline_sim(o, S, v, m, cell, a, work, NULL, &want);
        int rg = pipeline_trace_sim(tr, cell, b, work, &got);
        t->compared++;
        if (rg == PIPE_TRACE_UNCOVERED)
            t->uncovered++;
        else if (rg == rw && (rw != 0 || memcmp(&got, &want, sizeof got) == 0))
            t->same++;
        else {
            printf("#   S %lld v %lld m %lld order %d: interpreter %d %.17g, replay %d %.17g\n", (long long)S,
                   (long long)v, (long long)m, (int)o, rw, want, rg, got);
            ok = false;
        }
    }
    pipeline_trace_free(tr);
    free(a);
    free(b);
    return ok;
}

/* Cells of one of three kinds: random, equal everywhere, or equal but the last stage's last chunk. */
static void fill(pipe_cell *cell, int64_t S, int64_t v, int kind)
{
    for (int64_t i = 0; i < S * v; i++) {
        if (kind == 0)
            cell[i] = (pipe_cell){0.1 + unit(), unit() < 0.5 ? 0.0 : unit(), 0.1 + 2 * unit()};
        else
            cell[i] = (pipe_cell){1.0, 0.0, 2.0};
    }
    if (kind == 2)
        cell[S * v - 1] = (pipe_cell){1.5, 0.0, 2.25};
}

int main(void)
{
    /* the hand case */
    pipe_cell hand[4] = {{3, 0, 3}, {1, 0, 1}, {2, 0, 2}, {2, 0, 2}};
    pipe_trace *tr = pipeline_trace_new(PIPE_ORDER_INTERLEAVED, 2, 2, 2);
    size_t work = pipeline_trace_work_bytes(2, 2, 2);
    void *w = malloc(work);
    double span = 0.0;
    CHECK(tr != NULL && w != NULL, "a recording of S 2, v 2, m 2");
    CHECK_INT(tr != NULL && w != NULL ? pipeline_trace_sim(tr, hand, w, work, &span) : -9, 0, "replayed");
    CHECK_NEAR(span, 24.0, 0.0, "the hand case spans 24 s");
    CHECK_INT(pipeline_trace_sim(tr, hand, w, work - 1, &span), -1, "a short workspace is refused");
    pipeline_trace_free(tr);
    free(w);
    CHECK(pipeline_trace_new(PIPE_ORDER_INTERLEAVED, 4, 2, 3) == NULL, "fewer micro-batches than stages: none");

    /* random cases */
    tally t = {0, 0, 0};
    bool all = true;
    pipe_cell *cell = malloc(16 * 4 * sizeof *cell);
    for (int i = 0; i < 600 && cell != NULL; i++) {
        int64_t S = 1 + below(8), v = 1 + below(4);
        int64_t m = i % 5 == 0 ? S * (20 + below(60)) + below(S) : S + below(6 * S);
        pipe_order o = i % 4 == 3 ? PIPE_ORDER_LESS_MEMORY : PIPE_ORDER_INTERLEAVED;
        if (v > 1 && S == 1)
            S = 2;
        if (o == PIPE_ORDER_LESS_MEMORY)
            m -= m % S;
        if (m < S)
            m = S;
        fill(cell, S, v, i % 3);
        all = agrees(o, S, v, m, cell, &t) && all;
    }
    CHECK(cell != NULL && all, "600 random cases: the replay's span is the interpreter's, bit for bit");
    /* long pipelines of few stages: some match past the rounds recorded */
    for (int i = 0; i < 400 && cell != NULL; i++) {
        int64_t S = 2 + below(3), v = 2 + below(2), m = S * (50 + below(250));
        fill(cell, S, v, i % 3);
        all = agrees(PIPE_ORDER_INTERLEAVED, S, v, m, cell, &t) && all;
    }
    CHECK(cell != NULL && all, "400 long ones of 2 to 4 stages: the same");
    CHECK(t.uncovered > 0, "some past the recording: answered as not covered");
    printf("# %d compared, %d the same, %d not covered by the recording\n", t.compared, t.same, t.uncovered);
    CHECK(t.same >= t.compared * 9 / 10, "at least 9 in 10 replayed (the rest run the interpreter)");

    /* a long pipeline: its recording holds a few rounds, not the timeline */
    int64_t S = 8, v = 3, m = 400 * 8;
    tr = pipeline_trace_new(PIPE_ORDER_INTERLEAVED, S, v, m);
    CHECK(tr != NULL && pipeline_trace_bytes(tr) < (size_t)(2 * S * m * v) * 16 / 10,
          "S 8, v 3, m 3200: under a tenth of the operations recorded");
    fill(cell, S, v, 2);
    all = agrees(PIPE_ORDER_INTERLEAVED, S, v, m, cell, &t);
    CHECK(all, "and its span the interpreter's");
    pipeline_trace_free(tr);
    free(cell);
    return check_done();
}
