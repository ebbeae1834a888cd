/* estimate.c: walks the pipeline layout and sums static and dynamic memory per stage. */
#include "estimate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "activations.h"
#include "nd_limits.h"
#include "schedule.h"

/* The offload's fields in a run table. */
const field_desc OFFLOAD_FIELDS[] = {
    FIELD_BOOL(offload_opts, "offload_optimizer", offload_optimizer, false),
    FIELD_BOOL(offload_opts, "offload_params", offload_params, false),
    FIELD_BOOL(offload_opts, "swap_optimizer", swap_optimizer, false),
    FIELD_NUM(offload_opts, "offload_activations", offload_activations, 0.0, 1.0, 0.0),
    FIELD_BOOL(offload_opts, "swap_attention", swap_attention, false), FIELD_END,
};

/* The allocator's fields in a run table. */
const field_desc ALLOCATOR_FIELDS[] = {
    FIELD_I64(allocator_opts, "reserve_bytes", reserve_bytes, 0, ND_MAX_DEVICE_MEMORY, -1),
    FIELD_NUM(allocator_opts, "fragmentation", fragmentation, 0.0, 10.0, 0.0),
    FIELD_BOOL(allocator_opts, "grads_set_to_none", grads_set_to_none, false),
    FIELD_BOOL(allocator_opts, "grad_stream_pool", grad_stream_pool, false),
    FIELD_BOOL(allocator_opts, "tables_reduce_above_peak", tables_reduce_above_peak, false), FIELD_END,
};

/* The training's fields in a run table. */
const field_desc TRAINING_FIELDS[] = {
    FIELD_TRI(training_opts, "tie_embeddings", tie_embeddings), FIELD_BOOL(training_opts, "frozen", frozen, false),
    FIELD_BOOL(training_opts, "freeze_vision", freeze_vision, false),
    FIELD_BOOL(training_opts, "grad_clip", grad_clip, false),
    FIELD_BOOL(training_opts, "clip_scales_always", clip_scales_always, false), FIELD_END,
};

void estimate_init(estimate_t *e)
{
    memset(e, 0, sizeof *e);
    layout_init(&e->layout);
    layout_init(&e->vision_layout);
}

void estimate_free(estimate_t *e)
{
    free(e->stages);
    free(e->rows);
    free(e->memo);
    free(e->act_cache);
    layout_free(&e->layout);
    layout_free(&e->vision_layout);
    free(e->vision_memo);
    estimate_init(e);
}

static int reserve_stages(estimate_t *e, int64_t pp)
{
    if (e->pp < pp || e->stages == NULL) {
        free(e->stages);
        e->stages = calloc((size_t)pp, sizeof *e->stages);
        if (e->stages == NULL) {
            snprintf(e->error, sizeof e->error, "out of memory");
            return -1;
        }
    }
    e->pp = pp;
    e->n_rows = 0;
    return 0;
}

static estimate_row *new_row(estimate_t *e)
{
    if (e->n_rows == e->cap_rows) {
        int cap = e->cap_rows ? 2 * e->cap_rows : 64;
        estimate_row *rows = realloc(e->rows, (size_t)cap * sizeof *rows);
        if (rows == NULL)
            return NULL;
        e->rows = rows;
        e->cap_rows = cap;
    }
    estimate_row *row = &e->rows[e->n_rows++];
    memset(row, 0, sizeof *row);
    return row;
}

/* What pricing one stage needs, for the text model or the vision tower. */
typedef struct {
    price_ctx c; /* the model (or tower), the run and its derived facts */
    bool vision, frozen;
    bool keeps_gathered; /* the stage keeps its layers' gathered weights from forward to backward */
    double tokens, seq; /* tokens of a micro-batch on a CP rank; the sequence a layer attends */
    kind_price *memo;   /* estimate_memo_entries, reset for each estimate unless reused */
    act_cache_entry *act_cache; /* n_kinds x 2, kept across estimates; NULL: none */
    bool *op_sac_fallback;      /* set when a selective layer falls back from torchtitan's rule */
} pricing;

void estimate_forget_prices(kind_price *memo, const model_t *m)
{
    for (int i = 0; i < estimate_memo_entries(m); i++)
        memo[i].ready = false;
}

void estimate_forget_expert_prices(kind_price *memo, const model_t *m)
{
    for (int k = 0; k < m->n_kinds; k++) {
        const layer_kind *kind = &m->kinds[k];
        if (kind->moe || kind->params.routed > 0 || kind->params.shared > 0)
            for (int mode = 0; mode < 3; mode++)
                memo[3 * k + mode].ready = false;
    }
}

/* Whether the stage keeps its layers' gathered weights from forward to backward. */
static bool keeps_gathered(const run_t *r, const derived_t *d)
{
    if (r->sharding.keep_gathered_params != UNSTATED)
        return r->sharding.keep_gathered_params == YES && d->params_sharded;
    return d->fsdp && (!r->sharding.reshard_params || (r->pp > 1 && r->sharding.pp_keeps_gathered));
}

static pricing make_pricing(const model_t *m, const run_t *r, const derived_t *d, bool vision, bool frozen,
                            kind_price *memo)
{
    double seq = (double)r->seq_length / (double)(r->pipeline.schedule == SCHED_SEQPIPE ? r->pipeline.seq_split : 1);
    pricing p = {{m, r, d}, vision, frozen, keeps_gathered(r, d), seq * (double)r->micro_batch_size / (double)r->cp,
                 seq, memo, NULL, NULL};
    return p;
}

/* The formula split of kind k with the switches keep, from the cache when
 * the inputs that shape it are the ones it was computed with. */
