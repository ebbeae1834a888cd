/* model_flops.h: forward FLOPs of a model, by part and by layer kind (model_flops.c). */
#ifndef NDLUA_MODEL_FLOPS_H
#define NDLUA_MODEL_FLOPS_H

#include <stdint.h>

#include "model.h"

/* Forward FLOPs per token by part, at a sequence length. */
typedef struct {
    double attention_proj, attention_scores, linear_recurrence, mlp, routed_experts, shared_experts;
    double router, output, mtp, vision, total;
    double causal_factor;
} model_flops;

/* Forward FLOPs per token of one layer of a kind, by part, at sequence s
 * (causal: the share of keys a query attends, ½ for causal attention). */
typedef struct {
    double proj, scores, recurrence, mlp, routed, shared, router;
} layer_flops;
layer_flops kind_flops(const model_t *m, const layer_kind *k, double s, double causal);

model_flops model_count_flops(const model_t *m, int64_t seq_len);

#endif
