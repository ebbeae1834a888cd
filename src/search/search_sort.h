/* search_sort.h: keeping and ordering a search's fitting candidates (search_sort.c). */
#ifndef NDLUA_SEARCH_SORT_H
#define NDLUA_SEARCH_SORT_H

#include "candidate.h"
#include "core/run.h"
#include "search_space.h"

/* Keeps c among res's fitting candidates: every one, or with sp->top,
 * the top of those that rank first (kept ones, then sp->top_keys, then the
 * loop nest's order: the order search_sort gives them), held as a heap.
 * Returns 0, or -1 when out of memory. */
int search_keep(search_result *res, const search_space *sp, const candidate *c);

/* Sorts the candidates by the named fields ("step_time_s", "peak_bytes",
 * "nd_score", "score", "-mfu" for descending...), kept ones first, stable.
 * Returns -1 for an unknown field, -2 when out of memory. */
int search_sort(search_result *res, const search_space *sp, const run_t *base, const char *const *keys, int n_keys);

#endif
