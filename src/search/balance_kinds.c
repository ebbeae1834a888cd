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
 * What keeps it fast, each step exact: the chunk starts are tried from the
 * even split outward, the first against its own even split's step, so an
 * incumbent plan exists from the start; a label is dropped when a lower
 * bound on every plan it leads to cannot beat the incumbent (the stages so
 * far, plus bal_rest_bound's least seconds for the layers left, balance_rest.h);
 * the moves out of a state stop growing a cell once a move cannot fit or
 * cannot beat the incumbent (expand: a proof that no larger move can); and a
 * stage's least time is remembered by what its cells hold (balance_runs.h),
 * which the many chunk starts share. */
#include "balance_solvers.h"

#include "balance_rest.h"
#include "balance_runs.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/* One frontier point: its activations and time (a mix of n layers), and the
 * point of n − 1 layers plus one layer of choice opt it was made from (a
 * choice: option r plain, or r + BAL_OPTIONS offloaded). */
typedef struct {
    double act, time;
    int prev, opt;
} fpoint;

typedef struct {
    fpoint *pt; /* activations ascending, time strictly descending */
    int n;
} frontier;

typedef struct {
    double coef;
    const frontier *f;
    int cell, kind, layers;
} group;

typedef struct {
    const bal_problem *p;
    int S, I, N, K;
    int pin_first, pin_last; /* body layers pinned to the first and the last cell (bal_pinned_ends) */
    int *total;           /* [k]: layers of kind k in the body */
    int *prefix;          /* [i · K + k]: layers of kind k among the first i */
    frontier **fr;        /* fr[k][n], n = 0..total[k] */
    double *fixed_stat, *fixed_act, *fixed_time; /* [s]: what the pinned layers bring */
    unsigned char *pinned; /* [cell] */
    double limit;         /* the limit with the rounding allowance of fits() */
    double *fastest;      /* [i], i = 0..N: Σ over body layers [0, i) of each one's fastest choice */
    double *fixed_after;  /* [s], s = 0..S: Σ fixed_time over stages s.. */
    bal_runs runs;        /* the body's runs numbered by their counts of each kind */
    bal_rest rest;        /* the bound on the stages still to lay out */
    double *memo;         /* [(s · C + id of chunk 1's run) · C + id of chunk 0's] (I ≤ 2), or NULL */
    unsigned char *known; /* [as memo]: whether memo holds the stage's least time */
    long moves;           /* stage_time calls: the moves priced */
    group *g;             /* scratch: up to I · K groups */
    double *rest_time, *rest_act;
    int *pick, *best_pick;
} ksolver;

static int cmp_point(const void *a, const void *b)
{
    const fpoint *x = a, *y = b;
    if (x->act != y->act)
        return x->act < y->act ? -1 : 1;
    return x->time < y->time ? -1 : x->time > y->time;
}

/* The choices of one kind: activations and time of option r plain at r and
 * offloaded at r + BAL_OPTIONS; the undominated ones in opt[0..n). */
typedef struct {
    double act[2 * BAL_OPTIONS], time[2 * BAL_OPTIONS];
    int opt[2 * BAL_OPTIONS], n;
} choices;

static void choices_of(const bal_layer *l, choices *ch)
{
    unsigned offered = l->offered | (l->offered & l->offload_offered) << BAL_OPTIONS;
    for (int r = 0; r < BAL_OPTIONS; r++) {
        ch->act[r] = l->act[r];
        ch->time[r] = l->time[r];
        ch->act[r + BAL_OPTIONS] = (1 - l->offload_share) * l->act[r];
        ch->time[r + BAL_OPTIONS] = l->time[r] + l->offload_time[r];
    }
    ch->n = bal_undominated(ch->act, ch->time, offered, 2 * BAL_OPTIONS, 1, ch->opt);
}

/* frontier(n) of a kind from prev = frontier(n − 1); 0, or −1 out of memory. */
static int frontier_next(const choices *l, const int *opt, int nopt, const frontier *prev, frontier *out)
{
    size_t n = (size_t)prev->n * (size_t)nopt;
    fpoint *c = malloc(sizeof *c * n);
    if (c == NULL)
        return -1;
    size_t k = 0;
    for (int i = 0; i < prev->n; i++)
        for (int o = 0; o < nopt; o++)
            c[k++] = (fpoint){prev->pt[i].act + l->act[opt[o]], prev->pt[i].time + l->time[opt[o]], i, opt[o]};
    qsort(c, n, sizeof *c, cmp_point);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || c[i].time < c[kept - 1].time)
            c[kept++] = c[i];
    fpoint *shrunk = realloc(c, sizeof *c * kept);
    out->pt = shrunk != NULL ? shrunk : c;
    out->n = (int)kept;
    return 0;
}

