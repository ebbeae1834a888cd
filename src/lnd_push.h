/* lnd_push.h: pushing computed numbers to Lua (whole numbers as integers). */
#ifndef NDLUA_LND_PUSH_H
#define NDLUA_LND_PUSH_H

#include <stdbool.h>
#include <stdint.h>

#include <lua.h>

/* Pushes d as an integer when it is whole and fits, else as a float. */
void lnd_push_number(lua_State *L, double d);
/* t[key] = d for the table on top of the stack. */
void lnd_set_number(lua_State *L, const char *key, double d);
/* t[key] = an integer / a boolean, for the table on top of the stack. */
void lnd_set_int(lua_State *L, const char *key, int64_t v);
void lnd_set_bool(lua_State *L, const char *key, bool v);

/* An __index for userdata whose metatable holds a `methods` table and whose
 * first user value is the table it was built from: a method, else that
 * table's field (model.hidden_size, run.tp). */
int lnd_index_methods_then_spec(lua_State *L);

#endif
