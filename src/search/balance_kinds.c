/* balance_kinds.c: the step-objective balancer for body layers of several
 * kinds in model order (balance_solvers.h), exact.
 *
 * Every cell (chunk v, stage s) holds a contiguous run of the body; the cells
 * run in model order chunk by chunk, each over the stages upward. A stage's
 * time and memory depend only on how many layers of each kind each of its
 * cells holds and on their options. For one kind and n layers, the option
 * mixes worth keeping are the Pareto frontier of (activations, time) over all
 * mixes of n layers, built once per kind and n (frontier(n) from
 * frontier(n − 1) plus one layer of each option: a mix on the frontier leaves
 * a mix on the frontier when one layer is taken out). A stage's least time is
 * then the least sum of one frontier point per (cell, kind) whose activations,
 * scaled by each cell's in-flight count, fit the stage's budget: found by
 * walking the points of all but one group and a binary search in the last.
 *
 * Over the stages: with the start of each chunk fixed (each choice tried),
 * the state after stage s is where each chunk's run has reached; a dynamic
 * program keeps at every state the Pareto set of (Σ T, max T) of the stages
 * so far, which is exact for a·Σ T + b·max T with a, b ≥ 0 (a label another
 * equals or beats in both can never lead to a better step).
 *
 * DualPipeV's V-shaped order (p->vshape, two chunks): chunk 1 runs the stages
 * downward, so stage s holds chunk 0's s-th run and chunk 1's (S − 1 − s)-th.
 * The program then walks chunk 0 up from the body's start and chunk 1 down
 * from its end, one stage at a time; the last stage holds what lies between
 * them, split where they meet. No chunk start is guessed: one program.
 *
 * Two or more chunks where every layer the chunks after the first can hold
 * is of one kind (DeepSeek-V3: its dense layers all in chunk 0, MoE layers
 * after them): one program over chunk 0's reach and the count the later
 * chunks took, no chunk start tried (balance_kinds_alike.c says why exact).
 * With three or more its plan is the answer; with two it proves the least
 * step, and the chunk starts are then tried in their usual order, that step
 * their incumbent, until one reaches it (solve_two: the plan trying every
 * start gives, found without proving every start).
 *
 * What keeps it fast, each step exact: the chunk starts are tried from the
 * even split outward, the first against its own even split's step, so an
 * incumbent plan exists from the start; a label is dropped when a lower
 * bound on every plan it leads to cannot beat the incumbent (the stages so
 * far, plus bal_rest_bound's least seconds for the layers left, balance_rest.h);
 * the moves out of a state stop growing a cell once a move cannot fit or
 * cannot beat the incumbent (expand: a proof that no larger move can); and a
 * stage's least time is remembered by what its cells hold (balance_runs.h),
 * which the many chunk starts share. */
#include "balance_kinds_solver.h"

#include "balance_solvers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Cells of chunk v that must hold a body layer (no pinned layer there). */
static int needs(const ksolver *ks, int v)
{
    int n = 0;
    for (int s = 0; s < ks->S; s++)
        n += !ks->pinned[v * ks->S + s];
    return n;
}

/* The step of pg->q's even split (each chunk's layers dealt to its cells in
 * model order in turn, the odd ones to the last cells when late, else to the
 * first; V-shaped, the body halved between the chunks), the better of the
 * two, or INFINITY when neither fits: a plan the program for these starts
 * will find or beat, so an incumbent to prune its first run. */
static double even_split(ksolver *ks, program *pg)
{
    double best = INFINITY;
    for (int late = 0; late < 2; late++) {
        double sum = 0, max = 0;
        for (int s = 0; s < ks->S && sum < INFINITY; s++) {
            for (int v = 0; v < ks->I; v++) {
                int start = pg->vshape ? (v == 0 ? 0 : ks->N / 2) : pg->q[v];
                int end = pg->vshape ? (v == 0 ? ks->N / 2 : ks->N) : pg->q[v + 1];
                long n = end - start, j = pg->vshape && v == 1 ? ks->S - 1 - s : s; /* the cell's place in its chunk */
                long from = late ? n * j / ks->S : (n * j + ks->S - 1) / ks->S;
                long to = late ? n * (j + 1) / ks->S : (n * (j + 1) + ks->S - 1) / ks->S;
                pg->cb[v] = start + (int)from;
                pg->ce[v] = start + (int)to;
            }
            int bad = first_empty(ks, s, pg->cb, pg->ce) >= 0 || !pins_hold(ks, pg, s);
            double t = bad ? INFINITY : kinds_stage_time(ks, s, pg->cb, pg->ce);
            sum += t;
            max = t > max ? t : max;
        }
        if (sum < INFINITY && score(pg, sum, max) < best)
            best = score(pg, sum, max);
    }
    return best;
}

