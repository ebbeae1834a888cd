/* lnd_estimate.h: the memory model's functions seen from Lua (lnd_estimate.c). */
#ifndef NDLUA_LND_ESTIMATE_H
#define NDLUA_LND_ESTIMATE_H

#include <lauxlib.h>
#include <lua.h>

#include "core/derive.h"
#include "core/estimate.h"
#include "core/pricing_ctx.h"

/* The model, run and layer kind of arguments 1 to 3 (nd.core.activation_split,
 * nd.core.layer_traffic): the kind in *k and the run derived into *d, as
 * one pricing context. */
price_ctx lnd_check_layer(lua_State *L, derived_t *d, const layer_kind **k);

/* A scratch estimate on the stack (freed by __gc, also when an error is
 * raised), and nd.core.estimate(model, run), layout(model, run),
 * time_estimate(model, run, n), time_params(model, n),
 * activation_split(model, run, kind). */
estimate_t *lnd_push_scratch(lua_State *L);
int lnd_estimate(lua_State *L);
int lnd_layout(lua_State *L);
int lnd_time_estimate(lua_State *L);
int lnd_time_params(lua_State *L);
int lnd_activation_split(lua_State *L);

#endif
