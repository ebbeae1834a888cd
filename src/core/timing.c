/* timing.c: compute and communication time of a training step, stage by stage.
 *
 * Ranks are placed TP innermost, then CP, EP (carved from DP), DP, PP: a
 * group of size g with stride k spans g·k consecutive devices, and moves
 * data at the bandwidth of the smallest level of the machine (node,
 * pod, cluster) that spans them. A collective of S bytes over n ranks moves
 * (n − 1)/n · S a rank for an all-gather or a reduce-scatter, twice that for
 * an all-reduce. Compute runs at the device's sustained TFLOP/s; every
 * matmul costs 2 FLOPs a weight a token forward and twice that backward.
 * The element-wise ops between the matmuls (softmax and dropout on eager
 * attention scores, norms, residual adds, activations) are bound by HBM
 * bandwidth: they take the bytes they move over the device's memory_gbps,
 * as does the optimizer step once the pipeline drains. */
#include "timing.h"

#include "activations.h"
#include "layer_kinds.h"
#include "model_flops.h"
#include "model_params.h"
#include "pipeline_sim.h"
#include "schedule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The share of a layer's forward a selective recompute reruns when no census
 * measured it and its rule is not Megatron's (which reruns the attention
 * core, priced as such): norms, activation functions and softmax are cheap in FLOPs
 * but memory bound; 5 % of the forward is ndlua's stated assumption. */
#define SELECTIVE_RERUN_SHARE 0.05

double level_gbps(const hardware_t *hw, int64_t span)
{
    for (int i = 0; i < hw->n_levels; i++)
        if (span <= hw->levels[i].devices)
            return hw->levels[i].gbps;
    return hw->n_levels > 0 ? hw->levels[hw->n_levels - 1].gbps : 1.0;
}

static double seconds(double bytes, double gbps) { return gbps > 0 ? bytes / (gbps * 1e9) : 0.0; }

/* Per micro-batch, forward and backward, one rank:
 *   TP   the gather-count/4 · 8·(t − 1)/t · tokens·h·bc (four all-reduces, or
 *        with SP four all-gathers and four reduce-scatters)
 *   CP   ring: 3·(cp − 1) · tokens·kv·(d_qk + d_v)·bc / t (K/V forward, K/V and
 *        their gradients backward); Ulysses: 8·(cp − 1)/cp · tokens·(q, k, v, o
 *        widths)·bc / t (four all-to-alls each way); a linear attention passes
 *        3 · its state (layer_kinds.c cp_state) / t
 *   EP   4·(ep − 1)/ep · k·cap·tokens·h·bc (dispatch and combine, each way),
 *        tokens / t where the experts are not TP-split under sequence
 *        parallelism (derive.c ep_token_share: each rank sends its own shard)
 *   ETP  where the EP all-to-all carries the rank's shard and the expert-TP
 *        group of t ranks gathers what it received (derive.c
 *        etp_gathers_tokens): each rank receives k·cap·tokens/t, the
 *        all-gather brings (t − 1) such shards, the combine's reduce-scatter
 *        sends as many; forward and backward: 4·(t − 1)/t · k·cap·tokens·h·bc */
layer_traffic layer_traffic_bytes(const price_ctx *c, const layer_kind *k)
{
    const model_t *m = c->m;
    const run_t *r = c->r;
    const derived_t *d = c->d;
    double tokens = d->tokens;
    layer_traffic t = {0, 0, 0, 0};
    double h = (double)m->hidden, bc = d->bytes_compute, tp = (double)r->tp, cp = (double)r->cp;
    if (r->tp > 1)
        t.tp = k->ops[OP_GATHER] / 4.0 * 8.0 * (tp - 1) / tp * tokens * h * bc;
    if (r->cp > 1 && !kind_form(k)->softmax)
        t.cp = 3.0 * kind_form(k)->cp_state(k) / tp;
    else if (r->cp > 1 && r->cp_algo == CP_RING)
        t.cp = 3.0 * (cp - 1) * tokens * k->kv_heads * (k->qk_head_dim + k->v_head_dim) * bc / tp;
    else if (r->cp > 1)
        t.cp = 8.0 * (cp - 1) / cp * tokens *
               (k->heads * (k->qk_head_dim + k->v_head_dim) + k->kv_heads * (k->qk_head_dim + k->v_head_dim)) * bc /
               tp;
    if (r->ep > 1 && kind_ffn(k)->routed) {
        t.ep = 4.0 * (double)(r->ep - 1) / (double)r->ep * routed_copies(m, r) * tokens * ep_token_share(r) * h * bc;
        if (etp_gathers_tokens(r))
            t.etp = 4.0 * (tp - 1) / tp * routed_copies(m, r) * tokens * h * bc;
    }
    return t;
}

/* Per step, one rank, for W weights on it:
 *   FSDP over S ranks: each micro-batch gathers the weights (again for the
 *   backward when it reshards) and reduce-scatters the gradients, (S − 1)/S
 *   of each; replicas R = d / S all-reduce the shards once a step
 *   otherwise (DDP, ZeRO-1/2): one all-reduce of the gradients a step */
double dp_traffic_bytes(const price_ctx *c, double weights)
{
    const run_t *r = c->r;
    const derived_t *d = c->d;
    double reduce = grad_width(d);
    if (d->fsdp) {
        double s = (double)d->optimizer_ranks, replicas = (double)r->dp / s;
        double gathers = r->sharding.reshard_params ? 2.0 : 1.0;
        double per_mb = (s - 1) / s * weights * (gathers * d->bytes_compute + reduce);
        double across = replicas > 1 ? 2.0 * (replicas - 1) / replicas * weights / s * reduce : 0.0;
        return (double)r->micro_batch_num * per_mb + across;
    }
    if (r->dp <= 1)
        return 0.0;
    return 2.0 * (double)(r->dp - 1) / (double)r->dp * weights * reduce;
}

/* HBM bytes a step of FSDP's copies moves through its buffers (gather_copies,
 * FSDP2's foreach copy-in and copy-out), W weights on a rank sharded over S:
 * each micro-batch, a gather casts the rank's shard into the all-gather
 * input (reads bp/S, writes bc/S) and splits the gathered output into the
 * parameters (reads and writes bc), again for the backward when it
 * reshards; the reduce copies each gradient into the reduce-scatter input
 * in the reduce width (reads bc, writes rw) and writes the shard it gets
 * (rw/S). Measured on one H200 with S = 1 (PyTorch 2.11, Llama 3 shapes):
 * the cast, copy-out and chunk_cat kernels take 13-15 ms a step for 1.92 G
 * weights, this count's 30 B a weight 15 ms at 3.84 TB/s (scripts/measure/). */
static double fsdp_copy_bytes(const price_ctx *c, double weights)
{
    const run_t *r = c->r;
    const derived_t *d = c->d;
    if (!r->sharding.gather_copies || !d->fsdp)
        return 0.0;
    double s = (double)d->optimizer_ranks, gathers = r->sharding.reshard_params ? 2.0 : 1.0;
    double bc = d->bytes_compute, rw = grad_width(d);
    double per_mb = gathers * (((double)d->bytes_p + bc) / s + 2.0 * bc) + bc + rw + rw / s;
    return (double)r->micro_batch_num * weights * per_mb;
}

/* The expert all-to-all's seconds for `bytes` a rank sends (dispatch and
 * combine) over an EP group of `ep` ranks `stride` devices apart (TP x CP
 * inside it). Each peer gets bytes/(ep − 1); the peers inside the rank's
 * node (node/stride of the group, itself included, when the group spans
 * several nodes) are reached over the node's links while the rest go over
 * the level the group spans, both at once:
 *   inside  = bytes · (q − 1)/(ep − 1) at the node's bandwidth
 *   outside = bytes · (ep − q)/(ep − 1) at the spanning level's
 *   seconds = max(inside, outside)                         q = node / stride
 * A group inside one node is all inside: bytes at the node's bandwidth. */
double ep_all_to_all_seconds(const hardware_t *hw, double bytes, int64_t ep, int64_t stride)
{
    if (ep <= 1 || bytes <= 0)
        return 0.0;
    int64_t span = ep * stride, node = hw->n_levels > 1 ? hw->levels[0].devices : span;
    if (span <= node || stride >= node)
        return seconds(bytes, level_gbps(hw, span));
    double q = (double)(node / stride), e = (double)ep;
    double inside = seconds(bytes * (q - 1.0) / (e - 1.0), level_gbps(hw, node));
    double outside = seconds(bytes * (e - q) / (e - 1.0), level_gbps(hw, span));
    return inside > outside ? inside : outside;
}

/* The chance a token's k picks reach a node (or a rank) at least once,
 * the k drawn uniformly without repeat from `pool` experts of which
 * `per_node` sit there: 1 − C(pool − per_node, k)/C(pool, k). */
static double node_reached(double pool, double per_node, int64_t k)
{
    double miss = 1.0;
    for (int64_t i = 0; i < k && miss > 0; i++)
        miss *= (pool - per_node - (double)i) / (pool - (double)i);
    return miss > 0 ? 1.0 - miss : 1.0;
}

/* The expert all-to-all on DeepEP's internode kernels (deepseek-ai/DeepEP
 * README, "asymmetric-domain bandwidth forwarding"; DeepSeek-V3 technical
 * report §3.2.2): a token goes over the network (RDMA) once to each node
 * that holds one of its experts, to the rank of its own local index there,
 * which forwards it over NVLink to the ranks holding the experts. A token
 * goes to a rank once, however many of its experts the rank holds (DeepEP
 * deep_ep/buffer.py, Buffer.dispatch: is_token_in_rank [num_tokens,
 * num_ranks] says whether a token is sent to a rank, and recv_x holds one
 * row a received token, its local expert picks in recv_topk_idx). `bytes`
 * is what the plain all-to-all sends (ep_all_to_all_seconds: k copies of
 * every token, dispatch and combine, (ep − 1)/ep of them to peers); one
 * copy of every token is u = bytes · ep / ((ep − 1) · k). Over N = ep/q
 * nodes, q of the group's ranks a node, E/N experts each (E/ep a rank),
 * routing uniform over the experts (over the M nodes the gate picks when a
 * node limit M < N stands):
 *   nodes reached D = M · (1 − C(M·E/N − E/N, k)/C(M·E/N, k))    (M = N: none)
 *   ranks reached R = M·q · (1 − C(M·E/N − E/ep, k)/C(M·E/N, k))
 *   outside = u · D · (N − 1)/N at the spanning level's bandwidth (each node
 *             is as likely as any to be reached; the rank's own is not sent)
 *   inside  = u · R · (q − 1)/q at the node's (a copy lands on the rank it
 *             is for itself one time in q)
 *   seconds = max(inside, outside)         (the two run pipelined, at once)
 * A group inside one node sends each token to the R ranks it picks over
 * NVLink, R·(ep − 1)/ep of them peers: u · R · (ep − 1)/ep at the node's
 * bandwidth. One rank a node has nothing to forward: the plain all-to-all's
 * seconds. */
