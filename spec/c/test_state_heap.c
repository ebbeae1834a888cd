/* test_state_heap.c: the Lua state's allocator (src/program/state_heap.c).
 * The expected addresses follow from its rule, worked by hand: a block of n
 * bytes (1..512) is of class ceil(n / 16), 16 * class bytes carved in turn
 * from a piece whose first 16 bytes link the piece before; a freed block
 * is the next one its class gives. */
#define _GNU_SOURCE /* RTLD_NEXT (glibc's dlfcn.h) */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <lauxlib.h>
#include <lualib.h>

#include "check.h"
#include "program/state_heap.h"

/* mmap as state_heap.c calls it: this program's own definition comes
 * before the C library's in the symbol lookup (the executable is searched
 * first; dlsym(3) RTLD_NEXT finds the one it hides). While mmap_refusing is
 * set, each call fails as the kernel fails one past the address-space limit
 * (mmap(2): ENOMEM, "the process's maximum number of mappings would have
 * been exceeded" or RLIMIT_AS), and is counted. */
static int mmap_refusing, mmap_refused;

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
    static void *(*next)(void *, size_t, int, int, int, off_t);
    if (mmap_refusing) {
        mmap_refused++;
        errno = ENOMEM;
        return MAP_FAILED;
    }
    if (next == NULL)
        *(void **)&next = dlsym(RTLD_NEXT, "mmap");
    if (next == NULL) {
        errno = ENOSYS;
        return MAP_FAILED;
    }
    return next(addr, len, prot, flags, fd, offset);
}

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

static void *grab(state_heap *h, size_t n)
{
    return state_heap_alloc(h, NULL, LUA_TTABLE, n); /* with no block, osize is a kind */
}

static void fill(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 7 + 3);
}

static int holds(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(i * 7 + 3))
            return 0;
    return 1;
}

static void carving(void)
{
    state_heap h = {0};
    char *a = grab(&h, 24); /* class 2: 32 bytes */
    char *b = grab(&h, 1);  /* class 1: 16 bytes, right after a */
    char *c = grab(&h, 33); /* class 3: 48 bytes, right after b */
    CHECK(a != NULL && b != NULL && c != NULL, "three blocks");
    CHECK_INT(b - a, 32, "a 24-byte block takes 32 bytes");
    CHECK_INT(c - b, 16, "a 1-byte block takes 16 bytes");
    CHECK_INT((uintptr_t)a % 16, 0, "blocks are 16-byte aligned");
    CHECK(a - 16 == (char *)h.pieces, "the piece's first 16 bytes link the piece before");
    state_heap_alloc(&h, a, 24, 0);
    CHECK(grab(&h, 32) == a, "a freed block is the next its class gives");
    CHECK(grab(&h, 32) == c + 48, "then carving goes on after the last block");
    CHECK(state_heap_alloc(&h, b, 1, 16) == b, "a block resized within its class stays");
    state_heap_free(&h);
}

static void moving(void)
{
    state_heap h = {0};
    unsigned char *p = grab(&h, 24);
    fill(p, 24);
    unsigned char *q = state_heap_alloc(&h, p, 24, 100);
    CHECK(q != p && holds(q, 24), "grown to another class: moved, its bytes kept");
    CHECK(grab(&h, 20) == p, "and its old block freed to its class");
    fill(q, 100);
    unsigned char *medium = state_heap_alloc(&h, q, 100, 5000);
    CHECK(medium != NULL && holds(medium, 100), "grown past 512 bytes (the 8 KiB class): its bytes kept");
    fill(medium, 5000);
    CHECK(state_heap_alloc(&h, medium, 5000, 8192) == medium, "grown within the 8 KiB class: it stays");
    unsigned char *big = state_heap_alloc(&h, medium, 8192, 40000);
    CHECK(big != NULL && holds(big, 5000), "grown past 32 KiB (malloc's): its bytes kept");
    CHECK(grab(&h, 6000) == medium, "and its 8 KiB block freed to its class");
    fill(big, 40000);
    big = state_heap_alloc(&h, big, 40000, 90000);
    CHECK(big != NULL && holds(big, 40000), "a large block resized by realloc keeps its bytes");
    unsigned char *small = state_heap_alloc(&h, big, 90000, 10);
    CHECK(small != NULL && holds(small, 10), "shrunk back to a small class: its first bytes kept");
    CHECK(state_heap_alloc(&h, small, 10, 0) == NULL, "freeing gives NULL");
    state_heap_free(&h);
}

