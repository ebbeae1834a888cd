/* model_params.h: parameter counts of a model, by part and by layer kind (model_params.c). */
#ifndef NDLUA_MODEL_PARAMS_H
#define NDLUA_MODEL_PARAMS_H

#include "model.h"

/* Parameter counts by part (whole model). */
typedef struct {
    double embedding, attention, norms, dense_mlp, routed_experts, shared_experts, router, output, mtp, vision;
    double total, active;
} model_params;

/* Parameters of one layer of a kind. */
layer_params kind_layer_params(const model_t *m, const layer_kind *k);

model_params model_count_params(const model_t *m);

/* Parameters of the embedding table, of the output head (with its final
 * norm), and of the extra tables an MTP module adds (its projection and norms). */
double model_embedding_params(const model_t *m);
double model_output_params(const model_t *m);
double model_mtp_extra_params(const model_t *m);

#endif
