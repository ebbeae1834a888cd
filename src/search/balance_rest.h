/* balance_rest.h: a lower bound on the forward + backward seconds the stages
 * not yet laid out must take for the body layers still to place (the
 * balancer's dynamic programs prune with it, balance_kinds.c). */
#ifndef NDLUA_BALANCE_REST_H
#define NDLUA_BALANCE_REST_H

/* One choice of a layer: activations per micro-batch kept, seconds. */
typedef struct {
    double act, time;
} bal_point;

typedef struct {
    int S, I, K;
    const int *prefix;  /* [i · K + k]: layers of kind k among the first i (not owned) */
    double *stat, *fast_act, *fast_time; /* [k]: static bytes, the fastest choice's activations and seconds */
    double *flight;     /* [s · I + v]: the fewest micro-batches chunk v keeps on stages s.. */
    double *room;       /* [s]: Σ over stages s.. of the limit less their pinned layers' bytes */
    double *fixed;      /* [s]: Σ over stages s.. of their pinned layers' seconds */
    /* [s]: the steps that trade seconds for bytes, cheapest per byte first */
    struct bal_rest_step *step;
    int *nstep;         /* [s]; steps of s at step + s · I · K · BAL_REST_MOST */
    int *count;         /* scratch: [v · K + k] layers left */
} bal_rest;

#define BAL_REST_MOST 10 /* choices a layer may have (options, plain or offloaded) */

/* Builds the bound for S stages and I chunks of K kinds: kind k's choices
 * one[k][0..n[k]), activations ascending, seconds descending (a Pareto
 * frontier); stat[k] its static bytes; inflight[v · S + s] the micro-batches
 * of cell (v, s); room[s] the limit less stage s's pinned bytes, fixed[s] its
 * pinned seconds. 0, or −1 out of memory or a kind with no choice or more
 * than BAL_REST_MOST. */
int bal_rest_build(bal_rest *r, int S, int I, int K, const int *prefix, const bal_point *const *one, const int *n,
                   const double *stat, const double *inflight, const double *room, const double *fixed);

/* A lower bound on Σ of the forward + backward seconds of stages s.. when
 * chunk v still has body layers [at[v], end[v]) to place there (INFINITY:
 * they cannot fit): the least seconds of those layers when the stages pool
 * their memory and each layer keeps its activations for the fewest
 * micro-batches its chunk keeps on any of them, its choice relaxed to a mix
 * (a linear program, solved exactly by taking the cheapest seconds per byte
 * saved first along each kind's lower convex hull), plus the pinned seconds. */
double bal_rest_bound(bal_rest *r, int s, const int *at, const int *end);

void bal_rest_free(bal_rest *r);

#endif
