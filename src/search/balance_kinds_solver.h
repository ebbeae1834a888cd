/* balance_kinds_solver.h: what the files of the kinds solver (bal_solve_kinds,
 * balance_kinds.c) share: its state, the Pareto frontiers of option mixes,
 * the program over the stages, and the functions each file gives the others.
 * Internal to src/search/balance_kinds*.c. */
#ifndef NDLUA_BALANCE_KINDS_SOLVER_H
#define NDLUA_BALANCE_KINDS_SOLVER_H

#include "balance_problem.h"
#include "balance_rest.h"
#include "balance_memo.h"
#include "balance_runs.h"

#include <math.h>
#include <stddef.h>

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
    bal_memo memo;        /* the stage's least time under (s · C + id of chunk 1's run) · C + id of chunk 0's
                             (I ≤ 2; C runs numbered) */
    int memo_on;          /* whether memo is kept */
    long moves;           /* stage_time calls: the moves priced */
    group *g;             /* scratch: up to I · K groups */
    double *rest_time, *rest_act;
    int *pick, *best_pick;
} ksolver;

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
    size_t final_at; /* the slot of the final state of the best plan of the last run */
    size_t states;   /* a stage's states: the state after stage s is numbered s · states + index */
    int *slot_at[2]; /* [index]: the slot of the state after stage s (table s mod 2), −1 if not reached */
    size_t table;    /* entries slot_at's tables have room for */
    int slots;       /* slots given in this run */
    labels *lab;     /* [slot]: the state's labels; the lists kept from run to run */
    double *later;   /* [slot]: bal_rest_bound of the state */
    size_t *key;     /* [slot]: the state's number */
    int cap, given;  /* slots lab, later and key have room for; slots whose lists exist */
    double a, b, incumbent;
    double target;   /* a step no plan beats (the alike program's least), or −INFINITY: try_starts stops on reaching it */
    int best_label;  /* the label of final_at that try_starts' best start ended on */
    int *pos, *next;  /* [I]: where each chunk stands before and after a stage */
    int *d, *lo, *hi; /* [I]: the odometer of moves: next's digits and their ranges */
    int *cb, *ce;     /* [I]: the runs [cb, ce) of a stage's cells */
    long runs;       /* chunk starts tried */
} program;

static inline double score(const program *pg, double sum, double max) { return pg->a * sum + pg->b * max; }

/* A lower bound on a·Σ T + b·max T of every plan whose first s of S stages
 * took sum in all and max at most, with rest (a bound on the seconds of the
 * stages left) still to come: Σ T ≥ sum + rest; max T ≥ max, ≥ the mean of
 * all S stages, ≥ the mean of the S − s left. */
static inline double kinds_bound(double a, double b, int S, int s, double sum, double max, double rest)
{
    double total = sum + rest, most = max;
    if (total / S > most)
        most = total / S;
    if (s < S && rest / (S - s) > most)
        most = rest / (S - s);
    return a * total + b * most;
}

/* The rounding allowance of the pruning tests: a bound that exceeds the
 * incumbent by less may be the incumbent's own plan summed in another order. */
static inline double kinds_slack(double incumbent) { return 1e-9 * (fabs(incumbent) > 1 ? fabs(incumbent) : 1); }

/* The first chunk whose cell of stage s is left empty where it may not be, or −1. */
static inline int first_empty(const ksolver *ks, int s, const int *b, const int *e)
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
static inline int pins_hold(const ksolver *ks, const program *pg, int s)
{
    if (s == 0 && pg->ce[0] < ks->pin_first)
        return 0;
    return s != (pg->vshape ? 0 : ks->S - 1) || pg->cb[ks->I - 1] <= ks->N - ks->pin_last;
}

/* balance_kinds_frontier.c: fr[k][n] for every kind k and n = 0..total[k]; 0, or −1 out of memory. */
int kinds_build_frontiers(ksolver *ks);

/* balance_kinds_stage.c: the least forward + backward seconds of stage s when
 * chunk v's cell holds body layers [b[v], e[v]) (INFINITY when it cannot);
 * kinds_stage_cost also adds the chosen counts into kc and ko when kc is not
 * NULL, kinds_stage_time remembers the time by what the cells hold. */
double kinds_stage_cost(ksolver *ks, int s, const int *b, const int *e, int *kc, int *ko);
double kinds_stage_time(ksolver *ks, int s, const int *b, const int *e);

/* balance_kinds_program.c: the program over the stages for pg->q's chunk
 * starts (kinds_run_program), the plan of its best label (kinds_trace_back),
 * and its label sets freed (kinds_program_free). */
int kinds_run_program(ksolver *ks, program *pg, double *best, int *best_label);
void kinds_trace_back(ksolver *ks, program *pg, int at, int *kc, int *ko);
void kinds_program_free(program *pg);
/* Room for 2 · *cap + 256 slots in a program's per-slot arrays (labels,
 * bound, number), *cap raised to it; 0, or −1 out of memory (all kept). */
int kinds_grow_slots(labels **lab, double **later, size_t **key, int *cap);
/* Adds x to L unless a label there equals or beats it, dropping those x beats; 0, or −1. */
int kinds_insert_label(labels *L, label x);
/* Extends every label of from (state at) by a stage of t seconds into to,
 * leaving out those whose kinds_bound (step = {a, b}, s of S stages laid
 * out, rest still to come) passes the incumbent; 0, or −1. */
int kinds_extend_labels(labels *to, const labels *from, size_t at, double t, const double *step, int S, int s,
                        double rest, double incumbent);

/* balance_kinds_alike.c: the program when every body layer the chunks after
 * the first may hold is of one kind (balance_kinds.c says when and why it is
 * exact). kinds_alike_applies: whether it does for ks. kinds_alike_solve: the
 * least step into *best (INFINITY when no plan fits; incumbent: a step some
 * plan reaches, or INFINITY), and with a plan each cell's run [b, e) into
 * cell_b and cell_e ([v · S + s]; NULL: no plan wanted); 0, or −1 out of memory. */
int kinds_alike_applies(const ksolver *ks);
int kinds_alike_solve(ksolver *ks, double incumbent, double *best, int *cell_b, int *cell_e);

/* balance_kinds_setup.c: the solver's state for p (0, or −1 out of memory), and freed;
 * kinds_setup_rest: a bound on the stages left (balance_rest.h) for I chunks
 * keeping inflight[v · S + s] micro-batches (0, or −1). */
int kinds_setup(ksolver *ks, const bal_problem *p);
int kinds_setup_rest(const ksolver *ks, bal_rest *rest, int I, const double *inflight);
void kinds_teardown(ksolver *ks);

#endif
