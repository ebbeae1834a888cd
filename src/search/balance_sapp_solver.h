/* balance_sapp_solver.h: what the files of the SAPP-PPB balancer
 * (bal_solve_sapp, balance_sapp.c) share: the option mixes, the Pareto
 * fronts of one stage's chunk counts, the solver's state and the dynamic
 * program's work, and the functions each file gives the others.
 * Internal to src/search/balance_sapp*.c. */
#ifndef NDLUA_BALANCE_SAPP_SOLVER_H
#define NDLUA_BALANCE_SAPP_SOLVER_H

#include "balance_problem.h"

#include <math.h>
#include <stdint.h>

static inline int sapp_fits(double need, double limit) { return need <= limit + fabs(limit) * 1e-12; }

static inline int sapp_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One option mix of a chunk: counts per option (of the options in use). */
typedef struct {
    int n, *x;   /* n mixes of nopt counts each */
} mixes;

/* The Pareto front of one (stage, c0, c1): T_s ascending, cost descending. */
typedef struct {
    int built, n;
    double *need, *cost;
    int *mix0, *mix1; /* mix index in the chunk's mixes */
} front;

typedef struct {
    const bal_problem *p;
    int S, I, N, nopt, opt[BAL_OPTIONS];
    double fwd, min_time;
    mixes *mx;        /* [c]: the mixes of c layers worth keeping, built on demand */
    int monotone;     /* memory grows with either chunk's activations (mixes may be pruned) */
    front *fr;        /* [(s·(N+1) + c0)·(N+1) + c1] */
    int kmax;         /* largest count per cell the tables cover */
} sapp;

typedef struct {
    int c0, c1, Mi;
    double g, Fl;
} choice;

typedef struct {
    int nM, nP;
    choice *ch;            /* the current stage's allowed chunk counts */
    double *Mv;            /* the last chunk's forward values */
    double *dp;            /* [s][u][Mi][P] */
    int64_t *pick;         /* [s][state]: (c0·(N+1) + c1)·(nM·nP) + next state's (Mi·nP + P), or −1 */
} dpwork;

/* balance_sapp_rule.c: the rule's parts the solver prices with: the
 * interleave overhead factor of stage s, the pinned layer of cell (v, s),
 * the parameters fixed on stage s. */
double sapp_overhead(const bal_problem *p, int s);
int sapp_pinned_in(const bal_problem *p, int v, int s, const bal_pinned **out);
double sapp_fixed_stat(const bal_problem *p, int s);

/* balance_sapp_front.c: the Pareto front of stage s holding c0 (and c1) body
 * layers (built on first use; 0, or −1 out of memory), the entry a bound B
 * allows at least cost, every front a bound reaches built, and the distinct
 * needs of the built fronts within [lo, hi]. */
int sapp_build_front(sapp *z, int s, int c0, int c1, front **out);
int sapp_front_at(const front *f, double B);
int sapp_build_all(sapp *z, int K);
int sapp_needs_between(const sapp *z, int K, double lo, double hi, double **out, int *n_out);

/* balance_sapp_bound.c: the largest count a cell can hold under bound B,
 * the dynamic program at one bound (its arrays for K layers a cell, and its
 * run: least W + C + P + Q with every T_s ≤ B), and the halving of the
 * bounds between (-O 2). */
int sapp_kcap(const sapp *z, double B);
int sapp_dp_prepare(sapp *z, dpwork *w, int K);
int sapp_dp_run(sapp *z, dpwork *w, double B, int K, double *out, int *count, double *tmax);
int sapp_try_interval(sapp *z, dpwork *w, const double *cand, int a, int b, double gb, double weight, int K,
                      int *scratch, bal_plan *out, double *best);

#endif
