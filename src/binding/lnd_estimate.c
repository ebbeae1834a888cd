/* lnd_estimate.c: nd.estimate, nd.layout, nd.activation_split and the benchmark timers: the
 * memory model seen from Lua. */
#include "lnd_estimate.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "core/activations.h"
#include "core/derive.h"
#include "core/layout.h"
#include "bridge/luautil.h"
#include "core/timing.h"
#include "lnd_aux.h"
#include "lnd_model.h"
#include "lnd_run.h"
#include "lua_fields.h"
#include "core/model_params.h"
#include "core/nd_limits.h"

static const char ESTIMATE_TYPE[] = "ndlua.estimate";

/* Bytes are computed as doubles and rounded once, to the nearest byte, when
 * they are reported; a stage's total is the sum of its rounded parts. A
 * part past 2^59 bytes (512 PiB) is refused rather than rounded: llround
 * past 2^63 has no value, and eight parts of at most 2^59 sum in an int64. */
#define MAX_PART_BYTES 0x1p59

static int64_t bytes(lua_State *L, double d)
{
    if (!(fabs(d) <= MAX_PART_BYTES))
        nd_bad_input(L, "the estimate comes to %f bytes in one part, past the 2^59 bytes (512 PiB) ndlua "
                        "counts; the model or the run is too large to price", d);
    return (int64_t)llround(d);
}

price_ctx lnd_check_layer(lua_State *L, derived_t *d, const layer_kind **k)
{
    model_t *m = lnd_check_model(L, 1);
    run_t *r = lnd_check_run(L, 2);
    *k = lnd_check_kind(L, m, 3);
    derive(m, r, d);
    return (price_ctx){m, r, d};
}

typedef struct {
    LND_BOX_HEAD;
    estimate_t e;
} estimate_box;

static void estimate_release(void *p)
{
    estimate_free(&((estimate_box *)p)->e);
}

static const lnd_kind ESTIMATE_KIND = {ESTIMATE_TYPE, sizeof(estimate_box), estimate_release};

/* A scratch estimate kept alive on the stack (freed by __gc on error). */
estimate_t *lnd_push_scratch(lua_State *L)
{
    estimate_box *box = lnd_new_box(L, &ESTIMATE_KIND, 0);
    estimate_init(&box->e);
    return &box->e;
}

#define ROW_I64(m) FIELD_I64(estimate_row, #m, m, 0, 0, 0)
#define ROW_B(m) FIELD_BOOL(estimate_row, #m, m, false)
#define CHUNK_I64(S, m) FIELD_I64(S, #m, m, 0, 0, 0)
#define SPLIT(m) FIELD_NUM(act_split, #m, m, 0, 0, 0)

static const field_desc ROW_FIELDS[] = {
    ROW_I64(chunk), FIELD_STR(estimate_row, "kind", kind), ROW_I64(count), ROW_B(mtp), ROW_B(vision), ROW_B(census),
    FIELD_STOP, ROW_I64(in_flight), FIELD_END,
};
static const field_desc CHUNK_FIELDS[] = {
    CHUNK_I64(chunk_layout, first), CHUNK_I64(chunk_layout, count),
    FIELD_BOOL(chunk_layout, "embedding", embedding, false), FIELD_BOOL(chunk_layout, "output", output, false),
    FIELD_END,
};
static const field_desc RUN_FIELDS[] = {
    CHUNK_I64(layer_run, first), CHUNK_I64(layer_run, count), FIELD_BOOL(layer_run, "mtp", mtp, false), FIELD_END,
};
static const field_desc SPLIT_FIELDS[] = {
    SPLIT(shared), SPLIT(tp), SPLIT(expert), FIELD_STOP, SPLIT(layer), SPLIT(layer_tp), FIELD_END,
};

static void push_row(lua_State *L, const estimate_row *row)
{
    lua_createtable(L, 0, 12);
    const field_desc *d = fields_push(L, ROW_FIELDS, row);
    field_set_string(L, "recompute", row->type == ROW_LAYERS ? RECOMPUTE_NAMES[row->mode] : "off");
    field_set_int(L, "static_bytes_per_layer", bytes(L, static_total(&row->static_per_layer)));
    field_set_int(L, "activation_bytes_per_layer", bytes(L, row->activation_per_layer));
    field_set_int(L, "comm_bytes_per_layer", bytes(L, row->comm_per_layer));
    fields_push(L, d, row);
}

