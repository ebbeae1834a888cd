/* balance_sapp.c: the balancer under SAPP-PPB's objective and memory rule
 * (the reference's -O 0, 1, 2 for one or two chunks, as its digest and its
 * LP files state them), exact.
 *
 * The rule, per stage s with chunk counts c_v, activations A_v = Σ x_r·act_r
 * of its body layers, work W_v, forward F_v and backward B_v (pinned layers
 * in their chunk):
 *   memory  = parameters (+ head on stage 0, tail on its stage and, the
 *             reference's quirk, on stage 0 too) + Σ_v n_v·A_v
 *             + f_s·max(0, A_0 − A_1)          (f_s the interleave overhead)
 *   T_s     = max_v F_v + max_v B_v            (every forward/backward pair)
 *   -O 0/1: max_s T_s
 *   -O 2:   W + C + P + Q + (m − 2)·max_s T_s, where W is all the work, C the
 *           first chunk's work / S (two chunks), P = m·Σ_{s≥1} of the first
 *           chunk's body forward below its running maximum over the earlier
 *           stages (two chunks), Q = m·Σ_{s<S−1} of the last chunk's forward
 *           below its maximum over the later stages.
 * The solver bounds T_max by B; for each stage and chunk counts the least
 * W_s + C_s over the option mixes within memory and B is a table (its
 * Pareto front over T_s); a dynamic program over the stages, run from the
 * last, carries the layers placed, the later stages' largest last-chunk
 * forward (for Q) and a claimed largest first-chunk count of the earlier
 * stages (for P, checked as the stages are added). B runs over the values
 * the tables hold, upward, until the bound L + (m − 2)·B passes the best,
 * L the least W + C + P + Q at the largest B that could still win; at -O 2
 * the values between are tried by halving (sapp_try_interval), an interval passed
 * over whole when the least W + C + P + Q at its top (which only falls as B
 * rises) plus (m − 2)·its bottom cannot beat the best.
 *
 * This file is the driver (the options, whether any plan fits, the first
 * feasible bound, the least, the bounds above it); balance_sapp_rule.c holds
 * the rule and bal_evaluate_sapp, balance_sapp_front.c the option mixes and
 * the per-stage fronts, balance_sapp_bound.c the program at one bound and
 * the halving; balance_sapp_solver.h what they share. */
#include "balance_sapp_solver.h"

#include "balance_solvers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void pick_options(sapp *z)
{
    const bal_layer *l = &z->p->layer;
    z->nopt = bal_undominated_options(l, z->monotone, z->opt);
    z->min_time = INFINITY;
    for (int i = 0; i < z->nopt; i++)
        if (l->time[z->opt[i]] < z->min_time)
            z->min_time = l->time[z->opt[i]];
}

static void sapp_free(sapp *z, dpwork *w)
{
    if (z->fr != NULL) {
        size_t n = (size_t)z->S * (size_t)(z->N + 1) * (size_t)(z->N + 1);
        for (size_t i = 0; i < n; i++) {
            free(z->fr[i].need);
            free(z->fr[i].cost);
            free(z->fr[i].mix0);
            free(z->fr[i].mix1);
        }
    }
    free(z->fr);
    if (z->mx != NULL)
        for (int c = 0; c <= z->N; c++)
            free(z->mx[c].x);
    free(z->mx);
    free(w->Mv);
    free(w->dp);
    free(w->pick);
    free(w->ch);
}

