/* lnd_run.c: the nd.run userdata: a run table (the reference's ExecSpec) read into run_t. */
#include "lnd_run.h"

#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lua_fields.h"
#include "luautil.h"

#define MAX_DEGREE ((int64_t)1 << 20)
#define MAX_CHUNKS ((int64_t)1 << 17)
#define MAX_BATCH ((int64_t)1 << 24)
#define MAX_TOKENS ((int64_t)1 << 31)
#define MAX_BYTES ((int64_t)1 << 50)

static const char *const SCHEDULES[] = {"1f1b", "interleaved", "gpipe", "seqpipe", "seqsmartvpp",
                                        "zero_bubble_v", "zbv", "dualpipev", NULL};
static const int SCHEDULE_VALUES[] = {SCHED_1F1B, SCHED_1F1B, SCHED_GPIPE, SCHED_SEQPIPE, SCHED_SEQPIPE,
                                      SCHED_ZERO_BUBBLE_V, SCHED_ZERO_BUBBLE_V, SCHED_ZERO_BUBBLE_V};
static const field_choices SCHEDULE = {SCHEDULES, SCHEDULE_VALUES, "1f1b, gpipe, seqpipe, zero_bubble_v"};
static const char *const RULES[] = {"hyperparallel", "mindformers", "megatron", "torchtitan", NULL};
static const int RULE_VALUES[] = {RULE_HYPERPARALLEL, RULE_MINDFORMERS, RULE_MEGATRON, RULE_TORCHTITAN};
static const field_choices RULE = {RULES, RULE_VALUES, "hyperparallel, mindformers, megatron, torchtitan"};
static const char *const CP_ALGOS[] = {"colossalai_cp", "ring", "hybrid_cp", "hybird_cp", "ulysses_cp", "ulysses",
                                       NULL};
static const int CP_ALGO_VALUES[] = {CP_RING, CP_RING, CP_RING, CP_RING, CP_ULYSSES, CP_ULYSSES};
static const field_choices CP_ALGO = {CP_ALGOS, CP_ALGO_VALUES, "colossalai_cp (ring), hybrid_cp, ulysses_cp"};

#define I64(m, lo, hi, d) FIELD_I64(run_t, #m, m, lo, hi, d)
#define WIDTH(m, d) FIELD_INT(run_t, #m, m, (d) < 0 ? 0 : 1, 16, d)
#define B(m, d) FIELD_BOOL(run_t, #m, m, d)
#define T(m) FIELD_TRI(run_t, #m, m)

/* The run table's fields in the order they are read; the stops fall where a
 * check or a field read by hand comes between them. */
