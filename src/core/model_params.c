/* model_params.c: parameter counts of a layer kind and of the whole model. */
#include "model_params.h"

#include <stddef.h>

#include "layer_kinds.h"

/* Norm weights of one layer: layer_norms norms of width h (doubled with a
 * bias, as LayerNorm has), plus Qwen3's per-head q and k norms (2·head_dim)
 * on full-attention layers. */
static double norm_params(const model_t *m, const layer_kind *k)
{
    double per_norm = (double)m->hidden * (m->norm_bias ? 2.0 : 1.0);
    double qk = m->qk_norm && k->attention == ATTENTION_FULL ? 2.0 * k->qk_head_dim : 0.0;
    return (double)m->layer_norms * per_norm + qk;
}

layer_params kind_layer_params(const model_t *m, const layer_kind *k)
{
    layer_params p = {0, 0, 0, 0, 0, 0};
    p.attention = kind_form(k)->params(m, k); /* by its attention form (layer_kinds.c) */
    p.norms = norm_params(m, k);
    kind_ffn(k)->params(m, k, &p); /* by its feed-forward form (layer_kinds.c) */
    return p;
}

double model_embedding_params(const model_t *m)
{
    double h = (double)m->hidden;
    if (m->patch_size > 0) { /* a vision tower: patch embedding (a conv) and learned positions */
        double patch = (double)(m->in_channels * m->temporal_patch * m->patch_size * m->patch_size);
        return patch * h + (m->patch_bias ? h : 0) + (double)m->learned_positions * h;
    }
    return (double)m->vocab * h + (double)m->learned_positions * h;
}

/* The output head and the final norm. A tower's output is its patch merger
 * (norm over h, then h·m² → h·m² → out, with biases) and its deepstack mergers
 * (the same, normed over h·m²). */
double model_output_params(const model_t *m)
{
    double h = (double)m->hidden, bias = m->norm_bias ? 2.0 : 1.0;
    if (m->patch_size > 0) {
        double merged = h * (double)(m->merge_size * m->merge_size), out = (double)m->out_hidden;
        double mlp = merged * merged + merged + merged * out + out;
        return bias * h + mlp + (double)m->deepstack_mergers * (bias * merged + mlp);
    }
    double head = m->tied ? 0.0 : (double)m->vocab * h;
    return head + bias * h;
}

/* An MTP module's own tables besides its layer: the projection of the
 * concatenated embedding and hidden state (2h → h) and three norms
 * (embedding, hidden, and its head's). It shares the embedding and head. */
double model_mtp_extra_params(const model_t *m)
{
    double h = (double)m->hidden;
    return 2 * h * h + 3 * h;
}

static double layer_total(const layer_params *p)
{
    return p->attention + p->norms + p->dense_mlp + p->router + p->routed + p->shared;
}

static void add_group(model_params *t, const model_t *m, const layer_group *g)
{
    const layer_kind *k = &m->kinds[g->kind];
    const layer_params *p = &k->params;
    double n = (double)g->count;
    if (g->mtp) {
        t->mtp += n * (layer_total(p) + model_mtp_extra_params(m));
        return;
    }
    t->attention += n * p->attention;
    t->norms += n * p->norms;
    t->dense_mlp += n * p->dense_mlp;
    t->router += n * p->router;
    t->routed_experts += n * p->routed;
    t->shared_experts += n * p->shared;
    if (m->experts > 1 && p->routed > 0)
        t->active += n * p->routed * (double)m->top_k / (double)m->experts;
}

/* Counts by part. The active count is what one token runs: everything but
 * the routed experts, plus top-k of them; embeddings count as active, MTP
 * layers and the vision tower do not (as PARAMS.md counts them). */
model_params model_count_params(const model_t *m)
{
    model_params t = {0};
    for (int i = 0; i < m->n_groups; i++)
        add_group(&t, m, &m->groups[i]);
    t.embedding = model_embedding_params(m);
    t.output = model_output_params(m);
    if (m->vision != NULL)
        t.vision = model_count_params(m->vision).total;
    t.total = t.embedding + t.attention + t.norms + t.dense_mlp + t.routed_experts + t.shared_experts +
              t.router + t.output + t.mtp + t.vision;
    t.active += t.embedding + t.attention + t.norms + t.dense_mlp + t.shared_experts + t.router + t.output;
    return t;
}
