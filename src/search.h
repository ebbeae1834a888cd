/* search.h: enumerating and pricing parallel strategies (the reference planner's search space). */
#ifndef NDLUA_SEARCH_H
#define NDLUA_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "estimate.h"
#include "model.h"
#include "run.h"
#include "timing.h"

/* The dimensions, in the reference's ALL_DIMS order. */
typedef enum { DIM_DP, DIM_EP, DIM_TP, DIM_CP, DIM_PP, DIM_VPP, DIM_MB, DIM_MBS, DIM_SP, DIM_OP, DIM_COUNT } search_dim;
extern const char *const DIM_NAMES[DIM_COUNT];

typedef struct {
    bool searched;      /* else pinned to `pinned` */
    int64_t pinned;
    int64_t bound;      /* the largest value searched (0: no bound) */
    int64_t *allowed;   /* candidate values a search config lists (NULL: any) */
    int n_allowed;
} dim_space;

/* Why a candidate was refused, most common reasons of the reference first. */
typedef enum {
    REFUSE_BOUNDS, REFUSE_EP_BOUND, REFUSE_EP_DIVISIBILITY, REFUSE_FILTERED, REFUSE_CP, REFUSE_BATCH,
    REFUSE_LAYOUT, REFUSE_COUNT
} refusal;
extern const char *const REFUSAL_NAMES[REFUSE_COUNT];

/* The keys a search can rank by as it prices (search_space.top_keys). */
enum { TOP_STEP = 1, TOP_PEAK = 2 };
#define SEARCH_TOP_KEYS 2

typedef struct {
    int64_t devices, global_batch;
    double budget_bytes;           /* a candidate fits when its peak is at most this */
    dim_space dims[DIM_COUNT];
    recompute_mode modes[3];
    int n_modes;                   /* 0: the base run's own run-wide recompute (search.c own_mode) */
    hardware_t hw;
    int64_t keep_dropped;          /* dropped candidates kept as examples */
    int threads;                   /* threads the search runs on (0: the online cores) */
    int64_t top;                   /* > 0: only the `top` fitting candidates that rank first by
                                    * top_keys are kept (a bounded heap; fitting counts them all) */
    int top_keys[SEARCH_TOP_KEYS]; /* TOP_STEP, TOP_PEAK: ascending; negated: descending */
    int n_top_keys;
    bool floor;                    /* make bench's floor: the nest and its rules, each valid
                                    * candidate "priced" by one sum a stage and layer kind */
} search_space;

/* A candidate's step as the search keeps it: the parts (seconds) and the
 * step. Its straggler, model FLOPs, MFU and throughput follow from these
 * and the candidate (search_candidate_time), so they are not stored. */
typedef struct {
    double forward, backward, recompute, tp, cp, ep, pp, dp, bubble, optimizer, step;
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

/* Runs the search. Returns 0, or -1 with res->error (out of memory). */
int search_run(const model_t *m, const run_t *base, const search_space *sp, search_result *res,
               search_progress progress, void *progress_data);

/* The candidates search_run would test (each recompute mode counted), found
 * by walking the outer loops only: the inner ones multiply. Saturates at
 * INT64_MAX; -1 when out of memory. */
int64_t search_count(const model_t *m, const search_space *sp);

/* A worker holds what pricing candidates needs (an estimate, a layout
 * cache, layer prices): the search makes one a thread, and a result keeps
 * one to score its candidates on demand. The model, base run and space
 * must outlive it. NULL: out of memory. */
typedef struct search_worker search_worker;
search_worker *search_worker_new(const model_t *m, const run_t *base, const search_space *sp);
void search_worker_free(search_worker *w);

/* The reference score (nd_score) is left by the search to the candidates a
 * policy, a sort or a report reads: this computes it for those of cands
 * that lack it. Returns 0, or -1 (out of memory, or a candidate's layout
 * no longer builds). */
int search_score_nd(search_worker *w, candidate *cands, size_t n);

/* The run a candidate stands for, laid over the base run (pointers of the
 * base that the candidate replaces are not copied: offsets, ranges). */
void search_candidate_run(const run_t *base, const candidate *c, run_t *out);

/* The whole step of a candidate of res (zero when it was not timed). */
void search_candidate_time(const search_result *res, const search_space *sp, const run_t *base, const candidate *c,
                           step_time *out);

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
