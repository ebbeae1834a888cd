/* docmeta.c: key order and source positions of loaded documents. */
#include "docmeta.h"

#include <string.h>

#include <lauxlib.h>

const char DOCMETA_MAP[] = "map";
const char DOCMETA_SEQ[] = "seq";

static const char REGISTRY_KEY[] = "ndlua.docmeta";

void docmeta_open(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, REGISTRY_KEY) == LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, REGISTRY_KEY);
}

static void push_registry(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, REGISTRY_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        docmeta_open(L);
        lua_getfield(L, LUA_REGISTRYINDEX, REGISTRY_KEY);
    }
}

lua_Integer docmeta_pack(long line, long col)
{
    return (lua_Integer)line * DOCMETA_LINE_UNIT + (lua_Integer)col;
}

long docmeta_line(lua_Integer position)
{
    return (long)(position / DOCMETA_LINE_UNIT);
}

static long column_of(lua_Integer position)
{
    return (long)(position % DOCMETA_LINE_UNIT);
}

void docmeta_attach(lua_State *L, int t, const char *kind, const char *file, long line, long col)
{
    t = lua_absindex(L, t);
    push_registry(L);
    lua_pushvalue(L, t);
    lua_createtable(L, DOCMETA_SLOTS, 0);
    lua_pushstring(L, kind);
    lua_rawseti(L, -2, DOCMETA_KIND);
    if (file != NULL) {
        lua_pushstring(L, file);
        lua_rawseti(L, -2, DOCMETA_FILE);
    }
    lua_pushinteger(L, line);
    lua_rawseti(L, -2, DOCMETA_LINE);
    lua_pushinteger(L, col);
    lua_rawseti(L, -2, DOCMETA_COL);
    lua_newtable(L);
    lua_rawseti(L, -2, DOCMETA_KEYS);
    lua_newtable(L);
    lua_rawseti(L, -2, DOCMETA_AT);
    lua_newtable(L);
    lua_rawseti(L, -2, DOCMETA_KEY_AT);
    lua_pushvalue(L, -1);
    lua_insert(L, -4); /* rec registry t rec */
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/* Sets the record's (index rec) table in slot at key (an index) to the position. */
static void set_position(lua_State *L, int rec, int key, int slot, long line, long col)
{
    lua_rawgeti(L, rec, slot);
    lua_pushvalue(L, key);
    lua_pushinteger(L, docmeta_pack(line, col));
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

void docmeta_note_key(lua_State *L, int rec, int key, long line, long col)
{
    set_position(L, lua_absindex(L, rec), lua_absindex(L, key), DOCMETA_KEY_AT, line, col);
}

void docmeta_note(lua_State *L, int rec, int key, long line, long col)
{
    rec = lua_absindex(L, rec);
    key = lua_absindex(L, key);
    lua_rawgeti(L, rec, DOCMETA_AT);
    lua_pushvalue(L, key);
    int known = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    set_position(L, rec, key, DOCMETA_AT, line, col);
    if (known)
        return; /* a repeated key keeps its first place in the key order */
    lua_rawgeti(L, rec, DOCMETA_KEYS);
    lua_pushvalue(L, key);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pop(L, 1);
}

void docmeta_open_lists(lua_State *L, int rec, docmeta_lists *d)
{
    rec = lua_absindex(L, rec);
    lua_rawgeti(L, rec, DOCMETA_KEYS);
    d->keys = lua_gettop(L);
    lua_rawgeti(L, rec, DOCMETA_AT);
    d->at = lua_gettop(L);
    lua_rawgeti(L, rec, DOCMETA_KEY_AT);
    d->key_at = lua_gettop(L);
    d->listed = (lua_Integer)lua_rawlen(L, d->keys);
}

void docmeta_note_new(lua_State *L, docmeta_lists *d, int key, long line, long col)
{
    key = lua_absindex(L, key);
    lua_pushvalue(L, key);
    lua_pushinteger(L, docmeta_pack(line, col));
    lua_rawset(L, d->at);
    lua_pushvalue(L, key);
    lua_rawseti(L, d->keys, ++d->listed);
}

/* Replaces the list in the record's slot (and its stack slot at) with a new table sized for n. */
static void sized_list(lua_State *L, int rec, int slot, int at, int narr, int nrec)
{
    lua_createtable(L, narr, nrec);
    lua_pushvalue(L, -1);
    lua_rawseti(L, rec, slot);
    lua_replace(L, at);
}

void docmeta_note_entries(lua_State *L, docmeta_lists *d, int rec, int first, int n)
{
    rec = lua_absindex(L, rec);
    first = lua_absindex(L, first);
    if (d->listed == 0) {
        sized_list(L, rec, DOCMETA_KEYS, d->keys, n, 0);
        sized_list(L, rec, DOCMETA_AT, d->at, 0, n);
        sized_list(L, rec, DOCMETA_KEY_AT, d->key_at, 0, n);
    }
    for (int i = 0; i < n; i++) {
        int key = first + 3 * i;
        lua_pushvalue(L, key);
        lua_pushvalue(L, key + 1);
        lua_rawset(L, d->at);
        lua_pushvalue(L, key);
        lua_pushvalue(L, key + 2);
        lua_rawset(L, d->key_at);
        lua_pushvalue(L, key);
        lua_rawseti(L, d->keys, ++d->listed);
    }
}

int docmeta_push(lua_State *L, int t)
{
    t = lua_absindex(L, t);
    push_registry(L);
    lua_pushvalue(L, t);
    lua_rawget(L, -2);
    lua_remove(L, -2);
    return !lua_isnil(L, -1);
}

int docmeta_position(lua_State *L, int t, int key, long *line, long *col)
{
    key = lua_absindex(L, key);
    int rc = -1;
    if (docmeta_push(L, t)) {
        lua_rawgeti(L, -1, DOCMETA_AT);
        lua_pushvalue(L, key);
        lua_rawget(L, -2);
        if (lua_isinteger(L, -1)) {
            *line = docmeta_line(lua_tointeger(L, -1));
            *col = column_of(lua_tointeger(L, -1));
            rc = 0;
        }
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    return rc;
}

const char *docmeta_kind(lua_State *L, int t)
{
    const char *kind = NULL;
    if (docmeta_push(L, t)) {
        lua_rawgeti(L, -1, DOCMETA_KIND);
        const char *k = lua_tostring(L, -1);
        if (k != NULL && strcmp(k, DOCMETA_SEQ) == 0)
            kind = DOCMETA_SEQ;
        else if (k != NULL && strcmp(k, DOCMETA_MAP) == 0)
            kind = DOCMETA_MAP;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return kind;
}

void docmeta_mark_kind(lua_State *L, int t, const char *kind)
{
    t = lua_absindex(L, t);
    if (docmeta_push(L, t)) {
        lua_pushstring(L, kind);
        lua_rawseti(L, -2, DOCMETA_KIND);
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    docmeta_attach(L, t, kind, NULL, 0, 0);
    lua_pop(L, 1);
}

/* keys(t): the keys of a loaded map in document order (a new table), or nil. */
int docmeta_lua_keys(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    if (!docmeta_push(L, 1))
        return 1;
    lua_rawgeti(L, -1, DOCMETA_KEYS);
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -2, i);
        lua_pushvalue(L, -1);
        if (lua_rawget(L, 1) == LUA_TNIL) { /* a key since removed from the table */
            lua_pop(L, 2);
            continue;
        }
        lua_pop(L, 1);
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    }
    return 1;
}

/* Pushes the entry at key (index 2) of the record's (index 3) table in slot. */
static void push_noted(lua_State *L, int slot)
{
    lua_rawgeti(L, 3, slot);
    lua_pushvalue(L, 2);
    lua_rawget(L, -2);
    lua_remove(L, -2);
}

/* where(t [, key [, "key"]]): file, line, column of the table, of the value
 * at key, or with "key" of the key itself (of its value when the loader
 * noted no key position, as for JSON). */
int docmeta_lua_where(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int has_key = !lua_isnoneornil(L, 2);
    const char *of = luaL_optstring(L, 3, "value");
    int of_key = strcmp(of, "key") == 0;
    if (!of_key && strcmp(of, "value") != 0)
        return luaL_argerror(L, 3, "\"key\" or \"value\"");
    lua_settop(L, 2);
    if (!docmeta_push(L, 1))
        return 0;
    lua_rawgeti(L, 3, DOCMETA_FILE);
    if (has_key) {
        push_noted(L, of_key ? DOCMETA_KEY_AT : DOCMETA_AT);
        if (lua_isnil(L, -1) && of_key) {
            lua_pop(L, 1);
            push_noted(L, DOCMETA_AT);
        }
        if (lua_isnil(L, -1))
            return 0;
        lua_Integer at = lua_tointeger(L, -1);
        lua_pop(L, 1);
        lua_pushinteger(L, docmeta_line(at));
        lua_pushinteger(L, column_of(at));
    } else {
        lua_rawgeti(L, 3, DOCMETA_LINE);
        lua_rawgeti(L, 3, DOCMETA_COL);
    }
    if (lua_tointeger(L, -2) <= 0) { /* a table built in Lua: no position */
        lua_pop(L, 2);
        return 1;
    }
    return 3;
}

/* array(t): marks t as a sequence (so an empty one encodes as []) and returns it. */
int docmeta_lua_array(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    docmeta_mark_kind(L, 1, DOCMETA_SEQ);
    lua_settop(L, 1);
    return 1;
}

int docmeta_is_sequence(lua_State *L, int t)
{
    t = lua_absindex(L, t);
    const char *kind = docmeta_kind(L, t);
    if (kind != NULL)
        return kind == DOCMETA_SEQ;
    lua_Integer n = (lua_Integer)lua_rawlen(L, t);
    if (n == 0)
        return 0;
    lua_Integer count = 0;
    lua_pushnil(L);
    while (lua_next(L, t) != 0) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n) {
            lua_pop(L, 1);
            return 0;
        }
        count++;
    }
    return count == n;
}

/* Sort rank of a key type: numbers, then strings, then booleans, then the rest. */
static int key_rank(lua_State *L, int idx)
{
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER: return 0;
    case LUA_TSTRING: return 1;
    case LUA_TBOOLEAN: return 2;
    default: return 3;
    }
}

