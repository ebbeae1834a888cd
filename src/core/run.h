/* run.h: a run's strategy and facts (the reference's ExecSpec), as the C core holds them. */
#ifndef NDLUA_RUN_H
#define NDLUA_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "activations_opts.h"
#include "derive_opts.h"
#include "estimate_opts.h"
#include "layout_opts.h"

/* A run's device memory when it states none: 64 GiB. The one statement of
 * it; Lua reads it as nd.core.defaults.device_memory (train_yaml's "64GB",
 * api_search.DEFAULT_DEVICE_MEMORY). */
#define ND_DEFAULT_DEVICE_MEMORY ((int64_t)64 << 30)

/* The modes by name, as Lua and the reports give them: off, selective, full
 * (NULL-terminated, the names nd.run reads). */
extern const char *const RECOMPUTE_NAMES[4];
/* The recompute modes by name, each one's value its place (nd.core.types.run.choices.recompute). */
extern const field_choices RECOMPUTE_MODES;
typedef enum { CP_RING, CP_ULYSSES } cp_algorithm;
/* The context-parallel algorithms by the names a run or a yaml gives (the
 * reference's typo hybird_cp among them), each one's algorithm: the one
 * statement of them (nd.core.types.run.choices.cp_algo). */
extern const field_choices CP_ALGORITHMS;
extern const char *const SWITCH_NAMES[SW_COUNT];
/* HyperParallel's selective rule: keeps attBMM and attUp, recomputes the rest. */
extern const signed char HYPERPARALLEL_SWITCHES[SW_COUNT];

/* A run: the strategy (degrees, batch, sequence, the device's memory),
 * which the search varies, and the training runtime's components, each
 * declared and described beside the formulas that read it (a runtime
 * profile, lua/nd/runtimes/, fills them). */
typedef struct {
    /* degrees */
    int64_t dp, tp, pp, vpp, cp, ep, etp;
    bool sequence_parallel;
    cp_algorithm cp_algo;
    /* batch and sequence; visual: 0 = the tower's own */
    int64_t micro_batch_size, micro_batch_num, global_batch_size;
    int64_t seq_length, visual_seq_length;
    int64_t device_memory_bytes;
    /* components */
    pipeline_opts pipeline;       /* layout_opts.h */
    recompute_opts recompute;     /* layout_opts.h */
    parallelism_opts parallelism; /* layout_opts.h */
    sharding_opts sharding;       /* derive_opts.h */
    precision_opts precision;     /* derive_opts.h */
    kernel_opts kernels;          /* activations_opts.h */
    loss_opts loss;               /* activations_opts.h */
    offload_opts offload;         /* estimate_opts.h */
    allocator_opts allocator;     /* estimate_opts.h */
    training_opts training;       /* estimate_opts.h */
} run_t;

/* Frees what run fields own (offsets, counts, ranges). */
void run_release(run_t *r);
/* A deep copy; returns 0, or -1 when out of memory (dst then holds nothing to free). */
int run_copy(run_t *dst, const run_t *src);

#endif
