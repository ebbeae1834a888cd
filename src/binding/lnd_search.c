/* lnd_search.c: nd.core.search and nd.core.step_time: the search engine and the time model seen from Lua. */
#include "lnd_search.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/derive.h"
#include "core/nd_limits.h"
#include "search/nd_score.h"
#include "search/search.h"
#include "search/search_csv.h"
#include "bridge/file_write.h"
#include "bridge/luautil.h"
#include "core/pipeline_sim.h"
#include "core/schedule.h"
#include "core/timing.h"
#include "lnd_aux.h"
#include "lnd_estimate.h"
#include "lnd_model.h"
#include "lnd_run.h"
#include "lua_fields.h"

#define RESULT_TYPE "nd.search_result"

/* A search result with the space, base run and model it was searched over;
 * made all zero, so that __gc frees whatever part was filled. */
typedef struct {
    LND_BOX_HEAD;
    search_result res;
    search_space space;
    run_t base;
    const model_t *model; /* the searched model, kept alive as the box's user value */
    search_worker *scorer; /* made on the first nd_score asked for */
} result_box;

/* The reference score of the box's fitting candidates c[0..n), computed
 * where the search left it (src/search/search_nest.c prices it only on demand). */
static void score_nd(lua_State *L, result_box *box, candidate *c, size_t n)
{
    if (box->model == NULL || n == 0)
        return;
    if (box->scorer == NULL)
        box->scorer = search_worker_new(box->model, &box->base, &box->space);
    if (box->scorer == NULL || search_score_nd(box->scorer, c, n) != 0)
        luaL_error(L, "out of memory while scoring candidates");
}

static void result_release(void *p)
{
    result_box *box = p;
    const lnd_kind *kind = box->kind;
    search_worker_free(box->scorer);
    search_result_free(&box->res);
    for (int i = 0; i < DIM_COUNT; i++)
        free(box->space.dims[i].allowed);
    run_release(&box->base);
    memset(box, 0, sizeof *box);
    box->kind = kind;
}

static const lnd_kind RESULT_KIND = {RESULT_TYPE, sizeof(result_box), result_release};

#define HW(m, lo, hi, d) FIELD_NUM(hardware_t, #m, m, lo, hi, d)
#define OVERLAP(key) FIELD_NUM(hardware_t, #key, overlap_##key, 0, 1, 0)

/* A GEMM kernel's output tile, rows (m) by columns (n); absent: waves not priced. */
static const field_desc TILE_FIELDS[] = {FIELD_NUM(hardware_t, "m", gemm_tile_m, 0, 1e6, 0),
                                         FIELD_NUM(hardware_t, "n", gemm_tile_n, 0, 1e6, 0), FIELD_END};
/* A flash kernel's rate at short keys; absent: not priced. */
static const field_desc ATTENTION_SHORT_FIELDS[] = {FIELD_NUM(hardware_t, "knee", attention_knee, 0, 1e9, 0),
                                                    FIELD_NUM(hardware_t, "from", attention_from, 0, 1e9, 0),
                                                    FIELD_END};
static const field_desc OVERLAP_FIELDS[] = {OVERLAP(dp), OVERLAP(tp), OVERLAP(cp), OVERLAP(ep), OVERLAP(pp), FIELD_END};
/* A level: the last one (which states no devices) joins every device there is. */
static const field_desc LEVEL_FIELDS[] = {
    FIELD_I64(struct hw_level, "devices", devices, 1, (int64_t)1 << 40, (int64_t)1 << 40),
    FIELD_REQNUM(struct hw_level, "gbps", gbps, 1e-6, 1e9), FIELD_END,
};
/* The profile's fields (lua/nd/hardware.lua checks a profile's shape and states the messages). */
static const field_desc HARDWARE_FIELDS[] = {
    FIELD_REQNUM(hardware_t, "peak_tflops", peak_tflops, 1e-3, 1e9),
    FIELD_REQNUM(hardware_t, "sustained_tflops", sustained_tflops, 1e-3, 1e9), HW(nd_comm_divisor, 0, 1e6, 1),
    HW(memory_gbps, 0, 1e9, 0), HW(attention_tflops, 0, 1e9, 0), HW(sm_count, 0, 1e6, 0),
    FIELD_NESTED("gemm_tile", TILE_FIELDS), FIELD_NESTED("attention_short", ATTENTION_SHORT_FIELDS),
    FIELD_ARRAY(hardware_t, struct hw_level, "levels", levels, n_levels, HW_MAX_LEVELS, LEVEL_FIELDS,
                "must list {devices = n, gbps = bandwidth} from the node outward"),
    FIELD_NESTED("overlap", OVERLAP_FIELDS), FIELD_END,
};
/* A dimension's table; an absent one reads as its defaults: pinned to 1. */
static const field_desc DIM_FIELDS[] = {
    FIELD_BOOL(dim_space, "searched", searched, false), FIELD_I64(dim_space, "pinned", pinned, 0, 1 << 24, 1),
    FIELD_I64(dim_space, "bound", bound, 0, 1 << 24, 0), FIELD_I64S(dim_space, "allowed", allowed, n_allowed),
    FIELD_END,
};
#define DIM(d, ...) FIELD_TABLE(search_space, dim_space, #d, dims[DIM_##d], DIM_FIELDS),
static const field_desc DIMS_FIELDS[] = {SEARCH_DIMS(DIM) FIELD_END};
/* The keys a bounded search keeps its top by: "-" ranks descending. */
static const char *const TOP_KEY_NAMES[] = {"step_time_s", "peak_bytes", "-step_time_s", "-peak_bytes", NULL};
static const int TOP_KEY_VALUES[] = {TOP_STEP, TOP_PEAK, -TOP_STEP, -TOP_PEAK};
static const field_choices TOP_KEYS = {TOP_KEY_NAMES, TOP_KEY_VALUES, "step_time_s, peak_bytes (- descending)"};
static const field_desc SPACE_FIELDS[] = {
    FIELD_REQ(search_space, "devices", devices, 1, ND_MAX_DEVICES),
    FIELD_REQ(search_space, "global_batch", global_batch, 1, ND_MAX_GLOBAL_BATCH),
    FIELD_NUM(search_space, "budget_bytes", budget_bytes, 0, 1e18, 0),
    FIELD_I64(search_space, "keep_dropped", keep_dropped, 0, 1000000, 100),
    FIELD_INT(search_space, "threads", threads, 0, ND_MAX_THREADS, 1), FIELD_BOOL(search_space, "floor", floor, false),
    FIELD_NEED("dims", DIMS_FIELDS, "must describe the dimensions"),
    {FIELD_("hardware", FD_TABLE, FIELD_AT(search_space, hardware_t, hw)), .sub = HARDWARE_FIELDS,
     .need = "must be a hardware profile"},
    FIELD_CHOICES(search_space, recompute_mode, "recompute", modes, n_modes, 3, &RECOMPUTE_MODES),
    FIELD_I64(search_space, "top", top, 0, ND_MAX_GLOBAL_BATCH, 0),
    FIELD_CHOICES(search_space, int, "top_keys", top_keys, n_top_keys, SEARCH_TOP_KEYS, &TOP_KEYS), FIELD_END,
};
/* A candidate's degrees as its table states them, by SEARCH_DIMS and each one's bound (sp
 * and op are by hand). FD_INT holds an int: the int32_t of a degree is one where this compiles. */