static int build_frontiers(ksolver *ks)
{
    const bal_problem *p = ks->p;
    ks->fr = calloc((size_t)ks->K, sizeof *ks->fr);
    if (ks->fr == NULL)
        return -1;
    for (int k = 0; k < ks->K; k++) {
        choices l;
        choices_of(&p->kinds[k], &l);
        ks->fr[k] = calloc((size_t)ks->total[k] + 1, sizeof **ks->fr);
        if (ks->fr[k] == NULL)
            return -1;
        frontier *f = ks->fr[k];
        f[0].pt = malloc(sizeof *f[0].pt);
        if (f[0].pt == NULL)
            return -1;
        f[0].pt[0] = (fpoint){0, 0, -1, -1};
        f[0].n = 1;
        for (int n = 1; n <= ks->total[k]; n++)
            if (frontier_next(&l, l.opt, l.n, &f[n - 1], &f[n]) != 0)
                return -1;
    }
    return 0;
}

/* ---- the least time of one stage ---- */

typedef struct {
    const ksolver *ks;
    int G;
    double best;
    int *pick, *best_pick;
} group_walk;

/* The last point of f whose activations · coef fit room, or −1. */
static int last_fitting(const frontier *f, double coef, double room)
{
    int lo = 0, hi = f->n - 1, at = -1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (coef * f->pt[mid].act <= room) {
            at = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return at;
}

static void walk_groups(group_walk *w, int i, double room, double t)
{
    const ksolver *ks = w->ks;
    const group *g = &ks->g[i];
    if (i == w->G - 1) {
        int at = last_fitting(g->f, g->coef, room);
        if (at >= 0 && t + g->f->pt[at].time < w->best) {
            w->best = t + g->f->pt[at].time;
            w->pick[i] = at;
            memcpy(w->best_pick, w->pick, sizeof(int) * (size_t)w->G);
        }
        return;
    }
    /* fastest first: once the time cannot win, later points cannot either */
    for (int j = g->f->n - 1; j >= 0; j--) {
        const fpoint *pt = &g->f->pt[j];
        if (t + pt->time + ks->rest_time[i + 1] >= w->best)
            break;
        double left = room - g->coef * pt->act;
        if (left < ks->rest_act[i + 1])
            continue;
        w->pick[i] = j;
        walk_groups(w, i + 1, left, t + pt->time);
    }
}

/* Adds group g's mix at point at into kc ([(cell · K + k) · BAL_OPTIONS + r],
 * offloaded layers too) and ko (those offloaded; NULL: none may be). */
static void add_mix(const ksolver *ks, const group *g, int at, int *kc, int *ko)
{
    size_t row = ((size_t)g->cell * (size_t)ks->K + (size_t)g->kind) * BAL_OPTIONS;
    for (int n = g->layers; n > 0; n--) {
        const fpoint *pt = &ks->fr[g->kind][n].pt[at];
        kc[row + (size_t)(pt->opt % BAL_OPTIONS)]++;
        if (pt->opt >= BAL_OPTIONS && ko != NULL)
            ko[row + (size_t)(pt->opt - BAL_OPTIONS)]++;
        at = pt->prev;
    }
}

/* The least forward + backward seconds of stage s when chunk v's cell holds
 * body layers [b[v], e[v]); INFINITY when it cannot. With kc non-NULL, adds
 * the chosen counts into kc and ko (the plan's kind_count and kind_offload). */
static double stage_cost(ksolver *ks, int s, const int *b, const int *e, int *kc, int *ko)
{
    const bal_problem *p = ks->p;
    int G = 0, K = ks->K;
    double stat = 0;
    for (int v = 0; v < ks->I; v++) {
        int c = v * ks->S + s;
        if (e[v] == b[v] && !ks->pinned[c])
            return INFINITY;
        for (int k = 0; k < K; k++) {
            int n = ks->prefix[e[v] * K + k] - ks->prefix[b[v] * K + k];
            if (n == 0)
                continue;
            stat += n * p->kinds[k].stat;
            ks->g[G++] = (group){p->inflight[c], &ks->fr[k][n], c, k, n};
        }
    }
    double room = ks->limit - ks->fixed_stat[s] - ks->fixed_act[s] - stat;
    if (room < 0)
        return INFINITY;
    if (G == 0)
        return ks->fixed_time[s];
    int big = 0; /* the largest frontier goes last, to the binary search */
    for (int i = 1; i < G; i++)
        if (ks->g[i].f->n > ks->g[big].f->n)
            big = i;
    group tmp = ks->g[big];
    ks->g[big] = ks->g[G - 1];
    ks->g[G - 1] = tmp;
    ks->rest_time[G] = ks->rest_act[G] = 0;
    for (int i = G - 1; i >= 0; i--) {
        const frontier *f = ks->g[i].f;
        ks->rest_time[i] = ks->rest_time[i + 1] + f->pt[f->n - 1].time;
        ks->rest_act[i] = ks->rest_act[i + 1] + ks->g[i].coef * f->pt[0].act;
    }
    if (ks->rest_act[0] > room)
        return INFINITY;
    group_walk w = {ks, G, INFINITY, ks->pick, ks->best_pick};
    walk_groups(&w, 0, room, 0);
    if (w.best == INFINITY)
        return INFINITY;
    if (kc != NULL)
        for (int i = 0; i < G; i++)
            add_mix(ks, &ks->g[i], w.best_pick[i], kc, ko);
    return ks->fixed_time[s] + w.best;
}

/* stage_cost's time alone, remembered by the stage and what each of its
 * cells holds (a run's counts of each kind are all stage_cost reads of it). */
static double stage_time(ksolver *ks, int s, const int *b, const int *e)
{
    ks->moves++;
    if (ks->memo == NULL)
        return stage_cost(ks, s, b, e, NULL, NULL);
    size_t at = (size_t)s;
    for (int v = ks->I - 1; v >= 0; v--) {
        int id = bal_runs_id(&ks->runs, b[v], e[v]);
        if (id < 0)
            return INFINITY; /* its layers alone overfill any cell */
        at = at * (size_t)ks->runs.count + (size_t)id;
    }
    if (!ks->known[at]) {
        ks->memo[at] = stage_cost(ks, s, b, e, NULL, NULL);
        ks->known[at] = 1;
    }
    return ks->memo[at];
}

/* ---- the program over the stages, for one choice of chunk starts ---- */

typedef struct {
    double sum, max;
    size_t from;
    int from_label;
} label;

typedef struct {
    label *l;
    int n, cap;
} labels;

typedef struct {
    int *q;          /* [I + 1]: chunk v runs over body layers [q[v], q[v + 1]) (V-shaped: q[0] only) */
    int vshape, N;   /* the V-shaped order (balance_problem.h): chunk 1 runs down from N to meet chunk 0 */
    size_t *stride;  /* [I + 1]: state index = Σ digit(v, pos[v]) · stride[v] */
    size_t final_at; /* the final state of the best plan of the last run */
    size_t states;
    labels *lab;     /* [(S + 1) · states] of lab_size, kept from run to run (so are its lists) */
    double *later;   /* [as lab]: bal_rest_bound of the state, NAN until needed */
    size_t lab_size;
    double a, b, incumbent;
    int *pos, *next;  /* [I]: where each chunk stands before and after a stage */
    int *d, *lo, *hi; /* [I]: the odometer of moves: next's digits and their ranges */
    int *cb, *ce;     /* [I]: the runs [cb, ce) of a stage's cells */
    long runs;       /* chunk starts tried */
} program;

static double score(const program *pg, double sum, double max) { return pg->a * sum + pg->b * max; }

/* The rounding allowance of the pruning tests below: a bound that exceeds the
 * incumbent by less may be the incumbent's own plan summed in another order. */
static double slack(const program *pg) { return 1e-9 * (fabs(pg->incumbent) > 1 ? fabs(pg->incumbent) : 1); }

/* The least forward + backward seconds stages s.. can take when each chunk v
 * has reached at[v]: every later body layer at its fastest choice, plus the
 * pinned layers of those stages (memory left out, so never more than the truth). */
static double rest_time(const ksolver *ks, const program *pg, int s, const int *at)
{
    double r = ks->fixed_after[s];
    if (pg->vshape) /* the layers between the two chunks */
        return r + ks->fastest[at[1]] - ks->fastest[at[0]];
    for (int v = 0; v < ks->I; v++)
        r += ks->fastest[pg->q[v + 1]] - ks->fastest[at[v]];
    return r;
}

/* A lower bound on the step of every plan whose first s stages took sum in
 * all and max at most, with rest (rest_time) still to come: Σ T ≥ sum + rest;
 * max T ≥ max, ≥ the mean of all S stages, ≥ the mean of the S − s left. */
static double bound(const program *pg, int S, int s, double sum, double max, double rest)
{
    double total = sum + rest, most = max;
    if (total / S > most)
        most = total / S;
    if (s < S && rest / (S - s) > most)
        most = rest / (S - s);
    return score(pg, total, most);
}

/* Adds (sum, max) to L unless a label there equals or beats it; drops those it beats. */
static int insert_label(labels *L, label x)
{
    for (int i = 0; i < L->n; i++)
        if (L->l[i].sum <= x.sum && L->l[i].max <= x.max)
            return 0;
    if (L->n == L->cap) { /* room for one more before those x beats go */
        int cap = 2 * L->cap + 4;
        label *more = realloc(L->l, sizeof *more * (size_t)cap);
        L->l = more != NULL ? more : L->l;
        L->cap = more != NULL ? cap : L->cap;
        if (more == NULL)
            return -1;
    }
    int kept = 0;
    for (int i = 0; i < L->n; i++)
        if (!(x.sum <= L->l[i].sum && x.max <= L->l[i].max))
            L->l[kept++] = L->l[i];
    L->l[kept] = x;
    L->n = kept + 1;
    return 0;
}

/* Chunk v's digit when it stands at body layer at, and back: chunks run up
 * from q[v], but in the V-shaped order chunk 1 runs down from the body's end.
 * A larger digit always means a longer way come. */
static int digit(const program *pg, int v, int at) { return pg->vshape && v == 1 ? pg->N - at : at - pg->q[v]; }
static int position(const program *pg, int v, int d) { return pg->vshape && v == 1 ? pg->N - d : pg->q[v] + d; }
/* The largest digit of chunk v. */
static int digits(const program *pg, int v) { return pg->vshape ? pg->N : pg->q[v + 1] - pg->q[v]; }

/* The runs of a stage's cells, into pg->cb and pg->ce, as each chunk v goes from pos[v] to next[v]. */
static void cell_runs(program *pg, int I, const int *pos, const int *next)
{
    for (int v = 0; v < I; v++) {
        int down = pg->vshape && v == 1;
        pg->cb[v] = down ? next[v] : pos[v];
        pg->ce[v] = down ? pos[v] : next[v];
    }
}

static size_t index_of(const program *pg, int I, const int *pos)
{
    size_t at = 0;
    for (int v = 0; v < I; v++)
        at += (size_t)digit(pg, v, pos[v]) * pg->stride[v];
    return at;
}

static void decode(const program *pg, int I, size_t at, int *pos)
{
    for (int v = 0; v < I; v++)
        pos[v] = position(pg, v, (int)(at / pg->stride[v] % (pg->stride[v + 1] / pg->stride[v])));
}

/* The first chunk whose cell of stage s is left empty where it may not be, or −1. */
static int first_empty(const ksolver *ks, int s, const int *b, const int *e)
{
    for (int v = 0; v < ks->I; v++)
        if (e[v] == b[v] && !ks->pinned[v * ks->S + s])
            return v;
    return -1;
}

/* Whether stage s's cells (pg->cb, pg->ce) keep the kinds pinned to the ends
 * there: the first cell of the model order (chunk 0 on stage 0) holds every
 * layer pinned first, the last (the last chunk on the last stage; V-shaped,
 * chunk 1 on stage 0) every layer pinned last. */
static int pins_hold(const ksolver *ks, const program *pg, int s)
{
    if (s == 0 && pg->ce[0] < ks->pin_first)
        return 0;
    return s != (pg->vshape ? 0 : ks->S - 1) || pg->cb[ks->I - 1] <= ks->N - ks->pin_last;
}

/* Extends every label of from by a stage of time t into the state next,
 * those that bal_rest_bound shows cannot beat the incumbent left out. */
static int extend(ksolver *ks, program *pg, int s, size_t at, const labels *from, double t)
{
    size_t to_at = (size_t)(s + 1) * pg->states + index_of(pg, ks->I, pg->next);
    labels *to = &pg->lab[to_at];
    if (isnan(pg->later[to_at])) /* V-shaped: the layers between the chunks, as one pool (setup_rest) */
        pg->later[to_at] = pg->vshape ? bal_rest_bound(&ks->rest, s + 1, pg->next, pg->next + 1)
                                      : bal_rest_bound(&ks->rest, s + 1, pg->next, pg->q + 1);
    double rest = pg->later[to_at], cut = pg->incumbent + slack(pg);
    if (rest == INFINITY)
        return 0;
    for (int i = 0; i < from->n; i++) {
        label x = {from->l[i].sum + t, from->l[i].max > t ? from->l[i].max : t, at, i};
        if (bound(pg, ks->S, s + 1, x.sum, x.max, rest) > cut)
            continue;
        if (insert_label(to, x) != 0)
            return -1;
    }
    return 0;
}

/* The next move of the odometer over the chunks' ends (chunk 0 the fastest
 * digit), digits 0..skip first set to their last value so that the moves
 * they would still make are passed over; 0 when no move is left. */
static int advance(program *pg, int I, int skip)
{
    for (int v = 0; v <= skip; v++)
        pg->d[v] = pg->hi[v];
    int v = 0;
    while (v < I && pg->d[v] >= pg->hi[v]) {
        pg->d[v] = pg->lo[v];
        v++;
    }
    if (v == I)
        return 0;
    pg->d[v]++;
    return 1;
}

/* The last stage of the V-shaped order: its two cells hold what is left
 * between the chunks, [pos[0], pos[1]), split where the chunks meet. */
static int expand_meeting(ksolver *ks, program *pg, int s, size_t at, const labels *from)
{
    for (int m = pg->pos[0]; m <= pg->pos[1]; m++) {
        pg->next[0] = pg->next[1] = m;
        cell_runs(pg, 2, pg->pos, pg->next);
        if (first_empty(ks, s, pg->cb, pg->ce) >= 0 || !pins_hold(ks, pg, s))
            continue;
        double t = stage_time(ks, s, pg->cb, pg->ce);
        if (t < INFINITY && extend(ks, pg, s, at, from, t) != 0)
            return -1;
    }
    return 0;
}

/* Every move of stage s from the state at: the labels it extends.
 *
 * A stage's least time with one more layer in a cell is at least its least
 * time without it plus that layer's fastest choice (taking the layer out of
 * the larger stage's best mix leaves a mix of the smaller that fits, as every
 * byte and second is ≥ 0). So t + rest_time never falls as a cell grows, nor
 * does a failure to fit mend: when a move cannot fit, or cannot beat the
 * incumbent even from the best label here, neither can any move that holds
 * at least as many layers in every cell, which the odometer would try next
 * until a digit above the lowest grown one turns. */
static int expand(ksolver *ks, program *pg, int s, size_t at)
{
    int I = ks->I, last = s == ks->S - 1;
    const labels *from = &pg->lab[(size_t)s * pg->states + at];
    double minsum = INFINITY, minmax = INFINITY;
    for (int i = 0; i < from->n; i++) {
        minsum = from->l[i].sum < minsum ? from->l[i].sum : minsum;
        minmax = from->l[i].max < minmax ? from->l[i].max : minmax;
    }
    decode(pg, I, at, pg->pos);
    if (last && pg->vshape)
        return expand_meeting(ks, pg, s, at, from);
    for (int v = 0; v < I; v++) {
        pg->hi[v] = digits(pg, v);
        pg->lo[v] = pg->d[v] = last ? pg->hi[v] : digit(pg, v, pg->pos[v]);
    }
    for (;;) {
        for (int v = 0; v < I; v++)
            pg->next[v] = position(pg, v, pg->d[v]);
        cell_runs(pg, I, pg->pos, pg->next);
        /* V-shaped: chunks that pass each other never fit, nor do longer moves */
        int crossed = pg->vshape && pg->next[0] > pg->next[1];
        int skip = -1, empty = crossed ? -1 : first_empty(ks, s, pg->cb, pg->ce);
        if (empty > 0) {
            skip = empty - 1; /* the lower digits cannot fill chunk empty's cell */
        } else if (empty < 0 && (crossed || pins_hold(ks, pg, s))) { /* else a pinned layer left elsewhere */
            double t = crossed ? INFINITY : stage_time(ks, s, pg->cb, pg->ce);
            int dead = t == INFINITY;
            if (!dead) {
                double total = minsum + t + rest_time(ks, pg, s + 1, pg->next);
                double most = minmax > t ? minmax : t;
                most = total / ks->S > most ? total / ks->S : most;
                dead = score(pg, total, most) > pg->incumbent + slack(pg);
            }
            if (dead) {
                skip = 0; /* the lowest digit above its first value, and those below it */
                while (skip < I && pg->d[skip] == pg->lo[skip])
                    skip++;
                if (skip == I)
                    return 0;
            } else if (extend(ks, pg, s, at, from, t) != 0) {
                return -1;
            }
        }
        if (!advance(pg, I, skip))
            return 0;
    }
}

static void program_free(program *pg)
{
    for (size_t i = 0; i < pg->lab_size; i++)
        free(pg->lab[i].l);
    free(pg->lab);
    free(pg->later);
    pg->lab = NULL;
    pg->later = NULL;
    pg->lab_size = 0;
}

/* Empty label sets for (S + 1) · states, the lists of earlier runs kept; 0, or −1. */
static int program_reset(program *pg, int S)
{
    size_t need = (size_t)(S + 1) * pg->states;
    if (need > pg->lab_size) {
        labels *more = realloc(pg->lab, sizeof *more * need);
        if (more == NULL)
            return -1;
        memset(more + pg->lab_size, 0, sizeof *more * (need - pg->lab_size));
        pg->lab = more;
        double *later = realloc(pg->later, sizeof *later * need);
        if (later == NULL)
            return -1;
        pg->later = later;
        pg->lab_size = need;
    }
    for (size_t i = 0; i < need; i++) {
        pg->lab[i].n = 0;
        pg->later[i] = NAN;
    }
    return 0;
}

/* Runs the program for pg->q; the best final score goes to *best (left when
 * none beats it), its label index to *best_label. 0, or −1. */
static int run_program(ksolver *ks, program *pg, double *best, int *best_label)
{
    int S = ks->S, I = ks->I;
    pg->stride[0] = 1;
    for (int v = 0; v < I; v++) {
        size_t r = (size_t)digits(pg, v) + 1;
        if (pg->stride[v] > ((size_t)1 << 24) / r)
            return -1; /* too many states to hold */
        pg->stride[v + 1] = pg->stride[v] * r;
    }
    pg->states = pg->stride[I];
    if (program_reset(pg, S) != 0)
        return -1;
    if (insert_label(&pg->lab[0], (label){0, 0, 0, -1}) != 0)
        return -1;
    for (int s = 0; s < S; s++)
        for (size_t at = 0; at < pg->states; at++)
            if (pg->lab[(size_t)s * pg->states + at].n > 0 && expand(ks, pg, s, at) != 0)
                return -1;
    /* the final states: every chunk at its end; V-shaped, the chunks met anywhere */
    for (int m = pg->vshape ? 0 : ks->N; m <= ks->N; m++) {
        for (int v = 0; v < I; v++)
            pg->pos[v] = pg->vshape ? m : pg->q[v + 1];
        size_t at = index_of(pg, I, pg->pos);
        const labels *fin = &pg->lab[(size_t)S * pg->states + at];
        for (int i = 0; i < fin->n; i++) {
            double x = score(pg, fin->l[i].sum, fin->l[i].max);
            if (x < *best) {
                *best = x;
                *best_label = i;
                pg->final_at = at;
            }
        }
    }
    return 0;
}

/* Writes the plan of final label at of the program just run into kc and ko. */
static void trace_back(ksolver *ks, program *pg, int at, int *kc, int *ko)
{
    int I = ks->I;
    size_t st = pg->final_at;
    for (int s = ks->S; s > 0; s--) {
        const label *x = &pg->lab[(size_t)s * pg->states + st].l[at];
        decode(pg, I, x->from, pg->pos);
        decode(pg, I, st, pg->next);
        cell_runs(pg, I, pg->pos, pg->next);
        stage_cost(ks, s - 1, pg->cb, pg->ce, kc, ko);
        st = x->from;
        at = x->from_label;
    }
}

/* ---- setting up, the chunk starts, the answer ---- */

/* The stage times' memory, for one or two chunks and where it stays small
 * (else stage_time prices every move afresh); 0, or −1 out of memory. */
static int setup_memo(ksolver *ks)
{
    const bal_problem *p = ks->p;
    const size_t most = (size_t)1 << 22;
    if (ks->I > 2 || ks->N == 0)
        return 0;
    double flight = INFINITY; /* the fewest micro-batches any cell keeps */
    for (int c = 0; c < ks->S * ks->I; c++)
        flight = p->inflight[c] < flight ? p->inflight[c] : flight;
    double *least = malloc(sizeof *least * (size_t)ks->N);
    if (least == NULL)
        return -1;
    for (int i = 0; i < ks->N; i++) { /* a layer's fewest bytes: its least activations, the first frontier point */
        int k = p->kind_of[i];
        least[i] = p->kinds[k].stat + flight * ks->fr[k][1].pt[0].act;
    }
    /* a margin above the limit: a run is left out only where it surely cannot fit */
    int rc = bal_runs_build(&ks->runs, ks->prefix, ks->N, ks->K, least, ks->limit * (1 + 1e-9), most);
    free(least);
    if (rc != 0)
        return 0; /* too many runs to number: no memory of stage times */
    size_t C = (size_t)ks->runs.count, size = (size_t)ks->S * C;
    if (ks->I == 2 && C > most / size)
        return 0;
    size *= ks->I == 2 ? C : 1;
    ks->memo = malloc(sizeof *ks->memo * size);
    ks->known = calloc(size, 1);
    return ks->memo != NULL && ks->known != NULL ? 0 : -1;
}

/* The bound on the stages still to lay out (balance_rest.h); 0, or −1. */
static int setup_rest(ksolver *ks)
{
    const bal_problem *p = ks->p;
    int S = ks->S, K = ks->K, rc = -1;
    bal_point *pts = malloc(sizeof *pts * (size_t)K * BAL_REST_MOST);
    const bal_point **one = malloc(sizeof *one * (size_t)K);
    int *n = malloc(sizeof *n * (size_t)K);
    double *stat = malloc(sizeof *stat * ((size_t)K + 2 * (size_t)S));
    if (pts != NULL && one != NULL && n != NULL && stat != NULL) {
        double *room = stat + K, *flight = room + S;
        for (int k = 0; k < K; k++) { /* a kind's choices: its frontier of one layer (absent kinds: none, at 0) */
            const frontier *f = ks->total[k] > 0 ? &ks->fr[k][1] : &ks->fr[k][0];
            one[k] = pts + (size_t)k * BAL_REST_MOST;
            n[k] = f->n;
            for (int j = 0; j < f->n && j < BAL_REST_MOST; j++)
                pts[(size_t)k * BAL_REST_MOST + (size_t)j] = (bal_point){f->pt[j].act, f->pt[j].time};
            stat[k] = p->kinds[k].stat;
        }
        for (int s = 0; s < S; s++) {
            room[s] = ks->limit - ks->fixed_stat[s] - ks->fixed_act[s];
            /* V-shaped: the layers between the chunks may go to either, so the bound
             * pools them as one chunk keeping the fewer micro-batches of the two */
            flight[s] = !p->vshape ? 0 : p->inflight[s] < p->inflight[S + s] ? p->inflight[s] : p->inflight[S + s];
        }
        rc = p->vshape ? bal_rest_build(&ks->rest, S, 1, K, ks->prefix, one, n, stat, flight, room, ks->fixed_time)
                       : bal_rest_build(&ks->rest, S, ks->I, K, ks->prefix, one, n, stat, p->inflight, room, ks->fixed_time);
    }
    free(pts);
    free(one);
    free(n);
    free(stat);
    return rc;
}

static int setup(ksolver *ks, const bal_problem *p)
{
    memset(ks, 0, sizeof *ks);
    ks->p = p;
    ks->S = p->stages;
    ks->I = p->chunks;
    ks->N = p->body;
    ks->K = p->nkinds;
    int S = ks->S, I = ks->I, N = ks->N, K = ks->K;
    size_t cells = (size_t)S * (size_t)I;
    size_t IK = (size_t)I * (size_t)K;
    ks->total = calloc((size_t)K + ((size_t)N + 1) * (size_t)K + 2 * IK, sizeof(int));
    ks->fixed_stat = calloc((size_t)S * 4 + 2 * (IK + 1) + (size_t)N + 2, sizeof(double));
    ks->pinned = calloc(cells, 1);
    ks->g = malloc(sizeof *ks->g * IK);
    if (!ks->total || !ks->fixed_stat || !ks->pinned || !ks->g)
        return -1;
    ks->prefix = ks->total + K;
    ks->pick = ks->prefix + ((size_t)N + 1) * (size_t)K;
    ks->best_pick = ks->pick + IK;
    ks->fixed_act = ks->fixed_stat + S;
    ks->fixed_time = ks->fixed_stat + 2 * S;
    ks->rest_time = ks->fixed_stat + 3 * S;
    ks->rest_act = ks->rest_time + IK + 1;
    ks->fixed_after = ks->rest_act + IK + 1;
    ks->fastest = ks->fixed_after + S + 1;
    for (int i = 0; i < N; i++) {
        memcpy(ks->prefix + (size_t)(i + 1) * (size_t)K, ks->prefix + (size_t)i * (size_t)K, sizeof(int) * (size_t)K);
        ks->prefix[(size_t)(i + 1) * (size_t)K + (size_t)p->kind_of[i]]++;
        ks->total[p->kind_of[i]]++;
    }
    const bal_pinned *pins[2] = {&p->head, &p->tail};
    int pin_cell[2] = {0, (I - 1) * S + p->tail_stage};
    for (int i = 0; i < 2; i++)
        if (pins[i]->present) {
            int c = pin_cell[i], s = c % S;
            ks->pinned[c] = 1;
            ks->fixed_stat[s] += pins[i]->stat;
            ks->fixed_act[s] += pins[i]->act * p->inflight[c];
            ks->fixed_time[s] += pins[i]->time;
        }
    ks->limit = p->limit + fabs(p->limit) * 1e-12;
    if (bal_pinned_ends(p, &ks->pin_first, &ks->pin_last) != 0)
        return -1;
    for (int s = S - 1; s >= 0; s--)
        ks->fixed_after[s] = ks->fixed_after[s + 1] + ks->fixed_time[s];
    if (build_frontiers(ks) != 0)
        return -1;
    for (int i = 0; i < N; i++) { /* a kind's fastest choice: the last point of its frontier of one layer */
        const frontier *one = &ks->fr[p->kind_of[i]][1];
        ks->fastest[i + 1] = ks->fastest[i] + one->pt[one->n - 1].time;
    }
    return setup_memo(ks) != 0 || setup_rest(ks) != 0 ? -1 : 0;
}

static void teardown(ksolver *ks)
{
    if (ks->fr != NULL)
        for (int k = 0; k < ks->K; k++) {
            if (ks->fr[k] != NULL)
                for (int n = 0; n <= ks->total[k]; n++)
                    free(ks->fr[k][n].pt);
            free(ks->fr[k]);
        }
    free(ks->fr);
    free(ks->total); /* prefix, pick and best_pick too */
    free(ks->fixed_stat); /* fixed_act, fixed_time, rest_time, rest_act, fixed_after, fastest too */
    free(ks->pinned);
    free(ks->g);
    free(ks->memo);
    free(ks->known);
    bal_runs_free(&ks->runs);
    bal_rest_free(&ks->rest);
}

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
            double t = bad ? INFINITY : stage_time(ks, s, pg->cb, pg->ce);
            sum += t;
            max = t > max ? t : max;
        }
        if (sum < INFINITY && score(pg, sum, max) < best)
            best = score(pg, sum, max);
    }
    return best;
}

