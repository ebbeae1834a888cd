/* balance_sapp_front.c: the SAPP-PPB balancer's option mixes and, per
 * stage and chunk counts (c0, c1), the Pareto front over T_s of the least
 * W_s + C_s among the mixes within memory (balance_sapp.c). */
#include "balance_sapp_solver.h"

#include <stdlib.h>
#include <string.h>

static double bwd_of(const sapp *z, int i) { return z->p->layer.time[z->opt[i]] - z->fwd; }

typedef struct {
    double B, A;
    int i;
} mixkey;

static int cmp_mixkey(const void *a, const void *b)
{
    const mixkey *x = a, *y = b;
    if (x->B != y->B)
        return x->B < y->B ? -1 : 1;
    if (x->A != y->A)
        return x->A < y->A ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int build_mixes(sapp *z, int c)
{
    mixes *mx = &z->mx[c];
    if (mx->x != NULL || c < 0)
        return 0;
    /* count: C(c + nopt − 1, nopt − 1) */
    double total = 1;
    for (int i = 1; i < z->nopt; i++)
        total = total * (c + i) / i;
    if (total > 5e6)
        return -1;
    mx->n = (int)(total + 0.5);
    mx->x = malloc(sizeof(int) * (size_t)mx->n * (size_t)z->nopt + 1);
    if (mx->x == NULL)
        return -1;
    int k = 0, *cur = calloc((size_t)z->nopt, sizeof(int));
    if (cur == NULL)
        return -1;
    cur[z->nopt - 1] = c; /* walk every composition of c into nopt parts */
    for (;;) {
        memcpy(mx->x + (size_t)k * (size_t)z->nopt, cur, sizeof(int) * (size_t)z->nopt);
        k++;
        int j = z->nopt - 2;
        /* next composition: move one from the last part to position j, reset the tail */
        while (j >= 0) {
            int rest = 0;
            for (int i = j + 1; i < z->nopt; i++)
                rest += cur[i];
            if (rest > 0) {
                cur[j]++;
                for (int i = j + 1; i < z->nopt; i++)
                    cur[i] = 0;
                cur[z->nopt - 1] = rest - 1;
                break;
            }
            j--;
        }
        if (j < 0)
            break;
    }
    free(cur);
    mx->n = k;
    if (!z->monotone)
        return 0;
    /* Keep a mix only if no other has both fewer activations and less
     * backward (memory, time and cost all grow with each). */
    mixkey *key = malloc(sizeof *key * (size_t)k);
    int *kept = malloc(sizeof(int) * (size_t)k * (size_t)z->nopt + 1);
    if (key == NULL || kept == NULL) {
        free(key);
        free(kept);
        return -1;
    }
    for (int i = 0; i < k; i++) {
        const int *x = mx->x + (size_t)i * (size_t)z->nopt;
        key[i].A = key[i].B = 0;
        key[i].i = i;
        for (int o = 0; o < z->nopt; o++) {
            key[i].A += x[o] * z->p->layer.act[z->opt[o]];
            key[i].B += x[o] * bwd_of(z, o);
        }
    }
    qsort(key, (size_t)k, sizeof *key, cmp_mixkey);
    int n = 0;
    double least = INFINITY;
    for (int i = 0; i < k; i++)
        if (key[i].A < least) {
            least = key[i].A;
            memcpy(kept + (size_t)n * (size_t)z->nopt, mx->x + (size_t)key[i].i * (size_t)z->nopt,
                   sizeof(int) * (size_t)z->nopt);
            n++;
        }
    free(mx->x);
    free(key);
    mx->x = kept;
    mx->n = n;
    return 0;
}

typedef struct {
    double need, cost;
    int m0, m1;
} entry;

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->need != y->need)
        return x->need < y->need ? -1 : 1;
    return (x->cost > y->cost) - (x->cost < y->cost);
}

/* Adds mix x's activations, forward + backward and backward seconds to *A, *W, *B. */
static void add_mix(const sapp *z, const int *x, double *A, double *W, double *B)
{
    for (int o = 0; o < z->nopt; o++) {
        *A += x[o] * z->p->layer.act[z->opt[o]];
        *W += x[o] * z->p->layer.time[z->opt[o]];
        *B += x[o] * bwd_of(z, o);
    }
}