int bal_solve_sapp(const bal_problem *p, bal_plan *out)
{
    sapp z;
    dpwork w;
    memset(&z, 0, sizeof z);
    memset(&w, 0, sizeof w);
    z.p = p;
    z.S = p->stages;
    z.I = p->chunks;
    z.N = p->body;
    z.fwd = p->layer.fwd;
    int rc = -1, S = z.S, I = z.I;
    double m = p->micro, *cand = NULL;
    int *scratch = NULL;
    if (I > 2 || (I == 2 && p->micro == S && p->sapp_level >= 1))
        return -1; /* not reproduced: three or more chunks, the reference's m = S bound */
    z.monotone = 1;
    for (int s = 0; s < S && I == 2; s++)
        if (p->inflight[S + s] < sapp_overhead(p, s))
            z.monotone = 0; /* fewer second-chunk activations could grow the overhead */
    pick_options(&z);
    z.mx = calloc((size_t)z.N + 1, sizeof(mixes));
    z.fr = calloc((size_t)S * (size_t)(z.N + 1) * (size_t)(z.N + 1), sizeof(front));
    out->count = calloc((size_t)S * (size_t)I * BAL_OPTIONS, sizeof(int));
    out->stage_time = calloc((size_t)S, sizeof(double));
    out->stage_mem = calloc((size_t)S, sizeof(double));
    scratch = calloc((size_t)S * (size_t)I * BAL_OPTIONS, sizeof(int));
    if (!z.mx || !z.fr || !out->count || !out->stage_time || !out->stage_mem || !scratch)
        goto done;
    if (z.monotone) { /* 0. whether any plan fits: every layer at the least activations */
        int least_sum = 0, most_sum = 0;
        double a_min = INFINITY;
        for (int i = 0; i < z.nopt; i++)
            a_min = p->layer.act[z.opt[i]] < a_min ? p->layer.act[z.opt[i]] : a_min;
        for (int s = 0; s < S; s++) {
            const bal_pinned *pin;
            int l0 = sapp_pinned_in(p, 0, s, &pin) ? 0 : 1, l1 = I == 2 && !sapp_pinned_in(p, 1, s, &pin) ? 1 : 0;
            double n0 = p->inflight[s], n1 = I == 2 ? p->inflight[S + s] : 0, ov = sapp_overhead(p, s);
            double base = sapp_fixed_stat(p, s) + (p->head.present && s == 0 ? p->head.act * n0 : 0) +
                          (p->tail.present && s == p->tail_stage ? p->tail.act * (I == 2 ? n1 : n0) : 0);
            int most_here = -1;
            for (int c0 = l0; c0 <= z.N; c0++)
                for (int c1 = l1; c1 <= (I == 2 ? z.N : 0) && c0 + c1 <= z.N; c1++) {
                    double d = (c0 - c1) * a_min;
                    double mem = base + (c0 + c1) * p->layer.stat + n0 * c0 * a_min + n1 * c1 * a_min +
                                 (I == 2 && d > 0 ? ov * d : 0);
                    if (sapp_fits(mem, p->limit) && c0 + c1 > most_here)
                        most_here = c0 + c1;
                }
            if (most_here < 0) {
                double d = (l0 - l1) * a_min;
                out->bad_stage = s;
                out->bad_need = base + (l0 + l1) * p->layer.stat + n0 * l0 * a_min + n1 * l1 * a_min +
                                (I == 2 && d > 0 ? ov * d : 0);
                out->optimal = 1;
                rc = 0;
                goto done;
            }
            least_sum += l0 + l1;
            most_sum += most_here;
        }
        if (z.N < least_sum || z.N > most_sum) {
            out->capacity = z.N < least_sum ? least_sum : most_sum;
            out->optimal = 1;
            rc = 0;
            goto done;
        }
    }
    double level2 = p->sapp_level >= 2 ? m - 2 : 0, weight = p->sapp_level >= 2 ? m - 2 : 1;
    /* 1. the first feasible bound, by doubling: K layers a cell at most */
    double B = z.min_time * ((z.N + S * I - 1) / (S * I) + 1), val = INFINITY;
    int K = 0;
    double most = 0; /* no stage can take longer: every layer at its slowest, both pinned */
    for (int r = 0; r < BAL_OPTIONS; r++)
        if ((p->layer.offered & (1u << r)) && p->layer.time[r] > most)
            most = p->layer.time[r];
    most = most * z.N + (p->head.present ? p->head.time : 0) + (p->tail.present ? p->tail.time : 0);
    if (B <= 0)
        B = 1;
    for (;;) {
        if (B > most)
            B = most;
        K = sapp_kcap(&z, B);
        if (sapp_dp_prepare(&z, &w, K) != 0 || sapp_dp_run(&z, &w, B, K, &val, NULL, NULL) != 0)
            goto done;
        if (val != INFINITY || B >= most)
            break;
        B *= 2;
    }
    if (val == INFINITY) { /* no bound helps: no plan; name a stage that cannot hold its least */
        out->optimal = 1;
        for (int s = 0; s < S && out->bad_stage < 0; s++) {
            int least0 = 1, least1 = I == 2 ? 1 : 0;
            const bal_pinned *pin;
            if (sapp_pinned_in(p, 0, s, &pin))
                least0 = 0;
            if (I == 2 && sapp_pinned_in(p, 1, s, &pin))
                least1 = 0;
            front *f;
            if (sapp_build_front(&z, s, least0, least1, &f) != 0)
                goto done;
            if (f->n == 0) {
                double a_min = INFINITY;
                for (int i = 0; i < z.nopt; i++)
                    a_min = p->layer.act[z.opt[i]] < a_min ? p->layer.act[z.opt[i]] : a_min;
                out->bad_stage = s;
                out->bad_need = sapp_fixed_stat(p, s) + (least0 + least1) * p->layer.stat +
                                least0 * p->inflight[s] * a_min + (I == 2 ? least1 * p->inflight[S + s] * a_min : 0);
            }
        }
        if (out->bad_stage < 0)
            out->capacity = -1;
        rc = 0;
        goto done;
    }
    /* 2. the least feasible need: feasibility only grows with B */
    int nc = 0;
    if (sapp_build_all(&z, K) != 0 || sapp_needs_between(&z, K, 0, B, &cand, &nc) != 0)
        goto done;
    int lo = 0, hi = nc - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        double v;
        if (sapp_dp_run(&z, &w, cand[mid], K, &v, NULL, NULL) != 0)
            goto done;
        if (v != INFINITY)
            hi = mid;
        else
            lo = mid + 1;
    }
    double B1 = cand[lo], best = INFINITY, tmax;
    free(cand);
    cand = NULL;
    if (sapp_dp_run(&z, &w, B1, K, &val, out->count, &tmax) != 0)
        goto done;
    best = val + level2 * tmax;
    out->explored = 1;
    if (p->sapp_level >= 2) {
        /* 3. upward from B1 while L + (m − 2)·B can beat the best; L is the least
         * W + C + P + Q at the largest B that still could (a lower bound for
         * every plan at or below it; W_min bounds those above) */
        double wmin = z.N * z.min_time;
        if (p->head.present)
            wmin += p->head.time;
        if (p->tail.present)
            wmin += p->tail.time;
        double Bhi = (best - wmin) / weight;
        int Khi = sapp_kcap(&z, Bhi);
        if (Khi < K)
            Khi = K;
        double L;
        if (sapp_dp_prepare(&z, &w, Khi) != 0 || sapp_dp_run(&z, &w, Bhi, Khi, &L, NULL, NULL) != 0)
            goto done;
        if (sapp_build_all(&z, Khi) != 0 || sapp_needs_between(&z, Khi, B1, Bhi, &cand, &nc) != 0)
            goto done;
        if (sapp_try_interval(&z, &w, cand, 0, nc - 1, L, weight, Khi, scratch, out, &best) != 0)
            goto done;
    }
    out->feasible = 1;
    out->optimal = 1;
    bal_evaluate_sapp(p, out->count, &out->objective, out->stage_time, out->stage_mem);
    rc = 0;
done:
    free(cand);
    free(scratch);
    sapp_free(&z, &w);
    return rc;
}
