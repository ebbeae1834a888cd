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
 * the values between are tried by halving (try_interval), an interval passed
 * over whole when the least W + C + P + Q at its top (which only falls as B
 * rises) plus (m − 2)·its bottom cannot beat the best. */
#include "balance_solvers.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int fits(double need, double limit) { return need <= limit + fabs(limit) * 1e-12; }

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

static double bwd_of(const sapp *z, int i) { return z->p->layer.time[z->opt[i]] - z->fwd; }

/* The interleave overhead factor of stage s (none with one chunk or m = S). */
static double overhead(const bal_problem *p, int s)
{
    int S = p->stages;
    if (p->chunks != 2 || p->micro == S)
        return 0;
    if (p->sapp_less_memory)
        return abs(S - s);
    return S - abs(S - 2 * s - 1);
}

/* The cell's pinned layer (the head where one cell holds both, as the rule reads it). */
static int pinned_in(const bal_problem *p, int v, int s, const bal_pinned **out)
{
    const bal_pinned *pin[2];
    int n = bal_pinned_at(p, v, s, pin);
    *out = pin[0];
    return n > 0;
}

/* Parameters fixed on stage s: the head's, the tail's, and the tail's again on stage 0. */
static double fixed_stat(const bal_problem *p, int s)
{
    double m = 0;
    if (p->head.present && s == 0)
        m += p->head.stat;
    if (p->tail.present && s == p->tail_stage)
        m += p->tail.stat;
    if (p->tail.present && s == 0 && p->stages > 1 && p->tail_stage != 0)
        m += p->tail.stat;
    return m;
}

/* Per stage and chunk of a plan: what the rule reads. */
typedef struct {
    double A, W, F, Fb, B;
    int c;
} cell_sum;

static void cell_of_plan(const bal_problem *p, const int *count, int v, int s, cell_sum *cs)
{
    memset(cs, 0, sizeof *cs);
    int c = v * p->stages + s;
    for (int r = 0; r < BAL_OPTIONS; r++) {
        int x = count[c * BAL_OPTIONS + r];
        cs->c += x;
        cs->A += x * p->layer.act[r];
        cs->W += x * p->layer.time[r];
        cs->B += x * (p->layer.time[r] - p->layer.fwd);
    }
    cs->Fb = cs->c * p->layer.fwd;
    cs->F = cs->Fb;
    const bal_pinned *pin;
    if (pinned_in(p, v, s, &pin)) {
        cs->W += pin->time;
        cs->F += pin->fwd;
        cs->B += pin->time - pin->fwd;
    }
}

int bal_evaluate_sapp(const bal_problem *p, const int *count, double *objective, double *stage_time,
                      double *stage_mem)
{
    int S = p->stages, I = p->chunks, bad = 0, total = 0;
    double m = p->micro, W = 0, C = 0, P = 0, Q = 0, tmax = 0;
    for (int s = 0; s < S; s++) {
        cell_sum cs[2];
        double mem = fixed_stat(p, s), fmax = 0, bmax = 0, w = 0;
        for (int v = 0; v < I; v++) {
            const bal_pinned *pin;
            cell_of_plan(p, count, v, s, &cs[v]);
            double n = p->inflight[v * S + s];
            mem += cs[v].c * p->layer.stat + n * cs[v].A;
            if (pinned_in(p, v, s, &pin))
                mem += pin->act * n;
            else if (cs[v].c < 1)
                bad = 1;
            total += cs[v].c;
            w += cs[v].W;
            fmax = cs[v].F > fmax ? cs[v].F : fmax;
            bmax = cs[v].B > bmax ? cs[v].B : bmax;
        }
        if (I == 2) {
            double d = cs[0].A - cs[1].A;
            mem += overhead(p, s) * (d > 0 ? d : 0);
            C += cs[0].W / S;
        }
        stage_time[s] = fmax + bmax;
        stage_mem[s] = mem;
        tmax = stage_time[s] > tmax ? stage_time[s] : tmax;
        W += w;
        if (!fits(mem, p->limit))
            bad = 1;
    }
    if (I == 2) { /* P: the first chunk's body forward below the running maximum of the earlier stages */
        cell_sum cs;
        double run = 0;
        for (int s = 0; s < S; s++) {
            cell_of_plan(p, count, 0, s, &cs);
            if (s > 0 && run > cs.Fb)
                P += m * (run - cs.Fb);
            run = cs.Fb > run ? cs.Fb : run;
        }
    }
    { /* Q: the last chunk's forward below the maximum of the later stages */
        cell_sum cs;
        double run = 0;
        for (int s = S - 1; s >= 0; s--) {
            cell_of_plan(p, count, I - 1, s, &cs);
            if (s < S - 1 && run > cs.F)
                Q += m * (run - cs.F);
            run = cs.F > run ? cs.F : run;
        }
    }
    for (int r = 0; r < BAL_OPTIONS; r++)
        for (int c = 0; c < S * I; c++)
            if (count[c * BAL_OPTIONS + r] != 0 && (count[c * BAL_OPTIONS + r] < 0 || !(p->layer.offered & (1u << r))))
                bad = 1;
    if (total != p->body)
        bad = 1;
    *objective = p->sapp_level >= 2 ? W + C + P + Q + (m - 2) * tmax : tmax;
    return bad;
}

