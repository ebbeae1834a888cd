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
#include <string.h>

#include "layer_kinds.h"
#include "nd_limits.h"

static const char *const ROPES[] = {"rotate_half", "fused", "complex", NULL};
static const field_choices ROPE = {ROPES, NULL, "rotate_half, fused, complex"};
_Static_assert(sizeof(rope_form) == sizeof(int), "the field tables write enums as ints");

/* The kernels' fields in a run table. */
const field_desc KERNEL_FIELDS[] = {
    FIELD_TRI(kernel_opts, "flash_attention", flash_attention), FIELD_TRI(kernel_opts, "fused_norm", fused_norm),
    FIELD_TRI(kernel_opts, "fused_swiglu", fused_swiglu), FIELD_BOOL(kernel_opts, "repeat_kv", repeat_kv, false),
    FIELD_ENUM(kernel_opts, rope_form, "rope", rope, &ROPE),
    FIELD_BOOL(kernel_opts, "hidden_dropout_masks", hidden_dropout_masks, false),
    FIELD_BOOL(kernel_opts, "grouped_gemm", grouped_gemm, true),
    FIELD_NUM(kernel_opts, "capacity_factor", capacity_factor, 1e-6, 1e6, 1.0),
    FIELD_BOOL(kernel_opts, "deepep", deepep, false),
    FIELD_I64(kernel_opts, "ep_node_limit", ep_node_limit, 0, ND_MAX_DEVICES, 0), FIELD_END,
};

/* The loss's fields in a run table. */
const field_desc LOSS_FIELDS[] = {
    FIELD_TRI(loss_opts, "loss_parallel", loss_parallel), FIELD_TRI(loss_opts, "loss_upcast", loss_upcast),
    FIELD_TRI(loss_opts, "loss_inplace_grad", loss_inplace_grad),
    FIELD_BOOL(loss_opts, "head_input_gathered", head_input_gathered, false),
    FIELD_BOOL(loss_opts, "loss_inplace_softmax", loss_inplace_softmax, false),
    FIELD_BOOL(loss_opts, "loss_parallel_decomposed", loss_parallel_decomposed, false), FIELD_END,
};

/* Two fp32 statistics per head and token, as a flash-attention kernel keeps them. */
#define FLASH_STATS_BYTES 8.0
/* Tokens a chunk of the chunked gated delta rule holds (Transformers: 64). */
#define DELTA_RULE_CHUNK 64.0
/* The token ids an embedding keeps (int64). */
#define TOKEN_ID_BYTES 8.0

static double keeps(const signed char *keep, int sw) { return keep == NULL || keep[sw] ? 1.0 : 0.0; }

/* One norm of width w. RMSNorm as Transformers runs it keeps its input upcast
 * to fp32 (bn), its fp32 reciprocal RMS (4 bytes) and the normalised input
 * the weight multiplies (bc; Qwen3.5's zero-centred norm keeps it in fp32,
 * bn, and once a layer its fp32 (1 + w), see norm_layer_bytes); recomputed,
 * it keeps its input (bc). LayerNorm (a norm with a bias) keeps its input
 * (bn); ndlua leaves out its fp32 mean and inverse deviation (8 bytes a
 * token), as Korthikanti et al. do. */
static double norm_bytes(const model_t *m, const derived_t *d, const signed char *keep, double w)
{
    if (!keeps(keep, SW_NORMOP))
        return w * d->bytes_compute;
    if (m->norm_bias)
        return w * (d->fused_norm ? d->bytes_compute : d->bytes_norm);
    /* a fused RMSNorm kernel (Transformer Engine's, Apex's, torch.compile's)
     * keeps its input in the compute width and one fp32 rstd a row */
    if (d->fused_norm)
        return w * d->bytes_compute + 4.0;
    double normalised = m->family.zero_centered_norms ? d->bytes_norm : d->bytes_compute;
    return w * (d->bytes_norm + normalised) + 4.0;
}

/* What a kept norm of width w holds once a layer: Qwen3.5's fp32 (1 + w). */
static double norm_layer_bytes(const model_t *m, const signed char *keep, double w)
{
    return m->family.zero_centered_norms && keeps(keep, SW_NORMOP) ? 4.0 * w : 0.0;
}

/* Bytes an attention score keeps without flash attention: the softmax's
 * output (bs), the attention dropout's mask (bd) and the probabilities the AV
 * product reads (bc). Recomputing the softmax (its switch off) drops the
 * first two; what else goes depends on how far the recomputed region reaches:
 *   Megatron's rule recomputes the whole core attention, QK^T to AV
 *     (Korthikanti et al.): the probabilities go too (headCast switch)
 *   otherwise (HyperParallel's rule, a range's own ops) PyTorch recomputes
 *     the softmax and its cast as one region, which keeps its input, the
 *     scores (bc), while AV keeps the probabilities (bc) */
