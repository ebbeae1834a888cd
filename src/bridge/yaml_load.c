/* yaml_load.c: YAML text to Lua tables with libyaml, keeping key order and positions. */
#include "yaml_bridge.h"

#include <string.h>

#include <lauxlib.h>
#include <yaml.h>

#include "docmeta.h"
#include "luautil.h"
#include "yaml_scalar.h"

/* Collections nest at most this deep; PyYAML's recursion gives out near 1000. */
#define MAX_DEPTH 256
/* Nodes a document may stand for once its aliases are expanded (a billion-laughs guard). */
#define MAX_EXPANDED_NODES 1000000L

static const char READER_TYPE[] = "ndlua.yaml_reader";

typedef struct {
    yaml_parser_t parser;
    yaml_event_t event;
    int has_parser, has_event;
    const char *name;
    const char *text;   /* the whole input, for positions of reader errors */
    int anchors;        /* stack index of anchor name -> {value, weight} */
    long expanded;      /* nodes so far, aliases counted at their full size */
    long aliased;       /* of them, the nodes aliases stood for */
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
    reader_t *r = nd_new_scratch(L, sizeof *r, READER_TYPE, reader_gc);
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

/* Line and column (from 1) of a byte offset of the input. */
static yaml_mark_t mark_of_offset(const reader_t *r, size_t offset)
{
    yaml_mark_t m = {0, 0, 0};
    for (size_t i = 0; i < offset && r->text[i] != '\0'; i++) {
        if (r->text[i] == '\n') {
            m.line++;
            m.column = 0;
        } else {
            m.column++;
        }
    }
    return m;
}

/* Raises libyaml's error: file:line:col, the problem, and what was being read where. */
static void fail_syntax(lua_State *L, reader_t *r)
{
    yaml_parser_t *p = &r->parser;
    const char *problem = p->problem ? p->problem : "malformed YAML";
    if (p->error == YAML_READER_ERROR) {
        yaml_mark_t m = mark_of_offset(r, p->problem_offset);
        nd_bad_input(L, "%s:%d:%d: YAML syntax error: %s", r->name, (int)line_of(m), (int)col_of(m), problem);
    }
    if (p->context != NULL)
        nd_bad_input(L, "%s:%d:%d: YAML syntax error: %s (%s at line %d, column %d)", r->name,
                     (int)line_of(p->problem_mark), (int)col_of(p->problem_mark), problem, p->context,
                     (int)line_of(p->context_mark), (int)col_of(p->context_mark));
    nd_bad_input(L, "%s:%d:%d: YAML syntax error: %s", r->name, (int)line_of(p->problem_mark),
                 (int)col_of(p->problem_mark), problem);
}

static void next_event(lua_State *L, reader_t *r)
{
    if (r->has_event) {
        yaml_event_delete(&r->event);
        r->has_event = 0;
    }
    if (!yaml_parser_parse(&r->parser, &r->event))
        fail_syntax(L, r);
    r->has_event = 1;
}

/* Counts n nodes (an alias's whole weight when `alias`); past the limit the
 * document is refused, as an alias bomb only when aliases made most of it. */
static void count_nodes(lua_State *L, reader_t *r, long n, yaml_mark_t where, int alias)
{
    r->expanded += n;
    if (alias)
        r->aliased += n;
    if (r->expanded <= MAX_EXPANDED_NODES)
        return;
    if (2 * r->aliased > r->expanded)
        fail_at(L, r, where, "the document expands to more than a million nodes through its aliases; "
                             "refusing it (a billion-laughs document?)");
    fail_at(L, r, where, "the document holds more than a million nodes; refusing it (a train.yaml or search "
                         "config holds hundreds)");
}

/* The type of the current scalar event: by its tag, else by YAML 1.1's
 * plain rules when it is plain or tagged "!" (PyYAML resolves both), else a string. */
static scalar_value scalar_of_event(lua_State *L, reader_t *r)
{
    yaml_event_t *e = &r->event;
    const char *text = (const char *)e->data.scalar.value;
    size_t n = e->data.scalar.length;
    const char *tag = (const char *)e->data.scalar.tag;
    scalar_value v = {SCALAR_STRING, 0, 0, 0, NULL};
    if (tag != NULL && strcmp(tag, "!") != 0) {
        if (yaml_resolve_tagged(tag, text, n, &v) != 0 && v.type != SCALAR_ERROR) {
            size_t prefix = strlen(YAML_CORE_TAG_PREFIX);
            int short_form = strncmp(tag, YAML_CORE_TAG_PREFIX, prefix) == 0;
            lua_pushfstring(L, "the tag %s%s does not fit the value '%s' (ndlua reads the core tags "
                               "!!str, !!int, !!float, !!bool and !!null on scalars)",
                            short_form ? "!!" : "", short_form ? tag + prefix : tag, text);
            fail_at(L, r, e->start_mark, lua_tostring(L, -1));
        }
    } else if (tag != NULL || e->data.scalar.plain_implicit) {
        v = yaml_resolve_plain(text, n);
    }
    if (v.type == SCALAR_ERROR) {
        if (v.error == YAML_SCALAR_NO_MEMORY)
            luaL_error(L, "out of memory reading YAML");
        lua_pushfstring(L, "'%s' is %s", text, v.error);
        fail_at(L, r, e->start_mark, lua_tostring(L, -1));
    }
    return v;
}

static void push_scalar(lua_State *L, reader_t *r)
{
    scalar_value v = scalar_of_event(L, r);
    switch (v.type) {
    case SCALAR_NULL: nd_push_null(L); break;
    case SCALAR_BOOL: lua_pushboolean(L, v.boolean); break;
    case SCALAR_INT: lua_pushinteger(L, (lua_Integer)v.integer); break;
    case SCALAR_FLOAT: lua_pushnumber(L, v.number); break;
    default:
        lua_pushlstring(L, (const char *)r->event.data.scalar.value, r->event.data.scalar.length);
        break;
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
    count_nodes(L, r, (long)weight, at, 1);
    lua_rawgeti(L, -1, 1);
    lua_remove(L, -2);
}

/* Pushes the table of the collection whose start event is current, then
 * its docmeta record of `kind`; returns the table's index (the record's is
 * the next). */
static int push_collection(lua_State *L, reader_t *r, const char *kind)
{
    yaml_mark_t at = r->event.start_mark;
    lua_newtable(L);
    int t = lua_gettop(L);
    docmeta_attach(L, t, kind, r->name, line_of(at), col_of(at));
    return t;
}

static void parse_sequence(lua_State *L, reader_t *r, int depth)
{
    int t = push_collection(L, r, DOCMETA_SEQ);
    docmeta_lists d;
    docmeta_open_lists(L, t + 1, &d);
    lua_Integer i = 0;
    for (;;) {
        next_event(L, r);
        if (r->event.type == YAML_SEQUENCE_END_EVENT)
            break;
        yaml_mark_t item = r->event.start_mark;
        parse_node(L, r, depth + 1);
        lua_rawseti(L, t, ++i);
        lua_pushinteger(L, i);
        docmeta_note_new(L, &d, -1, line_of(item), col_of(item));
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

/* Appends each key of the map at src to order (when new) and notes in from
 * that src supplies its value (a later source overrides an earlier one). */
static void collect_merge_keys(lua_State *L, int src, int order, int from)
{
    lua_pushcfunction(L, docmeta_lua_keys);
    lua_pushvalue(L, src);
    lua_call(L, 1, 1);
    lua_Integer nk = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer k = 1; k <= nk; k++) {
        lua_rawgeti(L, -1, k);
        lua_pushvalue(L, -1);
        if (lua_rawget(L, from) == LUA_TNIL) {
            lua_pushvalue(L, -2);
            lua_rawseti(L, order, (lua_Integer)lua_rawlen(L, order) + 1);
        }
        lua_pop(L, 1);
        lua_pushvalue(L, src);
        lua_rawset(L, from);
    }
    lua_pop(L, 1);
}

/* Sets t[key] (key on top of the stack) from the source that supplies it,
 * unless t states the key itself, with the source's position for it. */
static void merge_one(lua_State *L, int t, int rec, int from)
{
    int key = lua_gettop(L);
    lua_pushvalue(L, key);
    if (lua_rawget(L, t) != LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    lua_pushvalue(L, key);
    lua_rawget(L, from);
    int src = lua_gettop(L);
    lua_pushvalue(L, key);
    lua_pushvalue(L, key);
    lua_rawget(L, src);
    lua_rawset(L, t);
    long line = 0, col = 0;
    docmeta_position(L, src, key, &line, &col);
    docmeta_note(L, rec, key, line, col);
    lua_settop(L, key);
}

/* Merges the maps listed in sources into the map t, as PyYAML flattens
 * << keys: the merged pairs come first and later pairs override earlier
 * ones, so keys keep their first place and explicit keys win; the sources
 * are listed so that the first map of a << list wins over the rest. */
static void apply_merges(lua_State *L, int t, int rec, int sources)
{
    lua_newtable(L);
    int order = lua_gettop(L);
    lua_newtable(L);
    int from = lua_gettop(L);
    lua_Integer n = (lua_Integer)lua_rawlen(L, sources);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, sources, i);
        collect_merge_keys(L, lua_gettop(L), order, from);
        lua_pop(L, 1);
    }
    lua_rawgeti(L, rec, DOCMETA_KEYS);
    int explicit_keys = lua_gettop(L);
    lua_createtable(L, (int)lua_rawlen(L, order), 0);
    int keys = lua_gettop(L);
    lua_Integer nm = (lua_Integer)lua_rawlen(L, order);
    for (lua_Integer i = 1; i <= nm; i++) {
        lua_rawgeti(L, order, i);
        lua_pushvalue(L, -1);
        lua_rawseti(L, keys, i);
        merge_one(L, t, rec, from);
        lua_pop(L, 1);
    }
    lua_Integer ne = (lua_Integer)lua_rawlen(L, explicit_keys);
    for (lua_Integer i = 1; i <= ne; i++) {
        lua_rawgeti(L, explicit_keys, i);
        lua_pushvalue(L, -1);
        if (lua_rawget(L, from) == LUA_TNIL) {
            lua_pushvalue(L, -2);
            lua_rawseti(L, keys, (lua_Integer)lua_rawlen(L, keys) + 1);
        }
        lua_pop(L, 2);
    }
    lua_rawseti(L, rec, DOCMETA_KEYS);
    lua_settop(L, order - 1);
}

/* Adds the value on top (a map, or a list of maps) to the merge sources,
 * a list reversed, as PyYAML lists the pairs; pops the value. */
static void add_merge_source(lua_State *L, reader_t *r, int sources, yaml_mark_t at)
{
    int value = lua_gettop(L);
    const char *kind = lua_istable(L, value) ? docmeta_kind(L, value) : NULL;
    if (kind == DOCMETA_MAP) {
        lua_rawseti(L, sources, (lua_Integer)lua_rawlen(L, sources) + 1);
        return;
    }
    if (kind != DOCMETA_SEQ)
        fail_at(L, r, at, "a << merge key takes a mapping or a list of mappings");
    for (lua_Integer i = (lua_Integer)lua_rawlen(L, value); i >= 1; i--) {
        lua_rawgeti(L, value, i);
        if (!lua_istable(L, -1) || docmeta_kind(L, -1) != DOCMETA_MAP)
            fail_at(L, r, at, "a << merge key takes a mapping or a list of mappings");
        lua_rawseti(L, sources, (lua_Integer)lua_rawlen(L, sources) + 1);
    }
    lua_pop(L, 1);
}

/* The entries of a mapping waiting on the stack to be noted in its record:
 * from `first`, three values each (the key, where its value and where the
 * key were read, packed), n of them. They are noted NOTE_RUN at a time and
 * at the mapping's end (docmeta_note_entries), so that a mapping of up to
 * NOTE_RUN keys has its record's lists made at their size: noted one by one
 * as read, each list grew by rehashing at every power of 2 (Lua 5.4
 * ltable.c luaH_newkey -> rehash). NOTE_RUN bounds the stack they take. */
#define NOTE_RUN 64
typedef struct {
    int first, n;
} pending_keys;

static void note_pending(lua_State *L, docmeta_lists *d, int rec, pending_keys *p)
{
    if (p->n == 0)
        return;
    docmeta_note_entries(L, d, rec, p->first, p->n);
    lua_settop(L, p->first - 1);
    p->n = 0;
}

/* Refuses a key the mapping t already states (the key below its value on
 * top of the stack), naming the line of each: PyYAML would let the later
 * silently replace the earlier, a second `accelerator:` section dropping
 * the first whole. A key a << merge supplies is no repeat: the mapping's
 * own key overrides it, as YAML's merge means. */
static void refuse_repeated_key(lua_State *L, reader_t *r, int t, int rec, const pending_keys *p,
                                yaml_mark_t key_at)
{
    int key = lua_gettop(L) - 1;
    lua_pushvalue(L, key);
    int repeated = lua_rawget(L, t) != LUA_TNIL;
    lua_pop(L, 1);
    if (!repeated)
        return;
    long first = -1;
    for (int i = 0; i < p->n && first < 0; i++) /* the first one still waits to be noted */
        if (lua_rawequal(L, p->first + 3 * i, key))
            first = docmeta_line(lua_tointeger(L, p->first + 3 * i + 2));
    if (first < 0) {
        lua_rawgeti(L, rec, DOCMETA_KEY_AT);
        lua_pushvalue(L, key);
        lua_rawget(L, -2);
        first = docmeta_line(lua_tointeger(L, -1));
        lua_pop(L, 2);
    }
    const char *name = luaL_tolstring(L, key, NULL);
    lua_pushfstring(L, "the key '%s' is stated twice in one mapping (first at line %d, again here); ndlua "
                       "refuses a repeated key rather than let the later silently replace the earlier",
                    name, (int)first);
    fail_at(L, r, key_at, lua_tostring(L, -1));
}

static void parse_mapping(lua_State *L, reader_t *r, int depth)
{
    int t = push_collection(L, r, DOCMETA_MAP), rec = t + 1;
    docmeta_lists d;
    docmeta_open_lists(L, rec, &d);
    lua_newtable(L);
    int sources = lua_gettop(L);
    luaL_checkstack(L, 3 * NOTE_RUN, "YAML document too deep");
    pending_keys p = {sources + 1, 0};
    for (;;) {
        next_event(L, r);
        if (r->event.type == YAML_MAPPING_END_EVENT)
            break;
        yaml_mark_t key_at = r->event.start_mark;
        int merge = parse_key(L, r, depth + 1);
        next_event(L, r);
        yaml_mark_t value_at = r->event.start_mark;
        parse_node(L, r, depth + 1);
        if (merge) {
            add_merge_source(L, r, sources, value_at);
            lua_pop(L, 1);
            continue;
        }
        refuse_repeated_key(L, r, t, rec, &p, key_at);
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, t);
        /* new: refuse_repeated_key let it through, and merges come after */
        lua_pushinteger(L, docmeta_pack(line_of(value_at), col_of(value_at)));
        lua_pushinteger(L, docmeta_pack(line_of(key_at), col_of(key_at)));
        if (++p.n == NOTE_RUN)
            note_pending(L, &d, rec, &p);
    }
    note_pending(L, &d, rec, &p);
    if (lua_rawlen(L, sources) > 0)
        apply_merges(L, t, rec, sources);
    lua_settop(L, t);
}

/* Refuses a collection at depth MAX_DEPTH (the top one is at depth 0). */
static void refuse_depth(lua_State *L, reader_t *r, int depth)
{
    if (depth >= MAX_DEPTH)
        fail_at(L, r, r->event.start_mark, "the document nests deeper than 256 levels; refusing it");
}

/* The start of a node that is not an alias: its anchor's copy pushed (or
 * NULL, nothing pushed) and begun, the node counted. Returns the copy. */
static const char *node_begin(lua_State *L, reader_t *r, const unsigned char *anchor, yaml_mark_t at)
{
    const char *copy = copy_anchor(L, anchor);
    anchor_begin(L, r, (const unsigned char *)copy);
    count_nodes(L, r, 1, at, 0);
    return copy;
}

/* Reads the node whose first event is current and pushes its value. */
static void parse_node(lua_State *L, reader_t *r, int depth)
{
    luaL_checkstack(L, 8, "YAML document too deep");
    yaml_mark_t at = r->event.start_mark;
    long before = r->expanded;
    const char *anchor = NULL;
    switch (r->event.type) {
    case YAML_ALIAS_EVENT:
        push_alias(L, r);
        return;
    case YAML_SCALAR_EVENT:
        anchor = node_begin(L, r, r->event.data.scalar.anchor, at);
        push_scalar(L, r);
        break;
    case YAML_SEQUENCE_START_EVENT:
        refuse_depth(L, r, depth);
        anchor = node_begin(L, r, r->event.data.sequence_start.anchor, at);
        parse_sequence(L, r, depth);
        break;
    case YAML_MAPPING_START_EVENT:
        refuse_depth(L, r, depth);
        anchor = node_begin(L, r, r->event.data.mapping_start.anchor, at);
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
    r->text = text;
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
