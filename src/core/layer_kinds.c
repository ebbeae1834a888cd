/* layer_kinds.c: the attention forms a layer kind is priced as (full, MLA, linear) and its
 * feed-forward forms (dense, MoE), each one row: when it applies, what it needs, its geometry,
 * its weights and its FLOPs. */
#include "layer_kinds.h"

#include <stdio.h>

/* Tokens a chunk of the gated delta rule holds (Transformers' chunked rule uses 64). */
#define DELTA_RULE_CHUNK 64.0

/* Full attention (MHA/GQA/MQA): any kind of the full flavour in a model without a KV latent.
 * Geometry: the model's heads and KV heads, head_dim for q/k and v.
 * Weights, after the reference's lineage B (memory-model.md §11.3), with n = attMM/4 attention
 * blocks (4 projections each):
 *   n·[ h·(g·a·d) + h·(a·d) + 2·h·(kv·d) ] + biases
 * g = 2 with Qwen3.5's output gate fused into q_proj; biases are the output widths of q, k, v
 * (qkv_bias) and h (o_bias).
 * Scores per token: 2·a·s·(d_qk + d_v) · causal (QK^T and AV), per block. */
static bool full_applies(const model_t *m, attention_flavour a)
{
    return a == ATTENTION_FULL && m->kv_lora_rank <= 0;
}

static void full_geometry(const model_t *m, layer_kind *k)
{
    k->heads = (double)m->heads;
    k->kv_heads = (double)m->kv_heads;
    k->qk_head_dim = m->head_dim;
    k->v_head_dim = m->head_dim;
}

static double full_params(const model_t *m, const layer_kind *k)
{
    double h = (double)m->hidden, blocks = k->ops[OP_ATTMM] / 4.0;
    double g = m->attn_output_gate ? 2.0 : 1.0;
    double dq = k->heads * k->qk_head_dim, dkv = k->kv_heads * k->qk_head_dim;
    double weights = h * g * dq + dq * h + 2 * h * dkv;
    double biases = (m->qkv_bias ? g * dq + 2 * dkv : 0) + (m->o_bias ? h : 0);
    return blocks * (weights + biases);
}

static attention_flops softmax_flops(const layer_kind *k, double s, double causal)
{
    double blocks = k->ops[OP_ATTMM] / 4.0;
    return (attention_flops){blocks * 2.0 * k->heads * s * (k->qk_head_dim + k->v_head_dim) * causal, 0.0};
}

/* MLA (§11.4, DeepSeek-V2/V3): a full-flavour kind in a model with a KV latent
 * (kv_lora_rank > 0). Geometry: q/k heads of d_nope + d_rope (d_nope: qk_nope_head_dim, else
 * head_dim), v heads of v_head_dim (else head_dim). Weights:
 *   query  = h·cq + cq + cq·a·(dn + dr)      (h·a·(dn + dr) without a q latent)
 *   kv     = h·(ckv + dr) + ckv + ckv·kv·(dn + dv)
 *   output = a·dv·h
 * Scores as full attention's. */
static bool mla_applies(const model_t *m, attention_flavour a)
{
    return a == ATTENTION_FULL && m->kv_lora_rank > 0;
}

static void mla_geometry(const model_t *m, layer_kind *k)
{
    k->heads = (double)m->heads;
    k->kv_heads = (double)m->kv_heads;
    double nope = m->nope_head_dim > 0 ? (double)m->nope_head_dim : m->head_dim;
    k->qk_head_dim = nope + (double)m->rope_head_dim;
    k->v_head_dim = m->v_head_dim > 0 ? (double)m->v_head_dim : m->head_dim;
}

static double mla_params(const model_t *m, const layer_kind *k)
{
    double h = (double)m->hidden, blocks = k->ops[OP_ATTMM] / 4.0;
    double a = k->heads, dr = (double)m->rope_head_dim, dn = k->qk_head_dim - dr, dv = k->v_head_dim;
    double cq = (double)m->q_lora_rank, ckv = (double)m->kv_lora_rank;
    double query = cq > 0 ? h * cq + cq + cq * a * (dn + dr) : h * a * (dn + dr);
    double kv = h * (ckv + dr) + ckv + ckv * k->kv_heads * (dn + dv);
    return blocks * (query + kv + a * dv * h);
}

