/* json_bridge.c: JSON text to Lua values and back with cJSON, integers kept as integers. */
#include "json_bridge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <lauxlib.h>

#include "docmeta.h"
#include "luautil.h"

#define MAX_DEPTH 256
/* Values a document may hold, as the YAML loader's node limit: a config.json
 * holds hundreds; 63 MiB of [0,0,...] would be 33 million, 30 s and 5.8 GB. */
#define MAX_VALUES 1000000

/* cJSON parses every number into a double, which loses integers past 2^53
 * and the difference between 3 and 3.0, and it keeps no positions. A scan
 * of the text lists every value (not object keys) in document order, which
 * is the order of a walk of the parsed tree, with its line and column and,
 * for a number, its literal: digits alone give an integer. */
typedef struct {
    size_t start, length; /* length: of a number literal, else 0 */
    long line, col;
} literal_t;

typedef struct {
    literal_t *values;
    size_t count, cap, next;
    cJSON *root;
    const char *name;
    size_t bad_number; /* offset of the first malformed number, or NO_OFFSET */
} scan_t;

#define NO_OFFSET ((size_t)-1)

static const char SCAN_TYPE[] = "ndlua.json_scan";

static int scan_gc(lua_State *L)
{
    scan_t *s = luaL_checkudata(L, 1, SCAN_TYPE);
    free(s->values);
    s->values = NULL;
    if (s->root != NULL)
        cJSON_Delete(s->root);
    s->root = NULL;
    return 0;
}

