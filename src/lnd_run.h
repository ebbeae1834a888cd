/* lnd_run.h: the nd.run userdata and the readers of its pipeline and recompute forms. */
#ifndef NDLUA_LND_RUN_H
#define NDLUA_LND_RUN_H

#include <stdbool.h>

#include <lauxlib.h>
#include <lua.h>

#include "run.h"

#define RUN_TYPE "nd.run"

typedef struct {
    run_t run;
    bool ready;
} run_box;

/* nd.core.run(table) */
int lnd_run_new(lua_State *L);
run_t *lnd_check_run(lua_State *L, int idx);
/* Registers the nd.run metatable with its methods. */
void lnd_open_run(lua_State *L, const luaL_Reg *methods);

/* offset (int, per-stage list or per-chunk lists) into r->offset */
void lnd_read_pipeline(lua_State *L, int t, run_t *r);
/* full_recompute, selective_recompute, and recompute (a mode name or ranges) */
void lnd_read_recompute(lua_State *L, int t, run_t *r);

#endif
