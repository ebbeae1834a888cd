/* model.c: a model's layer stack: its kinds by name, its body and MTP layer counts, freeing it. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

static const char *const ATTENTION_NAMES[] = {"full", "linear", NULL};
const field_choices ATTENTION_KINDS = {ATTENTION_NAMES, NULL, "full or linear"};
static const char *const FFN_NAMES[] = {"model", "dense", "moe", NULL};
const field_choices FFN_KINDS = {FFN_NAMES, NULL, "dense or moe (absent: the model's)"};

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
