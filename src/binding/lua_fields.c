/* lua_fields.c: checked reading of integer, number, flag and name fields from Lua tables, by hand or
 * by a field table, and writing fields back. */
#include "lua_fields.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "bridge/luautil.h"

/* The longest name a spec field holds (a model, an arch, a kind, a choice). */
#define MAX_NAME_BYTES 4096
/* How much of a long string a message quotes. */
#define SHOWN_BYTES 60

/* Pushes the string at idx as a message quotes it: whole, or its first
 * SHOWN_BYTES bytes and "..." when longer. */
static const char *push_cut(lua_State *L, int idx)
{
    size_t n;
    const char *s = lua_tolstring(L, idx, &n);
    if (n <= SHOWN_BYTES)
        return lua_pushstring(L, s);
    lua_pushlstring(L, s, SHOWN_BYTES);
    const char *cut = lua_pushfstring(L, "%s...", lua_tostring(L, -1));
    lua_remove(L, -2);
    return cut;
}

/* The value at idx as a message shows it: strings quoted (a long one cut
 * short, with its length), others as tostring does. */
static const char *shown(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TSTRING)
        return luaL_tolstring(L, idx, NULL);
    idx = lua_absindex(L, idx);
    const char *cut = push_cut(L, idx);
    if (lua_rawlen(L, idx) <= SHOWN_BYTES)
        return lua_pushfstring(L, "\"%s\" (a string)", cut);
    return lua_pushfstring(L, "\"%s\" (a string of %I bytes)", cut, (lua_Integer)lua_rawlen(L, idx));
}

/* Pushes t[key] and returns whether it is present (nd.null counts as absent). */
static bool push_field(lua_State *L, int t, const char *key)
{
    lua_getfield(L, t, key);
    if (lua_isnil(L, -1) || nd_is_null(L, -1)) {
        lua_pop(L, 1);
        return false;
    }
    return true;
}

bool field_present(lua_State *L, int t, const char *key)
{
    if (!push_field(L, t, key))
        return false;
    lua_pop(L, 1);
    return true;
}

int64_t field_int(lua_State *L, int t, const char *prefix, const char *key, int64_t lo, int64_t hi,
                  int64_t dflt, bool required)
{
    t = lua_absindex(L, t);
    if (!push_field(L, t, key)) {
        if (required)
            nd_bad_input(L, "%s%s is required and was not supplied", prefix, key);
        return dflt;
    }
    int64_t v = 0;
    if (lua_isinteger(L, -1)) {
        v = (int64_t)lua_tointeger(L, -1);
    } else if (lua_type(L, -1) == LUA_TNUMBER) {
        double d = lua_tonumber(L, -1);
        if (!(d == floor(d)))
            nd_bad_input(L, "%s%s must be a whole number, got %s", prefix, key, shown(L, -1));
        /* compared as doubles before the cast, which is exact below 2^53 */
        if (fabs(d) > 9.0e15)
            nd_bad_input(L, "%s%s must be from %I to %I, got %s", prefix, key, (lua_Integer)lo, (lua_Integer)hi,
                         shown(L, -1));
        v = (int64_t)d;
    } else {
        nd_bad_input(L, "%s%s must be a whole number, got %s", prefix, key, shown(L, -1));
    }
    lua_pop(L, 1);
    if (v < lo || v > hi) {
        if (lo >= 1 && v < lo)
            nd_bad_input(L, "%s%s must be positive, got %I", prefix, key, (lua_Integer)v);
        nd_bad_input(L, "%s%s must be from %I to %I, got %I", prefix, key, (lua_Integer)lo, (lua_Integer)hi,
                     (lua_Integer)v);
    }
    return v;
}

double field_number(lua_State *L, int t, const char *prefix, const char *key, double lo, double hi, double dflt)
{
    t = lua_absindex(L, t);
    if (!push_field(L, t, key))
        return dflt;
    if (lua_type(L, -1) != LUA_TNUMBER)
        nd_bad_input(L, "%s%s must be a number, got %s", prefix, key, shown(L, -1));
    double d = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (!(d >= lo && d <= hi))
        nd_bad_input(L, "%s%s must be from %f to %f, got %f", prefix, key, lo, hi, d);
    return d;
}

bool field_bool(lua_State *L, int t, const char *prefix, const char *key, bool dflt)
{
    t = lua_absindex(L, t);
    if (!push_field(L, t, key))
        return dflt;
    if (!lua_isboolean(L, -1))
        nd_bad_input(L, "%s%s must be true or false, got %s", prefix, key, shown(L, -1));
    bool b = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return b;
}

