/* lnd_model.c: the nd.model userdata: a settled model spec read into model_t, and its methods
 * (params, flops, spec, stack; tostring is lua/nd/model.lua's). */
#include "lnd_model.h"

#include <stdlib.h>

#include "core/nd_limits.h"
#include "bridge/luautil.h"
#include "lnd_aux.h"
#include "lua_fields.h"
#include "core/layer_kinds.h"
#include "core/model_flops.h"
#include "core/model_params.h"
#include "core/model_settle.h"

/* Ranges keep every product of sizes far inside a double's exact integers:
 * sizes are multiplied as doubles (exact to 2^53), never as int64. */
#define MAX_WIDTH ((int64_t)1 << 24)   /* hidden, FFN and latent widths */
#define MAX_VOCAB ((int64_t)1 << 31)
#define MAX_HEADS 65536
#define MAX_EXPERTS 65536
#define MAX_KINDS 1024

#define MODEL_TYPE "nd.model"

typedef struct {
    LND_BOX_HEAD;
    model_t *model; /* freed by __gc */
} model_box;

static void model_release(void *p)
{
    model_box *box = p;
    model_free(box->model);
    box->model = NULL;
}

static const lnd_kind MODEL_KIND = {MODEL_TYPE, sizeof(model_box), model_release};

model_t *lnd_check_model(lua_State *L, int idx)
{
    model_box *box = lnd_check_box(L, idx, &MODEL_KIND);
    if (box->model == NULL)
        lnd_argerror(L, idx, "a model that was never built");
    return box->model;
}

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
    FAM_BOOL(zero_centered_norms, false), FAM_BOOL(sigmoid_router, false), FAM_BOOL(no_rope, false),
    FIELD_KEY("v_head_dim"), /* settled into the spec's v_head_dim */
    FIELD_END,
};

#define I64(key, m, lo, hi, d) FIELD_I64(model_t, key, m, lo, hi, d)
#define REQ(key, m, lo, hi) FIELD_REQ(model_t, key, m, lo, hi)
#define B(key, m) FIELD_BOOL(model_t, key, m, false)

/* A settled model spec's fields (nd.model.spec settles them: C reads them
 * and checks what its arithmetic needs). The second segment is a vision
 * tower's alone; the third, the family's run defaults and the keys read by hand. */
