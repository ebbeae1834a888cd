/* lnd_model.c: the nd.model userdata: a settled model spec read into model_t. */
#include "lnd_types.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lua_fields.h"
#include "luautil.h"

/* Ranges keep every product of sizes far inside a double's exact integers:
 * sizes are multiplied as doubles (exact to 2^53), never as int64. */
#define MAX_WIDTH ((int64_t)1 << 24)   /* hidden, FFN and latent widths */
#define MAX_VOCAB ((int64_t)1 << 31)
#define MAX_LAYERS 100000
#define MAX_HEADS 65536
#define MAX_EXPERTS 65536
#define MAX_TOKENS ((int64_t)1 << 31)
#define MAX_KINDS 1024

static const char *const SPEC_KEYS[] = {
    "name", "arch", "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
    "head_dim", "intermediate_size", "vocab_size", "max_position_embeddings", "num_experts",
    "num_experts_per_tok", "num_shared_experts", "moe_intermediate_size", "shared_expert_intermediate_size",
    "first_k_dense_replace", "mtp_depth", "multiple_of", "ffn_dim_multiplier", "kv_lora_rank", "q_lora_rank",
    "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "attn_output_gate", "tie_word_embeddings", "qk_norm",
    "qkv_bias", "o_bias", "mlp_bias", "norm_bias", "shared_expert_gate", "layer_norms", "torch_dtype",
    "linear_num_key_heads", "linear_key_head_dim", "linear_num_value_heads", "linear_value_head_dim",
    "linear_conv_kernel_dim", "learned_position_embeddings", "kinds", "layers", "family", "activations",
    "output_activations", "vision", "layer_types", "ops",
    /* vision towers */
    "out_hidden_size", "patch_size", "spatial_merge_size", "num_position_embeddings", "temporal_patch_size",
    "in_channels", "patch_bias", "deepstack_mergers",
    NULL,
};

static const char *const FAMILY_KEYS[] = {
    "grad_bytes", "optimizer_state_bytes", "optimizer_states", "main_param_bytes", "norm_bytes",
    "dropout_bytes", "grad_accumulation", "shard_activations", "loss_parallel", "reshard_params",
    "deferred_grad_accumulation", "overlapped_grad_reduce", "flash_attention", "v_head_dim", NULL,
};

static const char *const CENSUS_KEYS[] = {
    "saved", "saved_tp", "working", "working_tp", "seq_length", "selective", "selective_tp",
    "selective_attention_mm", "selective_ffn_mm", "ops", "ops_tp", NULL,
};

static char *join(lua_State *L, const char *a, const char *b)
{
    lua_pushfstring(L, "%s%s", a, b);
    return (char *)lua_tostring(L, -1); /* kept on the stack by the caller */
}

