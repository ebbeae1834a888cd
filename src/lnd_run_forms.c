/* lnd_run_forms.c: reading offsets, per-stage recompute counts and recompute ranges of a run table. */
#include "lnd_run.h"

#include <stdlib.h>
#include <string.h>

#include "lua_fields.h"
#include "luautil.h"

#define MAX_LAYERS 100000

static int64_t *alloc_counts(lua_State *L, int64_t n)
{
    int64_t *c = calloc((size_t)n, sizeof *c);
    if (c == NULL)
        luaL_error(L, "out of memory");
    return c;
}

static int64_t read_count(lua_State *L, int idx, const char *key, int64_t lo, const char *where)
{
    int isnum;
    lua_Integer v = lua_tointegerx(L, idx, &isnum);
    if (!isnum || v < lo || v > MAX_LAYERS)
        nd_bad_input(L, "%s%s must hold whole numbers from %I to %d, got %s", key, where, (lua_Integer)lo,
                     MAX_LAYERS, luaL_tolstring(L, idx, NULL));
    return (int64_t)v;
}

/* A per-stage form: true/false (every layer or none), an integer (that many
 * per stage), a list of pp integers, or vpp lists of pp integers (chunk-major). */
static void read_form(lua_State *L, int t, const char *key, const run_t *r, per_stage *f, int64_t lo, bool flag_ok)
{
    f->form = FORM_NONE;
    f->counts = NULL;
    lua_getfield(L, t, key);
    int v = lua_gettop(L);
    if (lua_isnil(L, v) || nd_is_null(L, v)) {
        lua_pop(L, 1);
        return;
    }
    if (lua_isboolean(L, v) && flag_ok) {
        f->form = lua_toboolean(L, v) ? FORM_ALL : FORM_NONE;
    } else if (lua_type(L, v) == LUA_TNUMBER) {
        int64_t k = read_count(L, v, key, lo, "");
        if (k != 0 || !flag_ok) {
            f->form = FORM_STAGES;
            f->counts = alloc_counts(L, r->pp);
            for (int64_t s = 0; s < r->pp; s++)
                f->counts[s] = k;
        }
    } else if (lua_istable(L, v)) {
        lua_rawgeti(L, v, 1);
        bool nested = lua_istable(L, -1);
        lua_pop(L, 1);
        int64_t rows = nested ? r->vpp : 1, n = (int64_t)lua_rawlen(L, v);
        if (n != (nested ? r->vpp : r->pp))
            nd_bad_input(L, "%s lists %I %s; the run has %I", key, (lua_Integer)n,
                         nested ? "chunks" : "entries", (lua_Integer)(nested ? r->vpp : r->pp));
        f->form = nested ? FORM_CHUNKS : FORM_STAGES;
        f->counts = alloc_counts(L, rows * r->pp);
        for (int64_t c = 0; c < rows; c++) {
            if (nested)
                lua_rawgeti(L, v, c + 1);
            int row = nested ? lua_gettop(L) : v;
            if (!lua_istable(L, row) || (int64_t)lua_rawlen(L, row) != r->pp)
                nd_bad_input(L, "%s%s must list one entry per stage (%I)", key, nested ? "[chunk]" : "",
                             (lua_Integer)r->pp);
            for (int64_t s = 0; s < r->pp; s++) {
                lua_rawgeti(L, row, s + 1);
                f->counts[c * r->pp + s] = read_count(L, -1, key, lo, "");
                lua_pop(L, 1);
            }
            if (nested)
                lua_pop(L, 1);
        }
    } else {
        nd_bad_input(L, "%s must be %sa number or a list of numbers per stage, got %s", key,
                     flag_ok ? "true, false, " : "", luaL_tolstring(L, v, NULL));
    }
    lua_pop(L, 1);
}

void lnd_read_pipeline(lua_State *L, int t, run_t *r)
{
    read_form(L, t, "offset", r, &r->offset, -MAX_LAYERS, true);
    if (r->offset.form == FORM_ALL)
        nd_bad_input(L, "offset must be a number or a list of numbers per stage, not true");
}

static recompute_mode read_option(lua_State *L, int range, const char *where)
{
    char *opt = field_string(L, range, where, "option", "none");
    recompute_mode mode = REC_OFF;
    bool ok = true;
    if (strcmp(opt, "full") == 0)
        mode = REC_FULL;
    else if (strcmp(opt, "selective") == 0)
        mode = REC_SELECTIVE;
    else if (strcmp(opt, "none") != 0 && strcmp(opt, "off") != 0)
        ok = false;
    free(opt);
    if (!ok)
        nd_bad_input(L, "%soption must be none, off, selective or full", where);
    return mode;
}

