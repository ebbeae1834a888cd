/* balance_problem.c: small rules of the balancer's problem shared by its
 * solvers (balance_problem.h): which options are worth choosing, which
 * pinned layers a cell holds. */
#include "balance_problem.h"

/* Whether choice o equals or beats choice r in both time and activations
 * (of two equal choices the earlier wins). */
static int beats(const double *act, const double *time, int o, int r)
{
    int le = time[o] <= time[r] && act[o] <= act[r];
    int strict = time[o] < time[r] || act[o] < act[r];
    return le && (strict || o < r);
}

int bal_undominated(const double *act, const double *time, unsigned offered, int n, int prune, int *opt)
{
    int kept = 0;
    for (int r = 0; r < n; r++) {
        if (!(offered & (1u << r)))
            continue;
        int beaten = 0;
        for (int o = 0; o < n && !beaten && prune; o++)
            beaten = o != r && (offered & (1u << o)) && beats(act, time, o, r);
        if (!beaten)
            opt[kept++] = r;
    }
    return kept;
}

int bal_undominated_options(const bal_layer *l, int prune, int *opt)
{
    return bal_undominated(l->act, l->time, l->offered, BAL_OPTIONS, prune, opt);
}

int bal_offloads(const bal_problem *p)
{
    int any = p->nkinds == 0 && p->layer.offload_offered != 0;
    for (int k = 0; k < p->nkinds; k++)
        any |= p->kinds[k].offload_offered != 0;
    return any;
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

int bal_model_cell(const bal_problem *p, int j)
{
    int S = p->stages, v = j / S, s = j % S;
    return v * S + (p->vshape && v == 1 ? S - 1 - s : s);
}

int bal_pinned_ends(const bal_problem *p, int *first, int *last)
{
    int N = p->body, a = 0, z = 0;
    while (a < N && p->kinds[p->kind_of[a]].pin == BAL_PIN_FIRST)
        a++;
    while (z < N - a && p->kinds[p->kind_of[N - 1 - z]].pin == BAL_PIN_LAST)
        z++;
    *first = a;
    *last = z;
    for (int i = a; i < N - z; i++)
        if (p->kinds[p->kind_of[i]].pin != BAL_PIN_NONE)
            return -1;
    return 0;
}
