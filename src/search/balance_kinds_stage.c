/* balance_kinds_stage.c: the kinds solver's least time of one stage
 * (balance_kinds_solver.h): the least sum of one frontier point per (cell,
 * kind) whose activations, scaled by each cell's in-flight count, fit the
 * stage's budget, found by walking the points of all but one group and a
 * binary search in the last; remembered by what the stage's cells hold
 * (balance_runs.h), which the many chunk starts share. */
#include "balance_kinds_solver.h"

#include <math.h>
#include <string.h>

typedef struct {
    const ksolver *ks;
    int G;
    double best;
    int *pick, *best_pick;
} group_walk;

/* The last point of f whose activations · coef fit room, or −1. */
static int last_fitting(const frontier *f, double coef, double room)
{
    int lo = 0, hi = f->n - 1, at = -1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (coef * f->pt[mid].act <= room) {
            at = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return at;
}

static void walk_groups(group_walk *w, int i, double room, double t)
{
    const ksolver *ks = w->ks;
    const group *g = &ks->g[i];
    if (i == w->G - 1) {
        int at = last_fitting(g->f, g->coef, room);
        if (at >= 0 && t + g->f->pt[at].time < w->best) {
            w->best = t + g->f->pt[at].time;
            w->pick[i] = at;
            memcpy(w->best_pick, w->pick, sizeof(int) * (size_t)w->G);
        }
        return;
    }
    /* fastest first: once the time cannot win, later points cannot either */
    for (int j = g->f->n - 1; j >= 0; j--) {
        const fpoint *pt = &g->f->pt[j];
        if (t + pt->time + ks->rest_time[i + 1] >= w->best)
            break;
        double left = room - g->coef * pt->act;
        if (left < ks->rest_act[i + 1])
            continue;
        w->pick[i] = j;
        walk_groups(w, i + 1, left, t + pt->time);
    }
}

/* Adds group g's mix at point at into kc ([(cell · K + k) · BAL_OPTIONS + r],
 * offloaded layers too) and ko (those offloaded; NULL: none may be). */
static void add_mix(const ksolver *ks, const group *g, int at, int *kc, int *ko)
{
    size_t row = ((size_t)g->cell * (size_t)ks->K + (size_t)g->kind) * BAL_OPTIONS;
    for (int n = g->layers; n > 0; n--) {
        const fpoint *pt = &ks->fr[g->kind][n].pt[at];
        kc[row + (size_t)(pt->opt % BAL_OPTIONS)]++;
        if (pt->opt >= BAL_OPTIONS && ko != NULL)
            ko[row + (size_t)(pt->opt - BAL_OPTIONS)]++;
        at = pt->prev;
    }
}

/* The least forward + backward seconds of stage s when chunk v's cell holds
 * body layers [b[v], e[v]); INFINITY when it cannot. With kc non-NULL, adds
 * the chosen counts into kc and ko (the plan's kind_count and kind_offload). */
double kinds_stage_cost(ksolver *ks, int s, const int *b, const int *e, int *kc, int *ko)
{
    const bal_problem *p = ks->p;
    int G = 0, K = ks->K;
    double stat = 0;
    for (int v = 0; v < ks->I; v++) {
        int c = v * ks->S + s;
        if (e[v] == b[v] && !ks->pinned[c])
            return INFINITY;
        for (int k = 0; k < K; k++) {
            int n = ks->prefix[e[v] * K + k] - ks->prefix[b[v] * K + k];
            if (n == 0)
                continue;
            stat += n * p->kinds[k].stat;
            ks->g[G++] = (group){p->inflight[c], &ks->fr[k][n], c, k, n};
        }
    }
    double room = ks->limit - ks->fixed_stat[s] - ks->fixed_act[s] - stat;
    if (room < 0)
        return INFINITY;
    if (G == 0)
        return ks->fixed_time[s];
    int big = 0; /* the largest frontier goes last, to the binary search */
    for (int i = 1; i < G; i++)
        if (ks->g[i].f->n > ks->g[big].f->n)
            big = i;
    group tmp = ks->g[big];
    ks->g[big] = ks->g[G - 1];
    ks->g[G - 1] = tmp;
    ks->rest_time[G] = ks->rest_act[G] = 0;
    for (int i = G - 1; i >= 0; i--) {
        const frontier *f = ks->g[i].f;
        ks->rest_time[i] = ks->rest_time[i + 1] + f->pt[f->n - 1].time;
        ks->rest_act[i] = ks->rest_act[i + 1] + ks->g[i].coef * f->pt[0].act;
    }
    if (ks->rest_act[0] > room)
        return INFINITY;
    group_walk w = {ks, G, INFINITY, ks->pick, ks->best_pick};
    walk_groups(&w, 0, room, 0);
    if (w.best == INFINITY)
        return INFINITY;
    if (kc != NULL)
        for (int i = 0; i < G; i++)
            add_mix(ks, &ks->g[i], w.best_pick[i], kc, ko);
    return ks->fixed_time[s] + w.best;
}

/* stage_cost's time alone, remembered by the stage and what each of its
 * cells holds (a run's counts of each kind are all stage_cost reads of it). */
double kinds_stage_time(ksolver *ks, int s, const int *b, const int *e)
{
    ks->moves++;
    if (!ks->memo_on)
        return kinds_stage_cost(ks, s, b, e, NULL, NULL);
    size_t at = (size_t)s;
    for (int v = ks->I - 1; v >= 0; v--) {
        int id = bal_runs_id(&ks->runs, b[v], e[v]);
        if (id < 0)
            return INFINITY; /* its layers alone overfill any cell */
        at = at * (size_t)ks->runs.count + (size_t)id;
    }
    double *t = bal_memo_at(&ks->memo, at);
    if (t == NULL)
        return kinds_stage_cost(ks, s, b, e, NULL, NULL);
    if (isnan(*t))
        *t = kinds_stage_cost(ks, s, b, e, NULL, NULL);
    return *t;
}
