/* lnd_model_api.c: the methods of nd.model (params, flops, spec, stack, tostring). */
#include "lnd_types.h"

#include <math.h>
#include <stdio.h>

#include <lauxlib.h>

#include "lnd_push.h"
#include "lua_fields.h"

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

#define NUM(S, m) FIELD_NUM(S, #m, m, 0, 0, 0)
#define P(m) NUM(model_params, m)
#define F(m) NUM(model_flops, m)

static const field_desc PARAMS_TOTALS[] = {P(total), P(active), FIELD_END};
static const field_desc PARAMS_BY_PART[] = {
    P(embedding), P(attention), P(norms), P(dense_mlp), P(routed_experts), P(shared_experts), P(router),
    P(output), P(mtp), P(vision), FIELD_END,
};
static const field_desc FLOPS_TOTALS[] = {F(total), F(causal_factor), FIELD_END};
static const field_desc FLOPS_BY_PART[] = {
    F(attention_proj), F(attention_scores), F(linear_recurrence), F(mlp), F(routed_experts), F(shared_experts),
    F(router), F(output), F(mtp), F(vision), FIELD_END,
};
static const field_desc KIND_SIZES[] = {
    NUM(layer_kind, heads), NUM(layer_kind, kv_heads), NUM(layer_kind, qk_head_dim),
    NUM(layer_kind, v_head_dim), NUM(layer_kind, ffn_width), FIELD_END,
};
static const field_desc KIND_PARAMS[] = {
    NUM(layer_params, attention), NUM(layer_params, norms), NUM(layer_params, dense_mlp), NUM(layer_params, router),
    FIELD_NUM(layer_params, "routed_experts", routed, 0, 0, 0),
    FIELD_NUM(layer_params, "shared_experts", shared, 0, 0, 0), FIELD_END,
};

/* model:params() -> {total, active, by_part = {...}} */
static int model_params_method(lua_State *L)
{
    model_params p = model_count_params(lnd_check_model(L, 1));
    lua_createtable(L, 0, 3);
    fields_push(L, PARAMS_TOTALS, &p);
    lua_createtable(L, 0, 10);
    fields_push(L, PARAMS_BY_PART, &p);
    lua_setfield(L, -2, "by_part");
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
    fields_push(L, FLOPS_TOTALS, &f);
    lua_pushinteger(L, s);
    lua_setfield(L, -2, "seq_len");
    lua_createtable(L, 0, 10);
    fields_push(L, FLOPS_BY_PART, &f);
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
    fields_push(L, KIND_SIZES, k);
    lua_pushboolean(L, k->census != NULL);
    lua_setfield(L, -2, "census");
    lua_createtable(L, 0, 6);
    fields_push(L, KIND_PARAMS, &k->params);
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