static act_split activations_of(const pricing *p, const layer_kind *k, const signed char *keep)
{
    if (p->act_cache == NULL)
        return act_kind_split(&p->c, k, keep, p->seq);
    act_key key;
    memset(&key, 0, sizeof key);
    key.model = p->c.m;
    key.seq = p->seq;
    key.capacity_factor = p->c.r->kernels.capacity_factor;
    key.cp = p->c.r->cp;
    key.top_k = p->c.m->top_k;
    key.algo = (int)p->c.r->cp_algo;
    key.flash = p->c.d->flash;
    key.core = p->c.d->core_attention_recompute;
    key.grouped_gemm = p->c.r->kernels.grouped_gemm;
    key.bc = p->c.d->bytes_compute;
    key.bn = p->c.d->bytes_norm;
    key.bs = p->c.d->bytes_softmax;
    key.bd = p->c.d->bytes_dropout;
    key.keep_set = keep != NULL;
    key.op_sac = p->c.d->op_sac;
    key.fused_norm = p->c.d->fused_norm;
    key.fused_swiglu = p->c.d->fused_swiglu;
    key.repeat_kv = p->c.d->repeat_kv;
    if (keep != NULL)
        memcpy(key.keep, keep, sizeof key.keep);
    act_cache_entry *entry = &p->act_cache[2 * (k - p->c.m->kinds) + (keep != NULL)];
    if (entry->valid && memcmp(&entry->key, &key, sizeof key) == 0)
        return entry->value;
    entry->value = act_kind_split(&p->c, k, keep, p->seq);
    entry->key = key;
    entry->valid = true;
    return entry->value;
}

/* The formula cache of n_kinds x 2 entries in e (NULL when out of memory:
 * then formulas run every time). A cache made for another model is cleared. */
static act_cache_entry *act_cache_for(estimate_t *e, const model_t *m)
{
    int need = 2 * m->n_kinds;
    if (e->act_cache_cap < need) {
        free(e->act_cache);
        e->act_cache = calloc((size_t)need, sizeof *e->act_cache);
        e->act_cache_cap = e->act_cache != NULL ? need : 0;
    }
    return e->act_cache;
}

/* A memo of estimate_memo_entries in e, grown as needed. */
static kind_price *memo_for(estimate_t *e, const model_t *m)
{
    int need = estimate_memo_entries(m);
    if (e->memo_cap < need) {
        kind_price *memo = realloc(e->memo, (size_t)need * sizeof *memo);
        if (memo == NULL)
            return NULL;
        e->memo = memo;
        e->memo_cap = need;
    }
    return e->memo;
}

static const signed char *switches_of(const pricing *p, const layer_run *run)
{
    if (run->mode != REC_SELECTIVE)
        return NULL;
    return run->switches != NULL ? run->switches : p->c.d->switches;
}

/* A layer's formula activations with the switches keep, and its parameter casts. */
static double formula_bytes(const pricing *p, const layer_kind *k, const signed char *keep)
{
    act_split a = activations_of(p, k, keep);
    return act_per_token(&p->c, &a) * p->tokens + act_per_layer(&a, p->c.r) +
           mem_layer_param_casts(&p->c, k);
}

/* Bytes one layer of the run keeps for one micro-batch. */
static double compute_activation(const pricing *p, const layer_run *run, bool *by_census)
{
    const layer_kind *k = &p->c.m->kinds[run->kind];
    *by_census = false;
    if (p->frozen)
        return 0.0;
    if (run->mode == REC_FULL)
        return act_full_recompute_per_token(&p->c) * p->tokens;
    const signed char *keep = switches_of(p, run);
    bool selective = run->mode == REC_SELECTIVE;
    if (selective && p->c.d->op_sac && !act_op_sac_prices(k))
        *p->op_sac_fallback = true;
    *by_census = act_census_applies(k, p->c.d, keep, selective);
    if (!*by_census)
        return formula_bytes(p, k, keep);
    return act_census_kept_per_token(&p->c, k, selective) * p->tokens +
           mem_layer_param_casts(&p->c, k);
}

/* What one layer holds at its backward's peak: a census record's working
 * set, else its activations priced as a plain layer (a recomputed layer
 * materialises them all again). */
static double compute_working(const pricing *p, const layer_run *run)
{
    const layer_kind *k = &p->c.m->kinds[run->kind];
    if (p->frozen)
        return 0.0;
    if (k->census != NULL)
        return act_census_working_per_token(&p->c, k) * p->tokens;
    return formula_bytes(p, k, switches_of(p, run));
}

static double compute_comm(const pricing *p, const layer_run *run)
{
    const layer_kind *k = &p->c.m->kinds[run->kind];
    layer_comm c = mem_layer_comm_buffers(&p->c, k, switches_of(p, run), p->tokens);
    return mem_comm_combined(&c);
}

/* A layer of the run's kind at the run's option, priced into kp. */
/* What a layer of the run works with at its backward, beside its
 * communication buffers, given the activation bytes it keeps: a layer
 * neither recomputed whole nor measured by a census works with what it
 * keeps (the same formula on the same switches). */
static double working_of(const pricing *p, const layer_run *run, double activation)
{
    bool kept_is_working = !p->frozen && run->mode != REC_FULL && p->c.m->kinds[run->kind].census == NULL;
    return kept_is_working ? activation : compute_working(p, run);
}

static const kind_price *price_afresh(const pricing *p, const layer_run *run, kind_price *kp)
{
    kp->stat = mem_layer_static(&p->c, &p->c.m->kinds[run->kind], p->frozen);
    kp->activation = compute_activation(p, run, &kp->census);
    kp->comm = compute_comm(p, run);
    /* what HyperParallel's attention swap moves: the attention module's saved
     * tensors (by formula, census or not), of a text layer it does not recompute */
    kp->swappable = p->c.r->offload.swap_attention && !p->frozen && !p->vision && run->mode == REC_OFF
                        ? act_attention_swappable_per_token(&p->c, &p->c.m->kinds[run->kind], p->seq) * p->tokens
                        : 0.0;
    kp->working = working_of(p, run, kp->activation);
    kp->ready = true;
    return kp;
}