static const field_desc RUN_FIELDS[] = {
    I64(dp, 1, MAX_DEGREE, 1), I64(tp, 1, MAX_DEGREE, 1), I64(pp, 1, MAX_DEGREE, 1), I64(vpp, 1, 64, 1),
    I64(cp, 1, MAX_DEGREE, 1), I64(ep, 1, MAX_DEGREE, 1), I64(etp, 0, MAX_DEGREE, 0), FIELD_STOP,
    B(sequence_parallel, false), T(shard_activations), T(loss_parallel), T(grad_accumulation), T(param_casts),
    T(flash_attention), T(param_shard), T(tie_embeddings), T(fused_norm), T(fused_swiglu), T(loss_upcast),
    T(loss_inplace_grad), B(offload_optimizer, false), B(inplace_dp_buffers, false), T(keep_gathered_params),
    B(offload_params, false), B(optimizer_parallel, false), B(grad_shard, false), B(grad_shard_as_params, false),
    B(deferred_grad_accumulation, false), B(overlapped_grad_reduce, false), B(reshard_params, true),
    B(expert_shard_group, false), B(mtp_in_offset, true), B(emb_out_in_offset, false),
    B(recompute_slice_activation, false), B(grad_clip, false), B(grouped_gemm, true), B(vocab_emb_dp, true),
    B(emb_dp_sharded, true), B(shard_mtp_param, true), B(frozen, false), B(shard_spans_cp, false),
    B(freeze_vision, false), B(swap_optimizer, false), B(selective_comm_recompute, false),
    WIDTH(param_bytes, 2), WIDTH(compute_bytes, 2), WIDTH(softmax_bytes, 4), WIDTH(grad_bytes, -1),
    WIDTH(optimizer_state_bytes, -1), WIDTH(main_param_bytes, -1), WIDTH(norm_bytes, -1),
    WIDTH(dropout_bytes, -1), WIDTH(optimizer_states, -1), FIELD_STOP,
    FIELD_ENUM(run_t, pp_schedule, "pp_schedule", schedule, &SCHEDULE),
    FIELD_ENUM(run_t, selective_rule, "selective_rule", rule, &RULE),
    FIELD_ENUM(run_t, cp_algorithm, "cp_algo", cp_algo, &CP_ALGO), FIELD_STOP,
    I64(seq_split, 1, 4096, 1), I64(micro_batch_size, 1, MAX_BATCH, 1), I64(global_batch_size, 1, MAX_BATCH, 0),
    FIELD_STOP,
    I64(optimizer_shard, 1, MAX_DEGREE, 0), I64(expert_shard, 1, MAX_DEGREE, 0),
    FIELD_NUM(run_t, "capacity_factor", capacity_factor, 1e-6, 1e6, 1.0), I64(seq_length, 1, MAX_TOKENS, 4096),
    I64(visual_seq_length, 1, MAX_TOKENS, 0), FIELD_STOP,
    FIELD_I64(run_t, "device_memory", device_memory_bytes, 1, MAX_BYTES, (int64_t)64 << 30),
    I64(reserve_bytes, 0, MAX_BYTES, -1), FIELD_NUM(run_t, "fragmentation", fragmentation, 0.0, 10.0, 0.0),
    FIELD_NUM(run_t, "offload_activations", offload_activations, 0.0, 1.0, 0.0),
    /* the runtime's name: nd.run lays its profile's fields in; the core keeps it for reports */
    FIELD_NAME("runtime"),
    /* read by hand */
    FIELD_KEY("optimizer"), FIELD_KEY("micro_batch_num"), FIELD_KEY("offset"), FIELD_KEY("full_recompute"),
    FIELD_KEY("selective_recompute"), FIELD_KEY("recompute"), FIELD_END,
};

static int run_gc(lua_State *L)
{
    run_box *box = luaL_checkudata(L, 1, RUN_TYPE);
    if (box->ready)
        run_release(&box->run);
    box->ready = false;
    return 0;
}

run_t *lnd_check_run(lua_State *L, int idx)
{
    run_box *box = luaL_checkudata(L, idx, RUN_TYPE);
    if (!box->ready)
        luaL_argerror(L, idx, "a run that was never built");
    return &box->run;
}

/* The devices and pipeline chunks a run spans, formed in doubles (exact:
 * each factor <= 2^20) and checked before any int64 product is formed. */
static void check_degrees(lua_State *L, const run_t *r)
{
    double devices = (double)r->dp * (double)r->tp * (double)r->pp * (double)r->cp;
    if (devices > 0x1p53) /* past 2^53 the count shows as a float */
        nd_bad_input(L, "dp x tp x pp x cp = %f devices; ndlua plans at most %d", devices, (int)MAX_DEGREE);
    if (devices > (double)MAX_DEGREE)
        nd_bad_input(L, "dp x tp x pp x cp = %I devices; ndlua plans at most %d", (lua_Integer)devices,
                     (int)MAX_DEGREE);
    /* the layout holds one record per chunk */
    double chunks = (double)r->pp * (double)r->vpp;
    if (chunks > (double)MAX_CHUNKS)
        nd_bad_input(L, "pp x vpp = %I pipeline chunks; ndlua plans at most %d (a model holds at most 100000 "
                        "layers)", (lua_Integer)chunks, (int)MAX_CHUNKS);
}

