/* search_pool.h: the search's outer (TP, PP) pairs shared out over threads. */
#ifndef NDLUA_SEARCH_POOL_H
#define NDLUA_SEARCH_POOL_H

#include <stddef.h>

#include "candidate.h"
#include "search_nest.h"
#include "search_space.h"

/* The threads a search of n pairs runs on: the space's `threads`, or the
 * online cores when it states 0, never more than the pairs. */
int search_threads(const search_space *sp, size_t n);

/* Runs the pairs on `threads` threads and merges each pair's result into
 * res in the nest's order, so the result is the one a single thread gives.
 * progress is called on this thread as pairs complete in order. Returns 0,
 * or -1 (out of memory, or no thread could start). */
int search_pool_run(const model_t *m, const run_t *base, const search_space *sp, const search_pair *pairs, size_t n,
                    int threads, search_result *res, search_progress progress, void *progress_data);

#endif