/* A layer of the run's kind at the run's option, priced once an estimate
 * (a selective range with its own ops is priced afresh into scratch). */
static inline const kind_price *price_of(const pricing *p, const layer_run *run, kind_price *scratch)
{
    if (run->switches != NULL)
        return price_afresh(p, run, scratch);
    kind_price *kp = &p->memo[3 * run->kind + (int)run->mode];
    return kp->ready ? kp : price_afresh(p, run, kp);
}

static double split_bytes(const act_split *a, const pricing *p, double tp_divisor)
{
    return a->shared / (double)p->c.d->sp + a->tp / tp_divisor + a->expert / p->c.d->expert_work_div;
}

/* The output layer's bytes per micro-batch: what it keeps, or at its backward peak (working). */
static double output_bytes(const pricing *p, bool working)
{
    if (p->frozen)
        return 0.0;
    const census_record *c = p->c.m->output_census;
    double div = act_output_tp_divisor(&p->c);
    if (c != NULL)
        return ((working ? c->working : c->saved) / (double)p->c.d->sp +
                (working ? c->working_tp : c->saved_tp) / div) *
               p->tokens;
    act_split a = working ? act_output_working(&p->c) : act_output_kept(&p->c);
    return split_bytes(&a, p, div) * p->tokens;
}

/* What the output layer holds beyond what its micro-batch keeps (which the
 * stage's activations count already): the larger of its forward's transient
 * copies of the logits and its backward's loss gradient. A census record
 * measures the backward alone. */
static double output_extra(const pricing *p)
{
    double backward = output_bytes(p, true) - output_bytes(p, false);
    if (p->frozen || p->c.m->output_census != NULL)
        return backward;
    act_split f = act_output_forward_extra(&p->c), w = act_output_whole_logits(&p->c);
    double forward = split_bytes(&f, p, act_output_tp_divisor(&p->c)) * p->tokens;
    double whole = split_bytes(&w, p, act_output_tp_divisor(&p->c)) * p->tokens;
    double most = forward > backward ? forward : backward;
    return whole > most ? whole : most;
}

/* Adds n layers of these per-layer bytes, holding in_flight micro-batches, to the stage. */
static void accumulate(stage_estimate *st, const static_bytes *stat, double activation, double in_flight,
                       double comm, double n)
{
    static_add(&st->stat, stat, n);
    st->activations += n * activation * in_flight;
    if (comm > st->comm)
        st->comm = comm;
}

static int add_row(estimate_t *e, stage_estimate *st, const estimate_row *proto)
{
    const estimate_row *row = proto;
    if (!e->peak_only) {
        estimate_row *kept = new_row(e);
        if (kept == NULL) {
            snprintf(e->error, sizeof e->error, "out of memory");
            return -1;
        }
        *kept = *proto;
        row = kept;
    }
    accumulate(st, &row->static_per_layer, row->activation_per_layer, (double)row->in_flight, row->comm_per_layer,
               (double)row->count);
    return 0;
}

/* The memo's entry for one of the tables (0, 1: the embedding untied or
 * tied here; 2: the output head; 3: an MTP module). */
static kind_price *table_price(const pricing *p, int which) { return &p->memo[3 * p->c.m->n_kinds + which]; }

static const kind_price *embedding_price(const pricing *p, bool tied_here)
{
    kind_price *kp = table_price(p, tied_here ? 1 : 0);
    if (!kp->ready) {
        kp->stat = mem_embedding_static(&p->c, tied_here, p->frozen);
        kp->activation = p->frozen ? 0.0 : act_embedding_per_token(&p->c) * p->tokens;
        kp->comm = mem_embedding_comm(&p->c, p->tokens);
        kp->working = 0.0;
        kp->census = false;
        kp->ready = true;
    }
    return kp;
}

/* One row of a table (the embedding, the output head) priced kp. */
static estimate_row table_row(const pricing *p, int64_t chunk, row_type type, const char *kind,
                              const kind_price *kp, int64_t mf)
{
    estimate_row row = {.chunk = chunk, .type = type, .kind = kind, .vision = p->vision, .census = kp->census,
                        .count = 1, .static_per_layer = kp->stat, .activation_per_layer = kp->activation,
                        .comm_per_layer = kp->comm, .in_flight = mf};
    return row;
}

/* Whether the stage keeps the tables' gathered copies too: MindSpore's
 * parallel optimizer (keep_gathered_params stated) puts one all-gather after
 * the cast of each sharded parameter, the tables' as the layers', which every
 * forward user of it shares (step_parallel.cc InsertParallelOpt,
 * InsertAllGatherAfterCast under PP). */
static bool holds_gathered_tables(const pricing *p)
{
    return p->keeps_gathered && p->c.r->sharding.keep_gathered_params == YES;
}

static int add_embedding(estimate_t *e, stage_estimate *st, const pricing *p, int64_t chunk, int64_t mf,
                         bool tied_here)
{
    const kind_price *kp = embedding_price(p, tied_here);
    /* the embedding's backward needs no weight: its gathered copy is held
     * through the stage's peak only when later micro-batches' forwards still
     * use it (PP) */
    if (holds_gathered_tables(p) && !tied_here && p->c.r->pp > 1)
        st->held_params += mem_table_gathered(&p->c, true);
    if (e->peak_only) { /* the search's pricing: the sums without the row */
        accumulate(st, &kp->stat, kp->activation, (double)mf, kp->comm, 1.0);
        return 0;
    }
    estimate_row row = table_row(p, chunk, ROW_EMBEDDING, "embedding", kp, mf);
    return add_row(e, st, &row);
}

