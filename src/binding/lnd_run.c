/* lnd_run.c: the nd.run userdata: a run table (the reference's ExecSpec) read into run_t, with
 * the parts nd.run settles (per-stage forms, recompute ranges, batch, optimizer states) read
 * from the settled table nd.run hands over with it, and its methods. */
#include "lnd_run.h"

#include <stdlib.h>
#include <string.h>

#include "core/derive.h"
#include "core/nd_limits.h"
#include "core/schedule.h"
#include "bridge/luautil.h"
#include "lnd_aux.h"
#include "lnd_model.h"

#define MAX_CHUNKS ((int64_t)1 << 17)

#define RUN_TYPE "nd.run"

typedef struct {
    LND_BOX_HEAD;
    run_t run;
    bool ready;
} run_box;

_Static_assert(sizeof(cp_algorithm) == sizeof(int) && sizeof(tristate) == sizeof(int) &&
                   sizeof(recompute_mode) == sizeof(int),
               "the field table writes enums and tristates as ints");

#define I64(m, lo, hi, d) FIELD_I64(run_t, #m, m, lo, hi, d)
#define PART(T, m, s) FIELD_PART(run_t, T, m, s)

/* The run table's fields in the order they are read: the strategy's, and
 * each component's by the field table of the formulas that read it (their
 * keys stand flat in the run table). The stops fall where a check or a part
 * nd.run settles comes between them. */
static const field_desc RUN_FIELDS[] = {
    I64(dp, 1, ND_MAX_DEVICES, 1), I64(tp, 1, ND_MAX_DEVICES, 1), I64(pp, 1, ND_MAX_DEVICES, 1), I64(vpp, 1, ND_MAX_VPP, 1),
    I64(cp, 1, ND_MAX_DEVICES, 1), I64(ep, 1, ND_MAX_DEVICES, 1), I64(etp, 0, ND_MAX_DEVICES, 0), FIELD_STOP,
    FIELD_BOOL(run_t, "sequence_parallel", sequence_parallel, false), PART(sharding_opts, sharding, SHARDING_FIELDS),
    PART(precision_opts, precision, PRECISION_FIELDS), PART(kernel_opts, kernels, KERNEL_FIELDS),
    PART(loss_opts, loss, LOSS_FIELDS), PART(training_opts, training, TRAINING_FIELDS), FIELD_STOP,
    PART(pipeline_opts, pipeline, PIPELINE_FIELDS), PART(recompute_opts, recompute, RECOMPUTE_FIELDS),
    PART(parallelism_opts, parallelism, PARALLELISM_FIELDS),
    FIELD_ENUM(run_t, cp_algorithm, "cp_algo", cp_algo, &CP_ALGORITHMS), FIELD_STOP,
    I64(micro_batch_size, 1, ND_MAX_BATCH, 1), I64(global_batch_size, 1, ND_MAX_BATCH, 0), FIELD_STOP,
    I64(seq_length, 1, ND_MAX_TOKENS, 4096), I64(visual_seq_length, 1, ND_MAX_TOKENS, 0), FIELD_STOP,
    FIELD_I64(run_t, "device_memory", device_memory_bytes, 1, ND_MAX_DEVICE_MEMORY, ND_DEFAULT_DEVICE_MEMORY),
    PART(allocator_opts, allocator, ALLOCATOR_FIELDS), PART(offload_opts, offload, OFFLOAD_FIELDS),
    /* the runtime's name: nd.run lays its profile's fields in; the core keeps it for reports */
    FIELD_NAME("runtime"),
    /* settled by nd.run (see settled) */
    FIELD_KEY("optimizer"), FIELD_KEY("micro_batch_num"), FIELD_KEY("offset"), FIELD_KEY("full_recompute"),
    FIELD_KEY("selective_recompute"), FIELD_KEY("recompute"), FIELD_END,
};

/* nd.core.run_bounds() -> {field = {lo, hi}}: the range of each number field of a run
 * table, its components' and the settled micro_batch_num among them. */
int lnd_run_bounds(lua_State *L)
{
    lua_newtable(L);
    fields_set_bounds(L, RUN_FIELDS);
    fields_set_bound(L, "micro_batch_num", 1, (double)ND_MAX_BATCH);
    return 1;
}

static void run_box_release(void *p)
{
    run_box *box = p;
    if (box->ready)
        run_release(&box->run);
    box->ready = false;
}

static const lnd_kind RUN_KIND = {RUN_TYPE, sizeof(run_box), run_box_release};

