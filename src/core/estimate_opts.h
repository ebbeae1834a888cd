/* estimate_opts.h: the run's offload, allocator and training components, which the per-stage
 * peak (estimate.c) reads and describes (OFFLOAD_FIELDS, ALLOCATOR_FIELDS, TRAINING_FIELDS);
 * the step time (timing.c) reads them too. */
#ifndef NDLUA_ESTIMATE_OPTS_H
#define NDLUA_ESTIMATE_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "fields.h"

/* CPU offload: optimizer states and main params (ZeRO-Offload, FSDP
 * CPUOffload), parameters (ZeRO-Infinity, FSDP), the share of kept
 * activations moved to the host (HyperParallel/Megatron activation
 * offload); the optimizer swapped out of device memory (swap_optimizer). */
typedef struct {
    bool offload_optimizer, offload_params, swap_optimizer;
    double offload_activations;
    /* HyperParallel's activation_swap "attention" (distributed/attention_swap.py):
     * every self_attn module's saved tensors go to the host after the next
     * self_attn's forward and come back one layer ahead in the backward; the
     * last one, with no next layer, stays */
    bool swap_attention;
} offload_opts;

/* The caching allocator and what it holds beyond the live tensors. */
typedef struct {
    int64_t reserve_bytes; /* kept free beside the peak; < 0: the default (1 GiB) */
    double fragmentation;  /* reserved = allocated x (1 + fragmentation) + reserve */
    /* the training loop frees every gradient before the step's forward
     * (torchtitan: optimizer.zero_grad(set_to_none=True)), and each is
     * allocated again when its backward produces it */
    bool grads_set_to_none;
    /* the gradients are allocated on a stream of their own, whose pool the
     * caching allocator keeps apart (FSDP2: each sharded gradient views the
     * reduce-scatter output, allocated on the reduce-scatter stream) */
    bool grad_stream_pool;
    /* FSDP's last reduce-scatter input, the embedding and head's, takes new
     * segment space above the backward's peak instead of the blocks the
     * backward freed (FSDP2 allocates it after the whole backward, while the
     * head's unsharded gradient and the previous group's reduce-scatter
     * input still split them) */
    bool tables_reduce_above_peak;
} allocator_opts;

/* What the step trains and how: the head tied to the embedding (unstated:
 * as the model ties them), every weight frozen, the vision tower frozen,
 * gradient clipping, which scales every gradient, clipped or not (PyTorch's
 * clip_grad_norm_ multiplies by the clamped coefficient: clip_scales_always). */
typedef struct {
    tristate tie_embeddings;
    bool frozen, freeze_vision, grad_clip, clip_scales_always;
} training_opts;

extern const field_desc OFFLOAD_FIELDS[];
extern const field_desc ALLOCATOR_FIELDS[];
extern const field_desc TRAINING_FIELDS[];

#endif
