/* yaml_emit.c: Lua values to YAML text with libyaml's emitter, in document key order. */
#include "yaml_bridge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <yaml.h>

#include "bytebuf.h"
#include "docmeta.h"
#include "file_write.h"
#include "luautil.h"
#include "numfmt.h"
#include "yaml_scalar.h"

static const char WRITER_TYPE[] = "ndlua.yaml_writer";

typedef struct {
    yaml_emitter_t emitter;
    int has_emitter;
    bytebuf_t out;
    int out_of_memory;
    int visiting; /* stack index of the set of tables being written */
} writer_t;

static int writer_gc(lua_State *L)
{
    writer_t *w = luaL_checkudata(L, 1, WRITER_TYPE);
    if (w->has_emitter)
        yaml_emitter_delete(&w->emitter);
    w->has_emitter = 0;
    bytebuf_free(&w->out);
    return 0;
}

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
    writer_t *w = data;
    if (bytebuf_add(&w->out, buffer, size) != 0) {
        w->out_of_memory = 1;
        return 0;
    }
    return 1;
}

static writer_t *writer_new(lua_State *L)
{
    writer_t *w = nd_new_scratch(L, sizeof *w, WRITER_TYPE, writer_gc);
    if (!yaml_emitter_initialize(&w->emitter))
        luaL_error(L, "out of memory initialising the YAML emitter");
    w->has_emitter = 1;
    yaml_emitter_set_output(&w->emitter, write_handler, w);
    yaml_emitter_set_unicode(&w->emitter, 1);
    yaml_emitter_set_width(&w->emitter, 100);
    yaml_emitter_set_indent(&w->emitter, 2);
    return w;
}

static void emit(lua_State *L, writer_t *w, yaml_event_t *event)
{
    if (!yaml_emitter_emit(&w->emitter, event)) {
        if (w->out_of_memory)
            luaL_error(L, "out of memory writing YAML");
        luaL_error(L, "cannot write YAML: %s", w->emitter.problem ? w->emitter.problem : "emitter error");
    }
}

static void emit_scalar(lua_State *L, writer_t *w, const char *text, size_t n, int plain_ok,
                        yaml_scalar_style_t style)
{
    yaml_event_t e;
    if (!yaml_scalar_event_initialize(&e, NULL, NULL, (yaml_char_t *)text, (int)n, plain_ok, 1, style))
        luaL_error(L, "out of memory writing YAML");
    emit(L, w, &e);
}

static int fail_path(lua_State *L, const char *path, const char *what)
{
    return luaL_error(L, "cannot write %s at %s as YAML", what, *path ? path : "the top level");
}

static void emit_string(lua_State *L, writer_t *w, int idx, const char *path)
{
    size_t n;
    const char *s = lua_tolstring(L, idx, &n);
    /* YAML text is Unicode: libyaml refuses other bytes (as if out of memory) */
    if (nd_utf8_valid_prefix(s, n) != n)
        fail_path(L, path, "a string that is not UTF-8 text");
    int plain_ok = yaml_plain_is_string(s, n);
    yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;
    if (memchr(s, '\n', n) != NULL)
        style = YAML_LITERAL_SCALAR_STYLE; /* libyaml quotes it where a block cannot be */
    else if (!plain_ok)
        style = YAML_SINGLE_QUOTED_SCALAR_STYLE;
    emit_scalar(L, w, s, n, plain_ok, style);
}

static void emit_number(lua_State *L, writer_t *w, int idx)
{
    char buf[64];
    if (lua_isinteger(L, idx))
        snprintf(buf, sizeof buf, LUA_INTEGER_FMT, (LUAI_UACINT)lua_tointeger(L, idx));
    else
        numfmt_float(lua_tonumber(L, idx), buf, sizeof buf);
    emit_scalar(L, w, buf, strlen(buf), 1, YAML_PLAIN_SCALAR_STYLE);
}

static void emit_value(lua_State *L, writer_t *w, int idx, int depth, const char *path);

static void emit_sequence(lua_State *L, writer_t *w, int t, int depth, const char *path)
{
    yaml_event_t e;
    yaml_sequence_start_event_initialize(&e, NULL, NULL, 1, YAML_ANY_SEQUENCE_STYLE);
    emit(L, w, &e);
    lua_Integer n = (lua_Integer)lua_rawlen(L, t);
    for (lua_Integer i = 1; i <= n; i++) {
        const char *sub = lua_pushfstring(L, "%s[%d]", path, (int)i);
        lua_rawgeti(L, t, i);
        emit_value(L, w, lua_gettop(L), depth + 1, sub);
        lua_pop(L, 2);
    }
    yaml_sequence_end_event_initialize(&e);
    emit(L, w, &e);
}

