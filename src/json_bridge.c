/* json_bridge.c: JSON text to Lua values and back with cJSON, integers kept as integers. */
#include "json_bridge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <lauxlib.h>

#include "docmeta.h"
#include "luautil.h"
#include "numfmt.h"

#define MAX_DEPTH 256

/* cJSON parses every number into a double, which loses integers past 2^53
 * and the difference between 3 and 3.0. A scan of the text, in the same
 * order as a walk of the parsed tree, finds each number's literal so the
 * converter can read it again: digits alone give an integer. */
typedef struct {
    size_t *start, *length;
    size_t count, cap, next;
    cJSON *root;
} scan_t;

static const char SCAN_TYPE[] = "ndlua.json_scan";

static int scan_gc(lua_State *L)
{
    scan_t *s = luaL_checkudata(L, 1, SCAN_TYPE);
    free(s->start);
    free(s->length);
    s->start = s->length = NULL;
    if (s->root != NULL)
        cJSON_Delete(s->root);
    s->root = NULL;
    return 0;
}

static scan_t *scan_new(lua_State *L)
{
    scan_t *s = lua_newuserdatauv(L, sizeof *s, 0);
    memset(s, 0, sizeof *s);
    if (luaL_newmetatable(L, SCAN_TYPE)) {
        lua_pushcfunction(L, scan_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return s;
}

static void position_of(const char *text, size_t offset, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < offset && text[i]; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

static int fail_at(lua_State *L, const char *name, const char *text, size_t offset, const char *what)
{
    int line, col;
    position_of(text, offset, &line, &col);
    return nd_bad_input(L, "%s:%d:%d: %s", name, line, col, what);
}

static void scan_add(lua_State *L, scan_t *s, size_t start, size_t length)
{
    if (s->count == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        size_t *a = realloc(s->start, cap * sizeof *a);
        if (a == NULL)
            luaL_error(L, "out of memory reading JSON");
        s->start = a;
        size_t *b = realloc(s->length, cap * sizeof *b);
        if (b == NULL)
            luaL_error(L, "out of memory reading JSON");
        s->length = b;
        s->cap = cap;
    }
    s->start[s->count] = start;
    s->length[s->count] = length;
    s->count++;
}

static int is_number_char(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* Records the number literals outside strings and refuses deep nesting. */
static void scan_numbers(lua_State *L, scan_t *s, const char *text, size_t n, const char *name)
{
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = text[i];
        if (c == '"') {
            for (i++; i < n && text[i] != '"'; i++)
                if (text[i] == '\\')
                    i++;
        } else if (c == '[' || c == '{') {
            if (++depth > MAX_DEPTH)
                fail_at(L, name, text, i, "the document nests deeper than 256 levels; refusing it");
        } else if (c == ']' || c == '}') {
            depth--;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t start = i;
            while (i + 1 < n && is_number_char(text[i + 1]))
                i++;
            scan_add(L, s, start, i - start + 1);
        }
    }
}

static void push_number(lua_State *L, scan_t *s, const char *text, const cJSON *item)
{
    if (s->next >= s->count) { /* cannot happen for text cJSON accepted */
        lua_pushnumber(L, item->valuedouble);
        return;
    }
    const char *lit = text + s->start[s->next];
    size_t len = s->length[s->next];
    s->next++;
    int integral = 1;
    for (size_t i = 0; i < len; i++)
        if (lit[i] == '.' || lit[i] == 'e' || lit[i] == 'E')
            integral = 0;
    if (integral) {
        char buf[32];
        if (len < sizeof buf) {
            memcpy(buf, lit, len);
            buf[len] = '\0';
            errno = 0;
            long long v = strtoll(buf, NULL, 10);
            if (errno != ERANGE) {
                lua_pushinteger(L, (lua_Integer)v);
                return;
            }
        }
    }
    lua_pushnumber(L, item->valuedouble);
}

static void push_item(lua_State *L, scan_t *s, const char *text, const cJSON *item);

static void push_array(lua_State *L, scan_t *s, const char *text, const cJSON *item)
{
    lua_newtable(L);
    docmeta_mark_kind(L, -1, DOCMETA_SEQ);
    lua_Integer i = 0;
    for (const cJSON *child = item->child; child != NULL; child = child->next) {
        push_item(L, s, text, child);
        lua_rawseti(L, -2, ++i);
    }
}

static void push_object(lua_State *L, scan_t *s, const char *text, const cJSON *item)
{
    lua_newtable(L);
    int t = lua_gettop(L);
    docmeta_attach(L, t, DOCMETA_MAP, NULL, 0, 0);
    int rec = lua_gettop(L);
    for (const cJSON *child = item->child; child != NULL; child = child->next) {
        lua_pushstring(L, child->string ? child->string : "");
        push_item(L, s, text, child);
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, t);
        docmeta_note(L, rec, -1, 0, 0);
        lua_pop(L, 1);
    }
    lua_settop(L, t);
}

static void push_item(lua_State *L, scan_t *s, const char *text, const cJSON *item)
{
    luaL_checkstack(L, 8, "JSON document too deep");
    if (cJSON_IsNull(item))
        nd_push_null(L);
    else if (cJSON_IsBool(item))
        lua_pushboolean(L, cJSON_IsTrue(item));
    else if (cJSON_IsNumber(item))
        push_number(L, s, text, item);
    else if (cJSON_IsString(item))
        lua_pushstring(L, item->valuestring);
    else if (cJSON_IsArray(item))
        push_array(L, s, text, item);
    else
        push_object(L, s, text, item);
}

static int decode_string(lua_State *L, int text_index, const char *name)
{
    size_t n;
    const char *text = lua_tolstring(L, text_index, &n);
    scan_t *s = scan_new(L);
    scan_numbers(L, s, text, n, name);
    const char *end = NULL;
    s->root = cJSON_ParseWithLengthOpts(text, n + 1, &end, 1);
    if (s->root == NULL) {
        size_t offset = end != NULL && end >= text && end <= text + n ? (size_t)(end - text) : 0;
        if (offset >= n)
            return fail_at(L, name, text, n, "JSON syntax error: the text ends inside a value");
        return fail_at(L, name, text, offset, "JSON syntax error");
    }
    push_item(L, s, text, s->root);
    return 1;
}

int json_lua_decode(lua_State *L)
{
    luaL_checkstring(L, 1);
    const char *name = luaL_optstring(L, 2, "(string)");
    return decode_string(L, 1, name);
}

int json_lua_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    nd_push_file(L, path, ND_MAX_FILE_BYTES);
    return decode_string(L, 2, path);
}
