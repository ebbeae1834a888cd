/* lnd_activations.h: the formula side of the census cross-check, seen from Lua. */
#ifndef NDLUA_LND_ACTIVATIONS_H
#define NDLUA_LND_ACTIVATIONS_H

#include <lua.h>

#include "model.h"

/* The layer kind of the model named by argument arg, or an argument error. */
const layer_kind *lnd_check_kind(lua_State *L, const model_t *m, int arg);
int lnd_activation_split(lua_State *L); /* nd.core.activation_split(model, run, kind) */

#endif