/* Linear attention, the gated DeltaNet (Qwen3-Next / Qwen3.5): a kind of the linear flavour; it
 * needs the model's linear-attention dims. Geometry: nv value heads (as query heads), nk key
 * heads, dk and dv. Weights, per Transformers' Qwen3NextGatedDeltaNet: in_proj_qkvz
 * h·(2·nk·dk + 2·nv·dv), in_proj_ba h·2·nv, depthwise conv c·(2·nk·dk + nv·dv), dt_bias and
 * A_log 2·nv, the gated norm dv, out_proj nv·dv·h.
 * The chunked gated delta rule per token (forward third of the reference's fwd+bwd table
 * 3·n_v·(2·C·(3·d_k + 2·d_v) + 6·d_k·d_v), C = 64): n_v·(2·C·(3·d_k + 2·d_v) + 6·d_k·d_v). */
static bool linear_applies(const model_t *m, attention_flavour a)
{
    (void)m;
    return a == ATTENTION_LINEAR;
}

static const char *linear_check(const model_t *m, const layer_kind *k, char *err, int errlen)
{
    if (m->lin_key_heads > 0 && m->lin_key_dim > 0 && m->lin_value_heads > 0 && m->lin_value_dim > 0)
        return NULL;
    snprintf(err, errlen, "layer kind '%s' is linear attention, but a linear-attention dim is 0", k->name);
    return err;
}

static void linear_geometry(const model_t *m, layer_kind *k)
{
    k->heads = (double)m->lin_value_heads;
    k->kv_heads = (double)m->lin_key_heads;
    k->qk_head_dim = (double)m->lin_key_dim;
    k->v_head_dim = (double)m->lin_value_dim;
}

static double linear_params(const model_t *m, const layer_kind *k)
{
    double h = (double)m->hidden, blocks = k->ops[OP_ATTMM] / 4.0;
    double kd = (double)(m->lin_key_heads * m->lin_key_dim);
    double vd = (double)(m->lin_value_heads * m->lin_value_dim);
    double nv = (double)m->lin_value_heads;
    return blocks * (h * (2 * kd + 2 * vd) + vd * h) + (double)m->lin_conv * (2 * kd + vd) + 2 * h * nv + 2 * nv +
           (double)m->lin_value_dim;
}

static attention_flops linear_flops(const layer_kind *k, double s, double causal)
{
    (void)s;
    (void)causal;
    double dk = k->qk_head_dim, dv = k->v_head_dim;
    return (attention_flops){0.0, k->heads * (2 * DELTA_RULE_CHUNK * (3 * dk + 2 * dv) + 6 * dk * dv)};
}

/* The recurrent state, one d_k × d_v matrix a value head, in fp32 (4 bytes), as the
 * chunked rule carries it from one block of the sequence to the next. */
static double linear_cp_state(const layer_kind *k)
{
    return k->heads * k->qk_head_dim * k->v_head_dim * 4.0;
}

/* A softmax form passes K and V, no state. */
static double no_state(const layer_kind *k)
{
    (void)k;
    return 0.0;
}

/* Needs nothing beyond the model's own sizes, which model_settle checks. */
static const char *no_check(const model_t *m, const layer_kind *k, char *err, int errlen)
{
    (void)m;
    (void)k;
    (void)err;
    (void)errlen;
    return NULL;
}

const attention_desc ATTENTION_FORMS[ATTENTION_FORM_COUNT] = {
    [FORM_FULL] = {"full", true, full_applies, no_check, full_geometry, full_params, softmax_flops, no_state},
    [FORM_MLA] = {"mla", true, mla_applies, no_check, mla_geometry, mla_params, softmax_flops, no_state},
    [FORM_LINEAR] = {"linear", false, linear_applies, linear_check, linear_geometry, linear_params, linear_flops,
                    linear_cp_state},
};

attention_form attention_form_of(const model_t *m, attention_flavour a)
{
    for (int f = 0; f < ATTENTION_FORM_COUNT; f++)
        if (ATTENTION_FORMS[f].applies(m, a))
            return (attention_form)f;
    return FORM_FULL; /* every flavour has a form: full and linear always apply */
}

