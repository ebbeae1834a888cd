/* docmeta.h: what a loaded document remembers beside its plain Lua tables. */
#ifndef NDLUA_DOCMETA_H
#define NDLUA_DOCMETA_H

#include <lua.h>

/* Loaded tables stay plain tables; beside each one, a weak registry keeps
 * its kind ("map" or "seq"), the file it came from, its own line and column,
 * its keys in document order, and the line and column of each value and
 * of each key. */

/* The two kinds; compare kinds with these pointers. */
extern const char DOCMETA_MAP[];
extern const char DOCMETA_SEQ[];

/* Creates the registry (once per state). */
void docmeta_open(lua_State *L);

/* A record is an array of these slots (rawgeti/rawseti: an array slot is
 * set and read without the hashing and lookup of a named field): the kind
 * (a string, DOCMETA_MAP's or DOCMETA_SEQ's text), the file (absent for a
 * table built in Lua), the line and column of the table, the keys in
 * document order, and the tables of each value's and each key's position. */
enum {
    DOCMETA_KIND = 1,
    DOCMETA_FILE,
    DOCMETA_LINE,
    DOCMETA_COL,
    DOCMETA_KEYS,
    DOCMETA_AT,
    DOCMETA_KEY_AT,
    DOCMETA_SLOTS = DOCMETA_KEY_AT
};

/* Attaches a new record to the table at index t and pushes the record. */
void docmeta_attach(lua_State *L, int t, const char *kind, const char *file, long line, long col);

/* A position noted as one integer (line and column, each below 2^32), and
 * its line. */
#define DOCMETA_LINE_UNIT ((lua_Integer)1 << 32)
lua_Integer docmeta_pack(long line, long col);
long docmeta_line(lua_Integer position);

/* With the record at index rec: appends key (the value at index key) to the
 * key order of a map, and notes where its value is. For a sequence, key is
 * the integer index. */
void docmeta_note(lua_State *L, int rec, int key, long line, long col);

/* With the record at index rec: notes where the key (the value at index
 * key) of a map is written (a repeated key: where it was written last,
 * beside the value it keeps). */
void docmeta_note_key(lua_State *L, int rec, int key, long line, long col);

/* A reader's hold on a record while it fills its collection: the record's
 * key order and position tables on the stack (docmeta_note and
 * docmeta_note_key look each up in the record at every call), and how many keys
 * the order lists. */
typedef struct {
    int keys, at, key_at;
    lua_Integer listed;
} docmeta_lists;
/* Pushes the keys, at and key_at tables of the record at index rec (three
 * values) and fills *d with their indices. */
void docmeta_open_lists(lua_State *L, int rec, docmeta_lists *d);
/* docmeta_note for a key (at index key) not noted before in this record:
 * appends it to the key order and notes where its value is. */
void docmeta_note_new(lua_State *L, docmeta_lists *d, int key, long line, long col);
/* docmeta_note_new and docmeta_note_key for the n keys not noted before at
 * first, first + 3, ... of the stack, each followed by where its value and
 * where the key itself were read (docmeta_pack's). Lists still empty are
 * made anew for n entries first (the record's and the stack's slots of
 * rec's lists), so that a map of n keys fills them without their growing. */
void docmeta_note_entries(lua_State *L, docmeta_lists *d, int rec, int first, int n);
/* Sets *line and *col to where the value at key (an index) of the table
 * at index t was read; returns 0, or -1 (leaving them) when unrecorded. */
int docmeta_position(lua_State *L, int t, int key, long *line, long *col);

/* Pushes the record of the table at index t, or nil. */
int docmeta_push(lua_State *L, int t);

/* The kind of the table at index t: DOCMETA_MAP, DOCMETA_SEQ or NULL when unrecorded. */
const char *docmeta_kind(lua_State *L, int t);

/* Marks the table at index t as a sequence (an empty one encodes as []). */
void docmeta_mark_kind(lua_State *L, int t, const char *kind);

/* Whether the table at index t is a sequence: as recorded, else when its
 * keys are exactly 1..n with n > 0 (an empty unrecorded table is a map). */
int docmeta_is_sequence(lua_State *L, int t);

/* Pushes a new array of the keys of the table at index t: its document
 * order first, then any other keys sorted (numbers, strings, booleans).
 * Returns its length. */
lua_Integer docmeta_push_ordered_keys(lua_State *L, int t);

/* Lua functions: keys(t), where(t [, key [, "key"]]), array(t). */
int docmeta_lua_keys(lua_State *L);
int docmeta_lua_where(lua_State *L);
int docmeta_lua_array(lua_State *L);

#endif