/* The output head's prices: kept bytes (activation), its backward extra
 * beyond them (working), its static and communication bytes. */
static const kind_price *output_price(const pricing *p)
{
    kind_price *kp = table_price(p, 2);
    if (!kp->ready) {
        kp->stat = mem_output_static(&p->c, p->frozen);
        kp->activation = output_bytes(p, false);
        kp->comm = mem_output_comm(&p->c);
        kp->working = output_extra(p);
        kp->census = p->c.m->output_census != NULL;
        kp->ready = true;
    }
    return kp;
}

/* An MTP module's prices: its own tables, and its activations above the head's. */
static const kind_price *mtp_module_price(const pricing *p)
{
    kind_price *kp = table_price(p, 3);
    if (!kp->ready) {
        kp->stat = mem_mtp_module_static(&p->c, p->frozen);
        double per_token = act_embedding_per_token(&p->c) + act_mtp_extra_per_token(&p->c);
        kp->activation = p->frozen ? 0.0 : per_token * p->tokens;
        kp->comm = kp->working = 0.0;
        kp->census = false;
        kp->ready = true;
    }
    return kp;
}

/* The output head, then each MTP module's own tables and activations. */
static int add_output(estimate_t *e, stage_estimate *st, const pricing *p, int64_t chunk, int64_t mf)
{
    const kind_price *head = output_price(p);
    int64_t mtp = p->vision ? 0 : model_mtp_layers(p->c.m);
    if (holds_gathered_tables(p)) /* the head's backward needs its weight; so do an MTP module's */
        st->held_params += mem_table_gathered(&p->c, false) + (double)mtp * mem_mtp_module_gathered(&p->c);
    if (e->peak_only) { /* the search's pricing: the sums without the rows */
        accumulate(st, &head->stat, head->activation, (double)mf, head->comm, 1.0);
        if (mtp > 0) {
            const kind_price *mp = mtp_module_price(p);
            accumulate(st, &mp->stat, head->activation + mp->activation, (double)mf, head->comm, (double)mtp);
        }
        return 0;
    }
    estimate_row row = table_row(p, chunk, ROW_OUTPUT, "output", head, mf);
    if (add_row(e, st, &row) != 0)
        return -1;
    if (mtp == 0)
        return 0;
    const kind_price *mp = mtp_module_price(p);
    estimate_row module = row;
    module.type = ROW_MTP_MODULE;
    module.kind = "mtp_module";
    module.count = mtp;
    module.mtp = true;
    module.static_per_layer = mp->stat;
    module.activation_per_layer = row.activation_per_layer + mp->activation;
    return add_row(e, st, &module);
}

static inline int add_runs(estimate_t *e, stage_estimate *st, const pricing *p, const layout_t *l,
                    const chunk_layout *ch, int64_t chunk, int64_t mf)
{
    for (int i = 0; i < ch->n_runs; i++) {
        const layer_run *run = &l->runs[ch->first_run + i];
        const layer_kind *k = &p->c.m->kinds[run->kind];
        kind_price scratch;
        const kind_price *kp = price_of(p, run, &scratch);
        if (p->keeps_gathered)
            st->held_params += (double)run->count * mem_layer_gathered_params(&p->c, k);
        if (kp->swappable > 0) { /* in model order: the stage's last such layer is the one kept */
            st->swap_sum += (double)run->count * (double)mf * kp->swappable;
            st->swap_last = (double)mf * kp->swappable;
        }
        if (e->peak_only) { /* the search's pricing: the sums without the row */
            accumulate(st, &kp->stat, kp->activation, (double)mf, kp->comm, (double)run->count);
            continue;
        }
        estimate_row row = {.chunk = chunk, .type = ROW_LAYERS, .kind = k->name, .vision = p->vision,
                            .mtp = run->mtp, .census = kp->census, .count = run->count, .mode = run->mode,
                            .static_per_layer = kp->stat, .activation_per_layer = kp->activation,
                            .comm_per_layer = kp->comm, .in_flight = mf};
        e->census_used = e->census_used || kp->census;
        if (add_row(e, st, &row) != 0)
            return -1;
    }
    return 0;
}

static void vision_run(const model_t *m, const run_t *r, run_t *out)
{
    *out = *r;
    out->sharding.vocab_emb_dp = false;
    out->training.tie_embeddings = NO;
    out->pipeline.mtp_in_offset = false;
    out->kernels.grouped_gemm = false;
    out->kernels.capacity_factor = 1.0;
    out->loss.loss_parallel = YES;
    out->ep = 1;
    out->etp = 0;
    out->seq_length = r->visual_seq_length > 0 ? r->visual_seq_length
                      : m->max_positions > 0  ? m->max_positions
                                              : 1024;
    /* The tower follows a run-wide recompute mode; per-stage counts and
     * ranges count the language model's layers, so they leave it plain. */
    out->recompute.n_ranges = 0;
    out->recompute.ranges = NULL;
    out->pipeline.offset.form = FORM_NONE;
    if (r->recompute.n_ranges > 0 || (r->recompute.full.form != FORM_ALL && r->recompute.full.form != FORM_NONE))
        out->recompute.full.form = FORM_NONE;
    if (r->recompute.n_ranges > 0 || (r->recompute.selective.form != FORM_ALL && r->recompute.selective.form != FORM_NONE))
        out->recompute.selective.form = FORM_NONE;
    out->pp = out->vpp = 1;
}

