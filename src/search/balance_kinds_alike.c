/* balance_kinds_alike.c: the kinds solver's program when every body layer
 * the chunks after the first may hold is of one kind u (balance_kinds_solver.h):
 * DeepSeek-V3's dense layers open the body and all lie in chunk 0 however it
 * is split, its MoE layers fill the rest, an MTP layer closes it.
 *
 * The closing layers [end, N) are those the last cell of the model order
 * surely holds: the layers pinned last, else (where no pinned layer fills
 * that cell, so it must hold a body layer) the last one. Why the program is
 * exact: let A be where the run of u layers before them starts (the layers
 * [A, end) are all u). When
 * chunk 0 must hold at least A layers (A ≤ its cells that need one), chunk 1
 * starts at or after A, so every cell of chunks 1.. holds n u layers (the
 * last cell the closing ones too) whatever the chunk starts: the cells
 * of chunks 1.. differ only in their counts, and given every count the
 * chunk starts follow (chunk v + 1 starts where chunk v ends). So the state
 * after stage s is (p0, T): where chunk 0 has reached, and how many u layers
 * chunks 1.. have taken; from it the stages left see the same problem
 * whatever the counts of each chunk were. And on one stage, m u layers over
 * chunks 1.. take least time when every cell there holds the least it must
 * (one layer, none where a pinned layer fills it) and the rest go to the
 * cell keeping the fewest micro-batches: a layer moved there keeps its
 * choice and its seconds, and its bytes do not grow (static bytes are the
 * same, activations scale with the micro-batches kept). So a stage's least
 * time for (chunk 0's run, m) is that split's, and the program over (p0, T)
 * keeps the Pareto set of (Σ T, max T) labels as balance_kinds_program.c does,
 * with the same bounds: an incumbent step, t + the rest at its fastest (never
 * falling as a cell grows), and bal_rest_bound's least seconds of the layers
 * left, all of them pooled at the fewest micro-batches any chunk keeps.
 *
 * The plan's own split of m over chunks 1.. is the most even one the greedy
 * below reaches without a slower stage (a plan of the proved least step). */
#include "balance_kinds_solver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ksolver *ks;
    int S, I, N, A, end;  /* u layers fill [A, end), the closing layers [end, N) */
    int W;                /* N + 1: the state (p0, T) of a stage is p0 · W + T */
    labels *lab;          /* [(s · W + p0) · W + T], s = 0..S */
    double *later;        /* [as lab]: bal_rest_bound of the state, where known */
    double *memo;         /* [(s · C + id of chunk 0's run) · W + m]: the stage's least time, where known (in later's block) */
    unsigned char *known; /* [as lab], then [as memo]: whether later, memo hold the value */
    size_t *active;       /* the states holding labels, level by level, in the order reached */
    size_t *level_at;     /* [s], s = 0..S + 1: where level s's states start in active */
    size_t states, nactive;
    int *need_after;      /* [s], s = 0..S: cells of stages s.. that must hold a body layer */
    int *must;            /* [v · S + s]: 1 where cell (v, s) must hold a body layer */
    int *rsum;            /* [s]: Σ must over chunks 1.. on stage s */
    int *fewest;          /* [s]: of chunks 1.., the one keeping the fewest micro-batches on stage s */
    int *b, *e, *n;       /* [I]: scratch */
    bal_rest pool;        /* the bound with every layer left pooled */
    double a, c, incumbent; /* the step's coefficients a·Σ T + c·max T */
} alike;

/* The body layers the last cell of the model order surely holds at the
 * body's end: those pinned last; else, where no pinned layer fills that
 * cell, the last body layer (the cell must hold one). */
static int closing(const ksolver *ks)
{
    return ks->pin_last > 0 ? ks->pin_last : !ks->pinned[ks->S * ks->I - 1];
}

int kinds_alike_applies(const ksolver *ks)
{
    const bal_problem *p = ks->p;
    int end = ks->N - closing(ks);
    if (ks->I < 3 || p->vshape || end < 1)
        return 0;
    int u = p->kind_of[end - 1], A = end - 1, least = 0;
    while (A > 0 && p->kind_of[A - 1] == u)
        A--;
    for (int s = 0; s < ks->S; s++)
        least += !ks->pinned[s];
    size_t states = (size_t)(ks->S + 1) * ((size_t)ks->N + 1) * ((size_t)ks->N + 1);
    return p->kinds[u].pin == BAL_PIN_NONE && A <= least && A >= ks->pin_first && states <= ((size_t)1 << 22);
}

/* Sets the cells' runs of stage s into a->b, a->e: chunk 0 holds [p0, p0 + n0),
 * chunk v ≥ 1 holds n[v] u layers (the last cell the closing layers too), placed at the end of the u layers (only their count is read). */