run_t *lnd_check_run(lua_State *L, int idx)
{
    run_box *box = lnd_check_box(L, idx, &RUN_KIND);
    if (!box->ready)
        lnd_argerror(L, idx, "a run that was never built");
    return &box->run;
}

/* The devices and pipeline chunks a run spans, formed in doubles (exact:
 * each factor <= 2^20) and checked before any int64 product is formed. */
static void check_degrees(lua_State *L, const run_t *r)
{
    double devices = (double)r->dp * (double)r->tp * (double)r->pp * (double)r->cp;
    if (devices > 0x1p53) /* past 2^53 the count shows as a float */
        nd_bad_input(L, "dp x tp x pp x cp = %f devices; ndlua plans at most %d", devices, (int)ND_MAX_DEVICES);
    if (devices > (double)ND_MAX_DEVICES)
        nd_bad_input(L, "dp x tp x pp x cp = %I devices; ndlua plans at most %d", (lua_Integer)devices,
                     (int)ND_MAX_DEVICES);
    /* the layout holds one record per chunk */
    double chunks = (double)r->pp * (double)r->vpp;
    if (chunks > (double)MAX_CHUNKS)
        nd_bad_input(L, "pp x vpp = %I pipeline chunks; ndlua plans at most %d (a model holds at most 100000 "
                        "layers)", (lua_Integer)chunks, (int)MAX_CHUNKS);
}

/* The table the parts nd.run settles are read from (lua/nd/run.lua settles them, with
 * their messages, before the core reads the run): the settled table at 2, else the run
 * table at 1 itself, for a caller that states them settled there. */
static int settled(lua_State *L)
{
    return lua_isnil(L, 2) ? 1 : 2;
}

/* The optimizer's states a parameter, where the run states none: settled from its name. */
static void read_optimizer(lua_State *L, run_t *r)
{
    if (r->precision.optimizer_states < 0)
        r->precision.optimizer_states = (int)field_int(L, settled(L), "", "optimizer_states", 1, 2, -1, false);
}

/* The local batch, where a run states one, splits its step into whole pipeline schedules
 * of whole micro-batches under a runtime that runs one a local batch (schedule.c). */
static void check_local_batch(lua_State *L, const run_t *r)
{
    const char *why = schedule_local_batch_refusal(r);
    if (why != NULL)
        nd_bad_input(L, "local_batch_size %I (micro_batch_size %I, %I micro-batches a step): %s",
                     (lua_Integer)r->pipeline.local_batch_size, (lua_Integer)r->micro_batch_size,
                     (lua_Integer)r->micro_batch_num, why);
}

/* The micro-batches a step, and the global batch, settled; the core checks only that the
 * step they make is one it can count (micro_batch_size x dp x micro_batch_num <= ND_MAX_BATCH). */
static void read_batch(lua_State *L, run_t *r)
{
    int b = settled(L);
    r->micro_batch_num = field_int(L, b, "", "micro_batch_num", 1, ND_MAX_BATCH, r->pp, false);
    /* up to 2^68: formed in doubles and bounded before the int64 product */
    double all = (double)r->micro_batch_size * (double)r->dp * (double)r->micro_batch_num;
    if (r->global_batch_size == 0 && all > (double)ND_MAX_BATCH)
        luaL_error(L, "nd.run: a step of more than %d sequences", (int)ND_MAX_BATCH);
    int64_t dflt = r->global_batch_size > 0 ? r->global_batch_size : (int64_t)all;
    r->global_batch_size = field_int(L, b, "", "global_batch_size", 1, ND_MAX_BATCH, dflt, false);
    check_local_batch(L, r);
}

