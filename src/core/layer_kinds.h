/* layer_kinds.h: a layer kind's attention and feed-forward forms, each one descriptor (layer_kinds.c). */
#ifndef NDLUA_LAYER_KINDS_H
#define NDLUA_LAYER_KINDS_H

#include <stdbool.h>

#include "derive.h"
#include "kept_bytes.h"
#include "model.h"

/* The forward FLOPs per token of a layer's attention beyond its projections (which are
 * 2 a weight): the scores of a softmax attention, or a linear attention's recurrence. */
typedef struct {
    double scores, recurrence;
} attention_flops;

/* The widths of an attention's projection GEMMs on one rank: its input projection (h to `in`) and
 * its output projection (`out` to h; 0: priced with the input one as a single GEMM). */
typedef struct {
    double in, out;
} attention_gemms;

/* One attention form: what a layer kind of it is, costs and keeps, stated in one row of
 * ATTENTION_FORMS. A form is settled from the kind's attention flavour and the model's
 * geometry (attention_form_of); the formulas read the form's row through kind_form. */
typedef struct {
    const char *name; /* as model:kinds() shows it: full, mla, linear */
    /* Attention by softmax scores over the sequence (full, MLA): a flash kernel runs them, an
     * eager attention moves them, ring CP passes K/V blocks, a core-attention recompute reruns
     * them, the rotary embedding turns q and k, HyperParallel's attention swap moves what it
     * keeps. Else a recurrence (linear attention): CP passes its state, and none of those. */
    bool softmax;
    /* K and V per KV head (GQA): a runtime's repeat_kv copies them to the query heads, and a
     * model's per-head q/k norms (qk_norm) run on the query and key heads. MLA builds each
     * head's key from the latent and one shared rope key; a linear attention has neither. */
    bool per_head_kv;
    /* Whether a kind of flavour `a` in model m is of this form (the rows are asked in order). */
    bool (*applies)(const model_t *m, attention_flavour a);
    /* A message when m lacks a dimension the form needs (NULL: none lacks); err holds it. */
    const char *(*check)(const model_t *m, const layer_kind *k, char *err, int errlen);
    /* The kind's attention geometry as priced: heads, KV heads, q/k and v head widths. */
    void (*geometry)(const model_t *m, layer_kind *k);
    /* Attention weights of one layer. */
    double (*params)(const model_t *m, const layer_kind *k);
    /* Scores or recurrence FLOPs per token at sequence s (causal: the share of keys a
     * query attends). */
    attention_flops (*flops)(const layer_kind *k, double s, double causal);
    /* Bytes of the state a layer passes between CP ranks in place of K and V, all its heads
     * (0: a softmax form, which passes K/V blocks or all-to-alls instead). */
    double (*cp_state)(const layer_kind *k);
    /* What one layer keeps for backward of its attention, added to o: keep is the switch set of a
     * selectively recomputed layer (NULL: a plain layer), seq the sequence it runs at, kv_factor
     * the share of K/V it keeps whole (ring CP: cp). */
    void (*kept)(act_split *o, const model_t *m, const layer_kind *k, const derived_t *d, const signed char *keep,
                 double seq, double kv_factor);
    /* Elements of the queries and keys a token's rotary embedding turns on one of t TP ranks
     * (for a model of rotary positions). */
    double (*rotated)(const model_t *m, const layer_kind *k, double t);
    /* Its projection GEMMs' widths on one of t TP ranks (a softmax form's; timing's shape price). */
    attention_gemms (*gemms)(const model_t *m, const layer_kind *k, double t);
} attention_desc;

extern const attention_desc ATTENTION_FORMS[ATTENTION_FORM_COUNT];

/* The form a kind of flavour `a` in model m settles to. */
attention_form attention_form_of(const model_t *m, attention_flavour a);

/* The descriptor of a settled kind's form. */
static inline const attention_desc *kind_form(const layer_kind *k) { return &ATTENTION_FORMS[k->form]; }

/* The forward FLOPs per token of a layer's feed-forward: 2 a weight it runs (a token runs
 * top-k of the routed experts). */
typedef struct {
    double mlp, routed, shared, router;
} ffn_flops;

/* One feed-forward form: what a layer kind of it is, weighs and runs, in one row of FFN_FORMS.
 * The activation and time formulas price its parts (activations.c, timing.c): a feed-forward
 * over TP of tp_width (the dense FFN, or the shared experts) and, where `routed`, the routed
 * experts (top-k of E, expert_width each, over EP and expert TP) with their router. */
typedef struct {
    const char *name; /* as model:kinds() shows it: dense, moe */
    /* Tokens go to top-k of E routed experts: EP all-to-alls, their buffers, expert TP. */
    bool routed;
    /* Whether a kind of FFN flavour `f` in model m is of this form (the rows are asked in order). */
    bool (*applies)(const model_t *m, ffn_flavour f);
    /* A message when m lacks what the form needs (NULL: none lacks); err holds it. */
    const char *(*check)(const model_t *m, const layer_kind *k, char *err, int errlen);
    /* The kind's ffn_width: the dense width, or a routed expert's. */
    double (*width)(const model_t *m);
    /* The width of the feed-forward it runs over TP (MoE: the shared experts', 0 without). */
    double (*tp_width)(const model_t *m, const layer_kind *k);
    /* Its weights in p (dense_mlp; or router, routed and shared). */
    void (*params)(const model_t *m, const layer_kind *k, layer_params *p);
    /* Its forward FLOPs per token, from its settled weights. */
    ffn_flops (*flops)(const model_t *m, const layer_kind *k);
} ffn_desc;

extern const ffn_desc FFN_FORMS[FFN_FORM_COUNT];

/* The form a kind of FFN flavour `f` in model m settles to. */
ffn_form ffn_form_of(const model_t *m, ffn_flavour f);

/* The descriptor of a settled kind's feed-forward. */
static inline const ffn_desc *kind_ffn(const layer_kind *k) { return &FFN_FORMS[k->feed_forward]; }

#endif
