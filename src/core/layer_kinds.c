/* layer_kinds.c: the attention forms a layer kind is priced as (full, MLA, linear) and its
 * feed-forward forms (dense, MoE), each one row: when it applies, what it needs, its geometry,
 * its weights, its FLOPs, and an attention's kept bytes and time facts. */
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

/* What full attention keeps for backward, one block of four projections (act_split):
 *   attMM   the projections' input (h, replicated)
 *   attBMM  q, k, v and the kernel output (tp; K/V whole under ring CP)
 *   gate    Qwen3.5's output gate: sigmoid(gate) and the gated product
 *   scores  without flash attention: a·s per token of softmax output (bs),
 *           dropout mask (bd) and dropout/cast output (bc), each switchable;
 *           with flash attention the kernel's fp32 statistics instead
 *   qk norm the inputs of Qwen3's per-head q and k norms (bn) */
static void full_kept(act_split *o, const model_t *m, const layer_kind *k, const derived_t *d,
                      const signed char *keep, double seq, double kv_factor)
{
    double h = (double)m->hidden, a = k->heads, kv = k->kv_heads, dqk = k->qk_head_dim, dv = k->v_head_dim;
    double bc = d->bytes_compute, blocks = k->ops[OP_ATTMM] / 4.0;
    double softmaxes = k->ops[OP_SOFTMAX];
    o->shared += blocks * h * bc;
    /* K and V repeated to the query heads before a flash kernel (repeat_kv)
     * are what it keeps; the kv-wide originals are not saved */
    double kv_kept = d->flash && d->repeat_kv ? a : kv;
    double kernel = a * dqk + kv_kept * (dqk + dv) * kv_factor + a * dv;
    if (m->attn_output_gate)
        kernel += 2.0 * a * dv;
    o->tp += blocks * kernel * bc * keeps(keep, SW_ATTBMM);
    if (d->flash) {
        /* the flash kernel keeps its statistics with q, k, v and its output */
        o->tp += softmaxes * a * FLASH_STATS_BYTES * keeps(keep, SW_ATTBMM);
    } else {
        o->tp += softmaxes * a * seq * kept_score_bytes(d, keep);
        /* eager GQA repeats k and v to the query heads for the two products,
         * which keep the copies beside the originals */
        if (kv < a)
            o->tp += blocks * a * (dqk + dv) * kv_factor * bc * keeps(keep, SW_ATTBMM);
    }
    if (m->qk_norm) { /* Qwen3's per-head q and k RMSNorms */
        o->tp += (a + kv) * kept_norm_bytes(m, d, keep, dqk);
        o->layer += 2.0 * kept_norm_layer_bytes(m, keep, dqk); /* one weight of d a layer, replicated */
        /* recomputed, the q norm keeps its input, a view of q_proj's output,
         * which with Qwen3.5's output gate holds the gate too */
        if (m->attn_output_gate && !keeps(keep, SW_NORMOP))
            o->tp += a * dqk * bc;
    }
}

/* The rotary embedding turns the share rotary_fraction (partial_rotary_factor) of each of the
 * a/t query and kv/t key heads of d_qk. */
static double full_rotated(const model_t *m, const layer_kind *k, double t)
{
    return m->rotary_fraction * (k->heads + k->kv_heads) * k->qk_head_dim / t;
}

/* q, k and v from h (a/t query heads of d_qk, kv/t key heads of d_qk and of d_v), the output
 * from a/t heads of d_v. */
