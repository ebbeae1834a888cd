/* nd_score.c: the reference planner's relative score ("bytes-weighted work"), for the `nd` ranking policy.
 *
 * Reproduced from search-ranking-cli.md §d so that its users can compare
 * orders: a unitless score, lower is better; it is not a time. */
#include "nd_score.h"

#include <stdlib.h>

#include "core/layer_kinds.h"

/* The reference's empirical MoE dispatch cost, fitted on Qwen3.5-35B-A3B at
 * 8192 tokens on 64 dies (search-ranking-cli §d.1). */
#define MOE_DISPATCH 1040.0

static double maxd(double a, double b) { return a > b ? a : b; }

/* One micro-batch's table of op costs for a layer of kind k (§d.1), before
 * the op counts; each entry is finally × bytes_p / (t·cp). */
typedef struct {
    double v[OP_COUNT], qknorm, dispatch;
} op_table;

static op_table layer_table(const model_t *m, const layer_kind *k, const run_t *r, const derived_t *d)
{
    op_table o = {{0}, 0, 0};
    double b = (double)r->micro_batch_size, s = (double)r->seq_length, h = (double)m->hidden;
    double a = k->heads, kv = k->kv_heads, dh = k->v_head_dim, t = (double)r->tp, sp = (double)d->sp;
    double g = m->attn_output_gate ? 2.0 : 1.0, hff = (double)m->ffn_width > 0 ? (double)m->ffn_width : k->ffn_width;
    if (k->mla)
        o.v[OP_ATTMM] = 6.0 * b * s * k->params.attention / (k->ops[OP_ATTMM] > 0 ? k->ops[OP_ATTMM] : 4.0);
    else
        o.v[OP_ATTMM] = 1.5 * b * s * h * ((g + 1) * a * dh + 2 * kv * dh);
    if (k->form == FORM_LINEAR)
        o.v[OP_LINREC] = 3.0 * b * s * a * (2.0 * 64 * (3 * k->qk_head_dim + 2 * dh) + 6 * k->qk_head_dim * dh);
    o.v[OP_FFMM] = 6.0 * b * s * h * hff;
    o.v[OP_FFACT] = 21.0 * b * s * hff;
    if (kind_ffn(k)->routed) {
        double per = (double)m->expert_width * (routed_copies(m, r) + (double)m->shared_experts);
        double nff = k->ops[OP_FFMM] > 0 ? k->ops[OP_FFMM] : 3.0;
        double gate = m->shared_experts > 0 && m->shared_gate ? 1.0 : 0.0;
        o.v[OP_FFMM] = 6.0 * b * s * h * (per + ((double)m->experts + gate) / nff);
        o.v[OP_FFACT] = 21.0 * b * s * per;
        o.dispatch = MOE_DISPATCH * b * s * h * (double)m->top_k * (double)r->ep * d->bytes_p / (t * (double)r->cp);
    }
    o.v[OP_ATTBMM] = 3.0 * b * s * s * a * (k->qk_head_dim + dh);
    o.v[OP_SOFTMAX] = 13.0 * a * b * s * s;
    o.v[OP_HEADCAST] = 3.0 * a * b * s * s;
    o.v[OP_GATHER] = b * s * h * (t - 1);
    o.v[OP_NORMOP] = 30.0 * b * s * h * t / sp;
    o.v[OP_DROPOUT] = 3.0 * b * s * maxd(a * s, 3 * h * t / sp);
    if (m->qk_norm && k->attention == ATTENTION_FULL)
        o.qknorm = 30.0 * b * s * (a + kv) * k->qk_head_dim;
    return o;
}

/* The switch governing each op of the vector (-1: none, always kept). */
static const int OP_SWITCH[OP_COUNT] = {-1, SW_ATTBMM, -1, SW_SOFTMAX, SW_DROPOUT, SW_NORMOP, SW_GATHER,
                                        SW_HEADCAST, SW_FFACT, -1};

/* Σ_op n_op·table_op, and with the recompute Σ_op (1 + f_op)·n_op·table_op,
 * each × bytes_p/(t·cp) (§d.1). */
static void layer_load(const layer_kind *k, const op_table *o, const run_t *r, const derived_t *d,
                       recompute_mode mode, const signed char *sw, double *plain, double *with_recompute)
{
    double load = 0, again = 0;
    for (int i = 0; i < OP_COUNT; i++) {
        double f = mode == REC_FULL ? 1.0 : 0.0;
        if (mode == REC_SELECTIVE && OP_SWITCH[i] >= 0 && sw[OP_SWITCH[i]] == 0)
            f = 1.0;
        load += k->ops[i] * o->v[i];
        again += (1.0 + f) * k->ops[i] * o->v[i];
    }
    double fq = mode == REC_FULL || (mode == REC_SELECTIVE && sw[SW_NORMOP] == 0) ? 1.0 : 0.0;
    load += o->qknorm + o->dispatch;
    again += (1.0 + fq) * o->qknorm + o->dispatch;
    *plain = load * d->bytes_p / ((double)r->tp * (double)r->cp);
    *with_recompute = again * d->bytes_p / ((double)r->tp * (double)r->cp);
}

