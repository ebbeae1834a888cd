/* lnd_aux.c: the binding's auxiliary library: userdata types built from a table (as lauxlib serves lua.c). */
#include "lnd_aux.h"

#include <string.h>

/* The registry's table of the kinds of box there are: a light userdata (the
 * kind's address) to true. lnd_box_gc reads a tag as a kind only once it
 * finds it here. */
static const char KINDS_KEY[] = "nd.box_kinds";

static void note_kind(lua_State *L, const lnd_kind *kind)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, KINDS_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, KINDS_KEY);
    }
    lua_pushlightuserdata(L, (void *)kind);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

void lnd_new_metatable(lua_State *L, const lnd_kind *kind)
{
    if (luaL_newmetatable(L, kind->name)) {
        note_kind(L, kind);
        lua_pushcfunction(L, lnd_box_gc);
        lua_setfield(L, -2, "__gc");
    }
}

void *lnd_new_box(lua_State *L, const lnd_kind *kind, int user_values)
{
    void *box = lua_newuserdatauv(L, kind->size, user_values);
    memset(box, 0, kind->size);
    memcpy(box, &kind, sizeof kind);
    lnd_new_metatable(L, kind);
    lua_setmetatable(L, -2);
    return box;
}

/* The kind a userdata's tag names, or NULL when it is no box of a known
 * kind (too small to hold a tag, a tag no kind has, or the wrong size). */
static const lnd_kind *tag_of(lua_State *L, int idx)
{
    void *p = lua_touserdata(L, idx);
    if (p == NULL || lua_type(L, idx) != LUA_TUSERDATA || lua_rawlen(L, idx) < sizeof(const lnd_kind *))
        return NULL;
    const lnd_kind *kind;
    memcpy(&kind, p, sizeof kind);
    lua_getfield(L, LUA_REGISTRYINDEX, KINDS_KEY);
    lua_pushlightuserdata(L, (void *)kind);
    int known = lua_istable(L, -2) && lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return known && lua_rawlen(L, idx) == kind->size ? kind : NULL;
}

void *lnd_check_box(lua_State *L, int idx, const lnd_kind *kind)
{
    void *p = luaL_checkudata(L, idx, kind->name);
    const lnd_kind *tag = tag_of(L, idx);
    if (tag != kind)
        luaL_argerror(L, idx, lua_pushfstring(L, "%s expected, got %s given %s's metatable", kind->name,
                                              tag != NULL ? tag->name : "a userdata", kind->name));
    return p;
}

int lnd_box_gc(lua_State *L)
{
    const lnd_kind *kind = tag_of(L, 1);
    if (kind != NULL)
        kind->release(lua_touserdata(L, 1));
    return 0;
}

/* An __index for userdata whose metatable holds a `methods` table and whose
 * first user value is the table it was built from: a method, else that
 * table's field (model.hidden_size, run.tp). */
static int index_methods_then_spec(lua_State *L)
{
    luaL_getmetafield(L, 1, "methods");
    lua_pushvalue(L, 2);
    if (lua_rawget(L, -2) != LUA_TNIL)
        return 1;
    lua_getiuservalue(L, 1, 1);
    lua_pushvalue(L, 2);
    lua_gettable(L, -2);
    return 1;
}

/* x:spec() -> the table x was built from, for a userdata of the type its upvalue names. */
static int spec_method(lua_State *L)
{
    lnd_check_box(L, 1, lua_touserdata(L, lua_upvalueindex(1)));
    lua_getiuservalue(L, 1, 1);
    return 1;
}

void lnd_new_type(lua_State *L, const lnd_kind *kind, lua_CFunction tostring, const luaL_Reg *methods)
{
    lnd_new_metatable(L, kind);
    const luaL_Reg meta[] = {
        {"__index", index_methods_then_spec}, {tostring ? "__tostring" : NULL, tostring}, {NULL, NULL},
    };
    luaL_setfuncs(L, meta, 0); /* without a tostring, the list ends before it */
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_pushlightuserdata(L, (void *)kind);
    lua_pushcclosure(L, spec_method, 1);
    lua_setfield(L, -2, "spec");
    lua_setfield(L, -2, "methods");
}