double deepep_seconds(const hardware_t *hw, double bytes, int64_t ep, int64_t stride, int64_t experts, int64_t k,
                      int64_t node_limit)
{
    if (ep <= 1 || bytes <= 0 || k <= 0 || experts < ep)
        return ep_all_to_all_seconds(hw, bytes, ep, stride);
    int64_t span = ep * stride, node = hw->n_levels > 1 ? hw->levels[0].devices : span;
    if (stride >= node && span > node)
        return ep_all_to_all_seconds(hw, bytes, ep, stride);
    double e = (double)ep, per_rank = (double)experts / e, u = bytes * e / ((e - 1.0) * (double)k);
    if (span <= node) {
        double ranks = e * node_reached((double)experts, per_rank, k);
        return seconds(u * ranks * (e - 1.0) / e, level_gbps(hw, span));
    }
    double q = (double)(node / stride), n = e / q, per_node = (double)experts / n;
    double m = node_limit > 0 && (double)node_limit < n ? (double)node_limit : n;
    double reached = m * node_reached(m * per_node, per_node, k);
    double ranks = m * q * node_reached(m * per_node, per_rank, k);
    double outside = seconds(u * reached * (n - 1.0) / n, level_gbps(hw, span));
    double inside = seconds(u * ranks * (q - 1.0) / q, level_gbps(hw, node));
    return inside > outside ? inside : outside;
}

/* The step from the stage times X_i (memory-model / search §d.4), k
 * schedules of m micro-batches each (schedule.c: k = 1 and m the step's
 * micro-batches, but where the runtime runs one schedule a local batch),
 * k times one schedule's:
 *   one stage:    m · X
 *   1F1B, GPipe:  Σ X_i + (m − 1) · max X   (the first micro-batch fills the pipe)
 *   interleaved:  Σ X/v + p(v − 1)·max/v + (m·v − p(v − 1) − 1)·max/v
 *   DualPipeV:    m · max + (p − 1)·max / 2  (half of 1F1B's bubble)
 *   seqpipe:      m · max + (p − 1)·max / n  (n sequence chunks fill the pipe)
 * Each schedule fills and drains the pipe apart (torch.distributed.pipelining
 * schedules.py: step() splits its batch into n_microbatches and runs them
 * to the last backward before it returns), so k schedules pay k bubbles. */
double pipeline_step(const run_t *r, const double *x, int64_t pp, double *bubble)
{
    double sum = 0, most = 0, m = (double)schedule_micro_batches(r), p = (double)pp, v = (double)r->vpp;
    double k = (double)schedule_count(r);
    for (int64_t i = 0; i < pp; i++) {
        sum += x[i];
        if (x[i] > most)
            most = x[i];
    }
    double step;
    if (pp == 1)
        step = m * sum;
    else if (r->pipeline.schedule == SCHED_ZERO_BUBBLE_V)
        step = m * most + (p - 1) * most / 2.0;
    else if (r->pipeline.schedule == SCHED_SEQPIPE)
        step = m * most + (p - 1) * most / (double)r->pipeline.seq_split;
    else if (r->vpp > 1)
        step = sum / v + p * (v - 1) * most / v + (m * v - p * (v - 1) - 1) * most / v;
    else
        step = sum + (m - 1) * most;
    step *= k;
    *bubble = step - k * m * most;
    if (*bubble < 0)
        *bubble = 0;
    return step;
}

static double layer_forward_flops(const layer_flops *f, const run_t *r, const derived_t *d)
{
    double t = (double)r->tp;
    return (f->proj + f->scores + f->recurrence + f->mlp + f->shared) / t + f->routed / d->expert_work_div + f->router;
}

/* The forward share a selective recompute reruns when a census measured
 * it: the attention and FFN matmul shares it states. */
static double census_rerun_share(const census_record *c, const layer_flops *f)
{
    double total = f->proj + f->scores + f->recurrence + f->mlp + f->shared + f->routed + f->router;
    double ffn = f->mlp + f->shared + f->routed + f->router;
    return total > 0 ? (c->selective_attention_mm * f->proj + c->selective_ffn_mm * ffn) / total : 0.0;
}

double layer_rank_weights(const price_ctx *c, const layer_kind *k)
{
    const layer_params *p = &k->params;
    const run_t *r = c->r;
    return (p->attention + p->norms + p->dense_mlp + p->router) / (double)r->tp +
           (p->routed / (double)r->ep + p->shared) / (double)c->d->t_exp;
}

/* HBM bytes the eager attention's element-wise ops move in a layer's
 * forward, a token of one rank: without flash attention, each of the a/t
 * heads' s scores is read by the softmax (bc), which writes its output
 * (bs); a softmax wider than the compute width (Transformers' fp32
 * softmax) is cast back for the product with V (reads bs, writes bc); a
 * dropout reads that and writes its output (bc) and mask (bd). */
static double scores_moved_per_token(const layer_kind *k, const run_t *r, const derived_t *d)
{
    if (d->flash || !kind_form(k)->softmax)
        return 0.0;
    double bc = d->bytes_compute, bs = d->bytes_softmax;
    double per_score = bc + bs + (bs != bc ? bs + bc : 0.0) + (d->bytes_dropout > 0 ? bs + bc + d->bytes_dropout : 0);
    return k->ops[OP_SOFTMAX] * k->heads / (double)r->tp * (double)r->seq_length / (double)r->cp * per_score;
}

/* HBM bytes a rotated query or key element costs, forward and backward
 * together (each op's backward is an op of the same shape: a product by the
 * same constants, a cast back, a slice for the concatenation):
 *   fused        one kernel reads and writes it             2·bc, twice
 *   rotate_half  Transformers' eager code, in bc: the negated half (reads and
 *                writes half), the concatenation (1 + 1), the products by cos
 *                and sin (1 + 1 each), their sum (2 + 1)    10·bc, twice
 *   complex      torchtitan's apply_rotary_emb: x.float() (bc + 4), the
 *                complex product in fp32 (4 + 4), type_as (4 + bc); the casts
 *                vanish where bc is already 4               (2·bc + 16), twice
 * Measured on one H200 (PyTorch 2.11, torchtitan's Llama 3 8B layer, eager):
 * the complex product's kernels take 0.8 ms a step of 4 layers and 8192
 * tokens, about the 8 B an element of 5120 rotated elements a token at
 * 3.84 TB/s twice (0.7 ms); torch.compile leaves that product to ATen and
 * fuses the casts into its neighbours, not away (scripts/measure/). */
static double rope_bytes_per_element(rope_form rope, double bc)
{
    if (rope == ROPE_FUSED)
        return 2.0 * 2.0 * bc;
    if (rope == ROPE_COMPLEX)
        return 2.0 * (8.0 + (bc < 4.0 ? 2.0 * (bc + 4.0) : 0.0));
    return 2.0 * 10.0 * bc;
}

/* HBM bytes a layer's attention moves around its kernel, a token of one
 * rank, forward and backward together, priced as a third in the forward's
 * element-wise bytes (which the backward prices twice): the rotary
 * embedding of the queries and keys (rope_bytes_per_element), a/t query
 * heads and kv/t key heads of d_qk, times the share of a head it turns
 * (partial_rotary_factor; MLA: the d_rope part of each query head and the
 * one shared rope key, which every rank computes whole); none
 * for a model of learned positions or a linear-attention layer. And, where
 * the runtime repeats K and V to the query heads (repeat_kv), the copy
 * reads kv/t heads and writes a/t heads of K (d_qk) and of V (d_v), and
 * its backward sums them back (reads a/t, writes kv/t). */
static double qk_moved_per_token(const model_t *m, const layer_kind *k, const run_t *r, const derived_t *d)
{
    if (!kind_form(k)->softmax || k->ops[OP_ATTMM] <= 0)
        return 0.0;
    double t = (double)r->tp, bc = d->bytes_compute, blocks = k->ops[OP_ATTMM] / 4.0;
    double rotated = 0.0;
    if (!m->family.no_rope && m->learned_positions == 0)
        rotated = kind_form(k)->rotated(m, k, t); /* by its attention form (layer_kinds.c) */
    double moved = rotated * rope_bytes_per_element(r->kernels.rope, bc);
    if (d->repeat_kv && kind_form(k)->per_head_kv && k->kv_heads < k->heads)
        moved += 2.0 * (k->heads + k->kv_heads) * (k->qk_head_dim + k->v_head_dim) * bc / t;
    return blocks * moved / 3.0;
}

/* HBM bytes a norm moves an element in its forward: a fused kernel (TE's,
 * Apex's, PyTorch's nn.RMSNorm and nn.LayerNorm, torch.compile's) reads
 * and writes it once, 2·bc. Transformers' eager RMSNorm runs op by op in
 * the norm width bn (fp32): the upcast (bc + bn), the square (2bn), the
 * mean (bn), the product by the reciprocal root (2bn), the cast back
 * (bn + bc) and the weight's product (2bc): 4bc + 7bn, 36 B in bf16; the
 * zero-centred form (Qwen3.5, Gemma) multiplies by 1 + weight in fp32
 * before the cast back: 2bc + 9bn, 40 B. Where bn is bc the casts vanish. */
static double norm_bytes_per_element(const model_t *m, const derived_t *d)
{
    double bc = d->bytes_compute, bn = d->bytes_norm;
    if (d->fused_norm || m->norm_bias) /* a LayerNorm is one kernel eager too */
        return 2.0 * bc;
    double casts = bn != bc ? 2.0 * (bc + bn) : 0.0;
    return casts + (m->family.zero_centered_norms ? 7.0 * bn : 5.0 * bn + 2.0 * bc);
}

/* HBM bytes the element-wise ops of one layer move in its forward, a token
 * of one rank (each op reads its inputs and writes its outputs once; the
 * GEMMs' own traffic is in their FLOP rate):
 *   scores   the eager attention's softmax and dropout (scores_moved_per_token)
 *   norms    each over the hidden state, h elements (norm_bytes_per_element);
 *            q/k norms over the a/t query and kv/t key heads
 *   residual two adds reading two hidden states and writing one (3h·bc each)
 *   dropout  each hidden dropout reads h, writes h and its mask (h·(2bc + bd))
 *   FFN act  a fused gated product reads two f-wide inputs and writes one
 *            (3f·bc), eager SiLU and product apart 5f·bc (the SiLU reads
 *            and writes f, the product reads two and writes one); a plain
 *            activation reads and writes f (2f·bc); over TP (expert TP for
 *            routed experts, at top-k copies)
 *   rotary   the queries' and keys' rotary embedding and K/V repeat
 *            (qk_moved_per_token), over TP
 * The hidden-state ops run on the whole sequence on every TP rank unless
 * sequence parallelism splits it. Backward moves about twice the forward's
 * bytes (each op reads the gradient and what it saved, and writes a gradient). */
