/* state_heap.h: the memory of ndlua's Lua state, and the state itself. */
#ifndef NDLUA_STATE_HEAP_H
#define NDLUA_STATE_HEAP_H

#include <stddef.h>

#include <lua.h>

/* Blocks of up to STATE_HEAP_SMALL bytes come from size classes 16 bytes
 * apart, those of up to STATE_HEAP_MEDIUM bytes from classes of powers of
 * two from 1 KiB (six: 1 .. 32 KiB), all carved from 64 KiB pieces, which
 * are cut in turn from 2 MiB regions mapped at 2 MiB boundaries for
 * transparent huge pages (a piece is malloc's where no region can be
 * mapped); larger blocks are malloc's. */
enum {
    STATE_HEAP_GRAIN = 16,
    STATE_HEAP_SMALL = 512,
    STATE_HEAP_MEDIUM = 32 * 1024,
    STATE_HEAP_CLASSES = STATE_HEAP_SMALL / STATE_HEAP_GRAIN + 6,
    STATE_HEAP_PIECE = 64 * 1024,
    STATE_HEAP_REGION = 2 * 1024 * 1024
};

typedef struct state_heap {
    void *free_lists[STATE_HEAP_CLASSES + 1];                  /* by class; [0] unused */
    char *next, *end;                                          /* the piece being carved */
    void *pieces;                                              /* the pieces, each linking the one before */
    char *region_next, *region_end;                            /* the region the pieces come from */
} state_heap;

/* A lua_Alloc (Lua 5.4 manual, lua_Alloc) over `ud`, a zeroed state_heap. */
void *state_heap_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

/* Unmaps every region and frees every piece of malloc's (the small blocks
 * all at once) and empties the heap; its large blocks are freed one by one,
 * by state_heap_alloc. */
void state_heap_free(state_heap *h);

/* A new Lua state as luaL_newstate makes one (its panic function and its
 * warning functions, warnings off), its memory from one static state_heap
 * (every state state_new makes shares it; it is never freed); a
 * sanitizer build takes luaL_newstate's, so that the sanitizer sees every
 * block, and so does any build when the environment sets NDLUA_MALLOC=system
 * (make valgrind does). NULL when out of memory. */
lua_State *state_new(void);

#endif
