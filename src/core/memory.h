/* memory.h: static memory (parameters, gradients, optimizer states) and communication buffers. */
#ifndef NDLUA_MEMORY_H
#define NDLUA_MEMORY_H

#include <stdbool.h>

#include "derive.h"
#include "layout.h"
#include "model.h"
#include "pricing_ctx.h"
#include "run.h"

/* Bytes a device holds for one thing, split as estimate.c reports them. */
typedef struct {
    double params, grads, optimizer, main_params;
} static_bytes;

static inline double static_total(const static_bytes *s)
{
    return s->params + s->grads + s->optimizer + s->main_params;
}

/* a += n·b, part by part. */
static inline void static_add(static_bytes *a, const static_bytes *b, double n)
{
    a->params += n * b->params;
    a->grads += n * b->grads;
    a->optimizer += n * b->optimizer;
    a->main_params += n * b->main_params;
}

/* Parameters as the sharding rules split them (counts, not bytes). */
typedef struct {
    double non_expert, routed, shared; /* routed: this EP rank's experts */
} param_split;

/* A layer's parameters, split. */
param_split mem_layer_split(const layer_kind *k, const run_t *r);
/* The static bytes of split parameters: Σ part · bytes / shard(part) for
 * the weights, optimizer states, main params and gradients. */
static_bytes mem_split_static(const param_split *s, const derived_t *d, bool frozen);
/* One body layer of kind k (memory-model.md §7.2, lineage B divisors). */
static_bytes mem_layer_static(const price_ctx *c, const layer_kind *k, bool frozen);
/* The embedding table; zero when a tied head on the same stage holds it. */
static_bytes mem_embedding_static(const price_ctx *c, bool tied_here, bool frozen);
/* The output head and final norm, and an MTP module's own tables. */
static_bytes mem_output_static(const price_ctx *c, bool frozen);
static_bytes mem_mtp_module_static(const price_ctx *c, bool frozen);
/* The compute-width copy of the embedding (or of the head) the parallel
 * optimizer gathers, and of an MTP module's projection and own tables. */
double mem_table_gathered(const price_ctx *c, bool embedding);
double mem_mtp_module_gathered(const price_ctx *c);

/* A layer's compute-dtype weight copies kept for backward when the weights
 * are wider than the compute (autocast-style parameter casts). */
double mem_layer_param_casts(const price_ctx *c, const layer_kind *k);

/* Communication buffers one layer needs while it runs (bytes): data
 * parallel (parameter gathers and gradient reductions), tensor parallel
 * (gathered inputs), context parallel (K/V exchange) and expert parallel
 * (dispatch and combine). Combined as max(dp, tp, cp) + ep. */
typedef struct {
    double dp, tp, cp, ep;
} layer_comm;

layer_comm mem_layer_comm_buffers(const price_ctx *c, const layer_kind *k, const signed char *keep, double tokens);
double mem_comm_combined(const layer_comm *c);
/* The embedding's and the output's DP buffers (their gathered tables and reduced gradients). */
double mem_embedding_comm(const price_ctx *c, double tokens);
double mem_output_comm(const price_ctx *c);
/* FSDP's reduce-scatter input for the stage's embedding and head at the
 * backward's end (0 without FSDP). */
double mem_fsdp_tables_reduce_input(const price_ctx *c, bool embedding, bool output, bool tied);
/* The tables' unsharded gradients FSDP2 copies into that input, live beside
 * it until the copy is done (0 without FSDP or gather_copies). */
double mem_fsdp_tables_copied_grads(const price_ctx *c, bool embedding, bool output, bool tied);
/* Weights FSDP keeps gathered between forward and backward when it does not reshard. */
double mem_layer_gathered_params(const price_ctx *c, const layer_kind *k);

#endif
