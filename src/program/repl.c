/* repl.c: the interactive prompt, with readline loaded at run time when present. */
#include "repl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

typedef char *(*readline_fn)(const char *);
typedef void (*add_history_fn)(const char *);
typedef char *(*completion_fn)(const char *, int);

/* The state the completion generator reads names from (readline calls it
 * with no argument for it), and the names it offers for the current word. */
static lua_State *completion_state;
static char **completion_names;
static size_t completion_count, completion_next;
static int *completion_append; /* readline's rl_completion_append_character */

struct line_reader {
    void *lib;
    readline_fn readline;
    add_history_fn add_history;
};

static void completion_clear(void)
{
    for (size_t i = completion_next; i < completion_count; i++)
        free(completion_names[i]);
    free(completion_names);
    completion_names = NULL;
    completion_count = completion_next = 0;
}

/* Adds prefix + key when the key is a name starting with `part`. */
static void completion_add(const char *prefix, size_t prefix_len, const char *part, size_t part_len,
                           lua_State *L, int key)
{
    size_t n;
    if (lua_type(L, key) != LUA_TSTRING)
        return;
    const char *k = lua_tolstring(L, key, &n);
    if (n < part_len || strncmp(k, part, part_len) != 0)
        return;
    char **grown = realloc(completion_names, (completion_count + 1) * sizeof *grown);
    if (grown == NULL)
        return;
    completion_names = grown;
    char *name = malloc(prefix_len + n + 1);
    if (name == NULL)
        return;
    memcpy(name, prefix, prefix_len);
    memcpy(name + prefix_len, k, n + 1);
    completion_names[completion_count++] = name;
}

/* The keys of the table on top (and of its metatable's __index table). */
static void completion_keys(lua_State *L, const char *text, size_t prefix_len, const char *part)
{
    size_t part_len = strlen(part);
    for (int pass = 0; pass < 2 && lua_istable(L, -1); pass++) {
        lua_pushnil(L);
        while (lua_next(L, -2) != 0) {
            lua_pop(L, 1);
            completion_add(text, prefix_len, part, part_len, L, -1);
        }
        if (!lua_getmetatable(L, -1))
            break;
        lua_pushliteral(L, "__index");
        lua_rawget(L, -2);
        lua_remove(L, -2);
        lua_remove(L, -2);
    }
}

/* Collects the names completing `text` ("nd.se", "nd.units.g", "pri"): the
 * keys of the table the part before the last dot names, walked from the
 * globals with raw reads (no metamethod runs while readline waits). */
static void completion_collect(lua_State *L, const char *text)
{
    if (!lua_checkstack(L, 8))
        return;
    int top = lua_gettop(L);
    lua_pushglobaltable(L);
    const char *seg = text, *dot;
    while ((dot = strchr(seg, '.')) != NULL && lua_istable(L, -1)) {
        lua_pushlstring(L, seg, (size_t)(dot - seg));
        lua_rawget(L, -2);
        lua_remove(L, -2);
        seg = dot + 1;
    }
    if (lua_istable(L, -1))
        completion_keys(L, text, (size_t)(seg - text), seg);
    lua_settop(L, top);
}

/* readline's completion entry: the state-th name completing text. */
static char *complete_name(const char *text, int state)
{
    if (state == 0) {
        completion_clear();
        if (completion_state != NULL)
            completion_collect(completion_state, text);
        if (completion_append != NULL)
            *completion_append = '\0';
    }
    if (completion_next >= completion_count)
        return NULL;
    return completion_names[completion_next++]; /* readline frees it */
}

static void reader_open(struct line_reader *r)
{
    memset(r, 0, sizeof *r);
    const char *names[] = {"libreadline.so.8", "libreadline.so", "libedit.so.2"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && r->lib == NULL; i++)
        r->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (r->lib == NULL)
        return;
    /* POSIX allows converting a dlsym result to a function pointer. */
    *(void **)&r->readline = dlsym(r->lib, "readline");
    *(void **)&r->add_history = dlsym(r->lib, "add_history");
    completion_fn *entry = dlsym(r->lib, "rl_completion_entry_function");
    if (entry != NULL)
        *entry = complete_name;
    completion_append = dlsym(r->lib, "rl_completion_append_character");
    if (r->readline == NULL) {
        dlclose(r->lib);
        r->lib = NULL;
    }
}

/* One line without its newline, newly allocated (free with free); NULL at end of input. */
static char *reader_line(struct line_reader *r, const char *prompt)
{
    if (r->readline != NULL) {
        char *line = r->readline(prompt);
        if (line != NULL && *line != '\0' && r->add_history != NULL)
            r->add_history(line);
        return line;
    }
    fputs(prompt, stdout);
    fflush(stdout);
    size_t cap = 0;
    char *line = NULL;
    ssize_t n = getline(&line, &cap, stdin);
    if (n < 0) {
        free(line);
        return NULL;
    }
    if (n > 0 && line[n - 1] == '\n')
        line[n - 1] = '\0';
    return line;
}