static scan_t *scan_new(lua_State *L, const char *name)
{
    scan_t *s = nd_new_scratch(L, sizeof *s, SCAN_TYPE, scan_gc);
    s->name = name;
    s->bad_number = NO_OFFSET;
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

static void scan_add(lua_State *L, scan_t *s, const char *text, size_t start, size_t length, long line, long col)
{
    if (s->count >= MAX_VALUES)
        fail_at(L, s->name, text, start, "the document holds more than a million values; refusing it (a config.json "
                                         "or census record holds hundreds)");
    if (s->count == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        literal_t *v = realloc(s->values, cap * sizeof *v);
        if (v == NULL)
            luaL_error(L, "out of memory reading JSON");
        s->values = v;
        s->cap = cap;
    }
    literal_t lit = {start, length, line, col};
    s->values[s->count++] = lit;
}

static int is_number_char(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The index just past the string that opens at i (or n). */
static size_t skip_string(const char *text, size_t n, size_t i)
{
    for (i++; i < n && text[i] != '"'; i++)
        if (text[i] == '\\')
            i++;
    return i < n ? i + 1 : n;
}

/* Whether the string ending before i is an object key (a ':' follows). */
static int is_key(const char *text, size_t n, size_t i)
{
    while (i < n && is_blank(text[i]))
        i++;
    return i < n && text[i] == ':';
}

/* The length of the value token at i: a number literal, a word, or 1. */
static size_t token_length(const char *text, size_t n, size_t i, int *number)
{
    size_t j = i + 1;
    *number = text[i] == '-' || (text[i] >= '0' && text[i] <= '9');
    if (*number)
        while (j < n && is_number_char(text[j]))
            j++;
    else if (text[i] >= 'a' && text[i] <= 'z')
        while (j < n && text[j] >= 'a' && text[j] <= 'z')
            j++;
    return j - i;
}

static size_t digits_at(const char *p, size_t n, size_t i)
{
    size_t j = i;
    while (j < n && p[j] >= '0' && p[j] <= '9')
        j++;
    return j - i;
}

/* Whether p[0..n) is a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][-+]?[0-9]+)?
 * (cJSON alone would also take 01 and 1.). */
static int is_json_number(const char *p, size_t n)
{
    size_t i = p[0] == '-';
    size_t d = digits_at(p, n, i);
    if (d == 0 || (d > 1 && p[i] == '0'))
        return 0;
    i += d;
    if (i < n && p[i] == '.') {
        d = digits_at(p, n, i + 1);
        if (d == 0)
            return 0;
        i += 1 + d;
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < n && (p[i] == '-' || p[i] == '+'))
            i++;
        d = digits_at(p, n, i);
        if (d == 0)
            return 0;
        i += d;
    }
    return i == n;
}

/* Refuses the string literal text[i..end) when it holds bytes that are not
 * UTF-8 (JSON text is Unicode; Python's json refuses them too), a raw
 * control character, or a \u0000, which cJSON would silently cut the string
 * short at. */
static void check_string(lua_State *L, scan_t *s, const char *text, size_t i, size_t end)
{
    size_t valid = nd_utf8_valid_prefix(text + i, end - i);
    if (valid != end - i)
        fail_at(L, s->name, text, i + valid, "a string holds bytes that are not UTF-8; JSON text is Unicode");
    for (size_t j = i + 1; j < end; j++) {
        if ((unsigned char)text[j] < 0x20) /* Python's json refuses them too */
            fail_at(L, s->name, text, j, lua_pushfstring(L, "a control character (byte %d) in a string; JSON writes "
                                                            "it as an escape (\\n, \\t, \\u0001)", (int)text[j]));
        if (text[j] != '\\')
            continue;
        if (end - j >= 6 && memcmp(text + j + 1, "u0000", 5) == 0)
            fail_at(L, s->name, text, j, "a \\u0000 (NUL) in a string; ndlua reads strings without NUL characters");
        j++; /* the escaped character */
    }
}

/* Lists the values of the text with their positions; refuses deep nesting,
 * strings that are not UTF-8 or hold NUL, trailing commas, and numbers
 * outside JSON's grammar. */
static void scan_values(lua_State *L, scan_t *s, const char *text, size_t n)
{
    int depth = 0;
    char prev = 0; /* the last character outside strings and blanks */
    long line = 1;
    /* a UTF-8 byte order mark, which cJSON skips too */
    size_t line_start = n >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    for (size_t i = line_start; i < n;) {
        char c = text[i];
        long col = (long)(i - line_start) + 1;
        if (c == '\n') {
            line++;
            line_start = ++i;
        } else if ((unsigned char)c < 0x20 && !is_blank(c)) {
            /* cJSON would skip it as a blank, where JSON allows none */
            fail_at(L, s->name, text, i, lua_pushfstring(L, "JSON syntax error at byte %d", (int)c));
        } else if (is_blank(c) || c == ':' || c == ',' || c == ']' || c == '}') {
            if ((c == ']' || c == '}') && prev == ',') /* cJSON places this error past the end */
                fail_at(L, s->name, text, i, lua_pushfstring(L, "JSON syntax error: a comma before '%c'", (int)c));
            depth -= c == ']' || c == '}';
            prev = is_blank(c) ? prev : c;
            i++;
        } else if (c == '"') {
            size_t end = skip_string(text, n, i);
            check_string(L, s, text, i, end);
            if (!is_key(text, n, end))
                scan_add(L, s, text, i, 0, line, col);
            prev = c;
            i = end;
        } else {
            if ((c == '[' || c == '{') && ++depth > MAX_DEPTH)
                fail_at(L, s->name, text, i, "the document nests deeper than 256 levels; refusing it");
            int number;
            size_t len = token_length(text, n, i, &number);
            if (number && !is_json_number(text + i, len) && s->bad_number == NO_OFFSET)
                s->bad_number = i;
            scan_add(L, s, text, i, number ? len : 0, line, col);
            prev = c;
            i += len;
        }
    }
}

/* The next value of the scan, for the item the tree walk is at. */
static const literal_t *next_value(scan_t *s)
{
    static const literal_t none = {0, 0, 0, 0};
    return s->next < s->count ? &s->values[s->next++] : &none; /* none: cannot happen */
}

/* A number as its literal reads in Lua: digits alone an integer (a float
 * when they overflow 64 bits), with a dot or an exponent a float. A literal
 * past a double's range (1e400) is refused: JSON has no infinity, and
 * Python's json would read it as inf, a value no setting means. */
static void push_number(lua_State *L, scan_t *s, const char *text, const literal_t *lit, const cJSON *item)
{
    if (lit->length > 0) {
        lua_pushlstring(L, text + lit->start, lit->length);
        int ok = lua_stringtonumber(L, lua_tostring(L, -1)) != 0;
        if (ok && !isfinite(lua_tonumber(L, -1)))
            nd_bad_input(L, "%s:%d:%d: the number %s is past the range of a double (about 1.8e308)", s->name,
                         (int)lit->line, (int)lit->col, lua_tostring(L, -2));
        lua_remove(L, ok ? -2 : -1);
        if (ok)
            return;
    }
    lua_pushnumber(L, item->valuedouble);
}

static void push_item(lua_State *L, scan_t *s, const char *text, const cJSON *item);

static void push_array(lua_State *L, scan_t *s, const char *text, const cJSON *item, const literal_t *at)
{
    lua_newtable(L);
    int t = lua_gettop(L);
    docmeta_attach(L, t, DOCMETA_SEQ, s->name, at->line, at->col);
    int rec = lua_gettop(L);
    lua_Integer i = 0;
    for (const cJSON *child = item->child; child != NULL; child = child->next) {
        const literal_t *where = s->next < s->count ? &s->values[s->next] : at;
        push_item(L, s, text, child);
        lua_rawseti(L, t, ++i);
        lua_pushinteger(L, i);
        docmeta_note(L, rec, -1, where->line, where->col);
        lua_pop(L, 1);
    }
    lua_settop(L, t);
}

static void push_object(lua_State *L, scan_t *s, const char *text, const cJSON *item, const literal_t *at)
{
    lua_newtable(L);
    int t = lua_gettop(L);
    docmeta_attach(L, t, DOCMETA_MAP, s->name, at->line, at->col);
    int rec = lua_gettop(L);
    for (const cJSON *child = item->child; child != NULL; child = child->next) {
        const literal_t *where = s->next < s->count ? &s->values[s->next] : at;
        lua_pushstring(L, child->string ? child->string : "");
        push_item(L, s, text, child);
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, t);
        docmeta_note(L, rec, -1, where->line, where->col);
        lua_pop(L, 1);
    }
    lua_settop(L, t);
}