static void read_family(lua_State *L, int spec, const char *prefix, family_run *f)
{
    /* DEFAULT_RUN of the reference's op profiles (memory-model.md §4.8), flash attention on */
    family_run d = {4, 4, 2, 0, 4, 0, false, false, true, false, false, false, true, 0};
    *f = d;
    if (lua_getfield(L, spec, "family") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    int t = lua_gettop(L);
    const char *p = join(L, prefix, "family.");
    field_refuse_unknown(L, t, p, "family", FAMILY_KEYS);
    f->grad_bytes = (int)field_int(L, t, p, "grad_bytes", 0, 16, d.grad_bytes, false);
    f->optimizer_state_bytes = (int)field_int(L, t, p, "optimizer_state_bytes", 0, 16, d.optimizer_state_bytes, false);
    f->optimizer_states = (int)field_int(L, t, p, "optimizer_states", 0, 16, d.optimizer_states, false);
    f->main_param_bytes = (int)field_int(L, t, p, "main_param_bytes", 0, 16, d.main_param_bytes, false);
    f->norm_bytes = (int)field_int(L, t, p, "norm_bytes", 0, 16, d.norm_bytes, false);
    f->dropout_bytes = (int)field_int(L, t, p, "dropout_bytes", 0, 16, d.dropout_bytes, false);
    f->grad_accumulation = field_bool(L, t, p, "grad_accumulation", d.grad_accumulation);
    f->shard_activations = field_bool(L, t, p, "shard_activations", d.shard_activations);
    f->loss_parallel = field_bool(L, t, p, "loss_parallel", d.loss_parallel);
    f->reshard_params = field_bool(L, t, p, "reshard_params", d.reshard_params);
    f->deferred_grad_accumulation = field_bool(L, t, p, "deferred_grad_accumulation", d.deferred_grad_accumulation);
    f->overlapped_grad_reduce = field_bool(L, t, p, "overlapped_grad_reduce", d.overlapped_grad_reduce);
    f->flash_attention = field_bool(L, t, p, "flash_attention", d.flash_attention);
    f->v_head_dim = field_int(L, t, p, "v_head_dim", 1, MAX_WIDTH, 0, false);
    lua_pop(L, 2);
}

/* Reads a census record at index t; the record lives in a malloc'd block. */
census_record *lnd_read_census(lua_State *L, int t, const char *path)
{
    t = lua_absindex(L, t);
    if (!lua_istable(L, t))
        nd_bad_input(L, "%s must be a census record (a table of bytes per token)", path);
    const char *p = join(L, path, ".");
    field_refuse_unknown(L, t, path, "census record", CENSUS_KEYS);
    census_record r;
    memset(&r, 0, sizeof r);
    const char *base[] = {"saved", "saved_tp", "working", "working_tp"};
    double *dst[] = {&r.saved, &r.saved_tp, &r.working, &r.working_tp};
    for (int i = 0; i < 4; i++) {
        if (!field_present(L, t, base[i]))
            nd_bad_input(L, "%s%s is required in a census record", p, base[i]);
        *dst[i] = field_number(L, t, p, base[i], 0, 1e15, 0);
    }
    r.seq_length = field_int(L, t, p, "seq_length", 1, MAX_TOKENS, 0, true);
    r.has_selective = field_present(L, t, "selective") || field_present(L, t, "selective_tp");
    if (r.has_selective && !(field_present(L, t, "selective") && field_present(L, t, "selective_tp")))
        nd_bad_input(L, "%s states one of selective and selective_tp without the other", path);
    r.selective = field_number(L, t, p, "selective", 0, 1e15, 0);
    r.selective_tp = field_number(L, t, p, "selective_tp", 0, 1e15, 0);
    r.has_shares = field_present(L, t, "selective_attention_mm") || field_present(L, t, "selective_ffn_mm");
    if (r.has_shares &&
        !(field_present(L, t, "selective_attention_mm") && field_present(L, t, "selective_ffn_mm")))
        nd_bad_input(L, "%s states one of selective_attention_mm and selective_ffn_mm without the other", path);
    r.selective_attention_mm = field_number(L, t, p, "selective_attention_mm", 0, 1, 0);
    r.selective_ffn_mm = field_number(L, t, p, "selective_ffn_mm", 0, 1, 0);
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

static void read_core(lua_State *L, int spec, model_t *m, const char *prefix, bool tower)
{
    m->hidden = field_int(L, spec, prefix, "hidden_size", 1, MAX_WIDTH, 0, true);
    m->layers = field_int(L, spec, prefix, "num_hidden_layers", 1, MAX_LAYERS, 0, true);
    m->heads = field_int(L, spec, prefix, "num_attention_heads", 1, MAX_HEADS, 0, true);
    m->vocab = field_int(L, spec, prefix, "vocab_size", tower ? 0 : 1, MAX_VOCAB, 0, !tower);
    m->kv_heads = field_int(L, spec, prefix, "num_key_value_heads", 1, MAX_HEADS, m->heads, false);
    if (m->heads % m->kv_heads != 0)
        nd_bad_input(L, "%snum_attention_heads (%I) is not divisible by num_key_value_heads (%I)", prefix,
                     (lua_Integer)m->heads, (lua_Integer)m->kv_heads);
    m->head_dim = (double)field_int(L, spec, prefix, "head_dim", 1, MAX_WIDTH, 0, false);
    m->ffn_width = field_int(L, spec, prefix, "intermediate_size", 0, MAX_WIDTH, 0, false);
    m->max_positions = field_int(L, spec, prefix, "max_position_embeddings", 0, MAX_TOKENS, 0, false);
    m->layer_norms = field_int(L, spec, prefix, "layer_norms", 0, 64, 2, false);
    m->learned_positions = field_int(L, spec, prefix, "learned_position_embeddings", 0, MAX_TOKENS, 0, false);
    m->mtp_depth = field_int(L, spec, prefix, "mtp_depth", 0, MAX_LAYERS, 0, false);
}

static void read_moe(lua_State *L, int spec, model_t *m, const char *prefix)
{
    m->experts = field_int(L, spec, prefix, "num_experts", 0, MAX_EXPERTS, 1, false);
    if (m->experts < 1)
        m->experts = 1;
    m->top_k = field_int(L, spec, prefix, "num_experts_per_tok", 1, MAX_EXPERTS, 1, false);
    m->shared_experts = field_int(L, spec, prefix, "num_shared_experts", 0, MAX_EXPERTS, 0, false);
    m->expert_width = field_int(L, spec, prefix, "moe_intermediate_size", 0, MAX_WIDTH, 0, false);
    if (m->expert_width == 0 && m->experts > 1)
        m->expert_width = m->ffn_width; /* Mixtral runs its experts at the dense width */
    int64_t shared = field_int(L, spec, prefix, "shared_expert_intermediate_size", 0, MAX_WIDTH, 0, false);
    m->shared_width = shared > 0 ? shared : m->shared_experts * m->expert_width;
    if (m->shared_experts > 0 && m->shared_width <= 0)
        nd_bad_input(L, "%snum_shared_experts is set but no width resolves for it; declare "
                        "shared_expert_intermediate_size or moe_intermediate_size", prefix);
    m->first_dense = field_int(L, spec, prefix, "first_k_dense_replace", 0, MAX_LAYERS, 0, false);
    if (m->experts > 1 && m->top_k > m->experts)
        nd_bad_input(L, "%snum_experts_per_tok (%I) exceeds num_experts (%I)", prefix, (lua_Integer)m->top_k,
                     (lua_Integer)m->experts);
}

static void read_attention_extras(lua_State *L, int spec, model_t *m, const char *prefix)
{
    m->kv_lora_rank = field_int(L, spec, prefix, "kv_lora_rank", 0, MAX_WIDTH, 0, false);
    m->q_lora_rank = field_int(L, spec, prefix, "q_lora_rank", 0, MAX_WIDTH, 0, false);
    m->rope_head_dim = field_int(L, spec, prefix, "qk_rope_head_dim", 0, MAX_WIDTH, 0, false);
    m->nope_head_dim = field_int(L, spec, prefix, "qk_nope_head_dim", 0, MAX_WIDTH, 0, false);
    m->v_head_dim = field_int(L, spec, prefix, "v_head_dim", 0, MAX_WIDTH, 0, false);
    m->lin_key_heads = field_int(L, spec, prefix, "linear_num_key_heads", 0, MAX_HEADS, 0, false);
    m->lin_key_dim = field_int(L, spec, prefix, "linear_key_head_dim", 0, MAX_WIDTH, 0, false);
    m->lin_value_heads = field_int(L, spec, prefix, "linear_num_value_heads", 0, MAX_HEADS, 0, false);
    m->lin_value_dim = field_int(L, spec, prefix, "linear_value_head_dim", 0, MAX_WIDTH, 0, false);
    m->lin_conv = field_int(L, spec, prefix, "linear_conv_kernel_dim", 0, 1024, 0, false);
    m->attn_output_gate = field_bool(L, spec, prefix, "attn_output_gate", false);
    m->tied = field_bool(L, spec, prefix, "tie_word_embeddings", false);
    m->qk_norm = field_bool(L, spec, prefix, "qk_norm", false);
    m->qkv_bias = field_bool(L, spec, prefix, "qkv_bias", false);
    m->o_bias = field_bool(L, spec, prefix, "o_bias", false);
    m->mlp_bias = field_bool(L, spec, prefix, "mlp_bias", false);
    m->norm_bias = field_bool(L, spec, prefix, "norm_bias", false);
    m->shared_gate = field_bool(L, spec, prefix, "shared_expert_gate", false);
}

static void read_tower_extras(lua_State *L, int spec, model_t *m, const char *prefix)
{
    m->patch_size = field_int(L, spec, prefix, "patch_size", 0, 4096, 0, false);
    m->temporal_patch = field_int(L, spec, prefix, "temporal_patch_size", 1, 64, 1, false);
    m->in_channels = field_int(L, spec, prefix, "in_channels", 1, 64, 3, false);
    m->merge_size = field_int(L, spec, prefix, "spatial_merge_size", 1, 64, 1, false);
    m->out_hidden = field_int(L, spec, prefix, "out_hidden_size", 0, MAX_WIDTH, 0, false);
    m->deepstack_mergers = field_int(L, spec, prefix, "deepstack_mergers", 0, 64, 0, false);
    m->patch_bias = field_bool(L, spec, prefix, "patch_bias", false);
    if (m->learned_positions == 0)
        m->learned_positions = field_int(L, spec, prefix, "num_position_embeddings", 0, MAX_TOKENS, 0, false);
    if (m->patch_size == 0)
        m->patch_size = 1; /* a tower without a stated patch still prices as a tower */
    if (m->out_hidden == 0)
        m->out_hidden = m->hidden;
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
            m->kinds[found].census = lnd_read_census(L, -2, path);
            lua_pop(L, 2);
        }
    }
    lua_pop(L, 1);
    if (lua_getfield(L, spec, "output_activations") == LUA_TTABLE) {
        const char *path = lua_pushfstring(L, "%soutput_activations", prefix);
        m->output_census = lnd_read_census(L, -2, path);
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
    field_refuse_unknown(L, spec, prefix, "model spec", SPEC_KEYS);
    m->name = field_string(L, spec, prefix, "name", tower ? "vision" : "custom");
    m->arch = field_string(L, spec, prefix, "arch", tower ? "vision" : "default");
    read_core(L, spec, m, prefix, tower);
    read_moe(L, spec, m, prefix);
    read_attention_extras(L, spec, m, prefix);
    if (tower)
        read_tower_extras(L, spec, m, prefix);
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
    model_box *box = lnd_push_model_box(L);
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