/* A settled per-stage form: true (every layer), pp counts (a stage's) or pp x vpp (chunk-major). */
static void read_counts(lua_State *L, int f, const char *key, const run_t *r, per_stage *form)
{
    int type = lua_getfield(L, f, key);
    form->form = type == LUA_TBOOLEAN && lua_toboolean(L, -1) ? FORM_ALL : FORM_NONE;
    if (type == LUA_TTABLE) {
        int64_t n = (int64_t)lua_rawlen(L, -1);
        if (n != r->pp && n != r->pp * r->vpp)
            luaL_error(L, "nd.run: %s holds %I counts, not pp or pp x vpp", key, (lua_Integer)n);
        form->form = n == r->pp ? FORM_STAGES : FORM_CHUNKS;
        form->counts = calloc((size_t)n, sizeof *form->counts);
        if (form->counts == NULL)
            luaL_error(L, "out of memory");
        for (int64_t i = 0; i < n; i++) {
            lua_Integer v = (lua_rawgeti(L, -1, i + 1), lua_tointeger(L, -1));
            if (v < -ND_MAX_LAYERS || v > ND_MAX_LAYERS)
                luaL_error(L, "nd.run: %s holds a count past %d layers", key, ND_MAX_LAYERS);
            form->counts[i] = (int64_t)v;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

static const field_desc RANGE_FIELDS[] = {
    FIELD_I64(recompute_range, "first", first, 0, ND_MAX_LAYERS, 0),
    FIELD_I64(recompute_range, "count", count, -1, ND_MAX_LAYERS, -1),
    FIELD_ENUM(recompute_range, recompute_mode, "mode", mode, &RECOMPUTE_MODES), FIELD_END,
};

/* Settled ranges: {first, count (-1: open), mode, ops (1 kept, 0 recomputed, in SWITCH_NAMES order)}. */
static void read_ranges(lua_State *L, int v, run_t *r)
{
    size_t n = lua_rawlen(L, v);
    if (n == 0 || n > ND_MAX_LAYERS)
        return;
    r->recompute.ranges = calloc(n, sizeof *r->recompute.ranges);
    if (r->recompute.ranges == NULL)
        luaL_error(L, "out of memory");
    for (int i = 0; i < (int)n; i++) {
        recompute_range *g = &r->recompute.ranges[i];
        lnd_checktype(L, (lua_rawgeti(L, v, i + 1), -1), LUA_TTABLE);
        fields_read(L, -1, "recompute.", RANGE_FIELDS, g);
        memset(g->ops, 1, sizeof g->ops);
        g->has_ops = lua_getfield(L, -1, "ops") == LUA_TTABLE;
        for (int k = 0; g->has_ops && k < SW_COUNT; k++, lua_pop(L, 1))
            g->ops[k] = (signed char)(lua_rawgeti(L, -1, k + 1), lua_tointeger(L, -1) != 0);
        lua_pop(L, 2);
        r->recompute.n_ranges = i + 1;
    }
}

/* The per-stage forms and recompute ranges, settled: {offset, full_recompute, selective_recompute, ranges}. */
static void read_forms(lua_State *L, run_t *r)
{
    int f = settled(L);
    read_counts(L, f, "offset", r, &r->pipeline.offset);
    read_counts(L, f, "full_recompute", r, &r->recompute.full);
    read_counts(L, f, "selective_recompute", r, &r->recompute.selective);
    if (lua_getfield(L, f, "ranges") == LUA_TTABLE)
        read_ranges(L, lua_gettop(L), r);
    lua_pop(L, 1);
}

/* Reads the run table at 1 into r, segment by segment of RUN_FIELDS. */
static void read_run(lua_State *L, run_t *r)
{
    const field_desc *d = fields_read(L, 1, "", RUN_FIELDS, r);
    check_degrees(L, r);
    d = fields_read(L, 1, "", d, r);
    read_optimizer(L, r);
    d = fields_read(L, 1, "", d, r);
    if (r->pipeline.schedule == SCHED_ZERO_BUBBLE_V && r->vpp > 2)
        nd_bad_input(L, "pp_schedule: zero_bubble_v (DualPipeV) runs at most 2 chunks a stage, not vpp = %I",
                     (lua_Integer)r->vpp);
    d = fields_read(L, 1, "", d, r);
    read_batch(L, r);
    d = fields_read(L, 1, "", d, r);
    if (field_present(L, 1, "device_memory") && lua_getfield(L, 1, "device_memory") != LUA_TNUMBER)
        nd_bad_input(L, "device_memory must be a number of bytes (nd.run reads sizes such as \"58GB\")");
    lua_settop(L, 3); /* the table, the settled table and the box, without the value the check pushed */
    fields_read(L, 1, "", d, r);
    read_forms(L, r);
}

/* nd.core.run(table[, settled]): checks a run table and returns an nd.run; settled =
 * {optimizer_states, micro_batch_num, global_batch_size, offset, full_recompute,
 * selective_recompute, ranges} holds the parts nd.run settles (see settled). */
int lnd_run_new(lua_State *L)
{
    lnd_checktype(L, 1, LUA_TTABLE);
    if (!lua_isnoneornil(L, 2))
        lnd_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    fields_refuse_unknown(L, 1, "", "run", RUN_FIELDS);
    run_box *box = lnd_new_box(L, &RUN_KIND, 1);
    box->ready = true;
    read_run(L, &box->run);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, 3, 1);
    return 1;
}

/* The fields a derived run states again over its base's table. */
static const field_desc RESTATED[] = {
    I64(dp, 0, 0, 0), I64(tp, 0, 0, 0), I64(pp, 0, 0, 0), I64(vpp, 0, 0, 0), I64(cp, 0, 0, 0), I64(ep, 0, 0, 0),
    FIELD_BOOL(run_t, "sequence_parallel", sequence_parallel, false), I64(micro_batch_size, 0, 0, 0),
    I64(micro_batch_num, 0, 0, 0), I64(global_batch_size, 0, 0, 0),
    FIELD_BOOL(run_t, "optimizer_parallel", sharding.optimizer_parallel, false), FIELD_END,
};

run_t *lnd_push_derived_run(lua_State *L, int base, const run_t *r)
{
    base = lua_absindex(L, base);
    lnd_check_run(L, base);
    check_degrees(L, r);
    if (r->recompute.n_ranges != 0 || r->pipeline.offset.form != FORM_NONE || r->recompute.full.form > FORM_ALL ||
        r->recompute.selective.form > FORM_ALL)
        luaL_error(L, "a derived run states no offsets, per-stage recompute or ranges");
    /* the table: the base's fields, the changed ones stated again */
    lua_newtable(L);
    int t = lua_gettop(L);
    lua_getiuservalue(L, base, 1);
    for (lua_pushnil(L); lua_next(L, -2) != 0;) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, t);
    }
    lua_pop(L, 1);
    const char *dropped[] = {"offset", "full_recompute", "selective_recompute", "optimizer_shard"};
    for (size_t i = 0; i < sizeof dropped / sizeof *dropped; i++) {
        lua_pushnil(L);
        lua_setfield(L, t, dropped[i]);
    }
    fields_push(L, RESTATED, r);
    if (r->sharding.optimizer_shard > 0) /* 0: unstated */
        field_set_int(L, "optimizer_shard", r->sharding.optimizer_shard);
    /* the local batch as the run prices it (a search's candidate drops it: 0, unstated) */
    check_local_batch(L, r);
    if (r->pipeline.local_batch_size > 0)
        field_set_int(L, "local_batch_size", r->pipeline.local_batch_size);
    else {
        lua_pushnil(L);
        lua_setfield(L, t, "local_batch_size");
    }
    recompute_mode mode = r->recompute.full.form == FORM_ALL        ? REC_FULL
                          : r->recompute.selective.form == FORM_ALL ? REC_SELECTIVE
                                                                    : REC_OFF;
    field_set_string(L, "recompute", RECOMPUTE_NAMES[mode]);
    /* the run: a deep copy of r (it may share the base's pointers) */
    run_box *box = lnd_new_box(L, &RUN_KIND, 1);
    if (run_copy(&box->run, r) != 0)
        luaL_error(L, "out of memory");
    box->ready = true;
    lua_insert(L, t); /* the run below its table */
    lua_setiuservalue(L, t, 1);
    return &box->run;
}

