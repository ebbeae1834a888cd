/* lua_fields.h: reading checked fields of a spec table at the Lua boundary, and writing fields back. */
#ifndef NDLUA_LUA_FIELDS_H
#define NDLUA_LUA_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "core/fields.h"

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

/* Pushes d as an integer when it is whole and fits, else as a float. */
void field_push_number(lua_State *L, double d);
/* t[key] = a number (whole ones as integers), an integer, a boolean, a
 * string, for the table t on top of the stack. */
void field_set_number(lua_State *L, const char *key, double d);
void field_set_int(lua_State *L, const char *key, int64_t v);
void field_set_bool(lua_State *L, const char *key, bool v);
void field_set_string(lua_State *L, const char *key, const char *s);

/* The field tables (field_desc) are described in core/fields.h. */

/* Whether the value at idx is a name c lists; sets *value to the value it names. */
bool field_choice_at(lua_State *L, int idx, const field_choices *c, int *value);

/* Reads the fields of a table at t into obj, from d up to the next
 * FIELD_STOP or FIELD_END; returns the descriptor after the stop. */
const field_desc *fields_read(lua_State *L, int t, const char *prefix, const field_desc *d, void *obj);
/* The descriptor after the next FIELD_STOP of d (a segment not read). */
const field_desc *fields_skip(const field_desc *d);
/* Refuses any key of the table at t that no descriptor of d names. */
void fields_refuse_unknown(lua_State *L, int t, const char *prefix, const char *what, const field_desc *d);
/* Sets the fields of obj, from d up to the next stop, into the table on
 * top of the stack (whole doubles as integers); returns the descriptor
 * after the stop. */
const field_desc *fields_push(lua_State *L, const field_desc *d, const void *obj);
/* Pushes a table of the defaults of d's numeric and flag fields, by key
 * (the defaults stated once, in C, for Lua to read). */
void fields_push_defaults(lua_State *L, const field_desc *d);
/* Sets key = {lo, hi} into the table on top of the stack for each bounded
 * number field of d (all segments, parts flattened): the bounds stated once,
 * in C, for Lua to check a value against where it reads it, and so to refuse
 * it at its file:line or option (nd.core.model_bounds, nd.core.run_bounds). */
void fields_set_bounds(lua_State *L, const field_desc *d);
/* t[key] = {lo, hi} in the table on top: one bound that no field table states */
void fields_set_bound(lua_State *L, const char *key, double lo, double hi);
/* Pushes the set of the names c accepts ({name = true}), for Lua to read. */
void field_push_names(lua_State *L, const field_choices *c);
/* Pushes the names c accepts as a list in its order, with `canonical`
 * ({name = the first name of the same value}) and `accepted` (the names a
 * message offers): a registry for Lua to read. */
void field_push_choices(lua_State *L, const field_choices *c);

#endif
