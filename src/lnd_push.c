/* lnd_push.c: whole-number results cross to Lua as integers, others as floats. */
#include "lnd_push.h"

#include <math.h>

#include <lauxlib.h>

void lnd_push_number(lua_State *L, double d)
{
    if (isfinite(d) && d == floor(d) && fabs(d) < 9.0e15)
        lua_pushinteger(L, (lua_Integer)d);
    else
        lua_pushnumber(L, d);
}

void lnd_set_number(lua_State *L, const char *key, double d)
{
    lnd_push_number(L, d);
    lua_setfield(L, -2, key);
}

void lnd_set_int(lua_State *L, const char *key, int64_t v)
{
    lua_pushinteger(L, (lua_Integer)v);
    lua_setfield(L, -2, key);
}

void lnd_set_bool(lua_State *L, const char *key, bool v)
{
    lua_pushboolean(L, v);
    lua_setfield(L, -2, key);
}

int lnd_index_methods_then_spec(lua_State *L)
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
