/* file_write.c: whole output files written through a temporary file and a rename, every step checked;
 * the identity of a file, so an output is never one of the inputs. */
#include "file_write.h"

#include <errno.h>
#include <fcntl.h>
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

/* A device or a pipe: opened and written where it is. */
static int write_in_place(const char *path, const char *text, size_t n, const char **step)
{
    int fd = open(path, O_WRONLY | O_TRUNC);
    if (fd < 0) {
        *step = "cannot open";
        return -1;
    }
    if (write_all(fd, text, n) != 0) {
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
static int fill_and_rename(int fd, const char *tmp, const char *dest, mode_t mode, const char *text, size_t n,
                           const char **step)
{
    if (fchmod(fd, mode) != 0) {
        *step = "cannot set the mode of a temporary file";
    } else if (write_all(fd, text, n) != 0) {
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

int nd_write_file(const char *path, const char *text, size_t n, const char **step)
{
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        *step = "cannot write";
        return -1;
    }
    if (exists && !S_ISREG(st.st_mode))
        return write_in_place(path, text, n, step);
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
        rc = fill_and_rename(fd, tmp, dest, mode, text, n, step);
    int e = errno;
    free(tmp);
    free(real);
    errno = e;
    return rc;
}

int nd_lua_write_file(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    size_t n;
    const char *text = luaL_checklstring(L, 2, &n);
    const char *step = "cannot write";
    if (nd_write_file(path, text, n, &step) != 0) {
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
