/* candidate.c: a search's result, and the run and step each of its candidates stands for. */
#include "candidate.h"

#include <stdlib.h>
#include <string.h>

/* A search at 16384 devices keeps some 330 thousand candidates: 184 bytes
 * each holds them in about 58 MiB. */
_Static_assert(sizeof(candidate) <= 184, "a candidate record grew past 184 bytes");

void search_result_init(search_result *res)
{
    memset(res, 0, sizeof *res);
}

void search_result_free(search_result *res)
{
    free(res->fit);
    free(res->drops);
    search_result_init(res);
}

void candidate_fields(const int64_t *degree, recompute_mode mode, run_t *out)
{
    const int64_t *g = degree;
    out->dp = g[DIM_DP];
    out->tp = g[DIM_TP];
    out->pp = g[DIM_PP];
    out->cp = g[DIM_CP];
    out->ep = g[DIM_EP];
    out->vpp = g[DIM_VPP];
    out->micro_batch_num = g[DIM_MB];
    out->micro_batch_size = g[DIM_MBS];
    out->sequence_parallel = g[DIM_SP] != 0;
    out->sharding.optimizer_shard = g[DIM_OP];
    out->sharding.optimizer_parallel = g[DIM_OP] > 1;
    out->global_batch_size = g[DIM_DP] * g[DIM_MB] * g[DIM_MBS];
    /* a candidate runs its step's micro-batches in one pipeline schedule (a
     * local batch of mb x mbs, no gradient accumulation, under a runtime that
     * runs one schedule a local batch): a base's local batch, which the
     * candidate's mbs and mb need not divide, is not carried over */
    out->pipeline.local_batch_size = 0;
    /* the candidate's pipeline is balanced afresh; its recompute is one mode for every layer */
    out->pipeline.offset.form = FORM_NONE;
    out->pipeline.offset.counts = NULL;
    out->recompute.n_ranges = 0;
    out->recompute.ranges = NULL;
    out->recompute.full.form = mode == REC_FULL ? FORM_ALL : FORM_NONE;
    out->recompute.full.counts = NULL;
    out->recompute.selective.form = mode == REC_SELECTIVE ? FORM_ALL : FORM_NONE;
    out->recompute.selective.counts = NULL;
}

void search_candidate_run(const run_t *base, const candidate *c, run_t *out)
{
    int64_t degree[DIM_COUNT];
    for (int i = 0; i < DIM_COUNT; i++)
        degree[i] = c->degree[i];
    *out = *base;
    candidate_fields(degree, (recompute_mode)c->mode, out);
}

void search_candidate_time(const search_result *res, const search_space *sp, const run_t *base, const candidate *c,
                           step_time *out)
{
    memset(out, 0, sizeof *out);
    if (!c->timed)
        return;
    const candidate_time *t = &c->time;
    out->forward = t->forward;
    out->backward = t->backward;
    out->recompute = t->recompute;
    out->tp = t->tp;
    out->cp = t->cp;
    out->ep = t->ep;
    out->pp = t->pp;
    out->dp = t->dp;
    out->bubble = t->bubble;
    out->optimizer = t->optimizer;
    out->step = t->step;
    out->floor = t->floor;
    out->floor_held = t->floor_held;
    out->straggler = c->straggler;
    run_t r;
    search_candidate_run(base, c, &r);
    timing_rates(out, &r, res->flops_per_token, &sp->hw);
}