static int key_less(lua_State *L, int a, int b)
{
    int ra = key_rank(L, a), rb = key_rank(L, b);
    if (ra != rb)
        return ra < rb;
    if (ra <= 1)
        return lua_compare(L, a, b, LUA_OPLT);
    if (ra == 2)
        return !lua_toboolean(L, a) && lua_toboolean(L, b);
    return 0;
}

/* Insertion sort of the array at index arr from position first on. */
static void sort_keys(lua_State *L, int arr, lua_Integer first)
{
    lua_Integer n = (lua_Integer)lua_rawlen(L, arr);
    for (lua_Integer i = first + 1; i <= n; i++) {
        lua_rawgeti(L, arr, i);
        lua_Integer j = i - 1;
        while (j >= first) {
            lua_rawgeti(L, arr, j);
            int less = key_less(L, -2, -1);
            if (!less) {
                lua_pop(L, 1);
                break;
            }
            lua_rawseti(L, arr, j + 1);
            j--;
        }
        lua_rawseti(L, arr, j + 1);
    }
}

lua_Integer docmeta_push_ordered_keys(lua_State *L, int t)
{
    t = lua_absindex(L, t);
    lua_pushcfunction(L, docmeta_lua_keys);
    lua_pushvalue(L, t);
    lua_call(L, 1, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
    }
    int arr = lua_gettop(L);
    lua_Integer ordered = (lua_Integer)lua_rawlen(L, arr);
    lua_newtable(L); /* the set of keys already listed */
    int seen = lua_gettop(L);
    for (lua_Integer i = 1; i <= ordered; i++) {
        lua_rawgeti(L, arr, i);
        lua_pushboolean(L, 1);
        lua_rawset(L, seen);
    }
    lua_pushnil(L);
    while (lua_next(L, t) != 0) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        if (lua_rawget(L, seen) == LUA_TNIL) {
            lua_pushvalue(L, -2);
            lua_rawseti(L, arr, (lua_Integer)lua_rawlen(L, arr) + 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    sort_keys(L, arr, ordered + 1);
    return (lua_Integer)lua_rawlen(L, arr);
}