/* Tries every start of chunks v.. (q[v] set); keeps the best in *best / best_q. */
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
        int rc = run_program(ks, pg, best, &at);
        pg->runs++;
        if (rc != 0)
            return -1;
        if (*best < before) {
            pg->incumbent = *best;
            memcpy(best_q, pg->q, sizeof(int) * (size_t)(I + 1));
        }
        return 0;
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
            if (try_starts(ks, pg, v + 1, best, best_q) != 0)
                return -1;
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

int bal_solve_kinds(const bal_problem *p, bal_plan *out)
{
    int S = p->stages, I = p->chunks, K = p->nkinds, rc = -1;
    size_t cells = (size_t)S * (size_t)I;
    ksolver ks;
    program pg = {0};
    int *best_q = NULL;
    if (setup(&ks, p) != 0)
        goto done;
    pg.q = calloc((size_t)I + 1, sizeof(int));
    pg.stride = calloc((size_t)I + 1, sizeof(size_t));
    pg.pos = calloc((size_t)I * 7, sizeof(int));
    best_q = calloc((size_t)I + 1, sizeof(int));
    out->count = calloc(cells * BAL_OPTIONS, sizeof(int));
    out->kind_count = calloc(cells * (size_t)K * BAL_OPTIONS, sizeof(int));
    out->stage_time = calloc((size_t)S, sizeof(double));
    out->stage_mem = calloc((size_t)S, sizeof(double));
    if (!pg.q || !pg.stride || !pg.pos || !best_q || !out->count || !out->kind_count || !out->stage_time ||
        !out->stage_mem)
        goto done;
    if (bal_offloads(p)) {
        out->offload = calloc(cells * BAL_OPTIONS, sizeof(int));
        out->kind_offload = calloc(cells * (size_t)K * BAL_OPTIONS, sizeof(int));
        if (out->offload == NULL || out->kind_offload == NULL)
            goto done;
    }
    pg.next = pg.pos + I;
    pg.d = pg.pos + 2 * I;
    pg.lo = pg.pos + 3 * I;
    pg.hi = pg.pos + 4 * I;
    pg.cb = pg.pos + 5 * I;
    pg.ce = pg.pos + 6 * I;
    pg.vshape = p->vshape;
    pg.N = p->body;
    pg.a = p->coef_sum;
    pg.b = p->coef_max;
    pg.incumbent = INFINITY;
    pg.q[I] = p->body;
    double best = INFINITY;
    if (try_starts(&ks, &pg, 0, &best, best_q) != 0)
        goto done;
    out->optimal = 1; /* proved either way */
    if (best == INFINITY) {
        explain(&ks, out);
        rc = 0;
        goto done;
    }
    memcpy(pg.q, best_q, sizeof(int) * (size_t)(I + 1));
    int at = -1;
    double again = INFINITY;
    if (run_program(&ks, &pg, &again, &at) != 0 || at < 0)
        goto done;
    trace_back(&ks, &pg, at, out->kind_count, out->kind_offload);
    sum_kinds(out->kind_count, K, cells, out->count);
    if (out->offload != NULL)
        sum_kinds(out->kind_offload, K, cells, out->offload);
    out->feasible = 1;
    out->explored = pg.runs;
    out->moves = ks.moves;
    bal_evaluate_kinds(p, out->kind_count, out->kind_offload, &out->objective, out->stage_time, out->stage_mem);
    rc = 0;
done:
    program_free(&pg);
    free(pg.q);
    free(pg.stride);
    free(pg.pos);
    free(best_q);
    teardown(&ks);
    return rc;
}

