/* balance.c: the pipeline balancer (balance.h), exact.
 *
 * The step objective a·Σ T_s + b·max T_s (a, b ≥ 0) grows with every stage
 * time T_s, so a stage holding k body layers is best at the least time its k
 * layers can take while the stage fits: T(s, k). That least time is a small
 * integer program over the option counts, solved exactly here by enumeration
 * (below). The layers of a stage sit in its chunks; each chunk's activations
 * are kept for its own number of micro-batches (its in-flight count), so a
 * layer costs least memory in the chunk with the fewest: a stage's layers are
 * one per chunk that needs one, the rest in that cheapest chunk, and the
 * option of each is free. Over the stages, for a bound B on the slowest stage
 * a dynamic program over the layers placed so far gives the least Σ T with
 * every T(s, k_s) ≤ B; the optimum is the best over the values B the table
 * T holds, tried upward until the lower bound a·Σ* + b·B (Σ* the least Σ T
 * with no bound) reaches the best found, which proves it. */
#include "balance.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/timing.h"

/* Memory comparisons allow a relative 1e-12 for rounding in sums of bytes. */
static int fits(double need, double limit) { return need <= limit + fabs(limit) * 1e-12; }

/* Per stage: what its pinned layers bring, the cells that need a body layer
 * (slots) with their in-flight counts, and the cheapest cell (pool). */
typedef struct {
    double fixed_stat, fixed_act, fixed_time, fixed_fwd;
    int nslots, *slot_cell, pool_cell;
    double *slot_coef, pool_coef;
} stage_info;

typedef struct {
    const bal_problem *p;
    int nopt, opt[BAL_OPTIONS]; /* options worth choosing, by time ascending (act then descending) */
    stage_info *st;
    int *cells_mem;             /* storage behind every slot_cell */
    double *coef_mem;
} solver;

/* ---- the least time of q pool layers at in-flight coef within budget ---- */

typedef struct {
    const solver *sv;
    double coef, best;
    int x[BAL_OPTIONS], bx[BAL_OPTIONS], found;
} pool_search;

static double act_of(const solver *sv, int i) { return sv->p->layer.act[sv->opt[i]]; }
static double time_of(const solver *sv, int i) { return sv->p->layer.time[sv->opt[i]]; }

/* Middle options i in 1..nopt−2 are counted here; the rest go between the
 * fastest (0) and the leanest (nopt−1) in closed form: as many fastest as fit. */
static void pool_walk(pool_search *ps, int i, int q, double budget, double t)
{
    const solver *sv = ps->sv;
    int lo = 0, hi = sv->nopt - 1;
    double a_hi = act_of(sv, hi) * ps->coef;
    if (!fits(q * a_hi, budget) || t + q * time_of(sv, lo) >= ps->best)
        return;
    if (i < hi) {
        for (int c = 0; c <= q; c++) {
            ps->x[i] = c;
            pool_walk(ps, i + 1, q - c, budget - c * act_of(sv, i) * ps->coef, t + c * time_of(sv, i));
        }
        ps->x[i] = 0;
        return;
    }
    int n_lo = q;
    if (hi > lo) {
        double gap = (act_of(sv, lo) - act_of(sv, hi)) * ps->coef;
        if (gap > 0) {
            double room = floor((budget - q * a_hi) / gap);
            n_lo = room < 0 ? 0 : room > q ? q : (int)room;
            while (n_lo < q && fits((n_lo + 1) * gap + q * a_hi, budget))
                n_lo++;
            while (n_lo > 0 && !fits(n_lo * gap + q * a_hi, budget))
                n_lo--;
        }
    }
    double total = t + n_lo * time_of(sv, lo) + (hi > lo ? (q - n_lo) * time_of(sv, hi) : 0);
    if (total < ps->best) {
        ps->best = total;
        ps->found = 1;
        memcpy(ps->bx, ps->x, sizeof ps->x);
        ps->bx[lo] = n_lo;
        if (hi > lo)
            ps->bx[hi] = q - n_lo;
    }
}

