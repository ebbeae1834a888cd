/* balance_sapp_bound.c: the SAPP-PPB balancer at one bound B on T_max and
 * over the bounds (balance_sapp.c): a dynamic program over the stages, run
 * from the last, for the least W + C + P + Q with every T_s ≤ B, and the
 * halving of the bounds between the least feasible one and the largest that
 * could win (-O 2). */
#include "balance_sapp_solver.h"

#include <stdlib.h>
#include <string.h>

/* Largest body count a cell can hold when no stage may take longer than B. */
int sapp_kcap(const sapp *z, double B)
{
    double per = z->min_time; /* forward + least backward of one layer */
    if (per <= 0)
        return z->N;
    double k = floor(B / per);
    return k >= z->N ? z->N : k < 0 ? 0 : (int)k;
}

static int m_index(const dpwork *w, double F)
{
    int lo = 0, hi = w->nM - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (w->Mv[mid] < F)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int sapp_dp_prepare(sapp *z, dpwork *w, int K)
{
    const bal_problem *p = z->p;
    int S = z->S, I = z->I, N = z->N;
    free(w->Mv);
    free(w->dp);
    free(w->pick);
    free(w->ch);
    w->dp = NULL;
    w->pick = NULL;
    w->ch = malloc(sizeof(choice) * (size_t)(K + 1) * (size_t)(K + 1));
    w->Mv = malloc(sizeof(double) * (size_t)S * (size_t)(K + 1));
    if (w->Mv == NULL || w->ch == NULL)
        return -1;
    int n = 0;
    for (int s = 0; s < S; s++) {
        const bal_pinned *pin;
        double pf = sapp_pinned_in(p, I - 1, s, &pin) ? pin->fwd : 0;
        for (int c = 0; c <= K; c++)
            w->Mv[n++] = c * z->fwd + pf;
    }
    qsort(w->Mv, (size_t)n, sizeof(double), sapp_cmp_double);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || w->Mv[i] != w->Mv[u - 1])
            w->Mv[u++] = w->Mv[i];
    w->nM = u;
    w->nP = I == 2 ? K + 1 : 1;
    size_t states = (size_t)(N + 1) * (size_t)w->nM * (size_t)w->nP;
    w->dp = malloc(sizeof(double) * states * (size_t)S);
    w->pick = malloc(sizeof(int64_t) * states * (size_t)S);
    return w->dp == NULL || w->pick == NULL ? -1 : 0;
}

/* Least W + C + P + Q with every T_s ≤ B (INFINITY if none); with count
 * non-NULL the plan goes there and *tmax gets its slowest stage. */
