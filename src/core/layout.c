/* layout.c: pipeline partition of the layer stack over stages and VPP chunks, and recompute per layer. */
#include "layout.h"

#include "nd_limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The schedules by name (aliases beside the names), each one's value. */
static const char *const SCHEDULES[] = {"1f1b", "interleaved", "gpipe", "seqpipe", "seqsmartvpp",
                                        "zero_bubble_v", "zbv", "dualpipev", NULL};
static const int SCHEDULE_VALUES[] = {SCHED_1F1B, SCHED_1F1B, SCHED_GPIPE, SCHED_SEQPIPE, SCHED_SEQPIPE,
                                      SCHED_ZERO_BUBBLE_V, SCHED_ZERO_BUBBLE_V, SCHED_ZERO_BUBBLE_V};
const field_choices PP_SCHEDULES = {SCHEDULES, SCHEDULE_VALUES, "1f1b, gpipe, seqpipe, zero_bubble_v"};
static const char *const RULES[] = {"hyperparallel", "mindformers", "megatron", "torchtitan", NULL};
static const field_choices RULE = {RULES, NULL, "hyperparallel, mindformers, megatron, torchtitan"};

_Static_assert(sizeof(pp_schedule) == sizeof(int) && sizeof(selective_rule) == sizeof(int),
               "the field tables write enums as ints");

/* The pipeline's fields in a run table (the offset is read settled, apart). */
const field_desc PIPELINE_FIELDS[] = {
    FIELD_ENUM(pipeline_opts, pp_schedule, "pp_schedule", schedule, &PP_SCHEDULES),
    FIELD_I64(pipeline_opts, "seq_split", seq_split, 1, 4096, 1),
    FIELD_BOOL(pipeline_opts, "mtp_in_offset", mtp_in_offset, true),
    FIELD_BOOL(pipeline_opts, "emb_out_in_offset", emb_out_in_offset, false),
    FIELD_I64(pipeline_opts, "local_batch_size", local_batch_size, 0, ND_MAX_BATCH, 0),
    FIELD_BOOL(pipeline_opts, "schedule_per_local_batch", schedule_per_local_batch, false),
    FIELD_BOOL(pipeline_opts, "dp_sync_per_schedule", dp_sync_per_schedule, false),
    FIELD_BOOL(pipeline_opts, "recv_buffers_per_micro_batch", recv_buffers_per_micro_batch, false),
    FIELD_END,
};

/* Recompute's fields in a run table (the per-stage forms and ranges are read settled, apart). */
const field_desc RECOMPUTE_FIELDS[] = {
    FIELD_ENUM(recompute_opts, selective_rule, "selective_rule", rule, &RULE),
    FIELD_BOOL(recompute_opts, "selective_comm_recompute", selective_comm_recompute, false),
    FIELD_BOOL(recompute_opts, "recompute_slice_activation", recompute_slice_activation, false),
    FIELD_END,
};

/* The parallelism's fields in a run table: a runtime profile states what its runtime composes. */
const field_desc PARALLELISM_FIELDS[] = {
    FIELD_BOOL(parallelism_opts, "sp_with_cp", sp_with_cp, false),
    FIELD_BOOL(parallelism_opts, "expert_folding", expert_folding, false),
    FIELD_END,
};

void layout_init(layout_t *l)
{
    memset(l, 0, sizeof *l);
}

void layout_free(layout_t *l)
{
    free(l->chunks);
    free(l->runs);
    free(l->counts);
    free(l->same_as);
    layout_init(l);
}

int64_t layout_layers(const model_t *m) { return model_body_layers(m) + model_mtp_layers(m); }

bool layout_pp_fits(int64_t layers, int64_t pp) { return pp <= layers; }

bool layout_vpp_fits(int64_t layers, int64_t pp, int64_t vpp, pp_schedule schedule)
{
    return vpp <= (pp > 1 ? layers / pp : 1) && !(schedule == SCHED_ZERO_BUBBLE_V && vpp > 2);
}

