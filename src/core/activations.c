/* activations.c: per-layer activation formulas, op by op, with selective-recompute switches.
 *
 * Every term is a tensor autograd keeps for backward, in bytes per token
 * of a micro-batch of size 1 on one CP rank. Notation: h hidden width,
 * a query heads, kv KV heads, d_qk and d_v head widths, f FFN width, s the
 * sequence length, bc compute bytes, bn norm bytes, bs softmax bytes, bd
 * dropout-mask bytes (0: the family has no dropout). A term in `shared` is
 * replicated over TP ranks (split only by sequence parallelism), one in
 * `tp` is split over TP ranks, one in `expert` over expert-TP ranks. The
 * attention's terms are its form's (layer_kinds.c: full, MLA, linear), the
 * norms' and scores' kept_bytes.c's; the rest of the layer is here.
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

#include "kept_bytes.h"
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
    FIELD_BOOL(loss_opts, "loss_parallel_decomposed", loss_parallel_decomposed, false),
    FIELD_BOOL(loss_opts, "loss_keeps_one_hot", loss_keeps_one_hot, false), FIELD_END,
};

/* The token ids an embedding keeps (int64). */
#define TOKEN_ID_BYTES 8.0

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
    kind_form(k)->kept(&o, m, k, d, keep, seq, kv_factor); /* by its attention form (layer_kinds.c) */
    ffn(&o, m, k, r, d, keep);
    double h = (double)m->hidden;
    o.shared += k->ops[OP_NORMOP] * kept_norm_bytes(m, d, keep, h);
    o.layer += k->ops[OP_NORMOP] * kept_norm_layer_bytes(m, keep, h);
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
    kind_form(k)->kept(&o, c->m, k, c->d, NULL, seq, kv_factor);
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
    return a->shared / (double)c->d->sp + a->tp / (double)c->r->tp + a->expert / c->d->expert_work_div;
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
/* fp32 one-hot labels (loss_keeps_one_hot) */
#define ONE_HOT_BYTES 4.0

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
    double one_hot = c->r->loss.loss_keeps_one_hot ? ONE_HOT_BYTES : 0.0;
    act_split o = {kept_norm_bytes(m, d, NULL, h) + head_input + LABEL_BYTES * sp, (loss_bytes(d) + one_hot) * v, 0,
                   kept_norm_layer_bytes(m, NULL, h), 0};
    return o;
}

/* A head whole over TP (MindFormers under vocab_emb_dp: lm_head's matmul
 * shard ((dp·cp, 1), (1, 1)), DeepseekV2ForCausalLM) writes the logits of
 * every vocabulary entry on every TP rank, for its whole sequence (its input
 * rows are split over dp·cp alone, not by SP); the loss then takes them split
 * over mp (CrossEntropyLoss's Add ((dp, mp), ()); TrainingDeepseekV3ForCausalLM's
 * Split ((dp, 1, mp))). The forward holds the whole logits beside their TP
 * slices at that split; the backward holds the same two at the head's
 * gradient: the slices' gradient, all-gathered back to the head's whole
 * layout for its matmul backward. Where the MTP modules share the head
 * (mtp_shares_head), the head runs once over the main and every MTP output
 * concatenated ((B, (1 + mtp)·S, V)), so both are (1 + mtp) times a token's.
 * Zero at t = 1, where the logits are whole anyway. */
act_split act_output_whole_logits(const price_ctx *c)
{
    act_split o = {0, 0, 0, 0, 0};
    if (!c->d->tables_whole || c->r->tp == 1)
        return o;
    double heads = 1.0 + (c->r->sharding.mtp_shares_head ? (double)model_mtp_layers(c->m) : 0.0);
    double logits = heads * (double)c->d->bytes_compute * (double)c->m->vocab;
    o.shared = logits * (double)c->d->sp; /* shared is divided by sp: whole over SP too */
    o.tp = logits;
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