/* ---- the least time of stage s holding k body layers ---- */

typedef struct {
    const solver *sv;
    int s, k;
    double best;
    int *slot_opt, *best_slot_opt; /* option index per slot */
    int pool_x[BAL_OPTIONS], found;
} stage_search;

static void stage_walk(stage_search *ss, int j, double slot_act, double slot_time)
{
    const solver *sv = ss->sv;
    const stage_info *st = &sv->st[ss->s];
    if (j < st->nslots) {
        for (int i = 0; i < sv->nopt; i++) {
            ss->slot_opt[j] = i;
            stage_walk(ss, j + 1, slot_act + st->slot_coef[j] * act_of(sv, i), slot_time + time_of(sv, i));
        }
        return;
    }
    const bal_problem *p = sv->p;
    double budget = p->limit - st->fixed_stat - ss->k * p->layer.stat - st->fixed_act - slot_act;
    pool_search ps = {.sv = sv, .coef = st->pool_coef, .best = ss->best - st->fixed_time - slot_time};
    if (budget < 0 && !fits(0, budget))
        return;
    pool_walk(&ps, 1, ss->k - st->nslots, budget, 0);
    if (ps.found) {
        ss->best = st->fixed_time + slot_time + ps.best;
        ss->found = 1;
        memcpy(ss->pool_x, ps.bx, sizeof ps.bx);
        memcpy(ss->best_slot_opt, ss->slot_opt, sizeof(int) * (size_t)st->nslots);
    }
}

/* T(s, k), or INFINITY; with count non-NULL, writes the stage's cells there. */
static double stage_best(const solver *sv, int s, int k, int *scratch, int *count)
{
    const stage_info *st = &sv->st[s];
    if (k < st->nslots)
        return INFINITY;
    stage_search ss = {.sv = sv, .s = s, .k = k, .best = INFINITY, .slot_opt = scratch,
                       .best_slot_opt = scratch + st->nslots};
    stage_walk(&ss, 0, 0, 0);
    if (!ss.found)
        return INFINITY;
    if (count != NULL) {
        int S = sv->p->stages;
        for (int j = 0; j < st->nslots; j++)
            count[(st->slot_cell[j]) * BAL_OPTIONS + sv->opt[ss.best_slot_opt[j]]] += 1;
        for (int i = 0; i < sv->nopt; i++)
            count[st->pool_cell * BAL_OPTIONS + sv->opt[i]] += ss.pool_x[i];
        (void)S;
    }
    return ss.best;
}

/* ---- setting up ---- */

static int cell_of(const bal_problem *p, int v, int s) { return v * p->stages + s; }

static int setup(solver *sv, const bal_problem *p)
{
    memset(sv, 0, sizeof *sv);
    sv->p = p;
    int S = p->stages, I = p->chunks;
    sv->st = calloc((size_t)S, sizeof *sv->st);
    sv->cells_mem = malloc(sizeof(int) * (size_t)S * (size_t)I);
    sv->coef_mem = malloc(sizeof(double) * (size_t)S * (size_t)I);
    if (sv->st == NULL || sv->cells_mem == NULL || sv->coef_mem == NULL)
        return -1;
    sv->nopt = bal_undominated_options(&p->layer, 1, sv->opt);
    bal_sort_options_by_time(&p->layer, sv->opt, sv->nopt);
    for (int s = 0; s < S; s++) {
        stage_info *st = &sv->st[s];
        st->slot_cell = sv->cells_mem + (size_t)s * (size_t)I;
        st->slot_coef = sv->coef_mem + (size_t)s * (size_t)I;
        st->pool_cell = -1;
        for (int v = 0; v < I; v++) {
            int c = cell_of(p, v, s);
            double n = p->inflight[c];
            const bal_pinned *pin[2];
            int pins = bal_pinned_at(p, v, s, pin);
            for (int i = 0; i < pins; i++) {
                st->fixed_stat += pin[i]->stat;
                st->fixed_act += pin[i]->act * n;
                st->fixed_time += pin[i]->time;
                st->fixed_fwd += pin[i]->fwd;
            }
            if (pins == 0) {
                st->slot_cell[st->nslots] = c;
                st->slot_coef[st->nslots++] = n;
            }
            if (st->pool_cell < 0 || n < st->pool_coef) {
                st->pool_cell = c;
                st->pool_coef = n;
            }
        }
    }
    return 0;
}

