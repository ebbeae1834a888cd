/* balance_sapp_rule.c: SAPP-PPB's objective (its -O 0, 1, 2) and memory
 * rule (balance_sapp.c states them): the parts the solver prices a stage
 * with, and bal_evaluate_sapp, a plan's objective and per-stage memory. */
#include "balance_sapp_solver.h"

#include "balance_solvers.h"

#include <stdlib.h>
#include <string.h>

/* The interleave overhead factor of stage s (none with one chunk or m = S). */
double sapp_overhead(const bal_problem *p, int s)
{
    int S = p->stages;
    if (p->chunks != 2 || p->micro == S)
        return 0;
    if (p->sapp_less_memory)
        return abs(S - s);
    return S - abs(S - 2 * s - 1);
}

/* The cell's pinned layer (the head where one cell holds both, as the rule reads it). */
int sapp_pinned_in(const bal_problem *p, int v, int s, const bal_pinned **out)
{
    const bal_pinned *pin[2];
    int n = bal_pinned_at(p, v, s, pin);
    *out = pin[0];
    return n > 0;
}

/* Parameters fixed on stage s: the head's, the tail's, and the tail's again on stage 0. */
double sapp_fixed_stat(const bal_problem *p, int s)
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
    if (sapp_pinned_in(p, v, s, &pin)) {
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
        double mem = sapp_fixed_stat(p, s), fmax = 0, bmax = 0, w = 0;
        for (int v = 0; v < I; v++) {
            const bal_pinned *pin;
            cell_of_plan(p, count, v, s, &cs[v]);
            double n = p->inflight[v * S + s];
            mem += cs[v].c * p->layer.stat + n * cs[v].A;
            if (sapp_pinned_in(p, v, s, &pin))
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
            mem += sapp_overhead(p, s) * (d > 0 ? d : 0);
            C += cs[0].W / S;
        }
        stage_time[s] = fmax + bmax;
        stage_mem[s] = mem;
        tmax = stage_time[s] > tmax ? stage_time[s] : tmax;
        W += w;
        if (!sapp_fits(mem, p->limit))
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