#define DEGREE(k, dim, h) {FIELD_(k, FD_INT, FIELD_AT(candidate, int, degree[dim])), .lo = 1, .hi = h, .required = true}
#define DEGREE_DEVICES(k, dim) DEGREE(k, dim, ND_MAX_DEVICES)
#define DEGREE_VPP(k, dim) DEGREE(k, dim, ND_MAX_VPP)
#define DEGREE_BATCH(k, dim) DEGREE(k, dim, ND_MAX_GLOBAL_BATCH)
#define DEGREE_BY_HAND(k, dim) FIELD_KEY(k)
#define DIM_DEGREE(n, k, a, c, l, at, bound, ...) DEGREE_##bound(k, DIM_##n),
static const field_desc DEGREE_FIELDS[] = {SEARCH_DIMS(DIM_DEGREE) FIELD_END};

/* space = {devices, global_batch, budget_bytes, keep_dropped, threads, floor,
 *          dims = {DP = {searched, pinned, bound, allowed}, ...},
 *          hardware = {peak_tflops, sustained_tflops, nd_comm_divisor, memory_gbps,
 *                      levels = {{devices, gbps}...}, overlap = {dp, tp, cp, ep, pp}},
 *          recompute = {mode names...} (absent: the base run's own),
 *          top = n (0: every fitting candidate kept), top_keys = {"step_time_s", "peak_bytes"...}} */
static void read_space(lua_State *L, int t, search_space *sp)
{
    fields_read(L, t, "space.", SPACE_FIELDS, sp);
    if (sp->top > 0 && sp->n_top_keys == 0)
        nd_bad_input(L, "space.top needs top_keys: the order its top is kept by");
}

/* The progress function at index 4 of nd.core.search's frame, called with
 * the share done; a true result stops the search. */
static int call_progress(void *data, double done)
{
    lua_State *L = data;
    lua_pushvalue(L, 4);
    lua_pushnumber(L, done);
    lua_call(L, 1, 1);
    int stop = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return stop;
}

/* Pushes a new result box, with the space of the table at index t read into
 * it (its __gc frees what reading allocated, also when reading raises). */
static result_box *push_box(lua_State *L, int t, int user_values)
{
    lnd_checktype(L, t, LUA_TTABLE);
    result_box *box = lnd_new_box(L, &RESULT_KIND, user_values);
    read_space(L, t, &box->space);
    return box;
}

/* nd.core.search(model, run, space [, progress]) -> a search result */
static int lnd_search(lua_State *L)
{
    model_t *m = lnd_check_model(L, 1);
    run_t *base = lnd_check_run(L, 2);
    lua_settop(L, 4);
    result_box *box = push_box(L, 3, 1);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    box->model = m;
    if (run_copy(&box->base, base) != 0)
        return luaL_error(L, "out of memory");
    if (search_run(m, base, &box->space, &box->res, lua_isfunction(L, 4) ? call_progress : NULL, L) != 0)
        return luaL_error(L, "%s", box->res.error);
    return 1;
}

/* nd.core.search_count(model, space) -> the candidates nd.core.search would
 * test, counted without pricing any (the space's size, checked against a
 * limit before a search starts). */
static int lnd_search_count(lua_State *L)
{
    model_t *m = lnd_check_model(L, 1);
    int64_t n = search_count(m, &push_box(L, 2, 0)->space);
    if (n < 0)
        return luaL_error(L, "out of memory while counting the search space");
    lua_pushinteger(L, (lua_Integer)n);
    return 1;
}

static result_box *check_result(lua_State *L)
{
    return lnd_check_box(L, 1, &RESULT_KIND);
}

#define TIME(key, m) FIELD_NUM(step_time, key, m, 0, 0, 0)

