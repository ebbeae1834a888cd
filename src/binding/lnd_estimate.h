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
int lnd_allocated_with_offset(lua_State *L);
/* Into *out, the run at `base` (stating no offset) with its offset replaced by the table at
 * `arg` (pp x vpp whole numbers, chunk-major, as nd.run settles the vpp lists); *out shares
 * the base's pointers, and its counts live in a userdata pushed on the stack (keep it there
 * while *out is used). A layout the estimate refuses, or a bad offset, raises a bad-input
 * error naming fn. */
void lnd_offset_run(lua_State *L, const char *fn, const model_t *m, int base, int arg, run_t *out);
int lnd_layout(lua_State *L);
int lnd_time_estimate(lua_State *L);
int lnd_time_params(lua_State *L);
int lnd_activation_split(lua_State *L);

#endif