static void pieces(void)
{
    state_heap h = {0};
    /* 64 KiB less the 16-byte link holds 127 blocks of 512 bytes and 496
     * bytes left: the 128th block starts a new piece, the 496 bytes go to
     * class 31 (496 / 16). */
    char *first = grab(&h, 512);
    for (int i = 1; i < 127; i++)
        grab(&h, 512);
    char *old_piece = (char *)h.pieces;
    char *next = grab(&h, 512);
    CHECK(first - 16 == old_piece, "the first block follows the link");
    CHECK(next - 16 == (char *)h.pieces && (char *)h.pieces != old_piece, "the 128th starts a new piece");
    CHECK(*(char **)h.pieces == old_piece, "which links the one before");
    CHECK(grab(&h, 496) == first + 127 * 512, "the old piece's last 496 bytes are class 31's");
    state_heap_free(&h);
    CHECK(h.pieces == NULL && h.next == NULL, "state_heap_free leaves an empty heap");
}

/* The pieces are cut in turn from 2 MiB regions at 2 MiB boundaries (so
 * that the kernel may back each with one transparent huge page): a piece
 * holds 127 blocks of 512 bytes (above), a region 2 MiB / 64 KiB = 32
 * pieces, so the 32 * 127 + 1st block starts the next region. */
static void regions(void)
{
    state_heap h = {0};
    const uintptr_t two_mib = 2u * 1024 * 1024;
    grab(&h, 512); /* block 1 */
    char *first = (char *)h.pieces;
    CHECK_INT((uintptr_t)first % two_mib, 0, "the first piece starts a region at a 2 MiB boundary");
    for (int k = 2; k <= 128; k++)
        grab(&h, 512);
    CHECK((char *)h.pieces == first + 64 * 1024, "block 128 starts the second piece, right after the first");
    for (int k = 129; k <= 32 * 127; k++)
        grab(&h, 512);
    CHECK((char *)h.pieces == first + 31 * 64 * 1024, "block 32 * 127 lies in the 32nd piece, the region's last");
    grab(&h, 512);
    CHECK_INT((uintptr_t)h.pieces % two_mib, 0, "the 33rd piece starts another region at a 2 MiB boundary");
    char *second = (char *)h.pieces;
    /* msync(2) fails with ENOMEM on a page that is not mapped: the first and
     * last 4 KiB pages of both regions (the second's last one never carved) */
    char *pages[] = {first, first + two_mib - 4096, second, second + two_mib - 4096};
    int mapped = 0, unmapped = 0;
    for (int i = 0; i < 4; i++)
        mapped += msync(pages[i], 4096, MS_ASYNC) == 0;
    state_heap_free(&h);
    for (int i = 0; i < 4; i++)
        unmapped += msync(pages[i], 4096, MS_ASYNC) == -1 && errno == ENOMEM;
    CHECK_INT(mapped, 4, "both regions are mapped, whole, while the heap holds them");
    CHECK_INT(unmapped, 4, "state_heap_free unmaps both regions, whole");
    CHECK(h.pieces == NULL && h.region_next == NULL, "state_heap_free leaves an empty heap");
}

/* Blocks of 513 bytes .. 32 KiB take the power of two from 1 KiB at or above
 * their size. A fresh piece's first block starts after the 16-byte link; a
 * 32 KiB block there leaves 65536 - 16 - 32768 = 32752 bytes, too few for a
 * second one, which starts a new piece; the 32752 go to the lists as the
 * largest blocks they hold in turn: 16384 + 8192 + 4096 + 2048 + 1024 + 512
 * + 496 (class 31). */
