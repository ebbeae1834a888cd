/* activations.c: per-layer activation formulas, op by op, with selective-recompute switches.
 *
 * Every term is a tensor autograd keeps for backward, in bytes per token
 * of a micro-batch of size 1 on one CP rank. Notation: h hidden width,
 * a query heads, kv KV heads, d_qk and d_v head widths, f FFN width, s the
 * sequence length, bc compute bytes, bn norm bytes, bs softmax bytes, bd
 * dropout-mask bytes (0: the family has no dropout). A term in `shared` is
 * replicated over TP ranks (split only by sequence parallelism), one in
 * `tp` is split over TP ranks, one in `expert` over expert-TP ranks.
 *
 * With the `gpt` profile (LayerNorm, plain GeLU MLP of width 4h, dropout,
 * no flash attention, fp16) the sum is Korthikanti et al. 2022's
 * s·b·h·(34 + 5·a·s/h) per layer:
 *   shared  10·h:  qkv input 2h, attention dropout mask h, MLP input 2h,
 *                  MLP dropout mask h, two LayerNorm inputs 4h
 *   tp      24·h:  q and k 4h, v 2h, projection input 2h, GeLU input 8h,
 *                  GeLU output 8h
 *   scores  5·a·s: softmax output 2, dropout mask 1, dropout output 2
 */
#include "activations.h"

#include <stddef.h>

/* Two fp32 statistics per head and token, as a flash-attention kernel keeps them. */
#define FLASH_STATS_BYTES 8.0
/* Tokens a chunk of the chunked gated delta rule holds (Transformers: 64). */
#define DELTA_RULE_CHUNK 64.0
/* The token ids an embedding keeps (int64). */
#define TOKEN_ID_BYTES 8.0

static double keeps(const signed char *keep, int sw) { return keep == NULL || keep[sw] ? 1.0 : 0.0; }

/* Full attention (MHA/GQA/MQA), one block of four projections:
 *   attMM   the projections' input (h, replicated)
 *   attBMM  q, k, v and the kernel output (tp; K/V whole under ring CP)
 *   gate    Qwen3.5's output gate: sigmoid(gate) and the gated product
 *   scores  without flash attention: a·s per token of softmax output (bs),
 *           dropout mask (bd) and dropout/cast output (bc), each switchable;
 *           with flash attention the kernel's fp32 statistics instead
 *   qk norm the inputs of Qwen3's per-head q and k norms (bn) */
static void full_attention(act_split *o, const model_t *m, const layer_kind *k, const derived_t *d,
                           const signed char *keep, double seq, double kv_factor)
{
    double h = (double)m->hidden, a = k->heads, kv = k->kv_heads, dqk = k->qk_head_dim, dv = k->v_head_dim;
    double bc = d->bytes_compute, bn = d->bytes_norm, blocks = k->ops[OP_ATTMM] / 4.0;
    double softmaxes = k->ops[OP_SOFTMAX];
    o->shared += blocks * h * bc;
    double kernel = a * dqk + kv * (dqk + dv) * kv_factor + a * dv;
    if (m->attn_output_gate)
        kernel += 2.0 * a * dv;
    o->tp += blocks * kernel * bc * keeps(keep, SW_ATTBMM);
    if (d->flash) {
        o->tp += softmaxes * a * FLASH_STATS_BYTES * keeps(keep, SW_SOFTMAX);
    } else {
        double per_score = d->bytes_softmax * keeps(keep, SW_SOFTMAX) + d->bytes_dropout * keeps(keep, SW_DROPOUT) +
                           bc * keeps(keep, SW_HEADCAST);
        o->tp += softmaxes * a * seq * per_score;
    }
    if (m->qk_norm)
        o->tp += (a + kv) * dqk * bn * keeps(keep, SW_NORMOP);
}

/* MLA (DeepSeek-V2/V3), one block: the input h and the q and kv latents the
 * up-projections read (replicated), the latent norms' inputs, then per
 * head q, k (d_nope + d_rope), v and the kernel output. attUp switches the
 * up-projected k and v, which the latent can rebuild. */
