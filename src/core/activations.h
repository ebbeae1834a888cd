/* activations.h: bytes a layer keeps for backward, by formula or from a census record. */
#ifndef NDLUA_ACTIVATIONS_H
#define NDLUA_ACTIVATIONS_H

#include <stdbool.h>

#include "derive.h"
#include "kept_bytes.h" /* act_split */
#include "model.h"
#include "pricing_ctx.h"
#include "run.h"

/* The activations of one layer of kind k kept for backward when not fully
 * recomputed; keep is the switch set of a selectively recomputed layer
 * (1 keeps an op's activation, 0 recomputes it), NULL for a plain layer.
 * seq is the sequence length the layer runs at (s, or s / seq_split). */
act_split act_kind_split(const price_ctx *c, const layer_kind *k, const signed char *keep, double seq);

/* The hidden states' dropouts a layer runs and each mask's bytes an element. */
typedef struct {
    double ops, mask_bytes;
} hidden_dropouts;
hidden_dropouts act_hidden_dropouts(const layer_kind *k, const run_t *r, const derived_t *d);

/* Bytes per token after division: shared/sp + tp/t + expert/t_exp. */
/* Bytes a layer keeps once, after division: layer + layer_tp/t. */
double act_per_layer(const act_split *a, const run_t *r);
double act_per_token(const price_ctx *c, const act_split *a);

/* A fully recomputed layer keeps its input: h·bytes_compute / shard_recompute_input. */
double act_full_recompute_per_token(const price_ctx *c);

/* The bytes a token of kind k's attention module saves for its backward
 * (full attention or MLA; none for linear attention), as a plain layer
 * keeps them: what HyperParallel's attention swap moves to the host. */
double act_attention_swappable_per_token(const price_ctx *c, const layer_kind *k, double seq);

/* The output layer (final norm, head, loss) per token, kept and at its backward peak. */
act_split act_output_kept(const price_ctx *c);
/* Whether torchtitan's per-op checkpointing is priced for kind k (dense full-attention layers). */
bool act_op_sac_prices(const layer_kind *k);
act_split act_output_working(const price_ctx *c);
/* What the output's forward holds beyond what it keeps, while the loss makes its copies. */
act_split act_output_forward_extra(const price_ctx *c);
/* The whole-vocabulary logits of a head whole over TP and their TP slices,
 * held at the loss's split and at the gather of their gradient (zero unless
 * the tables are whole over TP and t > 1). */
act_split act_output_whole_logits(const price_ctx *c);
/* The divisor of the output's TP part: t under a vocabulary-parallel loss, else 1. */
double act_output_tp_divisor(const price_ctx *c);

/* The embedding layer per token (its token ids; its dropout mask where the family drops out). */
double act_embedding_per_token(const price_ctx *c);

/* An MTP module's own activations besides its layer and output, per token. */
double act_mtp_extra_per_token(const price_ctx *c);

/* Census pricing (model-spec §c.5): whether kind k at this recompute option
 * is priced from its record, and the bytes per token kept / held at the
 * backward peak (tp part over t, the rest over sp, plus gathered K/V under
 * ring CP). */
bool act_census_applies(const layer_kind *k, const derived_t *d, const signed char *keep, bool selective);
double act_census_kept_per_token(const price_ctx *c, const layer_kind *k, bool selective);
double act_census_working_per_token(const price_ctx *c, const layer_kind *k);

#endif
