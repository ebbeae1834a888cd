/* balance_problem.c: small rules of the balancer's problem shared by its
 * solvers (balance_problem.h): which options are worth choosing, which
 * pinned layers a cell holds. */
#include "balance_problem.h"

/* Whether option o equals or beats option r of l in both time and activations
 * (of two equal options the earlier wins). */
static int beats(const bal_layer *l, int o, int r)
{
    int le = l->time[o] <= l->time[r] && l->act[o] <= l->act[r];
    int strict = l->time[o] < l->time[r] || l->act[o] < l->act[r];
    return le && (strict || o < r);
}

int bal_undominated_options(const bal_layer *l, int prune, int *opt)
{
    int n = 0;
    for (int r = 0; r < BAL_OPTIONS; r++) {
        if (!(l->offered & (1u << r)))
            continue;
        int beaten = 0;
        for (int o = 0; o < BAL_OPTIONS && !beaten && prune; o++)
            beaten = o != r && (l->offered & (1u << o)) && beats(l, o, r);
        if (!beaten)
            opt[n++] = r;
    }
    return n;
}

void bal_sort_options_by_time(const bal_layer *l, int *opt, int n)
{
    for (int i = 1; i < n; i++) /* insertion sort: at most five */
        for (int j = i; j > 0 && l->time[opt[j]] < l->time[opt[j - 1]]; j--) {
            int t = opt[j];
            opt[j] = opt[j - 1];
            opt[j - 1] = t;
        }
}

int bal_pinned_at(const bal_problem *p, int v, int s, const bal_pinned *out[2])
{
    int n = 0;
    if (p->head.present && v == 0 && s == 0)
        out[n++] = &p->head;
    if (p->tail.present && v == p->chunks - 1 && s == p->tail_stage)
        out[n++] = &p->tail;
    return n;
}