static double layer_moved_per_token(const model_t *m, const layer_kind *k, const run_t *r, const derived_t *d)
{
    double h = (double)m->hidden, bc = d->bytes_compute, t = (double)r->tp, sp = (double)d->sp;
    double moved = scores_moved_per_token(k, r, d) + qk_moved_per_token(m, k, r, d);
    double norm = norm_bytes_per_element(m, d);
    hidden_dropouts drop = act_hidden_dropouts(k, r, d);
    double hidden = k->ops[OP_NORMOP] * h * norm + 2.0 * 3.0 * h * bc + drop.ops * h * (2.0 * bc + drop.mask_bytes);
    moved += hidden / sp;
    if (m->qk_norm && kind_form(k)->per_head_kv)
        moved += k->ops[OP_ATTMM] / 4.0 * (k->heads + k->kv_heads) * k->qk_head_dim / t * norm;
    double per_width = k->ops[OP_FFMM] < 3 ? 2.0 * bc : d->fused_swiglu ? 3.0 * bc : 5.0 * bc;
    double over_tp = kind_ffn(k)->tp_width(m, k); /* its FFN form's parts (layer_kinds.c) */
    if (kind_ffn(k)->routed)
        moved += per_width * ((double)m->expert_width * routed_copies(m, r) / d->expert_work_div + over_tp / t);
    else
        moved += per_width * over_tp / t;
    return moved;
}

/* The matmul FLOPs a token torchtitan's per-op policy reruns in a layer's
 * backward: it saves every second matmul's output of q, k, v, o, gate, up,
 * down (activations.c op_sac_activations), so k, o and up run again, over
 * TP; with every element-wise op, which it saves none of. */
static double op_sac_rerun_flops(const model_t *m, const layer_kind *k, const layer_flops *f, const run_t *r)
{
    double h = (double)m->hidden, blocks = k->ops[OP_ATTMM] / 4.0;
    double wk = 2.0 * h * k->kv_heads * k->qk_head_dim, wo = 2.0 * k->heads * k->v_head_dim * h;
    return (blocks * (wk + wo) + f->mlp / 3.0) / (double)r->tp;
}

/* What a recompute reruns of a layer's forward, FLOPs and element-wise
 * bytes of one micro-batch: all of it (full); under selective recompute
 * the census's measured matmul shares, else under torchtitan's per-op
 * policy the matmuls it does not save and every element-wise op, else,
 * when the rule reruns the attention core (Megatron's selective recompute:
 * QK^T, the mask, softmax and dropout, the product with V), its score
 * matmuls and their element-wise traffic, else a stated 5 % of the forward. */
static void rerun_of(const layer_kind *k, const layer_flops *f, recompute_mode mode, const price_ctx *c,
                     layer_time *lt)
{
    double share = 0.0;
    if (mode == REC_FULL)
        share = 1.0;
    else if (mode == REC_SELECTIVE && k->census != NULL && k->census->has_shares)
        share = census_rerun_share(k->census, f);
    else if (mode == REC_SELECTIVE && c->d->op_sac && act_op_sac_prices(k)) {
        lt->rerun_flops = op_sac_rerun_flops(c->m, k, f, c->r) * c->d->tokens;
        lt->rerun_moved = lt->moved;
        return;
    }
    else if (mode == REC_SELECTIVE && c->d->core_attention_recompute && kind_form(k)->softmax) {
        double tokens = c->d->tokens;
        lt->rerun_flops = f->scores / (double)c->r->tp * tokens;
        lt->rerun_moved = scores_moved_per_token(k, c->r, c->d) * tokens;
        lt->rerun_attention_flops = lt->attention_flops;
        return;
    } else if (mode == REC_SELECTIVE)
        share = SELECTIVE_RERUN_SHARE;
    lt->rerun_flops = share * lt->forward_flops;
    lt->rerun_moved = share * lt->moved;
    lt->rerun_attention_flops = share * lt->attention_flops;
}

/* The FLOPs a GEMM of m rows, inner width k and n columns takes beyond its
 * own where it is memory bound (the roofline, Williams, Waterman and
 * Patterson 2009; NVIDIA's Matrix Multiplication Background guide: a GEMM
 * is memory bound when its arithmetic intensity, 2mkn FLOPs over the
 * bc·(mk + kn + mn) bytes of its three matrices, is below the device's
 * FLOPs a byte): at `ridge` FLOPs a byte (sustained_tflops over
 * memory_gbps) its bytes take what ridge·bytes FLOPs would; 0 where it is
 * compute bound or no ridge is known. Its two backward GEMMs read and
 * write matrices of the same three shapes, so the backward's twice the
 * forward holds for the excess too. */
double gemm_roofline_excess(double m, double k, double n, double bc, double ridge)
{
    if (!(ridge > 0) || m <= 0 || k <= 0 || n <= 0)
        return 0.0;
    double flops = 2.0 * m * k * n, need = ridge * bc * (m * k + k * n + m * n);
    return need > flops ? need - flops : 0.0;
}

/* Tile and wave quantization (NVIDIA, "Matrix Multiplication Background
 * User's Guide", Deep Learning Performance docs: a GEMM's output is cut
 * into tiles, one thread block each; the device runs as many tiles at once
 * as it has SMs, a wave; a partial last tile, and a partial last wave,
 * take a whole one's time). A grouped GEMM (the routed experts': CUTLASS's
 * grouped kernel schedules every problem's tiles over the SMs as one grid)
 * quantizes its tiles apiece and its waves together. */
double gemm_wave_efficiency(const kernel_pricing *g, double rows, double cols, double count)
{
    if (!(g->sms > 0) || !(g->tile_m > 0) || !(g->tile_n > 0) || !(rows > 0) || !(cols > 0) || !(count > 0))
        return 1.0;
    double tiles = count * ceil(rows / g->tile_m) * ceil(cols / g->tile_n);
    double waves = ceil(tiles / g->sms);
    return rows * cols * count / (waves * g->sms * g->tile_m * g->tile_n);
}

/* One GEMM's time in FLOPs: its 2mkn over the wave efficiency of its m x n
 * output, at least its bytes at the ridge (gemm_roofline_excess). */
static double gemm_priced(const kernel_pricing *g, double flops, double need, double rows, double cols, double count)
{
    double t = flops / gemm_wave_efficiency(g, rows, cols, count);
    return need > t ? need : t;
}

/* Per GEMM of the launch (count only sets the waves): forward the excess
 * over 2mkn; backward the two GEMMs' excess over 4mkn less twice the
 * forward's (what the backward's twice-the-forward misses): 0 where no
 * wave is priced, whatever the roofline. */
gemm_excess_flops gemm_excess(const kernel_pricing *g, double m, double k, double n, double count, double bc)
{
    gemm_excess_flops e = {0.0, 0.0};
    if (m <= 0 || k <= 0 || n <= 0)
        return e;
    double flops = 2.0 * m * k * n;
    double need = g->ridge > 0 ? g->ridge * bc * (m * k + k * n + m * n) : 0.0;
    double forward = gemm_priced(g, flops, need, m, n, count);
    e.forward = forward > flops ? forward - flops : 0.0;
    if (gemm_wave_efficiency(g, m, n, count) < 1.0 || gemm_wave_efficiency(g, m, k, count) < 1.0 ||
        gemm_wave_efficiency(g, k, n, count) < 1.0) {
        double backward = gemm_priced(g, flops, need, m, k, count) + gemm_priced(g, flops, need, k, n, count);
        e.backward = backward - 2.0 * flops - 2.0 * e.forward;
    }
    return e;
}

/* Adds n times a GEMM's excess to a sum. */
static void add_excess(gemm_excess_flops *sum, double n, gemm_excess_flops e)
{
    sum->forward += n * e.forward;
    sum->backward += n * e.backward;
}

/* A layer's GEMMs' excess over their FLOPs (gemm_excess), one
 * micro-batch of one rank: the attention's input projection (h to the
 * a/t query and kv/t key and value heads) and output projection, a dense
 * FFN's input (gated: two widths) and output GEMMs over TP; a MoE layer's
 * shared experts over TP and, on each of the E/EP routed experts a rank
 * holds, the k·EP/E share of the EP group's tokens it receives (balanced
 * routing), over expert TP, the E/EP in one grouped launch. MLA's
 * low-rank projections are taken as one projection of the same weights
 * from h. */
static gemm_excess_flops layer_gemm_excess(const model_t *m, const layer_kind *k, const run_t *r, const derived_t *d,
                                           const kernel_pricing *g)
{
    gemm_excess_flops x = {0.0, 0.0};
    if (!(g->ridge > 0) && !(g->sms > 0))
        return x;
    double tokens = d->tokens, h = (double)m->hidden, t = (double)r->tp, bc = d->bytes_compute;
    if (kind_form(k)->softmax && k->ops[OP_ATTMM] > 0) {
        double blocks = k->ops[OP_ATTMM] / 4.0;
        attention_gemms p = kind_form(k)->gemms(m, k, t); /* by its attention form (layer_kinds.c) */
        gemm_excess_flops a = gemm_excess(g, tokens, h, p.in, 1.0, bc);
        if (p.out > 0) {
            gemm_excess_flops o = gemm_excess(g, tokens, p.out, h, 1.0, bc);
            a.forward += o.forward;
            a.backward += o.backward;
        }
        add_excess(&x, blocks, a);
    }
    double gate = k->ops[OP_FFMM] < 3 ? 1.0 : 2.0, over_tp = kind_ffn(k)->tp_width(m, k);
    if (over_tp > 0) { /* its FFN form's part over TP (layer_kinds.c): dense, or shared experts */
        double f = over_tp / t;
        add_excess(&x, 1.0, gemm_excess(g, tokens, h, gate * f, 1.0, bc));
        add_excess(&x, 1.0, gemm_excess(g, tokens, f, h, 1.0, bc));
    }
    if (!kind_ffn(k)->routed)
        return x;
    double ep = (double)r->ep, experts = (double)m->experts, f = (double)m->expert_width / (double)d->t_exp;
    double rows = tokens * d->expert_rows_share * (double)m->top_k * ep / experts, count = experts / ep;
    gemm_excess_flops up = gemm_excess(g, rows, h, gate * f, count, bc), down = gemm_excess(g, rows, f, h, count, bc);
    up.forward += down.forward;
    up.backward += down.backward;
    add_excess(&x, count, up);
    return x;
}

/* A flash attention kernel's rate by the keys each query block runs over
 * (FlashAttention-2, Dao 2023, section 3.2: a thread block a block of
 * queries, looping over the key/value blocks; loading the queries,
 * rescaling and writing the output are fixed work a block, so the rate
 * falls as the loop shortens): rate(L) ∝ L/(L + knee). Measured on one
 * H200 (causal, head width 128, spec/validation/data/h200-attention-rates.json:
 * 381, 421, 441, 460, 469, 470 TFLOP/s at 2048 to 65536 tokens) the curve
 * 470·L/(L + 384) comes within 4 %; the profile's attention_tflops holds
 * from attention_from keys on, and below it the rate falls by the curve. */
double attention_key_efficiency(const kernel_pricing *g, double keys)
{
    if (!(g->attention_knee > 0) || !(g->attention_from > 0) || !(keys > 0) || keys >= g->attention_from)
        return 1.0;
    return keys * (g->attention_from + g->attention_knee) / (g->attention_from * (keys + g->attention_knee));
}

/* The keys a query of a rank's attention kernel runs over: ring context
 * parallelism runs it once a step over one block of the sequence (s/cp
 * keys); Ulysses gathers the whole sequence for a share of the heads; no
 * CP, the whole sequence. */
static double attention_keys(const run_t *r)
{
    double s = (double)r->seq_length;
    return r->cp > 1 && r->cp_algo == CP_RING ? s / (double)r->cp : s;
}

