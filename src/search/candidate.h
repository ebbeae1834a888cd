/* candidate.h: a priced candidate as a search keeps it, the search's result, and the run and step a candidate stands for (candidate.c). */
#ifndef NDLUA_CANDIDATE_H
#define NDLUA_CANDIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/run.h"
#include "core/timing.h"
#include "search_space.h"

/* A candidate's step as the search keeps it: the parts (seconds) and the
 * step. Its straggler, model FLOPs, MFU and throughput follow from these
 * and the candidate (search_candidate_time), so they are not stored. */
typedef struct {
    double forward, backward, recompute, tp, cp, ep, pp, dp, bubble, optimizer, step;
    double floor, floor_held; /* step_time's */
} candidate_time;

/* A priced candidate as a search result holds it: small, as a search may
 * keep hundreds of thousands (degrees fit 32 bits: devices and the global
 * batch are bounded far below 2^31). */
typedef struct {
    int32_t degree[DIM_COUNT];     /* sp as 0/1 */
    int32_t peak_stage, straggler;
    int32_t order;                 /* its place in the loop nest (ties keep it) */
    uint8_t mode;                  /* a recompute_mode */
    bool timed;                    /* its step was priced (it fits the budget) */
    bool kept;                     /* false: a policy's keep() refused it */
    bool nd_scored;                /* nd_score is computed (search_score_nd) */
    double peak;
    candidate_time time;
    double nd_score, score;        /* score: set by a ranking policy */
} candidate;

typedef struct {
    int64_t tested, refused[REFUSE_COUNT], priced, fitting, dropped;
    double flops_per_token;        /* the model's at the run's sequence (for MFU) */
    candidate *fit;
    size_t n_fit, cap_fit;
    candidate *drops;              /* up to keep_dropped examples, in order */
    size_t n_drops, cap_drops;
    candidate lightest;            /* the dropped candidate with the lowest peak */
    bool has_lightest;
    double elapsed_s;
    char error[256];
} search_result;

/* Called every few thousand candidates with the share of the outer loop done;
 * returns nonzero to stop. */
typedef int (*search_progress)(void *data, double done);

void search_result_init(search_result *res);
void search_result_free(search_result *res);

/* Writes the fields of a candidate of the given degrees (indexed by
 * search_dim, SP as 0/1) and recompute mode over a copy of a base run: its
 * pipeline balanced afresh, one recompute mode for every layer. */
void candidate_fields(const int64_t *degree, recompute_mode mode, run_t *out);

/* The run a candidate stands for, laid over the base run (pointers of the
 * base that the candidate replaces are not copied: offsets, ranges). */
void search_candidate_run(const run_t *base, const candidate *c, run_t *out);

/* The whole step of a candidate of res (zero when it was not timed). */
void search_candidate_time(const search_result *res, const search_space *sp, const run_t *base, const candidate *c,
                           step_time *out);

#endif
