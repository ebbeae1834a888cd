/* state_heap.c: the memory of ndlua's Lua state, and the state itself.
 *
 * A run's Lua state makes tens of thousands of small blocks as it starts
 * (each string, table, closure and function prototype of the ~35 modules
 * estimate.lua loads), and malloc spends ~130 instructions on each fresh one
 * (glibc's _int_malloc carving the top chunk): 12 % of estimate.lua's
 * instructions. Lua's allocator function is told the size of the block it
 * frees or resizes (Lua 5.4 manual, §4.6 lua_Alloc: "When ptr is not NULL,
 * osize is the size of the block pointed by ptr"), so blocks need no header:
 * a block of up to STATE_HEAP_SMALL bytes is one of a size class (16 bytes
 * apart), one of up to STATE_HEAP_MEDIUM bytes one of a class of a power of
 * two (1, 2, 4, ... 32 KiB: a table's parts, a function's code and line
 * arrays, a string buffer); each is taken from its class's free list or
 * carved from a 64 KiB piece, and goes back to that list when freed. Larger
 * blocks are malloc's.
 *
 * The pieces are cut in turn from 2 MiB regions mapped at a 2 MiB boundary
 * and advised MADV_HUGEPAGE (madvise(2): "The kernel will also allocate
 * huge pages directly when the region is naturally aligned to the huge page
 * size"; Linux's admin-guide/mm/transhuge.rst: with THP "enabled" set to
 * "madvise", only such regions get them). Where the kernel grants one, the
 * region's memory comes in with one page fault instead of one per 4 KiB
 * page: estimate.lua's state touches ~140 such pages, and on a virtual
 * machine a 4 KiB fault costs ~10-15 us. Where it does not (THP off, no
 * huge page free, another system), the region faults in page by page, as
 * malloc's heap does. The medium classes keep estimate.lua's ~170 KiB of
 * blocks above 512 bytes (~40 more 4 KiB faults in malloc's heap) there too.
 * Where no region can be mapped (a region takes 4 MiB of address space at
 * once, for its alignment: under `ulimit -v` a process may have less), the
 * piece is malloc's instead, and its blocks are carved and freed as a
 * region's are: the state runs wherever malloc runs it.
 * Memory a class's list holds is reused by that class only and returns to
 * the system at exit (main.c leaves the state to the process's end). Lua's
 * garbage collector counts the sizes Lua asks for, not the pieces (Lua 5.4
 * lmem.c: luaM_malloc_ and luaM_realloc_ add them to GCdebt), so it runs
 * exactly as it would over malloc. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS and madvise beside _XOPEN_SOURCE (glibc's features.h) */
#include "state_heap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <lauxlib.h>

/* The classes: 1 .. SMALL_CLASSES of 16 * c bytes, then the medium ones
 * of 1 KiB << (c - SMALL_CLASSES - 1) bytes. */
#define SMALL_CLASSES ((size_t)(STATE_HEAP_SMALL / STATE_HEAP_GRAIN))
#define MEDIUM_FIRST ((size_t)1024)

/* A piece's first grain: the piece before it in the heap's list, and
 * whether the piece is malloc's (freed by free) or a region's (unmapped
 * with its region). */
typedef struct piece_link {
    void *before;
    int from_malloc;
} piece_link;

/* What the arithmetic below relies on: the last class is STATE_HEAP_MEDIUM
 * bytes (class_of never passes free_lists' end), a fresh piece holds a block
 * of it after its link (take never carves past a piece's end), a region
 * is whole pieces (next_piece reaches region_end exactly), and a piece's
 * link fits in its first grain. */
_Static_assert((MEDIUM_FIRST << (STATE_HEAP_CLASSES - SMALL_CLASSES - 1)) == STATE_HEAP_MEDIUM,
               "the medium classes end at STATE_HEAP_MEDIUM");