static void push_switches(lua_State *L, const signed char *sw)
{
    lua_createtable(L, 0, SW_COUNT);
    for (int i = 0; i < SW_COUNT; i++) {
        lua_pushinteger(L, sw[i]);
        lua_setfield(L, -2, SWITCH_NAMES[i]);
    }
}

#define D_I64(m) FIELD_I64(derived_t, #m, m, 0, 0, 0)
#define D_INT(m) FIELD_INT(derived_t, #m, m, 0, 0, 0)
#define D_NUM(m) FIELD_NUM(derived_t, #m, m, 0, 0, 0)
#define D_B(m) FIELD_BOOL(derived_t, #m, m, false)

/* What run:derived(model) gives, by the reference's names, in the order it is set. */
static const field_desc DERIVED_FIELDS[] = {
    D_I64(sp), D_I64(t_exp), D_I64(d_exp), D_I64(edp_group), D_I64(expert_dp_ranks), D_B(experts_clamped),
    D_I64(param_cp), D_I64(optimizer_ranks), D_NUM(shard_p_os_non_exp_partial), D_NUM(shard_p_os_non_exp),
    D_NUM(shard_p_os_exp_partial), D_NUM(shard_p_os_exp), D_NUM(shard_grad_non_exp), D_NUM(shard_grad_exp),
    D_NUM(shard_grad_exp_partial), D_NUM(shard_embed), D_NUM(gather_embed), D_I64(shard_recompute_input),
    D_I64(shard_output_activ), D_B(fsdp), D_INT(comm_d_non_exp), D_INT(comm_d_exp), D_B(comm_t), D_B(comm_ep),
    D_B(comm_cp), D_B(keeps_param_casts), FIELD_STOP, /* switches */
    FIELD_BOOL(derived_t, "flash_attention", flash, false), D_NUM(s_fa), D_INT(n_qknorm), D_INT(bytes_p),
    D_INT(bytes_compute), D_INT(bytes_softmax), D_INT(bytes_grad), D_INT(bytes_os), D_INT(bytes_optim),
    D_INT(bytes_optim_table), D_INT(bytes_norm), D_INT(bytes_dropout), D_B(accumulates_grads),
    D_B(shard_activations), D_B(shards_logits), D_NUM(tokens), FIELD_END,
};

