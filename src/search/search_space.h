/* search_space.h: the space a search walks: its dimensions, their values, the budget and the hardware (search_space.c). */
#ifndef NDLUA_SEARCH_SPACE_H
#define NDLUA_SEARCH_SPACE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/run.h"
#include "core/timing.h"

/* The search dimensions, stated once, in the reference's ALL_DIMS order (the order the loop
 * nest and its records hold them):
 *   X(NAME, key, alias, config_key, listed, config_at, bound,
 *     column, width, form, chart_line, yaml_key, legacy_key).
 * NAME is the core's and -l's name; key a candidate's field and a report's column; alias
 * another name -l takes (the reference's MP) or NULL; config_key the search config's
 * parallelism key or NULL; listed the place in the order help and messages list them;
 * config_at the place in the search config's summary (0: not in it); bound the most a
 * candidate's table states (DEVICES, VPP, BATCH: the limits of core/nd_limits.h; BY_HAND:
 * SP and OP, which the binding reads and writes by hand).
 * The reports' facts: column, the place among the reports' degree columns (CSV, JSON, the
 * text table, a candidate's one-line form, the chart's label, resolved.yaml; the run's ETP,
 * not searched, takes SEARCH_ETP_COLUMN in the CSV and the JSON); width, the text table's
 * column width; form, COUNT (a number) or SWITCH (true/false in CSV and JSON, on/off in
 * text); chart_line, the line of the chart's label it is on (0: not on it); yaml_key and
 * legacy_key, the accelerator keys resolved.yaml writes it to in the AutoModels and the
 * legacy schema (NULL: written by its own rule, as DP, OP, SP, VPP and the batch are).
 * The enum, the names, the binding's readers of a space and of a candidate (lnd_search.c),
 * the search's CSV (search_csv.c) and nd.core.search_dims and search_columns, which every
 * Lua reader reads (parser, help, messages, the search config, the reports), come from
 * this list. */
#define SEARCH_DIMS(X)                                                                                                  \
    X(DP, "dp", NULL, "dp", 1, 1, DEVICES, 1, 4, COUNT, 1, NULL, NULL)                                                  \
    X(EP, "ep", NULL, "ep", 7, 6, DEVICES, 6, 4, COUNT, 2, "ep_size", "expert_parallel_degree")                         \
    X(TP, "tp", "MP", "tp", 2, 3, DEVICES, 2, 3, COUNT, 1, "tp_size", "tp_degree")                                      \
    X(CP, "cp", NULL, "cp", 6, 5, DEVICES, 5, 3, COUNT, 2, "cp_size", "context_parallel_degree")                        \
    X(PP, "pp", NULL, "pp", 4, 4, DEVICES, 3, 3, COUNT, 1, "pp_size", "pipeline_parallel_degree")                       \
    X(VPP, "vpp", NULL, NULL, 5, 0, VPP, 4, 3, COUNT, 2, NULL, NULL)                                                    \
    X(MB, "mb", NULL, "micro_batch_num", 9, 7, BATCH, 10, 5, COUNT, 3, NULL, NULL)                                      \
    X(MBS, "mbs", NULL, NULL, 10, 0, BATCH, 11, 3, COUNT, 3, NULL, NULL)                                                \
    X(SP, "sp", NULL, NULL, 3, 0, BY_HAND, 9, 3, SWITCH, 0, NULL, NULL)                                                 \
    X(OP, "op", NULL, "fsdp", 8, 2, BY_HAND, 8, 4, COUNT, 2, NULL, NULL)

#define SEARCH_DIM_ENUM(n, ...) DIM_##n,
typedef enum { SEARCH_DIMS(SEARCH_DIM_ENUM) DIM_COUNT } search_dim;

/* How a report writes a dimension's value. */
typedef enum { SHOWN_AS_COUNT, SHOWN_AS_SWITCH } dim_form;

typedef struct {
    const char *name, *key, *alias, *config_key;
    int listed, config_at;
    int column, width, chart_line;
    dim_form form;
    const char *yaml_key, *legacy_key;
} dim_desc;
/* Each dimension's names, places and report facts, by search_dim (SEARCH_DIMS). */
extern const dim_desc SEARCH_DIM_DESCS[DIM_COUNT];
extern const char *const DIM_NAMES[DIM_COUNT];

/* The reports' degree columns: the dimensions at their column places and the run's ETP. */
#define SEARCH_COLUMNS (DIM_COUNT + 1)
#define SEARCH_ETP_COLUMN 7
/* Fills order[0..SEARCH_COLUMNS) with the columns in their order: a search_dim, or DIM_COUNT
 * for the run's ETP. */
void search_columns(int order[SEARCH_COLUMNS]);

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