static void push_item(lua_State *L, scan_t *s, const char *text, const cJSON *item)
{
    luaL_checkstack(L, 8, "JSON document too deep");
    const literal_t *lit = next_value(s);
    if (cJSON_IsNull(item))
        nd_push_null(L);
    else if (cJSON_IsBool(item))
        lua_pushboolean(L, cJSON_IsTrue(item));
    else if (cJSON_IsNumber(item))
        push_number(L, s, text, lit, item);
    else if (cJSON_IsString(item))
        lua_pushstring(L, item->valuestring);
    else if (cJSON_IsArray(item))
        push_array(L, s, text, item, lit);
    else
        push_object(L, s, text, item, lit);
}

/* Raises the syntax error at offset: what stands there, or that the text ended. */
static int fail_syntax(lua_State *L, const char *name, const char *text, size_t n, size_t offset)
{
    size_t first = 0;
    while (first < n && is_blank(text[first]))
        first++;
    if (first == n)
        return fail_at(L, name, text, n, "JSON syntax error: no value (the text is empty)");
    if (offset >= n)
        return fail_at(L, name, text, n, "JSON syntax error: the text ends inside a value");
    unsigned char c = (unsigned char)text[offset];
    if (c > ' ' && c < 127)
        lua_pushfstring(L, "JSON syntax error at '%c'", (int)c);
    else
        lua_pushfstring(L, "JSON syntax error at byte %d", (int)c);
    return fail_at(L, name, text, offset, lua_tostring(L, -1));
}

static int decode_string(lua_State *L, int text_index, const char *name)
{
    size_t n;
    const char *text = lua_tolstring(L, text_index, &n);
    scan_t *s = scan_new(L, name);
    scan_values(L, s, text, n);
    const char *end = NULL;
    s->root = cJSON_ParseWithLengthOpts(text, n + 1, &end, 1);
    size_t offset = n;
    if (s->root == NULL && end != NULL && end >= text && end <= text + n)
        offset = (size_t)(end - text);
    if (s->bad_number != NO_OFFSET && (s->root != NULL || s->bad_number <= offset))
        return fail_at(L, name, text, s->bad_number, "JSON syntax error: a malformed number");
    if (s->root == NULL)
        return fail_syntax(L, name, text, n, offset);
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
