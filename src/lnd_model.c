/* lnd_model.c: the nd.model userdata: a settled model spec read into model_t, and its methods
 * (params, flops, spec, stack, tostring). */
#include "lnd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ranges keep every product of sizes far inside a double's exact integers:
 * sizes are multiplied as doubles (exact to 2^53), never as int64. */
#define MAX_WIDTH ((int64_t)1 << 24)   /* hidden, FFN and latent widths */
#define MAX_VOCAB ((int64_t)1 << 31)
#define MAX_LAYERS 100000
#define MAX_HEADS 65536
#define MAX_EXPERTS 65536
#define MAX_TOKENS ((int64_t)1 << 31)
#define MAX_KINDS 1024

#define MODEL_TYPE "nd.model"

typedef struct {
    model_t *model; /* freed by __gc */
} model_box;

static int model_gc(lua_State *L)
{
    model_box *box = luaL_checkudata(L, 1, MODEL_TYPE);
    model_free(box->model);
    box->model = NULL;
    return 0;
}

model_t *lnd_check_model(lua_State *L, int idx)
{
    model_box *box = luaL_checkudata(L, idx, MODEL_TYPE);
    if (box->model == NULL)
        luaL_argerror(L, idx, "a model that was never built");
    return box->model;
}

#define I64(key, m, lo, hi, d) FIELD_I64(model_t, key, m, lo, hi, d)
#define REQ(key, m, lo, hi) FIELD_REQ(model_t, key, m, lo, hi)
#define B(key, m) FIELD_BOOL(model_t, key, m, false)

/* A model spec's fields in the order they are read; the stops fall where a
 * check or a field read by hand comes between them. The last segment is a
 * vision tower's alone. */
static const field_desc MODEL_FIELDS[] = {
    REQ("hidden_size", hidden, 1, MAX_WIDTH), REQ("num_hidden_layers", layers, 1, MAX_LAYERS),
    REQ("num_attention_heads", heads, 1, MAX_HEADS), FIELD_STOP,
    I64("num_key_value_heads", kv_heads, 1, MAX_HEADS, 0), FIELD_STOP,
    I64("intermediate_size", ffn_width, 0, MAX_WIDTH, 0),
    I64("max_position_embeddings", max_positions, 0, MAX_TOKENS, 0), I64("layer_norms", layer_norms, 0, 64, 2),
    I64("learned_position_embeddings", learned_positions, 0, MAX_TOKENS, 0),
    I64("mtp_depth", mtp_depth, 0, MAX_LAYERS, 0), I64("num_experts", experts, 0, MAX_EXPERTS, 1),
    I64("num_experts_per_tok", top_k, 1, MAX_EXPERTS, 1), I64("num_shared_experts", shared_experts, 0, MAX_EXPERTS, 0),
    I64("moe_intermediate_size", expert_width, 0, MAX_WIDTH, 0),
    I64("shared_expert_intermediate_size", shared_width, 0, MAX_WIDTH, 0), FIELD_STOP,
    I64("first_k_dense_replace", first_dense, 0, MAX_LAYERS, 0), FIELD_STOP,
    I64("kv_lora_rank", kv_lora_rank, 0, MAX_WIDTH, 0), I64("q_lora_rank", q_lora_rank, 0, MAX_WIDTH, 0),
    I64("qk_rope_head_dim", rope_head_dim, 0, MAX_WIDTH, 0), I64("qk_nope_head_dim", nope_head_dim, 0, MAX_WIDTH, 0),
    I64("v_head_dim", v_head_dim, 0, MAX_WIDTH, 0), I64("linear_num_key_heads", lin_key_heads, 0, MAX_HEADS, 0),
    I64("linear_key_head_dim", lin_key_dim, 0, MAX_WIDTH, 0),
    I64("linear_num_value_heads", lin_value_heads, 0, MAX_HEADS, 0),
    I64("linear_value_head_dim", lin_value_dim, 0, MAX_WIDTH, 0),
    I64("linear_conv_kernel_dim", lin_conv, 0, 1024, 0), B("attn_output_gate", attn_output_gate),
    B("tie_word_embeddings", tied), B("qk_norm", qk_norm), B("qkv_bias", qkv_bias), B("o_bias", o_bias),
    B("mlp_bias", mlp_bias), B("norm_bias", norm_bias), B("shared_expert_gate", shared_gate), FIELD_STOP,
    I64("patch_size", patch_size, 0, 4096, 0), I64("temporal_patch_size", temporal_patch, 1, 64, 1),
    I64("in_channels", in_channels, 1, 64, 3), I64("spatial_merge_size", merge_size, 1, 64, 1),
    I64("out_hidden_size", out_hidden, 0, MAX_WIDTH, 0), I64("deepstack_mergers", deepstack_mergers, 0, 64, 0),
    B("patch_bias", patch_bias), FIELD_STOP,
    /* read by hand, or by the Lua side alone */
    FIELD_KEY("name"), FIELD_KEY("arch"), FIELD_KEY("vocab_size"), FIELD_KEY("head_dim"),
    FIELD_KEY("num_position_embeddings"), FIELD_KEY("multiple_of"), FIELD_KEY("ffn_dim_multiplier"),
    FIELD_KEY("torch_dtype"), FIELD_KEY("kinds"), FIELD_KEY("layers"), FIELD_KEY("family"),
    FIELD_KEY("activations"), FIELD_KEY("output_activations"), FIELD_KEY("vision"), FIELD_KEY("layer_types"),
    FIELD_KEY("ops"), FIELD_END,
};

