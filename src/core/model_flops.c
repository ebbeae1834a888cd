/* model_flops.c: forward FLOPs per token of a model, by part. */
#include "model_flops.h"
#include "model_params.h"

#include <stddef.h>

#include "layer_kinds.h"
/* Causal attention: each query attends to half the sequence on average. */
#define CAUSAL_FACTOR 0.5

/* Forward FLOPs per token of one layer of a kind at sequence length s.
 * Every matmul costs 2 FLOPs a weight a token; the attention's scores or
 * recurrence are its form's, the feed-forward's FLOPs its form's (layer_kinds.c). */
layer_flops kind_flops(const model_t *m, const layer_kind *k, double s, double causal)
{
    const layer_params *p = &k->params;
    layer_flops f = {0, 0, 0, 0, 0, 0, 0};
    f.proj = 2.0 * p->attention;
    attention_flops a = kind_form(k)->flops(k, s, causal);
    f.scores = a.scores;
    f.recurrence = a.recurrence;
    ffn_flops ff = kind_ffn(k)->flops(m, k);
    f.mlp = ff.mlp;
    f.routed = ff.routed;
    f.shared = ff.shared;
    f.router = ff.router;
    return f;
}

static double layer_sum(const layer_flops *f)
{
    return f->proj + f->scores + f->recurrence + f->mlp + f->routed + f->shared + f->router;
}

model_flops model_count_flops(const model_t *m, int64_t seq_len)
{
    model_flops t = {0};
    double s = (double)seq_len, h = (double)m->hidden, head = 2.0 * (double)m->vocab * h;
    /* a vision tower attends both ways: every query sees every visual token */
    t.causal_factor = m->patch_size > 0 ? 1.0 : CAUSAL_FACTOR;
    for (int i = 0; i < m->n_groups; i++) {
        const layer_group *g = &m->groups[i];
        layer_flops f = kind_flops(m, &m->kinds[g->kind], s, t.causal_factor);
        double n = (double)g->count;
        if (g->mtp) {
            /* an MTP module: its layer, its 2h -> h projection, its own logits */
            t.mtp += n * (layer_sum(&f) + 2.0 * 2.0 * h * h + head);
            continue;
        }
        t.attention_proj += n * f.proj;
        t.attention_scores += n * f.scores;
        t.linear_recurrence += n * f.recurrence;
        t.mlp += n * f.mlp;
        t.routed_experts += n * f.routed;
        t.shared_experts += n * f.shared;
        t.router += n * f.router;
    }
    t.output = m->patch_size > 0 ? 2.0 * model_output_params(m) : head;
    if (m->vision != NULL && s > 0) {
        /* the tower runs on its visual tokens; per text token it costs their share */
        double visual = (double)m->vision->max_positions;
        model_flops v = model_count_flops(m->vision, m->vision->max_positions);
        t.vision = v.total * visual / s;
    }
    t.total = t.attention_proj + t.attention_scores + t.linear_recurrence + t.mlp + t.routed_experts +
              t.shared_experts + t.router + t.output + t.mtp + t.vision;
    return t;
}
