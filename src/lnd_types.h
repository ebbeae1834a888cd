/* lnd_types.h: the userdata types nd.core exposes (model, run) and their constructors. */
#ifndef NDLUA_LND_TYPES_H
#define NDLUA_LND_TYPES_H

#include <lua.h>

#include "model.h"

#define MODEL_TYPE "nd.model"

typedef struct {
    model_t *model;
} model_box;

/* Pushes a new, empty model box (freed by __gc) with one user value (the spec table). */
model_box *lnd_push_model_box(lua_State *L);
/* The model of the nd.model at index idx, or an argument error. */
model_t *lnd_check_model(lua_State *L, int idx);

/* nd.core.model(spec) */
int lnd_model_new(lua_State *L);
/* Registers the nd.model metatable. */
void lnd_open_model(lua_State *L);

/* Reads a census record table into a malloc'd record (path names it in errors). */
census_record *lnd_read_census(lua_State *L, int t, const char *path);

#endif