/* ---- checking a plan ---- */

static int fits(double need, double limit) { return need <= limit + fabs(limit) * 1e-12; }

/* Adds pinned layer pin (when present) to a stage's memory and time; 1 if it was. */
static int add_pinned(const bal_pinned *pin, double n, double *mem, double *time)
{
    if (!pin->present)
        return 0;
    *mem += pin->stat + pin->act * n;
    *time += pin->time;
    return 1;
}

/* Whether cell c holds as many layers of each kind as body layers [at, at + own) have. */
static int run_matches(const bal_problem *p, const int *kind_count, int c, int at, int own)
{
    int K = p->nkinds;
    if (at < 0 || own < 0 || at + own > p->body)
        return 0;
    for (int k = 0; k < K; k++) {
        int want = 0, got = 0;
        for (int r = 0; r < BAL_OPTIONS; r++)
            want += kind_count[((size_t)c * (size_t)K + (size_t)k) * BAL_OPTIONS + (size_t)r];
        for (int i = at; i < at + own; i++)
            got += p->kind_of[i] == k;
        if (want != got)
            return 0;
    }
    return 1;
}

/* Adds x layers of kind l under option r, y of them offloaded, kept n times, to mem and time; 0, or 1 when
 * the counts break a rule. */
static int add_layers(const bal_layer *l, int r, int x, int y, double n, double *mem, double *time)
{
    *mem += (x - y) * (l->stat + l->act[r] * n) + y * (l->stat + (1 - l->offload_share) * l->act[r] * n);
    *time += x * l->time[r] + y * l->offload_time[r];
    return x < 0 || y < 0 || y > x || !(l->offered & (1u << r)) || (y > 0 && !(l->offload_offered & (1u << r)));
}

