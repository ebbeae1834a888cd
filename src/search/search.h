/* search.h: enumerating and pricing parallel strategies (the reference planner's search space), on one thread or several. */
#ifndef NDLUA_SEARCH_H
#define NDLUA_SEARCH_H

#include "candidate.h"
#include "core/model.h"
#include "core/run.h"
#include "search_nest.h"
#include "search_sort.h"
#include "search_space.h"

/* Runs the search. Returns 0, or -1 with res->error (out of memory). */
int search_run(const model_t *m, const run_t *base, const search_space *sp, search_result *res,
               search_progress progress, void *progress_data);

#endif