_Static_assert(STATE_HEAP_PIECE >= STATE_HEAP_GRAIN + STATE_HEAP_MEDIUM, "a piece holds its link and a largest block");
_Static_assert(STATE_HEAP_REGION % STATE_HEAP_PIECE == 0, "a region is whole pieces");
_Static_assert(sizeof(piece_link) <= STATE_HEAP_GRAIN, "a piece's link fits in its first grain");

/* The size class of a block of n bytes (1 .. STATE_HEAP_MEDIUM); 0 for none
 * (n == 0), LARGE for malloc's. */
#define LARGE ((size_t)-1)
static size_t class_of(size_t n)
{
    if (n == 0)
        return 0;
    if (n <= STATE_HEAP_SMALL)
        return (n + STATE_HEAP_GRAIN - 1) / STATE_HEAP_GRAIN;
    if (n > STATE_HEAP_MEDIUM)
        return LARGE;
    size_t c = SMALL_CLASSES + 1;
    for (size_t size = MEDIUM_FIRST; size < n; size <<= 1)
        c++;
    return c;
}

/* The bytes of a block of class c. */
static size_t class_size(size_t c)
{
    return c <= SMALL_CLASSES ? c * STATE_HEAP_GRAIN : MEDIUM_FIRST << (c - SMALL_CLASSES - 1);
}

/* The largest class whose blocks fit in n bytes (n >= STATE_HEAP_GRAIN). */
static size_t class_within(size_t n)
{
    if (n < MEDIUM_FIRST)
        return n < STATE_HEAP_SMALL ? n / STATE_HEAP_GRAIN : SMALL_CLASSES;
    size_t c = SMALL_CLASSES + 1;
    for (size_t size = MEDIUM_FIRST * 2; size <= n && size <= STATE_HEAP_MEDIUM; size <<= 1)
        c++;
    return c;
}

static void release(state_heap *h, void *p, size_t c)
{
    *(void **)p = h->free_lists[c];
    h->free_lists[c] = p;
}

/* A new region of STATE_HEAP_REGION bytes at a multiple of its size: twice
 * that mapped, the parts before and after the aligned one unmapped (mmap
 * places a mapping at any page boundary). NULL when none can be mapped. */
static char *map_region(void)
{
    size_t twice = 2 * (size_t)STATE_HEAP_REGION;
    char *mapped = mmap(NULL, twice, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED)
        return NULL;
    uintptr_t at = ((uintptr_t)mapped + STATE_HEAP_REGION - 1) & ~(uintptr_t)(STATE_HEAP_REGION - 1);
    char *region = mapped + (at - (uintptr_t)mapped), *end = region + STATE_HEAP_REGION;
    if (region > mapped)
        munmap(mapped, (size_t)(region - mapped));
    if (end < mapped + twice)
        munmap(end, (size_t)(mapped + twice - end));
#ifdef MADV_HUGEPAGE
    /* advice only: a kernel without THP refuses it, and the region is used as is */
    madvise(region, STATE_HEAP_REGION, MADV_HUGEPAGE);
#endif
    return region;
}

/* The next 64 KiB piece of the current region, or of a new one; where no
 * region can be mapped, one from malloc (*from_malloc set), 16-byte aligned
 * as a region's pieces are (C11 aligned_alloc). NULL when neither can be had. */
static char *next_piece(state_heap *h, int *from_malloc)
{
    *from_malloc = 0;
    if (h->region_next == h->region_end) {
        char *region = map_region();
        if (region == NULL) {
            *from_malloc = 1;
            return aligned_alloc(STATE_HEAP_GRAIN, STATE_HEAP_PIECE);
        }
        h->region_next = region;
        h->region_end = region + STATE_HEAP_REGION;
    }
    char *piece = h->region_next;
    h->region_next += STATE_HEAP_PIECE;
    return piece;
}

/* A new piece to carve; what was left of the last one (less than a block of
 * the class asked for) goes to the lists as blocks of the largest classes
 * it holds, in turn. */