/* Tries every start of chunks v.. (q[v] set); keeps the best in *best /
 * best_q. 0; 1 once a start's plan reaches pg->target (no later start can
 * beat it); or −1 out of memory. */
static int try_starts(ksolver *ks, program *pg, int v, double *best, int *best_q)
{
    int I = ks->I;
    if (v == I - 1 || pg->vshape) { /* V-shaped: one program, the chunks meet where they may */
        if (!pg->vshape && ks->N - pg->q[v] < needs(ks, v))
            return 0;
        int at = -1;
        double before = *best;
        if (pg->incumbent == INFINITY)
            pg->incumbent = even_split(ks, pg);
        int rc = kinds_run_program(ks, pg, best, &at);
        pg->runs++;
        if (rc != 0)
            return -1;
        if (*best < before) {
            pg->incumbent = *best;
            pg->best_label = at;
            memcpy(best_q, pg->q, sizeof(int) * (size_t)(I + 1));
        }
        return *best <= pg->target;
    }
    /* the even split first, then outward from it: a good incumbent early prunes the rest */
    int lo = pg->q[v] + needs(ks, v), hi = ks->N, mid = pg->q[v] + (ks->N - pg->q[v]) / (I - v);
    mid = mid < lo ? lo : mid > hi ? hi : mid;
    for (int d = 0; mid - d >= lo || mid + d <= hi; d++)
        for (int side = 0; side < (d == 0 ? 1 : 2); side++) {
            int start = side == 0 ? mid + d : mid - d;
            if (start < lo || start > hi)
                continue;
            pg->q[v + 1] = start;
            int rc = try_starts(ks, pg, v + 1, best, best_q);
            if (rc != 0)
                return rc;
        }
    return 0;
}

/* Why no plan exists (a proof either way): a stage that cannot hold even one
 * layer of the lightest kind in each cell that needs one; else the most body
 * layers the stages could hold, each filled with the lightest kind; else −1:
 * the stages fit apart, but no split of the body in model order fits all. */
static void explain(const ksolver *ks, bal_plan *out)
{
    const bal_problem *p = ks->p;
    int S = ks->S, I = ks->I, least = 0;
    long most = 0;
    for (int s = 0; s < S; s++) {
        double need = ks->fixed_stat[s] + ks->fixed_act[s], pool = INFINITY;
        int slots = 0;
        for (int v = 0; v < I; v++) {
            int c = v * S + s;
            double light = INFINITY;
            for (int k = 0; k < ks->K; k++)
                if (ks->total[k] > 0 && p->kinds[k].stat + p->inflight[c] * ks->fr[k][1].pt[0].act < light)
                    light = p->kinds[k].stat + p->inflight[c] * ks->fr[k][1].pt[0].act;
            pool = light < pool ? light : pool;
            if (!ks->pinned[c]) {
                need += light;
                slots++;
            }
        }
        if (need > ks->limit) {
            out->bad_stage = s;
            out->bad_need = need;
            return;
        }
        least += slots;
        double extra = pool > 0 ? floor((ks->limit - need) / pool) : (double)ks->N;
        most += slots + (long)(extra < ks->N ? extra : ks->N);
    }
    out->capacity = least > ks->N ? least : most < ks->N ? (int)most : -1;
}

