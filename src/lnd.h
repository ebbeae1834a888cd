/* lnd.h: nd.core, the C half of `require "nd"`, and what its binding files share: one file a
 * type (lnd_model.c: nd.model, lnd_run.c: nd.run, lnd_search.c: the search result), the memory
 * model's functions (lnd_estimate.c), and the module (lnd.c). */
#ifndef NDLUA_LND_H
#define NDLUA_LND_H

#include <lauxlib.h>
#include <lua.h>

#include "estimate.h"
#include "lua_fields.h"
#include "luautil.h"
#include "model.h"
#include "run.h"
#include "timing.h"

/* Registers nd.core in package.preload; returns 0. */
int lnd_preload(lua_State *L);
/* Opens nd.core and pushes its table. */
int luaopen_nd_core(lua_State *L);

/* Registers and pushes the metatable `name` of a userdata type built from a
 * table (its first user value): __gc, __tostring (unless NULL: Lua adds
 * it), and an __index giving a method of `methods` or spec() (that table),
 * else that table's field (model.hidden_size, run.tp). nd.core.types holds
 * the metatables. */
void lnd_new_type(lua_State *L, const char *name, lua_CFunction gc, lua_CFunction tostring, const luaL_Reg *methods);

/* nd.model: nd.core.model(spec), the model of the nd.model at index idx (or
 * an argument error), the layer kind of it named by argument arg, and the
 * registration of its metatable (pushed). */
int lnd_model_new(lua_State *L);
model_t *lnd_check_model(lua_State *L, int idx);
const layer_kind *lnd_check_kind(lua_State *L, const model_t *m, int arg);
void lnd_open_model(lua_State *L);
/* Pushes the family run defaults (DEFAULT_RUN plus flash attention), by key. */
void lnd_push_family_defaults(lua_State *L);

/* The recompute modes a run's ranges and a search's space name (off, selective, full). */
extern const field_choices lnd_recompute_modes;
/* nd.run: nd.core.run(table), the run at index idx, and the registration (its metatable pushed). */
int lnd_run_new(lua_State *L);
run_t *lnd_check_run(lua_State *L, int idx);
void lnd_open_run(lua_State *L);
/* The model, run and layer kind of arguments 1 to 3 (nd.core.activation_split,
 * nd.core.layer_traffic): the kind in *k and the run derived into *d, as
 * one pricing context. */
price_ctx lnd_check_layer(lua_State *L, derived_t *d, const layer_kind **k);
/* Pushes a new nd.run holding a deep copy of r, a run derived from the run
 * at index base whose only changes are its degrees, batch, optimizer shard
 * and one recompute mode for every layer (no offsets, per-stage forms or
 * ranges): its table is the base's with those fields stated again. r's
 * degrees are checked as a run table's are; returns the new run. */
run_t *lnd_push_derived_run(lua_State *L, int base, const run_t *r);

/* The memory model: a scratch estimate on the stack (freed by __gc, also
 * when an error is raised), and nd.core.estimate(model, run), layout(model,
 * run), time_estimate(model, run, n), time_params(model, n),
 * activation_split(model, run, kind). */
estimate_t *lnd_push_scratch(lua_State *L);
int lnd_estimate(lua_State *L);
int lnd_layout(lua_State *L);
int lnd_time_estimate(lua_State *L);
int lnd_time_params(lua_State *L);
int lnd_activation_split(lua_State *L);

/* The search: search, search_count, candidate_run, step_time,
 * layer_traffic, pipeline_step; the result's metatable, and nd.core.top_keys
 * (set in the table on top): the keys a bounded search ranks by. */
extern const luaL_Reg lnd_search_functions[];
void lnd_open_search(lua_State *L);

#endif
