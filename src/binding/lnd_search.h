/* lnd_search.h: the search and the time model seen from Lua (lnd_search.c). */
#ifndef NDLUA_LND_SEARCH_H
#define NDLUA_LND_SEARCH_H

#include <lauxlib.h>
#include <lua.h>

/* search, search_count, candidate_run, step_time, layer_traffic,
 * pipeline_step; the result's metatable, and nd.core.top_keys (set in the
 * table on top): the keys a bounded search ranks by. */
extern const luaL_Reg lnd_search_functions[];
void lnd_open_search(lua_State *L);

#endif
