/* run.h: a run's strategy and facts (the reference's ExecSpec), as the C core holds them. */
#ifndef NDLUA_RUN_H
#define NDLUA_RUN_H

#include <stdbool.h>
#include <stdint.h>

/* A run's device memory when it states none: 64 GiB. The one statement of
 * it; Lua reads it as nd.core.defaults.device_memory (train_yaml's "64GB",
 * api_search.DEFAULT_DEVICE_MEMORY). */
#define ND_DEFAULT_DEVICE_MEMORY ((int64_t)64 << 30)

typedef enum { SCHED_1F1B, SCHED_GPIPE, SCHED_SEQPIPE, SCHED_ZERO_BUBBLE_V } pp_schedule;
/* In the order lnd_run.c names them: a name's value is its place in the list. */
typedef enum { REC_OFF, REC_SELECTIVE, REC_FULL } recompute_mode;
/* The modes by name, as Lua and the reports give them: off, selective, full
 * (NULL-terminated, the names nd.run reads). */
extern const char *const RECOMPUTE_NAMES[4];
/* In the order lnd_run.c names them: a name's value is its place in the list. */
typedef enum { RULE_HYPERPARALLEL, RULE_MINDFORMERS, RULE_MEGATRON, RULE_TORCHTITAN } selective_rule;
typedef enum { CP_RING, CP_ULYSSES } cp_algorithm;
/* How the layer's code rotates its queries and keys (rotary position
 * embedding), which prices its element-wise traffic: Transformers' eager
 * rotate_half form, one fused kernel (Transformer Engine, torch.compile of
 * real-valued code), torchtitan's complex product in fp32; in the order
 * lnd_run.c names them. */
typedef enum { ROPE_ROTATE_HALF, ROPE_FUSED, ROPE_COMPLEX } rope_form;

/* The ops a selective recompute can drop: 1 keeps the op's activation, 0 recomputes it. */
enum switch_index { SW_ATTBMM, SW_HEADCAST, SW_DROPOUT, SW_SOFTMAX, SW_NORMOP, SW_GATHER, SW_FFACT, SW_ATTUP, SW_COUNT };
extern const char *const SWITCH_NAMES[SW_COUNT];
/* HyperParallel's selective rule: keeps attBMM and attUp, recomputes the rest. */
extern const signed char HYPERPARALLEL_SWITCHES[SW_COUNT];

/* A flag a run may leave unstated (then the model family decides). */
typedef enum { UNSTATED = -1, NO = 0, YES = 1 } tristate;

/* Layers [first, first + count) in model order (body then MTP) with one
 * recompute option; count < 0 runs to the last layer. A selective range may
 * name ops to keep or recompute (has_ops), the others kept. */
typedef struct {
    int64_t first, count;
    recompute_mode mode;
    bool has_ops;
    signed char ops[SW_COUNT];
} recompute_range;

/* How a per-stage form is stated: not at all, as a flag for every layer,
 * or as counts per stage (n = pp) or per chunk (n = pp·vpp, chunk-major). */
typedef enum { FORM_NONE, FORM_ALL, FORM_STAGES, FORM_CHUNKS } stage_form;

typedef struct {
    stage_form form;
    int64_t *counts; /* first counts layers of each stage (or chunk) */
} per_stage;

