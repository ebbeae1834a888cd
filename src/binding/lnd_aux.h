/* lnd_aux.h: the binding's auxiliary library, what its type files share (lnd_aux.c). */
#ifndef NDLUA_LND_AUX_H
#define NDLUA_LND_AUX_H

#include <stddef.h>

#include <lauxlib.h>
#include <lua.h>

/* A userdata type's kind: its metatable's name, the size of its box and
 * what frees what the box holds. Every box of the binding begins with the
 * kind that made it (LND_BOX_HEAD), a tag a script cannot change: it can
 * give any userdata any metatable (debug.setmetatable), so a metatable
 * alone never says what a userdata holds. */
typedef struct lnd_kind {
    const char *name;
    size_t size;
    void (*release)(void *box);
} lnd_kind;

/* The first member of every box. */
#define LND_BOX_HEAD const lnd_kind *kind

/* Pushes a new box of `kind` (all zero but its tag) with `user_values` user
 * values and the kind's metatable (registered first if it is not yet). */
void *lnd_new_box(lua_State *L, const lnd_kind *kind, int user_values);

/* The box of `kind` at idx: its metatable, its size and its tag checked;
 * else raises an argument error ("nd.run expected, got nd.model"). */
void *lnd_check_box(lua_State *L, int idx, const lnd_kind *kind);

/* The __gc of every box: frees the box at 1 by its own tag, whatever
 * metatable it carries now (a model given a run's metatable is freed as a
 * model); a userdata that is no box of a known kind is left alone. */
int lnd_box_gc(lua_State *L);

/* Registers and pushes the metatable of a userdata type `kind` built from a
 * table (its first user value): __gc (lnd_box_gc), __tostring (unless NULL:
 * Lua adds it), and an __index giving a method of `methods` or spec() (that
 * table), else that table's field (model.hidden_size, run.tp). nd.core.types
 * holds the metatables. */
void lnd_new_type(lua_State *L, const lnd_kind *kind, lua_CFunction tostring, const luaL_Reg *methods);

/* Registers and pushes the metatable of `kind` with __gc (lnd_box_gc) and
 * nothing else (what lnd_new_type and lnd_new_box start from). */
void lnd_new_metatable(lua_State *L, const lnd_kind *kind);

#endif