/* ---- the solver ---- */

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
static int build_front(sapp *z, int s, int c0, int c1, front **out)
{
    const bal_problem *p = z->p;
    int S = z->S, I = z->I, N = z->N;
    front *f = &z->fr[((size_t)s * (size_t)(N + 1) + (size_t)c0) * (size_t)(N + 1) + (size_t)c1];
    *out = f;
    if (f->built)
        return 0;
    f->built = 1;
    const bal_pinned *pin0 = NULL, *pin1 = NULL;
    int has0 = pinned_in(p, 0, s, &pin0), has1 = I == 2 && pinned_in(p, 1, s, &pin1);
    if ((c0 < 1 && !has0) || (I == 2 && c1 < 1 && !has1) || (I == 1 && c1 != 0))
        return 0;
    double n0 = p->inflight[s], n1 = I == 2 ? p->inflight[S + s] : 0, ov = overhead(p, s);
    double base = fixed_stat(p, s) + (c0 + c1) * p->layer.stat;
    if (has0)
        base += pin0->act * n0;
    if (has1)
        base += pin1->act * n1;
    if (z->monotone) { /* every layer at the least activations must fit, else nothing does */
        double a = INFINITY;
        for (int o = 0; o < z->nopt; o++)
            a = p->layer.act[z->opt[o]] < a ? p->layer.act[z->opt[o]] : a;
        double d = (c0 - c1) * a;
        if (!fits(base + n0 * c0 * a + n1 * c1 * a + (I == 2 && d > 0 ? ov * d : 0), p->limit))
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
            if (!fits(mem, p->limit))
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
static int front_at(const front *f, double B)
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

/* Largest body count a cell can hold when no stage may take longer than B. */
static int kcap(const sapp *z, double B)
{
    double per = z->min_time; /* forward + least backward of one layer */
    if (per <= 0)
        return z->N;
    double k = floor(B / per);
    return k >= z->N ? z->N : k < 0 ? 0 : (int)k;
}

/* ---- the dynamic program at one bound ---- */

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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int dp_prepare(sapp *z, dpwork *w, int K)
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
        double pf = pinned_in(p, I - 1, s, &pin) ? pin->fwd : 0;
        for (int c = 0; c <= K; c++)
            w->Mv[n++] = c * z->fwd + pf;
    }
    qsort(w->Mv, (size_t)n, sizeof(double), cmp_double);
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
static int dp_run(sapp *z, dpwork *w, double B, int K, double *out, int *count, double *tmax)
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
        double pf = pinned_in(p, I - 1, s, &pin) ? pin->fwd : 0;
        /* the chunk counts this stage may take under B, with their least cost */
        int nch = 0;
        for (int c0 = 0; c0 <= K; c0++)
            for (int c1 = 0; c1 <= K1; c1++) {
                front *f;
                if (build_front(z, s, c0, c1, &f) != 0)
                    return -1;
                int at = front_at(f, B);
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
        if (build_front(z, s, c0, c1, &f) != 0)
            return -1;
        int at = front_at(f, B);
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

/* Every distinct need of the built fronts within [lo, hi], sorted. */
static int needs_between(const sapp *z, int K, double lo, double hi, double **out, int *n_out)
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
    qsort(v, n, sizeof(double), cmp_double);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || v[i] != v[u - 1])
            v[u++] = v[i];
    *out = v;
    *n_out = (int)u;
    return 0;
}