static attention_gemms full_gemms(const model_t *m, const layer_kind *k, double t)
{
    (void)m;
    return (attention_gemms){(k->heads * k->qk_head_dim + k->kv_heads * (k->qk_head_dim + k->v_head_dim)) / t,
                             k->heads * k->v_head_dim / t};
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

/* What MLA keeps for backward, one block, as Transformers' DeepseekV3Attention keeps it:
 * replicated over TP, the input h, the q latent's RMSNorm and its output
 * (q_b_proj's input), the kv latent's RMSNorm (recomputed: its input, a view
 * of kv_a_proj's whole output, latent and rope) and its output (kv_b_proj's
 * input); per head, the query and key (d_nope + d_rope each), kv_b_proj's
 * output (d_nope + d_v, which the value views), the kernel's output and
 * statistics. attUp switches the key and kv_b_proj's output, which the
 * latent rebuilds. */
static void mla_kept(act_split *o, const model_t *m, const layer_kind *k, const derived_t *d,
                     const signed char *keep, double seq, double kv_factor)
{
    double h = (double)m->hidden, a = k->heads, dqk = k->qk_head_dim, dv = k->v_head_dim, dr = (double)m->rope_head_dim;
    double dn = dqk - dr, cq = (double)m->q_lora_rank, ckv = (double)m->kv_lora_rank;
    double bc = d->bytes_compute, blocks = k->ops[OP_ATTMM] / 4.0;
    double norms = cq > 0 ? kept_norm_bytes(m, d, keep, cq) : 0.0;
    norms += keeps(keep, SW_NORMOP) ? kept_norm_bytes(m, d, keep, ckv) : (ckv + dr) * bc;
    o->shared += blocks * ((h + cq + ckv) * bc + norms);
    double up = (a * dqk + a * (dn + dv)) * kv_factor * keeps(keep, SW_ATTUP);
    o->tp += blocks * (a * dqk + a * dv + up) * bc * keeps(keep, SW_ATTBMM);
    if (d->flash)
        o->tp += k->ops[OP_SOFTMAX] * a * FLASH_STATS_BYTES * keeps(keep, SW_ATTBMM);
    else
        o->tp += k->ops[OP_SOFTMAX] * a * seq * kept_score_bytes(d, keep);
}

/* The d_rope part of each of the a/t query heads, and the one shared rope key, which every rank
 * computes whole. */
static double mla_rotated(const model_t *m, const layer_kind *k, double t)
{
    double dr = (double)m->rope_head_dim;
    return k->heads * dr / t + dr;
}

/* The low-rank projections taken as one projection of the same weights from h. */
static attention_gemms mla_gemms(const model_t *m, const layer_kind *k, double t)
{
    return (attention_gemms){k->params.attention / (double)m->hidden / t, 0.0};
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

/* What the gated DeltaNet (Qwen3-Next / Qwen3.5 linear attention) keeps, with the chunked
 * delta rule as a fused kernel keeps it (flash-linear-attention's
 * chunk_gated_delta_rule; HyperParallel's kernel contract), per token:
 *   replicated   the input h (the four input projections read it)
 *   convolution  its input and output, 2·kd + vd each (and K − 1 positions of
 *                output more once a layer), and SiLU's output, whose v part
 *                the kernel keeps
 *   the rule     q and k L2-normalised to the value heads (2·nv·dk) and their
 *                fp32 inverse norms (2·nv·4), the fp32 gate (nv·4), beta
 *                (nv·bc), one row of the chunk's solved matrix (nv·C·bc, C = 64),
 *                softplus's fp32 input and output (2·nv·4); once a layer the
 *                fp32 tensors derived from A_log and dt_bias (6·nv·4)
 *   gated norm   its fp32 input (4·vd), rstd (nv·4), the normalised and the
 *                weighted rows (2·vd·bc), fp32 z and silu(z) (8·vd); recomputed,
 *                its inputs, the rule's output and z (2·vd·bc)
 *   out_proj     its input (vd·bc) */
static void linear_kept(act_split *o, const model_t *m, const layer_kind *k, const derived_t *d,
                        const signed char *keep, double seq, double kv_factor)
{
    (void)seq;
    (void)kv_factor;
    double h = (double)m->hidden, nv = k->heads, dk = k->qk_head_dim, dv = k->v_head_dim;
    double kd = k->kv_heads * dk, vd = nv * dv, bc = d->bytes_compute, mixed = 2 * kd + vd;
    o->shared += h * bc;
    o->tp += 3.0 * mixed * bc;
    o->layer_tp += ((double)m->lin_conv - 1) * mixed * bc + 6.0 * nv * 4.0;
    o->tp += k->ops[OP_LINREC] *
             (2 * nv * dk * bc + 2 * nv * 4.0 + nv * 4.0 + nv * bc + nv * DELTA_RULE_CHUNK * bc + 2 * nv * 4.0);
    if (keeps(keep, SW_NORMOP))
        o->tp += 4.0 * vd + nv * 4.0 + 2.0 * vd * bc + 8.0 * vd;
    else
        o->tp += 2.0 * vd * bc;
    o->tp += vd * bc;
}

/* The recurrent state, one d_k × d_v matrix a value head, in fp32 (4 bytes), as the
 * chunked rule carries it from one block of the sequence to the next. */
static double linear_cp_state(const layer_kind *k)
{
    return k->heads * k->qk_head_dim * k->v_head_dim * 4.0;
}

/* A linear attention has no rotary embedding, and its projections are not priced by shape. */
static double linear_rotated(const model_t *m, const layer_kind *k, double t)
{
    (void)m;
    (void)k;
    (void)t;
    return 0.0;
}

static attention_gemms linear_gemms(const model_t *m, const layer_kind *k, double t)
{
    (void)m;
    (void)k;
    (void)t;
    return (attention_gemms){0.0, 0.0};
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
    [FORM_FULL] = {"full", true, true, full_applies, no_check, full_geometry, full_params, softmax_flops, no_state,
                   full_kept, full_rotated, full_gemms},
    [FORM_MLA] = {"mla", true, false, mla_applies, no_check, mla_geometry, mla_params, softmax_flops, no_state,
                  mla_kept, mla_rotated, mla_gemms},
    [FORM_LINEAR] = {"linear", false, false, linear_applies, linear_check, linear_geometry, linear_params,
                     linear_flops, linear_cp_state, linear_kept, linear_rotated, linear_gemms},
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