static void read_range_ops(lua_State *L, int range, const char *where, recompute_range *g)
{
    memset(g->ops, 1, sizeof g->ops);
    lua_getfield(L, range, "ops");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    if (g->mode != REC_SELECTIVE || !lua_istable(L, -1))
        nd_bad_input(L, "%sops: only a selective range names ops, as {op = \"keep\" | \"recompute\"}", where);
    g->has_ops = true;
    for (int i = 0; i < SW_COUNT; i++) {
        lua_getfield(L, -1, SWITCH_NAMES[i]);
        const char *v = lua_tostring(L, -1);
        if (v != NULL && strcmp(v, "recompute") == 0)
            g->ops[i] = 0;
        else if (v != NULL && strcmp(v, "keep") != 0)
            nd_bad_input(L, "%sops.%s must be keep or recompute", where, SWITCH_NAMES[i]);
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
        lua_pop(L, 1);
        const char *name = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
        bool known = false;
        for (int i = 0; i < SW_COUNT; i++)
            known = known || strcmp(name, SWITCH_NAMES[i]) == 0;
        if (!known)
            nd_bad_input(L, "%sops: '%s' is no op a recompute can drop (attBMM, headCast, dropout, softmax, "
                            "normOp, gather, ffAct, attUp)", where, name);
    }
    lua_pop(L, 1);
}

static const char *const RANGE_KEYS[] = {"first", "count", "option", "ops", NULL};

static void read_range(lua_State *L, int range, int i, recompute_range *g, int64_t after)
{
    const char *where = lua_pushfstring(L, "recompute[%d].", i);
    if (!lua_istable(L, range))
        nd_bad_input(L, "recompute[%d] must be a range {first, count, option, ops}", i);
    field_refuse_unknown(L, range, where, "range", RANGE_KEYS);
    g->first = field_int(L, range, where, "first", 0, MAX_LAYERS, 0, false);
    g->count = field_int(L, range, where, "count", 1, MAX_LAYERS, -1, false);
    g->mode = read_option(L, range, where);
    read_range_ops(L, range, where, g);
    if (g->first < after)
        nd_bad_input(L, "recompute[%d] starts at layer %I, inside or before the range before it (which ends "
                        "at %I); ranges go in model order without overlap", i, (lua_Integer)g->first,
                     (lua_Integer)after);
    lua_pop(L, 1);
}

static void read_ranges(lua_State *L, int v, run_t *r)
{
    /* ranges go in model order without overlap: at most one a layer */
    size_t len = lua_rawlen(L, v);
    if (len > MAX_LAYERS)
        nd_bad_input(L, "recompute lists %I ranges; at most %d (one a layer)", (lua_Integer)len, MAX_LAYERS);
    int n = (int)len;
    if (n == 0)
        return;
    r->ranges = calloc((size_t)n, sizeof *r->ranges);
    if (r->ranges == NULL)
        luaL_error(L, "out of memory");
    int64_t after = 0;
    for (int i = 1; i <= n; i++) {
        if (i > 1 && r->ranges[i - 2].count < 0)
            nd_bad_input(L, "recompute[%d] follows an open range (no count); only the last may be open", i);
        lua_rawgeti(L, v, i);
        read_range(L, lua_gettop(L), i, &r->ranges[i - 1], after);
        lua_pop(L, 1);
        r->n_ranges = i;
        after = r->ranges[i - 1].first + (r->ranges[i - 1].count > 0 ? r->ranges[i - 1].count : 0);
    }
}

/* recompute: "off" | "selective" | "full" (every layer), or ranges in model order. */
void lnd_read_recompute(lua_State *L, int t, run_t *r)
{
    read_form(L, t, "full_recompute", r, &r->full_recompute, 0, true);
    read_form(L, t, "selective_recompute", r, &r->selective_recompute, 0, true);
    lua_getfield(L, t, "recompute");
    int v = lua_gettop(L);
    if (lua_type(L, v) == LUA_TSTRING) {
        const char *mode = lua_tostring(L, v);
        if (r->full_recompute.form != FORM_NONE || r->selective_recompute.form != FORM_NONE)
            nd_bad_input(L, "recompute: state either a mode or full_recompute / selective_recompute, not both");
        if (strcmp(mode, "full") == 0)
            r->full_recompute.form = FORM_ALL;
        else if (strcmp(mode, "selective") == 0)
            r->selective_recompute.form = FORM_ALL;
        else if (strcmp(mode, "off") != 0 && strcmp(mode, "none") != 0)
            nd_bad_input(L, "recompute: '%s' is not a recompute mode; expected off, selective, full, or a list "
                            "of ranges {first, count, option, ops}", mode);
    } else if (lua_istable(L, v)) {
        read_ranges(L, v, r);
    } else if (!lua_isnil(L, v) && !nd_is_null(L, v)) {
        nd_bad_input(L, "recompute must be off, selective, full, or a list of ranges, got %s",
                     luaL_tolstring(L, v, NULL));
    }
    lua_pop(L, 1);
}
