/* lnd_run.h: nd.run, the run type seen from Lua (lnd_run.c). */
#ifndef NDLUA_LND_RUN_H
#define NDLUA_LND_RUN_H

#include <lauxlib.h>
#include <lua.h>

#include "core/run.h"
#include "lua_fields.h"

/* nd.core.run(table), the run at index idx, and the registration (its metatable pushed). */
int lnd_run_new(lua_State *L);
int lnd_run_bounds(lua_State *L);
run_t *lnd_check_run(lua_State *L, int idx);
void lnd_open_run(lua_State *L);
/* Pushes a new nd.run holding a deep copy of r, a run derived from the run
 * at index base whose only changes are its degrees, batch, optimizer shard
 * and one recompute mode for every layer (no offsets, per-stage forms or
 * ranges): its table is the base's with those fields stated again. r's
 * degrees are checked as a run table's are; returns the new run. */
run_t *lnd_push_derived_run(lua_State *L, int base, const run_t *r);

#endif