/* total[c · BAL_OPTIONS + r] = Σ over kinds of per_kind[(c · K + k) · BAL_OPTIONS + r]. */
static void sum_kinds(const int *per_kind, int K, size_t cells, int *total)
{
    for (size_t c = 0; c < cells; c++)
        for (int k = 0; k < K; k++)
            for (int r = 0; r < BAL_OPTIONS; r++)
                total[c * BAL_OPTIONS + (size_t)r] += per_kind[(c * (size_t)K + (size_t)k) * BAL_OPTIONS + (size_t)r];
}

/* The plan's counts and per-stage arrays (offloaded counts too where a layer may offload); 0, or −1. */
static int plan_alloc(const bal_problem *p, bal_plan *out)
{
    size_t cells = (size_t)p->stages * (size_t)p->chunks, K = (size_t)p->nkinds;
    out->count = calloc(cells * BAL_OPTIONS, sizeof(int));
    out->kind_count = calloc(cells * K * BAL_OPTIONS, sizeof(int));
    out->stage_time = calloc((size_t)p->stages, sizeof(double));
    out->stage_mem = calloc((size_t)p->stages, sizeof(double));
    if (!out->count || !out->kind_count || !out->stage_time || !out->stage_mem)
        return -1;
    if (bal_offloads(p)) {
        out->offload = calloc(cells * BAL_OPTIONS, sizeof(int));
        out->kind_offload = calloc(cells * K * BAL_OPTIONS, sizeof(int));
        if (out->offload == NULL || out->kind_offload == NULL)
            return -1;
    }
    return 0;
}

/* The program's arrays and coefficients for p, no chunk start chosen yet; 0, or −1. */
static int program_init(program *pg, const bal_problem *p)
{
    int I = p->chunks;
    pg->q = calloc((size_t)I + 1, sizeof(int));
    pg->stride = calloc((size_t)I + 1, sizeof(size_t));
    pg->pos = calloc((size_t)I * 7, sizeof(int));
    if (!pg->q || !pg->stride || !pg->pos)
        return -1;
    pg->next = pg->pos + I;
    pg->d = pg->pos + 2 * I;
    pg->lo = pg->pos + 3 * I;
    pg->hi = pg->pos + 4 * I;
    pg->cb = pg->pos + 5 * I;
    pg->ce = pg->pos + 6 * I;
    pg->vshape = p->vshape;
    pg->N = p->body;
    pg->a = p->coef_sum;
    pg->b = p->coef_max;
    pg->incumbent = INFINITY;
    pg->target = -INFINITY;
    pg->q[I] = p->body;
    return 0;
}

/* The plan's totals, objective and counts once out->kind_count (and
 * kind_offload) hold its choices; explored: the programs run. */
static void plan_finish(const ksolver *ks, long explored, bal_plan *out)
{
    const bal_problem *p = ks->p;
    int K = ks->K;
    size_t cells = (size_t)ks->S * (size_t)ks->I;
    sum_kinds(out->kind_count, K, cells, out->count);
    if (out->offload != NULL)
        sum_kinds(out->kind_offload, K, cells, out->offload);
    out->feasible = 1;
    out->explored = explored;
    out->moves = ks->moves;
    bal_evaluate_kinds(p, out->kind_count, out->kind_offload, &out->objective, out->stage_time, out->stage_mem);
}

/* Runs the program again for the best chunk starts best_q and writes its plan into out; 0, or −1. */
static int plan_fill(ksolver *ks, program *pg, const int *best_q, bal_plan *out)
{
    memcpy(pg->q, best_q, sizeof(int) * (size_t)(ks->I + 1));
    int at = -1;
    double again = INFINITY;
    if (kinds_run_program(ks, pg, &again, &at) != 0 || at < 0)
        return -1;
    kinds_trace_back(ks, pg, at, out->kind_count, out->kind_offload);
    plan_finish(ks, pg->runs, out);
    return 0;
}

/* The chunk starts try_starts tries first: each chunk's even share of the
 * layers the chunks before it leave, each cell that must hold a layer given one. */
static void even_starts(ksolver *ks, program *pg)
{
    for (int v = 0; v < ks->I - 1; v++) {
        int start = pg->q[v] + (ks->N - pg->q[v]) / (ks->I - v), lo = pg->q[v] + needs(ks, v);
        pg->q[v + 1] = start < lo ? lo : start > ks->N ? ks->N : start;
    }
}