/* The vision tower, front-loaded on the first stage's first chunk. */
static int add_vision(estimate_t *e, stage_estimate *st, const model_t *m, const run_t *r, int64_t mf)
{
    const model_t *v = m->vision;
    run_t vr;
    vision_run(v, r, &vr);
    derive(v, &vr, &e->vision_derived);
    layout_t *tower = &e->vision_layout;
    if (layout_build(tower, v, &vr) != 0) {
        snprintf(e->error, sizeof e->error, "vision tower: %.200s", tower->error);
        return -1;
    }
    if (e->vision_memo_cap < estimate_memo_entries(v)) {
        free(e->vision_memo);
        e->vision_memo = calloc((size_t)estimate_memo_entries(v), sizeof *e->vision_memo);
        e->vision_memo_cap = e->vision_memo ? estimate_memo_entries(v) : 0;
    }
    kind_price *memo = e->vision_memo;
    if (memo == NULL) {
        snprintf(e->error, sizeof e->error, "out of memory");
        return -1;
    }
    estimate_forget_prices(memo, v);
    pricing p = make_pricing(v, &vr, &e->vision_derived, true, r->training.frozen || r->training.freeze_vision, memo);
    p.op_sac_fallback = &e->op_sac_fallback;
    const chunk_layout *ch = layout_chunk(tower, 0, 0);
    int rc = add_embedding(e, st, &p, 0, mf, false);
    if (rc == 0)
        rc = add_runs(e, st, &p, tower, ch, 0, mf);
    if (rc == 0)
        rc = add_output(e, st, &p, 0, mf);
    return rc;
}

/* Whether a chunk of stage s holds the output head (output), else the embedding. */
static bool holds_table(const layout_t *l, int64_t s, bool output)
{
    for (int64_t c = 0; c < l->vpp; c++) {
        const chunk_layout *ch = layout_chunk(l, s, c);
        if (output ? ch->output : ch->embedding)
            return true;
    }
    return false;
}

/* Whether the head is an FSDP unit of its own on stage s (fsdp_table_units,
 * untied): FSDP2 gathers, reduces and frees it apart from the embedding. */
static bool head_own_unit(const pricing *p, const layout_t *l, int64_t s)
{
    bool tied = holds_table(l, s, false) && ties_embeddings(p->c.m, p->c.r);
    return p->c.d->fsdp && p->c.r->sharding.fsdp_table_units && !tied;
}

/* Backward overhead of a 1F1B-like schedule (memory-model.md §8.2): the
 * last node of the stage's last chunk is priced again at one micro-batch,
 * a recomputed layer as a plain one; an output node also brings the last
 * MTP layer before it. Beyond the reference: on the output stage the last
 * layer's backward runs once the loss's has freed its working set and the
 * output's kept tensors, so its own working set (all of its activations
 * again, when recomputed) is the overhead where it is the larger. */
static double overhead_1f1b(const pricing *p, const layout_t *l, int64_t stage)
{
    const chunk_layout *ch = layout_chunk(l, stage, l->vpp - 1);
    const layer_run *last = ch->n_runs > 0 ? &l->runs[ch->first_run + ch->n_runs - 1] : NULL;
    double o = 0.0;
    if (ch->output) {
        const kind_price *head = output_price(p);
        /* The head's own FSDP unit (MindSpeed's fsdp_modules: lm_head alone,
         * reshard_after_forward): as the backward starts its buffers (the
         * weight gathered again, its gradient, the reduce-scatter input) are
         * the only FSDP buffers live, and the stage's comm, the largest
         * unit's, holds them already; the root group's (torchtitan: the
         * embedding, norm and head together, kept gathered) hold more. */
        o = head->working + (head_own_unit(p, l, stage) ? 0.0 : head->comm);
        if (last != NULL && !last->mtp) {
            kind_price scratch;
            const kind_price *kp = price_of(p, last, &scratch);
            double after_loss = kp->working + kp->comm - head->activation;
            o = after_loss > o ? after_loss : o;
        }
    }
    if (last != NULL && (!ch->output || last->mtp)) {
        kind_price scratch;
        const kind_price *kp = price_of(p, last, &scratch);
        o += kp->working + kp->comm;
    }
    return o;
}

/* The largest working set of a fully recomputed layer of the chunk. */
static double max_full_working(const pricing *p, const layout_t *l, const chunk_layout *ch)
{
    double most = 0;
    for (int i = 0; i < ch->n_runs; i++) {
        const layer_run *run = &l->runs[ch->first_run + i];
        kind_price scratch;
        const kind_price *kp = price_of(p, run, &scratch);
        if (run->mode == REC_FULL && kp->working > most)
            most = kp->working;
    }
    return most;
}

/* DualPipeV: max(fwd_first + bwd_last, fwd_last + bwd_first), where fwd_first
 * sums the first chunk's activations at one micro-batch, fwd_last prices the
 * second chunk's last node as a plain layer, and bwd_* is the largest
 * recomputed layer's working set in the other chunk (memory-model.md §8.2). */
static double overhead_dualpipe(const pricing *p, const layout_t *l, int64_t stage)
{
    const chunk_layout *first = layout_chunk(l, stage, 0);
    const chunk_layout *second = l->vpp > 1 ? layout_chunk(l, stage, 1) : first;
    double fwd_first = 0, fwd_last = 0;
    kind_price scratch;
    for (int i = 0; i < first->n_runs; i++) {
        const layer_run *run = &l->runs[first->first_run + i];
        fwd_first += (double)run->count * price_of(p, run, &scratch)->activation;
    }
    if (second->output)
        fwd_last = output_bytes(p, true);
    else if (second->n_runs > 0)
        fwd_last = price_of(p, &l->runs[second->first_run + second->n_runs - 1], &scratch)->working;
    double a = fwd_first + max_full_working(p, l, second), b = fwd_last + max_full_working(p, l, first);
    return a > b ? a : b;
}