/* Whether the chunk failed to load only because its end came too soon. */
static int is_incomplete(lua_State *L)
{
    size_t n;
    const char *msg = lua_tolstring(L, -1, &n);
    static const char eof[] = "<eof>";
    return msg != NULL && n >= sizeof eof - 1 && strcmp(msg + n - (sizeof eof - 1), eof) == 0;
}

/* Loads the text as an expression to print, else as a statement. */
static int load_line(lua_State *L, const char *text)
{
    const char *ret = lua_pushfstring(L, "return %s", text);
    int rc = luaL_loadbuffer(L, ret, strlen(ret), "=stdin");
    lua_remove(L, -2);
    if (rc == LUA_OK)
        return LUA_OK;
    lua_pop(L, 1);
    return luaL_loadbuffer(L, text, strlen(text), "=stdin");
}

/* Pushes the text of the value at i: a table without __tostring laid out by
 * nd.pretty, anything else as tostring gives it. */
static void push_shown(lua_State *L, int i)
{
    if (lua_type(L, i) == LUA_TTABLE && luaL_getmetafield(L, i, "__tostring") == LUA_TNIL) {
        lua_getglobal(L, "require");
        lua_pushliteral(L, "nd.pretty");
        lua_call(L, 1, 1);
        lua_getfield(L, -1, "format");
        lua_remove(L, -2);
        lua_pushvalue(L, i);
        lua_call(L, 1, 1);
        return;
    }
    if (lua_type(L, i) == LUA_TTABLE)
        lua_pop(L, 1); /* the __tostring found */
    luaL_tolstring(L, i, NULL);
}

/* Calls the chunk given as its one argument and prints what it returns. */
static int call_and_print(lua_State *L)
{
    lua_call(L, 0, LUA_MULTRET);
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        push_shown(L, i);
        fputs(lua_tostring(L, -1), stdout);
        fputs(i < n ? "\t" : "\n", stdout);
        lua_pop(L, 1);
    }
    fflush(stdout);
    return 0;
}

/* Reads one statement, asking for more lines while it is incomplete.
 * Leaves the loaded chunk on the stack and returns 1; 0 at end of input. */
static int read_statement(lua_State *L, struct line_reader *r)
{
    char *line = reader_line(r, "nd> ");
    if (line == NULL)
        return 0;
    lua_pushstring(L, line);
    free(line);
    for (;;) {
        if (load_line(L, lua_tostring(L, -1)) == LUA_OK) {
            lua_remove(L, -2);
            return 1;
        }
        if (!is_incomplete(L)) {
            lua_remove(L, -2);
            fprintf(stderr, "%s\n", lua_tostring(L, -1));
            lua_pop(L, 1);
            lua_pushnil(L);
            return 1;
        }
        lua_pop(L, 1);
        char *more = reader_line(r, "..> ");
        if (more == NULL)
            return 0;
        lua_pushliteral(L, "\n");
        lua_pushstring(L, more);
        free(more);
        lua_concat(L, 3);
    }
}

/* Loads the libraries nd holds as tables whose metatable's __index is a
 * function (nd.study, nd.svg, nd.census: lua/nd/api.lua filled_on_use
 * loads each at its first use, copies the module's names in and drops the
 * metatable): completion walks a table's own names (and its __index only
 * when that is a table), and runs no metamethod while readline waits, so
 * the prompt reads one absent name (nil) of each as it starts. With nd at
 * index 1; run protected. */
static int load_libraries(lua_State *L)
{
    lua_settop(L, 1);
    lua_pushnil(L);
    while (lua_next(L, 1) != 0) {
        int lazy = 0;
        if (lua_istable(L, -1) && lua_getmetatable(L, -1)) {
            lazy = lua_getfield(L, -1, "__index") == LUA_TFUNCTION;
            lua_pop(L, 2);
        }
        if (lazy) {
            lua_pushnil(L);
            lua_gettable(L, -2);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    return 0;
}

int repl_run(lua_State *L, repl_call_fn call)
{
    struct line_reader reader;
    completion_state = L;
    reader_open(&reader);
    printf("ndlua: the nd module is loaded as `nd`; end with Ctrl-D\n");
    lua_getglobal(L, "require");
    lua_pushliteral(L, "nd");
    if (call == NULL || lua_pcall(L, 1, 1, 0) != LUA_OK) {
        fprintf(stderr, "ndlua: %s\n", lua_tostring(L, -1));
        lua_pop(L, 1);
    } else {
        lua_pushcfunction(L, load_libraries);
        lua_pushvalue(L, -2);
        if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
            fprintf(stderr, "ndlua: %s\n", lua_tostring(L, -1));
            lua_pop(L, 1);
        }
        lua_setglobal(L, "nd");
    }
    while (read_statement(L, &reader)) {
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            continue;
        }
        lua_pushcfunction(L, call_and_print);
        lua_insert(L, -2);
        call(L, 1);
        lua_settop(L, 0);
    }
    fputs("\n", stdout);
    completion_clear();
    completion_state = NULL;
    /* readline stays loaded: what it keeps (history, keymaps, terminal
     * state) stays reachable from its globals, not leaked to LeakSanitizer. */
    return 0;
}
