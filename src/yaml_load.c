/* yaml_load.c: YAML text to Lua tables with libyaml, keeping key order and positions. */
#include "yaml_bridge.h"

#include <string.h>

#include <lauxlib.h>
#include <yaml.h>

#include "docmeta.h"
#include "luautil.h"
#include "yaml_scalar.h"

/* A document nests at most this deep; PyYAML's recursion gives out near 1000. */
#define MAX_DEPTH 256
/* Nodes a document may stand for once its aliases are expanded (a billion-laughs guard). */
#define MAX_EXPANDED_NODES 1000000L

static const char READER_TYPE[] = "ndlua.yaml_reader";

typedef struct {
    yaml_parser_t parser;
    yaml_event_t event;
    int has_parser, has_event;
    const char *name;
    int anchors;        /* stack index of anchor name -> {value, weight} */
    long expanded;      /* nodes so far, aliases counted at their full size */
} reader_t;

static int reader_gc(lua_State *L)
{
    reader_t *r = luaL_checkudata(L, 1, READER_TYPE);
    if (r->has_event)
        yaml_event_delete(&r->event);
    if (r->has_parser)
        yaml_parser_delete(&r->parser);
    r->has_event = r->has_parser = 0;
    return 0;
}

static reader_t *reader_new(lua_State *L, const char *name)
{
    reader_t *r = lua_newuserdatauv(L, sizeof *r, 0);
    memset(r, 0, sizeof *r);
    if (luaL_newmetatable(L, READER_TYPE)) {
        lua_pushcfunction(L, reader_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    if (!yaml_parser_initialize(&r->parser))
        luaL_error(L, "out of memory initialising the YAML parser");
    r->has_parser = 1;
    r->name = name;
    return r;
}

static long line_of(yaml_mark_t m) { return (long)m.line + 1; }
static long col_of(yaml_mark_t m) { return (long)m.column + 1; }

static int fail_at(lua_State *L, reader_t *r, yaml_mark_t m, const char *what)
{
    return nd_bad_input(L, "%s:%d:%d: %s", r->name, (int)line_of(m), (int)col_of(m), what);
}

static void next_event(lua_State *L, reader_t *r)
{
    if (r->has_event) {
        yaml_event_delete(&r->event);
        r->has_event = 0;
    }
    if (!yaml_parser_parse(&r->parser, &r->event)) {
        yaml_parser_t *p = &r->parser;
        const char *problem = p->problem ? p->problem : "malformed YAML";
        if (p->context != NULL)
            nd_bad_input(L, "%s:%d:%d: YAML syntax error: %s %s", r->name, (int)line_of(p->problem_mark),
                         (int)col_of(p->problem_mark), problem, p->context);
        nd_bad_input(L, "%s:%d:%d: YAML syntax error: %s", r->name, (int)line_of(p->problem_mark),
                     (int)col_of(p->problem_mark), problem);
    }
    r->has_event = 1;
}

static void count_nodes(lua_State *L, reader_t *r, long n, yaml_mark_t where)
{
    r->expanded += n;
    if (r->expanded > MAX_EXPANDED_NODES)
        fail_at(L, r, where, "the document expands to more than a million nodes through its aliases; "
                             "refusing it (a billion-laughs document?)");
}

static void push_scalar(lua_State *L, reader_t *r)
{
    yaml_event_t *e = &r->event;
    const char *text = (const char *)e->data.scalar.value;
    size_t n = e->data.scalar.length;
    const char *tag = (const char *)e->data.scalar.tag;
    scalar_value v = {SCALAR_STRING, 0, 0, 0};
    if (tag != NULL && strcmp(tag, "!") != 0) {
        if (yaml_resolve_tagged(tag, text, n, &v) != 0) {
            lua_pushfstring(L, "the tag %s does not fit the value '%s' (ndlua reads the core tags "
                               "!!str, !!int, !!float, !!bool and !!null)", tag, text);
            fail_at(L, r, e->start_mark, lua_tostring(L, -1));
        }
    } else if (e->data.scalar.plain_implicit && e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        v = yaml_resolve_plain(text, n);
    }
    switch (v.type) {
    case SCALAR_NULL: nd_push_null(L); break;
    case SCALAR_BOOL: lua_pushboolean(L, v.boolean); break;
    case SCALAR_INT: lua_pushinteger(L, (lua_Integer)v.integer); break;
    case SCALAR_FLOAT: lua_pushnumber(L, v.number); break;
    default: lua_pushlstring(L, text, n); break;
    }
}

static void parse_node(lua_State *L, reader_t *r, int depth);

/* Anchors: remember the value under its name with the nodes it stands for. */
static void anchor_begin(lua_State *L, reader_t *r, const unsigned char *anchor)
{
    if (anchor == NULL)
        return;
    lua_createtable(L, 2, 0);
    lua_pushinteger(L, -1); /* weight unknown while the node is being read */
    lua_rawseti(L, -2, 2);
    lua_setfield(L, r->anchors, (const char *)anchor);
}

static void anchor_end(lua_State *L, reader_t *r, const unsigned char *anchor, long before)
{
    if (anchor == NULL)
        return;
    lua_getfield(L, r->anchors, (const char *)anchor);
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, 1);
    lua_pushinteger(L, r->expanded - before);
    lua_rawseti(L, -2, 2);
    lua_pop(L, 1);
}

static char *copy_anchor(lua_State *L, const unsigned char *anchor)
{
    if (anchor == NULL)
        return NULL;
    size_t n = strlen((const char *)anchor);
    char *copy = lua_newuserdatauv(L, n + 1, 0); /* kept alive on the stack */
    memcpy(copy, anchor, n + 1);
    return copy;
}

static void push_alias(lua_State *L, reader_t *r)
{
    const char *name = (const char *)r->event.data.alias.anchor;
    yaml_mark_t at = r->event.start_mark;
    if (lua_getfield(L, r->anchors, name) != LUA_TTABLE) {
        lua_pushfstring(L, "the alias *%s names no anchor defined before it", name);
        fail_at(L, r, at, lua_tostring(L, -1));
    }
    lua_rawgeti(L, -1, 2);
    lua_Integer weight = lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (weight < 0) {
        lua_pushfstring(L, "the alias *%s refers to the node that contains it; ndlua refuses "
                           "recursive documents", name);
        fail_at(L, r, at, lua_tostring(L, -1));
    }
    count_nodes(L, r, (long)weight, at);
    lua_rawgeti(L, -1, 1);
    lua_remove(L, -2);
}

static void parse_sequence(lua_State *L, reader_t *r, int depth)
{
    yaml_mark_t at = r->event.start_mark;
    lua_newtable(L);
    int t = lua_gettop(L);
    docmeta_attach(L, t, DOCMETA_SEQ, r->name, line_of(at), col_of(at));
    int rec = lua_gettop(L);
    lua_Integer i = 0;
    for (;;) {
        next_event(L, r);
        if (r->event.type == YAML_SEQUENCE_END_EVENT)
            break;
        yaml_mark_t item = r->event.start_mark;
        parse_node(L, r, depth + 1);
        lua_rawseti(L, t, ++i);
        lua_pushinteger(L, i);
        docmeta_note(L, rec, -1, line_of(item), col_of(item));
        lua_pop(L, 1);
    }
    lua_settop(L, t);
}

/* The key of a mapping entry: a scalar (or an alias of one), never a collection. */
static int parse_key(lua_State *L, reader_t *r, int depth)
{
    yaml_event_type_t type = r->event.type;
    if (type == YAML_MAPPING_START_EVENT || type == YAML_SEQUENCE_START_EVENT)
        fail_at(L, r, r->event.start_mark, "a mapping or sequence used as a key; ndlua reads scalar keys only");
    int merge = type == YAML_SCALAR_EVENT && r->event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                r->event.data.scalar.length == 2 && memcmp(r->event.data.scalar.value, "<<", 2) == 0;
    yaml_mark_t at = r->event.start_mark;
    parse_node(L, r, depth);
    if (lua_istable(L, -1))
        fail_at(L, r, at, "an alias of a collection used as a key; ndlua reads scalar keys only");
    if (lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) != lua_tonumber(L, -1))
        fail_at(L, r, at, "a .nan used as a key");
    return merge;
}