static double backward_overhead(const pricing *p, const layout_t *l, int64_t stage)
{
    if (p->c.r->training.frozen || p->c.r->pipeline.schedule == SCHED_GPIPE)
        return 0.0;
    if (p->c.r->pipeline.schedule == SCHED_ZERO_BUBBLE_V)
        return overhead_dualpipe(p, l, stage);
    return overhead_1f1b(p, l, stage);
}


/* CPU offload: parameters (FSDP's CPUOffload, ZeRO-Infinity) take their
 * gradients and optimizer states with them, as FSDP steps the optimizer on
 * the host; an offloaded optimizer (ZeRO-Offload) moves its states and
 * main params; a share of the kept activations goes to host memory. */
static void offload(stage_estimate *st, const run_t *r)
{
    if (!r->offload.offload_params && !r->offload.offload_optimizer && r->offload.offload_activations == 0 &&
        st->swap_sum == 0)
        return; /* nothing moves: the host's sums stay zero */
    static_bytes moved = {0, 0, 0, 0};
    if (r->offload.offload_params)
        moved = st->stat;
    else if (r->offload.offload_optimizer) {
        moved.optimizer = st->stat.optimizer;
        moved.main_params = st->stat.main_params;
    }
    static_add(&st->host_stat, &moved, 1.0);
    static_add(&st->stat, &moved, -1.0);
    /* HyperParallel's attention swap: at the backward's start (the peak) every
     * self_attn's saved tensors are on the host but the last layer's, which no
     * later forward sent there; in the backward each comes back one layer
     * ahead as the one before it is freed */
    double swapped = st->swap_sum > st->swap_last ? st->swap_sum - st->swap_last : 0.0;
    st->host_activations = swapped + (st->activations - swapped) * r->offload.offload_activations;
    st->activations -= st->host_activations;
    st->host = static_total(&st->host_stat) + st->host_activations;
}

/* What a stage holds at the two ends of its backward, the gradients apart:
 * at the start every activation, the buffers and the loss's gradient; at
 * the end the buffers, or FSDP's last reduce-scatter, the embedding and
 * head's, which it reduces last. FSDP2 allocates that reduce's input, copies
 * the tables' unsharded gradients into it (copied) and frees them only after
 * the copy; the reduce-scatter then writes the tables' sharded gradients.
 * With the gradients freed before the step (grads_released) those shards do
 * not exist during the copy, so the end holds the input and what the copied
 * gradients outweigh the shards by, if anything (bf16 copies against fp32
 * shards over more than two ranks); with gradients kept, the copy sits
 * beside the kept shards. `stream_end` is the default stream's end: the
 * input and the copied gradients, the shards in their own stream's pool
 * (grad_stream_pool). */
typedef struct {
    double grads, start, end, stream_end, tables;
    double end_held; /* what the end holds beside the static bytes: the larger of the buffers and the input's */
} backward_ends;

typedef struct {
    double input, copied; /* the tables' reduce-scatter input and their unsharded gradients copied in */
} tables_reduce;

static double larger(double a, double b)
{
    return a > b ? a : b;
}

static backward_ends ends_of(const stage_estimate *st, const tables_reduce *t, const derived_t *d, double recv_whole)
{
    double rest = static_total(&st->stat) - st->stat.grads;
    double shards = d->grads_released ? t->input / (double)d->optimizer_ranks : 0.0;
    double held = larger(st->comm, t->input + larger(t->copied - shards, 0.0));
    /* the pipeline's receive buffers: beside the activations at the start, all of them at the end */
    backward_ends e = {st->stat.grads,
                       rest + st->activations + st->comm + st->backward_overhead + st->recv_buffers,
                       rest + held + recv_whole, rest + larger(st->comm, t->input + t->copied) + recv_whole, t->input,
                       held};
    return e;
}

/* A step whose gradients are freed before its forward and come back in its
 * backward (grads_released): at the backward's start no parameter gradient
 * lives yet; as the backward runs, each layer's activations go as its
 * gradients arrive, so the peak is at one end: the start, or the end, where
 * every gradient lives and no activation. The stage's parts become what
 * lives at that end. */
static void keep_peak_end(stage_estimate *st, const backward_ends *e, double recv_whole)
{
    if (e->start >= e->end + e->grads) {
        st->stat.grads = 0;
    } else {
        st->activations = 0;
        st->backward_overhead = 0;
        st->comm = e->end_held;
        st->recv_buffers = recv_whole;
    }
}

/* The default stream's reserved peak: the larger end of the backward,
 * with the tables' reduce-scatter input above the start's peak where the
 * runtime's allocator places it there (tables_reduce_above_peak). Measured
 * on one H200 (torchtitan, expandable segments): the default stream's
 * segments held its allocated peak plus that input, 4.2 GB at vocabulary
 * 128256, to 0.9 GB in six runs of seven; the seventh (full recompute,
 * 8192 tokens) fitted it in the loss's freed blocks. */
static double default_stream_peak(const backward_ends *e, const run_t *r)
{
    double start = e->start + (r->allocator.tables_reduce_above_peak ? e->tables : 0.0);
    return larger(start, e->stream_end);
}

/* PyTorch's caching allocator keeps a pool per stream and lends no block of
 * one to another (grad_stream_pool): the sharded gradients, and while they
 * accumulate a group's reduce-scatter output beside them, stay in the
 * reduce-scatter stream's pool, whose peak adds to that of the default
 * stream. Measured on one H200: the side stream's segments held the
 * gradients' bytes, and with two micro-batches the tables' reduce output
 * more. */
static double stream_pool(const backward_ends *e, const derived_t *d)
{
    return e->grads + (d->grads_released ? 0.0 : e->tables / (double)d->optimizer_ranks);
}

