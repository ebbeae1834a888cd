/* main.c: the ndlua executable: options, script lookup, protected calls, exit codes. */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "binding/lnd_init.h"
#include "bridge/chunks.h"
#include "bridge/file_write.h"
#include "bridge/paths.h"
#include "repl.h"
#include "state_heap.h"

#ifndef NDLUA_VERSION
#define NDLUA_VERSION "0.0.0"
#endif

enum { EXIT_INTERNAL = 1, EXIT_BAD_INPUT = 2 };

/* The start of the Lua state's memory block. A script may end with
 * os.exit(code) without closing the state; `L` points inside the block (past
 * its extra space), which leak checkers (valgrind) count as "possibly lost".
 * This pointer to its start keeps the state and all it holds reachable. */
static void *volatile state_block;

/* At exit, by return or by os.exit: output that could not be written (a
 * full disk, /dev/full) makes the run fail, with the standard output named,
 * rather than end 0 with the report lost. */
static void check_stdout(void)
{
    int failed = ferror(stdout);
    errno = 0;
    if (fflush(stdout) != 0)
        failed = 1;
    if (!failed)
        return;
    fprintf(stderr, "ndlua: cannot write the standard output: %s\n",
            errno != 0 ? strerror(errno) : "a write failed");
    _exit(EXIT_BAD_INPUT);
}

static void print_usage(FILE *out, const paths_t *paths)
{
    fprintf(out,
            "usage: ndlua [options] [SCRIPT [args...]]\n"
            "\n"
            "Runs a Lua script with the nd module (require \"nd\") loaded.\n"
            "\n"
            "options:\n"
            "  -e CODE   run CODE, then the script if one is given\n"
            "  -v        print the version and exit\n"
            "  -h        print this help and exit\n"
            "  --        stop reading options\n"
            "  -         as SCRIPT: read the script from standard input\n"
            "\n"
            "With no SCRIPT and a terminal, ndlua starts an interactive prompt.\n"
            "\n"
            "SCRIPT is taken as a path, else looked up by name (search, search.lua) in:\n");
    paths_print(out, paths);
    fprintf(out, "\nscripts:\n");
    paths_print_scripts(out, paths);
    fprintf(out,
            "\n"
            "environment:\n"
            "  NDLUA_PATH       extra script and library directories, colon separated\n"
            "  NDLUA_TRACEBACK  set to 1 to print a traceback with Lua errors\n"
            "  LUA_PATH         honoured as by lua (;; is the default path)\n");
}

/* Whether the value at idx is a bad-input error: a table marked bad_input. */
static int is_bad_input(lua_State *L, int idx)
{
    if (!lua_istable(L, idx))
        return 0;
    lua_getfield(L, idx, "bad_input");
    int bad = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return bad;
}

/* Pushes the text of an error object as lua.c finds it: a string or number
 * as it is, a table's `message` field, its __tostring, else its type. */
static const char *push_error_text(lua_State *L, int idx)
{
    if (lua_type(L, idx) == LUA_TSTRING || lua_type(L, idx) == LUA_TNUMBER) {
        lua_pushvalue(L, idx);
        return lua_tostring(L, -1);
    }
    if (lua_istable(L, idx)) {
        if (lua_getfield(L, idx, "message") == LUA_TSTRING)
            return lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    if (luaL_callmeta(L, idx, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
        return lua_tostring(L, -1);
    return lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, idx));
}

/* The message handler of every protected call: keeps bad-input error
 * tables as they are, turns other errors into text and adds a traceback
 * to them on request. */
static int message_handler(lua_State *L)
{
    if (is_bad_input(L, 1))
        return 1;
    const char *msg = push_error_text(L, 1);
    const char *want = getenv("NDLUA_TRACEBACK");
    if (want != NULL && strcmp(want, "1") == 0)
        luaL_traceback(L, L, msg, 1);
    return 1;
}

/* Prints the error on top of the stack and pops it; returns the exit status
 * it means: 2 for bad input (a table marked bad_input, printed alone), 1 for
 * anything else (printed after "ndlua: "). */
static int report_error(lua_State *L)
{
    int status = is_bad_input(L, -1) ? EXIT_BAD_INPUT : EXIT_INTERNAL;
    const char *msg = push_error_text(L, lua_gettop(L));
    fflush(stdout);
    if (status == EXIT_BAD_INPUT)
        fprintf(stderr, "%s\n", msg);
    else
        fprintf(stderr, "ndlua: %s\n", msg);
    lua_pop(L, 2);
    return status;
}

/* Calls the function below nargs arguments on the stack, protected. */
static int protected_call(lua_State *L, int nargs)
{
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, message_handler);
    lua_insert(L, base);
    int rc = lua_pcall(L, nargs, 0, base);
    lua_remove(L, base);
    return rc == LUA_OK ? 0 : report_error(L);
}

/* Sets the global arg table as lua does: arg[0] the script, arg[1..] its
 * arguments, negative indices the interpreter and its options; with no
 * script (script_index 0), arg[0] is the interpreter and arg[1..] its options. */
static void set_arg_table(lua_State *L, char **argv, int argc, int script_index)
{
    lua_createtable(L, argc - script_index, script_index + 1);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - script_index);
    }
    lua_setglobal(L, "arg");
}

