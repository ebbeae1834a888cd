/* balance_kinds_alike.c: the kinds solver's program when every body layer
 * the chunks after the first (two chunks or more) may hold is of one kind u
 * (balance_kinds_solver.h):
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
 * below reaches without a slower stage (a plan of the proved least step).
 *
 * The bounds let the program reach few of the (S + 1) · (N + 1)² states, so
 * those it reaches get slots in the order reached (found through one table
 * of (N + 1)² for the stage being laid out), and the stage times it prices
 * lie in rows given as asked for: arrays over the whole space cost more in
 * page faults than the program itself. */
#include "balance_kinds_solver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ksolver *ks;
    int S, I, N, A, end;  /* u layers fill [A, end), the closing layers [end, N) */
    int W;                /* N + 1: the state (p0, T) after stage s is numbered (s · W + p0) · W + T */
    int *slot_of;         /* [p0 · W + T]: the slot of state (p0, T) after the stage being laid out, or −1 */
    int given;            /* slots given */
    labels *lab;          /* [slot]: the state's labels */
    double *later;        /* [slot]: bal_rest_bound of the state */
    size_t *key;          /* [slot]: the state's number */
    int cap;              /* slots lab, later and key have room for */
    int *level_at;        /* [s], s = 0..S + 1: the first slot of the states after stage s */
    int *row_of;          /* [s · C + id of chunk 0's run] (C runs numbered): 1 + its row of memo, 0 while none */
    double *memo;         /* [row · W + m]: the stage's least time, NaN until known */
    int rows, row_cap;
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
    if (ks->I < 2 || p->vshape || end < 1)
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

/* The memo's entry of stage s, chunk 0's run number id and m u layers over
 * chunks 1.. (a row of W entries given to (s, id) when first asked for), or
 * NULL where no room is left for a row (the stage is then priced afresh). */
static double *memo_slot(alike *a, int s, int id, int m)
{
    size_t at = (size_t)s * (size_t)a->ks->runs.count + (size_t)id, W = (size_t)a->W;
    if (a->row_of[at] == 0) {
        if (a->rows == a->row_cap) {
            int cap = 2 * a->row_cap + 16;
            double *more = realloc(a->memo, sizeof *more * (size_t)cap * W);
            if (more == NULL)
                return NULL;
            a->memo = more;
            a->row_cap = cap;
        }
        for (size_t i = 0; i < W; i++)
            a->memo[(size_t)a->rows * W + i] = NAN;
        a->row_of[at] = ++a->rows;
    }
    return &a->memo[(size_t)(a->row_of[at] - 1) * W + (size_t)m];
}

/* The least time of stage s with chunk 0's run [p0, p0 + n0) and m u layers
 * over chunks 1..: the least each cell must hold, the rest on the cell that
 * keeps the fewest micro-batches (INFINITY when it cannot fit). */
