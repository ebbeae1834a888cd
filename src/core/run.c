/* run.c: defaults, copies and release of a run's fields. */
#include "run.h"

#include <stdlib.h>
#include <string.h>

const char *const SWITCH_NAMES[SW_COUNT] = {
    "attBMM", "headCast", "dropout", "softmax", "normOp", "gather", "ffAct", "attUp",
};

const char *const RECOMPUTE_NAMES[4] = {"off", "selective", "full", NULL};
const field_choices RECOMPUTE_MODES = {RECOMPUTE_NAMES, NULL, "off, selective, full"};

/* colossalai_cp and hybrid_cp are ring attention */
static const char *const CP_NAMES[] = {"colossalai_cp", "ring", "hybrid_cp", "hybird_cp", "ulysses_cp", "ulysses",
                                       NULL};
static const int CP_VALUES[] = {CP_RING, CP_RING, CP_RING, CP_RING, CP_ULYSSES, CP_ULYSSES};
const field_choices CP_ALGORITHMS = {CP_NAMES, CP_VALUES, "colossalai_cp (ring), hybrid_cp, ulysses_cp"};

const signed char HYPERPARALLEL_SWITCHES[SW_COUNT] = {1, 0, 0, 0, 0, 0, 0, 1};

static void release_form(per_stage *f)
{
    free(f->counts);
    f->counts = NULL;
    f->form = FORM_NONE;
}

void run_release(run_t *r)
{
    release_form(&r->pipeline.offset);
    release_form(&r->recompute.full);
    release_form(&r->recompute.selective);
    free(r->recompute.ranges);
    r->recompute.ranges = NULL;
    r->recompute.n_ranges = 0;
}

static int copy_counts(per_stage *dst, const per_stage *src, int64_t n)
{
    dst->counts = NULL;
    if (src->counts == NULL || n <= 0)
        return 0;
    dst->counts = malloc((size_t)n * sizeof *dst->counts);
    if (dst->counts == NULL)
        return -1;
    memcpy(dst->counts, src->counts, (size_t)n * sizeof *dst->counts);
    return 0;
}

static int64_t form_length(const run_t *r, const per_stage *f)
{
    if (f->form == FORM_STAGES)
        return r->pp;
    if (f->form == FORM_CHUNKS)
        return r->pp * r->vpp;
    return 0;
}

int run_copy(run_t *dst, const run_t *src)
{
    *dst = *src;
    const recompute_opts *from = &src->recompute;
    recompute_opts *to = &dst->recompute;
    dst->pipeline.offset.counts = to->full.counts = to->selective.counts = NULL;
    to->ranges = NULL;
    if (copy_counts(&dst->pipeline.offset, &src->pipeline.offset, form_length(src, &src->pipeline.offset)) != 0 ||
        copy_counts(&to->full, &from->full, form_length(src, &from->full)) != 0 ||
        copy_counts(&to->selective, &from->selective, form_length(src, &from->selective)) != 0)
        goto fail;
    if (from->n_ranges > 0) {
        to->ranges = malloc((size_t)from->n_ranges * sizeof *to->ranges);
        if (to->ranges == NULL)
            goto fail;
        memcpy(to->ranges, from->ranges, (size_t)from->n_ranges * sizeof *to->ranges);
    }
    return 0;
fail:
    run_release(dst);
    return -1;
}