/* Builds every front a bound B reaches (counts up to kcap(B)). */
static int build_all(sapp *z, int K)
{
    for (int s = 0; s < z->S; s++)
        for (int c0 = 0; c0 <= K; c0++)
            for (int c1 = 0; c1 <= (z->I == 2 ? K : 0); c1++) {
                front *f;
                if (build_front(z, s, c0, c1, &f) != 0)
                    return -1;
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
static int try_interval(sapp *z, dpwork *w, const double *cand, int a, int b, double gb, double weight, int K,
                        int *scratch, bal_plan *out, double *best)
{
    if (a > b || gb + weight * cand[a] >= *best)
        return 0;
    int mid = a + (b - a) / 2;
    double v, t;
    out->explored++;
    memset(scratch, 0, sizeof(int) * (size_t)z->S * (size_t)z->I * BAL_OPTIONS);
    if (dp_run(z, w, cand[mid], K, &v, scratch, &t) != 0)
        return -1;
    if (v != INFINITY && v + weight * t < *best) {
        *best = v + weight * t;
        memcpy(out->count, scratch, sizeof(int) * (size_t)z->S * (size_t)z->I * BAL_OPTIONS);
    }
    if (try_interval(z, w, cand, a, mid - 1, v > gb ? v : gb, weight, K, scratch, out, best) != 0)
        return -1;
    return try_interval(z, w, cand, mid + 1, b, gb, weight, K, scratch, out, best);
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
        if (p->inflight[S + s] < overhead(p, s))
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
            int l0 = pinned_in(p, 0, s, &pin) ? 0 : 1, l1 = I == 2 && !pinned_in(p, 1, s, &pin) ? 1 : 0;
            double n0 = p->inflight[s], n1 = I == 2 ? p->inflight[S + s] : 0, ov = overhead(p, s);
            double base = fixed_stat(p, s) + (p->head.present && s == 0 ? p->head.act * n0 : 0) +
                          (p->tail.present && s == p->tail_stage ? p->tail.act * (I == 2 ? n1 : n0) : 0);
            int most_here = -1;
            for (int c0 = l0; c0 <= z.N; c0++)
                for (int c1 = l1; c1 <= (I == 2 ? z.N : 0) && c0 + c1 <= z.N; c1++) {
                    double d = (c0 - c1) * a_min;
                    double mem = base + (c0 + c1) * p->layer.stat + n0 * c0 * a_min + n1 * c1 * a_min +
                                 (I == 2 && d > 0 ? ov * d : 0);
                    if (fits(mem, p->limit) && c0 + c1 > most_here)
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
        K = kcap(&z, B);
        if (dp_prepare(&z, &w, K) != 0 || dp_run(&z, &w, B, K, &val, NULL, NULL) != 0)
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
            if (pinned_in(p, 0, s, &pin))
                least0 = 0;
            if (I == 2 && pinned_in(p, 1, s, &pin))
                least1 = 0;
            front *f;
            if (build_front(&z, s, least0, least1, &f) != 0)
                goto done;
            if (f->n == 0) {
                double a_min = INFINITY;
                for (int i = 0; i < z.nopt; i++)
                    a_min = p->layer.act[z.opt[i]] < a_min ? p->layer.act[z.opt[i]] : a_min;
                out->bad_stage = s;
                out->bad_need = fixed_stat(p, s) + (least0 + least1) * p->layer.stat +
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
    if (build_all(&z, K) != 0 || needs_between(&z, K, 0, B, &cand, &nc) != 0)
        goto done;
    int lo = 0, hi = nc - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        double v;
        if (dp_run(&z, &w, cand[mid], K, &v, NULL, NULL) != 0)
            goto done;
        if (v != INFINITY)
            hi = mid;
        else
            lo = mid + 1;
    }
    double B1 = cand[lo], best = INFINITY, tmax;
    free(cand);
    cand = NULL;
    if (dp_run(&z, &w, B1, K, &val, out->count, &tmax) != 0)
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
        int Khi = kcap(&z, Bhi);
        if (Khi < K)
            Khi = K;
        double L;
        if (dp_prepare(&z, &w, Khi) != 0 || dp_run(&z, &w, Bhi, Khi, &L, NULL, NULL) != 0)
            goto done;
        if (build_all(&z, Khi) != 0 || needs_between(&z, Khi, B1, Bhi, &cand, &nc) != 0)
            goto done;
        if (try_interval(&z, &w, cand, 0, nc - 1, L, weight, Khi, scratch, out, &best) != 0)
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
