/* chunks.c: loading a Lua file from the compiled form ndlua was built with. */
#include "chunks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

#include "bytebuf.h"

/* lua_dump's writer into a byte array (the probe's dump). */
static int dump_add(lua_State *L, const void *p, size_t n, void *ud)
{
    (void)L;
    return bytebuf_add(ud, p, n) != 0;
}

/* Whether the running Lua dumps the probe as the build's Lua did, so that
 * it reads the compiled files as they were written (worked out once), and
 * NDLUA_COMPILED is not "0" (which has every file compiled from its source,
 * local and upvalue names included). */
static int probe_matches(lua_State *L)
{
    static int known = 0; /* 1: it does, -1: it does not */
    if (known != 0)
        return known > 0;
    known = -1;
    const char *wanted = getenv("NDLUA_COMPILED");
    if (wanted != NULL && strcmp(wanted, "0") == 0)
        return 0;
    if (luaL_loadbufferx(L, chunk_probe_source, strlen(chunk_probe_source), "@probe", "t") != LUA_OK) {
        lua_pop(L, 1);
        return 0;
    }
    bytebuf_t dump = {0};
    int failed = lua_dump(L, dump_add, &dump, 0) != 0;
    lua_pop(L, 1);
    if (!failed && dump.size == chunk_probe_size && memcmp(dump.data, chunk_probe_dump, dump.size) == 0)
        known = 1;
    bytebuf_free(&dump);
    return known > 0;
}

#define FNV_BASIS 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

/* The 8 bytes at q as a little-endian word. */
static uint64_t word_at(const unsigned char *q)
{
    return (uint64_t)q[0] | (uint64_t)q[1] << 8 | (uint64_t)q[2] << 16 | (uint64_t)q[3] << 24 |
           (uint64_t)q[4] << 32 | (uint64_t)q[5] << 40 | (uint64_t)q[6] << 48 | (uint64_t)q[7] << 56;
}

/* FNV-1a's step over a word, folding the high half of the product into the low. */
static uint64_t fnv_step(uint64_t h, uint64_t w)
{
    h = (h ^ w) * FNV_PRIME;
    return h ^ (h >> 32);
}

/* A 64-bit hash of text[0..n) (scripts/lua_chunks.lua's text_hash): the
 * words of each whole 32-byte block go to four lanes in turn (lane k starts
 * at the offset basis xor k), the lanes are then stepped into lane 0 in
 * order, and the words and the bytes after the last whole block follow one
 * by one. The four lanes' steps do not wait on each other, where one chain
 * of steps waits on each multiply in turn. */
static uint64_t text_hash(const unsigned char *p, size_t n)
{
    uint64_t lane[4] = {FNV_BASIS, FNV_BASIS ^ 1, FNV_BASIS ^ 2, FNV_BASIS ^ 3};
    size_t i = 0;
    for (; n - i >= 32; i += 32)
        for (int k = 0; k < 4; k++)
            lane[k] = fnv_step(lane[k], word_at(p + i + 8 * (size_t)k));
    uint64_t h = lane[0];
    for (int k = 1; k < 4; k++)
        h = fnv_step(h, lane[k]);
    for (; n - i >= 8; i += 8)
        h = fnv_step(h, word_at(p + i));
    for (; i < n; i++)
        h = (h ^ p[i]) * FNV_PRIME;
    return h;
}

/* The size prefix Lua's dump writes before a string of n bytes: n + 1,
 * seven bits a byte, most significant first, the last byte marked 0x80.
 * Returns its length (at most 10 bytes for a 64-bit size). */
static size_t size_prefix(size_t n, unsigned char out[16])
{
    unsigned char reversed[16];
    size_t len = 0, x = n + 1;
    do {
        reversed[len++] = (unsigned char)(x & 0x7f);
        x >>= 7;
    } while (x != 0);
    for (size_t i = 0; i < len; i++)
        out[i] = reversed[len - 1 - i];
    out[len - 1] |= 0x80;
    return len;
}

/* Whether a compiled file has `size` bytes, so that a file of another
 * length (a user's script, a pipe) is not read at all. */
static int any_of_size(size_t size)
{
    for (size_t i = 0; i < chunk_count; i++)
        if (chunk_records[i].source_size == size)
            return 1;
    return 0;
}

/* The compiled file whose bytes are text[0..n), or NULL. */
static const chunk_record *find_record(const unsigned char *text, size_t n)
{
    uint64_t hash = text_hash(text, n);
    for (size_t i = 0; i < chunk_count; i++)
        if (chunk_records[i].source_size == n && chunk_records[i].source_hash == hash)
            return &chunk_records[i];
    return NULL;
}

/* The bytes of the open file fd when it is a regular file of a compiled
 * file's length, newly allocated (its length in *n); else NULL. Closes fd.
 * One read of one byte more than fstat's size: a regular file reads short
 * only at its end (POSIX read), so getting exactly that size means the
 * file held those bytes and no more when read. */
static unsigned char *read_candidate(int fd, size_t *n)
{
    struct stat st;
    unsigned char *text = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && any_of_size((size_t)st.st_size)) {
        size_t size = (size_t)st.st_size;
        text = malloc(size + 1);
        ssize_t got = -1;
        if (text != NULL)
            do
                got = read(fd, text, size + 1);
            while (got < 0 && errno == EINTR);
        if (got < 0 || (size_t)got != size) { /* a read error, or the file changed meanwhile */
            free(text);
            text = NULL;
        }
        *n = size;
    }
    close(fd);
    return text;
}

/* lua_load's reader over a record's dump with its chunk name replaced:
 * the dump up to the name, the new name (its size prefix, '@', the path),
 * the dump after the old name, read in place (lua_Reader, Lua 5.4 manual
 * 4.6: each call returns the next piece, NULL or size 0 at the end). */