char *field_string(lua_State *L, int t, const char *prefix, const char *key, const char *dflt)
{
    t = lua_absindex(L, t);
    const char *s = dflt;
    bool present = push_field(L, t, key);
    if (present) {
        if (lua_type(L, -1) != LUA_TSTRING)
            nd_bad_input(L, "%s%s must be a name, got %s", prefix, key, shown(L, -1));
        if (lua_rawlen(L, -1) > MAX_NAME_BYTES)
            nd_bad_input(L, "%s%s must be a name of at most %d bytes, got %s", prefix, key, MAX_NAME_BYTES,
                         shown(L, -1));
        s = lua_tostring(L, -1);
    }
    char *copy = NULL;
    if (s != NULL) {
        size_t n = strlen(s);
        copy = malloc(n + 1);
        if (copy == NULL)
            luaL_error(L, "out of memory");
        memcpy(copy, s, n + 1);
    }
    if (present)
        lua_pop(L, 1);
    return copy;
}

/* The value of c's i-th name: its own, or its place in the list. */
static int choice_value(const field_choices *c, int i) { return c->values != NULL ? c->values[i] : i; }

bool field_choice_at(lua_State *L, int idx, const field_choices *c, int *value)
{
    const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : NULL;
    for (int i = 0; s != NULL && c->names[i] != NULL; i++) {
        if (strcmp(s, c->names[i]) == 0) {
            *value = choice_value(c, i);
            return true;
        }
    }
    return false;
}

static int read_choice(lua_State *L, int t, const char *prefix, const field_desc *d)
{
    char *s = field_string(L, t, prefix, d->key, NULL); /* checks it is a name */
    if (s == NULL)
        return choice_value(d->choices, 0);
    free(s);
    int v = 0; /* set below, or nd_bad_input raises */
    lua_getfield(L, t, d->key);
    if (!field_choice_at(L, -1, d->choices, &v))
        nd_bad_input(L, "%s%s: '%s' is not one of %s", prefix, d->key, lua_tostring(L, -1), d->choices->accepted);
    lua_pop(L, 1);
    return v;
}

/* The list of whole numbers at t[d->key], when it is a table (strings of digits convert, as
 * lua_tointegerx converts them). The block is stored before it is filled: its owner frees it
 * also when an element is refused. */