bool layout_cp_splits(int64_t seq_length, int64_t cp) { return cp <= 1 || seq_length % (2 * cp) == 0; }

bool layout_cp_heads_fit(const model_t *m, cp_algorithm algo, int64_t tp, int64_t cp)
{
    return cp <= 1 || algo != CP_ULYSSES || m->kv_heads % (tp * cp) == 0;
}

bool layout_sp_cp_fits(const parallelism_opts *p, bool sequence_parallel, int64_t cp)
{
    return p->sp_with_cp || !sequence_parallel || cp <= 1;
}

const char *layout_caution(const run_t *r, char *why, size_t n)
{
    if (layout_sp_cp_fits(&r->parallelism, r->sequence_parallel, r->cp))
        return NULL;
    snprintf(why, n, "sequence parallelism beside cp %lld is a layout the search refuses (its CP rule, the "
                     "reference planner's: sequence and context parallelism together are incompatible), so no "
                     "search offers it; it is priced as stated, as Megatron-LM and torchtitan train it",
             (long long)r->cp);
    return why;
}

const char *layout_refusal(const model_t *m, const run_t *r, char *why, size_t n)
{
    int64_t layers = layout_layers(m);
    if (!layout_pp_fits(layers, r->pp))
        snprintf(why, n, "pp %lld is more pipeline stages than the model's %lld layers; "
                         "%lld stages would hold none (the search refuses it too)",
                 (long long)r->pp, (long long)layers, (long long)(r->pp - layers));
    else if (!layout_vpp_fits(layers, r->pp, r->vpp, r->pipeline.schedule))
        snprintf(why, n, "vpp %lld is more chunks than a stage's %lld layers%s (the search refuses "
                         "it too)",
                 (long long)r->vpp, (long long)(r->pp > 1 ? layers / r->pp : 1),
                 r->pipeline.schedule == SCHED_ZERO_BUBBLE_V && r->vpp > 2 ? ", or than DualPipeV's two" : "");
    else if (!layout_cp_splits(r->seq_length, r->cp))
        snprintf(why, n, "cp %lld splits each sequence into 2 x %lld chunks, which do not "
                         "divide the sequence of %lld tokens (the search refuses it too)",
                 (long long)r->cp, (long long)r->cp, (long long)r->seq_length);
    else if (!layout_cp_heads_fit(m, r->cp_algo, r->tp, r->cp))
        snprintf(why, n, "Ulysses context parallelism spreads the model's %lld KV heads over tp %lld x cp %lld ranks, "
                         "which do not divide them (the search refuses it too)",
                 (long long)m->kv_heads, (long long)r->tp, (long long)r->cp);
    else
        return NULL;
    return why;
}

static int fail(layout_t *l, const char *msg)
{
    snprintf(l->error, sizeof l->error, "%s", msg);
    return -1;
}

/* Python's floor division and modulo, which the reference's offsets use. */
static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }
static int64_t floor_mod(int64_t a, int64_t b) { return a - b * floor_div(a, b); }

/* Layers of each (stage, chunk), before the embedding and output slots are
 * taken out. With an offset, as the reference places them (memory-model.md
 * §6 step 2), stage-major, each clipped to what remains:
 *   per-chunk offset o[chunk][stage]:  per + o
 *   per-stage offset o[stage]:         per + o // vpp (+ o % vpp on the last chunk)
 * with per = L // pp // vpp. Without one, balanced: stage s holds
 * L // pp (+1 for the first L % pp stages), spread over its chunks with the
 * remainder on the later chunks. An offset must ask for exactly the layers
 * there are (the reference clips one that asks for more; ndlua refuses it). */