static void teardown(solver *sv)
{
    free(sv->st);
    free(sv->cells_mem);
    free(sv->coef_mem);
}

static int valid_layer(const bal_layer *l)
{
    if ((l->offered & ((1u << BAL_OPTIONS) - 1)) == 0 || !(l->stat >= 0))
        return 0;
    if ((l->offload_offered & ~l->offered) != 0 || (l->offload_offered && !(l->offload_share >= 0 && l->offload_share <= 1)))
        return 0;
    for (int r = 0; r < BAL_OPTIONS; r++) {
        if ((l->offered & (1u << r)) && !(l->act[r] >= 0 && l->time[r] >= 0))
            return 0;
        if ((l->offload_offered & (1u << r)) && !(l->offload_time[r] >= 0))
            return 0;
    }
    return 1;
}

static int valid(const bal_problem *p)
{
    if (p->stages < 1 || p->chunks < 1 || p->body < 0 || p->inflight == NULL || p->micro < 1)
        return 0;
    if (p->tail_stage < 0 || p->tail_stage >= p->stages || !(p->coef_sum >= 0) || !(p->coef_max >= 0))
        return 0;
    if (p->nkinds == 0 && !valid_layer(&p->layer))
        return 0;
    if (p->nkinds < 0 || (p->nkinds > 0 && (p->kinds == NULL || (p->kind_of == NULL && p->body > 0))))
        return 0;
    for (int k = 0; k < p->nkinds; k++)
        if (!valid_layer(&p->kinds[k]))
            return 0;
    for (int i = 0; p->nkinds > 0 && i < p->body; i++)
        if (p->kind_of[i] < 0 || p->kind_of[i] >= p->nkinds)
            return 0;
    int first, last;
    if (p->nkinds > 0 && bal_pinned_ends(p, &first, &last) != 0)
        return 0;
    if (p->nkinds == 0 && p->layer.pin != BAL_PIN_NONE)
        return 0;
    for (int c = 0; c < p->stages * p->chunks; c++)
        if (!(p->inflight[c] >= 0))
            return 0;
    return !p->vshape || (p->chunks == 2 && p->objective == BAL_OBJ_STEP);
}

/* ---- the program over the stages ---- */

