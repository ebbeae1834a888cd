/* harness.c: the libFuzzer entry of every fuzz target: a Lua state with nd.core
 * and lua/ on its path runs the target's check (spec/fuzz/check_TARGET.lua) on the input.
 *
 * Built once per target with -DFUZZ_TARGET='"yaml"' (or json, estimate) and
 * -DFUZZ_ROOT='"/path/to/repo"' (NDLUA_ROOT in the environment overrides it).
 * The check returns for an input read or refused with a bad-input error, and
 * raises an error for a finding; the harness then prints it and aborts, so
 * libFuzzer keeps the input. Lua's memory is capped per input: an input that
 * makes Lua hold more than LUA_LIMIT_BYTES is a finding too (unbounded memory). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "binding/lnd_init.h"

#ifndef FUZZ_TARGET
#error "build with -DFUZZ_TARGET='\"yaml\"' (or json, estimate)"
#endif
#ifndef FUZZ_ROOT
#define FUZZ_ROOT "."
#endif

#define LUA_LIMIT_BYTES ((size_t)512 << 20)

typedef struct {
    size_t used, limit;
} budget_t;

/* Lua's allocator with a ceiling: a request past the limit fails, which Lua
 * raises as a memory error. */
static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    budget_t *b = ud;
    size_t old = ptr != NULL ? osize : 0; /* with no block, osize is a type tag */
    if (nsize == 0) {
        free(ptr);
        b->used -= old;
        return NULL;
    }
    if (nsize > old && b->used - old + nsize > b->limit)
        return NULL;
    void *p = realloc(ptr, nsize);
    if (p != NULL)
        b->used = b->used - old + nsize;
    return p;
}

static const char *root(void)
{
    const char *r = getenv("NDLUA_ROOT");
    return r != NULL && *r ? r : FUZZ_ROOT;
}

/* package.path: the library (lua/) first, then the checkers (spec/fuzz/). */
static void set_path(lua_State *L)
{
    lua_getglobal(L, "package");
    const char *r = root();
    lua_pushfstring(L, "%s/lua/?.lua;%s/lua/?/init.lua;%s/spec/fuzz/?.lua", r, r, r);
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
}

static int traceback(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) {
        if (lua_istable(L, 1) && lua_getfield(L, 1, "message") == LUA_TSTRING)
            msg = lua_pushfstring(L, "(an error table) %s", lua_tostring(L, -1));
        else
            msg = lua_pushfstring(L, "(an error object of type %s)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

static void report_and_abort(lua_State *L, int rc, const budget_t *b)
{
    if (rc == LUA_ERRMEM)
        fprintf(stderr, "FINDING: the input made Lua hold more than %zu MiB (at %zu bytes)\n",
                b->limit >> 20, b->used);
    else
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
    fflush(stderr);
    abort();
}

/* No Hugging Face cache of this machine's: a model resolves from the catalog or not at all. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("HF_HUB_CACHE", "/nonexistent/ndlua-fuzz/hub", 1);
    setenv("HF_HOME", "/nonexistent/ndlua-fuzz", 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    budget_t budget = {0, LUA_LIMIT_BYTES};
    lua_State *L = lua_newstate(limited_alloc, &budget);
    if (L == NULL)
        abort();
    luaL_openlibs(L);
    set_path(L);
    lnd_preload(L);
    lua_pushcfunction(L, traceback);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "check_" FUZZ_TARGET);
    int rc = lua_pcall(L, 1, 1, 1);
    if (rc == LUA_OK) {
        lua_pushlstring(L, (const char *)data, size);
        rc = lua_pcall(L, 1, 0, 1);
    }
    if (rc != LUA_OK)
        report_and_abort(L, rc, &budget);
    lua_close(L);
    return 0;
}
