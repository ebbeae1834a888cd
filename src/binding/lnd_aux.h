/* lnd_aux.h: the binding's auxiliary library, what its type files share (lnd_aux.c). */
#ifndef NDLUA_LND_AUX_H
#define NDLUA_LND_AUX_H

#include <lauxlib.h>
#include <lua.h>

/* Registers and pushes the metatable `name` of a userdata type built from a
 * table (its first user value): __gc, __tostring (unless NULL: Lua adds
 * it), and an __index giving a method of `methods` or spec() (that table),
 * else that table's field (model.hidden_size, run.tp). nd.core.types holds
 * the metatables. */
void lnd_new_type(lua_State *L, const char *name, lua_CFunction gc, lua_CFunction tostring, const luaL_Reg *methods);

#endif
