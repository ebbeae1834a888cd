/* lnd_model_api.c: the methods of nd.model (params, flops, spec, stack, tostring). */
#include "lnd_types.h"

#include <math.h>
#include <stdio.h>

#include <lauxlib.h>

#include "lnd_push.h"

static int model_gc(lua_State *L)
{
    model_box *box = luaL_checkudata(L, 1, MODEL_TYPE);
    model_free(box->model);
    box->model = NULL;
    return 0;
}

model_box *lnd_push_model_box(lua_State *L)
{
    model_box *box = lua_newuserdatauv(L, sizeof *box, 1);
    box->model = NULL;
    luaL_setmetatable(L, MODEL_TYPE);
    return box;
}

model_t *lnd_check_model(lua_State *L, int idx)
{
    model_box *box = luaL_checkudata(L, idx, MODEL_TYPE);
    if (box->model == NULL)
        luaL_argerror(L, idx, "a model that was never built");
    return box->model;
}

static void push_params(lua_State *L, const model_params *p)
{
    lua_createtable(L, 0, 3);
    lnd_set_number(L, "total", p->total);
    lnd_set_number(L, "active", p->active);
    lua_createtable(L, 0, 10);
    lnd_set_number(L, "embedding", p->embedding);
    lnd_set_number(L, "attention", p->attention);
    lnd_set_number(L, "norms", p->norms);
    lnd_set_number(L, "dense_mlp", p->dense_mlp);
    lnd_set_number(L, "routed_experts", p->routed_experts);
    lnd_set_number(L, "shared_experts", p->shared_experts);
    lnd_set_number(L, "router", p->router);
    lnd_set_number(L, "output", p->output);
    lnd_set_number(L, "mtp", p->mtp);
    lnd_set_number(L, "vision", p->vision);
    lua_setfield(L, -2, "by_part");
}

/* model:params() -> {total, active, by_part = {...}} */
static int model_params_method(lua_State *L)
{
    model_params p = model_count_params(lnd_check_model(L, 1));
    push_params(L, &p);
    return 1;
}

/* model:flops(seq_len) -> {total, causal_factor, seq_len, by_part = {...}}: forward FLOPs per token */
static int model_flops_method(lua_State *L)
{
    model_t *m = lnd_check_model(L, 1);
    lua_Integer s = luaL_checkinteger(L, 2);
    luaL_argcheck(L, s >= 1 && s <= ((lua_Integer)1 << 31), 2, "seq_len must be a positive number of tokens");
    model_flops f = model_count_flops(m, (int64_t)s);
    lua_createtable(L, 0, 4);
    lnd_set_number(L, "total", f.total);
    lnd_set_number(L, "causal_factor", f.causal_factor);
    lua_pushinteger(L, s);
    lua_setfield(L, -2, "seq_len");
    lua_createtable(L, 0, 10);
    lnd_set_number(L, "attention_proj", f.attention_proj);
    lnd_set_number(L, "attention_scores", f.attention_scores);
    lnd_set_number(L, "linear_recurrence", f.linear_recurrence);
    lnd_set_number(L, "mlp", f.mlp);
    lnd_set_number(L, "routed_experts", f.routed_experts);
    lnd_set_number(L, "shared_experts", f.shared_experts);
    lnd_set_number(L, "router", f.router);
    lnd_set_number(L, "output", f.output);
    lnd_set_number(L, "mtp", f.mtp);
    lnd_set_number(L, "vision", f.vision);
    lua_setfield(L, -2, "by_part");
    return 1;
}

/* model:spec() -> the settled spec table it was built from */
static int model_spec_method(lua_State *L)
{
    lnd_check_model(L, 1);
    lua_getiuservalue(L, 1, 1);
    return 1;
}