static void emit_key(lua_State *L, writer_t *w, int k, const char *path)
{
    switch (lua_type(L, k)) {
    case LUA_TSTRING: emit_string(L, w, k, path); break;
    case LUA_TNUMBER: emit_number(L, w, k); break;
    case LUA_TBOOLEAN:
        emit_scalar(L, w, lua_toboolean(L, k) ? "true" : "false", lua_toboolean(L, k) ? 4 : 5, 1,
                    YAML_PLAIN_SCALAR_STYLE);
        break;
    default:
        if (nd_is_null(L, k))
            emit_scalar(L, w, "null", 4, 1, YAML_PLAIN_SCALAR_STYLE);
        else
            fail_path(L, path, lua_pushfstring(L, "a %s key", luaL_typename(L, k)));
    }
}

static void emit_mapping(lua_State *L, writer_t *w, int t, int depth, const char *path)
{
    yaml_event_t e;
    yaml_mapping_start_event_initialize(&e, NULL, NULL, 1, YAML_ANY_MAPPING_STYLE);
    emit(L, w, &e);
    lua_Integer n = docmeta_push_ordered_keys(L, t);
    int keys = lua_gettop(L);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, keys, i);
        int k = lua_gettop(L);
        const char *sub = *path ? lua_pushfstring(L, "%s.%s", path, luaL_tolstring(L, k, NULL))
                                : lua_pushfstring(L, "%s", luaL_tolstring(L, k, NULL));
        lua_remove(L, -2);
        emit_key(L, w, k, sub);
        lua_pushvalue(L, k);
        lua_rawget(L, t);
        emit_value(L, w, lua_gettop(L), depth + 1, sub);
        lua_settop(L, keys);
    }
    lua_pop(L, 1);
    yaml_mapping_end_event_initialize(&e);
    emit(L, w, &e);
}

static void emit_table(lua_State *L, writer_t *w, int t, int depth, const char *path)
{
    nd_write_enter(L, w->visiting, t, depth, path, "YAML");
    if (docmeta_is_sequence(L, t))
        emit_sequence(L, w, t, depth, path);
    else
        emit_mapping(L, w, t, depth, path);
    nd_write_leave(L, w->visiting, t);
}

static void emit_value(lua_State *L, writer_t *w, int idx, int depth, const char *path)
{
    switch (lua_type(L, idx)) {
    case LUA_TNIL: emit_scalar(L, w, "null", 4, 1, YAML_PLAIN_SCALAR_STYLE); break;
    case LUA_TBOOLEAN:
        emit_scalar(L, w, lua_toboolean(L, idx) ? "true" : "false", lua_toboolean(L, idx) ? 4 : 5, 1,
                    YAML_PLAIN_SCALAR_STYLE);
        break;
    case LUA_TNUMBER: emit_number(L, w, idx); break;
    case LUA_TSTRING: emit_string(L, w, idx, path); break;
    case LUA_TTABLE: emit_table(L, w, idx, depth, path); break;
    default:
        if (nd_is_null(L, idx))
            emit_scalar(L, w, "null", 4, 1, YAML_PLAIN_SCALAR_STYLE);
        else
            fail_path(L, path, lua_pushfstring(L, "a %s", luaL_typename(L, idx)));
    }
}

/* Emits the value at index 1 as one document; pushes the text. */
static void encode_to_string(lua_State *L)
{
    writer_t *w = writer_new(L);
    lua_newtable(L);
    w->visiting = lua_gettop(L);
    yaml_event_t e;
    yaml_stream_start_event_initialize(&e, YAML_UTF8_ENCODING);
    emit(L, w, &e);
    yaml_document_start_event_initialize(&e, NULL, NULL, NULL, 1);
    emit(L, w, &e);
    emit_value(L, w, 1, 0, "");
    yaml_document_end_event_initialize(&e, 1);
    emit(L, w, &e);
    yaml_stream_end_event_initialize(&e);
    emit(L, w, &e);
    lua_pushlstring(L, w->out.data ? (const char *)w->out.data : "", w->out.size);
}

int yaml_lua_encode(lua_State *L)
{
    luaL_checkany(L, 1);
    lua_settop(L, 1);
    encode_to_string(L);
    return 1;
}

int yaml_lua_dump(lua_State *L)
{
    luaL_checkany(L, 1);
    const char *path = luaL_checkstring(L, 2);
    lua_settop(L, 2);
    encode_to_string(L);
    size_t n;
    const char *text = lua_tolstring(L, -1, &n);
    const char *step = "cannot write";
    if (nd_write_file(path, text, n, &step) != 0)
        return nd_bad_input(L, "%s: %s: %s", path, step, strerror(errno));
    return 0;
}