static const field_desc MODEL_FIELDS[] = {
    FIELD_OWN(model_t, "name", name), FIELD_OWN(model_t, "arch", arch),
    REQ("hidden_size", hidden, 1, MAX_WIDTH), REQ("num_hidden_layers", layers, 1, ND_MAX_LAYERS),
    REQ("num_attention_heads", heads, 1, MAX_HEADS), REQ("num_key_value_heads", kv_heads, 1, MAX_HEADS),
    FIELD_NUM(model_t, "head_dim", head_dim, 1, MAX_WIDTH, 0), REQ("layer_norms", layer_norms, 0, 64),
    I64("intermediate_size", ffn_width, 0, MAX_WIDTH, 0),
    FIELD_NUM(model_t, "partial_rotary_factor", rotary_fraction, 0.0, 1.0, 1.0),
    I64("max_position_embeddings", max_positions, 0, ND_MAX_TOKENS, 0),
    I64("learned_position_embeddings", learned_positions, 0, ND_MAX_TOKENS, 0),
    I64("mtp_depth", mtp_depth, 0, ND_MAX_LAYERS, 0), I64("num_experts", experts, 0, MAX_EXPERTS, 1),
    I64("num_experts_per_tok", top_k, 1, MAX_EXPERTS, 1), I64("num_shared_experts", shared_experts, 0, MAX_EXPERTS, 0),
    I64("moe_intermediate_size", expert_width, 0, MAX_WIDTH, 0),
    I64("shared_expert_intermediate_size", shared_width, 0, MAX_WIDTH, 0),
    I64("first_k_dense_replace", first_dense, 0, ND_MAX_LAYERS, 0),
    I64("kv_lora_rank", kv_lora_rank, 0, MAX_WIDTH, 0), I64("q_lora_rank", q_lora_rank, 0, MAX_WIDTH, 0),
    I64("qk_rope_head_dim", rope_head_dim, 0, MAX_WIDTH, 0), I64("qk_nope_head_dim", nope_head_dim, 0, MAX_WIDTH, 0),
    I64("v_head_dim", v_head_dim, 0, MAX_WIDTH, 0), I64("linear_num_key_heads", lin_key_heads, 0, MAX_HEADS, 0),
    I64("linear_key_head_dim", lin_key_dim, 0, MAX_WIDTH, 0),
    I64("linear_num_value_heads", lin_value_heads, 0, MAX_HEADS, 0),
    I64("linear_value_head_dim", lin_value_dim, 0, MAX_WIDTH, 0),
    I64("linear_conv_kernel_dim", lin_conv, 0, 1024, 0), B("attn_output_gate", attn_output_gate),
    B("tie_word_embeddings", tied), B("qk_norm", qk_norm), B("qkv_bias", qkv_bias), B("o_bias", o_bias),
    B("mlp_bias", mlp_bias), B("norm_bias", norm_bias), B("shared_expert_gate", shared_gate), FIELD_STOP,
    I64("num_position_embeddings", learned_positions, 0, ND_MAX_TOKENS, 0), I64("patch_size", patch_size, 1, 4096, 1),
    I64("temporal_patch_size", temporal_patch, 1, 64, 1), I64("in_channels", in_channels, 1, 64, 3),
    I64("spatial_merge_size", merge_size, 1, 64, 1), I64("out_hidden_size", out_hidden, 0, MAX_WIDTH, 0),
    I64("deepstack_mergers", deepstack_mergers, 0, 64, 0), B("patch_bias", patch_bias), FIELD_STOP,
    FIELD_STRICT(model_t, family_run, "family", family, FAMILY_FIELDS),
    /* read by hand, or by the Lua side alone */
    FIELD_KEY("vocab_size"), FIELD_KEY("multiple_of"),
    FIELD_KEY("ffn_dim_multiplier"), FIELD_KEY("torch_dtype"), FIELD_KEY("kinds"), FIELD_KEY("layers"),
    FIELD_KEY("activations"), FIELD_KEY("output_activations"), FIELD_KEY("vision"),
    FIELD_KEY("layer_types"), FIELD_KEY("ops"), FIELD_END,
};

#define CENSUS(key, lo, hi) FIELD_NUM(census_record, #key, key, lo, hi, 0)
#define CENSUS_REQ(key) FIELD_REQNUM(census_record, #key, key, 0, 1e15)

/* A census record's fields: bytes per token, the first four required. */
static const field_desc CENSUS_FIELDS[] = {
    CENSUS_REQ(saved), CENSUS_REQ(saved_tp), CENSUS_REQ(working), CENSUS_REQ(working_tp),
    FIELD_REQ(census_record, "seq_length", seq_length, 1, ND_MAX_TOKENS), CENSUS(selective, 0, 1e15),
    CENSUS(selective_tp, 0, 1e15), CENSUS(selective_attention_mm, 0, 1), CENSUS(selective_ffn_mm, 0, 1),
    FIELD_KEY("ops"), FIELD_KEY("ops_tp"), FIELD_END,
};


/* A layer kind's flavours; its ops are read by hand. */
static const field_desc KIND_FIELDS[] = {
    FIELD_ENUM(layer_kind, attention_flavour, "attention", attention, &ATTENTION_KINDS),
    FIELD_ENUM(layer_kind, ffn_flavour, "ffn", ffn, &FFN_KINDS), FIELD_END,
};

static const field_desc GROUP_FIELDS[] = {
    FIELD_REQ(layer_group, "count", count, 1, ND_MAX_LAYERS), FIELD_BOOL(layer_group, "mtp", mtp, false), FIELD_END,
};