/* Least Σ T with every T(s, k_s) ≤ bound; fills pick[s] and returns the sum, or INFINITY. */
static double least_sum(const bal_problem *p, const double *T, double bound, double *f, int *from, int *pick,
                        double *slowest)
{
    int S = p->stages, N = p->body, W = N + 1;
    for (int i = 0; i < (S + 1) * W; i++)
        f[i] = INFINITY;
    f[0] = 0;
    for (int s = 0; s < S; s++)
        for (int u = 0; u <= N; u++) {
            if (f[s * W + u] == INFINITY)
                continue;
            for (int k = 0; u + k <= N; k++) {
                double t = T[s * W + k];
                if (t > bound)
                    continue;
                double g = f[s * W + u] + t;
                if (g < f[(s + 1) * W + u + k]) {
                    f[(s + 1) * W + u + k] = g;
                    from[(s + 1) * W + u + k] = k;
                }
            }
        }
    double total = f[S * W + N];
    if (total == INFINITY)
        return INFINITY;
    *slowest = 0;
    for (int s = S, u = N; s > 0; s--) {
        int k = from[s * W + u];
        pick[s - 1] = k;
        if (T[(s - 1) * W + k] > *slowest)
            *slowest = T[(s - 1) * W + k];
        u -= k;
    }
    return total;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Why no plan exists: the first stage that cannot hold its least layers, else the capacity. */
static void explain(const solver *sv, const double *T, bal_plan *out)
{
    const bal_problem *p = sv->p;
    int S = p->stages, W = p->body + 1, most = 0, least = 0;
    double a_min = INFINITY;
    for (int i = 0; i < sv->nopt; i++)
        if (act_of(sv, i) < a_min)
            a_min = act_of(sv, i);
    for (int s = 0; s < S; s++) {
        const stage_info *st = &sv->st[s];
        least += st->nslots;
        if (st->nslots <= p->body && T[s * W + st->nslots] == INFINITY) {
            double need = st->fixed_stat + st->fixed_act + st->nslots * p->layer.stat;
            for (int j = 0; j < st->nslots; j++)
                need += st->slot_coef[j] * a_min;
            out->bad_stage = s;
            out->bad_need = need;
            return;
        }
        int k = p->body;
        while (k >= 0 && T[s * W + k] == INFINITY)
            k--;
        most += k < 0 ? 0 : k;
    }
    out->capacity = least > p->body ? least : most;
}

/* The one kind of a body whose layers are all alike (and not pinned to an end), or −1. */
static int sole_kind(const bal_problem *p)
{
    for (int i = 1; i < p->body; i++)
        if (p->kind_of[i] != p->kind_of[0])
            return -1;
    int k = p->body > 0 ? p->kind_of[0] : 0;
    return p->kinds[k].pin == BAL_PIN_NONE ? k : -1;
}

/* A plan's first body layer per cell, from its counts in model order. */
static int fill_first(const bal_problem *p, bal_plan *out)
{
    size_t cells = (size_t)p->stages * (size_t)p->chunks;
    out->first = calloc(cells, sizeof(int));
    if (out->first == NULL)
        return -1;
    int at = 0;
    for (size_t j = 0; j < cells; j++) { /* model order */
        size_t c = (size_t)bal_model_cell(p, (int)j);
        out->first[c] = at;
        for (int r = 0; r < BAL_OPTIONS && out->count != NULL; r++)
            at += out->count[c * BAL_OPTIONS + (size_t)r];
    }
    return 0;
}

/* A body of one kind solved as a uniform problem; its counts copied to kind_count. */
static int solve_sole(const bal_problem *p, int k, bal_plan *out)
{
    bal_problem q = *p;
    q.layer = p->kinds[k];
    q.nkinds = 0;
    q.kinds = NULL;
    q.kind_of = NULL;
    if (bal_solve(&q, out) != 0)
        return -1;
    size_t cells = (size_t)p->stages * (size_t)p->chunks, K = (size_t)p->nkinds;
    out->kind_count = calloc(cells * K * BAL_OPTIONS, sizeof(int));
    if (out->kind_count == NULL)
        return -1;
    for (size_t c = 0; c < cells && out->count != NULL; c++)
        for (int r = 0; r < BAL_OPTIONS; r++)
            out->kind_count[(c * K + (size_t)k) * BAL_OPTIONS + (size_t)r] = out->count[c * BAL_OPTIONS + (size_t)r];
    return 0;
}

static int solve_step(const bal_problem *p, bal_plan *out);

/* p as a problem of one kind (kind_of: body zeros, the caller frees it); NULL out of memory. */
static int *as_one_kind(const bal_problem *p, bal_problem *q)
{
    int *zeros = calloc((size_t)p->body + 1, sizeof(int));
    *q = *p;
    q->nkinds = 1;
    q->kinds = &p->layer;
    q->kind_of = zeros;
    return zeros;
}

/* Offloading offered or the V-shaped order: the kinds solver, a uniform body as one kind. */
static int solve_offload(const bal_problem *p, bal_plan *out)
{
    if (p->nkinds > 0)
        return bal_solve_kinds(p, out);
    bal_problem q;
    int *zeros = as_one_kind(p, &q);
    int rc = zeros != NULL ? bal_solve_kinds(&q, out) : -1;
    free(zeros);
    free(out->kind_count);
    free(out->kind_offload);
    out->kind_count = out->kind_offload = NULL;
    return rc;
}

int bal_solve(const bal_problem *p, bal_plan *out)
{
    memset(out, 0, sizeof *out);
    out->bad_stage = -1;
    if (p == NULL || !valid(p))
        return -1;
    int rc;
    if (bal_offloads(p) || p->vshape)
        rc = p->objective == BAL_OBJ_STEP ? solve_offload(p, out) : -1;
    else if (p->nkinds > 0 && sole_kind(p) >= 0)
        rc = solve_sole(p, sole_kind(p), out);
    else if (p->nkinds > 0)
        rc = p->objective == BAL_OBJ_STEP ? bal_solve_kinds(p, out) : -1;
    else if (p->objective == BAL_OBJ_SAPP)
        rc = bal_solve_sapp(p, out);
    else
        rc = solve_step(p, out);
    if (rc == 0 && out->first == NULL)
        rc = fill_first(p, out);
    if (rc != 0)
        bal_plan_free(out);
    return rc;
}

/* The uniform step objective (the file's head comment). */
static int solve_step(const bal_problem *p, bal_plan *out)
{
    int S = p->stages, N = p->body, W = N + 1, rc = -1;
    solver sv;
    double *T = NULL, *f = NULL, *cand = NULL;
    int *from = NULL, *pick = NULL, *best_pick = NULL, *scratch = NULL;
    if (setup(&sv, p) != 0)
        goto done;
    T = malloc(sizeof(double) * (size_t)S * (size_t)W);
    f = malloc(sizeof(double) * (size_t)(S + 1) * (size_t)W);
    cand = malloc(sizeof(double) * (size_t)S * (size_t)W);
    from = calloc((size_t)(S + 1) * (size_t)W, sizeof(int));
    pick = calloc((size_t)S, sizeof(int));
    best_pick = calloc((size_t)S, sizeof(int));
    scratch = malloc(sizeof(int) * (size_t)(2 * p->chunks + 2));
    out->count = calloc((size_t)S * (size_t)p->chunks * BAL_OPTIONS, sizeof(int));
    out->stage_time = calloc((size_t)S, sizeof(double));
    out->stage_mem = calloc((size_t)S, sizeof(double));
    if (!T || !f || !cand || !from || !pick || !best_pick || !scratch || !out->count || !out->stage_time ||
        !out->stage_mem)
        goto done;
    int nc = 0;
    for (int s = 0; s < S; s++) {
        int open = 1;
        for (int k = 0; k <= N; k++) {
            double t = open ? stage_best(&sv, s, k, scratch, NULL) : INFINITY;
            if (t == INFINITY && k >= sv.st[s].nslots)
                open = 0; /* more layers never fit where fewer did not */
            T[s * W + k] = t;
            if (t != INFINITY)
                cand[nc++] = t;
        }
    }
    double slowest, sum_free = least_sum(p, T, INFINITY, f, from, pick, &slowest);
    if (sum_free == INFINITY) {
        explain(&sv, T, out);
        out->optimal = 1; /* proved: no plan */
        rc = 0;
        goto done;
    }
    double best = INFINITY;
    if (p->coef_max == 0) {
        best = p->coef_sum * sum_free;
        memcpy(best_pick, pick, sizeof(int) * (size_t)S);
        out->explored = 1;
    } else {
        qsort(cand, (size_t)nc, sizeof(double), cmp_double);
        for (int i = 0; i < nc; i++) {
            if (i > 0 && cand[i] == cand[i - 1])
                continue;
            if (p->coef_sum * sum_free + p->coef_max * cand[i] >= best)
                break; /* no plan whose slowest stage is this slow or slower can win */
            out->explored++;
            double sum = least_sum(p, T, cand[i], f, from, pick, &slowest);
            if (sum == INFINITY)
                continue;
            double obj = p->coef_sum * sum + p->coef_max * slowest;
            if (obj < best) {
                best = obj;
                memcpy(best_pick, pick, sizeof(int) * (size_t)S);
            }
        }
    }
    for (int s = 0; s < S; s++)
        stage_best(&sv, s, best_pick[s], scratch, out->count);
    out->feasible = 1;
    out->optimal = 1;
    bal_evaluate(p, out->count, &out->objective, out->stage_time, out->stage_mem);
    rc = 0;
done:
    teardown(&sv);
    free(T);
    free(f);
    free(cand);
    free(from);
    free(pick);
    free(best_pick);
    free(scratch);
    return rc;
}

void bal_plan_free(bal_plan *out)
{
    int **ints[] = {&out->count, &out->kind_count, &out->first, &out->offload, &out->kind_offload};
    double **reals[] = {&out->stage_time, &out->stage_mem};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
        free(*ints[i]);
        *ints[i] = NULL;
    }
    for (size_t i = 0; i < sizeof reals / sizeof *reals; i++) {
        free(*reals[i]);
        *reals[i] = NULL;
    }
}