typedef struct {
    /* degrees */
    int64_t dp, tp, pp, vpp, cp, ep, etp;
    bool sequence_parallel;
    /* batch */
    int64_t micro_batch_size, micro_batch_num, global_batch_size;
    /* sharding: ZeRO / HyperParallel FSDP */
    bool optimizer_parallel, grad_shard, grad_shard_as_params, shard_spans_cp, reshard_params;
    bool deferred_grad_accumulation, overlapped_grad_reduce, expert_shard_group;
    int64_t optimizer_shard, expert_shard; /* 0: unstated */
    tristate grad_accumulation, shard_activations, loss_parallel, param_casts, flash_attention;
    tristate param_shard; /* parameters sharded with the optimizer (ZeRO-3 / FSDP); unstated: as optimizer_parallel */
    /* pipeline */
    pp_schedule schedule;
    int64_t seq_split;
    per_stage offset;         /* FORM_STAGES/FORM_CHUNKS, or FORM_NONE = balanced */
    bool mtp_in_offset, emb_out_in_offset;
    /* recompute */
    per_stage full_recompute, selective_recompute;
    recompute_range *ranges;
    int n_ranges;             /* > 0: the ranges replace the per-stage forms */
    selective_rule rule;
    bool selective_comm_recompute, recompute_slice_activation;
    /* byte widths; -1: the family's */
    int param_bytes, compute_bytes, softmax_bytes;
    int grad_bytes, optimizer_state_bytes, main_param_bytes, norm_bytes, dropout_bytes, optimizer_states;
    /* features */
    bool grad_clip, grouped_gemm, vocab_emb_dp, emb_dp_sharded, shard_mtp_param;
    tristate tie_embeddings; /* unstated: as the model's tie_word_embeddings */
    bool frozen, freeze_vision, swap_optimizer;
    cp_algorithm cp_algo;
    double capacity_factor;
    int64_t seq_length, visual_seq_length; /* visual: 0 = the tower's own */
    int64_t device_memory_bytes, reserve_bytes; /* reserve < 0: the default (1 GiB) */
    /* the runtime's kernels and allocator (lua/nd/runtimes/): fused RMSNorm/LayerNorm
     * kernels keep the input and the fp32 statistics (Megatron's TE/Apex norms,
     * torch.compile) instead of eager PyTorch's fp32 upcast; a fused SwiGLU keeps
     * the gate-and-up output and its own output (Megatron's bias_swiglu_impl);
     * the loss upcasts the logits to fp32, and writes its gradient over its own
     * saved probabilities (Megatron's vocab-parallel cross-entropy) */
    tristate fused_norm, fused_swiglu, loss_upcast, loss_inplace_grad;
    /* the attention repeats K and V to the query heads before the kernel,
     * which then keeps the copies (torchtitan's Llama repeat_kv) */
    bool repeat_kv;
    rope_form rope;
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
    /* a family without dropout still keeps two 1-byte masks a layer, its
     * residual dropouts' (Megatron's bias-dropout-adds: at its default
     * hidden_dropout 0.1, or at 0 under TorchScript, its jit_fuser before
     * PyTorch 2.2, where native_dropout makes the mask whatever the
     * probability) */
    bool hidden_dropout_masks;
    /* FSDP copies each gathered parameter out of its all-gather buffer and
     * each gradient into its reduce-scatter buffer (FSDP2's foreach copy-in
     * and copy-out), HBM work beside the collectives */
    bool gather_copies;
    /* gradient clipping scales every gradient, clipped or not (PyTorch's
     * clip_grad_norm_ multiplies by the clamped coefficient) */
    bool clip_scales_always;
    double fragmentation; /* reserved = allocated x (1 + fragmentation) + reserve */
    /* DP collectives run in the contiguous gradient and parameter buffers
     * (Megatron's DDP and distributed optimizer): no bucket beside them */
    bool inplace_dp_buffers;
    /* TP's all-reduces run in place in the matmuls' outputs (Megatron): no
     * buffer beside them unless sequence parallelism gathers */
    bool inplace_tp_reduce;
    /* weights gathered for the forward are kept through the backward (MindSpore's
     * parallel optimizer without its all-gather recomputed); unstated: FSDP's
     * reshard_params decides */
    tristate keep_gathered_params;
    /* CPU offload: optimizer states and main params (ZeRO-Offload, FSDP
     * CPUOffload), parameters (ZeRO-Infinity, FSDP), the share of kept
     * activations moved to the host (HyperParallel/Megatron activation offload) */
    bool offload_optimizer, offload_params;
    double offload_activations;
} run_t;

/* Frees what run fields own (offsets, counts, ranges). */
void run_release(run_t *r);
/* A deep copy; returns 0, or -1 when out of memory (dst then holds nothing to free). */
int run_copy(run_t *dst, const run_t *src);

#endif