static int place_counts(layout_t *l, const run_t *r, int64_t total)
{
    int64_t pp = r->pp, vpp = r->vpp, per = total / pp / vpp, placed = 0;
    for (int64_t s = 0; s < pp; s++) {
        int64_t stage_total = total / pp + (s < total % pp ? 1 : 0);
        for (int64_t c = 0; c < vpp; c++) {
            int64_t n;
            if (r->pipeline.offset.form == FORM_CHUNKS) {
                n = per + r->pipeline.offset.counts[c * pp + s];
            } else if (r->pipeline.offset.form == FORM_STAGES) {
                int64_t o = r->pipeline.offset.counts[s];
                n = per + floor_div(o, vpp) + (c == vpp - 1 ? floor_mod(o, vpp) : 0);
            } else {
                n = stage_total / vpp + (c >= vpp - stage_total % vpp ? 1 : 0);
            }
            if (n < 0) {
                snprintf(l->error, sizeof l->error,
                         "offset gives stage %lld chunk %lld %lld layers; a chunk holds none or more",
                         (long long)s, (long long)c, (long long)n);
                return -1;
            }
            l->counts[s * vpp + c] = n;
            placed += n;
        }
    }
    if (placed != total) {
        snprintf(l->error, sizeof l->error,
                 "offset places %lld layers, but the stack has %lld (%lld stages x %lld chunks of %lld, plus the "
                 "offsets); the offsets must add up to the %lld layers the even split leaves over",
                 (long long)placed, (long long)total, (long long)pp, (long long)vpp, (long long)per,
                 (long long)(total - per * pp * vpp));
        return -1;
    }
    return 0;
}

static int reserve(layout_t *l, const run_t *r)
{
    int64_t n = r->pp * r->vpp; /* int64: <= 2^17 chunks (lnd_run.c) */
    if (l->pp * l->vpp < n || l->chunks == NULL) {
        free(l->chunks);
        free(l->counts);
        free(l->same_as);
        l->chunks = calloc((size_t)n, sizeof *l->chunks);
        l->counts = calloc((size_t)n, sizeof *l->counts);
        l->same_as = calloc((size_t)n, sizeof *l->same_as);
        if (l->chunks == NULL || l->counts == NULL || l->same_as == NULL)
            return fail(l, "out of memory");
    }
    l->pp = r->pp;
    l->vpp = r->vpp;
    l->n_runs = 0;
    return 0;
}

static int push_run(layout_t *l, const layer_run *run)
{
    if (l->n_runs == l->cap_runs) {
        int cap = l->cap_runs ? 2 * l->cap_runs : 64;
        layer_run *runs = realloc(l->runs, (size_t)cap * sizeof *runs);
        if (runs == NULL)
            return fail(l, "out of memory");
        l->runs = runs;
        l->cap_runs = cap;
    }
    l->runs[l->n_runs++] = *run;
    return 0;
}

typedef struct {
    recompute_mode mode;
    const signed char *switches;
    int64_t until; /* model-order index where the option may change */
} rec_span;

/* The first layers of a chunk a per-stage count recomputes: per chunk as
 * stated, or a stage's count f spread over its chunks as f // vpp, plus one
 * on the first f % vpp chunks (memory-model.md §6 step 2). */
static int64_t first_k(const per_stage *f, const run_t *r, int64_t s, int64_t c)
{
    if (f->form == FORM_CHUNKS)
        return f->counts[c * r->pp + s];
    int64_t k = f->counts[s];
    return r->vpp > 1 ? k / r->vpp + (c < k % r->vpp ? 1 : 0) : k;
}

static rec_span range_at(const run_t *r, int64_t i, int64_t total)
{
    for (int k = 0; k < r->recompute.n_ranges; k++) {
        const recompute_range *g = &r->recompute.ranges[k];
        int64_t end = g->count < 0 ? total : g->first + g->count;
        if (i < g->first)
            return (rec_span){REC_OFF, NULL, g->first};
        if (i < end)
            return (rec_span){g->mode, g->has_ops ? g->ops : NULL, end};
    }
    return (rec_span){REC_OFF, NULL, total};
}