#define FAM_INT(key, d) FIELD_INT(family_run, #key, key, 0, 16, d)
#define FAM_BOOL(key, d) FIELD_BOOL(family_run, #key, key, d)

/* A family's run defaults (its op profile's `run` section); the defaults are
 * DEFAULT_RUN of the reference's op profiles (memory-model.md §4.8), flash attention on. */
static const field_desc FAMILY_FIELDS[] = {
    FAM_INT(grad_bytes, 4), FAM_INT(optimizer_state_bytes, 4), FAM_INT(optimizer_states, 2),
    FAM_INT(main_param_bytes, 0), FAM_INT(norm_bytes, 4), FAM_INT(dropout_bytes, 0),
    FAM_BOOL(grad_accumulation, false), FAM_BOOL(shard_activations, false), FAM_BOOL(loss_parallel, true),
    FAM_BOOL(reshard_params, false), FAM_BOOL(deferred_grad_accumulation, false),
    FAM_BOOL(overlapped_grad_reduce, false), FAM_BOOL(flash_attention, true),
    FIELD_I64(family_run, "v_head_dim", v_head_dim, 1, MAX_WIDTH, 0),
    FAM_BOOL(zero_centered_norms, false), FAM_BOOL(sigmoid_router, false), FIELD_END,
};

#define CENSUS(key, lo, hi) FIELD_NUM(census_record, #key, key, lo, hi, 0)

/* A census record's fields after its four required sizes (read by hand). */
static const field_desc CENSUS_FIELDS[] = {
    FIELD_REQ(census_record, "seq_length", seq_length, 1, MAX_TOKENS), FIELD_STOP,
    CENSUS(selective, 0, 1e15), CENSUS(selective_tp, 0, 1e15), FIELD_STOP,
    CENSUS(selective_attention_mm, 0, 1), CENSUS(selective_ffn_mm, 0, 1), FIELD_STOP,
    FIELD_KEY("saved"), FIELD_KEY("saved_tp"), FIELD_KEY("working"), FIELD_KEY("working_tp"), FIELD_KEY("ops"),
    FIELD_KEY("ops_tp"), FIELD_END,
};

static char *join(lua_State *L, const char *a, const char *b)
{
    lua_pushfstring(L, "%s%s", a, b);
    return (char *)lua_tostring(L, -1); /* kept on the stack by the caller */
}

void lnd_push_family_defaults(lua_State *L) { fields_push_defaults(L, FAMILY_FIELDS); }

static void read_family(lua_State *L, int spec, const char *prefix, family_run *f)
{
    if (lua_getfield(L, spec, "family") != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L); /* every field its default */
    }
    int t = lua_gettop(L);
    const char *p = join(L, prefix, "family.");
    fields_refuse_unknown(L, t, p, "family", FAMILY_FIELDS);
    fields_read(L, t, p, FAMILY_FIELDS, f);
    lua_pop(L, 2);
}

