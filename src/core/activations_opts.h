/* activations_opts.h: the run's kernels and loss components, which decide what each layer keeps
 * for its backward (activations.c, which describes them: KERNEL_FIELDS, LOSS_FIELDS) and what its
 * element-wise kernels move (timing.c). */
#ifndef NDLUA_ACTIVATIONS_OPTS_H
#define NDLUA_ACTIVATIONS_OPTS_H

#include <stdbool.h>

#include "fields.h"

/* How the layer's code rotates its queries and keys (rotary position
 * embedding), which prices its element-wise traffic: Transformers' eager
 * rotate_half form, one fused kernel (Transformer Engine, torch.compile of
 * real-valued code), torchtitan's complex product in fp32; in the order
 * KERNEL_FIELDS names them. */
typedef enum { ROPE_ROTATE_HALF, ROPE_FUSED, ROPE_COMPLEX } rope_form;

/* The runtime's kernels and fusions (lua/nd/runtimes/). Unstated, eager
 * PyTorch as Transformers runs it. */
typedef struct {
    tristate flash_attention; /* unstated: the family's */
    /* fused RMSNorm/LayerNorm kernels keep the input and the fp32 statistics
     * (Megatron's TE/Apex norms, torch.compile) instead of eager PyTorch's
     * fp32 upcast; a fused SwiGLU keeps the gate-and-up output and its own
     * output (Megatron's bias_swiglu_impl) */
    tristate fused_norm, fused_swiglu;
    /* the attention repeats K and V to the query heads before the kernel,
     * which then keeps the copies (torchtitan's Llama repeat_kv) */
    bool repeat_kv;
    rope_form rope;
    /* a family without dropout still keeps two 1-byte masks a layer, its
     * residual dropouts' (Megatron's bias-dropout-adds: at its default
     * hidden_dropout 0.1, or at 0 under TorchScript, its jit_fuser before
     * PyTorch 2.2, where native_dropout makes the mask whatever the
     * probability) */
    bool hidden_dropout_masks;
    /* the experts run as one grouped GEMM (dropless); else each with a
     * buffer of capacity_factor x its share of the routed tokens */
    bool grouped_gemm;
    double capacity_factor;
    /* the expert all-to-all runs on DeepEP's internode kernels: a token
     * crosses the network once per destination node and is forwarded to
     * that node's ranks over NVLink (timing.c deepep_seconds); ep_node_limit
     * caps the nodes a token's experts may sit on (0: none) */
    bool deepep;
    int64_t ep_node_limit;
} kernel_opts;

/* The loss: the logits split over TP (vocab-parallel; unstated: the
 * family's); upcast to fp32; its gradient written over its own saved
 * probabilities (Megatron's vocab-parallel cross-entropy). */
typedef struct {
    tristate loss_parallel, loss_upcast, loss_inplace_grad;
    /* under sequence parallelism the head gathers its input before the
     * matmul, which saves the gathered input (torchtitan's ColwiseParallel
     * plan for the output with input_layouts Shard(1)); else the head saves
     * the rank's sequence shard and gathers it again in the backward
     * (Megatron's ColumnParallelLinear) */
    bool head_input_gathered;
    /* the upcast copy of the logits is the one the loss keeps: the maximum
     * subtracted, exponentiated and normalised in place (Megatron-Core's
     * VocabParallelCrossEntropy since core_r0.9.0); else each step makes a
     * new fp32 tensor (the older out-of-place cross-entropy) */
    bool loss_inplace_softmax;
    /* under loss parallel (TP > 1) the log-softmax and its fused NLL
     * backward run as DTensor's decomposition (PyTorch's
     * torch/distributed/tensor/parallel/loss.py), which holds one more
     * vocabulary-sized tensor of the loss width at both peaks: the shifted
     * logits beside their exp or the result, and grad_input beside the
     * sum and product */
    bool loss_parallel_decomposed;
    /* the loss keeps fp32 one-hot labels over the (TP-split) vocabulary
     * beside its log-softmax for its backward (MindFormers' CrossEntropyLoss:
     * _LogSoftmax makes OneHot(label) with fp32 on/off values, and _NLLLoss's
     * custom bprop takes both its inputs, mindformers/core/loss/loss.py) */
    bool loss_keeps_one_hot;
} loss_opts;

extern const field_desc KERNEL_FIELDS[];
extern const field_desc LOSS_FIELDS[];

#endif