static layer_time price_layer(const price_ctx *c, const layer_kind *k, recompute_mode mode, const kernel_pricing *g)
{
    const model_t *m = c->m;
    const run_t *r = c->r;
    const derived_t *d = c->d;
    double tokens = d->tokens;
    /* flash attention skips the score blocks the causal mask hides; an
     * eager attention computes every score and masks them after */
    layer_flops f = kind_flops(m, k, (double)r->seq_length, d->flash ? 0.5 : 1.0);
    gemm_excess_flops excess = layer_gemm_excess(m, k, r, d, g);
    layer_time lt = {true, layer_forward_flops(&f, r, d) * tokens + excess.forward, 0.0, 0.0,
                     layer_moved_per_token(m, k, r, d) * tokens, layer_rank_weights(c, k),
                     layer_traffic_bytes(c, k), 0.0, 0.0, excess.backward};
    /* a flash kernel runs the scores at its own rate (hardware attention_tflops) */
    if (d->flash && kind_form(k)->softmax)
        lt.attention_flops = f.scores / (double)r->tp * tokens;
    rerun_of(k, &f, mode, c, &lt);
    /* a flash kernel over short keys runs below its rate: its FLOPs take
     * 1/efficiency of their time, forward and rerun alike */
    if (lt.attention_flops > 0) {
        double slow = 1.0 / attention_key_efficiency(g, attention_keys(r)) - 1.0;
        lt.forward_flops += slow * lt.attention_flops;
        lt.attention_flops += slow * lt.attention_flops;
        lt.rerun_flops += slow * lt.rerun_attention_flops;
        lt.rerun_attention_flops += slow * lt.rerun_attention_flops;
    }
    return lt;
}

/* The layer price of a run of layers: from the memo when it holds it. */
static layer_time layer_time_of(const price_ctx *c, const layer_run *run, layer_time *layers, const kernel_pricing *g)
{
    const layer_kind *k = &c->m->kinds[run->kind];
    if (layers == NULL || run->switches != NULL)
        return price_layer(c, k, run->mode, g);
    layer_time *lt = &layers[3 * run->kind + (int)run->mode];
    if (!lt->ready)
        *lt = price_layer(c, k, run->mode, g);
    return *lt;
}

static void add_run(stage_work *w, const price_ctx *c, const layer_run *run, layer_time *layers, const kernel_pricing *g)
{
    layer_time lt = layer_time_of(c, run, layers, g);
    double n = (double)run->count;
    w->forward_flops += n * lt.forward_flops;
    w->backward_extra_flops += n * lt.backward_extra_flops;
    w->recompute_flops += n * lt.rerun_flops;
    w->forward_attention_flops += n * lt.attention_flops;
    w->recompute_attention_flops += n * lt.rerun_attention_flops;
    w->forward_moved += n * lt.moved;
    w->recompute_moved += n * lt.rerun_moved;
    param_split u = mem_layer_split(&c->m->kinds[run->kind], c->r);
    w->updated.non_expert += n * u.non_expert;
    w->updated.routed += n * u.routed;
    w->updated.shared += n * u.shared;
    layer_traffic t = lt.traffic;
    /* a fully recomputed layer sends its forward traffic again: half of TP and
     * EP's (one way of two), a third of ring CP's */
    double again = run->mode == REC_FULL ? 1.0 : 0.0;
    w->tp += n * t.tp * (1.0 + again / 2.0);
    w->cp += n * t.cp * (1.0 + again / 3.0);
    w->ep += n * t.ep * (1.0 + again / 2.0);
    w->etp += n * t.etp * (1.0 + again / 2.0);
    w->tp_once += n * t.tp;
    w->cp_once += n * t.cp;
    w->ep_once += n * t.ep;
    w->etp_once += n * t.etp;
    if (!(lt.attention_flops > 0))
        w->cp_bare += n * t.cp;
    w->weights += n * lt.weights;
    w->layers += n;
}

void timing_forget_layers(layer_time *layers, const model_t *m)
{
    for (int i = 0; i < 3 * m->n_kinds; i++)
        layers[i].ready = false;
}

void timing_memo_free(timing_memo *memo)
{
    free(memo->stage_x);
    free(memo->sim);
    for (size_t i = 0; i < memo->n_traces; i++)
        pipeline_trace_free(memo->traces[i]);
    free(memo->traces);
    memset(memo, 0, sizeof *memo);
}

/* The vision tower on the first stage: its forward FLOPs for the visual
 * tokens of one micro-batch, over TP. */
static void add_vision(stage_work *w, const model_t *m, const run_t *r)
{
    const model_t *v = m->vision;
    double visual = (double)(r->visual_seq_length > 0 ? r->visual_seq_length : v->max_positions);
    model_flops f = model_count_flops(v, (int64_t)(visual > 0 ? visual : 1024));
    w->forward_flops += f.total * visual * (double)r->micro_batch_size / (double)r->cp / (double)r->tp;
    double params = model_count_params(v).total;
    w->weights += params / (double)r->tp;
    if (!r->training.freeze_vision)
        w->updated.non_expert += params;
}

/* HBM bytes the loss's element-wise passes move over the logits, forward
 * and backward, a token of one rank (the vocabulary over TP when the loss is
 * vocabulary-parallel), each entry of the loss's width lw (4 when it
 * upcasts): the upcast reads the compute-width logits and writes lw, and
 * its backward casts the gradient back; the log-softmax reads its input
 * three times (maximum, sum of exponentials, output) and writes once, and
 * its backward reads the gradient twice and its output once and writes
 * once; PyTorch's NLL backward first zero-fills a gradient of the loss's
 * width (none when the loss writes its gradient in place, Megatron's).
 * Measured on one H200 (PyTorch 2.11, V = 128256, s = 8192): the
 * log-softmax, NLL and zero-fill kernels 9.2 ms a step and the two casts
 * about 3 ms more, what this count's 48 B an entry take at 4.1 TB/s
 * (12.3 ms; scripts/measure/). */
static double loss_moved_per_token(const price_ctx *c)
{
    const derived_t *d = c->d;
    double lw = d->loss_upcast ? 4.0 : (double)d->bytes_compute;
    double per_entry = 8.0 * lw + (d->loss_upcast ? 2.0 * ((double)d->bytes_compute + lw) : 0.0) +
                       (d->loss_inplace_grad ? 0.0 : lw);
    return per_entry * (double)c->m->vocab / act_output_tp_divisor(c);
}

/* Whether a stage's head shares the embedding table the stage holds. */
static bool tied_here(const price_ctx *c, const stage_work *w)
{
    return w->embeddings > 0 && w->outputs > 0 && ties_embeddings(c->m, c->r);
}

/* Adds what chunk `chunk` of stage s does a micro-batch to w. */
static void add_chunk(stage_work *w, const price_ctx *c, const layout_t *l, int64_t s, int64_t chunk, layer_time *layers,
                      const kernel_pricing *g)
{
    const model_t *m = c->m;
    const run_t *r = c->r;
    double tokens = c->d->tokens, h = (double)m->hidden;
    const chunk_layout *ch = layout_chunk(l, s, chunk);
    for (int i = 0; i < ch->n_runs; i++)
        add_run(w, c, &l->runs[ch->first_run + i], layers, g);
    if (ch->embedding) {
        w->weights += model_embedding_params(m) / (double)r->tp;
        w->embeddings++;
    }
    if (ch->output) {
        w->outputs++;
        /* the head's logits (vocabulary-parallel over TP), and each MTP module's projection and logits */
        double head = 2.0 * (double)m->vocab * h;
        w->forward_flops += (head + (double)model_mtp_layers(m) * (head + 4.0 * h * h)) * tokens / (double)r->tp;
        gemm_excess_flops x = gemm_excess(g, tokens, h, (double)m->vocab / (double)r->tp, 1.0, c->d->bytes_compute);
        w->forward_flops += (1.0 + (double)model_mtp_layers(m)) * x.forward;
        w->backward_extra_flops += (1.0 + (double)model_mtp_layers(m)) * x.backward;
        /* the loss's passes, forward and backward: a third in the
         * forward's element-wise bytes, which the backward prices twice */
        w->forward_moved += (1.0 + (double)model_mtp_layers(m)) * loss_moved_per_token(c) * tokens / 3.0;
        w->weights += (double)m->vocab * h / (double)r->tp;
    }
}

static void stage_work_of(const price_ctx *c, const layout_t *l, int64_t s, layer_time *layers, const kernel_pricing *g,
                          stage_work *w)
{
    const model_t *m = c->m;
    const run_t *r = c->r;
    memset(w, 0, sizeof *w);
    double h = (double)m->hidden;
    for (int64_t chunk = 0; chunk < l->vpp; chunk++)
        add_chunk(w, c, l, s, chunk, layers, g);
    if (s == 0 && m->vision != NULL)
        add_vision(w, m, r);
    if (tied_here(c, w)) /* one table serves both: its weights are reduced once */
        w->weights -= (double)m->vocab * h / (double)r->tp;
}

/* The bytes a stage's optimizer step moves through HBM: a memory-bound
 * pass over what the rank's optimizer holds (Megatron's and DeepSpeed's
 * fused multi-tensor Adam, PyTorch's foreach AdamW under torchtitan). Each
 * parameter it updates (its states and main copy, over bytes_optim)
 *   reads and writes its main copy and states     2·(states + main params)
 *   reads its gradient twice                      the norm clipping takes, the update
 *   writes the weight the model computes with     bytes_p (read too, updated in
 *                                                 place, when there is no main copy)
 * and a gradient buffer kept across micro-batches (grad_accumulation:
 * Megatron's main_grad, DeepSpeed's buckets) is zeroed for the next step. */
static double optimizer_step_bytes(const price_ctx *c, const stage_work *w)
{
    const derived_t *d = c->d;
    const run_t *r = c->r;
    if (r->training.frozen || r->offload.offload_params || r->offload.offload_optimizer || r->offload.swap_optimizer || d->bytes_optim <= 0)
        return 0.0; /* nothing to step, or the host steps it */
    static_bytes b = mem_split_static(&w->updated, d, false);
    if (w->embeddings > 0) {
        static_bytes e = mem_embedding_static(c, tied_here(c, w), false);
        static_add(&b, &e, (double)w->embeddings);
    }
    if (w->outputs > 0) {
        static_bytes o = mem_output_static(c, false);
        static_add(&b, &o, (double)w->outputs);
        int64_t mtp = model_mtp_layers(c->m);
        if (mtp > 0) {
            static_bytes t = mem_mtp_module_static(c, false);
            static_add(&b, &t, (double)(mtp * w->outputs));
        }
    }
    double held = b.optimizer + b.main_params, updated = held / (double)d->bytes_optim;
    double grad = grad_width(d);
    double weight = d->bytes_main > 0 ? d->bytes_p : 2.0 * d->bytes_p;
    /* a clipping that always scales reads and writes each gradient once more */
    double reads = c->r->training.clip_scales_always ? 4.0 : 2.0;
    /* a kept gradient buffer is zeroed for the next step; freed ones
     * (grads_set_to_none) are not */
    double zeroed = d->accumulates_grads && !c->r->allocator.grads_set_to_none ? b.grads : 0.0;
    return 2.0 * held + updated * (reads * grad + weight) + zeroed;
}