static void stage_cells(alike *a, int s, int p0, int n0)
{
    a->b[0] = p0;
    a->e[0] = p0 + n0;
    for (int v = 1; v < a->I; v++) {
        a->b[v] = a->end - a->n[v];
        a->e[v] = v == a->I - 1 && s == a->S - 1 ? a->N : a->end;
    }
}

/* The least time of stage s with chunk 0's run [p0, p0 + n0) and m u layers
 * over chunks 1..: the least each cell must hold, the rest on the cell that
 * keeps the fewest micro-batches (INFINITY when it cannot fit). */
static double stage_time(alike *a, int s, int p0, int n0, int m)
{
    ksolver *ks = a->ks;
    ks->moves++;
    int extra = m - a->rsum[s], id = -1;
    if (extra < 0 || m > a->end - a->A)
        return INFINITY;
    double *slot = NULL;
    if (a->memo != NULL) {
        id = bal_runs_id(&ks->runs, p0, p0 + n0);
        if (id < 0)
            return INFINITY; /* chunk 0's run alone overfills any cell */
        size_t at = ((size_t)s * (size_t)ks->runs.count + (size_t)id) * (size_t)a->W + (size_t)m;
        slot = &a->memo[at];
        if (a->known[a->states + at])
            return *slot;
        a->known[a->states + at] = 1;
    }
    for (int v = 1; v < a->I; v++)
        a->n[v] = a->must[v * a->S + s] + (v == a->fewest[s] ? extra : 0);
    stage_cells(a, s, p0, n0);
    double t = kinds_stage_cost(ks, s, a->b, a->e, NULL, NULL);
    if (slot != NULL)
        *slot = t;
    return t;
}

/* The least seconds of stages s.. at every later layer's fastest choice, from
 * (p0, T); the closing layers are left until the last stage is laid out. */
static double rest_fast(const alike *a, int s, int p0, int T)
{
    const ksolver *ks = a->ks;
    double last = s < a->S ? ks->fastest[a->N] - ks->fastest[a->end] : 0;
    return ks->fixed_after[s] + ks->fastest[a->end - T] - ks->fastest[p0] + last;
}

/* Extends every label of from (state at of stage s) by a stage of time t into (s + 1, p0, T). */
static int extend(alike *a, int s, size_t at, const labels *from, double t, int p0, int T)
{
    size_t to_at = ((size_t)(s + 1) * (size_t)a->W + (size_t)p0) * (size_t)a->W + (size_t)T;
    if (!a->known[to_at]) { /* chunk 0's layers and chunks 1..'s u layers left, then the closing ones */
        int at2[2] = {p0, a->end}, end2[2] = {a->end - T, s + 1 < a->S ? a->N : a->end};
        a->later[to_at] = bal_rest_bound(&a->pool, s + 1, at2, end2);
        a->known[to_at] = 1;
    }
    int was = a->lab[to_at].n;
    double step[2] = {a->a, a->c};
    if (kinds_extend_labels(&a->lab[to_at], from, at, t, step, a->S, s + 1, a->later[to_at], a->incumbent) != 0)
        return -1;
    if (was == 0 && a->lab[to_at].n > 0) /* reached first: the next level's states to expand */
        a->active[a->nactive++] = to_at;
    return 0;
}

/* Whether a move to (p0, T) after stage s leaves too few layers for the
 * cells still to fill, or more u layers to chunks 1.. than follow chunk 0. */
static int short_of_layers(const alike *a, int s, int p0, int T)
{
    return a->end - p0 - T < a->need_after[s + 1] || T > a->end - (p0 > a->A ? p0 : a->A);
}

/* The move of stage s from state at, labels from: n0 more layers for chunk
 * 0, m for chunks 1..; 1 when it is dead (cannot fit, or cannot beat the
 * incumbent from the best label there), −1 out of memory, else 0. */
static int move(alike *a, int s, size_t at, const labels *from, const double *least, int n0, int m)
{
    int p0 = (int)(at / (size_t)a->W), T = (int)(at % (size_t)a->W);
    double t = stage_time(a, s, p0, n0, m);
    if (t == INFINITY)
        return 1;
    double total = least[0] + t + rest_fast(a, s + 1, p0 + n0, T + m);
    double most = least[1] > t ? least[1] : t;
    most = total / a->S > most ? total / a->S : most;
    if (a->a * total + a->c * most > a->incumbent + kinds_slack(a->incumbent))
        return 1;
    return extend(a, s, at, from, t, p0 + n0, T + m) != 0 ? -1 : 0;
}