typedef struct {
    const char *piece[4];
    size_t size[4];
    int next;
} named_dump;

static const char *read_named(lua_State *L, void *ud, size_t *size)
{
    (void)L;
    named_dump *d = ud;
    while (d->next < 4 && d->size[d->next] == 0)
        d->next++;
    if (d->next == 4) {
        *size = 0;
        return NULL;
    }
    *size = d->size[d->next];
    return d->piece[d->next++];
}

/* Loads the record's dump with its chunk name replaced by "@path": pushes
 * the function and returns 1, or pushes nothing and returns 0. */
static int load_named(lua_State *L, const chunk_record *r, const char *path)
{
    size_t old_len = strlen(r->path) + 1, new_len = strlen(path) + 1;
    unsigned char old_prefix[16], new_prefix[16];
    size_t old_plen = size_prefix(old_len, old_prefix), new_plen = size_prefix(new_len, new_prefix);
    size_t at = chunk_name_at, old_end = at + old_plen + old_len;
    if (old_end > r->dump_size || memcmp(r->dump + at, old_prefix, old_plen) != 0 ||
        r->dump[at + old_plen] != '@' || memcmp(r->dump + at + old_plen + 1, r->path, old_len - 1) != 0)
        return 0;
    new_prefix[new_plen] = '@';
    named_dump d = {{(const char *)r->dump, (const char *)new_prefix, path, (const char *)r->dump + old_end},
                    {at, new_plen + 1, new_len - 1, r->dump_size - old_end}, 0};
    /* (a binary chunk's name serves only the messages of a load that fails,
     * and a failed load here falls back to the source) */
    if (lua_load(L, read_named, &d, "=compiled", "b") != LUA_OK) {
        lua_pop(L, 1);
        return 0;
    }
    return 1;
}

/* chunks_load of the file open as fd (closed here), read from path. */
static int load_open(lua_State *L, int fd, const char *path)
{
    size_t n = 0;
    unsigned char *text = read_candidate(fd, &n);
    if (text == NULL)
        return 0;
    const chunk_record *r = find_record(text, n);
    free(text);
    return r != NULL && load_named(L, r, path);
}

int chunks_load(lua_State *L, const char *path)
{
    if (!probe_matches(L))
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    return fd >= 0 && load_open(L, fd, path);
}

int chunks_loadfile(lua_State *L, const char *path)
{
    return chunks_load(L, path) ? LUA_OK : luaL_loadfilex(L, path, "t");
}

/* The file package.searchpath(name, path) finds, as Lua 5.4's loadlib.c
 * searchpath finds it: each "." of the name made a "/", every "?" of path
 * replaced by the name, then each of the ";"-separated names in turn; the
 * first that opens for reading is the file. (A name without ";" is put in
 * each template as it is tried, which names the same files.) Pushes its
 * name and returns it open (a descriptor), or pushes nothing and returns -1. */
static int open_on_path(lua_State *L, const char *name, const char *path)
{
    int base = lua_gettop(L);
    const char *dotted = luaL_gsub(L, name, ".", LUA_DIRSEP);
    int whole = strchr(dotted, *LUA_PATH_SEP) != NULL;
    const char *names = whole ? luaL_gsub(L, path, LUA_PATH_MARK, dotted) : path;
    for (const char *f = names;; f++) {
        const char *end = strchr(f, *LUA_PATH_SEP);
        if (end == NULL)
            end = f + strlen(f);
        const char *file = lua_pushlstring(L, f, (size_t)(end - f));
        if (!whole)
            file = luaL_gsub(L, file, LUA_PATH_MARK, dotted);
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            lua_replace(L, base + 1);
            lua_settop(L, base + 1);
            return fd;
        }
        lua_settop(L, base + 1 + whole);
        if (*end == '\0')
            break;
        f = end;
    }
    lua_settop(L, base);
    return -1;
}

/* The searcher: upvalues the searcher it replaces and the package table.
 * A module whose file (the one the Lua searcher would read) is a compiled
 * file loads from its compiled form; any other goes to that searcher. */
static int search_compiled(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    if (probe_matches(L) && lua_getfield(L, lua_upvalueindex(2), "path") == LUA_TSTRING) {
        int fd = open_on_path(L, name, lua_tostring(L, 2));
        if (fd >= 0 && load_open(L, fd, lua_tostring(L, 3))) {
            lua_insert(L, 3); /* the function, then the file name, as the Lua searcher returns */
            return 2;
        }
    }
    lua_settop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_call(L, 1, LUA_MULTRET);
    return lua_gettop(L) - 1;
}

void chunks_install(lua_State *L)
{
    int top = lua_gettop(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    if (lua_getfield(L, -1, "package") == LUA_TTABLE && lua_getfield(L, -1, "searchers") == LUA_TTABLE &&
        lua_rawgeti(L, -1, 2) == LUA_TFUNCTION) {
        lua_pushvalue(L, -3);                    /* the package table */
        lua_pushcclosure(L, search_compiled, 2); /* searcher package */
        lua_rawseti(L, -2, 2);
    }
    lua_settop(L, top);
}

int chunks_lua_loadfile(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int env = lua_isnone(L, 2) ? 0 : 2;
    if (chunks_loadfile(L, path) != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    if (env != 0) { /* the file's first upvalue is its _ENV, as load sets it */
        lua_pushvalue(L, env);
        if (!lua_setupvalue(L, -2, 1))
            lua_pop(L, 1);
    }
    return 1;
}

int chunks_lua_compiled(lua_State *L)
{
    int compiled = chunks_load(L, luaL_checkstring(L, 1));
    if (compiled)
        lua_pop(L, 1);
    lua_pushboolean(L, compiled);
    return 1;
}