/* The ring attention's sends a micro-batch exposes: each of the cp − 1
 * steps sends the next K/V block (and backward its gradients) while the
 * flash kernel computes on the current one (Megatron/Transformer Engine's
 * context parallelism: send/recv of the next chunk issued before the
 * current chunk's attention; torchtitan's ring SDPA likewise), so the
 * steps' sends outlast what the attention of cp − 1 of its cp blocks
 * hides only by their excess: max(0, comm − (cp − 1)/cp · attention), the
 * attention forward, backward (twice) and rerun at the flash kernel's
 * rate. Never less than the runtime's (1 − overlap.cp) share; Ulysses'
 * all-to-alls, a linear attention's state passing and an attention
 * without a flash kernel keep that share alone. */
double cp_exposed_seconds(const stage_work *w, const run_t *r, const hardware_t *hw, double comm)
{
    double share = 1.0 - hw->overlap_cp, least = comm * share;
    double rate = (hw->attention_tflops > 0 ? hw->attention_tflops : hw->sustained_tflops) * 1e12;
    double attention = (3.0 * w->forward_attention_flops + w->recompute_attention_flops) / rate;
    if (r->cp <= 1 || r->cp_algo != CP_RING || !(attention > 0) || !(hw->overlap_cp > 0))
        return least;
    double cp = (double)r->cp, exposed = comm - (cp - 1.0) / cp * attention;
    return exposed > least ? exposed : least;
}

/* One micro-batch on a stage: forward, backward (twice the forward), the
 * recomputed share, and the communication compute does not hide. */
static double stage_micro_batch_time(const stage_work *w, const model_t *mo, const run_t *r, const hardware_t *hw,
                                     double pp_bytes, double parts[STAGE_PARTS])
{
    double flops_per_s = hw->sustained_tflops * 1e12, bytes_per_s = hw->memory_gbps * 1e9;
    int64_t t = r->tp, cp = r->cp;
    double moved = bytes_per_s > 0 ? w->forward_moved / bytes_per_s : 0.0;
    double moved_again = bytes_per_s > 0 ? w->recompute_moved / bytes_per_s : 0.0;
    /* what a flash kernel's FLOPs take beyond the sustained rate's time */
    double attention = hw->attention_tflops > 0 ? 1.0 / (hw->attention_tflops * 1e12) - 1.0 / flops_per_s : 0.0;
    parts[0] = w->forward_flops / flops_per_s + w->forward_attention_flops * attention + moved;
    parts[1] = 2.0 * parts[0] + w->backward_extra_flops / flops_per_s;
    parts[2] = w->recompute_flops / flops_per_s + w->recompute_attention_flops * attention + moved_again;
    parts[3] = seconds(w->tp, level_gbps(hw, t)) * (1.0 - hw->overlap_tp);
    parts[4] = cp_exposed_seconds(w, r, hw, seconds(w->cp, level_gbps(hw, t * cp)));
    /* DualPipeV runs one micro-batch's expert all-to-all under another's
     * compute (DeepSeek-V3's design): it hides at least 90 % of it */
    double overlap_ep = r->pipeline.schedule == SCHED_ZERO_BUBBLE_V && hw->overlap_ep < 0.9 ? 0.9 : hw->overlap_ep;
    /* the EP group's ranks t·cp apart, or t_exp apart where the expert layers
     * fold the stage's ranks (derive.c ep_rank_stride) */
    int64_t stride = ep_rank_stride(r);
    double ep_comm = r->kernels.deepep ? deepep_seconds(hw, w->ep, r->ep, stride, mo->experts, mo->top_k,
                                                        r->kernels.ep_node_limit)
                                       : ep_all_to_all_seconds(hw, w->ep, r->ep, stride);
    /* the expert-TP gathers sit between the all-to-all and the experts as
     * the all-to-all does (token_dispatcher.py dispatch_postprocess,
     * combine_preprocess), over the TP ranks' link (the expert layers'
     * RankGenerator puts tp first: consecutive ranks) */
    ep_comm += seconds(w->etp, level_gbps(hw, t));
    parts[5] = ep_comm * (1.0 - overlap_ep);
    parts[6] = seconds(pp_bytes, level_gbps(hw, 2 * t * cp * r->dp)) * (1.0 - hw->overlap_pp);
    double sum = 0;
    for (int i = 0; i < STAGE_PARTS; i++)
        sum += parts[i];
    return sum;
}

/* Adds n times a stage's work to a sum of works (the fields floor_sum reads). */
static void add_work(stage_work *sum, const stage_work *w, double n)
{
    sum->forward_flops += n * w->forward_flops;
    sum->backward_extra_flops += n * w->backward_extra_flops;
    sum->forward_attention_flops += n * w->forward_attention_flops;
    sum->forward_moved += n * w->forward_moved;
    sum->tp_once += n * w->tp_once;
    sum->cp_once += n * w->cp_once;
    sum->ep_once += n * w->ep_once;
    sum->etp_once += n * w->etp_once;
    sum->cp_bare += n * w->cp_bare;
}

/* A lower bound on Σ_s x_s, the stage times a micro-batch that
 * stage_micro_batch_time gives, for every split of the layout's layers and
 * tables over its pp stages and every recompute of them; `all` is the sum
 * of the stages' works. Each part of x_s:
 *   forward (parts[0]) and backward (parts[1] = 2 parts[0] + the backward
 *     excess): linear in sums over the stage's layers and tables
 *     (add_run, stage_work_of) that no recompute changes (rerun_of sets the
 *     rerun fields only), so their Σ_s is that of `all`;
 *   recompute (parts[2]): at least 0, left out;
 *   TP and EP (parts[3], parts[5]): bytes times a factor the degrees and
 *     the schedule fix (ep_all_to_all_seconds and deepep_seconds are
 *     max(α·bytes, β·bytes), linear in the bytes), and a full recompute
 *     only adds a resend: at least the `_once` bytes of `all`;
 *   CP (parts[4], cp_exposed_seconds): at least (1 − overlap_cp)·comm,
 *     which sums like TP's; under a ring with a flash kernel, where every
 *     layer sending CP bytes has attention FLOPs (cp_bare = 0), each stage
 *     with sends also exposes comm − (cp − 1)/cp·(3 A + R)/rate with R, the
 *     rerun attention, at most A (rerun_of reruns a share <= 1 of it), and
 *     Σ_s max(u_s, v_s) >= max(Σ u_s, Σ v_s);
 *   PP (parts[6]): the same on every stage, pp times. */
static double floor_sum(const stage_work *all, const model_t *mo, const run_t *r, const hardware_t *hw,
                        double pp_bytes)
{
    stage_work w = *all;
    w.recompute_flops = w.recompute_attention_flops = w.recompute_moved = 0;
    w.tp = w.tp_once;
    w.ep = w.ep_once;
    w.etp = w.etp_once;
    w.cp = 0;
    double parts[STAGE_PARTS];
    double sum = stage_micro_batch_time(&w, mo, r, hw, pp_bytes, parts) + (double)(r->pp - 1) * parts[6];
    double comm = seconds(all->cp_once, level_gbps(hw, r->tp * r->cp)), cp = comm * (1.0 - hw->overlap_cp);
    double rate = (hw->attention_tflops > 0 ? hw->attention_tflops : hw->sustained_tflops) * 1e12;
    if (r->cp > 1 && r->cp_algo == CP_RING && hw->overlap_cp > 0 && all->cp_bare == 0) {
        double k = ((double)r->cp - 1.0) / (double)r->cp;
        double exposed = comm - k * 4.0 * all->forward_attention_flops / rate;
        if (exposed > cp)
            cp = exposed;
    }
    return sum + cp;
}

/* The least step before DP and the optimizer that any split of the
 * layout's layers over its stages with any recompute can take, from the
 * lower bound sum of their stage times (floor_sum): every schedule of
 * pipeline_step is a·Σ x + b·max x with a, b >= 0 (balance.c's
 * bal_step_coeffs reads them off), and max x >= Σ x / pp, so the step is
 * at least pipeline_step of pp stages each at the mean. */
static double pipeline_floor_seconds(const run_t *r, double sum, double *scratch)
{
    for (int64_t s = 0; s < r->pp; s++)
        scratch[s] = sum / (double)r->pp;
    double bubble;
    return pipeline_step(r, scratch, r->pp, &bubble);
}

/* One layer of a kind as a stage's micro-batch holds it with no recompute,
 * its parts that grow with the layers a stage holds: forward and backward,
 * TP and EP sent once (ep_all_to_all_seconds and deepep_seconds are linear
 * in the bytes), CP at the (1 − overlap) share cp_exposed_seconds never goes
 * below; no point-to-point sends (each stage's own, the same on every
 * stage). Each part is a sum over the stage's layers and tables of
 * non-negative terms, so a stage holding n such layers takes at least n
 * times this beside its sends. */
static double layer_floor_seconds(const price_ctx *c, const hardware_t *hw, timing_memo *memo, int kind)
{
    const run_t *r = c->r;
    layer_run run = {.kind = kind, .first = 0, .count = 1, .mtp = false, .mode = REC_OFF, .switches = NULL};
    stage_work w;
    memset(&w, 0, sizeof w);
    add_run(&w, c, &run, memo->layers, &memo->gemm);
    w.recompute_flops = w.recompute_attention_flops = w.recompute_moved = 0;
    w.tp = w.tp_once;
    w.ep = w.ep_once;
    w.etp = w.etp_once;
    w.cp = 0;
    double parts[STAGE_PARTS];
    double x = stage_micro_batch_time(&w, c->m, r, hw, 0.0, parts);
    return x + seconds(w.cp_once, level_gbps(hw, r->tp * r->cp)) * (1.0 - hw->overlap_cp);
}

/* A lower bound on the most a stage takes a micro-batch, for any split of
 * the layout's layers over its pp stages and any recompute: N layers of a
 * kind put ceil(N / pp) or more on some stage (the pigeonhole), which takes
 * that many times layer_floor_seconds and its point-to-point sends. */
static double stage_floor_most(const price_ctx *c, const layout_t *l, const hardware_t *hw, timing_memo *memo,
                               double pp_bytes)
{
    const run_t *r = c->r;
    stage_work none;
    memset(&none, 0, sizeof none);
    double parts[STAGE_PARTS], most = 0.0;
    double sends = stage_micro_batch_time(&none, c->m, r, hw, pp_bytes, parts);
    for (int k = 0; k < c->m->n_kinds; k++) {
        int64_t n = 0;
        for (int i = 0; i < l->n_runs; i++)
            if (l->runs[i].kind == k && !l->runs[i].mtp)
                n += l->runs[i].count;
        if (n == 0)
            continue;
        double x = (double)((n + r->pp - 1) / r->pp) * layer_floor_seconds(c, hw, memo, k);
        if (x > most)
            most = x;
    }
    return most + sends;
}

/* pipeline_floor_seconds with the largest stage at least `most`: pp stages,
 * one at max(most, the mean) and the rest sharing what is left of the sum
 * (the sum at least `most`), so that pipeline_step's a·Σ + b·max is at
 * least a·Σ + b·most. */