static void read_optimizer(lua_State *L, int t, run_t *r)
{
    char *opt = field_string(L, t, "", "optimizer", NULL);
    if (opt != NULL && r->optimizer_states < 0) {
        /* Muon keeps one momentum a parameter, AdamW two moments */
        for (char *p = opt; *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
        r->optimizer_states = strstr(opt, "muon") != NULL ? 1 : 2;
    }
    free(opt);
}

static void read_micro_batches(lua_State *L, int t, run_t *r)
{
    /* int64: <= 2^24 x 2^20 */
    int64_t per_step = r->micro_batch_size * r->dp;
    int64_t dflt = r->global_batch_size > 0 && r->global_batch_size % per_step == 0
                       ? r->global_batch_size / per_step
                       : r->pp;
    r->micro_batch_num = field_int(L, t, "", "micro_batch_num", 1, MAX_BATCH, dflt, false);
    /* up to 2^68: formed in doubles and bounded before the int64 product */
    double per_step_all = (double)per_step * (double)r->micro_batch_num;
    if (r->global_batch_size == 0 && per_step_all > (double)MAX_BATCH)
        nd_bad_input(L, "micro_batch_size x dp x micro_batch_num = %I x %I x %I = %f sequences a step; ndlua "
                        "plans at most %I", (lua_Integer)r->micro_batch_size, (lua_Integer)r->dp,
                     (lua_Integer)r->micro_batch_num, per_step_all, (lua_Integer)MAX_BATCH);
    if (r->global_batch_size > 0 && field_present(L, t, "micro_batch_num") &&
        (double)r->global_batch_size != per_step_all)
        nd_bad_input(L, "global_batch_size %I is not micro_batch_size x dp x micro_batch_num = %I x %I x %I",
                     (lua_Integer)r->global_batch_size, (lua_Integer)r->micro_batch_size, (lua_Integer)r->dp,
                     (lua_Integer)r->micro_batch_num);
    if (r->global_batch_size == 0)
        r->global_batch_size = per_step * r->micro_batch_num;
}

/* Reads the run table at 1 into r, segment by segment of RUN_FIELDS. */
static void read_run(lua_State *L, run_t *r)
{
    const field_desc *d = fields_read(L, 1, "", RUN_FIELDS, r);
    check_degrees(L, r);
    d = fields_read(L, 1, "", d, r);
    read_optimizer(L, 1, r);
    d = fields_read(L, 1, "", d, r);
    if (r->schedule == SCHED_ZERO_BUBBLE_V && r->vpp > 2)
        nd_bad_input(L, "pp_schedule: zero_bubble_v (DualPipeV) runs at most 2 chunks a stage, not vpp = %I",
                     (lua_Integer)r->vpp);
    d = fields_read(L, 1, "", d, r);
    read_micro_batches(L, 1, r);
    d = fields_read(L, 1, "", d, r);
    if (field_present(L, 1, "device_memory") && lua_getfield(L, 1, "device_memory") != LUA_TNUMBER)
        nd_bad_input(L, "device_memory must be a number of bytes (nd.run reads sizes such as \"58GB\")");
    lua_settop(L, 2);
    fields_read(L, 1, "", d, r);
    lnd_read_pipeline(L, 1, r);
    lnd_read_recompute(L, 1, r);
}

/* nd.core.run(table): validates a run table and returns an nd.run. */
int lnd_run_new(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    fields_refuse_unknown(L, 1, "", "run", RUN_FIELDS);
    run_box *box = lua_newuserdatauv(L, sizeof *box, 1);
    memset(box, 0, sizeof *box);
    luaL_setmetatable(L, RUN_TYPE);
    box->ready = true;
    read_run(L, &box->run);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, 2, 1);
    return 1;
}

void lnd_open_run(lua_State *L, const luaL_Reg *methods)
{
    if (!luaL_newmetatable(L, RUN_TYPE)) {
        lua_pop(L, 1);
        return;
    }
    lua_pushcfunction(L, run_gc);
    lua_setfield(L, -2, "__gc");
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, "methods");
    lua_pop(L, 1);
}
