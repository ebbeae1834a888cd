/* luautil.h: small helpers shared by the Lua bridges: bad-input errors, failed calls' results, nd.null, reading files. */
#ifndef NDLUA_LUAUTIL_H
#define NDLUA_LUAUTIL_H

#include <stddef.h>

#include <lua.h>

/* The largest file a loader reads (a train.yaml or config.json is kilobytes). */
#define ND_MAX_FILE_BYTES ((size_t)64 << 20)

/* Raises an error table {bad_input = true, message = ...}: the executable
 * prints the message alone and exits 2. Never returns. */
int nd_bad_input(lua_State *L, const char *fmt, ...);

/* Pushes nil and the message fmt formats (as lua_pushfstring does)
 * followed by ": " and strerror(err): the two results of a call that
 * failed. Returns 2. */
int nd_push_failure(lua_State *L, int err, const char *fmt, ...);

/* Pushes a new userdata of size bytes, all zero, whose metatable (made
 * once, under type_name in the registry) has gc as its __gc: scratch
 * state a bridge frees when Lua collects it, also after an error.
 * Returns the block. */
void *nd_new_scratch(lua_State *L, size_t size, const char *type_name, lua_CFunction gc);

/* Writing nested tables out (as JSON, YAML: `format`): marks the table at
 * index t as being written in the set at index `visiting`, after refusing
 * it, with an error naming its key path, when it lies ND_MAX_WRITE_DEPTH
 * tables deep or is already being written (a table that contains itself).
 * nd_write_leave unmarks it once written. */
#define ND_MAX_WRITE_DEPTH 256
void nd_write_enter(lua_State *L, int visiting, int t, int depth, const char *path, const char *format);
void nd_write_leave(lua_State *L, int visiting, int t);

/* Pushes the nd.null sentinel (one userdata per state), creating it once. */
void nd_push_null(lua_State *L);
int nd_is_null(lua_State *L, int idx);

/* The length of the longest prefix of s[0..n) that is well-formed UTF-8
 * (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF);
 * n when all of it is. */
size_t nd_utf8_valid_prefix(const char *s, size_t n);

/* Pushes the whole content of the file as a string, or raises a bad-input
 * error naming the file (missing, unreadable, a directory, too large). */
void nd_push_file(lua_State *L, const char *path, size_t max_bytes);

#endif