/* The recompute option of model-order layer i in chunk (s, c) holding [first, end). */
static rec_span recompute_at(const run_t *r, int64_t s, int64_t c, int64_t first, int64_t end, int64_t i,
                             int64_t total)
{
    if (r->recompute.n_ranges > 0)
        return range_at(r, i, total);
    const per_stage *f = r->recompute.full.form != FORM_NONE ? &r->recompute.full
                         : r->recompute.selective.form != FORM_NONE ? &r->recompute.selective : NULL;
    if (f == NULL)
        return (rec_span){REC_OFF, NULL, end};
    recompute_mode mode = f == &r->recompute.full ? REC_FULL : REC_SELECTIVE;
    if (f->form == FORM_ALL)
        return (rec_span){mode, NULL, end};
    int64_t k = first_k(f, r, s, c);
    if (i < first + k)
        return (rec_span){mode, NULL, first + k < end ? first + k : end};
    return (rec_span){REC_OFF, NULL, end};
}

/* The group holding model-order layer i, and where that group ends. */
static int group_at(const model_t *m, int64_t i, int64_t *group_end)
{
    int64_t start = 0;
    for (int g = 0; g < m->n_groups; g++) {
        if (i < start + m->groups[g].count) {
            *group_end = start + m->groups[g].count;
            return g;
        }
        start += m->groups[g].count;
    }
    *group_end = start;
    return m->n_groups - 1;
}

/* Splits chunk (s, c) into runs of one kind and one recompute option. MTP
 * layers appended outside the offset recompute as the chunk's last body
 * layer does (the reference appends copies of the last layer's type). */
static int split_chunk(layout_t *l, const model_t *m, const run_t *r, int64_t s, int64_t c, int64_t body,
                       int64_t total)
{
    chunk_layout *ch = layout_chunk(l, s, c);
    ch->first_run = l->n_runs;
    int64_t end = ch->first + ch->count;
    int64_t body_end = !r->pipeline.mtp_in_offset && r->recompute.n_ranges == 0 && end > body ? body : end;
    for (int64_t i = ch->first; i < end;) {
        int64_t group_end;
        int g = group_at(m, i, &group_end);
        rec_span rec;
        if (i < body_end)
            rec = recompute_at(r, s, c, ch->first, body_end, i, total);
        else if (body_end > ch->first)
            rec = recompute_at(r, s, c, ch->first, body_end, body_end - 1, total);
        else
            rec = (rec_span){REC_OFF, NULL, end};
        int64_t stop = group_end < end ? group_end : end;
        if (i < body_end && rec.until < stop)
            stop = rec.until;
        if (i < body_end && body_end < stop)
            stop = body_end;
        layer_run run = {m->groups[g].kind, i, stop - i, m->groups[g].mtp, rec.mode, rec.switches};
        if (push_run(l, &run) != 0)
            return -1;
        i = stop;
    }
    ch->n_runs = l->n_runs - ch->first_run;
    return 0;
}

static int check_ranges(layout_t *l, const run_t *r, int64_t total)
{
    for (int k = 0; k < r->recompute.n_ranges; k++) {
        const recompute_range *g = &r->recompute.ranges[k];
        int64_t end = g->count < 0 ? g->first + 1 : g->first + g->count;
        if (end > total) {
            snprintf(l->error, sizeof l->error,
                     "recompute range %d (first %lld) reaches layer %lld, past the model's %lld layers", k + 1,
                     (long long)g->first, (long long)(end - 1), (long long)total);
            return -1;
        }
    }
    return 0;
}

/* The chunk at model-order position o: chunk-major, and for the V schedule
 * (zero_bubble_v) the odd chunks climb back from the last stage. */
static chunk_layout *chunk_at_order(layout_t *l, const run_t *r, int64_t o)
{
    int64_t c = o / r->pp, i = o % r->pp;
    return layout_chunk(l, r->pipeline.schedule == SCHED_ZERO_BUBBLE_V && c % 2 == 1 ? r->pp - 1 - i : i, c);
}

