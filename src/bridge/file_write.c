/* file_write.c: whole output files written through a temporary file and a rename, every step checked;
 * the identity of a file, so an output is never one of the inputs. */
#include "file_write.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

#include "luautil.h"

/* The temporary files being written now: a signal that ends ndlua
 * (nd_cleanup_on_signals) removes them first, so an interrupted run leaves
 * no half file. A slot holds one write in progress; a write's chunks may
 * write another file, hence a few. A write when every slot is taken is
 * still written, only not removed on a signal. The slots are lock-free
 * atomics, which a signal handler may read. */
#define PENDING_SLOTS 8
static char *_Atomic pending[PENDING_SLOTS];

/* Blocks (block true) or restores the signals that remove the pending
 * files, around the steps that create, rename or remove one and note it. */
static void hold_signals(bool block, sigset_t *saved)
{
    if (block) {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGINT);
        sigaddset(&s, SIGTERM);
        sigaddset(&s, SIGHUP);
        pthread_sigmask(SIG_BLOCK, &s, saved);
    } else {
        pthread_sigmask(SIG_SETMASK, saved, NULL);
    }
}

static int note_pending(char *tmp)
{
    for (int i = 0; i < PENDING_SLOTS; i++) {
        char *none = NULL;
        if (atomic_compare_exchange_strong(&pending[i], &none, tmp))
            return i;
    }
    return -1;
}

static void forget_pending(int slot)
{
    if (slot >= 0)
        atomic_store(&pending[slot], NULL);
}

static void remove_pending_and_die(int sig)
{
    for (int i = 0; i < PENDING_SLOTS; i++) {
        char *tmp = atomic_load(&pending[i]);
        if (tmp != NULL)
            unlink(tmp);
    }
    /* die of the signal itself, so a shell sees 128 + its number and knows
     * the run was interrupted */
    signal(sig, SIG_DFL);
    raise(sig);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    pthread_sigmask(SIG_UNBLOCK, &s, NULL);
    _exit(128 + sig);
}

void nd_cleanup_on_signals(void)
{
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue; /* ignored (nohup, a background job): left ignored */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_pending_and_die;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

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

/* Writes the temporary file fd (named tmp, noted pending in `slot`) and
 * renames it to dest; either way tmp is no longer pending after. */
static int fill_and_rename(int fd, const char *tmp, int slot, const char *dest, mode_t mode,
                           const write_source *src, const char **step)
{
    sigset_t saved;
    if (fchmod(fd, mode) != 0) {
        *step = "cannot set the mode of a temporary file";
    } else if (write_chunks(fd, src) != 0) {
        *step = "cannot write";
    } else if (fsync(fd) != 0 && errno != EINVAL) {
        *step = "cannot write";
    } else {
        int rc = close(fd);
        fd = -1;
        if (rc != 0) {
            *step = "cannot write";
        } else {
            hold_signals(true, &saved);
            rc = rename(tmp, dest);
            if (rc == 0)
                forget_pending(slot);
            hold_signals(false, &saved);
            if (rc == 0)
                return 0;
            *step = "cannot rename a temporary file over it";
        }
    }
    int e = errno;
    if (fd >= 0)
        close(fd);
    hold_signals(true, &saved);
    unlink(tmp);
    forget_pending(slot);
    hold_signals(false, &saved);
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
    sigset_t saved;
    hold_signals(true, &saved);
    int fd = mkstemp(tmp);
    int slot = fd >= 0 ? note_pending(tmp) : -1;
    hold_signals(false, &saved);
    if (fd < 0)
        *step = "cannot write";
    else
        rc = fill_and_rename(fd, tmp, slot, dest, mode, src, step);
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
    if (rc != 0)
        return nd_push_failure(L, errno, "%s", step);
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
