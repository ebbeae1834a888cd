/* lnd_activations.h: the formula side of the census cross-check, seen from Lua. */
#ifndef NDLUA_LND_ACTIVATIONS_H
#define NDLUA_LND_ACTIVATIONS_H

#include <lua.h>

int lnd_activation_split(lua_State *L); /* nd.core.activation_split(model, run, kind) */

#endif
