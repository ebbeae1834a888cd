/* balance_kinds_program.c: the kinds solver's dynamic program over the stages
 * for one choice of chunk starts (balance_kinds_solver.h). The state after
 * stage s is where each chunk's run has reached; at every state the program
 * keeps the Pareto set of (Σ T, max T) of the stages so far, exact for
 * a·Σ T + b·max T with a, b ≥ 0. A label is dropped when a lower bound on
 * every plan it leads to (the stages so far plus bal_rest_bound's least
 * seconds for the layers left) cannot beat the incumbent, and the moves out
 * of a state stop growing a cell once a move cannot fit or cannot win.
 *
 * The labels, the bound and the number of a state are kept in slots given
 * to the states reached, in the order reached, found through two tables of
 * one stage's states (the stage laid out and the next): the bounds let the
 * program reach few of the (S + 1) · states, and arrays over all of them
 * cost more in page faults than the program itself. */
#include "balance_kinds_solver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int kinds_extend_labels(labels *to, const labels *from, size_t at, double t, const double *step, int S, int s,
                        double rest, double incumbent)
{
    double cut = incumbent + kinds_slack(incumbent);
    if (rest == INFINITY)
        return 0;
    for (int i = 0; i < from->n; i++) {
        label x = {from->l[i].sum + t, from->l[i].max > t ? from->l[i].max : t, at, i};
        if (kinds_bound(step[0], step[1], S, s, x.sum, x.max, rest) <= cut && kinds_insert_label(to, x) != 0)
            return -1;
    }
    return 0;
}

int kinds_insert_label(labels *L, label x)
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

int kinds_grow_slots(labels **lab, double **later, size_t **key, int *cap)
{
    int more = 2 * *cap + 256;
    labels *l = realloc(*lab, sizeof *l * (size_t)more);
    *lab = l != NULL ? l : *lab;
    double *t = l != NULL ? realloc(*later, sizeof *t * (size_t)more) : NULL;
    *later = t != NULL ? t : *later;
    size_t *k = t != NULL ? realloc(*key, sizeof *k * (size_t)more) : NULL;
    *key = k != NULL ? k : *key;
    if (k == NULL)
        return -1;
    *cap = more;
    return 0;
}

/* A slot for the state after stage s numbered key, where the chunks stand
 * at pg->next: its labels empty (a list kept from an earlier run reused) and
 * its bound set, when it is new; the slot, or −1 out of memory. */
static int reach(ksolver *ks, program *pg, int s, size_t key)
{
    int *at_slot = &pg->slot_at[s & 1][key - (size_t)s * pg->states];
    if (*at_slot >= 0)
        return *at_slot;
    int x = pg->slots;
    if (x == pg->cap && kinds_grow_slots(&pg->lab, &pg->later, &pg->key, &pg->cap) != 0)
        return -1;
    if (x == pg->given)
        pg->lab[pg->given++] = (labels){NULL, 0, 0};
    pg->lab[x].n = 0;
    pg->key[x] = key;
    *at_slot = pg->slots++;
    /* V-shaped: the layers between the chunks, as one pool (setup_rest) */
    pg->later[x] = pg->vshape ? bal_rest_bound(&ks->rest, s, pg->next, pg->next + 1)
                              : bal_rest_bound(&ks->rest, s, pg->next, pg->q + 1);
    return x;
}

/* Extends every label of from (the state in slot x after stage s) by a stage
 * of time t into the state pg->next, those that bal_rest_bound shows cannot
 * beat the incumbent left out. */
