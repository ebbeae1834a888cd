/* derive.c: sharding divisors, expert degrees, byte widths and switches a run implies. */
#include "derive.h"

#include <string.h>

#include "nd_limits.h"
#include "schedule.h"

#define SB(m, d) FIELD_BOOL(sharding_opts, #m, m, d)
#define ST(m) FIELD_TRI(sharding_opts, #m, m)

/* The sharding's fields in a run table. */
const field_desc SHARDING_FIELDS[] = {
    SB(optimizer_parallel, false), ST(param_shard), SB(grad_shard, false), SB(grad_shard_as_params, false),
    SB(shard_spans_cp, false), SB(reshard_params, true), ST(keep_gathered_params),
    SB(deferred_grad_accumulation, false), SB(overlapped_grad_reduce, false),
    FIELD_I64(sharding_opts, "optimizer_shard", optimizer_shard, 1, ND_MAX_DEVICES, 0),
    FIELD_I64(sharding_opts, "expert_shard", expert_shard, 1, ND_MAX_DEVICES, 0), SB(expert_shard_group, false),
    SB(vocab_emb_dp, true), SB(emb_dp_sharded, true), SB(shard_mtp_param, true), ST(shard_activations),
    SB(inplace_dp_buffers, false), SB(inplace_tp_reduce, false), SB(gather_copies, false),
    SB(pp_unsharded_grads, false), SB(pp_keeps_gathered, false), SB(grad_shard_opt_group, false),
    SB(fsdp_prefetch, false), FIELD_I64(sharding_opts, "reduce_bucket", reduce_bucket, -1, (int64_t)1 << 50, 0),
    SB(emb_opt_group, false), SB(fsdp_table_units, false), SB(tables_whole_tp, false),
    SB(mtp_shares_head, false), FIELD_END,
};

/* A byte width from 1 to 16 (from 0 where its default, -1, is the family's). */
#define WIDTH(m, d) FIELD_INT(precision_opts, #m, m, (d) < 0 ? 0 : 1, 16, d)

/* The precision's fields in a run table. */
const field_desc PRECISION_FIELDS[] = {
    WIDTH(param_bytes, 2), WIDTH(compute_bytes, 2), WIDTH(softmax_bytes, 4), WIDTH(grad_bytes, -1),
    WIDTH(optimizer_state_bytes, -1), WIDTH(main_param_bytes, -1), WIDTH(norm_bytes, -1), WIDTH(dropout_bytes, -1),
    WIDTH(optimizer_states, -1), FIELD_TRI(precision_opts, "grad_accumulation", grad_accumulation),
    FIELD_TRI(precision_opts, "param_casts", param_casts), FIELD_END,
};

