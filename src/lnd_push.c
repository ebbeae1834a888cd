/* lnd_push.c: whole-number results cross to Lua as integers, others as floats. */
#include "lnd_push.h"

#include <math.h>

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