static int new_piece(state_heap *h)
{
    int from_malloc;
    char *piece = next_piece(h, &from_malloc);
    if (piece == NULL)
        return 0;
    for (char *rest = h->next; rest != NULL && (size_t)(h->end - rest) >= STATE_HEAP_GRAIN;) {
        size_t c = class_within((size_t)(h->end - rest));
        release(h, rest, c);
        rest += class_size(c);
    }
    /* the piece's first grain links the piece before: all stay reachable */
    *(piece_link *)piece = (piece_link){h->pieces, from_malloc};
    h->pieces = piece;
    h->next = piece + STATE_HEAP_GRAIN;
    h->end = piece + STATE_HEAP_PIECE;
    return 1;
}

static void *take(state_heap *h, size_t c)
{
    void *p = h->free_lists[c];
    if (p != NULL) {
        h->free_lists[c] = *(void **)p;
        return p;
    }
    size_t size = class_size(c);
    if ((h->next == NULL || (size_t)(h->end - h->next) < size) && !new_piece(h))
        return NULL;
    p = h->next;
    h->next += size;
    return p;
}

/* state_heap_alloc but for its common cases (below). Kept out of line
 * (GCC's and Clang's noinline attribute), so that those cases save no
 * register for this one's calls: 0.25 M of estimate.lua's instructions. */
#if defined(__GNUC__)
#define OUT_OF_LINE __attribute__((noinline))
#else
#define OUT_OF_LINE
#endif
static void *resize(state_heap *h, void *ptr, size_t osize, size_t nsize) OUT_OF_LINE;
static void *resize(state_heap *h, void *ptr, size_t osize, size_t nsize)
{
    size_t oc = ptr != NULL ? class_of(osize) : 0; /* with no block, osize is the kind of object */
    size_t nc = class_of(nsize);
    if (nc == 0) {
        if (oc == LARGE)
            free(ptr);
        else if (oc != 0)
            release(h, ptr, oc);
        return NULL;
    }
    if (oc == nc && oc != LARGE)
        return ptr;
    if (oc == LARGE && nc == LARGE) {
        void *moved = realloc(ptr, nsize);
        return moved != NULL || nsize > osize ? moved : ptr;
    }
    void *p = nc == LARGE ? malloc(nsize) : take(h, nc);
    /* Lua counts on a block that shrinks never failing (Lua 5.4 manual,
     * §4.6 lua_Alloc: "Lua assumes that the allocator never fails when
     * osize >= nsize"): it stays where it is. Lua frees it later by its
     * new size, so a large block kept so goes to that size's class list,
     * never back to free(). */
    if (p == NULL)
        return ptr != NULL && nsize <= osize ? ptr : NULL;
    if (oc != 0) {
        memcpy(p, ptr, osize < nsize ? osize : nsize);
        if (oc == LARGE)
            free(ptr);
        else
            release(h, ptr, oc);
    }
    return p;
}

void *state_heap_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    state_heap *h = ud;
    /* the common cases: a new small block from its class's list or from
     * the piece, and a small block freed (n - 1 < SMALL: n is 1 .. SMALL) */
    if (ptr == NULL && nsize - 1 < STATE_HEAP_SMALL) {
        size_t c = (nsize + STATE_HEAP_GRAIN - 1) / STATE_HEAP_GRAIN, size = c * STATE_HEAP_GRAIN;
        void *p = h->free_lists[c];
        if (p != NULL) {
            h->free_lists[c] = *(void **)p;
            return p;
        }
        if (h->next != NULL && (size_t)(h->end - h->next) >= size) {
            p = h->next;
            h->next += size;
            return p;
        }
    } else if (nsize == 0 && ptr != NULL && osize - 1 < STATE_HEAP_SMALL) {
        release(h, ptr, (osize + STATE_HEAP_GRAIN - 1) / STATE_HEAP_GRAIN);
        return NULL;
    }
    return resize(h, ptr, osize, nsize);
}