/* Every move of stage s from state at. A cell with one more layer takes at
 * least that layer's fastest choice more (balance_kinds_program.c's expand),
 * so once a move is dead so is every move with more layers for chunks 1..,
 * and, when it gave them their least, every move with more for chunk 0. */
static int expand(alike *a, int s, size_t at)
{
    ksolver *ks = a->ks;
    const labels *from = &a->lab[(size_t)s * (size_t)a->W * (size_t)a->W + at];
    double least[2] = {INFINITY, INFINITY};
    for (int i = 0; i < from->n; i++) {
        least[0] = from->l[i].sum < least[0] ? from->l[i].sum : least[0];
        least[1] = from->l[i].max < least[1] ? from->l[i].max : least[1];
    }
    int p0 = (int)(at / (size_t)a->W), T = (int)(at % (size_t)a->W), lo = a->rsum[s];
    int n0 = !ks->pinned[s];
    if (s == 0 && n0 < ks->pin_first) /* the layers pinned first all in the first cell */
        n0 = ks->pin_first;
    for (; p0 + n0 + T + lo <= a->end; n0++) {
        if (s == a->S - 1) { /* the last stage takes what is left; chunk 1 starts among the u layers */
            int rc = p0 + n0 >= a->A ? move(a, s, at, from, least, n0, a->end - p0 - n0 - T) : 0;
            if (rc < 0)
                return -1;
            continue;
        }
        for (int m = lo;; m++) {
            int rc = short_of_layers(a, s, p0 + n0, T + m) ? 1 : move(a, s, at, from, least, n0, m);
            if (rc < 0)
                return -1;
            if (rc > 0 && m == lo)
                return 0;
            if (rc > 0)
                break;
        }
    }
    return 0;
}

/* The greedy even spread of stage s's m u layers over chunks 1.. into a->n:
 * from the split stage_time prices, a layer moves from the fullest cell to
 * the emptiest while the stage stays within t. */
static void spread_later(alike *a, int s, int p0, int n0, int m, double t)
{
    ksolver *ks = a->ks;
    int I = a->I;
    for (int v = 1; v < I; v++)
        a->n[v] = a->must[v * a->S + s] + (v == a->fewest[s] ? m - a->rsum[s] : 0);
    for (;;) {
        int full = 1, thin = 1;
        for (int v = 2; v < I; v++) {
            full = a->n[v] > a->n[full] ? v : full;
            thin = a->n[v] < a->n[thin] ? v : thin;
        }
        if (a->n[full] - a->n[thin] < 2)
            return;
        a->n[full]--;
        a->n[thin]++;
        stage_cells(a, s, p0, n0);
        if (!(kinds_stage_cost(ks, s, a->b, a->e, NULL, NULL) <= t)) {
            a->n[full]++;
            a->n[thin]--;
            return;
        }
    }
}

/* The plan of final label x of state at: each cell's run into cell_b and cell_e; 0, or −1. */
static int trace_back(alike *a, size_t at, int x, int *cell_b, int *cell_e)
{
    int S = a->S, I = a->I;
    size_t W = (size_t)a->W;
    int *p0 = malloc(sizeof *p0 * ((size_t)(S + 1) * 2 + (size_t)S * (size_t)I));
    if (p0 == NULL)
        return -1;
    int *T = p0 + S + 1, *count = T + S + 1; /* after each stage; [v · S + s] */
    for (int s = S; s >= 0; s--) {
        p0[s] = (int)(at / W);
        T[s] = (int)(at % W);
        if (s > 0) {
            const label *l = &a->lab[(size_t)s * W * W + at].l[x];
            at = l->from;
            x = l->from_label;
        }
    }
    for (int s = 0; s < S; s++) {
        int n0 = p0[s + 1] - p0[s], m = T[s + 1] - T[s];
        spread_later(a, s, p0[s], n0, m, stage_time(a, s, p0[s], n0, m));
        count[s] = n0;
        for (int v = 1; v < I; v++)
            count[v * S + s] = a->n[v];
    }
    int pos = 0;
    for (int c = 0; c < S * I; c++) { /* model order: chunk by chunk, the stages upward */
        cell_b[c] = pos;
        pos += count[c];
        cell_e[c] = c == S * I - 1 ? a->N : pos;
    }
    free(p0);
    return 0;
}