static double score_bytes(const derived_t *d, const signed char *keep)
{
    double bc = d->bytes_compute;
    if (keeps(keep, SW_SOFTMAX))
        return d->bytes_softmax + d->bytes_dropout * keeps(keep, SW_DROPOUT) + bc;
    if (d->core_attention_recompute)
        return bc * keeps(keep, SW_HEADCAST);
    return 2.0 * bc;
}

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
        o->tp += softmaxes * a * seq * score_bytes(d, keep);
        /* eager GQA repeats k and v to the query heads for the two products,
         * which keep the copies beside the originals */
        if (kv < a)
            o->tp += blocks * a * (dqk + dv) * kv_factor * bc * keeps(keep, SW_ATTBMM);
    }
    if (m->qk_norm) { /* Qwen3's per-head q and k RMSNorms */
        o->tp += (a + kv) * norm_bytes(m, d, keep, dqk);
        o->layer += 2.0 * norm_layer_bytes(m, keep, dqk); /* one weight of d a layer, replicated */
        /* recomputed, the q norm keeps its input, a view of q_proj's output,
         * which with Qwen3.5's output gate holds the gate too */
        if (m->attn_output_gate && !keeps(keep, SW_NORMOP))
            o->tp += a * dqk * bc;
    }
}

/* MLA (DeepSeek-V2/V3), one block, as Transformers' DeepseekV3Attention keeps it:
 * replicated over TP, the input h, the q latent's RMSNorm and its output
 * (q_b_proj's input), the kv latent's RMSNorm (recomputed: its input, a view
 * of kv_a_proj's whole output, latent and rope) and its output (kv_b_proj's
 * input); per head, the query and key (d_nope + d_rope each), kv_b_proj's
 * output (d_nope + d_v, which the value views), the kernel's output and
 * statistics. attUp switches the key and kv_b_proj's output, which the
 * latent rebuilds. */
static void mla_attention(act_split *o, const model_t *m, const layer_kind *k, const derived_t *d,
                          const signed char *keep, double seq, double kv_factor)
{
    double h = (double)m->hidden, a = k->heads, dqk = k->qk_head_dim, dv = k->v_head_dim, dr = (double)m->rope_head_dim;
    double dn = dqk - dr, cq = (double)m->q_lora_rank, ckv = (double)m->kv_lora_rank;
    double bc = d->bytes_compute, blocks = k->ops[OP_ATTMM] / 4.0;
    double norms = cq > 0 ? norm_bytes(m, d, keep, cq) : 0.0;
    norms += keeps(keep, SW_NORMOP) ? norm_bytes(m, d, keep, ckv) : (ckv + dr) * bc;
    o->shared += blocks * ((h + cq + ckv) * bc + norms);
    double up = (a * dqk + a * (dn + dv)) * kv_factor * keeps(keep, SW_ATTUP);
    o->tp += blocks * (a * dqk + a * dv + up) * bc * keeps(keep, SW_ATTBMM);
    if (d->flash)
        o->tp += k->ops[OP_SOFTMAX] * a * FLASH_STATS_BYTES * keeps(keep, SW_ATTBMM);
    else
        o->tp += k->ops[OP_SOFTMAX] * a * seq * score_bytes(d, keep);
}

/* Gated DeltaNet (Qwen3-Next / Qwen3.5 linear attention) with the chunked
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
static void linear_attention(act_split *o, const model_t *m, const layer_kind *k, const derived_t *d,
                             const signed char *keep)
{
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

/* One feed-forward of width w. Gated (SwiGLU): the gate (the activation's
 * input), the up projection, their product (the down projection's input),
 * and the activation's output, which recomputing the activation (ffAct)
 * drops. Plain (GeLU): the activation's input and output; the output is the
 * second projection's input, which autograd keeps however the activation
 * is recomputed. */
static double ffn_inner(const layer_kind *k, const derived_t *d, const signed char *keep, double w)
{
    double bc = d->bytes_compute;
    /* a fused SwiGLU (Megatron's bias_swiglu_impl, torch.compile) keeps the
     * gate-and-up output (2w) and its own output, the down projection's input */
    if (k->ops[OP_FFMM] >= 3 && d->fused_swiglu)
        return 3.0 * w * bc;
    if (k->ops[OP_FFMM] >= 3)
        return 3.0 * w * bc + w * bc * keeps(keep, SW_FFACT);
    return 2.0 * w * bc;
}

