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

/* Argument errors that name the method. Lua names a function in an argument
 * error by how it was called (`run:micro_factor(99)`: 'micro_factor') or by
 * where a loaded module holds it ('nd.core.estimate'); a method called
 * through pcall(run.micro_factor, run, 99) is neither, and luaL_argerror
 * calls it '?'. lnd_new_type and lnd_name_methods register each method's
 * name (TYPE.METHOD: 'nd.run.micro_factor'), and these name it by that where
 * Lua has no name; the texts are luaL_argerror's, luaL_check*'s and
 * luaL_argcheck's. Never return (but for the checks' values). */
int lnd_argerror(lua_State *L, int arg, const char *extramsg);
int lnd_typeerror(lua_State *L, int arg, const char *tname);
lua_Integer lnd_checkinteger(lua_State *L, int arg);
lua_Integer lnd_optinteger(lua_State *L, int arg, lua_Integer dflt);
lua_Number lnd_checknumber(lua_State *L, int arg);
lua_Number lnd_optnumber(lua_State *L, int arg, lua_Number dflt);
const char *lnd_checklstring(lua_State *L, int arg, size_t *len);
void lnd_checktype(lua_State *L, int arg, int type);
#define lnd_checkstring(L, arg) lnd_checklstring((L), (arg), NULL)
#define lnd_argcheck(L, cond, arg, msg) ((void)((cond) || lnd_argerror((L), (arg), (msg))))

/* Registers the names of the functions of the table on top of the stack as
 * methods of the type `type_name` ("nd.search_result": its `candidate` is
 * 'nd.search_result.candidate' in argument errors). */
void lnd_name_methods(lua_State *L, const char *type_name);

#endif