/* Reads a census record at index t; the record lives in a malloc'd block. */
static census_record *read_census(lua_State *L, int t, const char *path)
{
    t = lua_absindex(L, t);
    if (!lua_istable(L, t))
        nd_bad_input(L, "%s must be a census record (a table of bytes per token)", path);
    const char *p = join(L, path, ".");
    fields_refuse_unknown(L, t, path, "census record", CENSUS_FIELDS);
    census_record r;
    memset(&r, 0, sizeof r);
    const char *base[] = {"saved", "saved_tp", "working", "working_tp"};
    double *dst[] = {&r.saved, &r.saved_tp, &r.working, &r.working_tp};
    for (int i = 0; i < 4; i++) {
        if (!field_present(L, t, base[i]))
            nd_bad_input(L, "%s%s is required in a census record", p, base[i]);
        *dst[i] = field_number(L, t, p, base[i], 0, 1e15, 0);
    }
    const field_desc *d = fields_read(L, t, p, CENSUS_FIELDS, &r);
    r.has_selective = field_present(L, t, "selective") || field_present(L, t, "selective_tp");
    if (r.has_selective && !(field_present(L, t, "selective") && field_present(L, t, "selective_tp")))
        nd_bad_input(L, "%s states one of selective and selective_tp without the other", path);
    d = fields_read(L, t, p, d, &r);
    r.has_shares = field_present(L, t, "selective_attention_mm") || field_present(L, t, "selective_ffn_mm");
    if (r.has_shares &&
        !(field_present(L, t, "selective_attention_mm") && field_present(L, t, "selective_ffn_mm")))
        nd_bad_input(L, "%s states one of selective_attention_mm and selective_ffn_mm without the other", path);
    fields_read(L, t, p, d, &r);
    lua_pop(L, 1);
    census_record *copy = malloc(sizeof *copy);
    if (copy == NULL)
        luaL_error(L, "out of memory");
    *copy = r;
    return copy;
}

static void read_ops(lua_State *L, int kind, const char *path, double ops[OP_COUNT])
{
    if (lua_getfield(L, kind, "ops") != LUA_TTABLE)
        nd_bad_input(L, "%s.ops must list the op counts of the kind", path);
    int t = lua_gettop(L);
    const char *p = join(L, path, ".ops.");
    for (int i = 0; i < OP_COUNT; i++)
        ops[i] = (double)field_int(L, t, p, OP_NAMES[i], 0, 64, 0, true);
    lua_pop(L, 2);
}

static ffn_flavour read_ffn(lua_State *L, int kind, const char *path)
{
    char *ffn = field_string(L, kind, path, "ffn", NULL);
    ffn_flavour f = FFN_MODEL;
    if (ffn != NULL && strcmp(ffn, "dense") == 0)
        f = FFN_DENSE;
    else if (ffn != NULL && strcmp(ffn, "moe") == 0)
        f = FFN_MOE;
    else if (ffn != NULL) {
        free(ffn);
        nd_bad_input(L, "%sffn must be dense or moe", path);
    }
    free(ffn);
    return f;
}

/* Reads spec.kinds[name] into k (the name already set). */
static void read_kind(lua_State *L, int kinds, layer_kind *k, const char *prefix)
{
    lua_getfield(L, kinds, k->name);
    int t = lua_gettop(L);
    const char *path = lua_pushfstring(L, "%skinds.%s", prefix, k->name);
    if (!lua_istable(L, t))
        nd_bad_input(L, "%s is not described (the stack names a kind its op profile does not have)", path);
    read_ops(L, t, path, k->ops);
    path = lua_pushfstring(L, "%s.", path);
    char *att = field_string(L, t, path, "attention", "full");
    bool linear = strcmp(att, "linear") == 0, full = strcmp(att, "full") == 0;
    free(att);
    if (!linear && !full)
        nd_bad_input(L, "%sattention must be full or linear", path);
    k->attention = linear ? ATTENTION_LINEAR : ATTENTION_FULL;
    k->ffn = read_ffn(L, t, path);
    lua_pop(L, 3);
}

/* Index of the kind named at the top of the stack, adding it when new. */
static int kind_index(lua_State *L, model_t *m, int kinds, const char *prefix)
{
    const char *name = lua_tostring(L, -1);
    int known = model_kind_index(m, name);
    if (known >= 0)
        return known;
    /* a kind is looked up by a scan: bounded, a stack of many groups stays linear */
    if (m->n_kinds >= MAX_KINDS)
        nd_bad_input(L, "%slayers name more than %d layer kinds", prefix, MAX_KINDS);
    layer_kind *grown = realloc(m->kinds, (size_t)(m->n_kinds + 1) * sizeof *grown);
    if (grown == NULL)
        luaL_error(L, "out of memory");
    m->kinds = grown;
    layer_kind *k = &m->kinds[m->n_kinds];
    memset(k, 0, sizeof *k);
    size_t n = strlen(name);
    k->name = malloc(n + 1);
    if (k->name == NULL)
        luaL_error(L, "out of memory");
    memcpy(k->name, name, n + 1);
    m->n_kinds++;
    read_kind(L, kinds, k, prefix);
    return m->n_kinds - 1;
}