static double pipeline_floor_most(const run_t *r, double sum, double most, double *scratch)
{
    if (r->pp < 2 || !(most > sum / (double)r->pp))
        return pipeline_floor_seconds(r, sum, scratch);
    if (sum < most)
        sum = most;
    scratch[0] = most;
    for (int64_t s = 1; s < r->pp; s++)
        scratch[s] = (sum - most) / (double)(r->pp - 1);
    double bubble;
    return pipeline_step(r, scratch, r->pp, &bubble);
}

void timing_run(const price_ctx *c, const layout_t *l, const hardware_t *hw, step_time *out)
{
    timing_memo memo;
    memset(&memo, 0, sizeof memo);
    timing_run_memo(c, l, hw, &memo, out);
    timing_memo_free(&memo);
}

/* The scratch for pp stages: their times, then STAGE_PARTS each, then pp more (the floor's); NULL when out of
 * memory. */
static double *stage_scratch(timing_memo *memo, int64_t pp)
{
    if (memo->cap_x < pp) {
        double *x = realloc(memo->stage_x, (size_t)pp * (2 + STAGE_PARTS) * sizeof *x);
        if (x == NULL)
            return NULL;
        memo->stage_x = x;
        memo->cap_x = pp;
    }
    return memo->stage_x;
}

/* The model's FLOPs a token of a sequence, as the memo keeps them. */
static double model_flops_total(const model_t *m, int64_t seq, timing_memo *memo)
{
    if (!memo->has_flops || memo->flops_seq != seq) {
        memo->flops_total = model_count_flops(m, seq).total;
        memo->flops_seq = seq;
        memo->has_flops = true;
    }
    return memo->flops_total;
}

/* Whether what was worked out in epoch still holds (0: never worked out). */
static bool current(const timing_memo *memo, int64_t epoch) { return epoch != 0 && epoch == memo->works_epoch; }

/* A stage's work, from the memo when it was worked out in its epoch. */
static stage_work work_of(const price_ctx *c, const layout_t *l, int64_t s, timing_memo *memo)
{
    if (memo->works != NULL && current(memo, memo->works[s].epoch))
        return memo->works[s];
    stage_work w;
    stage_work_of(c, l, s, memo->layers, &memo->gemm, &w);
    w.epoch = memo->works_epoch;
    if (memo->works != NULL)
        memo->works[s] = w;
    return w;
}

/* The optimizer step: every stage steps its own parameters once the
 * pipeline drains, so the step waits for the stage with the most to move
 * (a stage laid out like an earlier one moves what that one does). Not
 * priced on a profile without memory_gbps, as the element-wise ops. */
static double optimizer_seconds(const price_ctx *c, const layout_t *l, const hardware_t *hw, timing_memo *memo)
{
    double bytes_per_s = hw->memory_gbps * 1e9, most = 0.0;
    if (!(bytes_per_s > 0))
        return 0.0;
    for (int64_t s = 0; s < c->r->pp; s++) {
        if (l->same_as != NULL && l->same_as[s] != s)
            continue;
        stage_work w = work_of(c, l, s, memo);
        double bytes = optimizer_step_bytes(c, &w);
        if (bytes > most)
            most = bytes;
    }
    return most / bytes_per_s;
}

/* The point-to-point bytes a stage moves a micro-batch: each chunk receives
 * its input and sends its output gradient back, a hidden-wide activation of
 * the micro-batch's tokens each way. */
static double pp_send_bytes(const price_ctx *c)
{
    const run_t *r = c->r;
    return r->pp > 1 ? 2.0 * (double)r->vpp * c->d->tokens * (double)c->m->hidden * c->d->bytes_compute : 0.0;
}

/* The stage whose prices stage s takes: the first stage laid out like it
 * (layout's same_as), or s itself; the vision tower makes stage 0 unlike
 * any other. */
static int64_t priced_like(const layout_t *l, int64_t s, bool vision)
{
    int64_t like = l->same_as != NULL ? l->same_as[s] : s;
    return like == 0 && vision ? s : like;
}

/* The stages laid out like stage s (itself included) that take its prices in pipeline_of. */
static int64_t alike_stages(const layout_t *l, int64_t s, bool vision)
{
    int64_t n = 1;
    for (int64_t t = s + 1; t < l->pp; t++)
        n += priced_like(l, t, vision) == s;
    return n;
}

/* The seconds a micro-batch of each chunk of stage s takes (cell[0..vpp)):
 * stage_micro_batch_time over the chunk's own work (the vision tower with
 * stage 0's first chunk) and its share of the stage's point-to-point bytes,
 * forward, recompute and the rest as the backward; then scaled so that the
 * chunks sum to x, the stage's seconds as the step prices them (its parts
 * are sums over the chunks' but for the CP exposure's floor). */
static void chunk_cells(const price_ctx *c, const layout_t *l, const hardware_t *hw, timing_memo *memo, int64_t s,
                        double x, double pp_bytes, pipe_cell *cell)
{
    const run_t *r = c->r;
    double total = 0.0;
    for (int64_t k = 0; k < l->vpp; k++) {
        stage_work w;
        double parts[STAGE_PARTS];
        memset(&w, 0, sizeof w);
        add_chunk(&w, c, l, s, k, memo->layers, &memo->gemm);
        if (s == 0 && k == 0 && c->m->vision != NULL)
            add_vision(&w, c->m, r);
        double all = stage_micro_batch_time(&w, c->m, r, hw, pp_bytes / (double)l->vpp, parts);
        cell[k] = (pipe_cell){parts[0], parts[2], all - parts[0] - parts[2]};
        total += all;
    }
    double scale = total > 0 ? x / total : 0.0;
    for (int64_t k = 0; k < l->vpp; k++)
        cell[k] = (pipe_cell){cell[k].f * scale, cell[k].r * scale, cell[k].b * scale};
}

/* The workspace for the per-chunk seconds and the timeline; NULL when out of memory. */
static void *sim_scratch(timing_memo *memo, size_t bytes)
{
    if (memo->sim_bytes < bytes) {
        void *p = realloc(memo->sim, bytes);
        if (p == NULL)
            return NULL;
        memo->sim = p;
        memo->sim_bytes = bytes;
    }
    return memo->sim;
}

/* The bytes of recordings a memo keeps: a search meets about a hundred
 * sizes (120 on Qwen3-30B-A3B over 16384 devices), each recording a few
 * rounds of S·v·2·S operations of 16 bytes. */
#define TRACE_BUDGET ((size_t)64 << 20)

/* The memo's recording of the interleaved order at (S, v, m), made on
 * first use; NULL where none is made (too large, past the budget, out of
 * memory): the interpreter runs. */
static const pipe_trace *trace_of(timing_memo *memo, int64_t S, int64_t v, int64_t m)
{
    for (size_t i = memo->n_traces; i-- > 0;)
        if (pipeline_trace_of(memo->traces[i], PIPE_ORDER_INTERLEAVED, S, v, m))
            return memo->traces[i];
    if (memo->traces_bytes >= TRACE_BUDGET)
        return NULL;
    pipe_trace **list = realloc(memo->traces, (memo->n_traces + 1) * sizeof *list);
    if (list == NULL)
        return NULL;
    memo->traces = list;
    pipe_trace *t = pipeline_trace_new(PIPE_ORDER_INTERLEAVED, S, v, m);
    if (t == NULL)
        return NULL;
    memo->traces[memo->n_traces++] = t;
    memo->traces_bytes += pipeline_trace_bytes(t);
    return t;
}

/* The span of Megatron-LM's interleaved 1F1B order (src/core/pipeline_sim.c)
 * over the run's per-chunk seconds: in *span, returning 1; 0 when the order
 * does not run these sizes (fewer micro-batches than stages: the closed
 * form stands); -1 when out of memory. A recording of the order at these
 * sizes (pipeline_trace.c) gives the same span for less work; where there
 * is none, or it does not reach the cells' shortcut, the interpreter runs. */
static int interleaved_span(const price_ctx *c, const layout_t *l, const hardware_t *hw, timing_memo *memo,
                            const double *x, double pp_bytes, double *span)
{
    const run_t *r = c->r;
    int64_t S = r->pp, v = l->vpp, m = schedule_micro_batches(r);
    if (pipeline_sim_refusal(PIPE_ORDER_INTERLEAVED, S, v, m) != NULL)
        return 0;
    size_t work = pipeline_trace_work_bytes(S, v, m), cells = (size_t)(S * v) * sizeof(pipe_cell);
    if (work == 0 || work > SIZE_MAX - cells)
        return 0;
    pipe_cell *cell = sim_scratch(memo, cells + work);
    if (cell == NULL)
        return -1;
    for (int64_t s = 0; s < S; s++) {
        int64_t like = priced_like(l, s, c->m->vision != NULL);
        if (like != s)
            memcpy(cell + s * v, cell + like * v, (size_t)v * sizeof *cell);
        else
            chunk_cells(c, l, hw, memo, s, x[s], pp_bytes, cell + s * v);
    }
    const pipe_trace *t = trace_of(memo, S, v, m);
    int got = t != NULL ? pipeline_trace_sim(t, cell, cell + S * v, work, span) : PIPE_TRACE_UNCOVERED;
    if (got == PIPE_TRACE_UNCOVERED)
        got = pipeline_sim(PIPE_ORDER_INTERLEAVED, S, v, m, cell, cell + S * v, work, NULL, span);
    if (got != 0)
        return 0;
    /* one schedule's span, each of the step's schedules alike (pipeline_step) */
    *span *= (double)schedule_count(r);
    return 1;
}

/* The step of an interleaved pipeline (vpp > 1 under 1F1B: Megatron-LM's
 * interleaved schedule) is the larger of pipeline_step's closed form and
 * the span of the schedule's own order over each chunk's seconds. The
 * closed form Σ X/v + (m·v − 1)·max X/v is Narayanan et al. 2021 (§2.2.2,
 * the bubble shrunk v times) for chunks that each take X/v; it prices a
 * stage by its total alone. The order (src/core/pipeline_sim.c) waits on
 * each chunk's own seconds: where a stage's chunks differ (the head in the
 * last chunk, a balancer's uneven offsets) a heavy first chunk feeds the
 * next stage late and drains last, and the order stalls past the closed
 * form (Llama 3.1 70B balanced at -i 2, chunks of 1 and 18-21 layers:
 * a span of 56.20 s where the closed form gives 41.49 s). The closed form
 * stays where it is the larger: equal chunks whose stages split forward
 * and backward alike never spanned more in 3000 random cases. Returns -1
 * when out of memory. */
static int interleaved_step(const price_ctx *c, const layout_t *l, const hardware_t *hw, timing_memo *memo,
                            const double *x, double pp_bytes, pipeline_time *out)
{
    const run_t *r = c->r;
    if (r->pp <= 1 || l->vpp <= 1 || r->pipeline.schedule != SCHED_1F1B)
        return 0;
    double span, most = 0.0;
    int got = interleaved_span(c, l, hw, memo, x, pp_bytes, &span);
    /* where the order meets the closed form (alike stages) the two sum the
     * same seconds in other orders: a rounding's difference is no stall */
    if (got <= 0 || !(span > out->step * (1.0 + 1e-12)))
        return got < 0 ? -1 : 0;
    for (int64_t s = 0; s < r->pp; s++)
        if (x[s] > most)
            most = x[s];
    out->order_stall = span - out->step;
    out->step = span;
    out->bubble = span - (double)r->micro_batch_num * most;
    if (out->bubble < 0)
        out->bubble = 0;
    return 0;
}