int bal_evaluate(const bal_problem *p, const int *count, double *objective, double *stage_time, double *stage_mem)
{
    if (p->nkinds > 0)
        return bal_evaluate_kinds(p, count, NULL, objective, stage_time, stage_mem);
    int S = p->stages, I = p->chunks, bad = 0, total = 0;
    double sum = 0, most = 0;
    for (int s = 0; s < S; s++) {
        double mem = 0, t = 0;
        for (int v = 0; v < I; v++) {
            int c = cell_of(p, v, s), held = 0;
            double n = p->inflight[c];
            const bal_pinned *pin[2];
            held = bal_pinned_at(p, v, s, pin);
            for (int i = 0; i < held; i++) {
                mem += pin[i]->stat + pin[i]->act * n;
                t += pin[i]->time;
            }
            for (int r = 0; r < BAL_OPTIONS; r++) {
                int x = count[c * BAL_OPTIONS + r];
                if (x == 0)
                    continue;
                if (x < 0 || !(p->layer.offered & (1u << r)))
                    bad = 1;
                mem += x * (p->layer.stat + p->layer.act[r] * n);
                t += x * p->layer.time[r];
                held += x;
                total += x;
            }
            if (held < 1)
                bad = 1;
        }
        stage_time[s] = t;
        stage_mem[s] = mem;
        if (!fits(mem, p->limit))
            bad = 1;
        sum += t;
        if (t > most)
            most = t;
    }
    if (total != p->body)
        bad = 1;
    *objective = p->coef_sum * sum + p->coef_max * most;
    return bad;
}