/* Sets the stage's reserved bytes and the share of them the gradients'
 * pool holds beyond the plain rule, allocated x (1 + fragmentation). */
static void price_reserved(stage_estimate *st, const backward_ends *e, const derived_t *d, const run_t *r)
{
    double plain = st->allocated * (1.0 + r->allocator.fragmentation);
    st->reserved = plain;
    if (r->allocator.grad_stream_pool) {
        double ends = e->start > e->end ? e->start : e->end;
        double pooled = ends * (1.0 + r->allocator.fragmentation) + stream_pool(e, d);
        st->grad_pool = pooled > plain ? pooled - plain : 0.0;
        double reserved = default_stream_peak(e, r) * (1.0 + r->allocator.fragmentation) + stream_pool(e, d);
        st->reserved = reserved > plain ? reserved : plain;
    } else if (r->allocator.tables_reduce_above_peak) {
        /* one pool: gradients freed before the step come back into blocks the backward frees */
        double start = e->start + (d->grads_released ? 0.0 : e->grads) + e->tables;
        double reserved = start * (1.0 + r->allocator.fragmentation);
        st->reserved = reserved > plain ? reserved : plain;
    }
}

/* FSDP's last reduce-scatter on stage s: its embedding and head (the root
 * group), or the embedding alone where each table is a unit of its own
 * (fsdp_table_units): FSDP2's post_backward runs per unit as its backward
 * ends, and the head's backward is the stage's first. */
static tables_reduce stage_tables_reduce(const pricing *p, const layout_t *l, int64_t s)
{
    tables_reduce t = {0.0, 0.0};
    if (!p->c.d->fsdp)
        return t;
    bool emb = holds_table(l, s, false), out = holds_table(l, s, true);
    bool tied = emb && out && ties_embeddings(p->c.m, p->c.r);
    if (p->c.r->sharding.fsdp_table_units && !tied)
        out = false; /* the head's own unit was reduced as the backward began */
    t.input = mem_fsdp_tables_reduce_input(&p->c, emb, out, tied);
    t.copied = mem_fsdp_tables_copied_grads(&p->c, emb, out, tied);
    return t;
}

/* Micro-batches chunk c of stage s holds, from the table mf (pp x vpp) when given. */
static int64_t in_flight_of(const int64_t *mf, const run_t *r, int64_t s, int64_t c)
{
    return mf != NULL ? mf[s * r->vpp + c] : micro_factor_priced(r, s, c);
}

/* PyTorch pipelining's receive buffers on stage s (recv_buffers_per_micro_batch):
 * at its first step() a PipelineStage that is not the pipeline's first
 * allocates one forward-input buffer per micro-batch of the schedule
 * (torch/distributed/pipelining/stage.py PipelineStage._prepare_forward_infra:
 * `for chunk_id in range(num_microbatches)`, _make_tensor_from_meta of the
 * stage's input meta), and one that is not the last one output-gradient
 * buffer per micro-batch (_prepare_backward_infra -> _create_grad_recv_info,
 * of its output meta); clear_runtime_states, at each step(), drops only the
 * input buffers' .grad, so all of them stay resident (pytorch/pytorch issue
 * 136380 asks to keep fewer; PR 196463, allocating each just before its
 * receive, was open when this was written). Each chunk of an
 * interleaved or V schedule is a PipelineStage of its own: looped, chunk c
 * of stage s is virtual stage c x pp + s; V (DualPipeV), the second chunk
 * is 2 pp - 1 - s. A buffer holds the stage's boundary tensor: the hidden
 * states of one micro-batch's tokens (tokens: on one CP rank), in the
 * compute dtype, over sequence parallelism (the residual stream between
 * blocks). While a micro-batch is in flight its input buffer is the first
 * layer's input, which the activations already count (in_flight of them at
 * the peak); the rest sit beside them. `whole` returns every buffer, the
 * return value those beside the activations. */
static double recv_buffers(const pricing *p, const estimate_t *e, int64_t s, double *whole)
{
    const run_t *r = p->c.r;
    const derived_t *d = p->c.d;
    *whole = 0.0;
    if (r->pp <= 1 || !r->pipeline.recv_buffers_per_micro_batch)
        return 0.0;
    double one = d->tokens * (double)p->c.m->hidden * d->bytes_compute / (double)d->sp;
    double m = (double)schedule_micro_batches(r), beside = 0.0;
    int64_t last = r->pp * r->vpp - 1;
    for (int64_t c = 0; c < r->vpp; c++) {
        bool v = r->pipeline.schedule == SCHED_ZERO_BUBBLE_V && c == 1;
        int64_t virt = v ? 2 * r->pp - 1 - s : c * r->pp + s;
        if (virt > 0) {
            double held = (double)in_flight_of(e->micro_factors, r, s, c);
            *whole += m * one;
            beside += (held < m ? m - held : 0.0) * one;
        }
        if (virt < last) {
            *whole += m * one;
            beside += m * one;
        }
    }
    return beside;
}

