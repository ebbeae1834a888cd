/* luautil.h: small helpers shared by the Lua bridges: bad-input errors, nd.null, reading files. */
#ifndef NDLUA_LUAUTIL_H
#define NDLUA_LUAUTIL_H

#include <stddef.h>

#include <lua.h>

/* The largest file a loader reads (a train.yaml or config.json is kilobytes). */
#define ND_MAX_FILE_BYTES ((size_t)64 << 20)

/* Raises an error table {bad_input = true, message = ...}: the executable
 * prints the message alone and exits 2. Never returns. */
int nd_bad_input(lua_State *L, const char *fmt, ...);

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
