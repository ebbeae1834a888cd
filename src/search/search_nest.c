/* search_nest.c: the loop nest over strategies, the validity rules, and pricing of every valid candidate.
 *
 * The nest and the rules are the reference planner's (search-ranking-cli
 * §b.3, §b.4), in its order, so that tested and refused counts and the order
 * of ties match:
 *   TP over divisors of N, PP of N/TP, CP of N/TP/PP, DP = N/TP/CP/PP,
 *   MBS of B/PP/DP, MB = B/DP/MBS, EP of DP·TP, VPP 1..min(4, PP, L/PP),
 *   OP of DP, SP false/true, and each recompute mode. */
#include "search_nest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/estimate.h"
#include "core/layout.h"
#include "core/schedule.h"
#include "nd_score.h"
#include "search_sort.h"

/* The loop nest's position: the degrees (SP as 0/1) and the recompute mode. */
typedef struct {
    int64_t degree[DIM_COUNT];
    recompute_mode mode;
} probe;

typedef struct {
    int64_t *v;
    int n, cap;
} values;

static int push_value(values *vs, int64_t x)
{
    if (vs->n == vs->cap) {
        int cap = vs->cap ? 2 * vs->cap : 16;
        int64_t *v = realloc(vs->v, (size_t)cap * sizeof *v);
        if (v == NULL)
            return -1;
        vs->v = v;
        vs->cap = cap;
    }
    vs->v[vs->n++] = x;
    return 0;
}

/* space(dim, n): the divisors of n ascending within [1, bound] when the
 * dimension is searched, else its pinned value. Divisors come in pairs
 * (x, n/x) with x <= sqrt(n): the small ones are found by trial up to
 * sqrt(n), ascending, and their partners follow in reverse order, so the
 * work is O(sqrt(n)) rather than O(n) (a global batch of 2^30 is 32768
 * trials, not 2^30). */
static int space_of(const dim_space *d, int64_t n, values *out)
{
    out->n = 0;
    if (!d->searched)
        return push_value(out, d->pinned);
    if (n < 1)
        return 0;
    int64_t bound = d->bound > 0 ? d->bound : n;
    int small = 0; /* the divisors up to sqrt(n), pushed first */
    for (int64_t x = 1; x <= n / x; x++) {
        if (n % x != 0)
            continue;
        if (x > bound)
            return 0; /* every larger divisor is past the bound too */
        if (push_value(out, x) != 0)
            return -1;
        small++;
    }
    for (int i = small - 1; i >= 0; i--) {
        int64_t x = out->v[i], partner = n / x;
        if (partner == x)
            continue;
        if (partner > bound)
            break;
        if (push_value(out, partner) != 0)
            return -1;
    }
    return 0;
}

static int range_space(const dim_space *d, int64_t top, values *out)
{
    out->n = 0;
    if (!d->searched)
        return push_value(out, d->pinned);
    for (int64_t x = 1; x <= top; x++)
        if (push_value(out, x) != 0)
            return -1;
    return 0;
}