void lnd_push_family_defaults(lua_State *L) { fields_push_defaults(L, FAMILY_FIELDS); }

/* Whether a pair of census fields is stated: both or neither. */
static bool census_pair(lua_State *L, int t, const char *path, const char *a, const char *b)
{
    bool has = field_present(L, t, a);
    if (has != field_present(L, t, b))
        nd_bad_input(L, "%s: %s and %s come together", path, a, b);
    return has;
}

/* Reads the census record at index t (absolute) into *slot, a block the model owns. */
static void read_census(lua_State *L, int t, const char *path, census_record **slot)
{
    if (!lua_istable(L, t))
        nd_bad_input(L, "%s must be a census record (a table of bytes per token)", path);
    fields_refuse_unknown(L, t, path, "census record", CENSUS_FIELDS);
    census_record *r = *slot = calloc(1, sizeof *r);
    if (r == NULL)
        luaL_error(L, "out of memory");
    fields_read(L, t, lua_pushfstring(L, "%s.", path), CENSUS_FIELDS, r);
    r->has_selective = census_pair(L, t, path, "selective", "selective_tp");
    r->has_shares = census_pair(L, t, path, "selective_attention_mm", "selective_ffn_mm");
    lua_pop(L, 1);
}

/* Reads spec.kinds[name] into k (the name already set): its op counts and
 * flavours, and its census record in the activations table at kinds + 1. */
static void read_kind(lua_State *L, int kinds, layer_kind *k, const char *prefix)
{
    int top = lua_gettop(L), t = top + 1;
    bool described = lua_getfield(L, kinds, k->name) == LUA_TTABLE;
    const char *path = lua_pushfstring(L, "%skinds.%s", prefix, k->name);
    if (!described)
        nd_bad_input(L, "%s is not described (the stack names a kind its op profile does not have)", path);
    if (lua_getfield(L, t, "ops") != LUA_TTABLE)
        nd_bad_input(L, "%s.ops must list the op counts of the kind", path);
    const char *p = lua_pushfstring(L, "%s.ops.", path);
    for (int i = 0; i < OP_COUNT; i++)
        k->ops[i] = (double)field_int(L, top + 3, p, OP_NAMES[i], 0, 64, 0, true);
    fields_read(L, t, lua_pushfstring(L, "%s.", path), KIND_FIELDS, k);
    if (lua_getfield(L, kinds + 1, k->name) != LUA_TNIL)
        read_census(L, top + 6, lua_pushfstring(L, "%sactivations.%s", prefix, k->name), &k->census);
    lua_settop(L, top);
}

/* Index of the kind the group at g names (its name at the top of the stack), adding it when new. */
static int kind_index(lua_State *L, model_t *m, int g, int kinds, const char *prefix)
{
    const char *name = lua_tostring(L, -1);
    int known = model_kind_index(m, name);
    if (known >= 0)
        return known;
    /* a kind is looked up by a scan: bounded, a stack of many groups stays linear */
    if (m->n_kinds >= MAX_KINDS)
        nd_bad_input(L, "%slayers name more than %d layer kinds", prefix, MAX_KINDS);
    layer_kind *k = &m->kinds[m->n_kinds++];
    k->name = field_string(L, g, prefix, "kind", NULL);
    read_kind(L, kinds, k, prefix);
    return m->n_kinds - 1;
}

