/* balance_kinds_setup.c: the kinds solver's state for a problem
 * (balance_kinds_solver.h): the body's counts of each kind, the pinned
 * layers, the frontiers, the memory of stage times (balance_runs.h) and the
 * bound on the stages left (balance_rest.h); and its freeing. */
#include "balance_kinds_solver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The body's runs numbered (balance_runs.h), and the stage times' memory
 * for one or two chunks (balance_memo.h: only the stages priced take room),
 * where their keys stay few (else stage_time prices every move afresh); 0,
 * or −1 out of memory. */
static int setup_memo(ksolver *ks)
{
    const bal_problem *p = ks->p;
    const size_t most = (size_t)1 << 22;
    if (ks->N == 0)
        return 0;
    double flight = INFINITY; /* the fewest micro-batches any cell keeps */
    for (int c = 0; c < ks->S * ks->I; c++)
        flight = p->inflight[c] < flight ? p->inflight[c] : flight;
    double *least = malloc(sizeof *least * (size_t)ks->N);
    if (least == NULL)
        return -1;
    for (int i = 0; i < ks->N; i++) { /* a layer's fewest bytes: its least activations, the first frontier point */
        int k = p->kind_of[i];
        least[i] = p->kinds[k].stat + flight * ks->fr[k][1].pt[0].act;
    }
    /* a margin above the limit: a run is left out only where it surely cannot fit */
    int rc = bal_runs_build(&ks->runs, ks->prefix, ks->N, ks->K, least, ks->limit * (1 + 1e-9), most);
    free(least);
    if (rc != 0 || ks->I > 2)
        return 0; /* too many runs to number, or more chunks: no memory of stage times */
    size_t C = (size_t)ks->runs.count;
    if (ks->I == 2 && C > most / ((size_t)ks->S * C))
        return 0; /* a key space past `most` */
    ks->memo_on = 1;
    return bal_memo_init(&ks->memo);
}

int kinds_setup_rest(const ksolver *ks, bal_rest *rest, int I, const double *inflight)
{
    const bal_problem *p = ks->p;
    int S = ks->S, K = ks->K, rc = -1;
    bal_point *pts = malloc(sizeof *pts * (size_t)K * BAL_REST_MOST);
    const bal_point **one = malloc(sizeof *one * (size_t)K);
    int *n = malloc(sizeof *n * (size_t)K);
    double *stat = malloc(sizeof *stat * ((size_t)K + (size_t)S));
    if (pts != NULL && one != NULL && n != NULL && stat != NULL) {
        double *room = stat + K;
        for (int k = 0; k < K; k++) { /* a kind's choices: its frontier of one layer (absent kinds: none, at 0) */
            const frontier *f = ks->total[k] > 0 ? &ks->fr[k][1] : &ks->fr[k][0];
            one[k] = pts + (size_t)k * BAL_REST_MOST;
            n[k] = f->n;
            for (int j = 0; j < f->n && j < BAL_REST_MOST; j++)
                pts[(size_t)k * BAL_REST_MOST + (size_t)j] = (bal_point){f->pt[j].act, f->pt[j].time};
            stat[k] = p->kinds[k].stat;
        }
        for (int s = 0; s < S; s++)
            room[s] = ks->limit - ks->fixed_stat[s] - ks->fixed_act[s];
        rc = bal_rest_build(rest, S, I, K, ks->prefix, one, n, stat, inflight, room, ks->fixed_time);
    }
    free(pts);
    free(one);
    free(n);
    free(stat);
    return rc;
}

/* The bound on the stages still to lay out (balance_rest.h); 0, or −1. */
static int setup_rest(ksolver *ks)
{
    const bal_problem *p = ks->p;
    if (!p->vshape)
        return kinds_setup_rest(ks, &ks->rest, ks->I, p->inflight);
    /* V-shaped: the layers between the chunks may go to either, so the bound
     * pools them as one chunk keeping the fewer micro-batches of the two */
    int S = ks->S;
    double *flight = malloc(sizeof *flight * (size_t)S);
    if (flight == NULL)
        return -1;
    for (int s = 0; s < S; s++)
        flight[s] = p->inflight[s] < p->inflight[S + s] ? p->inflight[s] : p->inflight[S + s];
    int rc = kinds_setup_rest(ks, &ks->rest, 1, flight);
    free(flight);
    return rc;
}

