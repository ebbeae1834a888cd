/* json_encode.c: Lua values to JSON text with cJSON, keys in document order or sorted. */
#include "json_bridge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <lauxlib.h>

#include "docmeta.h"
#include "luautil.h"
#include "numfmt.h"

static const char TREE_TYPE[] = "ndlua.json_tree";

typedef struct {
    cJSON *root;
    int visiting; /* stack index of the set of tables being written */
} tree_t;

static int tree_gc(lua_State *L)
{
    tree_t *t = luaL_checkudata(L, 1, TREE_TYPE);
    if (t->root != NULL)
        cJSON_Delete(t->root);
    t->root = NULL;
    return 0;
}

static cJSON *checked(lua_State *L, cJSON *item)
{
    if (item == NULL)
        luaL_error(L, "out of memory writing JSON");
    return item;
}

static int fail_path(lua_State *L, const char *path, const char *what)
{
    return luaL_error(L, "cannot write %s at %s as JSON", what, *path ? path : "the top level");
}

static cJSON *number_item(lua_State *L, int idx)
{
    char buf[64];
    if (lua_isinteger(L, idx)) {
        snprintf(buf, sizeof buf, LUA_INTEGER_FMT, (LUAI_UACINT)lua_tointeger(L, idx));
    } else {
        double d = lua_tonumber(L, idx);
        if (!isfinite(d))
            return checked(L, cJSON_CreateNull()); /* JSON has no infinity or NaN */
        numfmt_float(d, buf, sizeof buf);
    }
    return checked(L, cJSON_CreateRaw(buf));
}

static cJSON *build(lua_State *L, tree_t *tree, int idx, int depth, const char *path);

/* Adds item to parent, freeing it if that fails. */
static void attach(lua_State *L, cJSON *parent, const char *key, cJSON *item)
{
    int ok = key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item);
    if (!ok) {
        cJSON_Delete(item);
        luaL_error(L, "out of memory writing JSON");
    }
}

static void fill_array(lua_State *L, tree_t *tree, cJSON *arr, int t, int depth, const char *path)
{
    lua_Integer n = (lua_Integer)lua_rawlen(L, t);
    for (lua_Integer i = 1; i <= n; i++) {
        const char *sub = lua_pushfstring(L, "%s[%d]", path, (int)i);
        lua_rawgeti(L, t, i);
        attach(L, arr, NULL, build(L, tree, lua_gettop(L), depth + 1, sub));
        lua_pop(L, 2);
    }
}

static void fill_object(lua_State *L, tree_t *tree, cJSON *obj, int t, int depth, const char *path)
{
    lua_Integer n = docmeta_push_ordered_keys(L, t);
    int keys = lua_gettop(L);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, keys, i);
        int k = lua_gettop(L);
        int type = lua_type(L, k);
        if (type != LUA_TSTRING && type != LUA_TNUMBER)
            fail_path(L, path, lua_pushfstring(L, "a %s key", luaL_typename(L, k)));
        lua_pushvalue(L, k);
        const char *key = lua_tostring(L, -1); /* numbers become their text */
        const char *sub = *path ? lua_pushfstring(L, "%s.%s", path, key) : lua_pushstring(L, key);
        lua_pushvalue(L, k);
        lua_rawget(L, t);
        attach(L, obj, key, build(L, tree, lua_gettop(L), depth + 1, sub));
        lua_settop(L, keys);
    }
    lua_pop(L, 1);
}

/* The cJSON item of the table at index t; the caller owns it. */
static cJSON *build_table(lua_State *L, tree_t *tree, int t, int depth, const char *path)
{
    nd_write_enter(L, tree->visiting, t, depth, path, "JSON");
    int sequence = docmeta_is_sequence(L, t);
    cJSON *item = checked(L, sequence ? cJSON_CreateArray() : cJSON_CreateObject());
    /* Park the item in the tree's root so an error below frees it. */
    attach(L, tree->root, NULL, item);
    if (sequence)
        fill_array(L, tree, item, t, depth, path);
    else
        fill_object(L, tree, item, t, depth, path);
    nd_write_leave(L, tree->visiting, t);
    return cJSON_DetachItemViaPointer(tree->root, item);
}