static int price_stage(estimate_t *e, const model_t *m, const run_t *r, const pricing *p, int64_t s)
{
    static const stage_estimate empty;
    stage_estimate *st = &e->stages[s];
    *st = empty;
    st->first_row = e->n_rows;
    for (int64_t c = 0; c < r->vpp; c++) {
        const chunk_layout *ch = layout_chunk(e->lay, s, c);
        int64_t mf = in_flight_of(e->micro_factors, r, s, c); /* at its peak: at least one */
        if (s == 0 && c == 0 && m->vision != NULL && add_vision(e, st, m, r, mf) != 0)
            return -1;
        if (ch->embedding && add_embedding(e, st, p, c, mf, ties_embeddings(m, r) && holds_table(e->lay, s, true)) != 0)
            return -1;
        if (add_runs(e, st, p, e->lay, ch, c, mf) != 0)
            return -1;
        if (ch->output && add_output(e, st, p, c, mf) != 0)
            return -1;
    }
    st->n_rows = e->n_rows - st->first_row;
    double recv_whole;
    st->recv_buffers = recv_buffers(p, e, s, &recv_whole);
    st->backward_overhead = backward_overhead(p, e->lay, s);
    st->comm += st->held_params;
    offload(st, r);
    double dynamic = st->activations + st->comm + st->backward_overhead;
    double reserve = r->allocator.reserve_bytes >= 0 ? (double)r->allocator.reserve_bytes : DEFAULT_RESERVE_BYTES;
    st->reserve = dynamic > 0 ? reserve : 0.0;
    const derived_t *d = p->c.d;
    backward_ends ends = {0, 0, 0, 0, 0, 0}; /* read only under the rules below */
    if (d->grads_released || r->allocator.grad_stream_pool || r->allocator.tables_reduce_above_peak) {
        tables_reduce t = stage_tables_reduce(p, e->lay, s);
        ends = ends_of(st, &t, d, recv_whole);
    }
    if (d->grads_released)
        keep_peak_end(st, &ends, recv_whole);
    st->allocated = static_total(&st->stat) + st->activations + st->comm + st->backward_overhead + st->recv_buffers;
    price_reserved(st, &ends, d, r);
    st->total = st->reserved + st->reserve;
    return 0;
}

double estimate_kind_least(estimate_t *e, const model_t *m, const run_t *r, recompute_mode mode, kind_least *least)
{
    derive(m, r, &e->derived);
    pricing p = make_pricing(m, r, &e->derived, false, r->training.frozen, NULL);
    bool fallback = false, census;
    p.op_sac_fallback = &fallback;
    for (int k = 0; k < m->n_kinds; k++) {
        layer_run plain = {.kind = k, .mode = REC_OFF}, at = {.kind = k, .mode = mode};
        double off = compute_activation(&p, &plain, &census), on = compute_activation(&p, &at, &census);
        double comm_off = compute_comm(&p, &plain), comm_on = compute_comm(&p, &at);
        double work_off = working_of(&p, &plain, off) + comm_off, work_on = working_of(&p, &at, on) + comm_on;
        static_bytes stat = mem_layer_static(&p.c, &m->kinds[k], p.frozen);
        least[k].stat = static_total(&stat);
        least[k].act = off < on ? off : on;
        least[k].comm = comm_off < comm_on ? comm_off : comm_on;
        least[k].work = work_off < work_on ? work_off : work_on;
    }
    return p.frozen ? 0.0 : output_extra(&p);
}

int estimate_run(estimate_t *e, const model_t *m, const run_t *r)
{
    if (layout_build(&e->layout, m, r) != 0) {
        snprintf(e->error, sizeof e->error, "%s", e->layout.error);
        return -1;
    }
    return estimate_run_layout(e, m, r, &e->layout);
}

/* Whether stage s cannot raise the peak: it holds the same runs, embedding
 * and output as an earlier stage (the layout's same_as) and no more
 * micro-batches in any chunk, so each of its sums is at most that stage's
 * (every part of a stage's total grows with its micro-batches in flight). */
static bool dominated(const layout_t *l, const run_t *r, const int64_t *mf, int64_t s)
{
    int64_t like = l->same_as != NULL ? l->same_as[s] : s;
    if (like == s)
        return false;
    for (int64_t c = 0; c < r->vpp; c++)
        if (in_flight_of(mf, r, s, c) > in_flight_of(mf, r, like, c))
            return false;
    return true;
}

int64_t estimate_live_stages(const layout_t *l, const run_t *r, const int64_t *micro_factors, int64_t *out)
{
    int64_t n = 0;
    for (int64_t s = 0; s < r->pp; s++)
        if (!dominated(l, r, micro_factors, s))
            out[n++] = s;
    return n;
}

int estimate_run_layout(estimate_t *e, const model_t *m, const run_t *r, const layout_t *given)
{
    e->error[0] = '\0';
    e->census_used = false;
    e->lay = given;
    kind_price *memo = e->reuse_memo != NULL ? e->reuse_memo : memo_for(e, m);
    if (reserve_stages(e, r->pp) != 0 || memo == NULL) {
        snprintf(e->error, sizeof e->error, "out of memory");
        return -1;
    }
    e->dv = e->reuse_derived;
    if (e->dv == NULL) {
        derive(m, r, &e->derived);
        e->dv = &e->derived;
    }
    if (e->reuse_memo == NULL)
        estimate_forget_prices(memo, m); /* prices hold for one estimate unless the caller keeps them */
    pricing p = make_pricing(m, r, e->dv, false, r->training.frozen, memo);
    p.act_cache = act_cache_for(e, m);
    e->op_sac_fallback = false;
    p.op_sac_fallback = &e->op_sac_fallback;
    e->peak = -1;
    e->stopped = false;
    int64_t n = e->live != NULL ? e->n_live : r->pp;
    for (int64_t i = 0; i < n; i++) {
        int64_t s = e->live != NULL ? e->live[i] : i;
        if (e->live == NULL && e->peak_only && dominated(e->lay, r, e->micro_factors, s))
            continue; /* the search reads the peak alone */
        if (price_stage(e, m, r, &p, s) != 0)
            return -1;
        if (e->stages[s].total > e->peak) {
            e->peak = e->stages[s].total;
            e->peak_stage = s;
        }
        if (e->stop_early && e->peak > e->stop_above) {
            e->stopped = true;
            break;
        }
    }
    e->fits = e->peak <= (double)r->device_memory_bytes;
    return 0;
}