static void medium(void)
{
    state_heap h = {0};
    char *a = grab(&h, 32768);
    CHECK(a != NULL && a - 16 == (char *)h.pieces, "a 32 KiB block follows the piece's link");
    char *b = grab(&h, 20000);
    CHECK(b != NULL && b - 16 == (char *)h.pieces && b != a, "a second 32 KiB block starts a new piece");
    CHECK(grab(&h, 9000) == a + 32768, "the rest's first 16 KiB: a 9000-byte block's class");
    CHECK(grab(&h, 4097) == a + 32768 + 16384, "then 8 KiB");
    CHECK(grab(&h, 4096) == a + 32768 + 16384 + 8192, "then 4 KiB");
    CHECK(grab(&h, 1025) == a + 32768 + 16384 + 8192 + 4096, "then 2 KiB");
    CHECK(grab(&h, 513) == a + 32768 + 16384 + 8192 + 4096 + 2048, "then 1 KiB (513 bytes is its class)");
    CHECK(grab(&h, 512) == a + 32768 + 16384 + 8192 + 4096 + 2048 + 1024, "then 512 bytes");
    CHECK(grab(&h, 481) == a + 32768 + 16384 + 8192 + 4096 + 2048 + 1024 + 512, "then class 31's 496 bytes");
    CHECK(grab(&h, 1000) == b + 32768, "the 1 KiB list empty again: carved after b");
    state_heap_free(&h);
}

/* Where no region can be mapped, a piece is malloc's, carved as a region's
 * is (the addresses below by hand, as in carving() and medium(): a piece's
 * 16-byte link, then blocks in turn; what a piece has left when a block
 * does not fit goes to the lists as the largest blocks it holds, in turn,
 * and a list gives its last block first). Blocks move between malloc's
 * pieces and a region's as they change class; state_heap_free frees the
 * former (make asan's LeakSanitizer reports them otherwise) and unmaps the
 * latter. */
static void fallback(void)
{
    state_heap h = {0};
    mmap_refusing = 1, mmap_refused = 0;
    unsigned char *a = grab(&h, 24);
    CHECK(a != NULL, "a block where no region can be mapped");
    CHECK_INT(mmap_refused, 1, "after one refused region");
    if (a == NULL) {
        mmap_refusing = 0;
        return;
    }
    char *p1 = (char *)a - 16;
    CHECK(p1 == (char *)h.pieces && h.region_next == NULL, "from a piece of malloc's: a follows its link");
    CHECK_INT((uintptr_t)a % 16, 0, "16-byte aligned");
    CHECK(grab(&h, 1) == (char *)a + 32, "carving goes on in that piece");
    CHECK(grab(&h, 32768) == p1 + 64, "a 32 KiB block after the 16 + 32 + 16 bytes");
    /* 65536 - 64 - 32768 = 32704 bytes left: too few for another 32 KiB */
    char *d = grab(&h, 32768);
    CHECK(d != NULL && d - 16 == (char *)h.pieces && *(char **)h.pieces == p1,
          "the next takes a second piece of malloc's, linking the first");
    CHECK_INT(mmap_refused, 2, "after a second refused region");
    char *p2 = (char *)h.pieces;
    mmap_refusing = 0;
    /* 65536 - 16 - 32768 = 32752 bytes left in p2: a third piece */
    char *e = grab(&h, 32768);
    CHECK(e != NULL && (uintptr_t)h.pieces % (2u * 1024 * 1024) == 0 && e - 16 == (char *)h.pieces,
          "once a region can be mapped, the next piece starts one at a 2 MiB boundary");
    char *region = (char *)h.pieces;
    fill(a, 24);
    unsigned char *moved = state_heap_alloc(&h, a, 24, 100);
    CHECK(moved == (unsigned char *)region + 16 + 32768 && holds(moved, 24),
          "a block of a malloc'd piece grown to 112 bytes: carved in the region, its bytes kept");
    CHECK(grab(&h, 20) == a, "its old block is the next its class gives");
    /* the 16 KiB list: p1's first block of its last 32704 bytes, then p2's
     * first of its last 32752 (given first) */
    fill(moved, 100);
    unsigned char *medium = state_heap_alloc(&h, moved, 100, 9000);
    CHECK(medium == (unsigned char *)p2 + 16 + 32768 && holds(medium, 100),
          "a region's block grown to 16 KiB: the malloc'd piece's, its bytes kept");
    CHECK(grab(&h, 16384) == p1 + 64 + 32768, "then the first piece's");
    fill(medium, 9000);
    unsigned char *large = state_heap_alloc(&h, medium, 9000, 50000);
    CHECK(large != NULL && holds(large, 9000), "grown past 32 KiB (malloc's): its bytes kept");
    unsigned char *small = state_heap_alloc(&h, large, 50000, 100);
    CHECK(small == moved && holds(small, 100), "shrunk to 100 bytes: the region's freed block, its bytes kept");
    state_heap_free(&h);
    CHECK(msync(region, 4096, MS_ASYNC) == -1 && errno == ENOMEM, "state_heap_free unmaps the region");
    CHECK(h.pieces == NULL && h.next == NULL, "and leaves an empty heap");
}

