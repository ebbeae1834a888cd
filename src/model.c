/* model.c: settling a model's layer kinds (attention and FFN geometry as priced). */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const OP_NAMES[OP_COUNT] = {
    "attMM", "attBMM", "ffMM", "softmax", "dropout", "normOp", "gather", "headCast", "ffAct", "linrec",
};

static void free_kinds(layer_kind *kinds, int n)
{
    for (int i = 0; i < n; i++) {
        free(kinds[i].name);
        free(kinds[i].census);
    }
    free(kinds);
}

int model_kind_index(const model_t *m, const char *name)
{
    for (int i = 0; i < m->n_kinds; i++)
        if (strcmp(m->kinds[i].name, name) == 0)
            return i;
    return -1;
}

void model_free(model_t *m)
{
    if (m == NULL)
        return;
    free(m->name);
    free(m->arch);
    free_kinds(m->kinds, m->n_kinds);
    free(m->groups);
    free(m->output_census);
    model_free(m->vision);
    free(m);
}

int64_t model_body_layers(const model_t *m)
{
    int64_t n = 0;
    for (int i = 0; i < m->n_groups; i++)
        if (!m->groups[i].mtp)
            n += m->groups[i].count;
    return n;
}

int64_t model_mtp_layers(const model_t *m)
{
    int64_t n = 0;
    for (int i = 0; i < m->n_groups; i++)
        if (m->groups[i].mtp)
            n += m->groups[i].count;
    return n;
}

/* Attention geometry of a kind: full attention (MHA/GQA/MQA or MLA) or a
 * gated-delta-rule linear attention (Qwen3-Next / Qwen3.5). */
static void settle_attention(const model_t *m, layer_kind *k)
{
    if (k->attention == ATTENTION_LINEAR) {
        k->mla = false;
        k->heads = (double)m->lin_value_heads;
        k->kv_heads = (double)m->lin_key_heads;
        k->qk_head_dim = (double)m->lin_key_dim;
        k->v_head_dim = (double)m->lin_value_dim;
        return;
    }
    k->heads = (double)m->heads;
    k->kv_heads = (double)m->kv_heads;
    k->mla = m->kv_lora_rank > 0;
    if (k->mla) {
        double nope = m->nope_head_dim > 0 ? (double)m->nope_head_dim : m->head_dim;
        k->qk_head_dim = nope + (double)m->rope_head_dim;
        k->v_head_dim = m->v_head_dim > 0 ? (double)m->v_head_dim : m->head_dim;
    } else {
        k->qk_head_dim = m->head_dim;
        k->v_head_dim = m->head_dim;
    }
}

/* The settled spec gives every width (nd.model.spec settles them); these
 * checks keep a kind from being priced at a width of 0. */
static const char *settle_ffn(const model_t *m, layer_kind *k, char *err, int errlen)
{
    k->moe = k->ffn == FFN_MODEL ? m->experts > 1 : k->ffn == FFN_MOE;
    k->ffn_width = (double)(k->moe ? m->expert_width : m->ffn_width);
    if (k->moe && m->experts <= 1)
        snprintf(err, errlen, "layer kind '%s' is a mixture of experts, but num_experts is %lld", k->name,
                 (long long)m->experts);
    else if (k->ffn_width <= 0)
        snprintf(err, errlen, "layer kind '%s' is %s, but %s is not stated", k->name,
                 k->moe ? "a mixture of experts" : "dense", k->moe ? "moe_intermediate_size" : "intermediate_size");
    else
        return NULL;
    return err;
}

/* Parameters of one layer of a kind (in model_params.c). */
layer_params kind_layer_params(const model_t *m, const layer_kind *k);

const char *model_settle(model_t *m, char *err, int errlen)
{
    for (int i = 0; i < m->n_kinds; i++) {
        layer_kind *k = &m->kinds[i];
        if (k->attention == ATTENTION_LINEAR && (m->lin_key_heads <= 0 || m->lin_key_dim <= 0 ||
                                                 m->lin_value_heads <= 0 || m->lin_value_dim <= 0)) {
            snprintf(err, errlen, "layer kind '%s' is linear attention, but a linear-attention dim is 0", k->name);
            return err;
        }
        settle_attention(m, k);
        const char *msg = settle_ffn(m, k, err, errlen);
        if (msg != NULL)
            return msg;
        k->params = kind_layer_params(m, k);
    }
    if (m->vision != NULL)
        return model_settle(m->vision, err, errlen);
    return NULL;
}