/* Every layer chunks 1.. may hold of one kind (balance_kinds_alike.c): one
 * program over (chunk 0's reach, the layers chunks 1.. took), its first
 * incumbent the even split of pg's even chunk starts; 0, or −1. */
static int solve_alike(ksolver *ks, program *pg, bal_plan *out)
{
    int S = ks->S, I = ks->I;
    even_starts(ks, pg);
    int *cell = malloc(sizeof *cell * 2 * (size_t)S * (size_t)I);
    double best = INFINITY;
    if (cell == NULL || kinds_alike_solve(ks, even_split(ks, pg), &best, cell, cell + S * I) != 0) {
        free(cell);
        return -1;
    }
    out->optimal = 1; /* proved either way */
    if (best == INFINITY) {
        explain(ks, out);
    } else {
        int *b = pg->cb, *e = pg->ce;
        for (int s = 0; s < S; s++) {
            for (int v = 0; v < I; v++) {
                b[v] = cell[v * S + s];
                e[v] = cell[S * I + v * S + s];
            }
            kinds_stage_cost(ks, s, b, e, out->kind_count, out->kind_offload);
        }
        plan_finish(ks, 1, out);
    }
    free(cell);
    return 0;
}

/* Two chunks, chunk 1's layers all of one kind (kinds_alike_applies): the
 * alike program proves the least step in one program; the chunk starts are
 * then tried as try_starts tries them (the even start first, then outward),
 * that least their incumbent from the start, until one's plan reaches it.
 * No start after it can beat it, and plan_fill's second run at the best
 * start, which gives try_starts' plan, runs with that same incumbent: so
 * this is try_starts' plan, found without proving every start. 0, or −1. */
static int solve_two(ksolver *ks, program *pg, bal_plan *out, int *best_q)
{
    even_starts(ks, pg);
    double least = INFINITY, best = INFINITY;
    if (kinds_alike_solve(ks, even_split(ks, pg), &least, NULL, NULL) != 0)
        return -1;
    out->optimal = 1; /* proved either way */
    if (least == INFINITY) {
        explain(ks, out);
        return 0;
    }
    pg->incumbent = pg->target = least;
    pg->runs = 1; /* the alike program */
    int rc = try_starts(ks, pg, 0, &best, best_q);
    if (rc == 1) {
        kinds_trace_back(ks, pg, pg->best_label, out->kind_count, out->kind_offload);
        plan_finish(ks, pg->runs, out);
        return 0;
    }
    if (rc == 0 && best == INFINITY) { /* the two programs' sums rounded apart: every start proved afresh */
        pg->incumbent = INFINITY;
        pg->target = -INFINITY;
        rc = try_starts(ks, pg, 0, &best, best_q);
    }
    return rc < 0 || best == INFINITY ? -1 : plan_fill(ks, pg, best_q, out);
}

int bal_solve_kinds(const bal_problem *p, bal_plan *out)
{
    int rc = -1;
    ksolver ks;
    program pg = {0};
    int *best_q = NULL;
    if (kinds_setup(&ks, p) != 0 || program_init(&pg, p) != 0 || plan_alloc(p, out) != 0)
        goto done;
    best_q = calloc((size_t)p->chunks + 1, sizeof(int));
    if (best_q != NULL && !p->every_start && kinds_alike_applies(&ks)) {
        rc = ks.I == 2 ? solve_two(&ks, &pg, out, best_q) : solve_alike(&ks, &pg, out);
        goto done;
    }
    double best = INFINITY;
    if (best_q == NULL || try_starts(&ks, &pg, 0, &best, best_q) != 0)
        goto done;
    out->optimal = 1; /* proved either way */
    if (best == INFINITY)
        explain(&ks, out);
    rc = best == INFINITY ? 0 : plan_fill(&ks, &pg, best_q, out);
done:
    kinds_program_free(&pg);
    free(pg.q);
    free(pg.stride);
    free(pg.pos);
    free(best_q);
    kinds_teardown(&ks);
    return rc;
}