/* The pieces list runs from the newest piece back, so a region's first
 * piece (the one at its start) comes after all its others: the region is
 * unmapped there, once no piece in it is to be read. A piece of malloc's
 * is freed by itself (its place, 2 MiB aligned or not, says nothing). */
void state_heap_free(state_heap *h)
{
    while (h->pieces != NULL) {
        char *piece = h->pieces;
        piece_link link = *(piece_link *)piece;
        h->pieces = link.before;
        if (link.from_malloc)
            free(piece);
        else if ((uintptr_t)piece % STATE_HEAP_REGION == 0)
            munmap(piece, STATE_HEAP_REGION);
    }
    memset(h, 0, sizeof *h);
}

#if defined(__SANITIZE_ADDRESS__)
#define STATE_HEAP_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STATE_HEAP_SANITIZED 1
#endif
#endif

#ifdef STATE_HEAP_SANITIZED
lua_State *state_new(void)
{
    return luaL_newstate();
}
#else
/* What luaL_newstate sets besides the allocator (Lua 5.4 lauxlib.c: its
 * panic, warnfoff, warnfon, warnfcont and checkcontrol): an error outside
 * any protected call prints "PANIC: unprotected error in call to Lua API
 * (message)"; warn() writes nothing until warn("@on"), then each warning as
 * "Lua warning: " and its pieces and a newline, to stderr, until
 * warn("@off"). */
static int panic(lua_State *L)
{
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "PANIC: unprotected error in call to Lua API (%s)\n",
            msg != NULL ? msg : "error object is not a string");
    fflush(stderr);
    return 0; /* Lua aborts */
}

static void warn_off(void *ud, const char *msg, int tocont);
static void warn_on(void *ud, const char *msg, int tocont);
static void warn_piece(void *ud, const char *msg, int tocont);

/* "@on" and "@off" (a whole message starting with "@") switch warnings;
 * whether msg was such a control message. */
static int warn_control(lua_State *L, const char *msg, int tocont)
{
    if (tocont || msg[0] != '@')
        return 0;
    if (strcmp(msg + 1, "off") == 0)
        lua_setwarnf(L, warn_off, L);
    else if (strcmp(msg + 1, "on") == 0)
        lua_setwarnf(L, warn_on, L);
    return 1;
}

static void warn_off(void *ud, const char *msg, int tocont)
{
    warn_control(ud, msg, tocont);
}

static void warn_piece(void *ud, const char *msg, int tocont)
{
    fprintf(stderr, "%s", msg);
    fflush(stderr);
    if (tocont) {
        lua_setwarnf(ud, warn_piece, ud);
    } else {
        fprintf(stderr, "%s", "\n");
        fflush(stderr);
        lua_setwarnf(ud, warn_on, ud);
    }
}

static void warn_on(void *ud, const char *msg, int tocont)
{
    if (warn_control(ud, msg, tocont))
        return;
    fprintf(stderr, "%s", "Lua warning: ");
    fflush(stderr);
    warn_piece(ud, msg, tocont);
}

/* NDLUA_MALLOC=system: the state's blocks from malloc one by one, as
 * luaL_newstate makes them, so that a memory checker that watches malloc
 * (make valgrind) sees each block; the way PYTHONMALLOC=malloc serves
 * CPython under valgrind. */
static int system_malloc_asked(void)
{
    const char *v = getenv("NDLUA_MALLOC");
    return v != NULL && strcmp(v, "system") == 0;
}

lua_State *state_new(void)
{
    static state_heap heap;
    if (system_malloc_asked())
        return luaL_newstate();
    lua_State *L = lua_newstate(state_heap_alloc, &heap);
    if (L != NULL) {
        lua_atpanic(L, panic);
        lua_setwarnf(L, warn_off, L);
    }
    return L;
}
#endif