int64_t gcd64(int64_t a, int64_t b)
{
    if (a < 0)
        a = -a;
    if (b < 0)
        b = -b;
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Expert degrees (model-spec §d.4 step 2):
 *   etp stated (etp_stated):  t_exp = etp,  d_exp = d·t·cp / t_exp / ep
 *   else:     t_exp = t,    d_exp = d/ep if d >= ep else d·t/ep,  t_exp = 1 if t_exp·ep > d·t
 *   edp_group = d·t·cp / (expert_tp·ep),  expert_tp = etp if stated else 1
 * An impossible layout is clamped to 1 (and flagged), as the reference's
 * non-strict derive does: the search refuses such candidates earlier. */
double routed_copies(const model_t *m, const run_t *r)
{
    return (double)m->top_k * (r->kernels.grouped_gemm ? 1.0 : r->kernels.capacity_factor);
}

/* Whether the run states its expert TP degree: etp > 1, or etp 1 where the
 * runtime reads a stated 1 as one (parallelism.expert_folding, Megatron-Core:
 * --expert-tensor-parallel-size 1 leaves the experts whole, where unset
 * (etp 0) they take the attention's TP degree). Elsewhere etp <= 1 is "not
 * stated", the reference's reading (memory-model.md, etp). */
static bool etp_stated(const run_t *r)
{
    return r->etp > 1 || (r->etp == 1 && r->parallelism.expert_folding);
}

int64_t expert_tp_degree(const run_t *r)
{
    if (etp_stated(r))
        return r->etp;
    /* int64 products of degrees: each <= 2^20 and dp·tp·pp·cp <= 2^20 (lnd_run.c), so none passes 2^60 */
    return r->tp * r->ep > r->dp * r->tp ? 1 : r->tp;
}

/* Where the experts are split over fewer ranks than attention (t_exp < t)
 * the expert layers fold the stage's tp·cp·dp ranks into etp·ep·edp of their
 * own: Megatron-Core's MoE parallel folding (megatron/core/parallel_state.py
 * initialize_model_parallel: expert_decoder_rank_generator = RankGenerator(
 * tp=expert_tensor_parallel_size, ep=expert_model_parallel_size,
 * dp=expert_data_parallel_size, cp=1, order=order), order 'tp-cp-ep-dp-pp'
 * by default; NVIDIA, "MoE Parallel Folding", arXiv 2504.14960), so an EP
 * group's ranks stand t_exp apart (consecutive at ETP 1), CP folded in. Where
 * the experts are split as attention is (t_exp = t) the TP ranks form the
 * expert-TP group and EP is carved from DP: t·cp apart.
 * The same placement serves every runtime, HyperParallel's train.yamls too,
 * though only Megatron-Core's source states it: where EP passes DP the
 * reference's own degrees (t_exp 1, d_exp = d·t/ep, memory-model §4.2) put
 * TP ranks inside one EP group, which fits in the stage only folded, and
 * under SP each of those ranks holds its own sequence shard, so sending the
 * shard (ep_token_share) is the one reading in which no expert computes a
 * token t times. An ndlua choice where the runtime's source is silent. */
int64_t ep_rank_stride(const run_t *r)
{
    int64_t t_exp = expert_tp_degree(r);
    return t_exp < r->tp ? t_exp : r->tp * r->cp;
}

/* Whether the EP all-to-all carries a rank's own sequence shard and the
 * expert-TP group gathers the received tokens after it, with the experts
 * split as attention is (t_exp = t > 1) under sequence parallelism, where
 * the runtime folds the expert layers (parallelism.expert_folding:
 * Megatron-Core). MoEAlltoAllTokenDispatcher (megatron/core/transformer/moe/
 * token_dispatcher.py, NVIDIA/Megatron-LM 0014f137): dispatch_preprocess
 * permutes the rank's hidden_states ("num_local_tokens: S/TP*B"),
 * dispatch_all_to_all runs "all_to_all(self.ep_group,
 * permutated_local_input_tokens, ...)", dispatch_postprocess then
 * "gather_from_sequence_parallel_region(global_input_tokens,
 * group=self.tp_group, ...)" with tp_group = expt_tp_group "if self.tp_size
 * > 1"; combine_preprocess reduce_scatter_to_sequence_parallel_region's them
 * back over tp_group before combine_all_to_all. Not under DeepEP: the flex
 * dispatcher's _DeepepManager runs over tp_ep_group with router_topk =
 * tp_size x topk and the routing map expanded over the TP ranks, so a rank
 * sends its S/TP tokens to each of the t TP ranks of a chosen expert: the
 * whole micro-batch's bytes, no gather after, as ndlua prices it. */
bool etp_gathers_tokens(const run_t *r)
{
    return r->parallelism.expert_folding && r->sequence_parallel && !r->kernels.deepep && r->tp > 1 &&
           expert_tp_degree(r) == r->tp;
}

/* The share of its micro-batch's tokens (d->tokens) a rank dispatches over
 * the EP group. Folded (t_exp < t) under sequence parallelism each rank sends
 * its own sequence shard, tokens / t: Megatron-Core's
 * MoEAlltoAllTokenDispatcher (megatron/core/transformer/moe/
 * token_dispatcher.py) permutes the rank's local hidden states ([S/TP·B, H]
 * under SP) and all_to_all's them over ep_group, gathering over the expert-TP
 * group (expt_tp) only after, when ETP > 1; likewise with t_exp = t where
 * the runtime folds (etp_gathers_tokens). Otherwise the whole micro-batch:
 * without SP, and with t_exp = t where the runtime does not fold (ndlua's
 * price there) or under DeepEP's flex dispatcher (the rank's shard sent to
 * each TP rank of a chosen expert: the whole bytes). */
double ep_token_share(const run_t *r)
{
    if (etp_gathers_tokens(r))
        return 1.0 / (double)r->tp;
    return expert_tp_degree(r) < r->tp && r->sequence_parallel ? 1.0 / (double)r->tp : 1.0;
}

static void derive_experts(const model_t *m, const run_t *r, derived_t *d)
{
    /* int64 products of degrees: each <= 2^20 and dp·tp·pp·cp <= 2^20 (lnd_run.c), so none passes 2^60 */
    int64_t dp = r->dp, t = r->tp, cp = r->cp, ep = r->ep;
    int64_t t_exp = expert_tp_degree(r), d_exp;
    if (etp_stated(r))
        d_exp = dp * t * cp / t_exp / ep;
    else
        d_exp = dp >= ep ? dp / ep : dp * t / ep;
    int64_t expert_tp = etp_stated(r) ? r->etp : 1;
    int64_t edp = dp * t * cp / (expert_tp * ep);
    bool moe = m->experts > 1;
    d->experts_clamped = moe && (edp < 1 || t_exp < 1 || d_exp < 1);
    d->t_exp = max64(1, t_exp);
    d->d_exp = max64(1, d_exp);
    d->edp_group = max64(1, edp);
    d->expert_dp_ranks = max64(1, dp * t * cp / (d->t_exp * ep));
    /* folded under SP (ep_token_share < 1): a rank dispatches tokens / t, its
     * expert-TP group gathers t_exp of those shards (token_dispatcher.py
     * dispatch_postprocess, over expt_tp) and splits the weights t_exp ways */
    bool folded = expert_tp_degree(r) < t && r->sequence_parallel;
    d->expert_work_div = folded ? (double)t : (double)d->t_exp;
    d->expert_rows_share = folded ? (double)d->t_exp / (double)t : 1.0;
}

/* The routed experts' optimizer/FSDP shard (model-spec §d.4 step 3). */
static double routed_expert_shard(const model_t *m, const run_t *r, const derived_t *d)
{
    int64_t group = d->d_exp * r->cp * d->t_exp;
    (void)m;
    if (r->sharding.expert_shard_group && r->ep > 1)
        return (double)d->edp_group;
    if (r->sharding.expert_shard <= 0)
        return r->sharding.optimizer_parallel ? (double)group : (double)(d->param_cp * d->t_exp);
    if (r->ep > 1)
        return (double)gcd64(r->sharding.expert_shard, group);
    return (double)(d->optimizer_ranks * d->param_cp * d->t_exp);
}

/* Optimizer sharding (memory-model.md §4.3, lineage B):
 *   ranks = optimizer_shard if it divides the domain (d, or d·cp when the
 *           shard spans CP), else the domain; 1 without an optimizer shard
 *   non-expert:  partial = ranks·t·param_cp,  full = (d or 1)·cp·t
 *   routed:      routed_expert_shard;  shared: gcd(n_exp, ranks·t_exp)
 *   gradients:   as parameters (FSDP), as the full optimizer shard
 *                (gradient_accumulation_shard), else t, t_exp, t_exp;
 *                t, t_exp, t_exp under PP when FSDP accumulates them
 *                unsharded through the micro-batches (pp_unsharded_grads),
 *                and as parameters besides where each of a step's k > 1
 *                schedules reduce-scatters them (grads_kept_sharded);
 *                gradient_accumulation_shard over the optimizer group
 *                (grad_shard_opt_group): partial, shard_p_os_exp, partial */
static void derive_sharding(const model_t *m, const run_t *r, derived_t *d)
{
    int64_t dp = r->dp, t = r->tp, cp = r->cp;
    d->param_cp = r->sharding.shard_spans_cp ? 1 : cp;
    int64_t domain = r->sharding.shard_spans_cp ? dp * cp : dp;
    d->dp_domain = domain;
    int64_t ranks = 1;
    if (r->sharding.optimizer_parallel)
        ranks = r->sharding.optimizer_shard >= 1 && domain % r->sharding.optimizer_shard == 0 ? r->sharding.optimizer_shard : domain;
    d->optimizer_ranks = ranks;
    d->shard_p_os_non_exp_partial = (double)(ranks * t * d->param_cp);
    d->shard_p_os_non_exp = (double)((r->sharding.optimizer_parallel ? dp : 1) * cp * t);
    d->shard_p_os_exp_partial = (double)gcd64(m->experts, ranks * d->t_exp);
    d->shard_p_os_exp = routed_expert_shard(m, r, d);
    d->grads_whole_pp = r->pp > 1 && r->sharding.pp_unsharded_grads && r->sharding.grad_shard_as_params;
    d->grads_kept_sharded = d->grads_whole_pp && r->pipeline.dp_sync_per_schedule &&
                            schedule_micro_batches(r) < r->micro_batch_num; /* more than one schedule */
    if (r->sharding.grad_shard_as_params && !d->grads_whole_pp) {
        d->shard_grad_non_exp = d->shard_p_os_non_exp_partial;
        d->shard_grad_exp = d->shard_p_os_exp;
        d->shard_grad_exp_partial = d->shard_p_os_exp_partial;
    } else if (r->sharding.grad_shard && !d->grads_whole_pp) {
        d->shard_grad_non_exp = r->sharding.grad_shard_opt_group ? d->shard_p_os_non_exp_partial : d->shard_p_os_non_exp;
        d->shard_grad_exp = d->shard_p_os_exp;
        d->shard_grad_exp_partial = d->shard_p_os_exp_partial;
    } else {
        d->shard_grad_non_exp = (double)t;
        d->shard_grad_exp = (double)d->t_exp;
        d->shard_grad_exp_partial = (double)d->t_exp;
    }
    d->fsdp = r->sharding.grad_shard_as_params && r->sharding.optimizer_parallel;
    bool params_sharded = r->sharding.param_shard == UNSTATED ? r->sharding.optimizer_parallel : r->sharding.param_shard == YES;
    d->params_sharded = params_sharded;
    d->grads_sharded = !d->grads_whole_pp && (r->sharding.grad_shard || r->sharding.grad_shard_as_params);
    d->shard_params_non_exp = params_sharded ? d->shard_p_os_non_exp_partial : (double)t;
    d->shard_params_exp = params_sharded ? d->shard_p_os_exp : (double)d->t_exp;
    d->shard_params_exp_partial = params_sharded ? d->shard_p_os_exp_partial : (double)d->t_exp;
}

/* Embedding sharding (memory-model.md §4.5):
 *   shard_embed = (ranks if emb_dp_sharded else 1) · (1 if vocab_emb_dp and p == 1 else t)
 * with ranks the optimizer ranks under FSDP or with emb_opt_group, else d.
 * Tables whole over TP (tables_whole_tp with vocab_emb_dp): the parallel
 * optimizer's group of a table is the dp x tp ranks that repeat it, cut into
 * groups of optimizer_shard when that divides them (OperatorInfo::
 * CreateGroupForOptShard): table_ranks of table_repeat. */
static void derive_embedding(const run_t *r, derived_t *d)
{
    int64_t tp = r->sharding.vocab_emb_dp && r->pp == 1 ? 1 : r->tp;
    bool opt_group = r->sharding.grad_shard_as_params || r->sharding.emb_opt_group;
    int64_t ranks = opt_group ? (r->sharding.optimizer_parallel ? d->optimizer_ranks : 1) : r->dp;
    d->shard_embed = (double)((r->sharding.emb_dp_sharded ? ranks : 1) * tp);
    d->gather_embed = d->fsdp && r->sharding.emb_dp_sharded ? (double)ranks : 1.0;
    d->shard_params_embed_whole = (double)tp;
    d->tables_whole = r->sharding.tables_whole_tp && r->sharding.vocab_emb_dp;
    d->table_ranks = d->table_repeat = 1.0;
    if (d->tables_whole && r->sharding.optimizer_parallel) {
        int64_t repeat = d->dp_domain * r->tp, s = r->sharding.optimizer_shard;
        d->table_repeat = (double)repeat;
        d->table_ranks = (double)(s >= 1 && repeat % s == 0 ? s : repeat);
    }
}

/* Communication flags (memory-model.md §4.4): ZeRO level 2 or 3 of the DP
 * traffic, and whether TP, EP and CP exchange anything. */
static void derive_comm(const model_t *m, const run_t *r, derived_t *d)
{
    int level = r->sharding.grad_shard || r->sharding.grad_shard_as_params ? 3 : 2;
    d->comm_d_non_exp = d->dp_domain == 1 || !r->sharding.optimizer_parallel ? 0 : level;
    d->comm_d_exp = d->expert_dp_ranks == 1 || !r->sharding.optimizer_parallel ? 0 : level;
    d->comm_t = r->tp > 1;
    d->comm_ep = r->ep > 1 && m->experts > 1;
    d->comm_cp = r->cp > 1;
}

/* Whether any layer of the run is selectively recomputed. */
static bool run_has_selective(const run_t *r)
{
    if (r->recompute.n_ranges > 0) {
        for (int i = 0; i < r->recompute.n_ranges; i++)
            if (r->recompute.ranges[i].mode == REC_SELECTIVE)
                return true;
        return false;
    }
    if (r->recompute.full.form != FORM_NONE)
        return false; /* a stated full recompute wins, as the reference's full_rec does */
    return r->recompute.selective.form != FORM_NONE;
}

/* The switches of the run's rule (memory-model.md §4.6): 1 keeps the op's
 * activation, 0 recomputes it; they act on selectively recomputed layers. */
void derive_switches(const run_t *r, derived_t *d)
{
    signed char *s = d->switches;
    memset(s, 1, SW_COUNT);
    bool sel = run_has_selective(r);
    if (!sel) {
        if (r->recompute.rule == RULE_MINDFORMERS)
            s[SW_GATHER] = !(r->recompute.selective_comm_recompute && d->sp > 1);
        return;
    }
    if (r->recompute.rule == RULE_HYPERPARALLEL || r->recompute.rule == RULE_TORCHTITAN) {
        memcpy(s, HYPERPARALLEL_SWITCHES, SW_COUNT);
    } else if (r->recompute.rule == RULE_MINDFORMERS) {
        bool sp = d->sp > 1;
        s[SW_ATTBMM] = !(!d->flash && sp);
        s[SW_HEADCAST] = !d->flash;
        s[SW_SOFTMAX] = d->flash;
        s[SW_NORMOP] = !sp;
        s[SW_GATHER] = !(r->recompute.selective_comm_recompute && sp);
        s[SW_FFACT] = !sp;
    } else { /* megatron: Korthikanti et al.'s selective recompute of the attention core
              * (softmax, its dropout, the probabilities), hidden-state masks kept */
        s[SW_SOFTMAX] = s[SW_HEADCAST] = 0;
    }
}

bool ties_embeddings(const model_t *m, const run_t *r)
{
    return r->training.tie_embeddings == UNSTATED ? m->tied : r->training.tie_embeddings == YES;
}

static int pick(int stated, int family) { return stated >= 0 ? stated : family; }
static bool pick_flag(tristate stated, bool family) { return stated == UNSTATED ? family : stated == YES; }

/* Byte widths and family facts (memory-model.md §4.8):
 *   bytes_grad = grad_bytes when p > 1 or the run accumulates gradients, else 0
 *   bytes_optim = states·state_bytes + main_param_bytes (layers)
 *   bytes_optim_table = 2·state_bytes + main_param_bytes (embedding, output) */
static void derive_bytes(const model_t *m, const run_t *r, derived_t *d)
{
    const family_run *f = &m->family;
    d->bytes_p = r->precision.param_bytes;
    d->bytes_compute = r->precision.compute_bytes;
    d->bytes_softmax = r->precision.softmax_bytes;
    d->accumulates_grads = pick_flag(r->precision.grad_accumulation, f->grad_accumulation);
    int grad = pick(r->precision.grad_bytes, f->grad_bytes);
    d->bytes_grad = r->pp > 1 || d->accumulates_grads ? grad : 0;
    d->bytes_os = pick(r->precision.optimizer_state_bytes, f->optimizer_state_bytes);
    int states = pick(r->precision.optimizer_states, f->optimizer_states);
    int main_params = pick(r->precision.main_param_bytes, f->main_param_bytes);
    d->bytes_main = r->offload.swap_optimizer ? 0 : main_params;
    d->bytes_optim = r->offload.swap_optimizer ? 0 : states * d->bytes_os + main_params;
    d->bytes_optim_table = r->offload.swap_optimizer ? 0 : 2 * d->bytes_os + main_params;
    d->bytes_norm = pick(r->precision.norm_bytes, f->norm_bytes);
    d->bytes_dropout = pick(r->precision.dropout_bytes, f->dropout_bytes);
    d->shard_activations = pick_flag(r->sharding.shard_activations, f->shard_activations);
    d->shards_logits = pick_flag(r->loss.loss_parallel, f->loss_parallel);
    /* a fully recomputed layer keeps its input: under sequence parallelism that
     * input is already the rank's sequence shard (Megatron and torchtitan
     * checkpoint the SP-split hidden states); else split only when stated */
    d->shard_recompute_input = r->sequence_parallel || d->shard_activations || r->recompute.recompute_slice_activation ? r->tp : 1;
    d->fused_norm = pick_flag(r->kernels.fused_norm, false);
    d->fused_swiglu = pick_flag(r->kernels.fused_swiglu, false);
    d->loss_upcast = pick_flag(r->loss.loss_upcast, true);
    d->loss_inplace_grad = pick_flag(r->loss.loss_inplace_grad, false);
    d->repeat_kv = r->kernels.repeat_kv;
    /* more micro-batches (accumulation, a pipeline) keep the gradients of the
     * earlier ones through the later ones' forward */
    d->grads_released = r->allocator.grads_set_to_none && r->pp == 1 && r->micro_batch_num == 1;
    d->shard_output_activ = d->shard_activations && d->shards_logits ? r->tp : 1;
}

void derive(const model_t *m, const run_t *r, derived_t *d)
{
    memset(d, 0, sizeof *d);
    d->sp = r->sequence_parallel ? r->tp : 1;
    derive_experts(m, r, d);
    derive_sharding(m, r, d);
    derive_embedding(r, d);
    derive_comm(m, r, d);
    d->keeps_param_casts = r->precision.param_casts == UNSTATED ? !r->sharding.optimizer_parallel : r->precision.param_casts == YES;
    d->flash = pick_flag(r->kernels.flash_attention, m->family.flash_attention);
    derive_switches(r, d);
    d->core_attention_recompute = r->recompute.rule == RULE_MEGATRON;
    d->op_sac = r->recompute.rule == RULE_TORCHTITAN;
    d->s_fa = d->flash && m->heads > 0 ? (double)r->seq_length / (double)m->heads : (double)r->seq_length;
    d->n_qknorm = m->qk_norm ? 1 : 0;
    derive_bytes(m, r, d);
    d->tokens = (double)r->seq_length * (double)r->micro_batch_size / (double)r->cp;
}
