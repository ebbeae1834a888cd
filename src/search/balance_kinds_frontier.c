/* balance_kinds_frontier.c: the kinds solver's Pareto frontiers of option
 * mixes (balance_kinds_solver.h). For one kind and n layers, the option mixes
 * worth keeping are the Pareto frontier of (activations, time) over all mixes
 * of n layers, built once per kind and n: frontier(n) from frontier(n − 1)
 * plus one layer of each choice (a mix on the frontier leaves a mix on the
 * frontier when one layer is taken out). */
#include "balance_kinds_solver.h"

#include <stdlib.h>

static int cmp_point(const void *a, const void *b)
{
    const fpoint *x = a, *y = b;
    if (x->act != y->act)
        return x->act < y->act ? -1 : 1;
    return x->time < y->time ? -1 : x->time > y->time;
}

/* The choices of one kind: activations and time of option r plain at r and
 * offloaded at r + BAL_OPTIONS; the undominated ones in opt[0..n). */
typedef struct {
    double act[2 * BAL_OPTIONS], time[2 * BAL_OPTIONS];
    int opt[2 * BAL_OPTIONS], n;
} choices;

static void choices_of(const bal_layer *l, choices *ch)
{
    unsigned offered = l->offered | (l->offered & l->offload_offered) << BAL_OPTIONS;
    for (int r = 0; r < BAL_OPTIONS; r++) {
        ch->act[r] = l->act[r];
        ch->time[r] = l->time[r];
        ch->act[r + BAL_OPTIONS] = (1 - l->offload_share) * l->act[r];
        ch->time[r + BAL_OPTIONS] = l->time[r] + l->offload_time[r];
    }
    ch->n = bal_undominated(ch->act, ch->time, offered, 2 * BAL_OPTIONS, 1, ch->opt);
}

/* frontier(n) of a kind from prev = frontier(n − 1); 0, or −1 out of memory. */
static int frontier_next(const choices *l, const int *opt, int nopt, const frontier *prev, frontier *out)
{
    size_t n = (size_t)prev->n * (size_t)nopt;
    fpoint *c = malloc(sizeof *c * n);
    if (c == NULL)
        return -1;
    size_t k = 0;
    for (int i = 0; i < prev->n; i++)
        for (int o = 0; o < nopt; o++)
            c[k++] = (fpoint){prev->pt[i].act + l->act[opt[o]], prev->pt[i].time + l->time[opt[o]], i, opt[o]};
    qsort(c, n, sizeof *c, cmp_point);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || c[i].time < c[kept - 1].time)
            c[kept++] = c[i];
    fpoint *shrunk = realloc(c, sizeof *c * kept);
    out->pt = shrunk != NULL ? shrunk : c;
    out->n = (int)kept;
    return 0;
}

int kinds_build_frontiers(ksolver *ks)
{
    const bal_problem *p = ks->p;
    ks->fr = calloc((size_t)ks->K, sizeof *ks->fr);
    if (ks->fr == NULL)
        return -1;
    for (int k = 0; k < ks->K; k++) {
        choices l;
        choices_of(&p->kinds[k], &l);
        ks->fr[k] = calloc((size_t)ks->total[k] + 1, sizeof **ks->fr);
        if (ks->fr[k] == NULL)
            return -1;
        frontier *f = ks->fr[k];
        f[0].pt = malloc(sizeof *f[0].pt);
        if (f[0].pt == NULL)
            return -1;
        f[0].pt[0] = (fpoint){0, 0, -1, -1};
        f[0].n = 1;
        for (int n = 1; n <= ks->total[k]; n++)
            if (frontier_next(&l, l.opt, l.n, &f[n - 1], &f[n]) != 0)
                return -1;
    }
    return 0;
}