/* A feed-forward by its form's parts (layer_kinds.c): its input (replicated), the inner
 * activations of its part over TP (a dense FFN, or the shared experts), and of routed experts,
 * as Transformers runs them with grouped-GEMM experts:
 *   router   softmax (Qwen, Mixtral): fp32 probabilities (4E) and their sum (4);
 *            sigmoid (DeepSeek): the fp32 input (4h), scores (4E), their sum (4),
 *            and once a layer an fp32 copy of the router weight (4·E·h)
 *   a copy   (top-k of them, at the capacity factor without grouped GEMM):
 *            the top-k index and weight (8 + 4), the three int64 indices of
 *            the sort by expert (24), the gathered input and the expert's
 *            output (2·h·bc), the sorted weight (bc); its inner activations
 *            over expert TP; once a layer the group sizes (8·E)
 *   shared   the shared experts' inner activations (tp); with Qwen's gate,
 *            the gate's sigmoid (bc) and the shared output it scales (h·bc) */
static void ffn(act_split *o, const model_t *m, const layer_kind *k, const run_t *r, const derived_t *d,
                const signed char *keep)
{
    double h = (double)m->hidden, bc = d->bytes_compute, experts = (double)m->experts;
    const ffn_desc *form = kind_ffn(k);
    o->shared += h * bc;
    if (!form->routed) {
        o->tp += ffn_inner(k, d, keep, form->tp_width(m, k));
        return;
    }
    double copies = routed_copies(m, r);
    if (m->family.sigmoid_router) {
        o->shared += 4.0 * h + 4.0 * experts + 4.0;
        o->layer += 4.0 * experts * h;
    } else {
        o->shared += 4.0 * experts + 4.0;
    }
    o->shared += copies * (12.0 + 24.0 + 2.0 * h * bc + bc);
    o->layer += 8.0 * experts;
    o->expert += copies * ffn_inner(k, d, keep, (double)m->expert_width);
    double shared = form->tp_width(m, k);
    if (shared > 0) {
        o->tp += ffn_inner(k, d, keep, shared);
        if (m->shared_gate)
            o->shared += h * bc + bc;
    }
}

/* torchtitan's selective activation checkpointing by op ("op" mode): a
 * layer keeps its input and the outputs of the ops its policy saves, the
 * matmuls (all but every second one, counted from the layer's first) and the
 * attention kernel, and recomputes everything else. A dense Llama-style
 * layer runs q, k, v, o, then w1 (gate), w3 (up), w2 (down): it keeps q and v,
 * w1's and w2's outputs, the kernel's output and its fp32 statistics. */
bool act_op_sac_prices(const layer_kind *k)
{
    return !kind_ffn(k)->routed && !k->mla && kind_form(k)->softmax && k->ops[OP_FFMM] >= 3;
}

static act_split op_sac_activations(const model_t *m, const layer_kind *k, const derived_t *d, double kv_factor)
{
    double h = (double)m->hidden, bc = d->bytes_compute;
    act_split o = {0, 0, 0, 0, 0};
    o.shared = 2.0 * h * bc; /* the layer's input and w2's output */
    o.tp = (k->heads * k->qk_head_dim + k->kv_heads * k->v_head_dim * kv_factor + k->heads * k->v_head_dim +
            k->ffn_width) * bc;
    o.tp += d->flash ? k->heads * FLASH_STATS_BYTES : 0.0;
    return o;
}

act_split act_kind_split(const price_ctx *c, const layer_kind *k, const signed char *keep, double seq)
{
    const model_t *m = c->m;
    const run_t *r = c->r;
    const derived_t *d = c->d;
    act_split o = {0, 0, 0, 0, 0};
    if (keep != NULL && d->op_sac && act_op_sac_prices(k))
        return op_sac_activations(m, k, d, r->cp_algo == CP_RING ? (double)r->cp : 1.0);
    /* ring CP keeps the whole sequence's K and V on every rank; Ulysses and
     * linear attention keep their own share (the reference's cp / kv_shards) */
    double kv_factor = r->cp_algo == CP_RING ? (double)r->cp : 1.0;
    if (k->form == FORM_LINEAR)
        linear_attention(&o, m, k, d, keep);
    else if (k->form == FORM_MLA)
        mla_attention(&o, m, k, d, keep, seq, kv_factor);
    else
        full_attention(&o, m, k, d, keep, seq, kv_factor);
    ffn(&o, m, k, r, d, keep);
    double h = (double)m->hidden;
    o.shared += k->ops[OP_NORMOP] * norm_bytes(m, d, keep, h);
    o.layer += k->ops[OP_NORMOP] * norm_layer_bytes(m, keep, h);
    /* the hidden states' dropout masks, regenerated from the seed when recomputed */
    hidden_dropouts drop = act_hidden_dropouts(k, r, d);
    o.shared += drop.ops * h * drop.mask_bytes * keeps(keep, SW_DROPOUT);
    return o;
}

