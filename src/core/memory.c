/* memory.c: parameters, gradients and optimizer states per layer, and communication buffers. */
#include "memory.h"
#include "layer_kinds.h"
#include "model_params.h"

#include <stddef.h>

param_split mem_layer_split(const layer_kind *k, const run_t *r)
{
    const layer_params *p = &k->params;
    param_split s = {p->attention + p->norms + p->dense_mlp + p->router, p->routed / (double)r->ep, p->shared};
    return s;
}

/* The sharded gradients FSDP2 keeps between a step's schedules
 * (grads_kept_sharded) of p parameters over the parameters' divisor div, in
 * the gradient width: each schedule's last backward runs the groups'
 * post_backward (torch/distributed/pipelining/stage.py
 * backward_maybe_with_nosync), which hands the unsharded accumulated
 * gradients to foreach_reduce and drops them
 * (torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py post_backward);
 * foreach_reduce (_fsdp_collectives.py) frees them after the copy-in and
 * sets or adds the reduce-scatter's output, in the sharded parameter's
 * dtype, into sharded_param.grad, which lives until the optimizer's
 * zero_grad. The next schedule accumulates unsharded gradients again
 * (_fsdp_param.py to_accumulated_grad_if_needed) beside them. */
static double kept_sharded_grads(const derived_t *d, double p, double div)
{
    return d->grads_kept_sharded ? p / div * d->bytes_grad : 0.0;
}

/* Static bytes of a split at per-parameter widths, over the three divisors
 * of each part (memory-model.md §7.2):
 *   Σ part · bytes / shard(part)   for params, optimizer states, main params, gradients
 * and, between schedules, the gradients again over the parameters' FSDP
 * divisors (the optimizer's: kept_sharded_grads). */
static_bytes mem_split_static(const param_split *s, const derived_t *d, bool frozen)
{
    static_bytes b = {0, 0, 0, 0};
    double over_p = s->non_expert / d->shard_params_non_exp + s->routed / d->shard_params_exp +
                    s->shared / d->shard_params_exp_partial;
    double over_os = s->non_expert / d->shard_p_os_non_exp_partial + s->routed / d->shard_p_os_exp +
                     s->shared / d->shard_p_os_exp_partial;
    double over_g = s->non_expert / d->shard_grad_non_exp + s->routed / d->shard_grad_exp +
                    s->shared / d->shard_grad_exp_partial;
    b.params = over_p * d->bytes_p;
    if (!frozen) {
        b.optimizer = over_os * (d->bytes_optim - d->bytes_main);
        b.main_params = over_os * d->bytes_main;
        b.grads = over_g * d->bytes_grad + kept_sharded_grads(d, over_os, 1.0);
    }
    return b;
}

static_bytes mem_layer_static(const price_ctx *c, const layer_kind *k, bool frozen)
{
    param_split s = mem_layer_split(k, c->r);
    return mem_split_static(&s, c->d, frozen);
}

/* One table of P parameters: its weights over w_div, its optimizer states
 * (two: bytes_optim_table) and main copies over os_div, its gradients over g_div. */
static static_bytes table_static(double p, double w_div, double os_div, double g_div, int optim_bytes,
                                 const derived_t *d, bool frozen)
{
    static_bytes b = {0, 0, 0, 0};
    b.params = p / w_div * d->bytes_p;
    if (!frozen) {
        b.optimizer = p / os_div * (optim_bytes - d->bytes_main);
        b.main_params = p / os_div * d->bytes_main;
        b.grads = p / g_div * d->bytes_grad;
    }
    return b;
}

/* MindSpore's accu_grads (grad_shard_opt_group) follow
 * gradient_accumulation_shard alone: whole over DP without it, even though
 * the parallel optimizer shards the weights. */
static bool table_grads_sharded(const run_t *r, const derived_t *d)
{
    return ((d->params_sharded && !r->sharding.grad_shard_opt_group) || d->grads_sharded) && !d->grads_whole_pp;
}

/* A table of P parameters whole on every TP rank (tables_whole): the
 * parallel optimizer slices its weights and states over its group
 * (table_ranks; all the ranks repeating it, table_repeat, for an embedding
 * without emb_opt_group), times param_cp, the seed's CP division; its
 * gradients are whole unless they are sharded, then over the group under
 * grad_shard_opt_group, else over all those ranks. */