static void read_group(lua_State *L, model_t *m, int g, int kinds, const char *prefix, int i)
{
    const char *path = lua_pushfstring(L, "%slayers[%d]", prefix, i);
    if (!lua_istable(L, g))
        nd_bad_input(L, "%s must be a group {kind = name, count = n, mtp = bool}", path);
    layer_group *grp = &m->groups[i - 1];
    lua_getfield(L, g, "kind");
    if (lua_type(L, -1) != LUA_TSTRING)
        nd_bad_input(L, "%s.kind must name a layer kind", path);
    grp->kind = kind_index(L, m, kinds, prefix);
    lua_pop(L, 1);
    grp->count = field_int(L, g, lua_pushfstring(L, "%s.", path), "count", 1, MAX_LAYERS, 0, true);
    grp->mtp = field_bool(L, g, lua_tostring(L, -1), "mtp", false);
    lua_pop(L, 2);
}

static void read_groups(lua_State *L, int spec, model_t *m, const char *prefix)
{
    if (lua_getfield(L, spec, "layers") != LUA_TTABLE || lua_rawlen(L, -1) == 0)
        nd_bad_input(L, "%slayers must list the layer groups of the stack", prefix);
    int layers = lua_gettop(L);
    if (lua_getfield(L, spec, "kinds") != LUA_TTABLE)
        nd_bad_input(L, "%skinds must describe the layer kinds of the stack", prefix);
    int kinds = lua_gettop(L);
    size_t n = lua_rawlen(L, layers);
    if (n > MAX_LAYERS)
        nd_bad_input(L, "%slayers lists %d groups; at most %d", prefix, (int)n, MAX_LAYERS);
    m->groups = calloc(n, sizeof *m->groups);
    if (m->groups == NULL)
        luaL_error(L, "out of memory");
    m->n_groups = (int)n;
    for (int i = 1; i <= (int)n; i++) {
        lua_rawgeti(L, layers, i);
        read_group(L, m, lua_gettop(L), kinds, prefix, i);
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
}

/* The stack must add up: body groups first, their sum the layer count; MTP groups last. */
static void check_stack(lua_State *L, const model_t *m, const char *prefix)
{
    bool seen_mtp = false;
    for (int i = 0; i < m->n_groups; i++) {
        if (seen_mtp && !m->groups[i].mtp)
            nd_bad_input(L, "%slayers[%d] is a body group after an MTP group; MTP groups come last", prefix, i + 1);
        seen_mtp = seen_mtp || m->groups[i].mtp;
    }
    int64_t body = model_body_layers(m), mtp = model_mtp_layers(m);
    if (body != m->layers)
        nd_bad_input(L, "%slayers list %I body layers, but num_hidden_layers is %I", prefix, (lua_Integer)body,
                     (lua_Integer)m->layers);
    if (mtp != m->mtp_depth)
        nd_bad_input(L, "%slayers list %I MTP layers, but mtp_depth is %I", prefix, (lua_Integer)mtp,
                     (lua_Integer)m->mtp_depth);
}

static void read_tower(lua_State *L, int spec, model_t *m, const char *prefix, const field_desc *d)
{
    fields_read(L, spec, prefix, d, m);
    if (m->learned_positions == 0)
        m->learned_positions = field_int(L, spec, prefix, "num_position_embeddings", 0, MAX_TOKENS, 0, false);
    if (m->patch_size == 0)
        m->patch_size = 1; /* a tower without a stated patch still prices as a tower */
    if (m->out_hidden == 0)
        m->out_hidden = m->hidden;
}

/* Reads the spec's fields, segment by segment of MODEL_FIELDS, with the
 * checks and the fields read by hand between them. */
static void read_fields(lua_State *L, int spec, model_t *m, const char *prefix, bool tower)
{
    const field_desc *d = fields_read(L, spec, prefix, MODEL_FIELDS, m);
    m->vocab = field_int(L, spec, prefix, "vocab_size", tower ? 0 : 1, MAX_VOCAB, 0, !tower);
    d = fields_read(L, spec, prefix, d, m);
    if (m->kv_heads == 0)
        m->kv_heads = m->heads;
    if (m->heads % m->kv_heads != 0)
        nd_bad_input(L, "%snum_attention_heads (%I) is not divisible by num_key_value_heads (%I)", prefix,
                     (lua_Integer)m->heads, (lua_Integer)m->kv_heads);
    m->head_dim = (double)field_int(L, spec, prefix, "head_dim", 1, MAX_WIDTH, 0, false);
    d = fields_read(L, spec, prefix, d, m);
    if (m->experts < 1)
        m->experts = 1;
    if (m->expert_width == 0 && m->experts > 1)
        m->expert_width = m->ffn_width; /* Mixtral runs its experts at the dense width */
    if (m->shared_width == 0)
        m->shared_width = m->shared_experts * m->expert_width;
    if (m->shared_experts > 0 && m->shared_width <= 0)
        nd_bad_input(L, "%snum_shared_experts is set but no width resolves for it; declare "
                        "shared_expert_intermediate_size or moe_intermediate_size", prefix);
    d = fields_read(L, spec, prefix, d, m);
    if (m->experts > 1 && m->top_k > m->experts)
        nd_bad_input(L, "%snum_experts_per_tok (%I) exceeds num_experts (%I)", prefix, (lua_Integer)m->top_k,
                     (lua_Integer)m->experts);
    d = fields_read(L, spec, prefix, d, m);
    if (tower)
        read_tower(L, spec, m, prefix, d);
}

/* spec.activations: a census record per kind of the stack. */
static void read_activations(lua_State *L, int spec, model_t *m, const char *prefix)
{
    int top = lua_gettop(L);
    if (lua_getfield(L, spec, "activations") == LUA_TTABLE) {
        int t = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, t) != 0) {
            if (lua_type(L, -2) != LUA_TSTRING)
                nd_bad_input(L, "%sactivations must map layer kinds to census records", prefix);
            const char *kind = lua_tostring(L, -2);
            int found = model_kind_index(m, kind);
            if (found < 0)
                nd_bad_input(L, "%sactivations: a census record of kind '%s', which no layer of the stack is",
                             prefix, kind);
            const char *path = lua_pushfstring(L, "%sactivations.%s", prefix, kind);
            m->kinds[found].census = read_census(L, -2, path);
            lua_pop(L, 2);
        }
    }
    lua_pop(L, 1);
    if (lua_getfield(L, spec, "output_activations") == LUA_TTABLE) {
        const char *path = lua_pushfstring(L, "%soutput_activations", prefix);
        m->output_census = read_census(L, -2, path);
    }
    lua_settop(L, top);
}