double act_attention_swappable_per_token(const price_ctx *c, const layer_kind *k, double seq)
{
    act_split o = {0, 0, 0, 0, 0};
    double kv_factor = c->r->cp_algo == CP_RING ? (double)c->r->cp : 1.0;
    /* HyperParallel wraps the modules named self_attn; a linear-attention
     * layer's (Qwen3.5's linear_attn) is not one */
    if (!kind_form(k)->softmax)
        return 0.0;
    if (k->mla)
        mla_attention(&o, c->m, k, c->d, NULL, seq, kv_factor);
    else
        full_attention(&o, c->m, k, c->d, NULL, seq, kv_factor);
    return act_per_token(c, &o);
}

/* The family's dropouts (GPT-style, dropout_bytes a mask element); a family
 * without dropout, none, unless the runtime keeps its residual dropouts'
 * masks (hidden_dropout_masks): Megatron's TransformerLayer runs two
 * bias-dropout-adds, each keeping a bool mask at a probability above 0 (its
 * default hidden_dropout is 0.1) and at 0 too under TorchScript (its
 * jit_fuser before PyTorch 2.2), whose autodiff runs native_dropout, which
 * makes the mask whatever the probability; eager dropout at 0 returns its
 * input. */
hidden_dropouts act_hidden_dropouts(const layer_kind *k, const run_t *r, const derived_t *d)
{
    hidden_dropouts none = {0.0, 0.0};
    if (k->ops[OP_DROPOUT] > 0) {
        hidden_dropouts family = {k->ops[OP_DROPOUT], d->bytes_dropout};
        return family;
    }
    if (r->kernels.hidden_dropout_masks) {
        hidden_dropouts scripted = {2.0, 1.0};
        return scripted;
    }
    return none;
}

double act_per_layer(const act_split *a, const run_t *r)
{
    return a->layer + a->layer_tp / (double)r->tp;
}

double act_per_token(const price_ctx *c, const act_split *a)
{
    return a->shared / (double)c->d->sp + a->tp / (double)c->r->tp + a->expert / (double)c->d->t_exp;
}

double act_full_recompute_per_token(const price_ctx *c)
{
    const derived_t *d = c->d;
    return (double)c->m->hidden * d->bytes_compute / (double)d->shard_recompute_input;
}

double act_output_tp_divisor(const price_ctx *c)
{
    return c->d->shards_logits ? (double)c->r->tp : 1.0;
}

/* The output layer keeps the final norm's tensors, the head's input (bc),
 * the loss's int64 labels (8 bytes) and what the loss saves for its
 * backward: the probabilities (or log-probabilities) of every vocabulary
 * entry, in fp32 when the loss upcasts the logits (Megatron unless
 * fp16_lm_cross_entropy, Transformers' loss, torchtitan), else in the
 * compute width; split over TP ranks by a vocabulary-parallel loss. The
 * compute-width logits the head writes are freed once the loss has its
 * copy (neither the head nor the cast keeps them). */
#define LABEL_BYTES 8.0

static double loss_bytes(const derived_t *d) { return d->loss_upcast ? 4.0 : (double)d->bytes_compute; }

/* The one more loss-width tensor a decomposed parallel loss holds at its
 * peaks (loss_parallel_decomposed), a vocabulary entry's bytes. */
static double decomposed_extra(const price_ctx *c)
{
    bool on = c->r->loss.loss_parallel_decomposed && c->d->shards_logits && c->r->tp > 1;
    return on ? loss_bytes(c->d) : 0.0;
}

act_split act_output_kept(const price_ctx *c)
{
    const model_t *m = c->m;
    const derived_t *d = c->d;
    double h = (double)m->hidden, v = (double)m->vocab, sp = (double)d->sp;
    /* Under sequence parallelism the final norm's input is the rank's
     * sequence shard (Korthikanti et al.'s output term, 4sbh/t(1 + v/h):
     * the norm's and the head's inputs over t), and so is the head's input
     * where the head gathers it again for its backward (Megatron). The
     * labels are every rank's whole (Megatron's vocab_parallel_cross_entropy
     * and torchtitan's loss_parallel take the unsplit [b, s] labels), and the
     * head's input is whole where the head saves it gathered
     * (head_input_gathered): the shared part is divided by sp, so those are
     * stated sp times over. */
    double head_input = h * d->bytes_compute * (c->r->loss.head_input_gathered ? sp : 1.0);
    act_split o = {norm_bytes(m, d, NULL, h) + head_input + LABEL_BYTES * sp, loss_bytes(d) * v, 0,
                   norm_layer_bytes(m, NULL, h), 0};
    return o;
}