static static_bytes whole_table_static(const price_ctx *c, double p, bool opt_group, bool frozen)
{
    const run_t *r = c->r;
    const derived_t *d = c->d;
    double cp = (double)d->param_cp;
    double w = (opt_group ? d->table_ranks : d->table_repeat) * cp;
    double g = (r->sharding.grad_shard_opt_group ? d->table_ranks : d->table_repeat) * cp;
    static_bytes b = table_static(p, d->params_sharded ? w : 1.0, r->sharding.optimizer_parallel ? w : 1.0,
                                  table_grads_sharded(r, d) ? g : 1.0, d->bytes_optim_table, d, frozen);
    if (!frozen)
        b.grads += kept_sharded_grads(d, p, g);
    return b;
}

/* Embedding (memory-model.md §7.2): (P_emb / shard_embed)·(bp + optimizer + bg) / param_cp. */
static_bytes mem_embedding_static(const price_ctx *c, bool tied_here, bool frozen)
{
    const model_t *m = c->m;
    const run_t *r = c->r;
    const derived_t *d = c->d;
    static_bytes zero = {0, 0, 0, 0};
    if (tied_here)
        return zero;
    if (d->tables_whole)
        return whole_table_static(c, model_embedding_params(m),
                                  r->sharding.grad_shard_as_params || r->sharding.emb_opt_group, frozen);
    /* What is sharded is sharded over shard_embed·param_cp, as the reference;
     * what is not (the weights under ZeRO-1/2, everything without an optimizer
     * shard) stays whole on every DP rank, split by TP alone. */
    double div = d->shard_embed * (double)d->param_cp, whole = d->shard_params_embed_whole;
    double w_div = d->params_sharded ? div : whole;
    double os_div = r->sharding.optimizer_parallel ? div : whole;
    double g_div = table_grads_sharded(r, d) ? div : whole;
    static_bytes b = table_static(model_embedding_params(m), w_div, os_div, g_div, d->bytes_optim_table, d, frozen);
    if (!frozen)
        b.grads += kept_sharded_grads(d, model_embedding_params(m), div);
    return b;
}

/* The head (vocabulary x hidden, held even when tied to an embedding on
 * another stage) and the final norm; a tower's mergers. */
static double output_table_params(const model_t *m)
{
    if (m->patch_size > 0)
        return model_output_params(m);
    return (double)m->vocab * (double)m->hidden + (double)m->hidden * (m->norm_bias ? 2.0 : 1.0);
}

/* Output (memory-model.md §7.2): P_out over the non-expert divisors. */
static_bytes mem_output_static(const price_ctx *c, bool frozen)
{
    const derived_t *d = c->d;
    if (d->tables_whole)
        return whole_table_static(c, output_table_params(c->m), true, frozen);
    double p = output_table_params(c->m);
    static_bytes b = table_static(p, d->shard_params_non_exp, d->shard_p_os_non_exp_partial, d->shard_grad_non_exp,
                                  d->bytes_optim_table, d, frozen);
    if (!frozen)
        b.grads += kept_sharded_grads(d, p, d->shard_p_os_non_exp_partial);
    return b;
}

/* An MTP module: its projection and norms (sharded like the non-expert
 * parameters unless shard_mtp_param is off), and its own copies of the
 * embedding and output tables, as the reference prices them; no head of its
 * own when it runs the model's (mtp_shares_head). */
static_bytes mem_mtp_module_static(const price_ctx *c, bool frozen)
{
    const derived_t *d = c->d;
    bool sharded = c->r->sharding.shard_mtp_param;
    static_bytes b = table_static(model_mtp_extra_params(c->m), sharded ? d->shard_params_non_exp : 1.0,
                                  sharded ? d->shard_p_os_non_exp_partial : 1.0,
                                  sharded ? d->shard_grad_non_exp : 1.0, d->bytes_optim, d, frozen);
    if (!frozen)
        b.grads += kept_sharded_grads(d, model_mtp_extra_params(c->m), sharded ? d->shard_p_os_non_exp_partial : 1.0);
    static_bytes e = mem_embedding_static(c, false, frozen);
    static_add(&b, &e, 1.0);
    if (!c->r->sharding.mtp_shares_head) {
        static_bytes o = mem_output_static(c, frozen);
        static_add(&b, &o, 1.0);
    }
    return b;
}