int bal_evaluate_kinds(const bal_problem *p, const int *kind_count, const int *kind_offload, double *objective,
                       double *stage_time, double *stage_mem)
{
    int S = p->stages, I = p->chunks, K = p->nkinds, bad = 0, at = 0, first = 0, last = 0;
    int tail_cell = (I - 1) * S + p->tail_stage;
    if (bal_pinned_ends(p, &first, &last) != 0)
        bad = 1;
    double sum = 0, most = 0;
    for (int s = 0; s < S; s++)
        stage_time[s] = stage_mem[s] = 0;
    for (int j = 0; j < S * I; j++) { /* model order */
        int c = bal_model_cell(p, j), s = c % S, own = 0;
        double n = p->inflight[c];
        int held = (c == 0 ? add_pinned(&p->head, n, &stage_mem[s], &stage_time[s]) : 0) +
                   (c == tail_cell ? add_pinned(&p->tail, n, &stage_mem[s], &stage_time[s]) : 0);
        for (int k = 0; k < K; k++)
            for (int r = 0; r < BAL_OPTIONS; r++) {
                size_t at_kr = ((size_t)c * (size_t)K + (size_t)k) * BAL_OPTIONS + (size_t)r;
                int x = kind_count[at_kr], y = kind_offload != NULL ? kind_offload[at_kr] : 0;
                if (x != 0 || y != 0)
                    bad |= add_layers(&p->kinds[k], r, x, y, n, &stage_mem[s], &stage_time[s]);
                own += x;
            }
        if (held + own < 1 || !run_matches(p, kind_count, c, at, own))
            bad = 1;
        if ((j == 0 && own < first) || (j == S * I - 1 && at > p->body - last))
            bad = 1; /* a layer pinned to an end is elsewhere */
        at += own;
    }
    for (int s = 0; s < S; s++) {
        if (!fits(stage_mem[s], p->limit))
            bad = 1;
        sum += stage_time[s];
        most = stage_time[s] > most ? stage_time[s] : most;
    }
    if (at != p->body)
        bad = 1;
    *objective = p->coef_sum * sum + p->coef_max * most;
    return bad;
}
