/* balance_rest.c: the bound on the stages still to lay out (balance_rest.h).
 *
 * Why it is a lower bound. Every stage t ≥ s keeps
 *     pinned bytes_t + Σ_{layers i on t} (stat_i + n_{v(i),t} · act_i) ≤ limit,
 * and summing over those stages, with n_{v,t} ≥ flight_v (the fewest over
 * t ≥ s), gives one constraint all of them keep:
 *     Σ_i (stat_i + flight_{v(i)} · act_i) ≤ Σ_t (limit − pinned bytes_t).
 * Any plan's choices keep it, so the least Σ_i time_i under it alone is at
 * most the plan's. Relaxing each layer's choice to a mix of its choices makes
 * that a fractional multiple-choice knapsack, whose optimum starts every layer
 * at its fastest choice and buys the bytes it must save in the order of
 * seconds per byte along each choice set's lower convex hull (the steps of a
 * hull cost more per byte one after the other, so the order keeps each
 * layer's steps in turn). */
#include "balance_rest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct bal_rest_step {
    double cost;        /* seconds per byte saved (bytes scaled by flight) */
    double save, time;  /* per layer: bytes saved (scaled), seconds added */
    int group;          /* v · K + k */
};

static int by_cost(const void *a, const void *b)
{
    const struct bal_rest_step *x = a, *y = b;
    return x->cost < y->cost ? -1 : x->cost > y->cost;
}

/* The lower convex hull of choices pt[0..n) (activations ascending, seconds
 * descending) from the fastest, pt[n − 1], towards the fewest bytes: indices into
 * hull, fastest first; returns how many. */
static int lower_hull(const bal_point *pt, int n, int *hull)
{
    int h = 0;
    for (int i = n - 1; i >= 0; i--) {
        while (h >= 2) {
            const bal_point *a = &pt[hull[h - 2]], *b = &pt[hull[h - 1]], *c = &pt[i];
            /* b stays when saving from a to b costs less per byte than from b to c */
            double ab = (b->time - a->time) * (b->act - c->act), bc = (c->time - b->time) * (a->act - b->act);
            if (ab < bc)
                break;
            h--;
        }
        hull[h++] = i;
    }
    return h;
}

int bal_rest_build(bal_rest *r, int S, int I, int K, const int *prefix, const bal_point *const *one, const int *n,
                   const double *stat, const double *inflight, const double *room, const double *fixed)
{
    memset(r, 0, sizeof *r);
    for (int k = 0; k < K; k++)
        if (n[k] < 1 || n[k] > BAL_REST_MOST)
            return -1;
    r->S = S;
    r->I = I;
    r->K = K;
    r->prefix = prefix;
    size_t per = (size_t)I * (size_t)K * BAL_REST_MOST;
    r->stat = malloc(sizeof(double) * ((size_t)K * 3 + (size_t)(S + 1) * ((size_t)I + 2)));
    r->step = malloc(sizeof *r->step * per * (size_t)(S + 1));
    r->nstep = calloc((size_t)S + 1 + (size_t)I * (size_t)K, sizeof(int));
    if (r->stat == NULL || r->step == NULL || r->nstep == NULL) {
        bal_rest_free(r);
        return -1;
    }
    r->fast_act = r->stat + K;
    r->fast_time = r->fast_act + K;
    r->flight = r->fast_time + K;
    r->room = r->flight + (size_t)(S + 1) * (size_t)I;
    r->fixed = r->room + S + 1;
    r->count = r->nstep + S + 1;
    for (int k = 0; k < K; k++) {
        r->stat[k] = stat[k];
        r->fast_act[k] = one[k][n[k] - 1].act;
        r->fast_time[k] = one[k][n[k] - 1].time;
    }
    r->room[S] = r->fixed[S] = 0;
    for (int v = 0; v < I; v++)
        r->flight[(size_t)S * (size_t)I + (size_t)v] = INFINITY;
    for (int s = S - 1; s >= 0; s--) {
        r->room[s] = r->room[s + 1] + room[s];
        r->fixed[s] = r->fixed[s + 1] + fixed[s];
        for (int v = 0; v < I; v++) {
            double later = r->flight[(size_t)(s + 1) * (size_t)I + (size_t)v], here = inflight[v * S + s];
            r->flight[(size_t)s * (size_t)I + (size_t)v] = here < later ? here : later;
        }
    }
    int hull[BAL_REST_MOST];
    for (int s = 0; s < S; s++) {
        struct bal_rest_step *st = r->step + per * (size_t)s;
        int m = 0;
        for (int v = 0; v < I; v++) {
            double f = r->flight[(size_t)s * (size_t)I + (size_t)v];
            for (int k = 0; k < K && f > 0; k++) {
                int h = lower_hull(one[k], n[k], hull);
                for (int j = 1; j < h; j++) {
                    const bal_point *a = &one[k][hull[j - 1]], *b = &one[k][hull[j]];
                    double save = f * (a->act - b->act), time = b->time - a->time;
                    st[m++] = (struct bal_rest_step){time / save, save, time, v * K + k};
                }
            }
        }
        qsort(st, (size_t)m, sizeof *st, by_cost);
        r->nstep[s] = m;
    }
    return 0;
}

double bal_rest_bound(bal_rest *r, int s, const int *at, const int *end)
{
    int I = r->I, K = r->K, *count = r->count;
    double time = r->fixed[s], need = 0;
    for (int v = 0; v < I; v++) {
        double f = r->flight[(size_t)s * (size_t)I + (size_t)v];
        for (int k = 0; k < K; k++) {
            int c = r->prefix[(size_t)end[v] * (size_t)K + (size_t)k] - r->prefix[(size_t)at[v] * (size_t)K + (size_t)k];
            count[v * K + k] = c;
            if (c == 0)
                continue;
            if (s == r->S)
                return INFINITY; /* layers left and no stage to hold them */
            need += c * (r->stat[k] + f * r->fast_act[k]);
            time += c * r->fast_time[k];
        }
    }
    double over = need - r->room[s];
    if (over <= 0)
        return time;
    const struct bal_rest_step *st = r->step + (size_t)I * (size_t)K * BAL_REST_MOST * (size_t)s;
    for (int i = 0; i < r->nstep[s]; i++) {
        int c = count[st[i].group];
        if (c == 0)
            continue;
        if (c * st[i].save >= over)
            return time + over * st[i].cost;
        time += c * st[i].time;
        over -= c * st[i].save;
    }
    /* every layer at its fewest bytes and still over: none fits (beyond rounding) */
    return over <= 1e-9 * need ? time : INFINITY;
}

void bal_rest_free(bal_rest *r)
{
    free(r->stat);
    free(r->step);
    free(r->nstep);
    memset(r, 0, sizeof *r);
}
