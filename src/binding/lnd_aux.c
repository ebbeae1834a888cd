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
    void *p = luaL_testudata(L, idx, kind->name);
    if (p == NULL)
        lnd_typeerror(L, idx, kind->name);
    const lnd_kind *tag = tag_of(L, idx);
    if (tag != kind)
        lnd_argerror(L, idx, lua_pushfstring(L, "%s expected, got %s given %s's metatable", kind->name,
                                             tag != NULL ? tag->name : "a userdata", kind->name));
    return p;
}

/* The registry's table of method names: a function to its name ("nd.run.micro_factor"). */
static const char NAMES_KEY[] = "nd.method_names";

void lnd_name_methods(lua_State *L, const char *type_name)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, NAMES_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, NAMES_KEY);
    }
    for (lua_pushnil(L); lua_next(L, -3) != 0; lua_pop(L, 1)) {
        if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TFUNCTION)
            continue;
        lua_pushvalue(L, -1);
        lua_pushfstring(L, "%s.%s", type_name, lua_tostring(L, -3));
        lua_rawset(L, -5);
    }
    lua_pop(L, 1);
}

int lnd_argerror(lua_State *L, int arg, const char *extramsg)
{
    lua_Debug ar;
    if (!lua_getstack(L, 0, &ar))
        return luaL_argerror(L, arg, extramsg);
    lua_getinfo(L, "nf", &ar); /* pushes the running function */
    if (ar.name == NULL && lua_getfield(L, LUA_REGISTRYINDEX, NAMES_KEY) == LUA_TTABLE) {
        lua_pushvalue(L, -2);
        if (lua_rawget(L, -2) == LUA_TSTRING)
            return luaL_error(L, "bad argument #%d to '%s' (%s)", arg, lua_tostring(L, -1), extramsg);
        lua_pop(L, 1);
    }
    lua_settop(L, lua_gettop(L) - (ar.name == NULL ? 2 : 1));
    return luaL_argerror(L, arg, extramsg);
}

int lnd_typeerror(lua_State *L, int arg, const char *tname)
{
    const char *got;
    if (luaL_getmetafield(L, arg, "__name") == LUA_TSTRING)
        got = lua_tostring(L, -1);
    else if (lua_type(L, arg) == LUA_TLIGHTUSERDATA)
        got = "light userdata";
    else
        got = luaL_typename(L, arg);
    return lnd_argerror(L, arg, lua_pushfstring(L, "%s expected, got %s", tname, got));
}

lua_Integer lnd_checkinteger(lua_State *L, int arg)
{
    int isnum;
    lua_Integer d = lua_tointegerx(L, arg, &isnum);
    if (!isnum) {
        if (lua_isnumber(L, arg))
            lnd_argerror(L, arg, "number has no integer representation");
        else
            lnd_typeerror(L, arg, lua_typename(L, LUA_TNUMBER));
    }
    return d;
}

lua_Integer lnd_optinteger(lua_State *L, int arg, lua_Integer dflt)
{
    return lua_isnoneornil(L, arg) ? dflt : lnd_checkinteger(L, arg);
}

lua_Number lnd_checknumber(lua_State *L, int arg)
{
    int isnum;
    lua_Number d = lua_tonumberx(L, arg, &isnum);
    if (!isnum)
        lnd_typeerror(L, arg, lua_typename(L, LUA_TNUMBER));
    return d;
}

lua_Number lnd_optnumber(lua_State *L, int arg, lua_Number dflt)
{
    return lua_isnoneornil(L, arg) ? dflt : lnd_checknumber(L, arg);
}

const char *lnd_checklstring(lua_State *L, int arg, size_t *len)
{
    const char *s = lua_tolstring(L, arg, len);
    if (s == NULL)
        lnd_typeerror(L, arg, lua_typename(L, LUA_TSTRING));
    return s;
}

void lnd_checktype(lua_State *L, int arg, int type)
{
    if (lua_type(L, arg) != type)
        lnd_typeerror(L, arg, lua_typename(L, type));
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
    lnd_name_methods(L, kind->name);
    lua_setfield(L, -2, "methods");
}