/* Per-layer communication (§d.2): DP (ZeRO levels, or FSDP), TP, EP, CP. */
typedef struct {
    double dp, tp, ep, cp;
} comm_parts;

/* ZeRO traffic in elements (the reference adds them to bytes; kept as it is):
 *   non-expert  level 2: P/(cp·t) + P/t      level 3: P/t
 *   expert      level 2: P/(cp·te·ep) + P/max(ep, te)   level 3: P/(cp·te·ep) */
static double zero_dp_dense(double params, int level, double cp, double t)
{
    if (level == 2)
        return params / (cp * t) + params / t;
    return level == 3 ? params / t : 0.0;
}

static double zero_dp_experts(double params, int level, double cp, double te, double ep)
{
    if (level == 2)
        return params / (cp * te * ep) + params / maxd(ep, te);
    return level == 3 ? params / (cp * te * ep) : 0.0;
}

/* FSDP: (S − 1)/S·w·(G·bp + bg) + 2(C − 1)/C·(w/S)·bg·Rd a part, with
 * w = size / computed-over, S = kept / computed-over, C = group / kept. */
static double fsdp_part(double size, double over, double kept, double group, const run_t *r, const derived_t *d)
{
    double w = size / over, s = maxd(1.0, kept / over), c = maxd(1.0, group / kept), m = (double)r->micro_batch_num;
    double gathers = r->sharding.reshard_params ? 2.0 : 1.0 / m;
    double rounds = kept > (double)(r->tp * r->cp) ? 1.0 / m : 1.0;
    return (s - 1) / s * w * (gathers * d->bytes_p + d->bytes_grad) + 2 * (c - 1) / c * (w / s) * d->bytes_grad * rounds;
}

static comm_parts reference_layer_comm(const model_t *m, const layer_kind *k, const run_t *r, const derived_t *d)
{
    comm_parts c = {0, 0, 0, 0};
    const layer_params *p = &k->params;
    double t = (double)r->tp, cp = (double)r->cp, ep = (double)r->ep, te = (double)d->t_exp;
    double pn = p->attention + p->norms + p->dense_mlp + p->router, pe = p->routed + p->shared;
    double b = (double)r->micro_batch_size, s = (double)r->seq_length, h = (double)m->hidden, bc = d->bytes_compute;
    if (r->sharding.grad_shard_as_params) {
        double dpcp = (double)(r->dp * r->cp);
        c.dp = fsdp_part(pn, t, d->shard_p_os_non_exp_partial, dpcp * t, r, d) +
               fsdp_part(p->routed / ep, te, d->shard_p_os_exp, (double)d->d_exp * cp * te, r, d) +
               fsdp_part(p->shared, te, d->shard_p_os_exp_partial, dpcp * te, r, d);
    } else {
        c.dp = zero_dp_dense(pn, d->comm_d_non_exp, cp, t) +
               (pe > 0 ? zero_dp_experts(pe, d->comm_d_exp, cp, te, ep) : 0.0);
    }
    double gather = k->ops[OP_GATHER];
    if (!kind_ffn(k)->routed)
        c.tp = 0.25 * gather * s * b * h + 0.25 * gather * s * b * k->ffn_width;
    else
        c.tp = 0.25 * gather * h * h * bc * k->ops[OP_ATTMM] +
               0.25 * gather * h * bc * k->ops[OP_FFMM] * ((double)m->experts / ep + (double)m->shared_experts) *
                   (double)m->expert_width;
    c.tp *= (d->comm_t ? 1.0 : 0.0) / cp;
    if (d->comm_ep && kind_ffn(k)->routed)
        c.ep = 2.0 * h * bc * ((double)m->top_k * s * b / cp) * (ep - 1) / ep;
    if (r->cp > 1) {
        double kv_width = (k->mla ? k->kv_heads * (2 * k->v_head_dim + (double)m->rope_head_dim) / 2.0
                                  : (k->kv_heads < k->heads ? k->kv_heads : k->heads) * k->v_head_dim) / t;
        /* the reference's 2·(a/t)·head²·4 for a linear-attention layer: its fp32 state, a
         * d_k × d_v matrix a head (head² where d_k = d_v, as in Qwen3-Next and Qwen3.5) */
        if (!kind_form(k)->softmax)
            c.cp = 2.0 * kind_form(k)->cp_state(k) / t;
        else if (r->cp_algo == CP_RING)
            c.cp = 2.0 * ((cp - 1) / cp) * s * b * 2.0 * kv_width * bc;
        else
            c.cp = 2.0 * ((cp - 1) / cp) * (s / cp) * b *
                   (k->heads * k->qk_head_dim / t + 2 * kv_width + k->heads * k->v_head_dim / t) * bc;
    }
    return c;
}

