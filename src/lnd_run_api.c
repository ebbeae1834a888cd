/* lnd_run_api.c: the methods of nd.run: derived(model), micro_factor(stage, chunk), and field access. */
#include "lnd_estimate.h"

#include <lauxlib.h>

#include "derive.h"
#include "lnd_push.h"
#include "lnd_run.h"
#include "lnd_types.h"
#include "schedule.h"

static void push_switches(lua_State *L, const signed char *sw)
{
    lua_createtable(L, 0, SW_COUNT);
    for (int i = 0; i < SW_COUNT; i++) {
        lua_pushinteger(L, sw[i]);
        lua_setfield(L, -2, SWITCH_NAMES[i]);
    }
}

static void push_shards(lua_State *L, const derived_t *d)
{
    lnd_set_number(L, "shard_p_os_non_exp_partial", d->shard_p_os_non_exp_partial);
    lnd_set_number(L, "shard_p_os_non_exp", d->shard_p_os_non_exp);
    lnd_set_number(L, "shard_p_os_exp_partial", d->shard_p_os_exp_partial);
    lnd_set_number(L, "shard_p_os_exp", d->shard_p_os_exp);
    lnd_set_number(L, "shard_grad_non_exp", d->shard_grad_non_exp);
    lnd_set_number(L, "shard_grad_exp", d->shard_grad_exp);
    lnd_set_number(L, "shard_grad_exp_partial", d->shard_grad_exp_partial);
    lnd_set_number(L, "shard_embed", d->shard_embed);
    lnd_set_number(L, "gather_embed", d->gather_embed);
    lnd_set_int(L, "shard_recompute_input", d->shard_recompute_input);
    lnd_set_int(L, "shard_output_activ", d->shard_output_activ);
}

static void push_bytes(lua_State *L, const derived_t *d)
{
    lnd_set_int(L, "bytes_p", d->bytes_p);
    lnd_set_int(L, "bytes_compute", d->bytes_compute);
    lnd_set_int(L, "bytes_softmax", d->bytes_softmax);
    lnd_set_int(L, "bytes_grad", d->bytes_grad);
    lnd_set_int(L, "bytes_os", d->bytes_os);
    lnd_set_int(L, "bytes_optim", d->bytes_optim);
    lnd_set_int(L, "bytes_optim_table", d->bytes_optim_table);
    lnd_set_int(L, "bytes_norm", d->bytes_norm);
    lnd_set_int(L, "bytes_dropout", d->bytes_dropout);
}

/* run:derived(model) -> every quantity derive computes, by the reference's names */
static int run_derived(lua_State *L)
{
    run_t *r = lnd_check_run(L, 1);
    model_t *m = lnd_check_model(L, 2);
    derived_t d;
    derive(m, r, &d);
    lua_createtable(L, 0, 48);
    lnd_set_int(L, "sp", d.sp);
    lnd_set_int(L, "t_exp", d.t_exp);
    lnd_set_int(L, "d_exp", d.d_exp);
    lnd_set_int(L, "edp_group", d.edp_group);
    lnd_set_int(L, "expert_dp_ranks", d.expert_dp_ranks);
    lnd_set_bool(L, "experts_clamped", d.experts_clamped);
    lnd_set_int(L, "param_cp", d.param_cp);
    lnd_set_int(L, "optimizer_ranks", d.optimizer_ranks);
    push_shards(L, &d);
    lnd_set_bool(L, "fsdp", d.fsdp);
    lnd_set_int(L, "comm_d_non_exp", d.comm_d_non_exp);
    lnd_set_int(L, "comm_d_exp", d.comm_d_exp);
    lnd_set_bool(L, "comm_t", d.comm_t);
    lnd_set_bool(L, "comm_ep", d.comm_ep);
    lnd_set_bool(L, "comm_cp", d.comm_cp);
    lnd_set_bool(L, "keeps_param_casts", d.keeps_param_casts);
    push_switches(L, d.switches);
    lua_setfield(L, -2, "switches");
    lnd_set_bool(L, "flash_attention", d.flash);
    lnd_set_number(L, "s_fa", d.s_fa);
    lnd_set_int(L, "n_qknorm", d.n_qknorm);
    push_bytes(L, &d);
    lnd_set_bool(L, "accumulates_grads", d.accumulates_grads);
    lnd_set_bool(L, "shard_activations", d.shard_activations);
    lnd_set_bool(L, "shards_logits", d.shards_logits);
    lnd_set_number(L, "tokens", d.tokens);
    return 1;
}

/* run:micro_factor(stage, chunk) -> micro-batches the chunk holds at its stage's peak */
static int run_micro_factor(lua_State *L)
{
    run_t *r = lnd_check_run(L, 1);
    lua_Integer s = luaL_checkinteger(L, 2), c = luaL_optinteger(L, 3, 0);
    luaL_argcheck(L, s >= 0 && s < r->pp, 2, "stage out of range (stages count from 0)");
    luaL_argcheck(L, c >= 0 && c < r->vpp, 3, "chunk out of range (chunks count from 0)");
    lua_pushinteger(L, (lua_Integer)micro_factor(r, s, c));
    return 1;
}

/* run:spec() -> the table the run was built from */
static int run_spec(lua_State *L)
{
    lnd_check_run(L, 1);
    lua_getiuservalue(L, 1, 1);
    return 1;
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
    {"spec", run_spec},
    {NULL, NULL},
};

void lnd_open_run_api(lua_State *L)
{
    lnd_open_run(L, run_methods);
    luaL_getmetatable(L, RUN_TYPE);
    lua_pushcfunction(L, lnd_index_methods_then_spec); /* a method, else the run table's field */
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, run_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
}