static const field_desc PARTS_FIELDS[] = {
    TIME("forward_s", forward), TIME("backward_s", backward), TIME("recompute_s", recompute), TIME("tp_s", tp),
    TIME("cp_s", cp), TIME("ep_s", ep), TIME("pp_s", pp), TIME("dp_s", dp), TIME("bubble_s", bubble),
    TIME("optimizer_s", optimizer), FIELD_END,
};
/* A step time as a candidate's table and nd.core.step_time state it. */
static const field_desc STEP_FIELDS[] = {
    TIME("step_time_s", step), TIME("mfu", mfu), TIME("tokens_per_s_per_device", tokens_per_s_per_device),
    TIME("model_flops", model_flops), FIELD_I64(step_time, "straggler_stage", straggler, 0, 0, 0),
    FIELD_NESTED("parts", PARTS_FIELDS), FIELD_END,
};

/* Per-stage totals of a candidate, estimated again (stages[i + 1] = bytes). */
static void push_stage_totals(lua_State *L, const model_t *m, const run_t *base, const candidate *c)
{
    run_t r;
    search_candidate_run(base, c, &r);
    estimate_t e;
    estimate_init(&e);
    int rc = estimate_run(&e, m, &r);
    lua_createtable(L, (int)r.pp, 0);
    for (int64_t s = 0; rc == 0 && s < r.pp; s++) {
        field_push_number(L, (double)llround(e.stages[s].total));
        lua_rawseti(L, -2, s + 1);
    }
    estimate_free(&e);
}

static void push_candidate(lua_State *L, const result_box *box, const candidate *c)
{
    lua_createtable(L, 0, 24);
    fields_push(L, DEGREE_FIELDS, c);
    field_set_bool(L, "sp", c->degree[DIM_SP] != 0);
    field_set_int(L, "op", c->degree[DIM_OP]);
    field_set_int(L, "etp", box->base.etp);
    field_set_string(L, "recompute", RECOMPUTE_NAMES[c->mode]);
    field_set_int(L, "peak_bytes", (int64_t)llround(c->peak));
    field_set_int(L, "peak_stage", c->peak_stage);
    field_set_int(L, "overshoot_bytes", (int64_t)llround(c->peak - box->space.budget_bytes));
    field_set_number(L, "nd_score", c->nd_score);
    field_set_number(L, "score", c->score);
    field_set_bool(L, "kept", c->kept);
    step_time t;
    search_candidate_time(&box->res, &box->space, &box->base, c, &t);
    fields_push(L, STEP_FIELDS, &t);
}

static candidate *candidate_at(lua_State *L, result_box *box, int arg)
{
    lua_Integer i = lnd_checkinteger(L, arg);
    lnd_argcheck(L, i >= 1 && (size_t)i <= box->res.n_fit, arg, "no fitting candidate of that index");
    return &box->res.fit[i - 1];
}

/* result:candidate(i [, model]) -> its table; with the model, also its per-stage bytes */
static int result_candidate(lua_State *L)
{
    result_box *box = check_result(L);
    candidate *c = candidate_at(L, box, 2);
    score_nd(L, box, c, 1);
    lua_settop(L, 3);
    push_candidate(L, box, c);
    field_set_int(L, "rank", c - box->res.fit + 1);
    if (!lua_isnoneornil(L, 3)) {
        push_stage_totals(L, lnd_check_model(L, 3), &box->base, c);
        lua_setfield(L, -2, "stage_bytes");
    }
    return 1;
}

/* The least bytes of candidate c's layers under each recompute mode a plan may give them:
 * least[k] the kind's static bytes a layer and its least activation bytes a micro-batch
 * (estimate_kind_least at off, selective and full, each over the run at that mode). */
static double least_over_modes(const model_t *m, const run_t *base, const candidate *c, estimate_t *e,
                               kind_least *least, kind_least *at)
{
    static const recompute_mode MODES[] = {REC_OFF, REC_SELECTIVE, REC_FULL};
    double head = 0;
    for (int i = 0; i < 3; i++) {
        candidate cm = *c;
        cm.mode = (uint8_t)MODES[i];
        run_t r;
        search_candidate_run(base, &cm, &r);
        double h = estimate_kind_least(e, m, &r, MODES[i], at);
        head = i == 0 || h < head ? h : head;
        for (int k = 0; k < m->n_kinds; k++) {
            if (i == 0 || at[k].act < least[k].act)
                least[k].act = at[k].act;
            if (i == 0 || at[k].comm < least[k].comm)
                least[k].comm = at[k].comm;
            if (i == 0 || at[k].work < least[k].work)
                least[k].work = at[k].work;
            least[k].stat = at[k].stat;
        }
    }
    return head;
}

/* Pushes {kinds = {{count, stat, act, comm, work}} (the text layer kinds the layout holds, MTP apart),
 * in_flight = {the fewest micro-batches a chunk of each stage keeps}, reserve, fragmentation,
 * last_layer_overhead, head_working} of candidate c. */