static bool power_of_two(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

static bool allowed(const dim_space *d, int64_t x)
{
    if (d->allowed == NULL)
        return true;
    for (int i = 0; i < d->n_allowed; i++)
        if (d->allowed[i] == x)
            return true;
    return false;
}

/* Layouts depend only on (pp, vpp, recompute mode) within a search: built once each. */
typedef struct {
    int64_t pp, vpp;
    int mode;
    bool used;
    layout_t layout;
} layout_slot;

#define LAYOUT_SLOTS 4096

/* What a candidate's layer prices read are its degrees but VPP (and PP only
 * as one stage or more, fixed within inner_loops): the candidates of one
 * (TP, PP, CP, MBS, EP) that differ in VPP share them. A slot per (OP, SP)
 * holds the derived values of each recompute mode and the layer prices. */
/* The (SP, recompute mode) pairs of a candidate: SP off and on, 3 modes each. */
#define SP_MODES 6

typedef struct {
    derived_t derived[3];
    bool derived_ok[3]; /* a mode's values but the switches hold for every mode */
    kind_price *memo; /* estimate_memo_entries: the layer kinds x 3 modes, then the tables */
    layer_time *times; /* 3 x n_kinds */
} price_slot;

typedef struct {
    const model_t *m;
    const run_t *base;
    const search_space *sp;
    search_result *res;
    estimate_t est;
    bool accumulates;
    int64_t layers;
    layout_slot *layouts; /* an open-addressing table of LAYOUT_SLOTS */
    int n_layouts;
    price_slot *slots;    /* per (OP, SP) of the current EP (inner_loops) */
    kind_price *slot_memo;
    layer_time *slot_times;
    int n_slots, slot;
    run_t run;            /* the candidate priced: the base run, its candidate's fields written over */
    int64_t *in_flight;   /* micro-batches in flight per stage and chunk of the current VPP (pp x vpp) */
    size_t in_flight_cap;
    bool in_flight_ok;    /* in_flight holds the current (PP, VPP, MB)'s */
    const layout_t *vpp_layouts[3]; /* the current (PP, VPP)'s layout per recompute mode (NULL: not looked up) */
    int64_t *live;        /* the stages to price of the current (PP, VPP, MB) per recompute mode: 3 x pp */
    size_t live_cap;
    int64_t n_live[3];    /* -1: not yet listed */
    stage_work *works;    /* the stages' work per (SP, mode) of the current VPP: pp x SP_MODES, kept across OP */
    size_t works_cap;
    pipeline_time pipelines[SP_MODES]; /* their pipeline per (SP, mode), kept across OP */
    timing_memo timing;   /* its layers: the current slot's times */
    double floor_sink;    /* the floor's sums, kept so that they are computed */
} searcher;

/* Slots for n (OP, SP) pairs, their derived values and times forgotten,
 * and every price, or (for the next EP of the same n slots) those that
 * read the expert degrees; -1 when out of memory. */
static int reset_slots(searcher *s, int n, bool every_price)
{
    int kinds = s->m->n_kinds > 0 ? s->m->n_kinds : 1, entries = estimate_memo_entries(s->m);
    if (n > s->n_slots) {
        price_slot *slots = realloc(s->slots, (size_t)n * sizeof *slots);
        if (slots == NULL)
            return -1;
        s->slots = slots;
        kind_price *memo = realloc(s->slot_memo, (size_t)n * (size_t)entries * sizeof *memo);
        if (memo == NULL)
            return -1;
        s->slot_memo = memo;
        layer_time *times = realloc(s->slot_times, (size_t)n * 3 * (size_t)kinds * sizeof *times);
        if (times == NULL)
            return -1;
        s->slot_times = times;
        s->n_slots = n;
    }
    for (int i = 0; i < n; i++) {
        price_slot *sl = &s->slots[i];
        sl->memo = s->slot_memo + (size_t)i * (size_t)entries;
        sl->times = s->slot_times + (size_t)i * 3 * (size_t)kinds;
        memset(sl->derived_ok, 0, sizeof sl->derived_ok);
        if (every_price)
            estimate_forget_prices(sl->memo, s->m);
        else
            estimate_forget_expert_prices(sl->memo, s->m);
        timing_forget_layers(sl->times, s->m);
    }
    return 0;
}

/* Points the estimate at the current slot's derived values and prices for the run's mode. */
static void reuse_slot(searcher *s, const run_t *r, recompute_mode mode)
{
    price_slot *sl = &s->slots[s->slot];
    if (!sl->derived_ok[mode]) {
        int done = 0;
        while (done < 3 && !sl->derived_ok[done])
            done++;
        if (done < 3) { /* another mode's values, this mode's switches */
            sl->derived[mode] = sl->derived[done];
            derive_switches(r, &sl->derived[mode]);
        } else {
            derive(s->m, r, &sl->derived[mode]);
        }
        sl->derived_ok[mode] = true;
    }
    s->est.reuse_derived = &sl->derived[mode];
    s->est.reuse_memo = sl->memo;
    s->timing.layers = sl->times;
}

/* The cached layout of the candidate's run, built on first use; NULL when the
 * run's layout does not fit the stack (error in *failed) or memory runs out. */
static const layout_t *cached_layout(searcher *s, const run_t *r, recompute_mode mode, bool *failed)
{
    *failed = false;
    uint64_t h = (uint64_t)r->pp * 1000003u + (uint64_t)r->vpp * 97u + (uint64_t)mode;
    for (int probe = 0; probe < LAYOUT_SLOTS; probe++) {
        layout_slot *slot = &s->layouts[(h + (uint64_t)probe) % LAYOUT_SLOTS];
        if (slot->used && slot->pp == r->pp && slot->vpp == r->vpp && slot->mode == (int)mode)
            return &slot->layout;
        if (slot->used)
            continue;
        if (s->n_layouts >= LAYOUT_SLOTS / 2) /* a full table: build without caching */
            break;
        layout_init(&slot->layout);
        if (layout_build(&slot->layout, s->m, r) != 0) {
            layout_free(&slot->layout);
            *failed = true;
            return NULL;
        }
        slot->used = true;
        slot->pp = r->pp;
        slot->vpp = r->vpp;
        slot->mode = (int)mode;
        s->n_layouts++;
        return &slot->layout;
    }
    if (layout_build(&s->est.layout, s->m, r) != 0) {
        *failed = true;
        return NULL;
    }
    return &s->est.layout;
}

/* §b.4 rule 1: the degrees themselves, in two parts. The outer degrees
 * (TP, PP, CP, DP, MBS, MB) decide one part alone, once for the whole of
 * inner_loops; a candidate passes the rule when both parts hold. */
static const int OUTER_DIMS[] = {DIM_DP, DIM_TP, DIM_CP, DIM_PP, DIM_MB, DIM_MBS};
static const int INNER_DIMS[] = {DIM_EP, DIM_VPP, DIM_OP, DIM_SP};

static bool dims_in_bounds(const search_space *sp, const int64_t *g, const int *dims, int n)
{
    for (int k = 0; k < n; k++) {
        int i = dims[k];
        const dim_space *d = &sp->dims[i];
        if (g[i] < (i == DIM_SP ? 0 : 1) || (d->searched && d->bound > 0 && g[i] > d->bound))
            return false;
    }
    return true;
}

static bool outer_degrees_valid(const searcher *s, const int64_t *g)
{
    const search_space *sp = s->sp;
    if (sp->dims[DIM_PP].searched && g[DIM_MB] < g[DIM_PP])
        return false;
    if (!(g[DIM_PP] > 1 || g[DIM_MB] == 1 || s->accumulates))
        return false;
    /* a pipeline of more stages than layers lays out no model */
    if (!power_of_two(g[DIM_TP]) || !layout_pp_fits(s->layers, g[DIM_PP]))
        return false;
    if (!dims_in_bounds(sp, g, OUTER_DIMS, (int)(sizeof OUTER_DIMS / sizeof OUTER_DIMS[0])))
        return false;
    return sp->dims[DIM_DP].searched || g[DIM_DP] == sp->dims[DIM_DP].pinned;
}

static bool inner_degrees_valid(const searcher *s, const int64_t *g)
{
    const search_space *sp = s->sp;
    if (!power_of_two(g[DIM_OP]))
        return false;
    /* more chunks than a stage has layers, or DualPipeV past two chunks, lays out no model */
    if (!layout_vpp_fits(s->layers, g[DIM_PP], g[DIM_VPP], s->base->pipeline.schedule))
        return false;
    if (!dims_in_bounds(sp, g, INNER_DIMS, (int)(sizeof INNER_DIMS / sizeof INNER_DIMS[0])))
        return false;
    /* the reference's degree rule for SP and CP both searched: its CP rule (layout_sp_cp_fits), counted here */
    return !(sp->dims[DIM_SP].searched && sp->dims[DIM_CP].searched) ||
           layout_sp_cp_fits(&s->base->parallelism, g[DIM_SP] != 0, g[DIM_CP]);
}

static bool filtered(const search_space *sp, const probe *c)
{
    for (int i = 0; i < DIM_COUNT; i++)
        if (!allowed(&sp->dims[i], c->degree[i]))
            return true;
    return false;
}

/* §b.4 rules 2 and 3: experts. */
static refusal experts_valid(const searcher *s, const probe *c)
{
    const model_t *m = s->m;
    const int64_t *g = c->degree;
    if (m->experts <= 1)
        return g[DIM_EP] == 1 ? REFUSE_COUNT : REFUSE_EP_BOUND;
    int64_t max_ep = g[DIM_DP] * g[DIM_TP] * (s->base->sharding.shard_spans_cp ? g[DIM_CP] : 1);
    if (g[DIM_EP] > m->experts || g[DIM_EP] > max_ep)
        return REFUSE_EP_BOUND;
    bool stated = s->base->etp > 1 || (s->base->etp == 1 && s->base->parallelism.expert_folding);
    int64_t t_exp = stated ? s->base->etp : g[DIM_TP];
    if (m->experts % g[DIM_EP] != 0 || m->expert_width % t_exp != 0)
        return REFUSE_EP_DIVISIBILITY;
    int64_t shard = s->base->sharding.expert_shard;
    if (g[DIM_EP] > 1 && shard > 1 && !s->base->sharding.expert_shard_group &&
        (g[DIM_DP] * g[DIM_CP] * g[DIM_TP] / g[DIM_EP]) % shard != 0)
        return REFUSE_EP_DIVISIBILITY;
    return REFUSE_COUNT;
}

/* §b.5: context parallelism. */
static bool cp_valid(const searcher *s, const probe *c)
{
    const int64_t *g = c->degree;
    int64_t cp = g[DIM_CP], tp = g[DIM_TP];
    if (cp <= 1)
        return true;
    if (!layout_sp_cp_fits(&s->base->parallelism, g[DIM_SP] != 0, cp))
        return false;
    if (!layout_cp_splits(s->base->seq_length, cp) || !layout_cp_heads_fit(s->m, s->base->cp_algo, tp, cp))
        return false;
    return tp * cp * g[DIM_PP] <= s->sp->devices;
}

/* §b.4 rule 5: the candidate makes the global batch exactly. */
static bool batch_valid(const searcher *s, const probe *c)
{
    const int64_t *g = c->degree;
    int64_t gbs = g[DIM_PP] > 1 || s->accumulates ? g[DIM_DP] * g[DIM_MB] * g[DIM_MBS] : g[DIM_DP] * g[DIM_MBS];
    return gbs == s->sp->global_batch;
}

/* The rules in the reference's order, for a candidate whose outer degrees
 * passed their part of rule 1 (inner_loops refuses the others whole). */
static refusal validate(const searcher *s, const probe *c)
{
    if (!inner_degrees_valid(s, c->degree))
        return REFUSE_BOUNDS;
    if (filtered(s->sp, c))
        return REFUSE_FILTERED;
    refusal e = experts_valid(s, c);
    if (e != REFUSE_COUNT)
        return e;
    if (!cp_valid(s, c))
        return REFUSE_CP;
    if (!batch_valid(s, c))
        return REFUSE_BATCH;
    return REFUSE_COUNT;
}

/* The record of a priced candidate, untimed. */
static candidate record_of(const probe *p, double peak, int64_t peak_stage)
{
    candidate c;
    memset(&c, 0, sizeof c);
    for (int i = 0; i < DIM_COUNT; i++)
        c.degree[i] = (int32_t)p->degree[i];
    c.mode = (uint8_t)p->mode;
    c.peak = peak;
    c.peak_stage = (int32_t)peak_stage;
    return c;
}

static int push_candidate(candidate **arr, size_t *n, size_t *cap, const candidate *c)
{
    if (*n == *cap) {
        size_t grown = *cap ? 2 * *cap : 256;
        candidate *a = realloc(*arr, grown * sizeof *a);
        if (a == NULL)
            return -1;
        *arr = a;
        *cap = grown;
    }
    (*arr)[(*n)++] = *c;
    return 0;
}

/* A candidate over the budget is wanted whole only while examples of
 * dropped ones are still kept, or when it may be the lightest dropped one.
 * Once a stage's total passes both the budget and the lightest peak so far,
 * neither can hold: the estimate stops there (the candidate is dropped, and
 * its exact peak, which no report reads, is left unpriced). */
static void set_early_stop(searcher *s)
{
    const search_result *res = s->res;
    s->est.stop_early = res->has_lightest && (int64_t)res->n_drops >= s->sp->keep_dropped;
    double budget = s->sp->budget_bytes, lightest = res->lightest.peak;
    s->est.stop_above = lightest > budget ? lightest : budget;
}

/* The benchmark's floor (make bench): what pricing a candidate cannot do
 * without, a multiply-add a stage and layer kind, kept from being optimised
 * away by its sum. Every candidate counts as priced and dropped. */
static int price_floor(searcher *s, const probe *c)
{
    const int64_t *g = c->degree;
    double sum = 0;
    for (int64_t stage = 0; stage < g[DIM_PP]; stage++)
        for (int k = 0; k < s->m->n_kinds; k++)
            sum += (double)(g[DIM_TP] * g[DIM_CP] + k) * (double)(stage + g[DIM_MB]) / (double)g[DIM_DP];
    s->floor_sink += sum;
    s->res->priced++;
    s->res->dropped++;
    return 0;
}

/* The micro-batches each stage and chunk of r holds, for the candidates
 * of one (PP, VPP, MB): computed on the first of them, with room for its
 * stages to price; -1 when out of memory. */
static int fill_in_flight(searcher *s, const run_t *r)
{
    size_t n = (size_t)(r->pp * r->vpp);
    if (n > s->in_flight_cap) {
        int64_t *grown = realloc(s->in_flight, n * sizeof *grown);
        if (grown == NULL)
            return -1;
        s->in_flight = grown;
        s->in_flight_cap = n;
    }
    for (int64_t st = 0; st < r->pp; st++)
        for (int64_t c = 0; c < r->vpp; c++)
            s->in_flight[st * r->vpp + c] = micro_factor_priced(r, st, c);
    s->in_flight_ok = true;
    if (3 * (size_t)r->pp > s->live_cap) {
        int64_t *live = realloc(s->live, 3 * (size_t)r->pp * sizeof *live);
        if (live == NULL)
            return -1;
        s->live = live;
        s->live_cap = 3 * (size_t)r->pp;
    }
    return 0;
}

/* Forgets what the searcher keeps for one VPP of the inner loops: the
 * in-flight table, the stages to price, the layouts and the stages' work. */
static void start_vpp(searcher *s)
{
    s->in_flight_ok = false;
    for (int i = 0; i < 3; i++)
        s->n_live[i] = -1;
    memset(s->vpp_layouts, 0, sizeof s->vpp_layouts);
    s->timing.works_epoch++;
}

/* Points the estimate at the stages to price of the candidate's layout, listed on first use. */
static void point_live(searcher *s, const run_t *r, const layout_t *lay, recompute_mode mode)
{
    int64_t *live = s->live + (size_t)mode * (size_t)r->pp;
    if (s->n_live[mode] < 0)
        s->n_live[mode] = estimate_live_stages(lay, r, s->in_flight, live);
    s->est.live = live;
    s->est.n_live = s->n_live[mode];
}

/* The stages' work of the candidate's (SP, mode) and their pipeline, kept for the other OPs of
 * the current VPP (timing_memo's works_epoch counts the VPPs); -1 when out of memory. */
static int point_works(searcher *s, const probe *c, size_t pp)
{
    if (SP_MODES * pp > s->works_cap) {
        free(s->works);
        s->works = calloc(SP_MODES * pp, sizeof *s->works); /* every epoch 0: never worked out */
        s->works_cap = s->works != NULL ? SP_MODES * pp : 0;
        if (s->works == NULL)
            return -1;
    }
    size_t which = (c->degree[DIM_SP] != 0 ? 3 : 0) + (size_t)c->mode;
    s->timing.works = s->works + which * pp;
    s->timing.pipeline = &s->pipelines[which];
    return 0;
}

/* Prices one valid candidate: its memory, and when it fits, its time. */
static int price(searcher *s, const probe *c)
{
    search_result *res = s->res;
    if (s->sp->floor)
        return price_floor(s, c);
    const run_t *r = &s->run;
    candidate_fields(c->degree, c->mode, &s->run);
    if (!s->in_flight_ok && fill_in_flight(s, r) != 0)
        return -1;
    s->est.micro_factors = s->in_flight;
    bool failed = false;
    const layout_t *lay = s->vpp_layouts[c->mode];
    if (lay == NULL && (lay = cached_layout(s, r, c->mode, &failed)) == NULL && !failed)
        return -1;
    if (lay != &s->est.layout) /* a layout kept in the cache: the same for the VPP's other candidates */
        s->vpp_layouts[c->mode] = lay;
    set_early_stop(s);
    reuse_slot(s, r, c->mode);
    if (lay != NULL)
        point_live(s, r, lay, c->mode);
    if (lay == NULL || estimate_run_layout(&s->est, s->m, r, lay) != 0) {
        res->refused[REFUSE_LAYOUT]++;
        return 0;
    }
    res->priced++;
    if (s->est.stopped) {
        res->dropped++;
        return 0;
    }
    candidate rec = record_of(c, s->est.peak, s->est.peak_stage);
    if (rec.peak > s->sp->budget_bytes) {
        res->dropped++;
        bool lightest = !res->has_lightest || rec.peak < res->lightest.peak;
        if (lightest) { /* no time: nothing but its memory was priced */
            res->lightest = rec;
            res->has_lightest = true;
        }
        if ((int64_t)res->n_drops < s->sp->keep_dropped)
            return push_candidate(&res->drops, &res->n_drops, &res->cap_drops, &rec);
        return 0;
    }
    price_ctx ctx = {s->m, r, s->est.dv};
    step_time t;
    if (point_works(s, c, (size_t)r->pp) != 0)
        return -1;
    timing_run_memo(&ctx, s->est.lay, &s->sp->hw, &s->timing, &t);
    if (t.step < 0)
        return -1;
    rec.time = (candidate_time){t.forward, t.backward, t.recompute, t.tp, t.cp, t.ep, t.pp, t.dp, t.bubble, t.optimizer,
                                t.step, t.floor, t.floor_held};
    rec.straggler = (int32_t)t.straggler;
    rec.timed = true;
    rec.score = t.step;
    rec.kept = true;
    rec.order = (int32_t)res->fitting;
    res->fitting++;
    return search_keep(res, s->sp, &rec);
}

/* The base run's own recompute as one mode for every layer: a run-wide full
 * or selective recompute carries over; per-stage counts and ranges count
 * the base's stages and layers, which a candidate's pipeline does not keep,
 * so they price as no recompute. */
static recompute_mode own_mode(const run_t *base)
{
    if (base->recompute.n_ranges == 0 && base->recompute.full.form == FORM_ALL)
        return REC_FULL;
    if (base->recompute.n_ranges == 0 && base->recompute.full.form == FORM_NONE && base->recompute.selective.form == FORM_ALL)
        return REC_SELECTIVE;
    return REC_OFF;
}

/* The candidate under each recompute mode. The rules read the degrees
 * alone, so one verdict holds for every mode (and counts once a mode). */
static int consider(searcher *s, probe *c)
{
    int n_modes = s->sp->n_modes > 0 ? s->sp->n_modes : 1;
    s->res->tested += n_modes;
    refusal why = validate(s, c);
    if (why != REFUSE_COUNT) {
        s->res->refused[why] += n_modes;
        return 0;
    }
    for (int i = 0; i < n_modes; i++) {
        c->mode = s->sp->n_modes > 0 ? s->sp->modes[i] : own_mode(s->base);
        if (price(s, c) != 0)
            return -1;
    }
    return 0;
}

/* The inner loops: EP, VPP, OP, SP (and the recompute modes). */
static int inner_loops(searcher *s, probe *c, values *ep, values *vpp, values *op)
{
    const search_space *sp = s->sp;
    int64_t *g = c->degree;
    if (space_of(&sp->dims[DIM_EP], g[DIM_DP] * g[DIM_TP], ep) != 0)
        return -1;
    int64_t vpp_top = g[DIM_PP] < 4 ? g[DIM_PP] : 4;
    if (s->layers / g[DIM_PP] < vpp_top)
        vpp_top = s->layers / g[DIM_PP] > 0 ? s->layers / g[DIM_PP] : 1;
    if (range_space(&sp->dims[DIM_VPP], vpp_top, vpp) != 0 || space_of(&sp->dims[DIM_OP], g[DIM_DP], op) != 0)
        return -1;
    int n_sp = sp->dims[DIM_SP].searched ? 2 : 1;
    if (!outer_degrees_valid(s, g)) { /* every candidate inside fails rule 1 */
        int64_t n = (int64_t)ep->n * vpp->n * op->n * n_sp * (sp->n_modes > 0 ? sp->n_modes : 1);
        s->res->tested += n;
        s->res->refused[REFUSE_BOUNDS] += n;
        return 0;
    }
    for (int a = 0; a < ep->n; a++) {
        g[DIM_EP] = ep->v[a];
        if (reset_slots(s, op->n * n_sp, a == 0) != 0)
            return -1;
        for (int b = 0; b < vpp->n; b++) {
            g[DIM_VPP] = vpp->v[b];
            start_vpp(s);
            for (int o = 0; o < op->n; o++) {
                g[DIM_OP] = op->v[o];
                for (int q = 0; q < n_sp; q++) {
                    g[DIM_SP] = sp->dims[DIM_SP].searched ? q : sp->dims[DIM_SP].pinned;
                    s->slot = o * n_sp + q;
                    if (consider(s, c) != 0)
                        return -1;
                }
            }
        }
    }
    return 0;
}

typedef struct {
    values tp, pp, cp, mbs, ep, vpp, op;
} loop_values;

static void free_loop_values(loop_values *v)
{
    free(v->tp.v);
    free(v->pp.v);
    free(v->cp.v);
    free(v->mbs.v);
    free(v->ep.v);
    free(v->vpp.v);
    free(v->op.v);
}

/* CP, then DP and MBS (MB follows). */
static int cp_loops(searcher *s, probe *c, loop_values *v)
{
    const search_space *sp = s->sp;
    int64_t *g = c->degree, n = sp->devices, b = sp->global_batch;
    if (space_of(&sp->dims[DIM_CP], n / g[DIM_TP] / g[DIM_PP], &v->cp) != 0)
        return -1;
    for (int k = 0; k < v->cp.n; k++) {
        g[DIM_CP] = v->cp.v[k];
        g[DIM_DP] = n / g[DIM_TP] / g[DIM_CP] / g[DIM_PP];
        if (g[DIM_DP] < 1)
            break;
        if (space_of(&sp->dims[DIM_MBS], b / g[DIM_PP] / g[DIM_DP], &v->mbs) != 0)
            return -1;
        for (int i = 0; i < v->mbs.n; i++) {
            g[DIM_MBS] = v->mbs.v[i];
            g[DIM_MB] = b / g[DIM_DP] / g[DIM_MBS];
            if (inner_loops(s, c, &v->ep, &v->vpp, &v->op) != 0)
                return -1;
        }
    }
    return 0;
}

/* The (TP, PP) pairs of the outer loops, in the nest's order, each with the
 * share of the loops done once it is (for progress). */
int search_pairs(const search_space *sp, search_pair **out, size_t *n_out)
{
    values tp = {0}, pp = {0};
    search_pair *pairs = NULL;
    size_t n = 0, cap = 0;
    int64_t devices = sp->devices;
    int rc = space_of(&sp->dims[DIM_TP], devices, &tp);
    for (int i = 0; rc == 0 && i < tp.n; i++) {
        rc = space_of(&sp->dims[DIM_PP], devices / tp.v[i], &pp);
        for (int j = 0; rc == 0 && j < pp.n; j++) {
            if (n == cap) {
                size_t grown = cap ? 2 * cap : 64;
                search_pair *p = realloc(pairs, grown * sizeof *p);
                if (p == NULL) {
                    rc = -1;
                    break;
                }
                pairs = p;
                cap = grown;
            }
            pairs[n++] = (search_pair){tp.v[i], pp.v[j], ((double)i + (double)(j + 1) / pp.n) / tp.n};
        }
    }
    free(tp.v);
    free(pp.v);
    if (rc != 0) {
        free(pairs);
        return -1;
    }
    *out = pairs;
    *n_out = n;
    return 0;
}

static void searcher_free(searcher *s)
{
    free(s->slots);
    free(s->slot_memo);
    free(s->slot_times);
    free(s->in_flight);
    free(s->live);
    free(s->works);
    timing_memo_free(&s->timing);
    estimate_free(&s->est);
    if (s->layouts != NULL)
        for (int i = 0; i < LAYOUT_SLOTS; i++)
            if (s->layouts[i].used)
                layout_free(&s->layouts[i].layout);
    free(s->layouts);
}

static int searcher_init(searcher *s, const model_t *m, const run_t *base, const search_space *sp)
{
    memset(s, 0, sizeof *s);
    s->m = m;
    s->base = base;
    s->sp = sp;
    s->layers = layout_layers(m);
    s->run = *base;
    estimate_init(&s->est);
    s->est.peak_only = true;
    s->layouts = calloc(LAYOUT_SLOTS, sizeof *s->layouts);
    if (s->layouts == NULL)
        return -1;
    derived_t d;
    derive(m, base, &d);
    s->accumulates = d.accumulates_grads;
    return 0;
}

struct search_worker {
    searcher s;
    loop_values v;
};

search_worker *search_worker_new(const model_t *m, const run_t *base, const search_space *sp)
{
    search_worker *w = calloc(1, sizeof *w);
    if (w == NULL)
        return NULL;
    if (searcher_init(&w->s, m, base, sp) != 0) {
        search_worker_free(w);
        return NULL;
    }
    return w;
}

void search_worker_free(search_worker *w)
{
    if (w == NULL)
        return;
    searcher_free(&w->s);
    free_loop_values(&w->v);
    free(w);
}

int search_worker_pair(search_worker *w, const search_pair *pair, search_result *into)
{
    probe c;
    memset(&c, 0, sizeof c);
    c.degree[DIM_TP] = pair->tp;
    c.degree[DIM_PP] = pair->pp;
    w->s.res = into;
    return cp_loops(&w->s, &c, &w->v);
}

static int64_t saturating_add(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

static int64_t saturating_mul(int64_t a, int64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    return a > INT64_MAX / b ? INT64_MAX : a * b;
}

/* The VPP values inner_loops takes for a pipeline degree. */
static int64_t vpp_count(const search_space *sp, int64_t layers, int64_t pp)
{
    if (!sp->dims[DIM_VPP].searched)
        return 1;
    int64_t top = pp < 4 ? pp : 4;
    if (layers / pp < top)
        top = layers / pp > 0 ? layers / pp : 1;
    return top;
}

int64_t search_count(const model_t *m, const search_space *sp)
{
    search_pair *pairs = NULL;
    size_t n_pairs = 0;
    if (search_pairs(sp, &pairs, &n_pairs) != 0)
        return -1;
    loop_values v;
    memset(&v, 0, sizeof v);
    int64_t total = 0, n = sp->devices, b = sp->global_batch;
    int64_t layers = model_body_layers(m) + model_mtp_layers(m);
    int64_t per = saturating_mul(sp->dims[DIM_SP].searched ? 2 : 1, sp->n_modes > 0 ? sp->n_modes : 1);
    int rc = 0;
    for (size_t j = 0; rc == 0 && j < n_pairs; j++) {
        int64_t tp = pairs[j].tp, pp = pairs[j].pp;
        rc = space_of(&sp->dims[DIM_CP], n / tp / pp, &v.cp);
        for (int k = 0; rc == 0 && k < v.cp.n; k++) {
            int64_t dp = n / tp / v.cp.v[k] / pp;
            if (dp < 1)
                break;
            rc = space_of(&sp->dims[DIM_MBS], b / pp / dp, &v.mbs);
            if (rc == 0)
                rc = space_of(&sp->dims[DIM_EP], dp * tp, &v.ep);
            if (rc == 0)
                rc = space_of(&sp->dims[DIM_OP], dp, &v.op);
            int64_t inner = saturating_mul(saturating_mul(v.ep.n, v.op.n), vpp_count(sp, layers, pp));
            total = saturating_add(total, saturating_mul(saturating_mul(v.mbs.n, inner), per));
        }
    }
    free_loop_values(&v);
    free(pairs);
    return rc != 0 ? -1 : total;
}

int search_score_nd(search_worker *w, candidate *cands, size_t n)
{
    searcher *s = &w->s;
    s->est.reuse_derived = NULL; /* each candidate priced afresh, whatever the worker priced before */
    s->est.reuse_memo = NULL;
    s->est.micro_factors = NULL;
    s->est.live = NULL;
    s->est.stop_early = false;
    for (size_t i = 0; i < n; i++) {
        candidate *c = &cands[i];
        if (c->nd_scored)
            continue;
        run_t r;
        search_candidate_run(s->base, c, &r);
        bool failed;
        const layout_t *lay = cached_layout(s, &r, (recompute_mode)c->mode, &failed);
        if (lay == NULL || estimate_run_layout(&s->est, s->m, &r, lay) != 0)
            return -1;
        price_ctx ctx = {s->m, &r, s->est.dv};
        c->nd_score = nd_score(&ctx, s->est.lay, &s->sp->hw);
        if (c->nd_score < 0)
            return -1;
        c->nd_scored = true;
    }
    return 0;
}
