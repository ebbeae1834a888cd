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

static const char *const RUN_KEYS[] = {
    "dp", "tp", "pp", "vpp", "cp", "ep", "etp", "sequence_parallel", "shard_activations", "loss_parallel",
    "optimizer_parallel", "grad_shard", "grad_shard_as_params", "grad_accumulation",
    "deferred_grad_accumulation", "overlapped_grad_reduce", "reshard_params", "param_casts",
    "expert_shard_group", "mtp_in_offset", "emb_out_in_offset", "recompute_slice_activation", "flash_attention",
    "grad_clip", "grouped_gemm", "vocab_emb_dp", "emb_dp_sharded", "tie_embeddings", "shard_mtp_param",
    "frozen", "shard_spans_cp", "freeze_vision", "swap_optimizer", "micro_batch_size", "micro_batch_num",
    "global_batch_size", "optimizer_shard", "expert_shard", "pp_schedule", "offset", "seq_split",
    "full_recompute", "selective_recompute", "selective_comm_recompute", "selective_rule", "recompute",
    "param_bytes", "compute_bytes", "softmax_bytes", "grad_bytes", "optimizer_state_bytes", "main_param_bytes",
    "norm_bytes", "dropout_bytes", "optimizer_states", "cp_algo", "optimizer", "device_memory",
    "capacity_factor", "seq_length", "visual_seq_length", "reserve_bytes", "param_shard", "fused_norm",
    "fused_swiglu", "loss_upcast", "loss_inplace_grad", "fragmentation", "offload_optimizer", "offload_params",
    "offload_activations", "runtime", "inplace_dp_buffers", "keep_gathered_params", NULL,
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

static tristate read_tristate(lua_State *L, int t, const char *key)
{
    if (!field_present(L, t, key))
        return UNSTATED;
    return field_bool(L, t, "", key, false) ? YES : NO;
}

static void read_degrees(lua_State *L, int t, run_t *r)
{
    r->dp = field_int(L, t, "", "dp", 1, MAX_DEGREE, 1, false);
    r->tp = field_int(L, t, "", "tp", 1, MAX_DEGREE, 1, false);
    r->pp = field_int(L, t, "", "pp", 1, MAX_DEGREE, 1, false);
    r->vpp = field_int(L, t, "", "vpp", 1, 64, 1, false);
    r->cp = field_int(L, t, "", "cp", 1, MAX_DEGREE, 1, false);
    r->ep = field_int(L, t, "", "ep", 1, MAX_DEGREE, 1, false);
    r->etp = field_int(L, t, "", "etp", 0, MAX_DEGREE, 0, false);
    /* the devices a run spans, formed in doubles (exact: each factor <= 2^20)
     * and checked before any int64 product of degrees is formed */
    double devices = (double)r->dp * (double)r->tp * (double)r->pp * (double)r->cp;
    if (devices > 0x1p53) /* past 2^53 the count shows as a float */
        nd_bad_input(L, "dp x tp x pp x cp = %f devices; ndlua plans at most %d", devices, (int)MAX_DEGREE);
    if (devices > (double)MAX_DEGREE)
        nd_bad_input(L, "dp x tp x pp x cp = %I devices; ndlua plans at most %d", (lua_Integer)devices,
                     (int)MAX_DEGREE);
    /* pipeline chunks, in doubles (exact: <= 2^26): the layout holds one record per chunk */
    double chunks = (double)r->pp * (double)r->vpp;
    if (chunks > (double)MAX_CHUNKS)
        nd_bad_input(L, "pp x vpp = %I pipeline chunks; ndlua plans at most %d (a model holds at most 100000 "
                        "layers)", (lua_Integer)chunks, (int)MAX_CHUNKS);
    r->sequence_parallel = field_bool(L, t, "", "sequence_parallel", false);
}

static void read_flags(lua_State *L, int t, run_t *r)
{
    r->shard_activations = read_tristate(L, t, "shard_activations");
    r->loss_parallel = read_tristate(L, t, "loss_parallel");
    r->grad_accumulation = read_tristate(L, t, "grad_accumulation");
    r->param_casts = read_tristate(L, t, "param_casts");
    r->flash_attention = read_tristate(L, t, "flash_attention");
    r->param_shard = read_tristate(L, t, "param_shard");
    r->tie_embeddings = read_tristate(L, t, "tie_embeddings");
    r->fused_norm = read_tristate(L, t, "fused_norm");
    r->fused_swiglu = read_tristate(L, t, "fused_swiglu");
    r->loss_upcast = read_tristate(L, t, "loss_upcast");
    r->loss_inplace_grad = read_tristate(L, t, "loss_inplace_grad");
    r->offload_optimizer = field_bool(L, t, "", "offload_optimizer", false);
    r->inplace_dp_buffers = field_bool(L, t, "", "inplace_dp_buffers", false);
    r->keep_gathered_params = read_tristate(L, t, "keep_gathered_params");
    r->offload_params = field_bool(L, t, "", "offload_params", false);
    r->optimizer_parallel = field_bool(L, t, "", "optimizer_parallel", false);
    r->grad_shard = field_bool(L, t, "", "grad_shard", false);
    r->grad_shard_as_params = field_bool(L, t, "", "grad_shard_as_params", false);
    r->deferred_grad_accumulation = field_bool(L, t, "", "deferred_grad_accumulation", false);
    r->overlapped_grad_reduce = field_bool(L, t, "", "overlapped_grad_reduce", false);
    r->reshard_params = field_bool(L, t, "", "reshard_params", true);
    r->expert_shard_group = field_bool(L, t, "", "expert_shard_group", false);
    r->mtp_in_offset = field_bool(L, t, "", "mtp_in_offset", true);
    r->emb_out_in_offset = field_bool(L, t, "", "emb_out_in_offset", false);
    r->recompute_slice_activation = field_bool(L, t, "", "recompute_slice_activation", false);
    r->grad_clip = field_bool(L, t, "", "grad_clip", false);
    r->grouped_gemm = field_bool(L, t, "", "grouped_gemm", true);
    r->vocab_emb_dp = field_bool(L, t, "", "vocab_emb_dp", true);
    r->emb_dp_sharded = field_bool(L, t, "", "emb_dp_sharded", true);
    r->shard_mtp_param = field_bool(L, t, "", "shard_mtp_param", true);
    r->frozen = field_bool(L, t, "", "frozen", false);
    r->shard_spans_cp = field_bool(L, t, "", "shard_spans_cp", false);
    r->freeze_vision = field_bool(L, t, "", "freeze_vision", false);
    r->swap_optimizer = field_bool(L, t, "", "swap_optimizer", false);
    r->selective_comm_recompute = field_bool(L, t, "", "selective_comm_recompute", false);
}

static int read_width(lua_State *L, int t, const char *key, int dflt)
{
    return (int)field_int(L, t, "", key, dflt < 0 ? 0 : 1, 16, dflt, false);
}

static void read_bytes(lua_State *L, int t, run_t *r)
{
    r->param_bytes = read_width(L, t, "param_bytes", 2);
    r->compute_bytes = read_width(L, t, "compute_bytes", 2);
    r->softmax_bytes = read_width(L, t, "softmax_bytes", 4);
    r->grad_bytes = read_width(L, t, "grad_bytes", -1);
    r->optimizer_state_bytes = read_width(L, t, "optimizer_state_bytes", -1);
    r->main_param_bytes = read_width(L, t, "main_param_bytes", -1);
    r->norm_bytes = read_width(L, t, "norm_bytes", -1);
    r->dropout_bytes = read_width(L, t, "dropout_bytes", -1);
    r->optimizer_states = read_width(L, t, "optimizer_states", -1);
    char *opt = field_string(L, t, "", "optimizer", NULL);
    if (opt != NULL && r->optimizer_states < 0) {
        /* Muon keeps one momentum a parameter, AdamW two moments */
        for (char *p = opt; *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
        r->optimizer_states = strstr(opt, "muon") != NULL ? 1 : 2;
    }
    free(opt);
}

/* Looks the field's string up in names[]; returns its index. */
static int read_choice(lua_State *L, int t, const char *key, const char *const *names, const int *values,
                       int dflt, const char *accepted)
{
    char *s = field_string(L, t, "", key, NULL);
    if (s == NULL)
        return dflt;
    for (int i = 0; names[i] != NULL; i++) {
        if (strcmp(s, names[i]) == 0) {
            free(s);
            return values[i];
        }
    }
    lua_pushstring(L, s);
    free(s);
    return nd_bad_input(L, "%s: '%s' is not one of %s", key, lua_tostring(L, -1), accepted);
}

static void read_choices(lua_State *L, int t, run_t *r)
{
    static const char *const sched[] = {"1f1b", "interleaved", "gpipe", "seqpipe", "seqsmartvpp",
                                        "zero_bubble_v", "zbv", "dualpipev", NULL};
    static const int sched_v[] = {SCHED_1F1B, SCHED_1F1B, SCHED_GPIPE, SCHED_SEQPIPE, SCHED_SEQPIPE,
                                  SCHED_ZERO_BUBBLE_V, SCHED_ZERO_BUBBLE_V, SCHED_ZERO_BUBBLE_V};
    r->schedule = (pp_schedule)read_choice(L, t, "pp_schedule", sched, sched_v, SCHED_1F1B,
                                           "1f1b, gpipe, seqpipe, zero_bubble_v");
    static const char *const rules[] = {"hyperparallel", "mindformers", "megatron", "torchtitan", NULL};
    static const int rules_v[] = {RULE_HYPERPARALLEL, RULE_MINDFORMERS, RULE_MEGATRON, RULE_TORCHTITAN};
    r->rule = (selective_rule)read_choice(L, t, "selective_rule", rules, rules_v, RULE_HYPERPARALLEL,
                                          "hyperparallel, mindformers, megatron, torchtitan");
    static const char *const algos[] = {"colossalai_cp", "ring", "hybrid_cp", "hybird_cp", "ulysses_cp",
                                        "ulysses", NULL};
    static const int algos_v[] = {CP_RING, CP_RING, CP_RING, CP_RING, CP_ULYSSES, CP_ULYSSES};
    r->cp_algo = (cp_algorithm)read_choice(L, t, "cp_algo", algos, algos_v, CP_RING,
                                           "colossalai_cp (ring), hybrid_cp, ulysses_cp");
    if (r->schedule == SCHED_ZERO_BUBBLE_V && r->vpp > 2)
        nd_bad_input(L, "pp_schedule: zero_bubble_v (DualPipeV) runs at most 2 chunks a stage, not vpp = %I",
                     (lua_Integer)r->vpp);
    r->seq_split = field_int(L, t, "", "seq_split", 1, 4096, 1, false);
}

static void read_batch(lua_State *L, int t, run_t *r)
{
    r->micro_batch_size = field_int(L, t, "", "micro_batch_size", 1, MAX_BATCH, 1, false);
    r->global_batch_size = field_int(L, t, "", "global_batch_size", 1, MAX_BATCH, 0, false);
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
    r->optimizer_shard = field_int(L, t, "", "optimizer_shard", 1, MAX_DEGREE, 0, false);
    r->expert_shard = field_int(L, t, "", "expert_shard", 1, MAX_DEGREE, 0, false);
}

static void read_sizes(lua_State *L, int t, run_t *r)
{
    r->capacity_factor = field_number(L, t, "", "capacity_factor", 1e-6, 1e6, 1.0);
    r->seq_length = field_int(L, t, "", "seq_length", 1, MAX_TOKENS, 4096, false);
    r->visual_seq_length = field_int(L, t, "", "visual_seq_length", 1, MAX_TOKENS, 0, false);
    if (field_present(L, t, "device_memory")) {
        if (lua_getfield(L, t, "device_memory") != LUA_TNUMBER)
            nd_bad_input(L, "device_memory must be a number of bytes (nd.run reads sizes such as \"58GB\")");
        lua_pop(L, 1);
    }
    r->device_memory_bytes = field_int(L, t, "", "device_memory", 1, MAX_BYTES, (int64_t)64 << 30, false);
    r->reserve_bytes = field_int(L, t, "", "reserve_bytes", 0, MAX_BYTES, -1, false);
    r->fragmentation = field_number(L, t, "", "fragmentation", 0.0, 10.0, 0.0);
    r->offload_activations = field_number(L, t, "", "offload_activations", 0.0, 1.0, 0.0);
    /* the runtime's name: nd.run lays its profile's fields in; the core keeps it for reports */
    free(field_string(L, t, "", "runtime", NULL));
}

/* nd.core.run(table): validates a run table and returns an nd.run. */
int lnd_run_new(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    field_refuse_unknown(L, 1, "", "run", RUN_KEYS);
    run_box *box = lua_newuserdatauv(L, sizeof *box, 1);
    memset(box, 0, sizeof *box);
    luaL_setmetatable(L, RUN_TYPE);
    run_t *r = &box->run;
    box->ready = true;
    read_degrees(L, 1, r);
    read_flags(L, 1, r);
    read_bytes(L, 1, r);
    read_choices(L, 1, r);
    read_batch(L, 1, r);
    read_sizes(L, 1, r);
    lnd_read_pipeline(L, 1, r);
    lnd_read_recompute(L, 1, r);
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