static void push_least(lua_State *L, const model_t *m, const run_t *base, const candidate *c, estimate_t *e,
                       kind_least *least, int64_t *count)
{
    run_t r;
    search_candidate_run(base, c, &r);
    if (layout_build(&e->layout, m, &r) != 0)
        nd_bad_input(L, "%s", e->layout.error); /* does not return */
    double head = least_over_modes(m, base, c, e, least, least + m->n_kinds);
    memset(count, 0, (size_t)m->n_kinds * sizeof *count);
    lua_createtable(L, 0, 4);
    lua_createtable(L, (int)r.pp, 0);
    for (int64_t s = 0; s < r.pp; s++) {
        int64_t fewest = INT64_MAX;
        for (int64_t v = 0; v < r.vpp; v++) {
            const chunk_layout *ch = layout_chunk(&e->layout, s, v);
            for (int i = 0; i < ch->n_runs; i++) {
                const layer_run *run = &e->layout.runs[ch->first_run + i];
                if (!run->mtp)
                    count[run->kind] += run->count;
            }
            int64_t f = micro_factor_priced(&r, s, v);
            fewest = f < fewest ? f : fewest;
        }
        lua_pushinteger(L, (lua_Integer)fewest);
        lua_rawseti(L, -2, s + 1);
    }
    lua_setfield(L, -2, "in_flight");
    lua_createtable(L, 2, 0);
    for (int k = 0, n = 0; k < m->n_kinds; k++) {
        if (count[k] == 0)
            continue;
        lua_createtable(L, 0, 3);
        field_set_int(L, "count", count[k]);
        field_set_number(L, "stat", least[k].stat);
        field_set_number(L, "act", least[k].act);
        field_set_number(L, "comm", least[k].comm);
        field_set_number(L, "work", least[k].work);
        lua_rawseti(L, -2, ++n);
    }
    lua_setfield(L, -2, "kinds");
    field_set_number(L, "reserve", r.allocator.reserve_bytes >= 0 ? (double)r.allocator.reserve_bytes
                                                                   : DEFAULT_RESERVE_BYTES);
    field_set_number(L, "fragmentation", r.allocator.fragmentation);
    /* the backward's overhead of a 1F1B-like stage of one chunk (estimate.c overhead_1f1b): its last
     * layer's working set and buffers, or on the output stage at least the head's working set */
    bool last_layer = r.vpp == 1 && !r.training.frozen && r.pipeline.schedule != SCHED_ZERO_BUBBLE_V &&
                      r.pipeline.schedule != SCHED_GPIPE;
    field_set_bool(L, "last_layer_overhead", last_layer);
    field_set_number(L, "head_working", head);
}

/* result:least_bytes(i, model) -> what a lower bound of the peak of any split of fitting candidate
 * i's layout with any recompute lists reads (nd.balance_search's peak_floor): per text layer kind
 * of its layout the layers, static bytes a layer, least activation bytes a micro-batch, least
 * communication buffers and least backward working set over off, selective and full; per stage
 * the fewest micro-batches its chunks keep; the reserve a stage keeping activations adds, the
 * allocator's fragmentation, whether a stage's backward overhead is its last layer's
 * (last_layer_overhead) and the head's least working set (head_working): push_least. */
static int result_least_bytes(lua_State *L)
{
    result_box *box = check_result(L);
    const candidate *c = candidate_at(L, box, 2);
    const model_t *m = lnd_check_model(L, 3);
    size_t n = (size_t)m->n_kinds;
    /* scratch the collector frees, as the estimate's: push_least may raise */
    kind_least *least = lua_newuserdatauv(L, 2 * n * sizeof *least, 0);
    int64_t *count = lua_newuserdatauv(L, n * sizeof *count, 0);
    estimate_t *e = lnd_push_scratch(L);
    push_least(L, m, &box->base, c, e, least, count);
    return 1;
}

/* result:bound(i) -> floor, step, peak, pp, pipelined, held of fitting candidate i, no table made
 * (search.lua --balance reads every candidate's). No split of its layout's layers with any recompute
 * steps below floor = max(pipelined, held) (seconds), nor below max(pipelined + y, held) where the
 * stages' seconds summed grow by what raises timing.c's pipeline_floor_seconds y seconds
 * (step_time's floor and floor_held). step is its even split's step (seconds), peak its even
 * split's peak (bytes). */
static int result_bound(lua_State *L)
{
    result_box *box = check_result(L);
    const candidate *c = candidate_at(L, box, 2);
    const candidate_time *t = &c->time;
    lua_pushnumber(L, t->floor > t->floor_held ? t->floor : t->floor_held);
    lua_pushnumber(L, t->step);
    lua_pushnumber(L, c->peak);
    lua_pushinteger(L, (lua_Integer)c->degree[DIM_PP]);
    lua_pushnumber(L, t->floor);
    lua_pushnumber(L, t->floor_held);
    return 6;
}

static int result_size(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_result(L)->res.n_fit);
    return 1;
}

static const field_desc COUNT_FIELDS[] = {
    FIELD_I64(search_result, "tested", tested, 0, 0, 0), FIELD_I64(search_result, "priced", priced, 0, 0, 0),
    FIELD_I64(search_result, "fitting", fitting, 0, 0, 0), FIELD_I64(search_result, "dropped", dropped, 0, 0, 0),
    FIELD_NUM(search_result, "elapsed_s", elapsed_s, 0, 0, 0), FIELD_END,
};

static int result_counts(lua_State *L)
{
    const search_result *r = &check_result(L)->res;
    lua_createtable(L, 0, 7);
    fields_push(L, COUNT_FIELDS, r);
    lua_createtable(L, 0, REFUSE_COUNT);
    int64_t refused = 0;
    for (int i = 0; i < REFUSE_COUNT; i++) {
        if (r->refused[i] > 0)
            field_set_int(L, REFUSAL_NAMES[i], r->refused[i]);
        refused += r->refused[i];
    }
    lua_setfield(L, -2, "refused");
    field_set_int(L, "refused_total", refused);
    return 1;
}

/* result:sort{key, ...}: stable, kept candidates first ("-mfu" sorts descending) */
static int result_sort(lua_State *L)
{
    result_box *box = check_result(L);
    lnd_checktype(L, 2, LUA_TTABLE);
    int n = (int)lua_rawlen(L, 2);
    const char **keys = lua_newuserdatauv(L, ((size_t)n + 1) * sizeof *keys, 0);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 2, i + 1);
        keys[i] = lua_tostring(L, -1);
        if (keys[i] == NULL)
            return lnd_argerror(L, 2, "sort keys are names");
        lua_pop(L, 1); /* the string stays alive in the table */
        if (strstr(keys[i], "nd_score") != NULL)
            score_nd(L, box, box->res.fit, box->res.n_fit);
    }
    int rc = search_sort(&box->res, &box->space, &box->base, keys, n);
    if (rc == -1)
        return luaL_error(L, "sort: unknown key (keys: step_time_s, peak_bytes, nd_score, score, mfu, "
                             "tokens_per_s_per_device, each optionally prefixed with -)");
    if (rc != 0)
        return luaL_error(L, "out of memory");
    return 0;
}