/* The compute-width copies of the tables the parallel optimizer gathers
 * (the embedding, or the head and final norm), whole over TP (tables_whole)
 * or at their TP split; and of an MTP module's projection and own tables. */
double mem_table_gathered(const price_ctx *c, bool embedding)
{
    const derived_t *d = c->d;
    double tp = d->tables_whole ? 1.0 : (embedding ? d->shard_params_embed_whole : (double)c->r->tp);
    return (embedding ? model_embedding_params(c->m) : output_table_params(c->m)) / tp * d->bytes_compute;
}

double mem_mtp_module_gathered(const price_ctx *c)
{
    double proj = model_mtp_extra_params(c->m) / (double)c->r->tp * c->d->bytes_compute;
    return proj + mem_table_gathered(c, true) + (c->r->sharding.mtp_shares_head ? 0.0 : mem_table_gathered(c, false));
}

/* The layer's weights on one rank, TP- and EP-local, not DP-sharded. */
static double local_weights(const layer_kind *k, const run_t *r, const derived_t *d, double *experts)
{
    param_split s = mem_layer_split(k, r);
    *experts = s.routed / (double)d->t_exp + s.shared / (double)d->t_exp;
    return s.non_expert / (double)r->tp;
}

double mem_layer_param_casts(const price_ctx *c, const layer_kind *k)
{
    const derived_t *d = c->d;
    if (!d->keeps_param_casts || d->bytes_p <= d->bytes_compute)
        return 0.0;
    return mem_layer_gathered_params(c, k); /* the compute-width copies of the layer's local weights */
}

double mem_layer_gathered_params(const price_ctx *c, const layer_kind *k)
{
    double experts, dense = local_weights(k, c->r, c->d, &experts);
    return (dense + experts) * c->d->bytes_compute;
}

/* DP buffers of W weights at ZeRO level z: FSDP / ZeRO-3 gathers the layer
 * (and prefetches the next) in the compute width and reduce-scatters its
 * gradients; ZeRO-1/2 and plain DP reduce a layer's gradients in one bucket. */
static double dp_buffer(double w, int level, bool fsdp, const derived_t *d)
{
    double reduce = grad_width(d);
    if (fsdp || level == 3)
        return 2.0 * w * d->bytes_compute + w * reduce;
    return w * reduce;
}

/* Whether TP holds an activation-sized buffer: an all-gather's output under
 * sequence parallelism (Megatron's global memory buffer), or an all-reduce's
 * unless the runtime reduces in place in the matmul's output
 * (inplace_tp_reduce: Megatron's reduce_from_tensor_model_parallel_region). */
static bool tp_buffer(const run_t *r, const derived_t *d)
{
    return d->comm_t && (!r->sharding.inplace_tp_reduce || r->sequence_parallel);
}

