/* file_write.c: whole output files written through a temporary file and a rename, every step checked;
 * the identity of a file, so an output is never one of the inputs. */
#include "file_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Writes every chunk of src to fd; -1 when a write fails or the source gives up. */
static int write_chunks(int fd, const write_source *src)
{
    for (;;) {
        const char *chunk;
        size_t n;
        if (src->next(src->data, &chunk, &n) != 0)
            return -1;
        if (n == 0)
            return 0;
        if (write_all(fd, chunk, n) != 0)
            return -1;
    }
}

/* A device or a pipe: opened and written where it is. */
static int write_in_place(const char *path, const write_source *src, const char **step)
{
    int fd = open(path, O_WRONLY | O_TRUNC);
    if (fd < 0) {
        *step = "cannot open";
        return -1;
    }
    if (write_chunks(fd, src) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        *step = "cannot write";
        return -1;
    }
    if (close(fd) != 0) {
        *step = "cannot close";
        return -1;
    }
    return 0;
}

/* Writes the temporary file fd (named tmp) and renames it to dest. */
static int fill_and_rename(int fd, const char *tmp, const char *dest, mode_t mode, const write_source *src,
                           const char **step)
{
    if (fchmod(fd, mode) != 0) {
        *step = "cannot set the mode of a temporary file";
    } else if (write_chunks(fd, src) != 0) {
        *step = "cannot write";
    } else if (fsync(fd) != 0 && errno != EINVAL) {
        *step = "cannot write";
    } else {
        int rc = close(fd);
        fd = -1;
        if (rc != 0)
            *step = "cannot write";
        else if (rename(tmp, dest) != 0)
            *step = "cannot rename a temporary file over it";
        else
            return 0;
    }
    int e = errno;
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    errno = e;
    return -1;
}

int nd_write_source(const char *path, const write_source *src, const char **step)
{
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        *step = "cannot write";
        return -1;
    }
    if (exists && !S_ISREG(st.st_mode))
        return write_in_place(path, src, step);
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~mask);
    /* A symbolic link to a file: the file it names is replaced, not the link. */
    char *real = exists ? realpath(path, NULL) : NULL;
    const char *dest = real != NULL ? real : path;
    static const char suffix[] = ".tmp-XXXXXX";
    size_t len = strlen(dest);
    char *tmp = malloc(len + sizeof suffix);
    if (tmp == NULL) {
        free(real);
        errno = ENOMEM;
        *step = "cannot write";
        return -1;
    }
    memcpy(tmp, dest, len);
    memcpy(tmp + len, suffix, sizeof suffix);
    int rc = -1;
    int fd = mkstemp(tmp);
    if (fd < 0)
        *step = "cannot write";
    else
        rc = fill_and_rename(fd, tmp, dest, mode, src, step);
    int e = errno;
    free(tmp);
    free(real);
    errno = e;
    return rc;
}

/* One chunk: the whole text, then the end. */
typedef struct {
    const char *text;
    size_t n;
} whole_text;

static int next_of_whole(void *data, const char **chunk, size_t *n)
{
    whole_text *w = data;
    *chunk = w->text;
    *n = w->n;
    w->n = 0;
    return 0;
}

int nd_write_file(const char *path, const char *text, size_t n, const char **step)
{
    whole_text w = {text, n};
    write_source src = {next_of_whole, &w};
    return nd_write_source(path, &src, step);
}

/* The chunks of write_file's function at index 2: each call's string,
 * kept at index 3 until the next call; nil or "" ends them. An error in
 * the function stops the write and stays at index 3 (raised is set). */
typedef struct {
    lua_State *L;
    bool raised;
} lua_chunks;

static int next_of_function(void *data, const char **chunk, size_t *n)
{
    lua_chunks *c = data;
    lua_settop(c->L, 2);
    lua_pushvalue(c->L, 2);
    if (lua_pcall(c->L, 0, 1, 0) != LUA_OK) {
        c->raised = true;
        errno = ECANCELED;
        return -1;
    }
    *n = 0;
    if (!lua_isnil(c->L, 3) && (*chunk = lua_tolstring(c->L, 3, n)) == NULL) {
        lua_pushfstring(c->L, "write_file: the function gave a %s, not a string", luaL_typename(c->L, 3));
        lua_replace(c->L, 3);
        c->raised = true;
        errno = ECANCELED;
        return -1;
    }
    return 0;
}

int nd_lua_write_file(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    size_t n = 0;
    whole_text w = {NULL, 0};
    lua_chunks chunks = {L, false};
    write_source src = {next_of_function, &chunks};
    if (!lua_isfunction(L, 2)) {
        w.text = luaL_checklstring(L, 2, &n);
        w.n = n;
        src = (write_source){next_of_whole, &w};
    }
    lua_settop(L, 2);
    const char *step = "cannot write";
    int rc = nd_write_source(path, &src, &step);
    if (chunks.raised)
        return lua_error(L); /* the temporary file is gone; the old file is as it was */
    if (rc != 0) {
        int e = errno;
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", step, strerror(e));
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

int nd_lua_file_id(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    struct stat st;
    if (stat(path, &st) != 0) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushfstring(L, "%I:%I", (lua_Integer)st.st_dev, (lua_Integer)st.st_ino);
    if (S_ISREG(st.st_mode))
        lua_pushliteral(L, "file");
    else if (S_ISDIR(st.st_mode))
        lua_pushliteral(L, "directory");
    else
        lua_pushliteral(L, "other");
    return 2;
}