static int extend(ksolver *ks, program *pg, int s, int x, const labels *from, double t)
{
    int to = reach(ks, pg, s + 1, (size_t)(s + 1) * pg->states + index_of(pg, ks->I, pg->next));
    if (to < 0)
        return -1;
    double step[2] = {pg->a, pg->b};
    return kinds_extend_labels(&pg->lab[to], from, (size_t)x, t, step, ks->S, s + 1, pg->later[to], pg->incumbent);
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
static int expand_meeting(ksolver *ks, program *pg, int s, int x, const labels *from)
{
    for (int m = pg->pos[0]; m <= pg->pos[1]; m++) {
        pg->next[0] = pg->next[1] = m;
        cell_runs(pg, 2, pg->pos, pg->next);
        if (first_empty(ks, s, pg->cb, pg->ce) >= 0 || !pins_hold(ks, pg, s))
            continue;
        double t = kinds_stage_time(ks, s, pg->cb, pg->ce);
        if (t < INFINITY && extend(ks, pg, s, x, from, t) != 0)
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
static int expand(ksolver *ks, program *pg, int s, int x)
{
    int I = ks->I, last = s == ks->S - 1;
    labels copy = pg->lab[x]; /* pg->lab may move as the next stage's states are reached; its lists do not */
    const labels *from = &copy;
    double minsum = INFINITY, minmax = INFINITY;
    for (int i = 0; i < from->n; i++) {
        minsum = from->l[i].sum < minsum ? from->l[i].sum : minsum;
        minmax = from->l[i].max < minmax ? from->l[i].max : minmax;
    }
    decode(pg, I, pg->key[x] - (size_t)s * pg->states, pg->pos);
    if (last && pg->vshape)
        return expand_meeting(ks, pg, s, x, from);
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
            double t = crossed ? INFINITY : kinds_stage_time(ks, s, pg->cb, pg->ce);
            int dead = t == INFINITY;
            if (!dead) {
                double total = minsum + t + rest_time(ks, pg, s + 1, pg->next);
                double most = minmax > t ? minmax : t;
                most = total / ks->S > most ? total / ks->S : most;
                dead = score(pg, total, most) > pg->incumbent + kinds_slack(pg->incumbent);
            }
            if (dead) {
                skip = 0; /* the lowest digit above its first value, and those below it */
                while (skip < I && pg->d[skip] == pg->lo[skip])
                    skip++;
                if (skip == I)
                    return 0;
            } else if (extend(ks, pg, s, x, from, t) != 0) {
                return -1;
            }
        }
        if (!advance(pg, I, skip))
            return 0;
    }
}

/* Expands the states after stage s (their labels into those after s + 1) in
 * the order of their numbers: the labels then reach each state in one order
 * whatever order the states were reached in. 0, or −1 out of memory. */
static int expand_level(ksolver *ks, program *pg, int s)
{
    const int *slot = pg->slot_at[s & 1];
    memset(pg->slot_at[(s + 1) & 1], 0xff, sizeof(int) * pg->states); /* all −1: none reached yet */
    for (size_t i = 0; i < pg->states; i++)
        if (slot[i] >= 0 && pg->lab[slot[i]].n > 0 && expand(ks, pg, s, slot[i]) != 0)
            return -1;
    return 0;
}

void kinds_program_free(program *pg)
{
    for (int i = 0; i < pg->given; i++)
        free(pg->lab[i].l);
    free(pg->slot_at[0]);
    free(pg->slot_at[1]);
    pg->slot_at[0] = pg->slot_at[1] = NULL;
    pg->table = 0;
    free(pg->lab);
    free(pg->later);
    free(pg->key);
    pg->lab = NULL;
    pg->later = NULL;
    pg->key = NULL;
    pg->cap = pg->given = 0;
}

/* Runs the program for pg->q; the best final score goes to *best (left when
 * none beats it), its label index to *best_label. 0, or −1. */
int kinds_run_program(ksolver *ks, program *pg, double *best, int *best_label)
{
    int S = ks->S, I = ks->I;
    pg->stride[0] = 1;
    for (int v = 0; v < I; v++) {
        size_t r = (size_t)digits(pg, v) + 1;
        if (pg->stride[v] > ((size_t)1 << 24) / r)
            return -1; /* too many states to number */
        pg->stride[v + 1] = pg->stride[v] * r;
    }
    pg->states = pg->stride[I];
    for (int i = 0; i < 2 && pg->states > pg->table; i++) {
        int *more = realloc(pg->slot_at[i], sizeof *more * pg->states);
        if (more == NULL)
            return -1;
        pg->slot_at[i] = more;
    }
    pg->table = pg->states > pg->table ? pg->states : pg->table;
    pg->slots = 0;
    memset(pg->slot_at[0], 0xff, sizeof(int) * pg->states);
    for (int v = 0; v < I; v++) /* the state before stage 0: every chunk at its digit 0, number 0 */
        pg->next[v] = position(pg, v, 0);
    if (reach(ks, pg, 0, 0) != 0 || kinds_insert_label(&pg->lab[0], (label){0, 0, 0, -1}) != 0)
        return -1;
    for (int s = 0; s < S; s++) /* the states after stage s + 1 are all reached from those after s */
        if (expand_level(ks, pg, s) != 0)
            return -1;
    /* the final states: every chunk at its end; V-shaped, the chunks met anywhere */
    for (int m = pg->vshape ? 0 : ks->N; m <= ks->N; m++) {
        for (int v = 0; v < I; v++)
            pg->pos[v] = pg->vshape ? m : pg->q[v + 1];
        int at = pg->slot_at[S & 1][index_of(pg, I, pg->pos)];
        const labels *fin = at >= 0 ? &pg->lab[at] : &(labels){NULL, 0, 0};
        for (int i = 0; i < fin->n; i++) {
            double x = score(pg, fin->l[i].sum, fin->l[i].max);
            if (x < *best) {
                *best = x;
                *best_label = i;
                pg->final_at = (size_t)at;
            }
        }
    }
    return 0;
}

/* Writes the plan of final label at of the program just run into kc and ko. */
void kinds_trace_back(ksolver *ks, program *pg, int at, int *kc, int *ko)
{
    int I = ks->I;
    size_t st = pg->final_at;
    for (int s = ks->S; s > 0; s--) {
        const label *x = &pg->lab[st].l[at];
        decode(pg, I, pg->key[x->from] - (size_t)(s - 1) * pg->states, pg->pos);
        decode(pg, I, pg->key[st] - (size_t)s * pg->states, pg->next);
        cell_runs(pg, I, pg->pos, pg->next);
        kinds_stage_cost(ks, s - 1, pg->cb, pg->ce, kc, ko);
        st = x->from;
        at = x->from_label;
    }
}
