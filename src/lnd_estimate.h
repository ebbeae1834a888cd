/* lnd_estimate.h: the memory model's Lua functions (estimate, layout) and the run methods. */
#ifndef NDLUA_LND_ESTIMATE_H
#define NDLUA_LND_ESTIMATE_H

#include <lua.h>

#include "estimate.h"

/* A scratch estimate on the stack, freed by __gc (also when an error is raised). */
estimate_t *lnd_push_scratch(lua_State *L);
int lnd_estimate(lua_State *L); /* nd.core.estimate(model, run) */
int lnd_layout(lua_State *L);   /* nd.core.layout(model, run) */
int lnd_time_estimate(lua_State *L); /* nd.core.time_estimate(model, run, n) */
int lnd_time_params(lua_State *L);   /* nd.core.time_params(model, n) */
/* Registers nd.run's metatable and methods. */
void lnd_open_run_api(lua_State *L);

#endif