/* Walks the chunks in model order, giving each its first layer; marks the
 * embedding on the first chunk holding layers and the output on the last. */
static int assign_order(layout_t *l, const run_t *r, int64_t mtp_outside, int64_t total)
{
    int64_t n_chunks = r->pp * r->vpp, cursor = 0;
    chunk_layout *first = NULL, *last = NULL;
    for (int64_t o = 0; o < n_chunks; o++) {
        chunk_layout *ch = chunk_at_order(l, r, o);
        int64_t at = ch - l->chunks;
        memset(ch, 0, sizeof *ch);
        ch->count = l->counts[at];
        if (ch->count > 0 && first == NULL)
            first = ch;
        if (ch->count > 0)
            last = ch;
    }
    if (first == NULL)
        first = last = layout_chunk(l, 0, 0);
    if (r->pipeline.emb_out_in_offset) { /* the embedding and the output take a slot each */
        first->count = first->count > 0 ? first->count - 1 : 0;
        last->count = last->count > 0 ? last->count - 1 : 0;
    }
    first->embedding = true;
    last->output = true;
    last->count += mtp_outside;
    for (int64_t o = 0; o < n_chunks; o++) {
        chunk_layout *ch = chunk_at_order(l, r, o);
        ch->first = cursor;
        cursor += ch->count;
    }
    if (cursor != total)
        return fail(l, "the offset does not place every layer exactly once");
    return 0;
}

static bool same_runs(const layout_t *l, const chunk_layout *a, const chunk_layout *b)
{
    if (a->embedding != b->embedding || a->output != b->output || a->n_runs != b->n_runs)
        return false;
    for (int i = 0; i < a->n_runs; i++) {
        const layer_run *x = &l->runs[a->first_run + i], *y = &l->runs[b->first_run + i];
        if (x->kind != y->kind || x->count != y->count || x->mtp != y->mtp || x->mode != y->mode ||
            x->switches != y->switches)
            return false;
    }
    return true;
}

#define SAME_STAGE_KINDS 8 /* the distinct stages remembered: a miss only costs a repricing */

/* Stages whose chunks hold the same runs (the layers' place in the model
 * aside) are priced alike wherever the stage's index does not enter. Each
 * stage is compared with the first few distinct stages, so the work stays
 * linear in the stages. */
static void find_same_stages(layout_t *l)
{
    int64_t first[SAME_STAGE_KINDS];
    int n_first = 0;
    for (int64_t s = 0; s < l->pp; s++) {
        l->same_as[s] = s;
        for (int k = 0; k < n_first && l->same_as[s] == s; k++) {
            bool same = true;
            for (int64_t c = 0; c < l->vpp && same; c++)
                same = same_runs(l, layout_chunk(l, s, c), layout_chunk(l, first[k], c));
            if (same)
                l->same_as[s] = first[k];
        }
        if (l->same_as[s] == s && n_first < SAME_STAGE_KINDS)
            first[n_first++] = s;
    }
}

int layout_build(layout_t *l, const model_t *m, const run_t *r)
{
    l->error[0] = '\0';
    if (reserve(l, r) != 0)
        return -1;
    int64_t body = model_body_layers(m), mtp = model_mtp_layers(m), total = body + mtp;
    int64_t slots = body + (r->pipeline.mtp_in_offset ? mtp : 0) + (r->pipeline.emb_out_in_offset ? 2 : 0);
    if (check_ranges(l, r, total) != 0 || place_counts(l, r, slots) != 0)
        return -1;
    if (assign_order(l, r, r->pipeline.mtp_in_offset ? 0 : mtp, total) != 0)
        return -1;
    for (int64_t s = 0; s < r->pp; s++)
        for (int64_t c = 0; c < r->vpp; c++)
            if (split_chunk(l, m, r, s, c, body, total) != 0)
                return -1;
    find_same_stages(l);
    return 0;
}