int sapp_dp_run(sapp *z, dpwork *w, double B, int K, double *out, int *count, double *tmax)
{
    const bal_problem *p = z->p;
    int S = z->S, I = z->I, N = z->N, nM = w->nM, nP = w->nP;
    double m = p->micro;
    size_t per_u = (size_t)nM * (size_t)nP, states = (size_t)(N + 1) * per_u;
    for (size_t i = 0; i < states * (size_t)S; i++) {
        w->dp[i] = INFINITY;
        w->pick[i] = -1;
    }
    int K1 = I == 2 ? K : 0;
    for (int s = S - 1; s >= 0; s--) {
        double *cur = w->dp + (size_t)s * states;
        int64_t *pk = w->pick + (size_t)s * states;
        const double *nxt = s + 1 < S ? w->dp + (size_t)(s + 1) * states : NULL;
        const bal_pinned *pin;
        double pf = sapp_pinned_in(p, I - 1, s, &pin) ? pin->fwd : 0;
        /* the chunk counts this stage may take under B, with their least cost */
        int nch = 0;
        for (int c0 = 0; c0 <= K; c0++)
            for (int c1 = 0; c1 <= K1; c1++) {
                front *f;
                if (sapp_build_front(z, s, c0, c1, &f) != 0)
                    return -1;
                int at = sapp_front_at(f, B);
                if (at < 0)
                    continue;
                choice *ch = &w->ch[nch++];
                ch->c0 = c0;
                ch->c1 = c1;
                ch->g = f->cost[at];
                ch->Fl = (I == 2 ? c1 : c0) * z->fwd + pf;
                ch->Mi = m_index(w, ch->Fl);
            }
        if (nxt == NULL) { /* the last stage: its own forward starts the later maximum */
            for (int i = 0; i < nch; i++) {
                const choice *ch = &w->ch[i];
                int here = ch->c0 + ch->c1;
                if (here > N)
                    continue;
                int64_t code = (int64_t)ch->c0 * (N + 1) + ch->c1;
                for (int P = 0; P < nP; P++) {
                    if (s == 0 && I == 2 && P != ch->c0)
                        continue;
                    double pen = (I == 2 && s > 0 && P > ch->c0) ? m * z->fwd * (P - ch->c0) : 0;
                    size_t st = (size_t)here * per_u + (size_t)ch->Mi * (size_t)nP + (size_t)P;
                    if (ch->g + pen < cur[st]) {
                        cur[st] = ch->g + pen;
                        pk[st] = code * (int64_t)per_u;
                    }
                }
            }
            continue;
        }
        for (int u2 = 0; u2 <= N; u2++)
            for (int Mi = 0; Mi < nM; Mi++)
                for (int P2 = 0; P2 < nP; P2++) {
                    double v = nxt[(size_t)u2 * per_u + (size_t)Mi * (size_t)nP + (size_t)P2];
                    if (v == INFINITY)
                        continue;
                    for (int i = 0; i < nch; i++) {
                        const choice *ch = &w->ch[i];
                        int c0 = ch->c0, here = c0 + ch->c1;
                        if (u2 + here > N)
                            continue;
                        /* P2 = max(P, c0): P the claim before this stage */
                        int lo, hi;
                        if (I != 2) {
                            lo = hi = 0;
                        } else if (s == 0) {
                            if (c0 != P2)
                                continue;
                            lo = hi = 0; /* nothing before stage 0 */
                        } else if (c0 < P2) {
                            lo = hi = P2;
                        } else if (c0 == P2) {
                            lo = 0;
                            hi = P2;
                        } else {
                            continue;
                        }
                        double qpen = w->Mv[Mi] > ch->Fl ? m * (w->Mv[Mi] - ch->Fl) : 0;
                        int Mnew = w->Mv[Mi] > ch->Fl ? Mi : ch->Mi;
                        int64_t code = (int64_t)c0 * (N + 1) + ch->c1;
                        for (int P = lo; P <= hi; P++) {
                            double pen = (I == 2 && s > 0 && P > c0) ? m * z->fwd * (P - c0) : 0;
                            double tot = v + ch->g + qpen + pen;
                            size_t st = (size_t)(u2 + here) * per_u + (size_t)Mnew * (size_t)nP + (size_t)P;
                            if (tot < cur[st]) {
                                cur[st] = tot;
                                pk[st] = code * (int64_t)per_u + Mi * nP + P2;
                            }
                        }
                    }
                }
    }
    /* stage 0 with all N placed */
    double best = INFINITY;
    size_t best_st = 0;
    for (size_t r = 0; r < per_u; r++) {
        size_t st = (size_t)N * per_u + r;
        if (w->dp[st] < best) {
            best = w->dp[st];
            best_st = st;
        }
    }
    *out = best;
    if (count == NULL || best == INFINITY)
        return 0;
    *tmax = 0;
    size_t st = best_st;
    for (int s = 0; s < S; s++) {
        int64_t code = w->pick[(size_t)s * states + st];
        int64_t c01 = code / (int64_t)per_u, rest = code % (int64_t)per_u;
        int c0 = (int)(c01 / (N + 1)), c1 = (int)(c01 % (N + 1));
        front *f;
        if (sapp_build_front(z, s, c0, c1, &f) != 0)
            return -1;
        int at = sapp_front_at(f, B);
        *tmax = f->need[at] > *tmax ? f->need[at] : *tmax;
        const int *x0 = z->mx[c0].x + (size_t)f->mix0[at] * (size_t)z->nopt;
        const int *x1 = z->mx[c1].x + (size_t)f->mix1[at] * (size_t)z->nopt;
        for (int o = 0; o < z->nopt; o++) {
            count[s * BAL_OPTIONS + z->opt[o]] += x0[o];
            if (I == 2)
                count[(S + s) * BAL_OPTIONS + z->opt[o]] += x1[o];
        }
        int u = (int)(st / per_u) - c0 - c1;
        st = (size_t)u * per_u + (size_t)rest;
    }
    return 0;
}

/* The bounds cand[a..b] above the least feasible one (-O 2), gb a lower
 * bound on the least W + C + P + Q within bound cand[b]. That least only falls
 * as the bound rises, so every plan whose slowest stage is cand[k], a ≤ k ≤ b,
 * costs at least gb + weight·cand[a]: an interval that cannot beat *best is
 * passed over whole; else its middle bound is tried (the plan found there may
 * be the best) and its two halves follow, the lower first, the upper keeping
 * gb, the lower taking the middle's least (at least as high). 0, or −1. */
int sapp_try_interval(sapp *z, dpwork *w, const double *cand, int a, int b, double gb, double weight, int K,
                        int *scratch, bal_plan *out, double *best)
{
    if (a > b || gb + weight * cand[a] >= *best)
        return 0;
    int mid = a + (b - a) / 2;
    double v, t;
    out->explored++;
    memset(scratch, 0, sizeof(int) * (size_t)z->S * (size_t)z->I * BAL_OPTIONS);
    if (sapp_dp_run(z, w, cand[mid], K, &v, scratch, &t) != 0)
        return -1;
    if (v != INFINITY && v + weight * t < *best) {
        *best = v + weight * t;
        memcpy(out->count, scratch, sizeof(int) * (size_t)z->S * (size_t)z->I * BAL_OPTIONS);
    }
    if (sapp_try_interval(z, w, cand, a, mid - 1, v > gb ? v : gb, weight, K, scratch, out, best) != 0)
        return -1;
    return sapp_try_interval(z, w, cand, mid + 1, b, gb, weight, K, scratch, out, best);
}