int bal_evaluate_offload(const bal_problem *p, const int *count, const int *offload, double *objective,
                         double *stage_time, double *stage_mem)
{
    if (p->nkinds > 0)
        return bal_evaluate_kinds(p, count, offload, objective, stage_time, stage_mem);
    if (!bal_offloads(p))
        return bal_evaluate(p, count, objective, stage_time, stage_mem);
    bal_problem q;
    int *zeros = as_one_kind(p, &q);
    if (zeros == NULL)
        return -1;
    int bad = bal_evaluate_kinds(&q, count, offload, objective, stage_time, stage_mem);
    free(zeros);
    return bad;
}

int bal_step_coeffs(const run_t *r, int64_t pp, double *a, double *b)
{
    /* pipeline_step is a·Σ x + b·max x: read a and b off two stage-time vectors. */
    double bubble, *x = calloc((size_t)(pp > 1 ? pp : 1), sizeof(double));
    if (x == NULL)
        return -1;
    if (pp <= 1) {
        x[0] = 1;
        *a = pipeline_step(r, x, 1, &bubble); /* m·X */
        *b = 0;
        free(x);
        return 0;
    }
    for (int64_t i = 0; i < pp; i++)
        x[i] = 1;
    double all = pipeline_step(r, x, pp, &bubble); /* a·pp + b */
    for (int64_t i = 1; i < pp; i++)
        x[i] = 0;
    double one = pipeline_step(r, x, pp, &bubble); /* a + b */
    *a = (all - one) / (double)(pp - 1);
    *b = one - *a;
    free(x);
    return 0;
}