static void mla_attention(act_split *o, const model_t *m, const layer_kind *k, const derived_t *d,
                          const signed char *keep, double seq, double kv_factor)
{
    double h = (double)m->hidden, a = k->heads, dqk = k->qk_head_dim, dv = k->v_head_dim;
    double cq = (double)m->q_lora_rank, ckv = (double)m->kv_lora_rank;
    double bc = d->bytes_compute, blocks = k->ops[OP_ATTMM] / 4.0;
    o->shared += blocks * (h + cq + ckv) * bc;
    o->shared += blocks * (cq + ckv) * d->bytes_norm * keeps(keep, SW_NORMOP);
    double up = a * (dqk + dv) * kv_factor * keeps(keep, SW_ATTUP);
    o->tp += blocks * (a * dqk + a * dv + up) * bc * keeps(keep, SW_ATTBMM);
    if (d->flash) {
        o->tp += k->ops[OP_SOFTMAX] * a * FLASH_STATS_BYTES * keeps(keep, SW_SOFTMAX);
    } else {
        double per_score = d->bytes_softmax * keeps(keep, SW_SOFTMAX) + d->bytes_dropout * keeps(keep, SW_DROPOUT) +
                           bc * keeps(keep, SW_HEADCAST);
        o->tp += k->ops[OP_SOFTMAX] * a * seq * per_score;
    }
}

/* Gated DeltaNet (Qwen3-Next / Qwen3.5 linear attention), per Transformers'
 * chunked rule: the input h; the projections' outputs (mixed q/k/v 2·kd + vd,
 * z vd, b and a 2·nv); the convolution's output before and after SiLU; the
 * rule's fp32 gates and betas (nv each); one fp32 state (dk·dv per value
 * head) per chunk of 64 tokens; the rule's output (norm input, bn) and the
 * gated norm's output (out_proj input). */
static void linear_attention(act_split *o, const model_t *m, const layer_kind *k, const derived_t *d,
                             const signed char *keep)
{
    double h = (double)m->hidden, nv = k->heads, dk = k->qk_head_dim, dv = k->v_head_dim;
    double kd = k->kv_heads * dk, vd = nv * dv, bc = d->bytes_compute;
    o->shared += h * bc;
    o->tp += (2 * kd + 2 * vd + 2 * nv) * bc;
    o->tp += 2 * (2 * kd + vd) * bc;
    o->tp += k->ops[OP_LINREC] * (nv * 8.0 + nv * dk * dv * 4.0 / DELTA_RULE_CHUNK);
    o->tp += vd * d->bytes_norm * keeps(keep, SW_NORMOP) + vd * bc;
}

/* One feed-forward of width w: the activation's input and, gated, the up
 * projection and the product (the down projection's input); ffAct
 * switches the activation's output. Plain: GeLU input, GeLU output. */
static double ffn_inner(const layer_kind *k, const derived_t *d, const signed char *keep, double w)
{
    bool gated = k->ops[OP_FFMM] >= 3;
    double bc = d->bytes_compute;
    return w * bc * (gated ? 3.0 : 1.0) + w * bc * keeps(keep, SW_FFACT);
}

/* Routed tokens a token sends: top-k copies, at the capacity factor when
 * the experts run with a capacity, else dropless. */
static double routed_copies(const model_t *m, const run_t *r)
{
    return (double)m->top_k * (r->grouped_gemm ? 1.0 : r->capacity_factor);
}

/* Dense FFN: its input (replicated) and its inner activations (tp).
 * MoE: the router's input, logits, probabilities and top-k weights; each
 * routed copy's input and output (replicated over expert TP) and inner
 * activations (expert TP); the shared experts' inner activations. */
static void ffn(act_split *o, const model_t *m, const layer_kind *k, const run_t *r, const derived_t *d,
                const signed char *keep)
{
    double h = (double)m->hidden, bc = d->bytes_compute;
    o->shared += h * bc;
    if (!k->moe) {
        o->tp += ffn_inner(k, d, keep, k->ffn_width);
        return;
    }
    double copies = routed_copies(m, r);
    o->shared += (2.0 * (double)m->experts + (double)m->top_k) * bc;
    o->shared += copies * 2.0 * h * bc;
    o->expert += copies * ffn_inner(k, d, keep, (double)m->expert_width);
    if (m->shared_width > 0)
        o->tp += ffn_inner(k, d, keep, (double)m->shared_width) + (m->shared_gate ? bc : 0.0);
}