/* At its backward peak the output layer holds, beside what it kept, the
 * loss's gradient. PyTorch's NLL and log-softmax backward allocate one
 * tensor of the kept width each while the kept one still lives: two more.
 * Megatron's vocab-parallel cross-entropy writes the gradient over its
 * saved softmax; the cast back to the compute width (bc) for the head's
 * backward is then the one new tensor (it runs after the others are
 * freed in PyTorch's order, so there it adds nothing to the peak). */
act_split act_output_working(const price_ctx *c)
{
    const derived_t *d = c->d;
    act_split o = act_output_kept(c);
    double v = (double)c->m->vocab;
    if (!d->loss_inplace_grad)
        o.tp += 2.0 * loss_bytes(d) * v;
    else if (d->loss_upcast)
        o.tp += (double)d->bytes_compute * v;
    o.tp += decomposed_extra(c) * v;
    return o;
}

/* While the loss runs its forward, the head's compute-width logits are
 * still alive beside the loss's copies: the fp32 copy the upcast makes and,
 * where the loss subtracts the maximum out of place into what it keeps
 * (the older Megatron cross-entropy; PyTorch's log-softmax writes its kept
 * output from the copy), that one too. So the forward holds bc·V beyond what
 * the layer keeps, and 4·V more when the loss upcasts out of place. With
 * loss_inplace_softmax the fp32 copy is itself what the loss keeps
 * (Megatron-Core: .float(), then -=, exp(out=), div_ on it): bc·V alone. */
act_split act_output_forward_extra(const price_ctx *c)
{
    const derived_t *d = c->d;
    double v = (double)c->m->vocab;
    double copy = d->loss_upcast && !c->r->loss.loss_inplace_softmax ? 4.0 : 0.0;
    act_split o = {0, ((double)d->bytes_compute + copy + decomposed_extra(c)) * v, 0, 0, 0};
    return o;
}

double act_embedding_per_token(const price_ctx *c)
{
    const derived_t *d = c->d;
    return TOKEN_ID_BYTES + (double)c->m->hidden * d->bytes_dropout / (double)d->sp;
}

/* An MTP module (DeepSeek-V3): the inputs of its two norms (bn) and of its
 * 2h -> h projection (bc), besides its embedding, layer and output. */
double act_mtp_extra_per_token(const price_ctx *c)
{
    const derived_t *d = c->d;
    double h = (double)c->m->hidden;
    return (2.0 * h * d->bytes_norm + 2.0 * h * d->bytes_compute) / (double)d->sp;
}

bool act_census_applies(const layer_kind *k, const derived_t *d, const signed char *keep, bool selective)
{
    if (k->census == NULL)
        return false;
    if (!selective)
        return true;
    return !d->op_sac && k->census->has_selective && keep != NULL && memcmp(keep, HYPERPARALLEL_SWITCHES, SW_COUNT) == 0; /* the rule a census measures */
}

/* Ring CP gathers the other ranks' K and V: (cp - 1)·kv·(d_qk + d_v)·bc per token, over t. */
static double gathered_kv(const layer_kind *k, const run_t *r, const derived_t *d)
{
    if (r->cp <= 1 || r->cp_algo != CP_RING || !kind_form(k)->softmax)
        return 0.0;
    return (double)(r->cp - 1) * k->kv_heads * (k->qk_head_dim + k->v_head_dim) * d->bytes_compute / (double)r->tp;
}

double act_census_kept_per_token(const price_ctx *c, const layer_kind *k, bool selective)
{
    const census_record *rec = k->census;
    double base = selective ? rec->selective : rec->saved, tp = selective ? rec->selective_tp : rec->saved_tp;
    return base / (double)c->d->sp + tp / (double)c->r->tp + gathered_kv(k, c->r, c->d);
}

double act_census_working_per_token(const price_ctx *c, const layer_kind *k)
{
    const census_record *rec = k->census;
    return rec->working / (double)c->d->sp + rec->working_tp / (double)c->r->tp + gathered_kv(k, c->r, c->d);
}
