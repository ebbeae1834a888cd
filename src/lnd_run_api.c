/* lnd_run_api.c: the methods of nd.run: derived(model), micro_factor(stage, chunk), and field access. */
#include "lnd_estimate.h"

#include <lauxlib.h>

#include "derive.h"
#include "lnd_push.h"
#include "lnd_run.h"
#include "lnd_types.h"
#include "lua_fields.h"
#include "schedule.h"

static void push_switches(lua_State *L, const signed char *sw)
{
    lua_createtable(L, 0, SW_COUNT);
    for (int i = 0; i < SW_COUNT; i++) {
        lua_pushinteger(L, sw[i]);
        lua_setfield(L, -2, SWITCH_NAMES[i]);
    }
}

#define I64(m) FIELD_I64(derived_t, #m, m, 0, 0, 0)
#define INT(m) FIELD_INT(derived_t, #m, m, 0, 0, 0)
#define NUM(m) FIELD_NUM(derived_t, #m, m, 0, 0, 0)
#define B(m) FIELD_BOOL(derived_t, #m, m, false)

/* What run:derived(model) gives, by the reference's names, in the order it is set. */
static const field_desc DERIVED_FIELDS[] = {
    I64(sp), I64(t_exp), I64(d_exp), I64(edp_group), I64(expert_dp_ranks), B(experts_clamped), I64(param_cp),
    I64(optimizer_ranks), NUM(shard_p_os_non_exp_partial), NUM(shard_p_os_non_exp), NUM(shard_p_os_exp_partial),
    NUM(shard_p_os_exp), NUM(shard_grad_non_exp), NUM(shard_grad_exp), NUM(shard_grad_exp_partial),
    NUM(shard_embed), NUM(gather_embed), I64(shard_recompute_input), I64(shard_output_activ), B(fsdp),
    INT(comm_d_non_exp), INT(comm_d_exp), B(comm_t), B(comm_ep), B(comm_cp), B(keeps_param_casts), FIELD_STOP,
    FIELD_BOOL(derived_t, "flash_attention", flash, false), NUM(s_fa), INT(n_qknorm), INT(bytes_p),
    INT(bytes_compute), INT(bytes_softmax), INT(bytes_grad), INT(bytes_os), INT(bytes_optim),
    INT(bytes_optim_table), INT(bytes_norm), INT(bytes_dropout), B(accumulates_grads), B(shard_activations),
    B(shards_logits), NUM(tokens), FIELD_END,
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