/* One feed-forward of width w: ffMM matrices of h·w (3 gated, 2 plain), with biases
 * (ffMM − 1)·w + h when the MLP has them. */
static double mlp_params(const model_t *m, const layer_kind *k, double w)
{
    double h = (double)m->hidden, n = k->ops[OP_FFMM];
    return n * h * w + (m->mlp_bias ? (n - 1) * w + h : 0);
}

/* Dense: a kind of the dense flavour, or of the model's own in a model without experts. One
 * MLP of intermediate_size over TP; 2 FLOPs a weight a token. */
static bool dense_applies(const model_t *m, ffn_flavour f)
{
    return f == FFN_DENSE || (f == FFN_MODEL && m->experts <= 1);
}

static const char *dense_check(const model_t *m, const layer_kind *k, char *err, int errlen)
{
    if (m->ffn_width > 0)
        return NULL;
    snprintf(err, errlen, "layer kind '%s' is dense, but intermediate_size is not stated", k->name);
    return err;
}

static double dense_width(const model_t *m) { return (double)m->ffn_width; }

static double dense_tp_width(const model_t *m, const layer_kind *k)
{
    (void)m;
    return k->ffn_width;
}

static void dense_params(const model_t *m, const layer_kind *k, layer_params *p)
{
    p->dense_mlp = mlp_params(m, k, k->ffn_width);
}

static ffn_flops dense_flops(const model_t *m, const layer_kind *k)
{
    (void)m;
    return (ffn_flops){2.0 * k->params.dense_mlp, 0.0, 0.0, 0.0};
}

/* MoE: a kind of the moe flavour, or of the model's own in a model with experts; it needs
 * them. A router of h·E weights, E routed experts of moe_intermediate_size (a token runs top-k),
 * shared experts of shared_width with Qwen's sigmoid gate (h weights) where the model has it. */
static bool moe_applies(const model_t *m, ffn_flavour f)
{
    return f == FFN_MOE || (f == FFN_MODEL && m->experts > 1);
}

static const char *moe_check(const model_t *m, const layer_kind *k, char *err, int errlen)
{
    if (m->experts <= 1)
        snprintf(err, errlen, "layer kind '%s' is a mixture of experts, but num_experts is %lld", k->name,
                 (long long)m->experts);
    else if (m->expert_width <= 0)
        snprintf(err, errlen, "layer kind '%s' is a mixture of experts, but moe_intermediate_size is not stated",
                 k->name);
    else
        return NULL;
    return err;
}

static double moe_width(const model_t *m) { return (double)m->expert_width; }

static double moe_tp_width(const model_t *m, const layer_kind *k)
{
    (void)k;
    return (double)m->shared_width;
}

static void moe_params(const model_t *m, const layer_kind *k, layer_params *p)
{
    double h = (double)m->hidden;
    p->router = h * (double)m->experts;
    p->routed = (double)m->experts * mlp_params(m, k, (double)m->expert_width);
    if (m->shared_width > 0)
        p->shared = mlp_params(m, k, (double)m->shared_width) + (m->shared_gate ? h : 0);
}

static ffn_flops moe_flops(const model_t *m, const layer_kind *k)
{
    const layer_params *p = &k->params;
    return (ffn_flops){2.0 * p->dense_mlp, 2.0 * p->routed * (double)m->top_k / (double)m->experts,
                       2.0 * p->shared, 2.0 * p->router};
}

const ffn_desc FFN_FORMS[FFN_FORM_COUNT] = {
    [FFN_FORM_DENSE] = {"dense", false, dense_applies, dense_check, dense_width, dense_tp_width, dense_params,
                        dense_flops},
    [FFN_FORM_MOE] = {"moe", true, moe_applies, moe_check, moe_width, moe_tp_width, moe_params, moe_flops},
};

ffn_form ffn_form_of(const model_t *m, ffn_flavour f)
{
    for (int i = 0; i < FFN_FORM_COUNT; i++)
        if (FFN_FORMS[i].applies(m, f))
            return (ffn_form)i;
    return FFN_FORM_DENSE; /* every flavour has a form: dense or moe applies to each */
}