static cJSON *build(lua_State *L, tree_t *tree, int idx, int depth, const char *path)
{
    switch (lua_type(L, idx)) {
    case LUA_TNIL: return checked(L, cJSON_CreateNull());
    case LUA_TBOOLEAN: return checked(L, cJSON_CreateBool(lua_toboolean(L, idx)));
    case LUA_TNUMBER: return number_item(L, idx);
    case LUA_TSTRING: return checked(L, cJSON_CreateString(lua_tostring(L, idx)));
    case LUA_TTABLE: return build_table(L, tree, idx, depth, path);
    default:
        if (nd_is_null(L, idx))
            return checked(L, cJSON_CreateNull());
        fail_path(L, path, lua_pushfstring(L, "a %s", luaL_typename(L, idx)));
        return NULL;
    }
}

static void add_newline(luaL_Buffer *b, int level, int indent)
{
    luaL_addchar(b, '\n');
    for (int i = 0; i < level * indent; i++)
        luaL_addchar(b, ' ');
}

/* Pushes compact JSON text laid out as Python's json.dumps(indent=n) lays it
 * out: each member and element on its own line, ": " after a key, and an
 * empty object or array as {} or []. */
static void push_indented(lua_State *L, const char *text, int indent)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    int level = 0;
    for (const char *p = text; *p; p++) {
        char c = *p;
        if (c == '"') {
            const char *start = p;
            for (p++; *p != '"'; p++)
                p += *p == '\\';
            luaL_addlstring(&b, start, (size_t)(p - start) + 1);
        } else if ((c == '{' && p[1] == '}') || (c == '[' && p[1] == ']')) {
            luaL_addlstring(&b, p++, 2);
        } else if (c == '{' || c == '[') {
            luaL_addchar(&b, c);
            add_newline(&b, ++level, indent);
        } else if (c == '}' || c == ']') {
            add_newline(&b, --level, indent);
            luaL_addchar(&b, c);
        } else if (c == ',') {
            luaL_addchar(&b, c);
            add_newline(&b, level, indent);
        } else if (c == ':') {
            luaL_addstring(&b, ": ");
        } else {
            luaL_addchar(&b, c);
        }
    }
    luaL_pushresult(&b);
}

static int read_indent(lua_State *L, int opts)
{
    if (lua_isnoneornil(L, opts))
        return 0;
    luaL_checktype(L, opts, LUA_TTABLE);
    lua_getfield(L, opts, "indent");
    int isnum;
    lua_Integer indent = lua_tointegerx(L, -1, &isnum);
    if (!lua_isnil(L, -1) && (!isnum || indent < 0 || indent > 16))
        luaL_error(L, "json.encode: indent must be a whole number from 0 to 16");
    lua_pop(L, 1);
    return isnum ? (int)indent : 0;
}

int json_lua_encode(lua_State *L)
{
    luaL_checkany(L, 1);
    int indent = read_indent(L, 2);
    lua_settop(L, 1);
    tree_t *tree = nd_new_scratch(L, sizeof *tree, TREE_TYPE, tree_gc);
    tree->root = checked(L, cJSON_CreateArray());
    lua_newtable(L);
    tree->visiting = lua_gettop(L);
    attach(L, tree->root, NULL, build(L, tree, 1, 0, ""));
    cJSON *value = tree->root->child;
    char *text = cJSON_PrintUnformatted(value);
    if (text == NULL)
        return luaL_error(L, "out of memory writing JSON");
    if (indent > 0)
        push_indented(L, text, indent);
    else
        lua_pushstring(L, text);
    cJSON_free(text);
    return 1;
}