/* A stage's parts: the allocated ones (the pipeline's receive buffers,
 * shown where a runtime keeps them, last), then fragmentation, the
 * gradients' pool and the reserve. */
enum { ALLOCATED_PARTS = 8, STAGE_PARTS_N = 11 };

/* A stage's parts, each rounded to bytes. */
static void stage_parts(lua_State *L, const stage_estimate *st, int64_t parts[STAGE_PARTS_N])
{
    /* reserved over allocated, rounded once, then split: the gradients' pool and fragmentation */
    int64_t over = bytes(L, st->reserved - st->allocated), pool = bytes(L, st->grad_pool);
    int64_t p[STAGE_PARTS_N] = {bytes(L, st->stat.params),     bytes(L, st->stat.grads),
                                bytes(L, st->stat.optimizer),  bytes(L, st->stat.main_params),
                                bytes(L, st->activations),     bytes(L, st->comm),
                                bytes(L, st->backward_overhead), bytes(L, st->recv_buffers),
                                over - pool,                   pool,
                                bytes(L, st->reserve)};
    memcpy(parts, p, sizeof p);
}

static void push_stage(lua_State *L, const estimate_t *e, int64_t s, int64_t sums[3])
{
    const stage_estimate *st = &e->stages[s];
    int64_t parts[STAGE_PARTS_N];
    stage_parts(L, st, parts);
    /* sets sums to the stage's rounded total, allocated and reserved bytes */
    static const char *const names[STAGE_PARTS_N] = {
        "params", "grads",        "optimizer",     "main_params", "activations", "comm",
        "backward_overhead", "recv_buffers", "fragmentation", "grad_pool",   "reserve"};
    lua_createtable(L, 0, 17);
    field_set_int(L, "stage", s);
    int64_t total = 0;
    for (int i = 0; i < STAGE_PARTS_N; i++) {
        if ((i == 7 || i == 8 || i == 9) && parts[i] == 0)
            continue; /* receive buffers, the allocator's fragmentation and pools: shown where a runtime states them */
        field_set_int(L, names[i], parts[i]);
        total += parts[i];
    }
    sums[0] = total;
    sums[1] = total - parts[10] - parts[9] - parts[8];
    sums[2] = total - parts[10];
    field_set_int(L, "total", sums[0]);
    field_set_int(L, "allocated", sums[1]);
    field_set_int(L, "reserved", sums[2]);
    if (st->host > 0) {
        double host[5] = {st->host_stat.params, st->host_stat.grads, st->host_stat.optimizer,
                          st->host_stat.main_params, st->host_activations};
        lua_createtable(L, 0, 6);
        int64_t sum = 0;
        for (int i = 0; i < 5; i++) { /* the first five of the device's parts, by their names */
            field_set_int(L, names[i], bytes(L, host[i]));
            sum += bytes(L, host[i]);
        }
        field_set_int(L, "total", sum);
        lua_setfield(L, -2, "host");
    }
    lua_createtable(L, st->n_rows, 0);
    for (int i = 0; i < st->n_rows; i++) {
        push_row(L, &e->rows[st->first_row + i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "rows");
}

static void push_estimate(lua_State *L, const estimate_t *e, const run_t *r)
{
    lua_createtable(L, 0, 8);
    lua_createtable(L, (int)e->pp, 0);
    int64_t peak[3] = {-1, 0, 0}, peak_stage = 0; /* the peak stage's total, allocated and reserved */
    for (int64_t s = 0; s < e->pp; s++) {
        int64_t sums[3];
        push_stage(L, e, s, sums);
        lua_rawseti(L, -2, s + 1);
        if (sums[0] > peak[0]) {
            memcpy(peak, sums, sizeof peak);
            peak_stage = s;
        }
    }
    lua_setfield(L, -2, "stages");
    field_set_int(L, "peak_bytes", peak[0]);
    field_set_int(L, "peak_stage", peak_stage);
    field_set_int(L, "allocated_bytes", peak[1]);
    field_set_int(L, "reserved_bytes", peak[2]);
    field_set_int(L, "capacity_bytes", r->device_memory_bytes);
    field_set_bool(L, "fits", peak[0] <= r->device_memory_bytes);
    field_set_bool(L, "census_used", e->census_used);
    if (e->op_sac_fallback) /* nd.estimate (lua/nd/api.lua) words it as a note */
        field_set_bool(L, "op_sac_fallback", true);
    field_set_bool(L, "experts_clamped", e->dv->experts_clamped);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The most repetitions a benchmark call runs: 10 million estimates take
 * about 20 s (2 us each); 2^63 would never return. */
#define ND_MAX_TIMED 10000000

/* nd.core.time_estimate(model, run, n) and nd.core.time_params(model, n), for benchmarks: the
 * seconds n estimates (or parameter counts) took in C, and their mean peak bytes (or parameters).
 * n is a whole number from 1 to ND_MAX_TIMED, else a bad-input error names the function and range. */
static int timed(lua_State *L, bool estimates)
{
    model_t *m = lnd_check_model(L, 1);
    run_t *r = estimates ? lnd_check_run(L, 2) : NULL;
    int arg = estimates ? 3 : 2;
    lua_Number x = lnd_checknumber(L, arg);
    if (!(x >= 1 && x <= ND_MAX_TIMED) || x != (lua_Number)(lua_Integer)x)
        nd_bad_input(L, "nd.time_%s: n (argument %d) must be a whole number of %s from 1 to %d, got %s",
                     estimates ? "estimate" : "params", arg, estimates ? "estimates" : "counts", ND_MAX_TIMED,
                     lua_tostring(L, arg));
    estimate_t *e = lnd_push_scratch(L);
    double sum = 0, start = now_seconds();
    for (lua_Integer i = 0; i < (lua_Integer)x; i++) {
        if (estimates && estimate_run(e, m, r) != 0)
            return nd_bad_input(L, "%s", e->error);
        sum += estimates ? e->peak : model_count_params(m).total;
    }
    lua_pushnumber(L, now_seconds() - start);
    lua_pushnumber(L, sum / x);
    return 2;
}

int lnd_time_estimate(lua_State *L) { return timed(L, true); }
int lnd_time_params(lua_State *L) { return timed(L, false); }

/* nd.estimate(model, run) */
int lnd_estimate(lua_State *L)
{
    model_t *m = lnd_check_model(L, 1);
    run_t *r = lnd_check_run(L, 2);
    char why[320];
    if (layout_refusal(m, r, why, sizeof why) != NULL)
        return nd_bad_input(L, "%s", why);
    estimate_t *e = lnd_push_scratch(L);
    if (estimate_run(e, m, r) != 0)
        return nd_bad_input(L, "%s", e->error);
    push_estimate(L, e, r);
    if (layout_caution(r, why, sizeof why) != NULL) /* nd.estimate (lua/nd/api.lua) words it as a note */
        field_set_string(L, "layout_caution", why);
    return 1;
}

void lnd_offset_run(lua_State *L, const char *fn, const model_t *m, int base, int arg, run_t *out)
{
    const run_t *r = lnd_check_run(L, base);
    lnd_checktype(L, arg, LUA_TTABLE);
    if (r->pipeline.offset.form != FORM_NONE)
        nd_bad_input(L, "%s: the run (argument %d) states an offset already", fn, base);
    int64_t n = r->pp * r->vpp;
    if ((int64_t)lua_rawlen(L, arg) != n)
        nd_bad_input(L, "%s: offset (argument %d) must hold pp x vpp = %I counts", fn, arg, (lua_Integer)n);
    int64_t *counts = lua_newuserdatauv(L, (size_t)n * sizeof *counts, 0);
    for (int64_t i = 0; i < n; i++) {
        lua_Integer v = (lua_rawgeti(L, arg, i + 1), lua_tointeger(L, -1));
        if (v < -ND_MAX_LAYERS || v > ND_MAX_LAYERS)
            nd_bad_input(L, "%s: offset holds a count past %d layers", fn, ND_MAX_LAYERS);
        counts[i] = (int64_t)v;
        lua_pop(L, 1);
    }
    *out = *r; /* shares the base's pointers; only the offset is its own */
    out->pipeline.offset.form = n == r->pp ? FORM_STAGES : FORM_CHUNKS;
    out->pipeline.offset.counts = counts;
    char why[320];
    if (layout_refusal(m, out, why, sizeof why) != NULL)
        nd_bad_input(L, "%s", why);
}

/* nd.core.allocated_with_offset(model, run, offset) -> {each stage's allocated bytes}: the
 * estimate's stages[s].allocated (the same rounded parts) of the run with its offset replaced
 * (lnd_offset_run), without building the estimate's table or a new run: the balancer's probe
 * of one layer moved (lua/nd/balance_run.lua). */
int lnd_allocated_with_offset(lua_State *L)
{
    model_t *m = lnd_check_model(L, 1);
    run_t r;
    lnd_offset_run(L, "nd.core.allocated_with_offset", m, 2, 3, &r);
    estimate_t *e = lnd_push_scratch(L);
    if (estimate_run(e, m, &r) != 0)
        return nd_bad_input(L, "%s", e->error);
    lua_createtable(L, (int)e->pp, 0);
    for (int64_t s = 0; s < e->pp; s++) {
        int64_t parts[STAGE_PARTS_N], allocated = 0;
        stage_parts(L, &e->stages[s], parts);
        for (int i = 0; i < ALLOCATED_PARTS; i++)
            allocated += parts[i];
        lua_pushinteger(L, allocated);
        lua_rawseti(L, -2, s + 1);
    }
    return 1;
}

static void push_chunk(lua_State *L, const layout_t *l, const chunk_layout *ch, const model_t *m)
{
    lua_createtable(L, 0, 5);
    fields_push(L, CHUNK_FIELDS, ch);
    lua_createtable(L, ch->n_runs, 0);
    for (int i = 0; i < ch->n_runs; i++) {
        const layer_run *run = &l->runs[ch->first_run + i];
        lua_createtable(L, 0, 5);
        field_set_string(L, "kind", m->kinds[run->kind].name);
        fields_push(L, RUN_FIELDS, run);
        field_set_string(L, "recompute", RECOMPUTE_NAMES[run->mode]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "runs");
}

/* nd.layout(model, run) -> stages[s + 1].chunks[c + 1] = {first, count, embedding, output, runs} */
int lnd_layout(lua_State *L)
{
    model_t *m = lnd_check_model(L, 1);
    run_t *r = lnd_check_run(L, 2);
    estimate_t *e = lnd_push_scratch(L);
    if (layout_build(&e->layout, m, r) != 0)
        return nd_bad_input(L, "%s", e->layout.error);
    lua_createtable(L, (int)r->pp, 0);
    for (int64_t s = 0; s < r->pp; s++) {
        lua_createtable(L, 0, 2);
        field_set_int(L, "stage", s);
        lua_createtable(L, (int)r->vpp, 0);
        for (int64_t c = 0; c < r->vpp; c++) {
            push_chunk(L, &e->layout, layout_chunk(&e->layout, s, c), m);
            lua_rawseti(L, -2, c + 1);
        }
        lua_setfield(L, -2, "chunks");
        lua_rawseti(L, -2, s + 1);
    }
    return 1;
}

static void push_split(lua_State *L, const act_split *a, double per_token)
{
    lua_createtable(L, 0, 4);
    const field_desc *d = fields_push(L, SPLIT_FIELDS, a);
    field_set_number(L, "per_token", per_token);
    fields_push(L, d, a);
}

/* nd.core.activation_split(model, run, kind, recompute) -> the formula's bytes
 * per token of one layer, split as parallelism divides them:
 *   {saved = {shared, tp, expert, per_token}, selective = {...}}
 * `shared` is what TP does not divide (a census's `saved`), tp + expert what
 * it does (`saved_tp`); per_token is after the run's division. */
int lnd_activation_split(lua_State *L)
{
    derived_t d;
    const layer_kind *k;
    price_ctx c = lnd_check_layer(L, &d, &k);
    double seq = (double)c.r->seq_length;
    act_split plain = act_kind_split(&c, k, NULL, seq);
    act_split sel = act_kind_split(&c, k, HYPERPARALLEL_SWITCHES, seq);
    lua_createtable(L, 0, 3);
    push_split(L, &plain, act_per_token(&c, &plain));
    lua_setfield(L, -2, "saved");
    push_split(L, &sel, act_per_token(&c, &sel));
    lua_setfield(L, -2, "selective");
    act_split out = act_output_kept(&c);
    push_split(L, &out, out.shared / (double)d.sp + out.tp / act_output_tp_divisor(&c));
    lua_setfield(L, -2, "output");
    return 1;
}