static void read_groups(lua_State *L, int spec, model_t *m, const char *prefix)
{
    if (lua_getfield(L, spec, "layers") != LUA_TTABLE || lua_rawlen(L, -1) == 0)
        nd_bad_input(L, "%slayers must list the layer groups of the stack", prefix);
    int layers = lua_gettop(L);
    if (lua_getfield(L, spec, "kinds") != LUA_TTABLE)
        nd_bad_input(L, "%skinds must describe the layer kinds of the stack", prefix);
    if (lua_getfield(L, spec, "activations") != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L); /* no census records */
    }
    size_t n = lua_rawlen(L, layers);
    if (n > ND_MAX_LAYERS)
        nd_bad_input(L, "%slayers lists %d groups; at most %d", prefix, (int)n, ND_MAX_LAYERS);
    m->groups = calloc(n, sizeof *m->groups);
    m->kinds = calloc(n < MAX_KINDS ? n : MAX_KINDS, sizeof *m->kinds); /* at most a kind per group */
    if (m->groups == NULL || m->kinds == NULL)
        luaL_error(L, "out of memory");
    m->n_groups = (int)n;
    for (int i = 1; i <= (int)n; i++) {
        const char *path = lua_pushfstring(L, "%slayers[%d]", prefix, i);
        int g = lua_rawgeti(L, layers, i) == LUA_TTABLE ? lua_gettop(L) : 0;
        if (g == 0 || lua_getfield(L, g, "kind") != LUA_TSTRING)
            nd_bad_input(L, "%s must be a group {kind = name, count = n, mtp = bool}", path);
        m->groups[i - 1].kind = kind_index(L, m, g, layers + 1, prefix);
        fields_read(L, g, lua_pushfstring(L, "%s.", path), GROUP_FIELDS, &m->groups[i - 1]);
        lua_pop(L, 4);
    }
    lua_pop(L, 3);
}

/* Reads the settled spec at index spec (absolute; a vision tower's when tower
 * is set); model_settle checks it. */
static void read_model(lua_State *L, int spec, model_t *m, const char *prefix, bool tower)
{
    int top = lua_gettop(L);
    fields_refuse_unknown(L, spec, prefix, "model spec", MODEL_FIELDS);
    const field_desc *d = fields_read(L, spec, prefix, MODEL_FIELDS, m);
    m->vocab = field_int(L, spec, prefix, "vocab_size", tower ? 0 : 1, MAX_VOCAB, 0, !tower);
    d = tower ? fields_read(L, spec, prefix, d, m) : fields_skip(d);
    fields_read(L, spec, prefix, d, m); /* the family: absent, every field its default */
    read_groups(L, spec, m, prefix);
    if (lua_getfield(L, spec, "output_activations") == LUA_TTABLE)
        read_census(L, top + 1, lua_pushfstring(L, "%soutput_activations", prefix), &m->output_census);
    if (!tower && lua_getfield(L, spec, "vision") == LUA_TTABLE) {
        m->vision = calloc(1, sizeof *m->vision);
        if (m->vision == NULL)
            luaL_error(L, "out of memory");
        read_model(L, lua_gettop(L), m->vision, "vision.", true);
    }
    lua_settop(L, top);
}

/* nd.core.model(spec): validates a settled spec and returns an nd.model. */
/* nd.core.model_bounds() -> {field = {lo, hi}, census = {field = {lo, hi}}}: the range
 * of each number field of a model spec (a tower's too, vocab_size's among them) and of
 * a census record. */
int lnd_model_bounds(lua_State *L)
{
    lua_newtable(L);
    fields_set_bounds(L, MODEL_FIELDS);
    fields_set_bound(L, "vocab_size", 1, (double)MAX_VOCAB);
    lua_newtable(L); /* a census record's, apart: its keys are other */
    fields_set_bounds(L, CENSUS_FIELDS);
    lua_setfield(L, -2, "census");
    return 1;
}

