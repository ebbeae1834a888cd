/* fields.h: the fields of a C struct described as data (name, type, place, bounds, default), so
 * that one table states a struct's fields once for every reader: the Lua binding reads and writes
 * them by it (binding/lua_fields.c), the core's components declare theirs beside the formulas that
 * read them. No Lua here. */
#ifndef NDLUA_FIELDS_H
#define NDLUA_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

/* A flag a run may leave unstated (then the model family, or the formula, decides). */
typedef enum { UNSTATED = -1, NO = 0, YES = 1 } tristate;

/* A field table: one descriptor per field of a C struct, in the order it
 * is read (and written back), ended by FIELD_END. FIELD_STOP marks where a
 * reader or writer returns to its caller (for a check or a field read by
 * hand) before it goes on with the rest. */
typedef enum {
    FD_END,  /* ends the table */
    FD_STOP, /* ends a segment */
    FD_KEY,  /* a key the table may hold, read by hand (or by Lua alone) */
    FD_I64,  /* int64_t from lo to hi */
    FD_INT,  /* int from lo to hi */
    FD_NUM,  /* double from lo to hi */
    FD_BOOL, /* bool */
    FD_TRI,  /* an int: -1 when absent, else 0 or 1 (a tristate) */
    FD_ENUM, /* an int-sized enum, stated by name (choices); absent: the first value */
    FD_NAME, /* a name, checked and dropped; written back from a const char * */
    FD_STRING, /* a name, kept as an allocated copy (char *) the struct owns */
    FD_I64S, /* an allocated list of whole numbers (int64_t *) and its count (int) */
    FD_TABLE, /* a nested table, read and written through its own field table */
    FD_ARRAY, /* a list of tables, each read by its own field table into a fixed array (not written back) */
    FD_CHOICES, /* a list of names, each read as its choice's value into a fixed int array (not written back) */
    FD_PART, /* a part of the struct (a component), its fields read from the same table by its own field table */
} field_kind;

/* The names an FD_ENUM accepts (NULL-terminated), the value of each (NULL:
 * a name's value is its place in the list, as an enum declared in the same
 * order numbers them), and how the message lists them. */
typedef struct {
    const char *const *names;
    const int *values;
    const char *accepted;
} field_choices;

/* Integer bounds and defaults are held as doubles: exact, all below 2^53. */
typedef struct field_desc {
    const char *key;
    field_kind kind;
    size_t offset;
    double lo, hi, dflt;
    bool required; /* FD_TABLE: its unknown keys are refused (read as required elsewhere) */
    const field_choices *choices;
    const struct field_desc *sub; /* FD_TABLE: the nested table's fields, at offset */
    size_t count_at;              /* FD_I64S, FD_ARRAY, FD_CHOICES: the offset of the int that counts the list */
    const char *need;             /* FD_TABLE, FD_ARRAY: a table is required; the message says what it holds */
    size_t stride;                /* FD_ARRAY: the bytes of an element */
} field_desc;

