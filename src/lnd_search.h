/* lnd_search.h: the search and time-model functions of nd.core. */
#ifndef NDLUA_LND_SEARCH_H
#define NDLUA_LND_SEARCH_H

#include <lauxlib.h>
#include <lua.h>

#include "timing.h"

/* search, step_time */
extern const luaL_Reg lnd_search_functions[];
/* Registers the search result's metatable. */
void lnd_open_search(lua_State *L);
/* Reads a hardware profile table into hw (bad-input errors name the field). */
void lnd_read_hardware(lua_State *L, int t, hardware_t *hw);

#endif