int lnd_model_new(lua_State *L)
{
    lnd_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    model_box *box = lnd_new_box(L, &MODEL_KIND, 1); /* user value: the spec table */
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

/* The totals and the parts; the FLOPs' seq_len comes before their parts (after the stop). */
static const field_desc PARAMS_PARTS[] = {
    P(embedding), P(attention), P(norms), P(dense_mlp), P(routed_experts), P(shared_experts), P(router), P(output),
    P(mtp), P(vision), FIELD_END,
};
static const field_desc PARAMS_FIELDS[] = {P(total), P(active), FIELD_NESTED("by_part", PARAMS_PARTS), FIELD_END};
static const field_desc FLOPS_PARTS[] = {
    F(attention_proj), F(attention_scores), F(linear_recurrence), F(mlp), F(routed_experts), F(shared_experts),
    F(router), F(output), F(mtp), F(vision), FIELD_END,
};
static const field_desc FLOPS_FIELDS[] = {
    F(total), F(causal_factor), FIELD_STOP, FIELD_NESTED("by_part", FLOPS_PARTS), FIELD_END,
};
/* A kind's sizes, then (after the stop) its parameters per layer. */
#define KP(key, m) FIELD_NUM(layer_kind, key, params.m, 0, 0, 0)
static const field_desc KIND_PARAMS[] = {
    KP("attention", attention), KP("norms", norms), KP("dense_mlp", dense_mlp), KP("router", router),
    KP("routed_experts", routed), KP("shared_experts", shared), FIELD_END,
};
static const field_desc KIND_OUT[] = {
    NUM(layer_kind, heads), NUM(layer_kind, kv_heads), NUM(layer_kind, qk_head_dim), NUM(layer_kind, v_head_dim),
    NUM(layer_kind, ffn_width), FIELD_STOP, FIELD_NESTED("params", KIND_PARAMS), FIELD_END,
};

/* model:params() -> {total, active, by_part = {...}} */
static int model_params_method(lua_State *L)
{
    model_params p = model_count_params(lnd_check_model(L, 1));
    lua_createtable(L, 0, 3);
    fields_push(L, PARAMS_FIELDS, &p);
    return 1;
}

/* model:flops(seq_len) -> {total, causal_factor, seq_len, by_part = {...}}: forward FLOPs per token */
static int model_flops_method(lua_State *L)
{
    model_t *m = lnd_check_model(L, 1);
    lua_Integer s = lnd_checkinteger(L, 2);
    lnd_argcheck(L, s >= 1 && s <= ((lua_Integer)1 << 31), 2, "seq_len must be a positive number of tokens");
    model_flops f = model_count_flops(m, (int64_t)s);
    lua_createtable(L, 0, 4);
    const field_desc *parts = fields_push(L, FLOPS_FIELDS, &f);
    field_set_int(L, "seq_len", s);
    fields_push(L, parts, &f);
    return 1;
}

static void push_kind(lua_State *L, const layer_kind *k)
{
    lua_createtable(L, 0, 10);
    field_set_string(L, "name", k->name);
    field_set_string(L, "attention", kind_form(k)->name);
    field_set_string(L, "ffn", kind_ffn(k)->name);
    const field_desc *params = fields_push(L, KIND_OUT, k);
    field_set_bool(L, "census", k->census != NULL);
    fields_push(L, params, k);
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
        fields_push(L, GROUP_FIELDS, &m->groups[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static const luaL_Reg model_methods[] = {
    {"params", model_params_method},
    {"flops", model_flops_method},
    {"stack", model_stack_method},
    {NULL, NULL},
};

const layer_kind *lnd_check_kind(lua_State *L, const model_t *m, int arg)
{
    int i = model_kind_index(m, lnd_checkstring(L, arg));
    if (i < 0)
        lnd_argerror(L, arg, "no layer kind of that name in the model");
    return &m->kinds[i];
}

void lnd_open_model(lua_State *L)
{
    lnd_new_type(L, &MODEL_KIND, NULL, model_methods); /* __tostring: lua/nd/model.lua */
    lua_createtable(L, 0, 2); /* `choices`: a layer kind's attention and FFN kinds (core/model.h) */
    field_push_choices(L, &ATTENTION_KINDS);
    lua_setfield(L, -2, "attention");
    field_push_choices(L, &FFN_KINDS);
    lua_setfield(L, -2, "ffn");
    lua_setfield(L, -2, "choices");
}