int kinds_setup(ksolver *ks, const bal_problem *p)
{
    memset(ks, 0, sizeof *ks);
    ks->p = p;
    ks->S = p->stages;
    ks->I = p->chunks;
    ks->N = p->body;
    ks->K = p->nkinds;
    int S = ks->S, I = ks->I, N = ks->N, K = ks->K;
    size_t cells = (size_t)S * (size_t)I;
    size_t IK = (size_t)I * (size_t)K;
    ks->total = calloc((size_t)K + ((size_t)N + 1) * (size_t)K + 2 * IK, sizeof(int));
    ks->fixed_stat = calloc((size_t)S * 4 + 2 * (IK + 1) + (size_t)N + 2, sizeof(double));
    ks->pinned = calloc(cells, 1);
    ks->g = malloc(sizeof *ks->g * IK);
    if (!ks->total || !ks->fixed_stat || !ks->pinned || !ks->g)
        return -1;
    ks->prefix = ks->total + K;
    ks->pick = ks->prefix + ((size_t)N + 1) * (size_t)K;
    ks->best_pick = ks->pick + IK;
    ks->fixed_act = ks->fixed_stat + S;
    ks->fixed_time = ks->fixed_stat + 2 * S;
    ks->rest_time = ks->fixed_stat + 3 * S;
    ks->rest_act = ks->rest_time + IK + 1;
    ks->fixed_after = ks->rest_act + IK + 1;
    ks->fastest = ks->fixed_after + S + 1;
    for (int i = 0; i < N; i++) {
        memcpy(ks->prefix + (size_t)(i + 1) * (size_t)K, ks->prefix + (size_t)i * (size_t)K, sizeof(int) * (size_t)K);
        ks->prefix[(size_t)(i + 1) * (size_t)K + (size_t)p->kind_of[i]]++;
        ks->total[p->kind_of[i]]++;
    }
    const bal_pinned *pins[2] = {&p->head, &p->tail};
    int pin_cell[2] = {0, (I - 1) * S + p->tail_stage};
    for (int i = 0; i < 2; i++)
        if (pins[i]->present) {
            int c = pin_cell[i], s = c % S;
            ks->pinned[c] = 1;
            ks->fixed_stat[s] += pins[i]->stat;
            ks->fixed_act[s] += pins[i]->act * p->inflight[c];
            ks->fixed_time[s] += pins[i]->time;
        }
    ks->limit = p->limit + fabs(p->limit) * 1e-12;
    if (bal_pinned_ends(p, &ks->pin_first, &ks->pin_last) != 0)
        return -1;
    for (int s = S - 1; s >= 0; s--)
        ks->fixed_after[s] = ks->fixed_after[s + 1] + ks->fixed_time[s];
    if (kinds_build_frontiers(ks) != 0)
        return -1;
    for (int i = 0; i < N; i++) { /* a kind's fastest choice: the last point of its frontier of one layer */
        const frontier *one = &ks->fr[p->kind_of[i]][1];
        ks->fastest[i + 1] = ks->fastest[i] + one->pt[one->n - 1].time;
    }
    return setup_memo(ks) != 0 || setup_rest(ks) != 0 ? -1 : 0;
}

void kinds_teardown(ksolver *ks)
{
    if (ks->fr != NULL)
        for (int k = 0; k < ks->K; k++) {
            if (ks->fr[k] != NULL)
                for (int n = 0; n <= ks->total[k]; n++)
                    free(ks->fr[k][n].pt);
            free(ks->fr[k]);
        }
    free(ks->fr);
    free(ks->total); /* prefix, pick and best_pick too */
    free(ks->fixed_stat); /* fixed_act, fixed_time, rest_time, rest_act, fixed_after, fastest too */
    free(ks->pinned);
    free(ks->g);
    bal_memo_free(&ks->memo);
    bal_runs_free(&ks->runs);
    bal_rest_free(&ks->rest);
}