static void read_model(lua_State *L, int spec, model_t *m, const char *prefix, bool tower);

static void read_vision(lua_State *L, int spec, model_t *m)
{
    if (lua_getfield(L, spec, "vision") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    m->vision = calloc(1, sizeof *m->vision);
    if (m->vision == NULL)
        luaL_error(L, "out of memory");
    read_model(L, lua_gettop(L), m->vision, "vision.", true);
    lua_pop(L, 1);
}

static void read_model(lua_State *L, int spec, model_t *m, const char *prefix, bool tower)
{
    spec = lua_absindex(L, spec);
    fields_refuse_unknown(L, spec, prefix, "model spec", MODEL_FIELDS);
    m->name = field_string(L, spec, prefix, "name", tower ? "vision" : "custom");
    m->arch = field_string(L, spec, prefix, "arch", tower ? "vision" : "default");
    read_fields(L, spec, m, prefix, tower);
    read_family(L, spec, prefix, &m->family);
    read_groups(L, spec, m, prefix);
    check_stack(L, m, prefix);
    read_activations(L, spec, m, prefix);
    if (!tower)
        read_vision(L, spec, m);
}

/* nd.core.model(spec): validates a settled spec and returns an nd.model. */
int lnd_model_new(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    model_box *box = lua_newuserdatauv(L, sizeof *box, 1); /* user value: the spec table */
    box->model = NULL;
    luaL_setmetatable(L, MODEL_TYPE);
    box->model = calloc(1, sizeof *box->model);
    if (box->model == NULL)
        return luaL_error(L, "out of memory");
    read_model(L, 1, box->model, "", false);
    char err[512];
    const char *msg = model_settle(box->model, err, sizeof err);
    if (msg != NULL)
        return nd_bad_input(L, "%s", msg);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, 2, 1);
    return 1;
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
    field_set_string(L, "name", k->name);
    field_set_string(L, "attention", k->attention == ATTENTION_LINEAR ? "linear" : k->mla ? "mla" : "full");
    field_set_string(L, "ffn", k->moe ? "moe" : "dense");
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

const layer_kind *lnd_check_kind(lua_State *L, const model_t *m, int arg)
{
    int i = model_kind_index(m, luaL_checkstring(L, arg));
    if (i < 0)
        luaL_argerror(L, arg, "no layer kind of that name in the model");
    return &m->kinds[i];
}

void lnd_open_model(lua_State *L)
{
    lnd_new_type(L, MODEL_TYPE, model_gc, model_tostring, model_methods);
}