/* Lays the keys of the merge sources (a map, or a list of maps, first wins)
 * under the explicit keys of the map at index t, as YAML's << merge key does. */
static void apply_merges(lua_State *L, reader_t *r, int t, int rec, int sources, yaml_mark_t at)
{
    lua_Integer n = (lua_Integer)lua_rawlen(L, sources);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, sources, i);
        int src = lua_gettop(L);
        if (!lua_istable(L, src) || docmeta_kind(L, src) == DOCMETA_SEQ)
            fail_at(L, r, at, "a << merge key takes a mapping or a list of mappings");
        lua_pushcfunction(L, docmeta_lua_keys);
        lua_pushvalue(L, src);
        lua_call(L, 1, 1);
        lua_Integer nk = (lua_Integer)lua_rawlen(L, -1);
        for (lua_Integer k = 1; k <= nk; k++) {
            lua_rawgeti(L, -1, k);
            lua_pushvalue(L, -1);
            if (lua_rawget(L, t) == LUA_TNIL) {
                lua_pop(L, 1);
                lua_pushvalue(L, -1);
                lua_rawget(L, src);
                lua_pushvalue(L, -2);
                lua_insert(L, -2);
                lua_rawset(L, t);
                docmeta_note(L, rec, -1, line_of(at), col_of(at));
            } else {
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        lua_settop(L, src - 1);
    }
}

/* Puts merged keys first, then the explicit ones, as PyYAML orders them. */
static void order_merged_first(lua_State *L, int rec, lua_Integer explicit_count)
{
    lua_getfield(L, rec, "keys");
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    lua_createtable(L, (int)n, 0);
    lua_Integer j = 0;
    for (lua_Integer i = explicit_count + 1; i <= n; i++) {
        lua_rawgeti(L, -2, i);
        lua_rawseti(L, -2, ++j);
    }
    for (lua_Integer i = 1; i <= explicit_count; i++) {
        lua_rawgeti(L, -2, i);
        lua_rawseti(L, -2, ++j);
    }
    lua_setfield(L, rec, "keys");
    lua_pop(L, 1);
}