layer_comm mem_layer_comm_buffers(const price_ctx *c, const layer_kind *k, const signed char *keep, double tokens)
{
    const model_t *m = c->m;
    const run_t *r = c->r;
    const derived_t *d = c->d;
    layer_comm b = {0, 0, 0, 0};
    double h = (double)m->hidden, bc = d->bytes_compute;
    double experts, dense = local_weights(k, r, d, &experts);
    bool buckets = !r->sharding.inplace_dp_buffers;
    if (d->dp_domain > 1 && buckets)
        b.dp += dp_buffer(dense, d->comm_d_non_exp, d->fsdp, d);
    if (d->expert_dp_ranks > 1 && experts > 0 && buckets)
        b.dp += dp_buffer(experts, d->comm_d_exp, d->fsdp, d);
    if (tp_buffer(r, d))
        b.tp = tokens * h * bc * (keep == NULL || keep[SW_GATHER] ? 1.0 : 0.0);
    if (d->comm_cp && !kind_form(k)->softmax)
        b.cp = 2.0 * kind_form(k)->cp_state(k) / (double)r->tp;
    else if (d->comm_cp && r->cp_algo == CP_RING)
        b.cp = 2.0 * tokens * k->kv_heads * (k->qk_head_dim + k->v_head_dim) * bc / (double)r->tp;
    else if (d->comm_cp)
        b.cp = 2.0 * tokens * (k->heads * (k->qk_head_dim + k->v_head_dim) +
                               k->kv_heads * (k->qk_head_dim + k->v_head_dim)) * bc / (double)r->tp;
    if (d->comm_ep && kind_ffn(k)->routed) {
        /* a rank's own tokens where the experts are not TP-split (derive.c ep_token_share) */
        b.ep = 2.0 * tokens * ep_token_share(r) * routed_copies(m, r) * h * bc * (double)(r->ep - 1) / (double)r->ep;
        /* and where the expert-TP group gathers the received shards after
         * (derive.c etp_gathers_tokens), the gather's output: the t ranks'
         * k·tokens/t each, a fresh tensor (token_dispatcher.py
         * dispatch_postprocess, gather_from_sequence_parallel_region without
         * the global buffer), as b.tp holds SP's gathered tokens */
        if (etp_gathers_tokens(r))
            b.ep += tokens * routed_copies(m, r) * h * bc;
    }
    return b;
}

double mem_comm_combined(const layer_comm *c)
{
    double most = c->dp;
    if (c->tp > most)
        most = c->tp;
    if (c->cp > most)
        most = c->cp;
    return most + c->ep;
}

double mem_embedding_comm(const price_ctx *c, double tokens)
{
    const model_t *m = c->m;
    const run_t *r = c->r;
    const derived_t *d = c->d;
    double dp = 0.0, table = model_embedding_params(m) / d->shard_params_embed_whole;
    if (d->dp_domain > 1 && !r->sharding.inplace_dp_buffers)
        dp = dp_buffer(table, d->comm_d_non_exp, d->fsdp, d);
    double tp = tp_buffer(r, d) ? tokens * (double)m->hidden * d->bytes_compute : 0.0;
    return dp > tp ? dp : tp;
}

/* The weights of the stage's embedding and head (one table when tied) on
 * the rank, over TP: what torchtitan's apply_fsdp leaves to the root
 * module's group, which FSDP reduces last. None without FSDP. */
static double fsdp_tables_params(const price_ctx *c, bool embedding, bool output, bool tied)
{
    if (!c->d->fsdp)
        return 0.0;
    double tables = (embedding ? model_embedding_params(c->m) : 0.0) +
                    (output && !(embedding && tied) ? output_table_params(c->m) : 0.0);
    return tables / (double)c->r->tp;
}

/* The reduce-scatter input FSDP fills last in a backward: the tables'
 * gradients, unsharded, in the reduce width. Measured on one H200 (Llama
 * 3.1 8B's tables, fp32): 4008 MiB beside every gradient at the backward's
 * end. */
double mem_fsdp_tables_reduce_input(const price_ctx *c, bool embedding, bool output, bool tied)
{
    return fsdp_tables_params(c, embedding, output, tied) * grad_width(c->d);
}

/* The tables' unsharded gradients in the compute width, which live beside
 * that input until FSDP2's foreach_reduce has copied them in (gather_copies:
 * it frees them only after the chunk_cat). Measured on one H200 (Llama 3.1
 * 8B's tables): the default stream peaked 6.32 GB over its base at the
 * backward's end, the 4.20 GB fp32 input and these 2.10 GB. None without
 * the copy. */
double mem_fsdp_tables_copied_grads(const price_ctx *c, bool embedding, bool output, bool tied)
{
    if (!c->r->sharding.gather_copies)
        return 0.0;
    return fsdp_tables_params(c, embedding, output, tied) * c->d->bytes_compute;
}

double mem_output_comm(const price_ctx *c)
{
    const run_t *r = c->r;
    const derived_t *d = c->d;
    if (d->dp_domain <= 1 || r->sharding.inplace_dp_buffers)
        return 0.0;
    return dp_buffer(output_table_params(c->m) / (double)r->tp, d->comm_d_non_exp, d->fsdp, d);
}