/* The program's arrays for ks (with the incumbent); 0, or −1 out of memory. */
static int alike_init(alike *a, ksolver *ks, double incumbent)
{
    const bal_problem *p = ks->p;
    int S = ks->S, I = ks->I, N = ks->N;
    memset(a, 0, sizeof *a);
    a->ks = ks;
    a->S = S;
    a->I = I;
    a->N = N;
    a->W = N + 1;
    a->end = N - closing(ks);
    a->A = a->end - 1;
    while (a->A > 0 && p->kind_of[a->A - 1] == p->kind_of[a->end - 1])
        a->A--;
    a->a = p->coef_sum;
    a->c = p->coef_max;
    a->incumbent = incumbent;
    size_t states = (size_t)(S + 1) * (size_t)a->W * (size_t)a->W;
    size_t memo = ks->runs.id != NULL ? (size_t)S * (size_t)ks->runs.count * (size_t)a->W : 0;
    if (memo > ((size_t)1 << 22))
        memo = 0; /* too large to remember: every stage priced afresh */
    a->states = states;
    a->lab = calloc(states, sizeof *a->lab);
    a->later = malloc(sizeof *a->later * (states + memo)); /* memo after it */
    a->known = calloc(states + memo, 1); /* untouched pages cost nothing: only the states reached are */
    a->active = malloc(sizeof *a->active * (states + (size_t)S + 2));
    a->need_after = calloc((size_t)(S + 1) * 3 + (size_t)S * (size_t)I + 3 * (size_t)I, sizeof(int));
    double *flight = malloc(sizeof *flight * 2 * (size_t)S);
    if (!a->lab || !a->later || !a->known || !a->active || !a->need_after || !flight) {
        free(flight);
        return -1;
    }
    a->memo = memo > 0 ? a->later + states : NULL;
    a->level_at = a->active + states;
    a->rsum = a->need_after + S + 1;
    a->fewest = a->rsum + S + 1;
    a->must = a->fewest + S + 1;
    a->b = a->must + S * I;
    a->e = a->b + I;
    a->n = a->e + I;
    for (int s = S - 1; s >= 0; s--) {
        flight[s] = INFINITY; /* the pool: the fewest micro-batches any chunk keeps there */
        a->fewest[s] = 1;
        for (int v = 0; v < I; v++) {
            int c = v * S + s;
            a->must[c] = !ks->pinned[c] && !(c == S * I - 1 && a->end < N);
            a->rsum[s] += v > 0 ? a->must[c] : 0;
            a->need_after[s] += a->must[c];
            flight[s] = p->inflight[c] < flight[s] ? p->inflight[c] : flight[s];
            if (v > 0 && p->inflight[c] < p->inflight[a->fewest[s] * S + s])
                a->fewest[s] = v;
        }
        a->need_after[s] += a->need_after[s + 1];
        flight[S + s] = p->inflight[S * I - 1]; /* the closing layers: the last cell's */
    }
    int rc = kinds_setup_rest(ks, &a->pool, 2, flight);
    free(flight);
    return rc;
}

static void alike_free(alike *a)
{
    for (size_t i = 0; i < a->nactive; i++)
        free(a->lab[a->active[i]].l);
    free(a->lab);
    free(a->later); /* memo too */
    free(a->known);
    free(a->active);
    free(a->need_after);
    bal_rest_free(&a->pool);
}

int kinds_alike_solve(ksolver *ks, double incumbent, double *best, int *cell_b, int *cell_e)
{
    alike a;
    int rc = alike_init(&a, ks, incumbent);
    if (rc == 0) {
        a.active[a.nactive++] = 0;
        rc = kinds_insert_label(&a.lab[0], (label){0, 0, 0, -1});
    }
    size_t level = (size_t)a.W * (size_t)a.W;
    if (rc == 0)
        a.level_at[0] = 0;
    for (int s = 0; s < a.S && rc == 0; s++) { /* level s's states were all reached from level s − 1 */
        a.level_at[s + 1] = a.nactive;
        for (size_t i = a.level_at[s]; i < a.level_at[s + 1] && rc == 0; i++)
            rc = expand(&a, s, a.active[i] - (size_t)s * level);
    }
    *best = INFINITY;
    size_t best_at = 0;
    int best_x = -1;
    for (int p0 = a.A; p0 <= a.end && rc == 0; p0++) { /* the final states: every layer placed */
        size_t at = (size_t)p0 * (size_t)a.W + (size_t)(a.end - p0);
        const labels *fin = &a.lab[(size_t)a.S * level + at];
        for (int i = 0; i < fin->n; i++)
            if (a.a * fin->l[i].sum + a.c * fin->l[i].max < *best) {
                *best = a.a * fin->l[i].sum + a.c * fin->l[i].max;
                best_at = at;
                best_x = i;
            }
    }
    if (rc == 0 && best_x >= 0)
        rc = trace_back(&a, best_at, best_x, cell_b, cell_e);
    alike_free(&a);
    return rc;
}
