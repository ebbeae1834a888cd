/* lnd_aux.c: the binding's auxiliary library: userdata types built from a table (as lauxlib serves lua.c). */
#include "lnd_aux.h"

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
    luaL_checkudata(L, 1, lua_tostring(L, lua_upvalueindex(1)));
    lua_getiuservalue(L, 1, 1);
    return 1;
}

void lnd_new_type(lua_State *L, const char *name, lua_CFunction gc, lua_CFunction tostring, const luaL_Reg *methods)
{
    luaL_newmetatable(L, name);
    const luaL_Reg meta[] = {
        {"__gc", gc}, {"__index", index_methods_then_spec}, {tostring ? "__tostring" : NULL, tostring}, {NULL, NULL},
    };
    luaL_setfuncs(L, meta, 0); /* without a tostring, the list ends before it */
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_pushstring(L, name);
    lua_pushcclosure(L, spec_method, 1);
    lua_setfield(L, -2, "spec");
    lua_setfield(L, -2, "methods");
}