/* arg[0] is the path the script was found at, so that it can find files beside it. */
static void set_script_path(lua_State *L, const char *path)
{
    lua_getglobal(L, "arg");
    lua_pushstring(L, path);
    lua_rawseti(L, -2, 0);
    lua_pop(L, 1);
}

static int push_script_arguments(lua_State *L, char **argv, int argc, int script_index)
{
    int n = argc - script_index - 1;
    luaL_checkstack(L, n + 3, "too many script arguments");
    for (int i = script_index + 1; i < argc; i++)
        lua_pushstring(L, argv[i]);
    return n;
}

static int run_chunk(lua_State *L, const char *code)
{
    if (luaL_loadbuffer(L, code, strlen(code), "=(command line)") != LUA_OK)
        return report_error(L);
    return protected_call(L, 0);
}

static int run_script(lua_State *L, const paths_t *paths, char **argv, int argc, int script_index)
{
    const char *name = argv[script_index];
    int rc;
    if (strcmp(name, "-") == 0) {
        rc = luaL_loadfilex(L, NULL, "t");
    } else {
        char *found = paths_find_script(paths, name);
        if (found == NULL) {
            paths_report_not_found(stderr, paths, name);
            return EXIT_BAD_INPUT;
        }
        set_script_path(L, found);
        rc = chunks_loadfile(L, found);
        free(found);
    }
    if (rc != LUA_OK) {
        /* A script that does not parse is an internal failure of that script. */
        return report_error(L);
    }
    return protected_call(L, push_script_arguments(L, argv, argc, script_index));
}

struct options {
    const char *chunk;
    int script_index; /* 0 when no script is named */
    int version, help;
};

static int parse_options(int argc, char **argv, struct options *opt)
{
    memset(opt, 0, sizeof *opt);
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || strcmp(a, "-") == 0)
            break;
        if (strcmp(a, "-e") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "ndlua: -e needs a chunk of Lua code\n");
                return -1;
            }
            opt->chunk = argv[++i];
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--version") == 0) {
            opt->version = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            opt->help = 1;
        } else {
            fprintf(stderr, "ndlua: unknown option '%s' (try ndlua -h)\n", a);
            return -1;
        }
    }
    opt->script_index = i < argc ? i : 0;
    return 0;
}

static int run(lua_State *L, const paths_t *paths, int argc, char **argv, const struct options *opt)
{
    set_arg_table(L, argv, argc, opt->script_index);
    if (opt->chunk != NULL) {
        int rc = run_chunk(L, opt->chunk);
        if (rc != 0 || opt->script_index == 0)
            return rc;
    }
    if (opt->script_index > 0)
        return run_script(L, paths, argv, argc, opt->script_index);
    if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
        return repl_run(L, protected_call);
    print_usage(stderr, paths);
    return EXIT_BAD_INPUT;
}

/* Blocks of 256 KiB and more come from their own mappings, which free
 * returns to the system. glibc raises that threshold as such blocks are
 * freed (up to 32 MiB), after which a search's growing arrays (each thread's
 * candidates, a sort's indices) land in the heap, whose freed memory stays
 * resident: a 16384-device search keeping every candidate peaked 11 MiB
 * higher on two threads. Stating the threshold keeps it fixed. */
static void return_large_blocks(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
}

#if defined(__SANITIZE_ADDRESS__)
#define CLOSE_STATE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CLOSE_STATE_AT_EXIT 1
#endif
#endif

/* The state's memory goes back to the system with the process, so a run
 * does not free it object by object: lua_close is about a tenth of
 * estimate.lua's instructions. Every __gc of ndlua's frees memory only, and
 * exit flushes the C streams of files a script left open. A sanitizer build
 * (make asan, make fuzz) closes the state, so that LeakSanitizer sees what
 * a __gc would leave unfreed; otherwise state_block keeps it all reachable. */
static void close_state(lua_State *L)
{
#ifdef CLOSE_STATE_AT_EXIT
    lua_close(L);
#else
    (void)L;
#endif
}

int main(int argc, char **argv)
{
    struct options opt;
    return_large_blocks();
    nd_cleanup_on_signals();
    if (atexit(check_stdout) != 0) {
        fprintf(stderr, "ndlua: cannot register the exit check\n");
        return EXIT_INTERNAL;
    }
    if (parse_options(argc, argv, &opt) != 0)
        return EXIT_BAD_INPUT;
    paths_t *paths = paths_new(argv[0]);
    if (paths == NULL) {
        fprintf(stderr, "ndlua: out of memory\n");
        return EXIT_INTERNAL;
    }
    if (opt.version || opt.help) {
        if (opt.version)
            printf("ndlua %s (%s)\n", NDLUA_VERSION, LUA_RELEASE);
        else
            print_usage(stdout, paths);
        paths_free(paths);
        return 0;
    }
    lua_State *L = state_new();
    if (L == NULL) {
        fprintf(stderr, "ndlua: cannot create a Lua state (out of memory)\n");
        paths_free(paths);
        return EXIT_INTERNAL;
    }
    state_block = lua_getextraspace(L);
    luaL_openlibs(L);
    int rc = paths_set_package_path(L, paths);
    chunks_install(L);
    if (rc == 0)
        rc = lnd_preload(L) == 0 ? 0 : EXIT_INTERNAL;
    if (rc == 0)
        rc = run(L, paths, argc, argv, &opt);
    fflush(stdout);
    close_state(L);
    paths_free(paths);
    return rc;
}