static void add_merge_source(lua_State *L, int sources)
{
    if (lua_istable(L, -1) && docmeta_kind(L, -1) == DOCMETA_SEQ) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            lua_rawseti(L, sources, (lua_Integer)lua_rawlen(L, sources) + 1);
        }
        lua_pop(L, 1);
    } else {
        lua_rawseti(L, sources, (lua_Integer)lua_rawlen(L, sources) + 1);
    }
}

static void parse_mapping(lua_State *L, reader_t *r, int depth)
{
    yaml_mark_t at = r->event.start_mark;
    lua_newtable(L);
    int t = lua_gettop(L);
    docmeta_attach(L, t, DOCMETA_MAP, r->name, line_of(at), col_of(at));
    int rec = lua_gettop(L);
    lua_newtable(L);
    int sources = lua_gettop(L);
    yaml_mark_t merge_at = at;
    for (;;) {
        next_event(L, r);
        if (r->event.type == YAML_MAPPING_END_EVENT)
            break;
        int merge = parse_key(L, r, depth + 1);
        next_event(L, r);
        yaml_mark_t value_at = r->event.start_mark;
        parse_node(L, r, depth + 1);
        if (merge) {
            merge_at = value_at;
            add_merge_source(L, sources);
            lua_pop(L, 1);
            continue;
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, t);
        docmeta_note(L, rec, -1, line_of(value_at), col_of(value_at));
        lua_pop(L, 1);
    }
    if (lua_rawlen(L, sources) > 0) {
        lua_getfield(L, rec, "keys");
        lua_Integer explicit_count = (lua_Integer)lua_rawlen(L, -1);
        lua_pop(L, 1);
        apply_merges(L, r, t, rec, sources, merge_at);
        order_merged_first(L, rec, explicit_count);
    }
    lua_settop(L, t);
}

/* Reads the node whose first event is current and pushes its value. */
static void parse_node(lua_State *L, reader_t *r, int depth)
{
    if (depth > MAX_DEPTH)
        fail_at(L, r, r->event.start_mark, "the document nests deeper than 256 levels; refusing it");
    luaL_checkstack(L, 8, "YAML document too deep");
    yaml_mark_t at = r->event.start_mark;
    long before = r->expanded;
    const char *anchor = NULL;
    switch (r->event.type) {
    case YAML_ALIAS_EVENT:
        push_alias(L, r);
        return;
    case YAML_SCALAR_EVENT:
        anchor = copy_anchor(L, r->event.data.scalar.anchor);
        anchor_begin(L, r, (const unsigned char *)anchor);
        count_nodes(L, r, 1, at);
        push_scalar(L, r);
        break;
    case YAML_SEQUENCE_START_EVENT:
        anchor = copy_anchor(L, r->event.data.sequence_start.anchor);
        anchor_begin(L, r, (const unsigned char *)anchor);
        count_nodes(L, r, 1, at);
        parse_sequence(L, r, depth);
        break;
    case YAML_MAPPING_START_EVENT:
        anchor = copy_anchor(L, r->event.data.mapping_start.anchor);
        anchor_begin(L, r, (const unsigned char *)anchor);
        count_nodes(L, r, 1, at);
        parse_mapping(L, r, depth);
        break;
    default:
        fail_at(L, r, at, "unexpected YAML event");
    }
    anchor_end(L, r, (const unsigned char *)anchor, before);
    if (anchor != NULL)
        lua_remove(L, -2); /* the anchor's copy */
}

/* Decodes the string at index 1 under the name at index 2; pushes the value. */
static int decode_string(lua_State *L, const char *name)
{
    size_t n;
    const char *text = lua_tolstring(L, 1, &n);
    reader_t *r = reader_new(L, name);
    lua_newtable(L);
    r->anchors = lua_gettop(L);
    yaml_parser_set_input_string(&r->parser, (const unsigned char *)text, n);
    next_event(L, r); /* stream start */
    next_event(L, r);
    if (r->event.type == YAML_STREAM_END_EVENT) {
        nd_push_null(L); /* an empty file is one null document, as for PyYAML */
        return 1;
    }
    next_event(L, r); /* the document's first node */
    if (r->event.type == YAML_DOCUMENT_END_EVENT) {
        nd_push_null(L);
    } else {
        parse_node(L, r, 0);
        next_event(L, r); /* document end */
    }
    next_event(L, r);
    if (r->event.type != YAML_STREAM_END_EVENT)
        fail_at(L, r, r->event.start_mark, "a second YAML document in one file; ndlua reads one document a file");
    return 1;
}

int yaml_lua_decode(lua_State *L)
{
    luaL_checkstring(L, 1);
    const char *name = luaL_optstring(L, 2, "(string)");
    lua_settop(L, 2);
    return decode_string(L, name);
}

int yaml_lua_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    nd_push_file(L, path, ND_MAX_FILE_BYTES);
    lua_insert(L, 1); /* text path */
    return decode_string(L, path);
}