act_split kind_activations(const model_t *m, const layer_kind *k, const run_t *r, const derived_t *d,
                           const signed char *keep, double seq)
{
    act_split o = {0, 0, 0};
    /* ring CP keeps the whole sequence's K and V on every rank; Ulysses and
     * linear attention keep their own share (the reference's cp / kv_shards) */
    double kv_factor = r->cp_algo == CP_RING ? (double)r->cp : 1.0;
    if (k->attention == ATTENTION_LINEAR)
        linear_attention(&o, m, k, d, keep);
    else if (k->mla)
        mla_attention(&o, m, k, d, keep, seq, kv_factor);
    else
        full_attention(&o, m, k, d, keep, seq, kv_factor);
    ffn(&o, m, k, r, d, keep);
    double h = (double)m->hidden;
    o.shared += k->ops[OP_NORMOP] * h * d->bytes_norm * keeps(keep, SW_NORMOP);
    o.shared += k->ops[OP_DROPOUT] * h * d->bytes_dropout;
    return o;
}

double act_per_token(const act_split *a, const run_t *r, const derived_t *d)
{
    return a->shared / (double)d->sp + a->tp / (double)r->tp + a->expert / (double)d->t_exp;
}

double full_recompute_per_token(const model_t *m, const derived_t *d)
{
    return (double)m->hidden * d->bytes_compute / (double)d->shard_recompute_input;
}

double output_tp_divisor(const run_t *r, const derived_t *d)
{
    return d->shards_logits ? (double)r->tp : 1.0;
}

/* The output layer keeps the final norm's input (bn), the head's input (bc)
 * and the loss's fp32 log-probabilities (4 bytes a vocabulary entry, split
 * over TP ranks only by a vocabulary-parallel loss). */
act_split output_activations(const model_t *m, const run_t *r, const derived_t *d)
{
    (void)r;
    double h = (double)m->hidden, v = (double)m->vocab;
    act_split o = {h * d->bytes_norm + h * d->bytes_compute, 4.0 * v, 0};
    return o;
}

/* At its backward peak it also holds the gradient of the fp32 logits and
 * of the log-probabilities (4 bytes each a vocabulary entry). */
act_split output_working(const model_t *m, const run_t *r, const derived_t *d)
{
    act_split o = output_activations(m, r, d);
    o.tp += 8.0 * (double)m->vocab;
    return o;
}

double embedding_per_token(const model_t *m, const run_t *r, const derived_t *d)
{
    (void)r;
    return TOKEN_ID_BYTES + (double)m->hidden * d->bytes_dropout / (double)d->sp;
}

/* An MTP module (DeepSeek-V3): the inputs of its two norms (bn) and of its
 * 2h -> h projection (bc), besides its embedding, layer and output. */
double mtp_extra_per_token(const model_t *m, const derived_t *d)
{
    double h = (double)m->hidden;
    return (2.0 * h * d->bytes_norm + 2.0 * h * d->bytes_compute) / (double)d->sp;
}

/* HyperParallel's selective rule, which a census measures under selective recompute. */
static bool is_hyperparallel_rule(const signed char *keep)
{
    static const signed char hyper[SW_COUNT] = {1, 0, 0, 0, 0, 0, 0, 1};
    for (int i = 0; i < SW_COUNT; i++)
        if (keep[i] != hyper[i])
            return false;
    return true;
}

bool census_applies(const layer_kind *k, const derived_t *d, const signed char *keep, bool selective)
{
    (void)d;
    if (k->census == NULL)
        return false;
    if (!selective)
        return true;
    return k->census->has_selective && keep != NULL && is_hyperparallel_rule(keep);
}

/* Ring CP gathers the other ranks' K and V: (cp - 1)·kv·(d_qk + d_v)·bc per token, over t. */
static double gathered_kv(const layer_kind *k, const run_t *r, const derived_t *d)
{
    if (r->cp <= 1 || r->cp_algo != CP_RING || k->attention == ATTENTION_LINEAR)
        return 0.0;
    return (double)(r->cp - 1) * k->kv_heads * (k->qk_head_dim + k->v_head_dim) * d->bytes_compute / (double)r->tp;
}

double census_kept_per_token(const layer_kind *k, const model_t *m, const run_t *r, const derived_t *d,
                             bool selective)
{
    (void)m;
    const census_record *c = k->census;
    double base = selective ? c->selective : c->saved, tp = selective ? c->selective_tp : c->saved_tp;
    return base / (double)d->sp + tp / (double)r->tp + gathered_kv(k, r, d);
}

double census_working_per_token(const layer_kind *k, const model_t *m, const run_t *r, const derived_t *d)
{
    (void)m;
    const census_record *c = k->census;
    return c->working / (double)d->sp + c->working_tp / (double)r->tp + gathered_kv(k, r, d);
}