/* The Pareto front of stage s holding c0 (and c1) body layers. */
int sapp_build_front(sapp *z, int s, int c0, int c1, front **out)
{
    const bal_problem *p = z->p;
    int S = z->S, I = z->I, N = z->N;
    front *f = &z->fr[((size_t)s * (size_t)(N + 1) + (size_t)c0) * (size_t)(N + 1) + (size_t)c1];
    *out = f;
    if (f->built)
        return 0;
    f->built = 1;
    const bal_pinned *pin0 = NULL, *pin1 = NULL;
    int has0 = sapp_pinned_in(p, 0, s, &pin0), has1 = I == 2 && sapp_pinned_in(p, 1, s, &pin1);
    if ((c0 < 1 && !has0) || (I == 2 && c1 < 1 && !has1) || (I == 1 && c1 != 0))
        return 0;
    double n0 = p->inflight[s], n1 = I == 2 ? p->inflight[S + s] : 0, ov = sapp_overhead(p, s);
    double base = sapp_fixed_stat(p, s) + (c0 + c1) * p->layer.stat;
    if (has0)
        base += pin0->act * n0;
    if (has1)
        base += pin1->act * n1;
    if (z->monotone) { /* every layer at the least activations must fit, else nothing does */
        double a = INFINITY;
        for (int o = 0; o < z->nopt; o++)
            a = p->layer.act[z->opt[o]] < a ? p->layer.act[z->opt[o]] : a;
        double d = (c0 - c1) * a;
        if (!sapp_fits(base + n0 * c0 * a + n1 * c1 * a + (I == 2 && d > 0 ? ov * d : 0), p->limit))
            return 0;
    }
    if (build_mixes(z, c0) != 0 || build_mixes(z, c1) != 0)
        return -1;
    double F0 = c0 * z->fwd + (has0 ? pin0->fwd : 0), F1 = I == 2 ? c1 * z->fwd + (has1 ? pin1->fwd : 0) : 0;
    double pb0 = has0 ? pin0->time - pin0->fwd : 0, pb1 = has1 ? pin1->time - pin1->fwd : 0;
    double pw0 = has0 ? pin0->time : 0, pw1 = has1 ? pin1->time : 0;
    double fmax = F0 > F1 ? F0 : F1, cw = I == 2 ? 1.0 / S : 0;
    int level2 = p->sapp_level >= 2;
    const mixes *a = &z->mx[c0], *b = &z->mx[c1];
    size_t cap = 64, n = 0;
    entry *e = malloc(sizeof *e * cap);
    if (e == NULL)
        return -1;
    for (int i = 0; i < a->n; i++) {
        double A0 = 0, W0 = pw0, B0 = pb0;
        add_mix(z, a->x + (size_t)i * (size_t)z->nopt, &A0, &W0, &B0);
        for (int j = 0; j < b->n; j++) {
            double A1 = 0, W1 = pw1, B1 = pb1;
            add_mix(z, b->x + (size_t)j * (size_t)z->nopt, &A1, &W1, &B1);
            double d = A0 - A1, mem = base + n0 * A0 + n1 * A1 + (I == 2 ? ov * (d > 0 ? d : 0) : 0);
            if (!sapp_fits(mem, p->limit))
                continue;
            if (n == cap) {
                entry *g = realloc(e, sizeof *e * cap * 2);
                if (g == NULL) {
                    free(e);
                    return -1;
                }
                e = g;
                cap *= 2;
            }
            e[n].need = fmax + (B0 > B1 ? B0 : B1);
            e[n].cost = level2 ? W0 + W1 + cw * W0 : 0;
            e[n].m0 = i;
            e[n].m1 = j;
            n++;
        }
    }
    qsort(e, n, sizeof *e, cmp_entry);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || e[i].cost < e[k - 1].cost)
            e[k++] = e[i];
    f->n = (int)k;
    f->need = malloc(sizeof(double) * (k + 1));
    f->cost = malloc(sizeof(double) * (k + 1));
    f->mix0 = malloc(sizeof(int) * (k + 1));
    f->mix1 = malloc(sizeof(int) * (k + 1));
    if (!f->need || !f->cost || !f->mix0 || !f->mix1) {
        free(e);
        return -1;
    }
    for (size_t i = 0; i < k; i++) {
        f->need[i] = e[i].need;
        f->cost[i] = e[i].cost;
        f->mix0[i] = e[i].m0;
        f->mix1[i] = e[i].m1;
    }
    free(e);
    return 0;
}

/* The entry of f a bound B allows at least cost: the last with need ≤ B, or −1. */
int sapp_front_at(const front *f, double B)
{
    int lo = 0, hi = f->n - 1, at = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (f->need[mid] <= B) {
            at = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return at;
}

/* Every distinct need of the built fronts within [lo, hi], sorted. */
int sapp_needs_between(const sapp *z, int K, double lo, double hi, double **out, int *n_out)
{
    size_t cap = 256, n = 0;
    double *v = malloc(sizeof(double) * cap);
    if (v == NULL)
        return -1;
    for (int s = 0; s < z->S; s++)
        for (int c0 = 0; c0 <= K; c0++)
            for (int c1 = 0; c1 <= (z->I == 2 ? K : 0); c1++) {
                const front *f = &z->fr[((size_t)s * (size_t)(z->N + 1) + (size_t)c0) * (size_t)(z->N + 1) + (size_t)c1];
                for (int i = 0; i < f->n; i++) {
                    if (f->need[i] < lo || f->need[i] > hi)
                        continue;
                    if (n == cap) {
                        double *g = realloc(v, sizeof(double) * cap * 2);
                        if (g == NULL) {
                            free(v);
                            return -1;
                        }
                        v = g;
                        cap *= 2;
                    }
                    v[n++] = f->need[i];
                }
            }
    qsort(v, n, sizeof(double), sapp_cmp_double);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || v[i] != v[u - 1])
            v[u++] = v[i];
    *out = v;
    *n_out = (int)u;
    return 0;
}

/* Builds every front a bound B reaches (counts up to sapp_kcap(B)). */
int sapp_build_all(sapp *z, int K)
{
    for (int s = 0; s < z->S; s++)
        for (int c0 = 0; c0 <= K; c0++)
            for (int c1 = 0; c1 <= (z->I == 2 ? K : 0); c1++) {
                front *f;
                if (sapp_build_front(z, s, c0, c1, &f) != 0)
                    return -1;
            }
    return 0;
}