/* result:set_score(i, score [, kept]) */
static int result_set_score(lua_State *L)
{
    candidate *c = candidate_at(L, check_result(L), 2);
    c->score = lnd_checknumber(L, 3);
    c->kept = lua_isnoneornil(L, 4) ? true : lua_toboolean(L, 4);
    return 0;
}

/* result:dropped() -> the kept examples of candidates over the budget, with their overshoot */
static int result_dropped(lua_State *L)
{
    result_box *box = check_result(L);
    lua_createtable(L, (int)box->res.n_drops, 0);
    for (size_t i = 0; i < box->res.n_drops; i++) {
        push_candidate(L, box, &box->res.drops[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* result:lightest() -> the dropped candidate with the lowest peak, or nil */
static int result_lightest(lua_State *L)
{
    result_box *box = check_result(L);
    if (box->res.has_lightest)
        push_candidate(L, box, &box->res.lightest);
    return box->res.has_lightest ? 1 : 0;
}

/* The chunks of a CSV being written: the header, then the lines of
 * CSV_CHUNK_LINES candidates at a time, so the whole file is never held. */
#define CSV_CHUNK_LINES 2048

typedef struct {
    const result_box *box;
    bool spans_cp;
    const char *header;
    size_t header_len, done, rows; /* rows: the lines written, the first of the fitting */
    csv_text text;
} csv_source;

static int next_csv_chunk(void *data, const char **chunk, size_t *n)
{
    csv_source *s = data;
    s->text.len = 0;
    if (s->header != NULL) {
        *chunk = s->header, *n = s->header_len;
        s->header = NULL;
        return 0;
    }
    const search_result *res = &s->box->res;
    size_t to = s->done + CSV_CHUNK_LINES < s->rows ? s->done + CSV_CHUNK_LINES : s->rows;
    if (search_csv_lines(res, &s->box->space, &s->box->base, s->spans_cp, s->done, to, &s->text) != 0) {
        errno = ENOMEM;
        return -1;
    }
    s->done = to;
    *chunk = s->text.text, *n = s->text.len;
    return 0;
}

/* result:write_csv(path, header, spans_cp [, rows]) -> true, or nil and "STEP: strerror":
 * the header line (its "\n" included) and every fitting candidate's line (or
 * the first `rows` of them), in the result's order, made in C
 * (search/search_csv.c) and written as nd.core.write_file writes (a
 * temporary file renamed over path). */
static int result_write_csv(lua_State *L)
{
    result_box *box = check_result(L);
    const char *path = lnd_checkstring(L, 2);
    size_t header_len;
    const char *header = lnd_checklstring(L, 3, &header_len);
    size_t rows = box->res.n_fit;
    if (!lua_isnoneornil(L, 5)) {
        lua_Integer limit = lnd_checkinteger(L, 5);
        lnd_argcheck(L, limit >= 0, 5, "a count of rows from 0");
        if ((lua_Unsigned)limit < rows)
            rows = (size_t)limit;
    }
    score_nd(L, box, box->res.fit, rows);
    csv_source s = {box, lua_toboolean(L, 4), header, header_len, 0, rows, {NULL, 0, 0}};
    write_source src = {next_csv_chunk, &s};
    const char *step = "cannot write";
    int rc = nd_write_source(path, &src, &step);
    int e = errno;
    csv_text_free(&s.text);
    if (rc != 0)
        return nd_push_failure(L, e, "%s", step);
    lua_pushboolean(L, 1);
    return 1;
}

/* The arguments (model, run, hardware) of the time model's functions: reads
 * the hardware into *hw, lays the run out in a scratch estimate on the stack
 * and fills *c; raises a bad-input error when the run does not lay out. */
static estimate_t *check_priced_run(lua_State *L, hardware_t *hw, price_ctx *c)
{
    model_t *m = lnd_check_model(L, 1);
    run_t *r = lnd_check_run(L, 2);
    lnd_checktype(L, 3, LUA_TTABLE);
    *hw = (hardware_t){0};
    fields_read(L, 3, "hardware.", HARDWARE_FIELDS, hw);
    estimate_t *e = lnd_push_scratch(L);
    if (estimate_run(e, m, r) != 0)
        nd_bad_input(L, "%s", e->error); /* does not return */
    *c = (price_ctx){m, r, e->dv};
    return e;
}

/* nd.core.step_time(model, run, hardware) -> the time model of one run */
static int lnd_step_time(lua_State *L)
{
    hardware_t hw;
    price_ctx c;
    estimate_t *e = check_priced_run(L, &hw, &c);
    step_time t;
    timing_run(&c, &e->layout, &hw, &t);
    double score = nd_score(&c, &e->layout, &hw);
    lua_createtable(L, 0, 8);
    fields_push(L, STEP_FIELDS, &t);
    field_set_number(L, "nd_score", score);
    return 1;
}

/* nd.core.stage_seconds(model, run, hardware) -> {seconds a micro-batch of each stage},
 * {their forward parts}, the step's seconds (the pipeline balancer's prices), per stage and
 * chunk {f, r, b} (the seconds the interleaved order's timeline is priced from), and the
 * seconds that order's span adds to the closed form (0 where it adds none) */
static int lnd_stage_seconds(lua_State *L)
{
    hardware_t hw;
    price_ctx c;
    estimate_t *e = check_priced_run(L, &hw, &c);
    const run_t *r = c.r;
    double *x = lua_newuserdatauv(L, 2 * (size_t)r->pp * sizeof *x, 0);
    timing_stage_seconds(&c, &e->layout, &hw, x, x + r->pp);
    step_time t;
    timing_run(&c, &e->layout, &hw, &t);
    int64_t v = e->layout.vpp;
    pipe_cell *cell = lua_newuserdatauv(L, (size_t)(r->pp * v) * sizeof *cell, 0);
    timing_chunk_seconds(&c, &e->layout, &hw, x, cell);
    /* the cells stay on the stack (alive) under the five values returned */
    for (int i = 0; i < 2; i++) {
        lua_createtable(L, (int)r->pp, 0);
        for (int64_t s = 0; s < r->pp; s++) {
            lua_pushnumber(L, x[i * r->pp + s]);
            lua_rawseti(L, -2, s + 1);
        }
    }
    lua_pushnumber(L, t.step);
    lua_createtable(L, (int)r->pp, 0);
    for (int64_t s = 0; s < r->pp; s++) {
        lua_createtable(L, (int)v, 0);
        for (int64_t k = 0; k < v; k++) {
            lua_createtable(L, 0, 3);
            field_set_number(L, "f", cell[s * v + k].f);
            field_set_number(L, "r", cell[s * v + k].r);
            field_set_number(L, "b", cell[s * v + k].b);
            lua_rawseti(L, -2, k + 1);
        }
        lua_rawseti(L, -2, s + 1);
    }
    lua_pushnumber(L, t.order_stall);
    return 5;
}

/* nd.core.stage_seconds_with_offset(model, run, offset, hardware) -> {seconds a micro-batch of
 * each stage}, {their forward parts}: nd.core.stage_seconds's first two of the run with its
 * offset replaced (lnd_offset_run, nd.core.allocated_with_offset's form), without building a
 * new run or pricing the step: the balancer's probe of one layer moved. */
static int lnd_stage_seconds_with_offset(lua_State *L)
{
    model_t *m = lnd_check_model(L, 1);
    run_t r;
    lnd_offset_run(L, "nd.core.stage_seconds_with_offset", m, 2, 3, &r);
    lnd_checktype(L, 4, LUA_TTABLE);
    hardware_t hw = {0};
    fields_read(L, 4, "hardware.", HARDWARE_FIELDS, &hw);
    estimate_t *e = lnd_push_scratch(L);
    if (estimate_run(e, m, &r) != 0)
        return nd_bad_input(L, "%s", e->error);
    price_ctx c = {m, &r, e->dv};
    double *x = lua_newuserdatauv(L, 2 * (size_t)r.pp * sizeof *x, 0);
    timing_stage_seconds(&c, &e->layout, &hw, x, x + r.pp);
    for (int i = 0; i < 2; i++) {
        lua_createtable(L, (int)r.pp, 0);
        for (int64_t s = 0; s < r.pp; s++) {
            lua_pushnumber(L, x[i * r.pp + s]);
            lua_rawseti(L, -2, s + 1);
        }
    }
    return 2;
}

/* nd.core.rerun_seconds(model, run, hardware) -> {selective = s, full = s}: the least seconds a
 * micro-batch that one recomputed layer adds to its stage (timing_rerun_seconds), over the model's
 * layer kinds, at each recompute mode */
static int lnd_rerun_seconds(lua_State *L)
{
    hardware_t hw;
    price_ctx c;
    check_priced_run(L, &hw, &c);
    lua_createtable(L, 0, 2);
    const recompute_mode modes[] = {REC_SELECTIVE, REC_FULL};
    const char *names[] = {"selective", "full"};
    for (int i = 0; i < 2; i++) {
        double least = INFINITY;
        for (int k = 0; k < c.m->n_kinds; k++) {
            double x = timing_rerun_seconds(&c, &hw, k, modes[i]);
            if (x < least)
                least = x;
        }
        field_set_number(L, names[i], least);
    }
    return 1;
}

/* nd.core.layer_traffic(model, run, kind [, weights]) -> bytes one rank moves:
 * {tp, cp, ep, etp} for one micro-batch of one layer of the kind, forward and
 * backward, and dp for a step over `weights` parameters (default: that layer's) */
static int lnd_layer_traffic(lua_State *L)
{
    derived_t d;
    const layer_kind *k;
    price_ctx c = lnd_check_layer(L, &d, &k);
    layer_traffic t = layer_traffic_bytes(&c, k);
    double weights = lnd_optnumber(L, 4, layer_rank_weights(&c, k));
    lua_createtable(L, 0, 5);
    field_set_number(L, "tp", t.tp);
    field_set_number(L, "cp", t.cp);
    field_set_number(L, "ep", t.ep);
    field_set_number(L, "etp", t.etp);
    field_set_number(L, "dp", dp_traffic_bytes(&c, weights));
    return 1;
}

/* nd.core.pipeline_step(run, {stage seconds...}) -> step seconds, bubble seconds */
static int lnd_pipeline_step(lua_State *L)
{
    run_t *r = lnd_check_run(L, 1);
    lnd_checktype(L, 2, LUA_TTABLE);
    int64_t n = (int64_t)lua_rawlen(L, 2);
    lnd_argcheck(L, n == r->pp, 2, "one time per pipeline stage");
    double *x = lua_newuserdatauv(L, (size_t)n * sizeof *x, 0);
    for (int64_t i = 0; i < n; i++) {
        lua_rawgeti(L, 2, i + 1);
        x[i] = lnd_checknumber(L, -1);
        lua_pop(L, 1);
    }
    double bubble;
    lua_pushnumber(L, pipeline_step(r, x, n, &bubble));
    lua_pushnumber(L, bubble);
    return 2;
}

/* The order a name asks nd.core.pipeline_timeline for. */
static pipe_order check_order(lua_State *L, int arg)
{
    const char *name = lnd_checkstring(L, arg);
    if (strcmp(name, "interleaved") == 0)
        return PIPE_ORDER_INTERLEAVED;
    if (strcmp(name, "interleaved-less-memory") == 0)
        return PIPE_ORDER_LESS_MEMORY;
    lnd_argerror(L, arg, "interleaved or interleaved-less-memory");
    return PIPE_ORDER_INTERLEAVED;
}

/* One stage's operations in its order, each {kind = "F" | "B", chunk, mb, start} (1-based). */
static void push_stage_ops(lua_State *L, pipe_order o, int64_t S, int64_t v, int64_t m, int64_t s,
                           const double *start)
{
    int64_t ops = 2 * m * v;
    lua_createtable(L, (int)(ops < INT32_MAX ? ops : 0), 0);
    for (int64_t k = 0; k < ops; k++) {
        int backward;
        int64_t chunk, mb;
        pipeline_sim_op(o, S, v, m, s, k, &backward, &chunk, &mb);
        lua_createtable(L, 0, 4);
        field_set_string(L, "kind", backward ? "B" : "F");
        field_set_int(L, "chunk", chunk + 1);
        field_set_int(L, "mb", mb + 1);
        field_set_number(L, "start", start[s * ops + k]);
        lua_rawseti(L, -2, k + 1);
    }
}

/* nd.core.pipeline_timeline(order, S, I, m, dur [, span_only]) -> span, per-stage operations | nil, why:
 * src/core/pipeline_sim.c's timeline; dur[s][v] = {f = , r = , b = } seconds (1-based);
 * span_only: the span alone, as the time model takes it (its periodic shortcut) */
static int lnd_pipeline_timeline(lua_State *L)
{
    pipe_order o = check_order(L, 1);
    int64_t S = lnd_checkinteger(L, 2), v = lnd_checkinteger(L, 3), m = lnd_checkinteger(L, 4);
    lnd_checktype(L, 5, LUA_TTABLE);
    bool span_only = lua_toboolean(L, 6);
    const char *why = pipeline_sim_refusal(o, S, v, m);
    size_t bytes = pipeline_sim_work_bytes(S, v, m);
    if (why == NULL && (uint64_t)S > SIZE_MAX / sizeof(pipe_cell) / (uint64_t)v)
        why = "the pipeline is too large to simulate";
    if (why != NULL) {
        lua_pushnil(L);
        lua_pushstring(L, why);
        return 2;
    }
    pipe_cell *cell = lua_newuserdatauv(L, (size_t)(S * v) * sizeof *cell, 0);
    for (int64_t s = 0; s < S; s++) {
        lnd_argcheck(L, lua_rawgeti(L, 5, s + 1) == LUA_TTABLE, 5, "a table of chunks for every stage");
        for (int64_t c = 0; c < v; c++) {
            lnd_argcheck(L, lua_rawgeti(L, -1, c + 1) == LUA_TTABLE, 5, "{f, r, b} for every stage and chunk");
            double t[3];
            for (int i = 0; i < 3; i++) {
                lua_getfield(L, -1, (const char *[]){"f", "r", "b"}[i]);
                lnd_argcheck(L, lua_isnumber(L, -1), 5, "numbers f, r and b for every stage and chunk");
                t[i] = lua_tonumber(L, -1);
                lua_pop(L, 1);
            }
            cell[s * v + c] = (pipe_cell){t[0], t[1], t[2]};
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    void *work = lua_newuserdatauv(L, bytes, 0);
    if (span_only) { /* the span alone, by the periodic shortcut */
        double span;
        if (pipeline_sim(o, S, v, m, cell, work, bytes, NULL, &span) != 0) {
            lua_pushnil(L);
            lua_pushstring(L, "the order waits on itself (a deadlock): no timeline");
            return 2;
        }
        lua_pushnumber(L, span);
        return 1;
    }
    /* the starts: 2·S·v·m doubles, fewer bytes than the workspace's */
    double *start = lua_newuserdatauv(L, (size_t)(2 * S * v * m) * sizeof *start, 0), span;
    if (pipeline_sim(o, S, v, m, cell, work, bytes, start, &span) != 0) {
        lua_pushnil(L);
        lua_pushstring(L, "the order waits on itself (a deadlock): no timeline");
        return 2;
    }
    lua_pushnumber(L, span);
    lua_createtable(L, (int)(S < INT32_MAX ? S : 0), 0);
    for (int64_t s = 0; s < S; s++) {
        push_stage_ops(L, o, S, v, m, s, start);
        lua_rawseti(L, -2, s + 1);
    }
    return 2;
}

static const luaL_Reg result_methods[] = {
    {"candidate", result_candidate}, {"size", result_size},           {"counts", result_counts},
    {"sort", result_sort},           {"set_score", result_set_score}, {"dropped", result_dropped},
    {"lightest", result_lightest},   {"write_csv", result_write_csv}, {"bound", result_bound},
    {"least_bytes", result_least_bytes},
    {NULL, NULL},
};

/* Pushes nd.core.search_dims: the search dimensions (SEARCH_DIMS), in the core's order, each
 * {name, key, alias, config_key, listed, config_at, column, width, form, chart_line, yaml_key,
 * legacy_key} (alias, config_key, yaml_key and legacy_key absent when none; form "count" or
 * "switch"). */
static void push_dims(lua_State *L)
{
    lua_createtable(L, DIM_COUNT, 0);
    for (int i = 0; i < DIM_COUNT; i++) {
        const dim_desc *d = &SEARCH_DIM_DESCS[i];
        lua_createtable(L, 0, 12);
        field_set_string(L, "name", d->name);
        field_set_string(L, "key", d->key);
        if (d->alias != NULL)
            field_set_string(L, "alias", d->alias);
        if (d->config_key != NULL)
            field_set_string(L, "config_key", d->config_key);
        field_set_int(L, "listed", d->listed);
        field_set_int(L, "config_at", d->config_at);
        field_set_int(L, "column", d->column);
        field_set_int(L, "width", d->width);
        field_set_string(L, "form", d->form == SHOWN_AS_SWITCH ? "switch" : "count");
        field_set_int(L, "chart_line", d->chart_line);
        if (d->yaml_key != NULL)
            field_set_string(L, "yaml_key", d->yaml_key);
        if (d->legacy_key != NULL)
            field_set_string(L, "legacy_key", d->legacy_key);
        lua_rawseti(L, -2, i + 1);
    }
}

/* Pushes nd.core.search_columns: the reports' degree columns in their order (search_columns),
 * each {key, dim} with dim the dimension's entry of search_dims (at -1), absent for the run's
 * ETP (key "etp"). */
static void push_columns(lua_State *L)
{
    int order[SEARCH_COLUMNS];
    search_columns(order);
    int dims = lua_absindex(L, -1);
    lua_createtable(L, SEARCH_COLUMNS, 0);
    for (int i = 0; i < SEARCH_COLUMNS; i++) {
        lua_createtable(L, 0, 2);
        if (order[i] == DIM_COUNT) {
            field_set_string(L, "key", "etp");
        } else {
            field_set_string(L, "key", SEARCH_DIM_DESCS[order[i]].key);
            lua_rawgeti(L, dims, order[i] + 1);
            lua_setfield(L, -2, "dim");
        }
        lua_rawseti(L, -2, i + 1);
    }
}

void lnd_open_search(lua_State *L)
{
    lnd_new_metatable(L, &RESULT_KIND);
    luaL_newlib(L, result_methods);
    lnd_name_methods(L, RESULT_TYPE);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    field_push_names(L, &TOP_KEYS);
    lua_setfield(L, -2, "top_keys");
    push_dims(L);
    push_columns(L);
    lua_setfield(L, -3, "search_columns");
    lua_setfield(L, -2, "search_dims");
}

/* nd.core.candidate_run(run, candidate) -> the run a search prices for the
 * candidate (search_candidate_run over the run), as a new nd.run. The
 * candidate is a table of nd.search's: its degrees, sp (a boolean),
 * op_priced (else op: the shard priced, which derive settles) and
 * recompute (a mode's name). */
static int lnd_candidate_run(lua_State *L)
{
    const run_t *base = lnd_check_run(L, 1);
    lnd_checktype(L, 2, LUA_TTABLE);
    candidate c = {0};
    fields_read(L, 2, "candidate.", DEGREE_FIELDS, &c);
    c.degree[DIM_SP] = field_bool(L, 2, "candidate.", "sp", false) ? 1 : 0;
    const char *op = field_present(L, 2, "op_priced") ? "op_priced" : "op";
    c.degree[DIM_OP] = (int32_t)field_int(L, 2, "candidate.", op, 0, ND_MAX_DEVICES, 0, true);
    /* the batch in doubles (exact: < 2^53) before search_candidate_run forms it in int64 */
    double batch = (double)c.degree[DIM_DP] * (double)c.degree[DIM_MB] * (double)c.degree[DIM_MBS];
    if (batch > (double)ND_MAX_GLOBAL_BATCH)
        nd_bad_input(L, "candidate: dp x mb x mbs = %f sequences; a search takes at most %I", batch,
                     (lua_Integer)ND_MAX_GLOBAL_BATCH);
    lua_getfield(L, 2, "recompute");
    int mode;
    if (!field_choice_at(L, -1, &RECOMPUTE_MODES, &mode))
        nd_bad_input(L, "candidate.recompute must be off, selective or full, got %s",
                     lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1));
    c.mode = (uint8_t)mode;
    run_t r;
    search_candidate_run(base, &c, &r);
    lnd_push_derived_run(L, 1, &r);
    return 1;
}

/* nd.core.run_at_mode(run, mode) -> the run with no offset and every layer at one recompute
 * mode (off, selective or full), as run:with{offset = nd.null, recompute = mode} settles it,
 * derived in C (a copy of the run's fields, the pipeline balanced afresh and the recompute one
 * mode, as a search's candidate): the balancer's even split of each mode. */
static int lnd_run_at_mode(lua_State *L)
{
    const run_t *base = lnd_check_run(L, 1);
    int mode;
    if (!field_choice_at(L, 2, &RECOMPUTE_MODES, &mode))
        nd_bad_input(L, "nd.core.run_at_mode: mode (argument 2) must be off, selective or full, got %s",
                     lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : luaL_typename(L, 2));
    run_t r = *base;
    r.pipeline.offset = (per_stage){FORM_NONE, NULL};
    r.recompute.n_ranges = 0;
    r.recompute.ranges = NULL;
    r.recompute.full = (per_stage){mode == REC_FULL ? FORM_ALL : FORM_NONE, NULL};
    r.recompute.selective = (per_stage){mode == REC_SELECTIVE ? FORM_ALL : FORM_NONE, NULL};
    lnd_push_derived_run(L, 1, &r);
    return 1;
}

const luaL_Reg lnd_search_functions[] = {
    {"candidate_run", lnd_candidate_run}, {"search", lnd_search},               {"search_count", lnd_search_count},
    {"step_time", lnd_step_time},         {"layer_traffic", lnd_layer_traffic}, {"pipeline_step", lnd_pipeline_step},
    {"stage_seconds", lnd_stage_seconds}, {"rerun_seconds", lnd_rerun_seconds},
    {"stage_seconds_with_offset", lnd_stage_seconds_with_offset}, {"run_at_mode", lnd_run_at_mode},
    {"pipeline_timeline", lnd_pipeline_timeline}, {NULL, NULL},
};
