/* fs.c: directory listing, directory creation and the terminal test without a child process. */
#include "fs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

#include "luautil.h"

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void nd_dir_names_free(nd_dir_names *names)
{
    for (size_t i = 0; i < names->count; i++)
        free(names->names[i]);
    free(names->names);
    names->names = NULL;
    names->count = 0;
}

/* Appends a copy of name; -1 with errno ENOMEM when memory runs out. */
static int append_name(nd_dir_names *out, size_t *cap, const char *name)
{
    if (out->count == *cap) {
        if (*cap > SIZE_MAX / 2 / sizeof *out->names) {
            errno = ENOMEM;
            return -1;
        }
        size_t want = *cap ? *cap * 2 : 16;
        char **grown = realloc(out->names, want * sizeof *out->names);
        if (grown == NULL) {
            errno = ENOMEM;
            return -1;
        }
        out->names = grown;
        *cap = want;
    }
    size_t n = strlen(name);
    char *copy = malloc(n + 1);
    if (copy == NULL) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(copy, name, n + 1);
    out->names[out->count++] = copy;
    return 0;
}

int nd_list_dir(const char *path, nd_dir_names *out)
{
    out->names = NULL;
    out->count = 0;
    DIR *dir = opendir(path);
    if (dir == NULL)
        return -1;
    size_t cap = 0;
    int failed = 0, saved = 0;
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(dir);
        if (e == NULL) {
            if (errno != 0)
                failed = 1, saved = errno;
            break;
        }
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (append_name(out, &cap, e->d_name) != 0) {
            failed = 1, saved = errno;
            break;
        }
    }
    closedir(dir);
    if (failed) {
        nd_dir_names_free(out);
        errno = saved;
        return -1;
    }
    if (out->count > 1)
        qsort(out->names, out->count, sizeof *out->names, compare_names);
    return 0;
}

/* mkdir(path), where a directory already there counts as made. */
static int make_one(const char *path)
{
    if (mkdir(path, 0777) == 0)
        return 0;
    int saved = errno;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    errno = saved;
    return -1;
}

int nd_mkdir_p(const char *path)
{
    size_t n = strlen(path);
    if (n == 0) {
        errno = ENOENT;
        return -1;
    }
    char *copy = malloc(n + 1);
    if (copy == NULL) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(copy, path, n + 1);
    /* Each parent in turn: the prefix ending before each slash that follows
     * a name ("a//b/" makes "a", then "a//b"). */
    for (size_t i = 1; i < n; i++) {
        if (copy[i] != '/' || copy[i - 1] == '/')
            continue;
        copy[i] = '\0';
        int rc = make_one(copy);
        copy[i] = '/';
        /* A file where a parent should be: the next mkdir says ENOTDIR. */
        if (rc != 0 && errno != EEXIST) {
            int saved = errno;
            free(copy);
            errno = saved;
            return -1;
        }
    }
    free(copy);
    return make_one(path);
}

/* Pushes the names as an array; run under lua_pcall so that the C array is
 * freed even when Lua runs out of memory. */
static int push_names(lua_State *L)
{
    const nd_dir_names *names = lua_touserdata(L, 1);
    if (names->count > INT_MAX)
        return luaL_error(L, "too many directory entries");
    lua_createtable(L, (int)names->count, 0);
    for (size_t i = 0; i < names->count; i++) {
        lua_pushstring(L, names->names[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

int nd_lua_list_dir(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    nd_dir_names names;
    if (nd_list_dir(path, &names) != 0)
        return nd_push_failure(L, errno, "%s: cannot list the directory", path);
    lua_pushcfunction(L, push_names);
    lua_pushlightuserdata(L, &names);
    int rc = lua_pcall(L, 1, 1, 0);
    nd_dir_names_free(&names);
    if (rc != LUA_OK)
        return lua_error(L);
    return 1;
}

int nd_lua_mkdir_p(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    if (nd_mkdir_p(path) != 0)
        return nd_push_failure(L, errno, "%s: cannot create the directory", path);
    lua_pushboolean(L, 1);
    return 1;
}

int nd_lua_isatty(lua_State *L)
{
    lua_Integer fd = luaL_checkinteger(L, 1);
    luaL_argcheck(L, fd >= 0 && fd <= INT_MAX, 1, "not a file descriptor");
    lua_pushboolean(L, isatty((int)fd) == 1);
    return 1;
}