/* The pipeline's step before DP; -1 when out of memory. */
static int pipeline_of(const price_ctx *c, const layout_t *l, const hardware_t *hw, timing_memo *memo,
                       pipeline_time *out)
{
    const model_t *m = c->m;
    const run_t *r = c->r;
    int64_t pp = r->pp;
    double *x = stage_scratch(memo, pp);
    if (x == NULL)
        return -1;
    memset(out, 0, sizeof *out);
    /* a stage sends its activations and receives their gradients at each chunk boundary */
    double pp_bytes = pp_send_bytes(c);
    double *saved = x + pp;
    const double *worst = NULL;
    stage_work all;
    memset(&all, 0, sizeof all);
    /* the weights summed as if no stage held both tied tables, less one of them */
    double tied_table = ties_embeddings(m, r) ? (double)m->vocab * (double)m->hidden / (double)r->tp : 0.0;
    out->weights_sum = -tied_table;
    for (int64_t s = 0; s < pp; s++) {
        /* a stage laid out like an earlier one takes its prices (the
         * vision tower makes stage 0 unlike any other) */
        int64_t like = priced_like(l, s, m->vision != NULL);
        double *mine = saved + s * STAGE_PARTS;
        if (like != s) {
            x[s] = x[like];
            mine = saved + like * STAGE_PARTS; /* same_as names a stage priced itself: the first alike */
        } else {
            stage_work w = work_of(c, l, s, memo);
            double alike = (double)alike_stages(l, s, m->vision != NULL);
            add_work(&all, &w, alike);
            out->weights_sum += alike * (w.weights + (tied_here(c, &w) ? tied_table : 0.0));
            x[s] = stage_micro_batch_time(&w, c->m, r, hw, pp_bytes, mine);
            if (w.weights > out->weights) {
                out->weights = w.weights;
                out->hide_forward = mine[0];
                out->hide_backward = mine[1] + mine[2];
                out->units = w.layers;
            }
        }
        if (worst == NULL || x[s] >= x[out->straggler]) {
            out->straggler = s;
            worst = mine;
        }
    }
    memcpy(out->worst, worst, sizeof out->worst);
    out->step = pipeline_step(r, x, pp, &out->bubble);
    if (interleaved_step(c, l, hw, memo, x, pp_bytes, out) != 0)
        return -1;
    double sum = floor_sum(&all, m, r, hw, pp_bytes);
    out->floor = pipeline_floor_seconds(r, sum, saved + pp * STAGE_PARTS);
    out->floor_most = pipeline_floor_most(r, sum, stage_floor_most(c, l, hw, memo, pp_bytes), saved + pp * STAGE_PARTS);
    out->epoch = memo->works_epoch;
    return 0;
}

/* The bus bandwidth (GB/s) of a collective over `size` ranks `stride`
 * devices apart. Inside a node, or one member a node (stride a node or
 * more), the level the group spans (level_gbps). A group with q > 1 members
 * in each of several nodes: NCCL runs a collective as several channels
 * (rings, trees), each crossing the node boundary through another NIC,
 * moving the node's share between its GPUs over NVLink, so the q members'
 * NICs carry it together (NVIDIA/nccl issue 601: "we can use NVLink to split
 * the operations in N parts then balance the traffic onto the N NICs";
 * issue 1277: two HGX H100 nodes of 8 x 400 Gb/s reach about 360 GB/s of
 * bus bandwidth, 8 x a NIC's 45 GB/s): q x the spanning level's, at most
 * the node's own links, which carry the same bytes. */
double group_gbps(const hardware_t *hw, int64_t size, int64_t stride)
{
    int64_t span = size * stride;
    if (hw->n_levels < 2 || span <= hw->levels[0].devices || stride >= hw->levels[0].devices)
        return level_gbps(hw, span);
    double q = (double)(hw->levels[0].devices / stride), out = q * level_gbps(hw, span);
    return out < hw->levels[0].gbps ? out : hw->levels[0].gbps;
}

/* What compute cannot hide of one phase's collectives when the runtime
 * issues each unit's collective while the unit before it computes (FSDP2's
 * prefetch: see dp_exposed_seconds). u units of comm/u collective and
 * compute/u compute run as a two-stage pipeline taking
 *   comm/u + (u - 1)·max(comm, compute)/u + compute/u,
 * so beyond the edge (the first unit's collective, comm/u, which the
 * caller prices apart) the compute leaves exposed (u - 1)/u of what
 * the collectives outlast it by. */
double exposed_seconds(double comm, double compute, double units)
{
    double u = units > 1 ? units : 1.0;
    return comm > compute ? (u - 1.0) / u * (comm - compute) : 0.0;
}

/* Megatron's default DDP bucket (megatron/core/distributed/
 * distributed_data_parallel.py): max(40 000 000, 1 000 000 x dp) parameters,
 * larger at large DP so that NCCL's ring chunks stay bandwidth-bound. */
static double megatron_bucket(const run_t *r)
{
    double b = 1e6 * (double)r->dp;
    return b > 4e7 ? b : 4e7;
}

/* The share of a backward's reduce-scatter left after its compute: the
 * last unit's, 1/u, or where the runtime fills buckets of B parameters
 * before reducing them (reduce_bucket: DeepSpeed ZeRO-3's reduce_bucket_size,
 * deepspeed/runtime/zero/stage3.py reduce_independent_p_g_buckets_and_remove_grads
 * issues a bucket once the next gradient would overflow it, and
 * independent_gradient_partition_epilogue reduces the partial last one and
 * waits for the stream) the last bucket's, B/W of the W parameters, at
 * most all of them. */
static double bucket_share(const run_t *r, double w)
{
    double b = r->sharding.reduce_bucket < 0 ? megatron_bucket(r) : (double)r->sharding.reduce_bucket;
    if (!(b > 0) || !(w > 0))
        return 0.0;
    return b < w ? b / w : 1.0;
}

/* The larger of the last unit's share and the last bucket's. */
static double last_reduce_share(const run_t *r, double w, double u)
{
    double bucket = bucket_share(r, w);
    return bucket > 1.0 / u ? bucket : 1.0 / u;
}

/* Megatron's DDP under --overlap-grad-reduce (param_and_grad_buffer.py):
 * the gradients sync only on the last micro-batch (register_grad_ready
 * counts them when is_last_microbatch), each bucket's all-reduce (or, with
 * the distributed optimizer, reduce-scatter) issued asynchronously once all
 * its gradients are ready, and finish_grad_sync waits for them after the
 * backward. The step's DP collectives C (dp_traffic_bytes at group_gbps)
 * over buckets of B of the stage's W parameters, e = min(1, B/W): the
 * buckets before the last run behind the last micro-batch's backward (and
 * recompute) H, (1 - e)·max(0, C - H) exposed (exposed_seconds over 1/e
 * buckets), and the last bucket's e·C after it. Bucketing is Megatron's
 * for the first model chunk only under VPP; the later chunks' one bucket
 * each is priced alike. */
static double ddp_bucket_seconds(const price_ctx *c, const pipeline_time *p, const hardware_t *hw)
{
    const run_t *r = c->r;
    double w = p->weights;
    double comm = seconds(dp_traffic_bytes(c, w), group_gbps(hw, r->dp, r->tp * r->cp));
    double e = bucket_share(r, w);
    return exposed_seconds(comm, p->hide_backward, 1.0 / e) + e * comm;
}

/* The times a step's FSDP groups sync under a pipeline (post_backward:
 * reshard, reduce-scatter, the replicas' all-reduce): once a schedule
 * where the runtime syncs each (dp_sync_per_schedule), else once. */
static double dp_syncs(const run_t *r)
{
    return r->pp > 1 && r->pipeline.dp_sync_per_schedule ? (double)schedule_count(r) : 1.0;
}

/* The DP seconds a step exposes, on the stage with the most weights W, u
 * its layers (the units FSDP gathers one by one).
 * FSDP2 and DeepSpeed ZeRO-3 (fsdp_prefetch; PyTorch torch/distributed/fsdp/_fully_shard/
 * _fsdp_param_group.py and _fsdp_state.py): each unit's all-gather runs on
 * its own stream, issued one unit ahead (forward: implicit prefetch as the
 * CPU runs ahead of the GPU; backward: the explicit prefetch of the next
 * unit in backward order), and each unit's reduce-scatter on a separate
 * stream behind the backward of the units after it in backward order.
 * Over S shards at group_gbps, per micro-batch: the forward's gathers
 * behind the forward's compute, the backward's gathers (when it reshards)
 * and reduce-scatters behind the backward with its recompute
 * (exposed_seconds); the edges, each forward's first unit's gather and
 * each backward's last unit's reduce-scatter (1/u of each: FSDP2's root
 * post-backward callback waits for it), and once a step the replicas'
 * all-reduce of the shards (HSDP), exposed.
 * Under a pipeline, torch.distributed.pipelining's stage
 * (backward_maybe_with_nosync) runs every micro-batch's backward with
 * set_reshard_after_backward(False) and set_requires_gradient_sync(False)
 * and, after the last, calls each group's post_backward itself: where the
 * stage keeps its weights gathered (pp_keeps_gathered) they are gathered
 * once a step, behind the first micro-batch's forward, and where the
 * gradients stay unsharded (pp_unsharded_grads) the whole reduce-scatter
 * runs once, after the last backward, with no compute left to hide it.
 * That last backward is a schedule's (each schedule.step() sets
 * last_backward on its own last micro-batch): a step of k schedules
 * (schedule.c, one a local batch) gathers, reshards and reduce-scatters k
 * times where the runtime syncs each schedule (dp_sync_per_schedule:
 * PyTorch's stage.py), once where its recipe defers the sync to the step's
 * last local batch (NeMo AutoModel's MoE models: fsdp_mixin.py
 * patched_backward_maybe_with_nosync runs post_backward only when
 * last_backward and get_is_optim_step()); so do the replicas' all-reduces.
 * DeepSpeed ZeRO-3 prefetches the parameters of the coming submodules
 * (PartitionedParameterCoordinator, up to stage3_prefetch_bucket_size of
 * them) and, overlap_comm being on by default at stage 3
 * (deepspeed/runtime/zero/config.py overlap_comm_valid), reduces its
 * gradient buckets on their own stream during the backward; the backward's
 * exposed edge is then its last bucket (last_reduce_share).
 * Megatron's DDP with overlapped_grad_reduce and its buckets: ddp_bucket_seconds.
 * Every other run (DDP without buckets or overlap, ZeRO-1/2, FSDP1, MindSpore, HyperParallel):
 * dp_traffic_bytes at the spanning level's bandwidth, hidden at
 * the device's or runtime's fixed share (overlap.dp). */
