/* lnd_init.h: nd.core, the C half of `require "nd"` (lnd_init.c). */
#ifndef NDLUA_LND_INIT_H
#define NDLUA_LND_INIT_H

#include <lua.h>

/* Registers nd.core in package.preload; returns 0. */
int lnd_preload(lua_State *L);
/* Opens nd.core and pushes its table. */
int luaopen_nd_core(lua_State *L);

#endif
