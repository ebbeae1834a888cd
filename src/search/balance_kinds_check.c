/* balance_kinds_check.c: bal_evaluate_kinds (balance_solvers.h), a plan of
 * several layer kinds checked and priced: every rule, each cell's run in
 * model order, the memory limit, and the step objective. */
#include "balance_solvers.h"

#include <math.h>
#include <stddef.h>

static int fits(double need, double limit) { return need <= limit + fabs(limit) * 1e-12; }

/* Adds pinned layer pin (when present) to a stage's memory and time; 1 if it was. */
static int add_pinned(const bal_pinned *pin, double n, double *mem, double *time)
{
    if (!pin->present)
        return 0;
    *mem += pin->stat + pin->act * n;
    *time += pin->time;
    return 1;
}

/* Whether cell c holds as many layers of each kind as body layers [at, at + own) have. */
static int run_matches(const bal_problem *p, const int *kind_count, int c, int at, int own)
{
    int K = p->nkinds;
    if (at < 0 || own < 0 || at + own > p->body)
        return 0;
    for (int k = 0; k < K; k++) {
        int want = 0, got = 0;
        for (int r = 0; r < BAL_OPTIONS; r++)
            want += kind_count[((size_t)c * (size_t)K + (size_t)k) * BAL_OPTIONS + (size_t)r];
        for (int i = at; i < at + own; i++)
            got += p->kind_of[i] == k;
        if (want != got)
            return 0;
    }
    return 1;
}

/* Adds x layers of kind l under option r, y of them offloaded, kept n times, to mem and time; 0, or 1 when
 * the counts break a rule. */
static int add_layers(const bal_layer *l, int r, int x, int y, double n, double *mem, double *time)
{
    *mem += (x - y) * (l->stat + l->act[r] * n) + y * (l->stat + (1 - l->offload_share) * l->act[r] * n);
    *time += x * l->time[r] + y * l->offload_time[r];
    return x < 0 || y < 0 || y > x || !(l->offered & (1u << r)) || (y > 0 && !(l->offload_offered & (1u << r)));
}

int bal_evaluate_kinds(const bal_problem *p, const int *kind_count, const int *kind_offload, double *objective,
                       double *stage_time, double *stage_mem)
{
    int S = p->stages, I = p->chunks, K = p->nkinds, bad = 0, at = 0, first = 0, last = 0;
    int tail_cell = (I - 1) * S + p->tail_stage;
    if (bal_pinned_ends(p, &first, &last) != 0)
        bad = 1;
    double sum = 0, most = 0;
    for (int s = 0; s < S; s++)
        stage_time[s] = stage_mem[s] = 0;
    for (int j = 0; j < S * I; j++) { /* model order */
        int c = bal_model_cell(p, j), s = c % S, own = 0;
        double n = p->inflight[c];
        int held = (c == 0 ? add_pinned(&p->head, n, &stage_mem[s], &stage_time[s]) : 0) +
                   (c == tail_cell ? add_pinned(&p->tail, n, &stage_mem[s], &stage_time[s]) : 0);
        for (int k = 0; k < K; k++)
            for (int r = 0; r < BAL_OPTIONS; r++) {
                size_t at_kr = ((size_t)c * (size_t)K + (size_t)k) * BAL_OPTIONS + (size_t)r;
                int x = kind_count[at_kr], y = kind_offload != NULL ? kind_offload[at_kr] : 0;
                if (x != 0 || y != 0)
                    bad |= add_layers(&p->kinds[k], r, x, y, n, &stage_mem[s], &stage_time[s]);
                own += x;
            }
        if (held + own < 1 || !run_matches(p, kind_count, c, at, own))
            bad = 1;
        if ((j == 0 && own < first) || (j == S * I - 1 && at > p->body - last))
            bad = 1; /* a layer pinned to an end is elsewhere */
        at += own;
    }
    for (int s = 0; s < S; s++) {
        if (!fits(stage_mem[s], p->limit))
            bad = 1;
        sum += stage_time[s];
        most = stage_time[s] > most ? stage_time[s] : most;
    }
    if (at != p->body)
        bad = 1;
    *objective = p->coef_sum * sum + p->coef_max * most;
    return bad;
}