static double dp_exposed_seconds(const price_ctx *c, const pipeline_time *p, const hardware_t *hw)
{
    const run_t *r = c->r;
    const derived_t *d = c->d;
    if (!d->fsdp && r->sharding.overlapped_grad_reduce && r->sharding.reduce_bucket != 0 && r->dp > 1)
        return ddp_bucket_seconds(c, p, hw);
    if (!d->fsdp || !r->sharding.fsdp_prefetch)
        return seconds(dp_traffic_bytes(c, p->weights), level_gbps(hw, r->tp * r->cp * r->dp)) *
               (1.0 - hw->overlap_dp);
    int64_t inner = r->tp * r->cp, shards = d->optimizer_ranks > 0 ? d->optimizer_ranks : 1;
    double w = p->weights, m = (double)r->micro_batch_num, u = p->units > 1 ? p->units : 1.0;
    double s = (double)shards, reduce = grad_width(d), bw = group_gbps(hw, shards, inner);
    double gather = seconds((s - 1) / s * w * d->bytes_compute, bw);
    double scatter = seconds((s - 1) / s * w * reduce, bw);
    bool kept = r->pp > 1 && r->sharding.pp_keeps_gathered;
    double regather = r->sharding.reshard_params && !kept ? gather : 0.0, syncs = dp_syncs(r);
    /* each forward's gathers, the first unit's exposed (none is issued
     * before the forward starts) */
    double exposed = (kept ? syncs : m) * (exposed_seconds(gather, p->hide_forward, u) + gather / u);
    /* each backward's, the last unit's reduce-scatter exposed (the root's
     * post-backward callback waits for it) */
    if (d->grads_whole_pp)
        exposed += m * exposed_seconds(regather, p->hide_backward, u) + syncs * scatter;
    else
        exposed += m * (exposed_seconds(regather + scatter, p->hide_backward, u) + scatter * last_reduce_share(r, w, u));
    int64_t replicas = r->dp / shards;
    if (replicas > 1)
        exposed += syncs * seconds(2.0 * (double)(replicas - 1) / (double)replicas * w / s * reduce,
                                   group_gbps(hw, replicas, inner * shards));
    return exposed;
}

/* A lower bound on the seconds DP adds to the step, for every split of the
 * layout's layers over its stages and every recompute of them, as two
 * numbers: a step of pipeline seconds P (before DP and the optimizer) is at
 * least max(P, *hold) + *add. dp_exposed_seconds and fsdp_copy_bytes price
 * the stage with the most weights, W* >= Wm = weights_sum / pp (a sum no
 * split changes), and each term below grows with W (linear; the bucket's
 * min(C(W), C(B))), so it is taken at Wm:
 *   no FSDP prefetch: the whole of DP's seconds, added;
 *   Megatron's buckets: the last bucket's e·C (what the buckets before it
 *     expose is at least 0), added;
 *   FSDP's prefetch: the replicas' all-reduce, and where the gradients stay
 *     whole their reduce-scatter Sc, each once a sync (dp_syncs), added. The forward gathers G
 *     expose (u − 1)/u·max(0, G − F) + G/u >= G − F each, the backward's
 *     (u − 1)/u·max(0, Rg + Sc − H) + Sc·share >= Sc − H each (share >= 1/u),
 *     F and H that stage's forward and backward with its recompute a
 *     micro-batch: at least hold − m·(F + H), hold = k·G + m·Sc (k: m
 *     forwards that gather, or the syncs, at most m, where the stage keeps
 *     them; no m·Sc where
 *     the gradients stay whole). With x* that stage's micro-batch, F + H <=
 *     x* and P >= m·max x >= m·x* (every schedule of pipeline_step), and
 *     max(P0, X) + max(0, hold − X) >= max(P0, hold) for every X;
 *   FSDP's copies through its buffers: added.
 * The optimizer's seconds are at least 0, left out. Keep this below
 * dp_exposed_seconds where that changes (spec/balance_search_spec.lua
 * checks every candidate's bound against its step). */
static void dp_floor_seconds(const price_ctx *c, const pipeline_time *p, const hardware_t *hw, double *hold,
                             double *add)
{
    const run_t *r = c->r;
    const derived_t *d = c->d;
    double w = r->pp > 0 ? p->weights_sum / (double)r->pp : 0.0;
    *hold = *add = 0.0;
    if (!(w > 0))
        return;
    if (!d->fsdp && r->sharding.overlapped_grad_reduce && r->sharding.reduce_bucket != 0 && r->dp > 1)
        *add = bucket_share(r, w) * seconds(dp_traffic_bytes(c, w), group_gbps(hw, r->dp, r->tp * r->cp));
    else if (!d->fsdp || !r->sharding.fsdp_prefetch)
        *add = seconds(dp_traffic_bytes(c, w), level_gbps(hw, r->tp * r->cp * r->dp)) * (1.0 - hw->overlap_dp);
    else {
        int64_t inner = r->tp * r->cp, shards = d->optimizer_ranks > 0 ? d->optimizer_ranks : 1;
        double m = (double)r->micro_batch_num, s = (double)shards, bw = group_gbps(hw, shards, inner);
        double gather = seconds((s - 1) / s * w * d->bytes_compute, bw);
        double scatter = seconds((s - 1) / s * w * grad_width(d), bw);
        bool kept = r->pp > 1 && r->sharding.pp_keeps_gathered;
        double syncs = dp_syncs(r);
        *hold = (kept ? syncs : m) * gather + (d->grads_whole_pp ? 0.0 : m * scatter);
        *add = d->grads_whole_pp ? syncs * scatter : 0.0;
        int64_t replicas = r->dp / shards;
        if (replicas > 1)
            *add += syncs * seconds(2.0 * (double)(replicas - 1) / (double)replicas * w / s * grad_width(d),
                                    group_gbps(hw, replicas, inner * shards));
    }
    if (!(*add > 0))
        *add = 0.0;
    if (hw->memory_gbps > 0)
        *add += fsdp_copy_bytes(c, w) / (hw->memory_gbps * 1e9);
}

/* The hardware's kernel facts a layer's pricing reads. */
static void kernel_pricing_of(const hardware_t *hw, kernel_pricing *g)
{
    /* the FLOPs a byte where a GEMM turns memory bound (gemm_roofline_excess) */
    g->ridge = hw->memory_gbps > 0 ? hw->sustained_tflops * 1e12 / (hw->memory_gbps * 1e9) : 0.0;
    g->sms = hw->sm_count;
    g->tile_m = hw->gemm_tile_m;
    g->tile_n = hw->gemm_tile_n;
    g->attention_knee = hw->attention_knee;
    g->attention_from = hw->attention_from;
}

void timing_run_memo(const price_ctx *c, const layout_t *l, const hardware_t *hw, timing_memo *memo, step_time *out)
{
    const run_t *r = c->r;
    kernel_pricing_of(hw, &memo->gemm);
    memset(out, 0, sizeof *out);
    pipeline_time own, *p = memo->pipeline != NULL ? memo->pipeline : &own;
    if ((p == &own || !current(memo, p->epoch)) && pipeline_of(c, l, hw, memo, p) != 0) {
        out->step = -1.0; /* out of memory: the caller reports it */
        return;
    }
    double dp_seconds = dp_exposed_seconds(c, p, hw);
    if (!(dp_seconds > 0))
        dp_seconds = 0;
    if (hw->memory_gbps > 0) /* FSDP's copies through its buffers: HBM work, not hidden */
        dp_seconds += fsdp_copy_bytes(c, p->weights) / (hw->memory_gbps * 1e9);
    double optimizer = optimizer_seconds(c, l, hw, memo);
    double m_b = (double)r->micro_batch_num;
    out->forward = m_b * p->worst[0];
    out->backward = m_b * p->worst[1];
    out->recompute = m_b * p->worst[2];
    out->tp = m_b * p->worst[3];
    out->cp = m_b * p->worst[4];
    out->ep = m_b * p->worst[5];
    out->pp = m_b * p->worst[6];
    out->dp = dp_seconds;
    out->bubble = p->bubble;
    out->straggler = p->straggler;
    out->optimizer = optimizer;
    out->step = p->step + dp_seconds + optimizer;
    out->order_stall = p->order_stall;
    /* the pipeline's step P is at least p->floor + y and p->floor_most
     * (recompute only adds to the stages), so the step, at least max(P,
     * hold) + add, is at least max(floor + y, floor_held) */
    double hold, add;
    dp_floor_seconds(c, p, hw, &hold, &add);
    out->floor = p->floor + add;
    out->floor_held = (p->floor_most > hold ? p->floor_most : hold) + add;
    timing_rates(out, r, model_flops_total(c->m, r->seq_length, memo), hw);
}

double timing_rerun_seconds(const price_ctx *c, const hardware_t *hw, int kind, recompute_mode mode)
{
    kernel_pricing g;
    memset(&g, 0, sizeof g);
    kernel_pricing_of(hw, &g);
    layer_time lt = price_layer(c, &c->m->kinds[kind], mode, &g);
    stage_work w;
    memset(&w, 0, sizeof w);
    w.recompute_flops = lt.rerun_flops;
    w.recompute_attention_flops = lt.rerun_attention_flops;
    w.recompute_moved = lt.rerun_moved;
    double parts[STAGE_PARTS];
    stage_micro_batch_time(&w, c->m, c->r, hw, 0.0, parts);
    return parts[2];
}

void timing_stage_seconds(const price_ctx *c, const layout_t *l, const hardware_t *hw, double *x, double *forward)
{
    const run_t *r = c->r;
    kernel_pricing g;
    memset(&g, 0, sizeof g);
    kernel_pricing_of(hw, &g);
    double pp_bytes = pp_send_bytes(c);
    for (int64_t s = 0; s < r->pp; s++) {
        stage_work w;
        double parts[STAGE_PARTS];
        stage_work_of(c, l, s, NULL, &g, &w);
        x[s] = stage_micro_batch_time(&w, c->m, r, hw, pp_bytes, parts);
        if (forward != NULL)
            forward[s] = parts[0];
    }
}

void timing_chunk_seconds(const price_ctx *c, const layout_t *l, const hardware_t *hw, const double *x, pipe_cell *cell)
{
    const run_t *r = c->r;
    timing_memo memo;
    memset(&memo, 0, sizeof memo);
    kernel_pricing_of(hw, &memo.gemm);
    double pp_bytes = pp_send_bytes(c);
    for (int64_t s = 0; s < r->pp; s++)
        chunk_cells(c, l, hw, &memo, s, x[s], pp_bytes, cell + s * l->vpp);
}

void timing_rates(step_time *t, const run_t *r, double flops_per_token, const hardware_t *hw)
{
    double tokens = (double)r->global_batch_size * (double)r->seq_length;
    double devices = (double)(r->dp * r->tp * r->pp * r->cp);
    t->model_flops = 3.0 * flops_per_token * tokens;
    t->tokens_per_s_per_device = t->step > 0 ? tokens / t->step / devices : 0.0;
    t->mfu = t->step > 0 ? t->model_flops / (t->step * devices * hw->peak_tflops * 1e12) : 0.0;
}

double timing_flops_per_token(const model_t *m, int64_t seq) { return model_count_flops(m, seq).total; }
