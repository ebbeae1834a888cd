/* luautil.c: bad-input errors, the nd.null sentinel and file reading for the bridges. */
#include "luautil.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <lauxlib.h>

int nd_bad_input(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lua_createtable(L, 0, 2);
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "bad_input");
    lua_pushvfstring(L, fmt, ap);
    lua_setfield(L, -2, "message");
    va_end(ap);
    return lua_error(L);
}

int nd_push_failure(lua_State *L, int err, const char *fmt, ...)
{
    va_list ap;
    lua_pushnil(L);
    va_start(ap, fmt);
    const char *what = lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_pushfstring(L, "%s: %s", what, strerror(err));
    lua_remove(L, -2);
    return 2;
}

void *nd_new_scratch(lua_State *L, size_t size, const char *type_name, lua_CFunction gc)
{
    void *block = lua_newuserdatauv(L, size, 0);
    memset(block, 0, size);
    if (luaL_newmetatable(L, type_name)) {
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return block;
}

void nd_write_enter(lua_State *L, int visiting, int t, int depth, const char *path, const char *format)
{
    const char *top = *path ? path : "the top level";
    if (depth >= ND_MAX_WRITE_DEPTH)
        luaL_error(L, "cannot write a table nested deeper than %d levels at %s as %s", ND_MAX_WRITE_DEPTH, top,
                   format);
    luaL_checkstack(L, 10, "table too deep");
    lua_pushvalue(L, t);
    if (lua_rawget(L, visiting) != LUA_TNIL)
        luaL_error(L, "cannot write a table that contains itself at %s as %s", top, format);
    lua_pop(L, 1);
    lua_pushvalue(L, t);
    lua_pushboolean(L, 1);
    lua_rawset(L, visiting);
}

void nd_write_leave(lua_State *L, int visiting, int t)
{
    lua_pushvalue(L, t);
    lua_pushnil(L);
    lua_rawset(L, visiting);
}

static const char NULL_KEY[] = "ndlua.null";

static int null_tostring(lua_State *L)
{
    lua_pushliteral(L, "null");
    return 1;
}

void nd_push_null(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, NULL_KEY) != LUA_TNIL)
        return;
    lua_pop(L, 1);
    lua_newuserdatauv(L, 0, 0);
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, null_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "nd.null");
    lua_setfield(L, -2, "__name");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, NULL_KEY);
}

int nd_is_null(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TUSERDATA)
        return 0;
    idx = lua_absindex(L, idx);
    nd_push_null(L);
    int same = lua_rawequal(L, idx, -1);
    lua_pop(L, 1);
    return same;
}

/* The length of the UTF-8 sequence at s[0..n), or 0 when it is malformed:
 * the lead byte gives the length and the range of the second byte
 * (Unicode 15, table 3-7), the other bytes are continuations 80..BF. */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4;
    else
        return 0;
    if (c == 0xE0)
        lo = 0xA0; /* overlong */
    else if (c == 0xED)
        hi = 0x9F; /* surrogates */
    else if (c == 0xF0)
        lo = 0x90; /* overlong */
    else if (c == 0xF4)
        hi = 0x8F; /* past U+10FFFF */
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return len;
}

size_t nd_utf8_valid_prefix(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t len = utf8_sequence(u + i, n - i);
        if (len == 0)
            return i;
        i += len;
    }
    return n;
}

void nd_push_file(lua_State *L, const char *path, size_t max_bytes)
{
    struct stat st;
    if (stat(path, &st) != 0)
        nd_bad_input(L, "%s: cannot read: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        nd_bad_input(L, "%s: is a directory, not a file", path);
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))
        nd_bad_input(L, "%s: not a regular file", path);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        nd_bad_input(L, "%s: cannot read: %s", path, strerror(errno));
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t total = 0;
    for (;;) {
        char *dst = luaL_prepbuffer(&b);
        size_t n = fread(dst, 1, LUAL_BUFFERSIZE, f);
        luaL_addsize(&b, n);
        total += n;
        if (total > max_bytes) {
            fclose(f);
            nd_bad_input(L, "%s: larger than %d MiB; ndlua reads configuration files, not data",
                         path, (int)(max_bytes >> 20));
        }
        if (n < LUAL_BUFFERSIZE)
            break;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed)
        nd_bad_input(L, "%s: read error", path);
    luaL_pushresult(&b);
}
