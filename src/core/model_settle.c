/* model_settle.c: settling a model's layer kinds (attention and FFN geometry, parameters) and
 * checking the invariants the arithmetic needs. */
#include "model_settle.h"

#include <stdio.h>

#include "layer_kinds.h"
#include "model_params.h"

/* The invariants the arithmetic needs of the model's sizes and stack
 * (nd.model.spec settles a spec that keeps them; one built by hand may not). */
static const char *check_model(model_t *m, const char *prefix, char *err, int errlen)
{
    if (m->experts < 1)
        m->experts = 1;
    if (m->shared_width == 0) /* the settled spec's nil: one routed width per shared expert (DeepSeek) */
        m->shared_width = m->shared_experts * m->expert_width;
    bool ordered = true;
    for (int i = 1; i < m->n_groups; i++)
        ordered = ordered && (m->groups[i].mtp || !m->groups[i - 1].mtp);
    if (m->head_dim <= 0)
        snprintf(err, errlen, "%shead_dim is required and was not supplied", prefix);
    else if (m->heads % m->kv_heads != 0)
        snprintf(err, errlen, "%snum_key_value_heads (%lld) must divide num_attention_heads (%lld)", prefix,
                 (long long)m->kv_heads, (long long)m->heads);
    else if (m->shared_experts > 0 && m->shared_width <= 0)
        snprintf(err, errlen, "%snum_shared_experts (%lld) has no width", prefix, (long long)m->shared_experts);
    else if (!ordered || model_body_layers(m) != m->layers || model_mtp_layers(m) != m->mtp_depth)
        snprintf(err, errlen, "%slayers must list num_hidden_layers body layers, then mtp_depth MTP layers", prefix);
    else
        return NULL;
    return err;
}

static const char *settle(model_t *m, const char *prefix, char *err, int errlen)
{
    const char *msg = check_model(m, prefix, err, errlen);
    if (msg != NULL)
        return msg;
    for (int i = 0; i < m->n_kinds; i++) {
        layer_kind *k = &m->kinds[i];
        /* its attention form (layer_kinds.c): what the form needs, then its geometry */
        k->form = attention_form_of(m, k->attention);
        k->mla = k->form == FORM_MLA;
        if ((msg = kind_form(k)->check(m, k, err, errlen)) != NULL)
            return msg;
        kind_form(k)->geometry(m, k);
        /* its feed-forward form: what it needs (the settled spec gives every width, nd.model.spec
         * settles them; a spec built by hand may not), then its width */
        k->feed_forward = ffn_form_of(m, k->ffn);
        k->moe = k->feed_forward == FFN_FORM_MOE;
        if ((msg = kind_ffn(k)->check(m, k, err, errlen)) != NULL)
            return msg;
        k->ffn_width = kind_ffn(k)->width(m);
        k->params = kind_layer_params(m, k);
    }
    if (m->vision == NULL)
        return NULL;
    if (m->vision->out_hidden == 0)
        m->vision->out_hidden = m->vision->hidden; /* a tower that states no output width keeps its own */
    return settle(m->vision, "vision.", err, errlen);
}

const char *model_settle(model_t *m, char *err, int errlen) { return settle(m, "", err, errlen); }