/* A state of state_new runs Lua with every library and collects. */
static void state(const char *how)
{
    lua_State *L = state_new();
    CHECK(L != NULL, how);
    if (L == NULL)
        return;
    luaL_openlibs(L);
    const char *code = "local t = {} for i = 1, 20000 do t[i] = ('x'):rep(i % 700) .. i end "
                       "collectgarbage() local n = 0 for i = 1, #t do n = n + #t[i] end return n";
    int rc = luaL_dostring(L, code);
    CHECK_INT(rc, LUA_OK, "a script making and collecting 20000 strings runs");
    /* sum over i of (i % 700) + digits(i): i = 1..19600 is 28 cycles of
     * 0..699 (244650 each), i = 19601..20000 gives 1..400 (80200); digits
     * 9 * 1 + 90 * 2 + 900 * 3 + 9000 * 4 + 10001 * 5 */
    CHECK_INT(lua_tointeger(L, -1), 28 * 244650 + 80200 + 9 + 180 + 2700 + 36000 + 50005, "its strings are whole");
    lua_close(L);
}

/* state_new's heap is empty before its first state: the state's first
 * block needs a region, and where none can be mapped (each try refused),
 * every block comes from malloc'd pieces. A sanitizer build's state_new is
 * luaL_newstate's, which maps no region (its count not checked). */
static void state_without_regions(void)
{
    mmap_refusing = 1, mmap_refused = 0;
    state("state_new makes a state where no region can be mapped");
    mmap_refusing = 0;
#ifndef SANITIZED
    CHECK(mmap_refused > 1, "its first block and later ones asked for a region");
#endif
}

/* NDLUA_MALLOC=system gives a state whose allocator is not state_heap's
 * (luaL_newstate's: malloc, block by block), for valgrind to see each block;
 * unset, a build without a sanitizer uses state_heap_alloc. */
static void system_malloc(void)
{
    CHECK(setenv("NDLUA_MALLOC", "system", 1) == 0, "setenv");
    lua_State *L = state_new();
    CHECK(L != NULL, "state_new makes a state under NDLUA_MALLOC=system");
    if (L != NULL) {
        CHECK(lua_getallocf(L, NULL) != state_heap_alloc, "NDLUA_MALLOC=system: not state_heap's allocator");
        lua_close(L);
    }
    CHECK(unsetenv("NDLUA_MALLOC") == 0, "unsetenv");
#ifndef SANITIZED
    L = state_new();
    CHECK(L != NULL && lua_getallocf(L, NULL) == state_heap_alloc, "unset: state_heap's allocator");
    if (L != NULL)
        lua_close(L);
#endif
}

int main(void)
{
    carving();
    moving();
    pieces();
    regions();
    medium();
    fallback();
    state_without_regions();
    state("state_new makes a state");
    system_malloc();
    return check_done();
}