static void read_numbers(lua_State *L, int t, const char *prefix, const field_desc *d, char *obj)
{
    if (lua_getfield(L, t, d->key) == LUA_TTABLE) {
        int n = (int)lua_rawlen(L, -1);
        int64_t *list = calloc((size_t)n + 1, sizeof *list);
        if (list == NULL)
            luaL_error(L, "out of memory");
        *(int64_t **)(obj + d->offset) = list;
        *(int *)(obj + d->count_at) = n;
        for (int i = 0; i < n; i++) {
            int isnum;
            lua_rawgeti(L, -1, i + 1);
            list[i] = (int64_t)lua_tointegerx(L, -1, &isnum);
            if (!isnum)
                nd_bad_input(L, "%s%s must list whole numbers", prefix, d->key);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

/* The nested table at t[d->key], read by d->sub with the prefix prefix..key..".": a value
 * that is not a table reads as an empty one (every field its default), unless d->need
 * refuses it. */
static void read_table(lua_State *L, int t, const char *prefix, const field_desc *d, char *at)
{
    if (lua_getfield(L, t, d->key) != LUA_TTABLE) {
        if (d->need != NULL)
            nd_bad_input(L, "%s%s %s", prefix, d->key, d->need);
        lua_pop(L, 1);
        lua_newtable(L);
    }
    const char *p = lua_pushfstring(L, "%s%s.", prefix, d->key);
    if (d->required)
        fields_refuse_unknown(L, -2, p, d->key, d->sub);
    fields_read(L, -2, p, d->sub, at);
    lua_pop(L, 2);
}

/* The list of tables at t[d->key], table i read by d->sub into element i of the array at at. */
static void read_array(lua_State *L, int t, const char *prefix, const field_desc *d, char *at, int *count)
{
    *count = lua_getfield(L, t, d->key) == LUA_TTABLE ? (int)lua_rawlen(L, -1) : 0;
    if (*count == 0 || *count > d->hi)
        nd_bad_input(L, "%s%s %s (at most %d)", prefix, d->key, d->need, (int)d->hi);
    for (int i = 0; i < *count; i++, lua_pop(L, 2)) {
        const char *p = lua_pushfstring(L, "%s%s[%d].", prefix, d->key, i + 1);
        if (lua_rawgeti(L, -2, i + 1) != LUA_TTABLE)
            nd_bad_input(L, "%s%s %s", prefix, d->key, d->need);
        fields_read(L, -1, p, d->sub, at + (size_t)i * d->stride);
    }
    lua_pop(L, 1);
}

/* The list of names at t[d->key], each read as its choice's value into the int array at at. */
static void read_choices(lua_State *L, int t, const char *prefix, const field_desc *d, int *at, int *count)
{
    *count = lua_getfield(L, t, d->key) == LUA_TTABLE ? (int)lua_rawlen(L, -1) : 0;
    if (*count > d->hi)
        nd_bad_input(L, "%s%s lists %d names; at most %d of %s", prefix, d->key, *count, (int)d->hi,
                     d->choices->accepted);
    for (int i = 0; i < *count; i++, lua_pop(L, 1)) {
        lua_rawgeti(L, -1, i + 1);
        if (!field_choice_at(L, -1, d->choices, &at[i]))
            nd_bad_input(L, "%s%s[%d] must be one of %s, got %s", prefix, d->key, i + 1, d->choices->accepted,
                         shown(L, -1));
    }
    lua_pop(L, 1);
}

static void read_field(lua_State *L, int t, const char *prefix, const field_desc *d, char *obj)
{
    char *at = obj + d->offset;
    if (d->required && d->kind == FD_NUM && !field_present(L, t, d->key))
        nd_bad_input(L, "%s%s is required and was not supplied", prefix, d->key);
    switch (d->kind) {
    case FD_I64:
        *(int64_t *)at = field_int(L, t, prefix, d->key, (int64_t)d->lo, (int64_t)d->hi, (int64_t)d->dflt, d->required);
        break;
    case FD_INT:
        *(int *)at = (int)field_int(L, t, prefix, d->key, (int64_t)d->lo, (int64_t)d->hi, (int64_t)d->dflt, d->required);
        break;
    case FD_NUM:
        *(double *)at = field_number(L, t, prefix, d->key, d->lo, d->hi, d->dflt);
        break;
    case FD_BOOL:
        *(bool *)at = field_bool(L, t, prefix, d->key, d->dflt != 0);
        break;
    case FD_TRI:
        *(int *)at = field_present(L, t, d->key) ? field_bool(L, t, prefix, d->key, false) : -1;
        break;
    case FD_ENUM:
        *(int *)at = read_choice(L, t, prefix, d);
        break;
    case FD_NAME:
        free(field_string(L, t, prefix, d->key, NULL));
        break;
    case FD_STRING:
        *(char **)at = field_string(L, t, prefix, d->key, NULL);
        if (d->required && *(char **)at == NULL)
            nd_bad_input(L, "%s%s is required and was not supplied", prefix, d->key);
        break;
    case FD_I64S:
        read_numbers(L, t, prefix, d, obj);
        break;
    case FD_TABLE:
        read_table(L, t, prefix, d, at);
        break;
    case FD_ARRAY:
        read_array(L, t, prefix, d, at, (int *)(obj + d->count_at));
        break;
    case FD_CHOICES:
        read_choices(L, t, prefix, d, (int *)at, (int *)(obj + d->count_at));
        break;
    case FD_PART:
        fields_read(L, t, prefix, d->sub, at);
        break;
    default:
        break;
    }
}

const field_desc *fields_read(lua_State *L, int t, const char *prefix, const field_desc *d, void *obj)
{
    t = lua_absindex(L, t);
    for (; d->kind != FD_END; d++) {
        if (d->kind == FD_STOP)
            return d + 1;
        read_field(L, t, prefix, d, obj);
    }
    return d;
}

const field_desc *fields_skip(const field_desc *d)
{
    while (d->kind != FD_END && d->kind != FD_STOP)
        d++;
    return d->kind == FD_STOP ? d + 1 : d;
}

/* Pushes the nested table of d (sized for its fields) from the struct at at. */
static void push_table(lua_State *L, const field_desc *d, const char *at)
{
    int n = 0;
    while (d->sub[n].kind != FD_END)
        n++;
    lua_createtable(L, 0, n);
    fields_push(L, d->sub, at);
}

/* Whether a descriptor of d, or of a part of d, names key (the first
 * bytes compared before the rest: most names differ there). */
static bool names_key(const field_desc *d, const char *key)
{
    for (; d->kind != FD_END; d++) {
        if (d->kind == FD_PART ? names_key(d->sub, key)
                               : d->key != NULL && d->key[0] == key[0] && strcmp(key, d->key) == 0)
            return true;
    }
    return false;
}

void fields_refuse_unknown(lua_State *L, int t, const char *prefix, const char *what, const field_desc *d)
{
    t = lua_absindex(L, t);
    lua_pushnil(L);
    while (lua_next(L, t) != 0) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            nd_bad_input(L, "%s%s has a key that is not a name: %s", prefix, what, shown(L, -1));
        if (!names_key(d, lua_tostring(L, -1)))
            nd_bad_input(L, "%s%s: unknown key '%s'", prefix, what, push_cut(L, -1));
    }
}

const field_desc *fields_push(lua_State *L, const field_desc *d, const void *obj)
{
    for (; d->kind != FD_END && d->kind != FD_STOP; d++) {
        const char *at = (const char *)obj + d->offset;
        if (d->kind == FD_I64)
            lua_pushinteger(L, (lua_Integer) * (const int64_t *)at);
        else if (d->kind == FD_INT || d->kind == FD_TRI || d->kind == FD_ENUM)
            lua_pushinteger(L, *(const int *)at);
        else if (d->kind == FD_NUM)
            field_push_number(L, *(const double *)at);
        else if (d->kind == FD_BOOL)
            lua_pushboolean(L, *(const bool *)at);
        else if (d->kind == FD_NAME || d->kind == FD_STRING)
            lua_pushstring(L, *(const char *const *)at);
        else if (d->kind == FD_TABLE)
            push_table(L, d, at);
        else if (d->kind == FD_PART) { /* its fields beside the others' */
            fields_push(L, d->sub, at);
            continue;
        } else
            continue;
        lua_setfield(L, -2, d->key);
    }
    return d->kind == FD_STOP ? d + 1 : d;
}

void field_push_number(lua_State *L, double d)
{
    if (isfinite(d) && d == floor(d) && fabs(d) < 9.0e15)
        lua_pushinteger(L, (lua_Integer)d);
    else
        lua_pushnumber(L, d);
}

void field_set_number(lua_State *L, const char *key, double d)
{
    field_push_number(L, d);
    lua_setfield(L, -2, key);
}

void field_set_int(lua_State *L, const char *key, int64_t v)
{
    lua_pushinteger(L, (lua_Integer)v);
    lua_setfield(L, -2, key);
}

void field_set_bool(lua_State *L, const char *key, bool v)
{
    lua_pushboolean(L, v);
    lua_setfield(L, -2, key);
}

void field_set_string(lua_State *L, const char *key, const char *s)
{
    lua_pushstring(L, s);
    lua_setfield(L, -2, key);
}

void field_push_names(lua_State *L, const field_choices *c)
{
    lua_newtable(L);
    for (int i = 0; c->names[i] != NULL; i++)
        field_set_bool(L, c->names[i], true);
}

void field_push_choices(lua_State *L, const field_choices *c)
{
    lua_newtable(L);
    lua_newtable(L); /* canonical */
    for (int i = 0; c->names[i] != NULL; i++) {
        lua_pushstring(L, c->names[i]);
        lua_rawseti(L, -3, i + 1);
        int first = 0; /* the first name of the same value */
        while (c->values != NULL && c->values[first] != c->values[i])
            first++;
        field_set_string(L, c->names[i], c->names[c->values != NULL ? first : i]);
    }
    lua_setfield(L, -2, "canonical");
    field_set_string(L, "accepted", c->accepted);
}

void fields_set_bound(lua_State *L, const char *key, double lo, double hi)
{
    lua_createtable(L, 2, 0);
    field_push_number(L, lo);
    lua_rawseti(L, -2, 1);
    field_push_number(L, hi);
    lua_rawseti(L, -2, 2);
    lua_setfield(L, -2, key);
}

void fields_set_bounds(lua_State *L, const field_desc *d)
{
    for (; d->kind != FD_END; d++) {
        if (d->kind == FD_PART)
            fields_set_bounds(L, d->sub);
        else if ((d->kind == FD_I64 || d->kind == FD_INT || d->kind == FD_NUM) && (d->lo != 0 || d->hi != 0))
            fields_set_bound(L, d->key, d->lo, d->hi);
    }
}

void fields_push_defaults(lua_State *L, const field_desc *d)
{
    lua_newtable(L);
    for (; d->kind != FD_END; d++) {
        if (d->kind == FD_PART) {
            fields_push_defaults(L, d->sub);
            for (lua_pushnil(L); lua_next(L, -2) != 0;) /* the part's defaults beside the others */
                lua_pushvalue(L, -2), lua_insert(L, -2), lua_settable(L, -5);
            lua_pop(L, 1);
        } else if (d->kind == FD_BOOL)
            field_set_bool(L, d->key, d->dflt != 0);
        else if (d->kind == FD_INT || d->kind == FD_I64 || d->kind == FD_NUM)
            field_set_number(L, d->key, d->dflt);
    }
}
