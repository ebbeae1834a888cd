/* lnd_model.h: nd.model, the model type seen from Lua (lnd_model.c). */
#ifndef NDLUA_LND_MODEL_H
#define NDLUA_LND_MODEL_H

#include <lauxlib.h>
#include <lua.h>

#include "core/model.h"

/* nd.core.model(spec), the model of the nd.model at index idx (or an
 * argument error), the layer kind of it named by argument arg, and the
 * registration of its metatable (pushed). */
int lnd_model_new(lua_State *L);
int lnd_model_bounds(lua_State *L);
model_t *lnd_check_model(lua_State *L, int idx);
const layer_kind *lnd_check_kind(lua_State *L, const model_t *m, int arg);
void lnd_open_model(lua_State *L);
/* Pushes the family run defaults (DEFAULT_RUN plus flash attention), by key. */
void lnd_push_family_defaults(lua_State *L);

#endif
