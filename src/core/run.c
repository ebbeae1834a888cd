/* run.c: defaults, copies and release of a run's fields. */
#include "run.h"

#include <stdlib.h>
#include <string.h>

const char *const SWITCH_NAMES[SW_COUNT] = {
    "attBMM", "headCast", "dropout", "softmax", "normOp", "gather", "ffAct", "attUp",
};

const char *const RECOMPUTE_NAMES[4] = {"off", "selective", "full", NULL};

const signed char HYPERPARALLEL_SWITCHES[SW_COUNT] = {1, 0, 0, 0, 0, 0, 0, 1};

static void release_form(per_stage *f)
{
    free(f->counts);
    f->counts = NULL;
    f->form = FORM_NONE;
}

void run_release(run_t *r)
{
    release_form(&r->offset);
    release_form(&r->full_recompute);
    release_form(&r->selective_recompute);
    free(r->ranges);
    r->ranges = NULL;
    r->n_ranges = 0;
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
    dst->offset.counts = dst->full_recompute.counts = dst->selective_recompute.counts = NULL;
    dst->ranges = NULL;
    if (copy_counts(&dst->offset, &src->offset, form_length(src, &src->offset)) != 0 ||
        copy_counts(&dst->full_recompute, &src->full_recompute, form_length(src, &src->full_recompute)) != 0 ||
        copy_counts(&dst->selective_recompute, &src->selective_recompute,
                    form_length(src, &src->selective_recompute)) != 0)
        goto fail;
    if (src->n_ranges > 0) {
        dst->ranges = malloc((size_t)src->n_ranges * sizeof *dst->ranges);
        if (dst->ranges == NULL)
            goto fail;
        memcpy(dst->ranges, src->ranges, (size_t)src->n_ranges * sizeof *dst->ranges);
    }
    return 0;
fail:
    run_release(dst);
    return -1;
}