static double stage_time(alike *a, int s, int p0, int n0, int m)
{
    ksolver *ks = a->ks;
    ks->moves++;
    int extra = m - a->rsum[s];
    if (extra < 0 || m > a->end - a->A)
        return INFINITY;
    double *slot = NULL;
    if (a->row_of != NULL) {
        int id = bal_runs_id(&ks->runs, p0, p0 + n0);
        if (id < 0)
            return INFINITY; /* chunk 0's run alone overfills any cell */
        slot = memo_slot(a, s, id, m);
        if (slot != NULL && !isnan(*slot))
            return *slot;
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

/* The slot of state (p0, T) after stage s (numbered key), given with its
 * labels empty and its bound set when it is new; the slot, or −1. */
static int reach(alike *a, size_t key, int s, int p0, int T)
{
    int *at_slot = &a->slot_of[(size_t)p0 * (size_t)a->W + (size_t)T];
    if (*at_slot >= 0)
        return *at_slot;
    int x = a->given;
    if (x == a->cap && kinds_grow_slots(&a->lab, &a->later, &a->key, &a->cap) != 0)
        return -1;
    a->lab[x] = (labels){NULL, 0, 0};
    a->key[x] = key;
    *at_slot = a->given++;
    /* chunk 0's layers and chunks 1..'s u layers left, then the closing ones */
    int at[2] = {p0, a->end}, end[2] = {a->end - T, s < a->S ? a->N : a->end};
    a->later[x] = bal_rest_bound(&a->pool, s, at, end);
    return x;
}

/* Extends every label of from (slot x, stage s) by a stage of time t into (s + 1, p0, T). */
static int extend(alike *a, int s, int x, const labels *from, double t, int p0, int T)
{
    size_t key = ((size_t)(s + 1) * (size_t)a->W + (size_t)p0) * (size_t)a->W + (size_t)T;
    int to = reach(a, key, s + 1, p0, T);
    if (to < 0)
        return -1;
    double step[2] = {a->a, a->c};
    return kinds_extend_labels(&a->lab[to], from, (size_t)x, t, step, a->S, s + 1, a->later[to], a->incumbent);
}

/* Whether a move to (p0, T) after stage s leaves too few layers for the
 * cells still to fill, or more u layers to chunks 1.. than follow chunk 0. */
static int short_of_layers(const alike *a, int s, int p0, int T)
{
    return a->end - p0 - T < a->need_after[s + 1] || T > a->end - (p0 > a->A ? p0 : a->A);
}

/* The move of stage s from state (p0, T) in slot x, labels from: n0 more
 * layers for chunk 0, m for chunks 1..; 1 when it is dead (cannot fit, or
 * cannot beat the incumbent from the best label there), −1 out of memory, else 0. */
static int move(alike *a, int s, int x, const labels *from, const double *least, int n0, int m)
{
    int p0 = (int)(a->key[x] % ((size_t)a->W * (size_t)a->W) / (size_t)a->W), T = (int)(a->key[x] % (size_t)a->W);
    double t = stage_time(a, s, p0, n0, m);
    if (t == INFINITY)
        return 1;
    double total = least[0] + t + rest_fast(a, s + 1, p0 + n0, T + m);
    double most = least[1] > t ? least[1] : t;
    most = total / a->S > most ? total / a->S : most;
    if (a->a * total + a->c * most > a->incumbent + kinds_slack(a->incumbent))
        return 1;
    return extend(a, s, x, from, t, p0 + n0, T + m) != 0 ? -1 : 0;
}

/* Every move of stage s from state at. A cell with one more layer takes at
 * least that layer's fastest choice more (balance_kinds_program.c's expand),
 * so once a move is dead so is every move with more layers for chunks 1..,
 * and, when it gave them their least, every move with more for chunk 0. */
static int expand(alike *a, int s, int x)
{
    ksolver *ks = a->ks;
    labels copy = a->lab[x]; /* a->lab may move as the next stage's states are reached; its lists do not */
    const labels *from = &copy;
    double least[2] = {INFINITY, INFINITY};
    for (int i = 0; i < from->n; i++) {
        least[0] = from->l[i].sum < least[0] ? from->l[i].sum : least[0];
        least[1] = from->l[i].max < least[1] ? from->l[i].max : least[1];
    }
    size_t at = a->key[x] % ((size_t)a->W * (size_t)a->W);
    int p0 = (int)(at / (size_t)a->W), T = (int)(at % (size_t)a->W), lo = a->rsum[s];
    int n0 = !ks->pinned[s];
    if (s == 0 && n0 < ks->pin_first) /* the layers pinned first all in the first cell */
        n0 = ks->pin_first;
    for (; p0 + n0 + T + lo <= a->end; n0++) {
        if (s == a->S - 1) { /* the last stage takes what is left; chunk 1 starts among the u layers */
            int rc = p0 + n0 >= a->A ? move(a, s, x, from, least, n0, a->end - p0 - n0 - T) : 0;
            if (rc < 0)
                return -1;
            continue;
        }
        for (int m = lo;; m++) {
            int rc = short_of_layers(a, s, p0 + n0, T + m) ? 1 : move(a, s, x, from, least, n0, m);
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

/* The plan of final label x of the state in slot at: each cell's run into cell_b and cell_e; 0, or −1. */
static int trace_back(alike *a, int at, int x, int *cell_b, int *cell_e)
{
    int S = a->S, I = a->I;
    size_t W = (size_t)a->W;
    int *p0 = malloc(sizeof *p0 * ((size_t)(S + 1) * 2 + (size_t)S * (size_t)I));
    if (p0 == NULL)
        return -1;
    int *T = p0 + S + 1, *count = T + S + 1; /* after each stage; [v · S + s] */
    for (int s = S; s >= 0; s--) {
        p0[s] = (int)(a->key[at] % (W * W) / W);
        T[s] = (int)(a->key[at] % W);
        if (s > 0) {
            const label *l = &a->lab[at].l[x];
            at = (int)l->from;
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
    a->cap = 256;
    a->lab = malloc(sizeof *a->lab * (size_t)a->cap);
    a->later = malloc(sizeof *a->later * (size_t)a->cap);
    a->key = malloc(sizeof *a->key * (size_t)a->cap);
    if (ks->runs.id != NULL) /* else every stage priced afresh */
        a->row_of = calloc((size_t)S * (size_t)ks->runs.count, sizeof *a->row_of);
    a->slot_of = malloc(sizeof *a->slot_of * (size_t)a->W * (size_t)a->W);
    a->need_after = calloc((size_t)(S + 1) * 3 + (size_t)S * (size_t)I + 3 * (size_t)I + (size_t)S + 2, sizeof(int));
    double *flight = malloc(sizeof *flight * 2 * (size_t)S);
    if ((ks->runs.id != NULL && !a->row_of) || !a->slot_of || !a->lab || !a->later || !a->key || 
        !a->need_after || !flight) {
        free(flight);
        return -1;
    }
    a->rsum = a->need_after + S + 1;
    a->fewest = a->rsum + S + 1;
    a->must = a->fewest + S + 1;
    a->b = a->must + S * I;
    a->e = a->b + I;
    a->n = a->e + I;
    a->level_at = a->n + I;
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
    for (int i = 0; i < a->given; i++)
        free(a->lab[i].l);
    free(a->slot_of);
    free(a->lab);
    free(a->later);
    free(a->key);
    free(a->row_of);
    free(a->memo);
    free(a->need_after);
    bal_rest_free(&a->pool);
}

int kinds_alike_solve(ksolver *ks, double incumbent, double *best, int *cell_b, int *cell_e)
{
    alike a;
    int rc = alike_init(&a, ks, incumbent);
    if (rc == 0) /* the state before stage 0: slot 0 */
        memset(a.slot_of, 0xff, sizeof *a.slot_of * (size_t)a.W * (size_t)a.W); /* all −1 */
    if (rc == 0)
        rc = reach(&a, 0, 0, 0, 0) != 0 || kinds_insert_label(&a.lab[0], (label){0, 0, 0, -1}) != 0 ? -1 : 0;
    for (int s = 0; s < a.S && rc == 0; s++) { /* the states after stage s + 1 were all reached from those after s */
        a.level_at[s + 1] = a.given;
        memset(a.slot_of, 0xff, sizeof *a.slot_of * (size_t)a.W * (size_t)a.W); /* the next stage's: none yet */
        for (int x = a.level_at[s]; x < a.level_at[s + 1] && rc == 0; x++)
            rc = a.lab[x].n > 0 ? expand(&a, s, x) : 0;
    }
    *best = INFINITY;
    int best_at = -1, best_x = -1;
    for (int p0 = a.A; p0 <= a.end && rc == 0; p0++) { /* the final states: every layer placed */
        int at = a.slot_of[(size_t)p0 * (size_t)a.W + (size_t)(a.end - p0)]; /* the last stage's states */
        const labels *fin = at >= 0 ? &a.lab[at] : &(labels){NULL, 0, 0};
        for (int i = 0; i < fin->n; i++)
            if (a.a * fin->l[i].sum + a.c * fin->l[i].max < *best) {
                *best = a.a * fin->l[i].sum + a.c * fin->l[i].max;
                best_at = at;
                best_x = i;
            }
    }
    if (rc == 0 && best_x >= 0 && cell_b != NULL)
        rc = trace_back(&a, best_at, best_x, cell_b, cell_e);
    alike_free(&a);
    return rc;
}
