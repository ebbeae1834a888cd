/* model.h: a model's geometry, its layer stack and kinds, parameter counts and FLOPs. */
#ifndef NDLUA_MODEL_H
#define NDLUA_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "fields.h"

/* The op vector of a layer kind, in the reference planner's units. */
enum op_index {
    OP_ATTMM, OP_ATTBMM, OP_FFMM, OP_SOFTMAX, OP_DROPOUT, OP_NORMOP,
    OP_GATHER, OP_HEADCAST, OP_FFACT, OP_LINREC, OP_COUNT
};
extern const char *const OP_NAMES[OP_COUNT];

/* A layer kind's attention and FFN, each a name's place in its list: the one statement of
 * the kinds (ATTENTION_KINDS, FFN_KINDS, nd.core.types.model.choices), which the binding
 * reads an op profile's kinds by and Lua's profile checks read. FFN_MODEL: the model's own
 * (dense or MoE, as its experts say), what an absent ffn means. */
typedef enum { ATTENTION_FULL, ATTENTION_LINEAR } attention_flavour;
typedef enum { FFN_MODEL, FFN_DENSE, FFN_MOE } ffn_flavour;
extern const field_choices ATTENTION_KINDS, FFN_KINDS;

/* The attention a kind is priced as, settled from its flavour and the model's geometry: full
 * (MHA/GQA/MQA), MLA (a full attention with latent q/kv), linear; each one descriptor
 * (layer_kinds.c ATTENTION_FORMS). */
typedef enum { FORM_FULL, FORM_MLA, FORM_LINEAR, ATTENTION_FORM_COUNT } attention_form;

/* The feed-forward a kind is priced as, settled from its FFN flavour and the model's experts:
 * dense (an MLP, gated or plain by its ffMM count) or MoE (routed experts, with shared ones
 * where the model has them); each one descriptor (layer_kinds.c FFN_FORMS). */
typedef enum { FFN_FORM_DENSE, FFN_FORM_MOE, FFN_FORM_COUNT } ffn_form;

/* A census record: bytes per token at micro-batch 1 of one layer (or the output layer). */
typedef struct {
    double saved, saved_tp, working, working_tp;
    bool has_selective;
    double selective, selective_tp;
    bool has_shares;
    double selective_attention_mm, selective_ffn_mm;
    int64_t seq_length;
} census_record;

/* The run defaults of a model family (its op profile's `run` section), and
 * the family's model facts (its `model` section; its v_head_dim is settled
 * into the spec by nd.model.spec). */
typedef struct {
    int grad_bytes, optimizer_state_bytes, optimizer_states, main_param_bytes;
    int norm_bytes, dropout_bytes;
    bool grad_accumulation, shard_activations, loss_parallel, reshard_params;
    bool deferred_grad_accumulation, overlapped_grad_reduce, flash_attention;
    /* implementation facts the profile states: Qwen3.5's zero-centred fp32
     * norms, DeepSeek's fp32 sigmoid router, no rotary embedding of queries
     * and keys (GPT's and PanGu-alpha's learned positions, T5's relative bias) */
    bool zero_centered_norms, sigmoid_router, no_rope;
} family_run;

/* Parameters of one layer of a kind, split as the sharding rules treat them. */
typedef struct {
    double attention, norms, dense_mlp, router, routed, shared;
} layer_params;

/* A layer kind as the memory model prices it. */
typedef struct {
    char *name;
    double ops[OP_COUNT];
    attention_flavour attention;
    ffn_flavour ffn;
    ffn_form feed_forward; /* settled (layer_kinds.h) */
    bool moe;          /* its feed-forward is a mixture of experts: feed_forward == FFN_FORM_MOE */
    attention_form form; /* settled (layer_kinds.h) */
    bool mla;          /* its attention is MLA (latent q/kv): form == FORM_MLA */
    /* attention geometry as priced: query heads, KV heads, q/k and v head widths */
    double heads, kv_heads, qk_head_dim, v_head_dim;
    double ffn_width;  /* dense width, or the routed expert width */
    layer_params params;
    census_record *census; /* NULL: priced by formulas */
} layer_kind;

typedef struct {
    int kind;      /* index into model.kinds */
    int64_t count;
    bool mtp;
} layer_group;

typedef struct model model_t;

struct model {
    char *name, *arch;
    int64_t hidden, layers, heads, kv_heads, vocab, max_positions;
    double head_dim;
    /* the share of each query and key head the rotary embedding turns
     * (partial_rotary_factor: Qwen3-Next's and Qwen3.5's 0.25), 1 unstated */
    double rotary_fraction;
    int64_t ffn_width;            /* dense FFN width */
    int64_t experts, top_k, shared_experts, expert_width, shared_width, first_dense, mtp_depth;
    int64_t kv_lora_rank, q_lora_rank, rope_head_dim, nope_head_dim, v_head_dim;
    int64_t lin_key_heads, lin_key_dim, lin_value_heads, lin_value_dim, lin_conv;
    int64_t layer_norms, learned_positions;
    bool attn_output_gate, tied, qk_norm, qkv_bias, o_bias, mlp_bias, norm_bias, shared_gate;
    family_run family;
    layer_kind *kinds;
    int n_kinds;
    layer_group *groups;
    int n_groups;
    census_record *output_census;
    /* vision towers only */
    int64_t patch_size, temporal_patch, in_channels, merge_size, out_hidden, deepstack_mergers;
    bool patch_bias;
    model_t *vision; /* the tower, or NULL */
};

void model_free(model_t *m);
/* The index of the layer kind named `name`, or -1. */
int model_kind_index(const model_t *m, const char *name);

/* Body layers (MTP excluded) and MTP layers of the stack. */
int64_t model_body_layers(const model_t *m);
int64_t model_mtp_layers(const model_t *m);

#endif
