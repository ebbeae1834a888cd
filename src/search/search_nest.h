/* search_nest.h: the loop nest over strategies, its validity rules, and the pricing of every valid candidate (search_nest.c). */
#ifndef NDLUA_SEARCH_NEST_H
#define NDLUA_SEARCH_NEST_H

#include <stddef.h>
#include <stdint.h>

#include "candidate.h"
#include "core/model.h"
#include "core/run.h"
#include "search_space.h"

/* A worker holds what pricing candidates needs (an estimate, a layout
 * cache, layer prices): the search makes one a thread, and a result keeps
 * one to score its candidates on demand. The model, base run and space
 * must outlive it. NULL: out of memory. */
typedef struct search_worker search_worker;
search_worker *search_worker_new(const model_t *m, const run_t *base, const search_space *sp);
void search_worker_free(search_worker *w);

/* One pair of the outer loops, and the share of the loops done once it is. */
typedef struct {
    int64_t tp, pp;
    double done;
} search_pair;

/* The pairs in the loop nest's order. Returns 0, or -1 when out of memory. */
int search_pairs(const search_space *sp, search_pair **pairs, size_t *n);

/* Runs the loops inside a pair with the worker's own estimate and caches: the pair's counts, fitting candidates (each `order` its place
 * among the pair's), examples of dropped ones and lightest go into `into`.
 * Returns 0, or -1 when out of memory. */
int search_worker_pair(search_worker *w, const search_pair *pair, search_result *into);

/* The reference score (nd_score) is left by the search to the candidates a
 * policy, a sort or a report reads: this computes it for those of cands
 * that lack it. Returns 0, or -1 (out of memory, or a candidate's layout
 * fails to build). */
int search_score_nd(search_worker *w, candidate *cands, size_t n);

/* The candidates search_run would test (each recompute mode counted), found
 * by walking the outer loops only: the inner ones multiply. Saturates at
 * INT64_MAX; -1 when out of memory. */
int64_t search_count(const model_t *m, const search_space *sp);

#endif