typedef struct {
    double compute, recompute, comm, comm_recompute; /* C, R, M, MR of one stage */
} stage_load;

/* The recompute walk re-sends a fully recomputed layer's TP and EP traffic and
 * half its CP traffic; a selective layer what its gather switch drops. */
static void add_layer(stage_load *st, const model_t *m, const run_t *r, const derived_t *d, const layer_run *run,
                      const hardware_t *hw)
{
    const layer_kind *k = &m->kinds[run->kind];
    const signed char *sw = run->switches != NULL ? run->switches : d->switches;
    op_table o = layer_table(m, k, r, d);
    double n = (double)run->count;
    double load, load_again;
    layer_load(k, &o, r, d, run->mode, sw, &load, &load_again);
    st->compute += n * load;
    st->recompute += n * load_again;
    comm_parts plain = reference_layer_comm(m, k, r, d), kept = plain;
    if (run->mode == REC_SELECTIVE && !sw[SW_GATHER])
        kept.tp = 0.0; /* a selective recompute that reruns the gathers keeps no TP traffic */
    double dpn = (double)(hw->n_levels > 0 ? hw->levels[0].devices : 8);
    double tp_scale = maxd(1.0, (double)(r->tp / (int64_t)dpn)) * (1.0 - hw->overlap_tp);
    double ep_scale = maxd(1.0, (double)(r->ep / (int64_t)dpn)), cp_scale = maxd(1.0, (double)(r->cp / (int64_t)dpn));
    double dp_scale = 1.0 - hw->overlap_dp, div = hw->nd_comm_divisor > 0 ? hw->nd_comm_divisor : 1.0;
    double base = (kept.dp * dp_scale + kept.tp * tp_scale + kept.ep * ep_scale + kept.cp * cp_scale) / div;
    double again = 0;
    if (run->mode == REC_FULL)
        again = plain.tp * tp_scale + plain.ep * ep_scale + 0.5 * plain.cp * cp_scale;
    else if (run->mode == REC_SELECTIVE)
        again = (plain.tp - kept.tp) * tp_scale;
    st->comm += n * base;
    st->comm_recompute += n * (base + again / div);
}

/* The communication weight (§d.3): 1.5·(hff + s)·8192 / (h + s), the expert width for MoE models. */
static double comm_weight(const model_t *m, const run_t *r)
{
    double hff = m->experts > 1 ? (double)m->expert_width : (double)m->ffn_width, s = (double)r->seq_length;
    return 1.5 * (hff + s) * 8192.0 / ((double)m->hidden + s);
}

double nd_score(const price_ctx *c, const layout_t *l, const hardware_t *hw)
{
    const model_t *m = c->m;
    const run_t *r = c->r;
    const derived_t *d = c->d;
    double *x = malloc((size_t)r->pp * sizeof *x);
    if (x == NULL)
        return -1.0;
    double w = comm_weight(m, r), b = (double)r->micro_batch_size, s = (double)r->seq_length;
    for (int64_t st_i = 0; st_i < r->pp; st_i++) {
        stage_load st = {0, 0, 0, 0};
        for (int64_t chunk = 0; chunk < l->vpp; chunk++) {
            const chunk_layout *ch = layout_chunk(l, st_i, chunk);
            for (int i = 0; i < ch->n_runs; i++)
                add_layer(&st, m, r, d, &l->runs[ch->first_run + i], hw);
            if (ch->output) {
                bool mla = m->kv_lora_rank > 0;
                double factor = mla ? (double)model_mtp_layers(m) : 1.0;
                double out = factor * (1.0 / 16.0) * 6.0 * b * (double)m->vocab * (double)m->hidden * s *
                             d->bytes_p / (double)r->tp;
                st.compute += out;
                st.recompute += out;
            }
        }
        x[st_i] = st.compute + w * st.comm +
                  (maxd(0.0, st.recompute - st.compute) + maxd(0.0, w * (st.comm_recompute - st.comm))) / 3.0;
    }
    /* §d.4: the stages through a 1F1B or interleaved pipeline, whatever the run's schedule */
    run_t plain = *r;
    plain.pipeline.schedule = SCHED_1F1B;
    double bubble, score = pipeline_step(&plain, x, r->pp, &bubble);
    free(x);
    return score;
}
