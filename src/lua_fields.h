/* lua_fields.h: reading checked fields of a spec table at the Lua boundary. */
#ifndef NDLUA_LUA_FIELDS_H
#define NDLUA_LUA_FIELDS_H

#include <stdbool.h>
#include <stdint.h>

#include <lua.h>

/* Each reader takes the table index, the key path prefix shown in messages
 * ("" or "vision."), the key, and raises a bad-input error naming
 * prefix..key when the value is of the wrong type or out of range.
 * Absent values (nil or nd.null) give dflt, or an error when required. */
int64_t field_int(lua_State *L, int t, const char *prefix, const char *key, int64_t lo, int64_t hi,
                  int64_t dflt, bool required);
double field_number(lua_State *L, int t, const char *prefix, const char *key, double lo, double hi, double dflt);
bool field_bool(lua_State *L, int t, const char *prefix, const char *key, bool dflt);
/* A string field, newly allocated (free it); NULL when absent and not required. */
char *field_string(lua_State *L, int t, const char *prefix, const char *key, const char *dflt);

/* Whether the key holds a value (not nil, not nd.null). */
bool field_present(lua_State *L, int t, const char *key);

/* Refuses any key of the table not in the NULL-terminated list; `what`
 * names the table in the message ("model spec"). */
void field_refuse_unknown(lua_State *L, int t, const char *prefix, const char *what, const char *const *known);

#endif