/* run:derived(model) -> every quantity derive computes */
static int run_derived(lua_State *L)
{
    run_t *r = lnd_check_run(L, 1);
    model_t *m = lnd_check_model(L, 2);
    derived_t d;
    derive(m, r, &d);
    lua_createtable(L, 0, 48);
    const field_desc *rest = fields_push(L, DERIVED_FIELDS, &d);
    push_switches(L, d.switches);
    lua_setfield(L, -2, "switches");
    fields_push(L, rest, &d);
    return 1;
}

/* run:micro_factor(stage, chunk) -> micro-batches the chunk holds at its stage's peak */
static int run_micro_factor(lua_State *L)
{
    run_t *r = lnd_check_run(L, 1);
    lua_Integer s = lnd_checkinteger(L, 2), c = lnd_optinteger(L, 3, 0);
    lnd_argcheck(L, s >= 0 && s < r->pp, 2, "stage out of range (stages count from 0)");
    lnd_argcheck(L, c >= 0 && c < r->vpp, 3, "chunk out of range (chunks count from 0)");
    lua_pushinteger(L, (lua_Integer)micro_factor(r, s, c));
    return 1;
}

/* run:schedules() -> micro-batches a pipeline schedule runs, schedules a step (schedule.c) */
static int run_schedules(lua_State *L)
{
    run_t *r = lnd_check_run(L, 1);
    lua_pushinteger(L, (lua_Integer)schedule_micro_batches(r));
    lua_pushinteger(L, (lua_Integer)schedule_count(r));
    return 2;
}

static int run_tostring(lua_State *L)
{
    run_t *r = lnd_check_run(L, 1);
    lua_pushfstring(L, "nd.run: dp %I tp %I pp %I vpp %I cp %I ep %I, micro-batch %I x %I, sequence %I",
                    (lua_Integer)r->dp, (lua_Integer)r->tp, (lua_Integer)r->pp, (lua_Integer)r->vpp,
                    (lua_Integer)r->cp, (lua_Integer)r->ep, (lua_Integer)r->micro_batch_size,
                    (lua_Integer)r->micro_batch_num, (lua_Integer)r->seq_length);
    return 1;
}

static const luaL_Reg run_methods[] = {
    {"derived", run_derived},
    {"micro_factor", run_micro_factor},
    {"schedules", run_schedules},
    {NULL, NULL},
};

/* Pushes the run's components: {name = {key, ...}} for each part of RUN_FIELDS, its keys in order. */
static void push_components(lua_State *L)
{
    lua_newtable(L);
    for (const field_desc *d = RUN_FIELDS; d->kind != FD_END; d++) {
        if (d->kind != FD_PART)
            continue;
        lua_newtable(L);
        for (int i = 0; d->sub[i].kind != FD_END; i++)
            lua_pushstring(L, d->sub[i].key), lua_rawseti(L, -2, i + 1);
        lua_setfield(L, -2, d->key);
    }
}

/* Pushes nd.run's metatable, with `ops`: the ops a selective range can drop (SWITCH_NAMES, in order),
 * `components`: the run's components and the keys of each (what a runtime profile fills), and
 * `choices`: the registries of the run's named choices, each stated once in the core (pipeline
 * schedules, CP algorithms, recompute modes; see field_push_choices). */
void lnd_open_run(lua_State *L)
{
    lnd_new_type(L, &RUN_KIND, run_tostring, run_methods);
    lua_createtable(L, SW_COUNT, 0);
    for (int i = 0; i < SW_COUNT; i++)
        lua_pushstring(L, SWITCH_NAMES[i]), lua_rawseti(L, -2, i + 1);
    lua_setfield(L, -2, "ops");
    push_components(L);
    lua_setfield(L, -2, "components");
    lua_createtable(L, 0, 3);
    field_push_choices(L, &PP_SCHEDULES);
    lua_setfield(L, -2, "pp_schedule");
    field_push_choices(L, &CP_ALGORITHMS);
    lua_setfield(L, -2, "cp_algo");
    field_push_choices(L, &RECOMPUTE_MODES);
    lua_setfield(L, -2, "recompute");
    lua_setfield(L, -2, "choices");
}
