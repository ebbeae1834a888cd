/* search.c: a search run whole, its (TP, PP) pairs on this thread or shared out over threads. */
#include "search.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "search_pool.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The pairs one after another on this thread, into res itself. */
static int run_serial(search_worker *w, const search_pair *pairs, size_t n, search_result *res,
                      search_progress progress, void *data)
{
    for (size_t i = 0; i < n; i++) {
        if (search_worker_pair(w, &pairs[i], res) != 0)
            return -1;
        if (progress != NULL && progress(data, pairs[i].done) != 0)
            break;
    }
    return 0;
}

int search_run(const model_t *m, const run_t *base, const search_space *sp, search_result *res,
               search_progress progress, void *progress_data)
{
    double start = now_seconds();
    res->flops_per_token = timing_flops_per_token(m, base->seq_length);
    search_pair *pairs = NULL;
    size_t n = 0;
    int rc = search_pairs(sp, &pairs, &n);
    int threads = search_threads(sp, n);
    if (rc == 0 && threads > 1)
        rc = search_pool_run(m, base, sp, pairs, n, threads, res, progress, progress_data);
    else if (rc == 0) {
        search_worker *w = search_worker_new(m, base, sp);
        rc = w == NULL ? -1 : run_serial(w, pairs, n, res, progress, progress_data);
        search_worker_free(w);
    }
    free(pairs);
    res->elapsed_s = now_seconds() - start;
    if (rc != 0)
        snprintf(res->error, sizeof res->error, "out of memory while searching");
    return rc;
}
