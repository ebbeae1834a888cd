/* search_space.h: the space a search walks: its dimensions, their values, the budget and the hardware (search_space.c). */
#ifndef NDLUA_SEARCH_SPACE_H
#define NDLUA_SEARCH_SPACE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/run.h"
#include "core/timing.h"

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
    int n_modes;                   /* 0: the base run's own run-wide recompute (search_nest.c own_mode) */
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

#endif