static void push_kind(lua_State *L, const layer_kind *k)
{
    lua_createtable(L, 0, 10);
    lua_pushstring(L, k->name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, k->attention == ATTENTION_LINEAR ? "linear" : k->mla ? "mla" : "full");
    lua_setfield(L, -2, "attention");
    lua_pushstring(L, k->moe ? "moe" : "dense");
    lua_setfield(L, -2, "ffn");
    lnd_set_number(L, "heads", k->heads);
    lnd_set_number(L, "kv_heads", k->kv_heads);
    lnd_set_number(L, "qk_head_dim", k->qk_head_dim);
    lnd_set_number(L, "v_head_dim", k->v_head_dim);
    lnd_set_number(L, "ffn_width", k->ffn_width);
    lua_pushboolean(L, k->census != NULL);
    lua_setfield(L, -2, "census");
    lua_createtable(L, 0, 6);
    lnd_set_number(L, "attention", k->params.attention);
    lnd_set_number(L, "norms", k->params.norms);
    lnd_set_number(L, "dense_mlp", k->params.dense_mlp);
    lnd_set_number(L, "router", k->params.router);
    lnd_set_number(L, "routed_experts", k->params.routed);
    lnd_set_number(L, "shared_experts", k->params.shared);
    lua_setfield(L, -2, "params");
}

/* model:stack() -> array of {kind = <kind table>, count = n, mtp = bool} */
static int model_stack_method(lua_State *L)
{
    model_t *m = lnd_check_model(L, 1);
    lua_createtable(L, m->n_groups, 0);
    for (int i = 0; i < m->n_groups; i++) {
        lua_createtable(L, 0, 3);
        push_kind(L, &m->kinds[m->groups[i].kind]);
        lua_setfield(L, -2, "kind");
        lua_pushinteger(L, (lua_Integer)m->groups[i].count);
        lua_setfield(L, -2, "count");
        lua_pushboolean(L, m->groups[i].mtp);
        lua_setfield(L, -2, "mtp");
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* "3×dense, 58×moe, 1×moe(mtp)" */
static void push_stack_text(lua_State *L, const model_t *m)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 0; i < m->n_groups; i++) {
        const layer_group *g = &m->groups[i];
        if (i > 0)
            luaL_addstring(&b, ", ");
        lua_pushfstring(L, "%I\xC3\x97%s%s", (lua_Integer)g->count, m->kinds[g->kind].name, g->mtp ? "(mtp)" : "");
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
}

static int model_tostring(lua_State *L)
{
    model_t *m = lnd_check_model(L, 1);
    model_params p = model_count_params(m);
    push_stack_text(L, m);
    const char *stack = lua_tostring(L, -1);
    char sizes[160];
    if (m->experts > 1)
        snprintf(sizes, sizeof sizes, "%lld experts (top-%lld) of width %lld", (long long)m->experts,
                 (long long)m->top_k, (long long)m->expert_width);
    else
        snprintf(sizes, sizeof sizes, "FFN width %lld", (long long)m->ffn_width);
    char counts[96];
    if (p.active < p.total)
        snprintf(counts, sizeof counts, "%.2f B parameters (%.2f B active)", p.total / 1e9, p.active / 1e9);
    else
        snprintf(counts, sizeof counts, "%.2f B parameters", p.total / 1e9);
    lua_pushfstring(L, "%s (arch %s): %I layers [%s], hidden %I, %I heads (%I KV, head dim %d), %s, "
                       "vocabulary %I%s; %s",
                    m->name, m->arch, (lua_Integer)(m->layers + m->mtp_depth), stack, (lua_Integer)m->hidden,
                    (lua_Integer)m->heads, (lua_Integer)m->kv_heads, (int)lround(m->head_dim), sizes,
                    (lua_Integer)m->vocab, m->vision ? ", with a vision tower" : "", counts);
    return 1;
}

static const luaL_Reg model_methods[] = {
    {"params", model_params_method},
    {"flops", model_flops_method},
    {"spec", model_spec_method},
    {"stack", model_stack_method},
    {NULL, NULL},
};

void lnd_open_model(lua_State *L)
{
    if (!luaL_newmetatable(L, MODEL_TYPE)) {
        lua_pop(L, 1);
        return;
    }
    lua_pushcfunction(L, model_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, model_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, lnd_index_methods_then_spec); /* a method, else the spec's field */
    lua_setfield(L, -2, "__index");
    luaL_newlib(L, model_methods);
    lua_setfield(L, -2, "methods");
    lua_pop(L, 1);
}
