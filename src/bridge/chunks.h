/* chunks.h: the compiled form of the Lua files ndlua is built with. At
 * build time scripts/lua_chunks.lua compiles every file of lua/ into a C
 * source linked into the binary, with their lines but without their
 * local-variable and upvalue names (scripts/dump_names.lua). A file whose
 * bytes are exactly those of one of them runs from that form, under its own
 * name; any other file, an edited one among them, is compiled as Lua
 * compiles it, so the sources stay what runs. NDLUA_COMPILED=0 has every
 * file compiled from its source. */
#ifndef NDLUA_CHUNKS_H
#define NDLUA_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

typedef struct {
    const char *path;          /* the file the build compiled, e.g. lua/nd/init.lua */
    size_t source_size;        /* its length in bytes */
    uint64_t source_hash;      /* and a 64-bit hash of its bytes (chunks.c) */
    const unsigned char *dump; /* its chunk as string.dump writes it, named "@" path */
    size_t dump_size;
} chunk_record;

/* Written by scripts/lua_chunks.lua (the build's gen/lua_chunks.c). */
extern const chunk_record chunk_records[];
extern const size_t chunk_count;
/* Where each dump holds its chunk name (the size prefix's offset). */
extern const size_t chunk_name_at;
/* A small chunk and its dump by the Lua that compiled the files: the Lua
 * running ndlua reads their form when it dumps the same bytes. */
extern const char chunk_probe_source[];
extern const unsigned char chunk_probe_dump[];
extern const size_t chunk_probe_size;

/* When the bytes of the file at path are those of a compiled file (its
 * length and hash) and the running Lua reads that form: pushes the file's
 * function, named "@path" as loadfile names it, and returns 1. Else pushes
 * nothing and returns 0, and the caller compiles the file. */
int chunks_load(lua_State *L, const char *path);

/* luaL_loadfilex(L, path, "t"), from the compiled form when chunks_load has it. */
int chunks_loadfile(lua_State *L, const char *path);

/* Puts a searcher in the place of package.searchers[2] (Lua files on
 * package.path): it finds a module's file as that one does and loads it
 * through chunks_load, else leaves the module to the searcher it replaces. */
void chunks_install(lua_State *L);

/* compiled(path): whether ndlua runs the file at path from its compiled form. */
int chunks_lua_compiled(lua_State *L);

/* loadfile(path [, env]): Lua's loadfile(path, "t", env), from the compiled
 * form when chunks_load has it: the file's function, or nil and the
 * message loadfile gives. */
int chunks_lua_loadfile(lua_State *L);

#endif