/* The offset of member m of struct S, which must be of type T. */
#define FIELD_AT(S, T, m) _Generic(((S *)0)->m, T: offsetof(S, m))
#define FIELD_(k, K, at) .key = k, .kind = K, .offset = at
#define FIELD_I64(S, k, m, l, h, d) {FIELD_(k, FD_I64, FIELD_AT(S, int64_t, m)), .lo = l, .hi = h, .dflt = d}
#define FIELD_REQ(S, k, m, l, h) {FIELD_(k, FD_I64, FIELD_AT(S, int64_t, m)), .lo = l, .hi = h, .required = true}
#define FIELD_INT(S, k, m, l, h, d) {FIELD_(k, FD_INT, FIELD_AT(S, int, m)), .lo = l, .hi = h, .dflt = d}
#define FIELD_NUM(S, k, m, l, h, d) {FIELD_(k, FD_NUM, FIELD_AT(S, double, m)), .lo = l, .hi = h, .dflt = d}
#define FIELD_REQNUM(S, k, m, l, h) {FIELD_(k, FD_NUM, FIELD_AT(S, double, m)), .lo = l, .hi = h, .required = true}
#define FIELD_BOOL(S, k, m, d) {FIELD_(k, FD_BOOL, FIELD_AT(S, bool, m)), .hi = 1, .dflt = d}
#define FIELD_TRI(S, k, m) {FIELD_(k, FD_TRI, FIELD_AT(S, int, m)), .hi = 1, .dflt = -1}
#define FIELD_ENUM(S, T, k, m, c) {FIELD_(k, FD_ENUM, FIELD_AT(S, T, m)), .choices = c}
#define FIELD_NAME(k) {FIELD_(k, FD_NAME, 0)}
#define FIELD_STR(S, k, m) {FIELD_(k, FD_NAME, FIELD_AT(S, const char *, m))}
/* A required name, copied into member m (char *): the struct frees it. */
#define FIELD_OWN(S, k, m) {FIELD_(k, FD_STRING, FIELD_AT(S, char *, m)), .required = true}
/* The list of whole numbers at key, allocated into member m (int64_t *), counted in member n (int). */
#define FIELD_I64S(S, k, m, n) {FIELD_(k, FD_I64S, FIELD_AT(S, int64_t *, m)), .count_at = FIELD_AT(S, int, n)}
/* The table at key, read (and written back) by the field table s, with the
 * prefix "prefix.key.": into the struct at member m (FIELD_TABLE: absent,
 * its defaults; FIELD_STRICT: and its unknown keys refused), or into the
 * same struct (FIELD_NESTED: absent, its defaults; FIELD_NEED: absent,
 * refused with the message "prefix.key need"). A value that is not a table
 * counts as absent. */
#define FIELD_TABLE(S, T, k, m, s) {FIELD_(k, FD_TABLE, FIELD_AT(S, T, m)), .sub = s}
#define FIELD_STRICT(S, T, k, m, s) {FIELD_(k, FD_TABLE, FIELD_AT(S, T, m)), .sub = s, .required = true}
#define FIELD_NESTED(k, s) {FIELD_(k, FD_TABLE, 0), .sub = s}
#define FIELD_NEED(k, s, n) {FIELD_(k, FD_TABLE, 0), .sub = s, .need = n}
/* The list of 1 to h tables at key, table i read by the field table s (with
 * the prefix "prefix.key[i]."), into element i of the array member m (of
 * at least h elements of type T), counted in member c (int); an absent,
 * empty or longer list is refused with the message "prefix.key need". */
#define FIELD_ARRAY(S, T, k, m, c, h, s, n)                                                                         \
    {FIELD_(k, FD_ARRAY, FIELD_AT(S, T *, m)), .hi = h, .sub = s, .count_at = FIELD_AT(S, int, c), .need = n,      \
     .stride = sizeof(T)}
/* The list of at most h names at key, each one c names, read as its value
 * into element i of the array member m (of at least h int-sized T), counted
 * in member n (int); absent, the count is 0. */
#define FIELD_CHOICES(S, T, k, m, n, h, c)                                                                          \
    {FIELD_(k, FD_CHOICES, FIELD_AT(S, T *, m)), .hi = h, .choices = c, .count_at = FIELD_AT(S, int, n)}
/* The fields of the field table s, read from the same table (and written
 * back into it) into the struct at member m of type T: a component of a
 * larger struct whose keys stand beside the others'. */
#define FIELD_PART(S, T, m, s) {FIELD_(#m, FD_PART, FIELD_AT(S, T, m)), .sub = s}
#define FIELD_KEY(k) {FIELD_(k, FD_KEY, 0)}
#define FIELD_STOP {FIELD_(NULL, FD_STOP, 0)}
#define FIELD_END {FIELD_(NULL, FD_END, 0)}

#endif
