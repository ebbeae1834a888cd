/* derive.h: the quantities a run's stated facts imply for a model (the reference's derive). */
#ifndef NDLUA_DERIVE_H
#define NDLUA_DERIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "run.h"

typedef struct {
    /* sequence parallelism: the factor that splits the non-TP activations */
    int64_t sp;
    /* expert degrees */
    int64_t t_exp, d_exp, edp_group, expert_dp_ranks;
    /* what divides a token's routed-expert work (FLOPs, activations) on a
     * rank: t_exp, or t where the experts are folded under SP (a rank's own
     * tokens / t, gathered over the t_exp expert-TP ranks, weights / t_exp);
     * and the share of d->tokens a rank's experts run on (t_exp / t there, else 1) */
    double expert_work_div, expert_rows_share;
    bool experts_clamped; /* the layout could not hold the experts; clamped to 1 */
    /* optimizer / FSDP sharding */
    int64_t param_cp, optimizer_ranks;
    /* the ranks DP traffic spans (FSDP's gathers and reduce-scatters, DP's
     * reductions): dp, or dp x cp when the shard spans CP (shard_spans_cp) */
    int64_t dp_domain;
    double shard_p_os_non_exp_partial, shard_p_os_non_exp, shard_p_os_exp_partial, shard_p_os_exp;
    double shard_grad_non_exp, shard_grad_exp, shard_grad_exp_partial;
    double shard_embed, gather_embed;
    /* parameter divisors: the optimizer's when parameters are sharded (ZeRO-3,
     * FSDP, MindSpore's parallel optimizer), else TP / expert TP alone */
    double shard_params_non_exp, shard_params_exp, shard_params_exp_partial;
    double shard_params_embed_whole; /* the embedding's TP split alone */
    /* the embedding and the head whole on every TP rank (tables_whole_tp
     * under vocab_emb_dp), repeated on table_repeat ranks (dp x tp) and
     * sliced by the parallel optimizer over table_ranks of them (both 1
     * without it) */
    bool tables_whole;
    double table_ranks, table_repeat;
    bool params_sharded, grads_sharded;
    /* FSDP's gradients held unsharded under PP until the step's last
     * backward (pp_unsharded_grads): divided by TP / expert TP alone */
    bool grads_whole_pp;
    /* ... and reduce-scattered at each schedule's last backward
     * (dp_sync_per_schedule) of a step of more than one schedule: from the
     * second schedule on, the stage's sharded gradients (FSDP2's
     * sharded_param.grad, accumulated by foreach_reduce) stay beside the
     * unsharded ones the running schedule accumulates */
    bool grads_kept_sharded;
    bool fsdp;
    /* communication flags */
    int comm_d_non_exp, comm_d_exp; /* 0 none, 2 ZeRO-1/2, 3 ZeRO-3 */
    bool comm_t, comm_ep, comm_cp;
    bool keeps_param_casts;
    /* recompute switches of the run's selective rule */
    signed char switches[SW_COUNT];
    bool core_attention_recompute; /* the rule reruns QK^T to AV as one region (Megatron) */
    bool op_sac; /* torchtitan's per-op selective checkpointing (selective_rule torchtitan) */
    /* attention */
    bool flash;
    double s_fa;
    int n_qknorm;
    /* byte widths */
    int bytes_p, bytes_compute, bytes_softmax, bytes_grad, bytes_os, bytes_optim, bytes_optim_table;
    int bytes_main; /* main-param copy bytes, inside bytes_optim */
    int bytes_norm, bytes_dropout;
    bool accumulates_grads, shard_activations, shards_logits;
    /* the runtime's kernels and loss (activations_opts.h): unstated, eager PyTorch as Transformers runs it */
    bool fused_norm, fused_swiglu, loss_upcast, loss_inplace_grad, repeat_kv;
    /* no gradient lives at the backward's start: the loop frees them before
     * the forward and one micro-batch runs a step (grads_set_to_none) */
    bool grads_released;
    int64_t shard_recompute_input, shard_output_activ;
    /* tokens of one micro-batch on one CP rank */
    double tokens;
} derived_t;

/* Derives from the model and the run (memory-model.md §4, model-spec §d.4). */
void derive(const model_t *m, const run_t *r, derived_t *d);
/* Sets d->switches for r's recompute (the one part of derive that reads it):
 * the derived values of a run that differs from d's only in its recompute. */
void derive_switches(const run_t *r, derived_t *d);

int64_t gcd64(int64_t a, int64_t b);

/* The width a gradient is reduced and stepped in: its own when the run
 * keeps gradients (bytes_grad), else the weights'. */
static inline double grad_width(const derived_t *d)
{
    return d->bytes_grad > 0 ? (double)d->bytes_grad : (double)d->bytes_p;
}

/* Whether the head shares the embedding's table: as the run states, else
 * as the model ties them. */
bool ties_embeddings(const model_t *m, const run_t *r);

/* Routed tokens a token sends: top-k copies, at the capacity factor when
 * the experts run with a capacity, else dropless. */
double routed_copies(const model_t *m, const run_t *r);
/* The expert layers' TP degree t_exp (derive.c derive_experts), the devices
 * between an EP group's ranks, and the share of d->tokens a rank dispatches. */
int64_t expert_tp_degree(const run_t *r);
int64_t ep_rank_stride(const run_t *r);
double ep_token_share(const run_t *r);
bool etp_gathers_tokens(const run_t *r);

#endif
