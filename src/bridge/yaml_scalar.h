/* yaml_scalar.h: YAML 1.1 implicit typing of plain scalars, as PyYAML's safe loader does it. */
#ifndef NDLUA_YAML_SCALAR_H
#define NDLUA_YAML_SCALAR_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    SCALAR_STRING,
    SCALAR_NULL,
    SCALAR_BOOL,
    SCALAR_INT,
    SCALAR_FLOAT,
    SCALAR_ERROR, /* text of a type that is no value of it (0x_), or out of memory */
} scalar_type;

typedef struct {
    scalar_type type;
    int boolean;
    int64_t integer;
    double number;
    const char *error; /* SCALAR_ERROR: why, a static string */
} scalar_value;

/* The error of a scalar that could not be typed for want of memory (compare
 * the pointer), and the prefix of the core tags (tag:yaml.org,2002:int is !!int). */
extern const char YAML_SCALAR_NO_MEMORY[];
extern const char YAML_CORE_TAG_PREFIX[];

/* Types the plain (unquoted, untagged) scalar text[0..n). Integers beyond
 * 64 bits become the nearest float (PyYAML keeps them as big integers).
 * Timestamps (2001-12-14) stay strings: Lua has no date type. */
scalar_value yaml_resolve_plain(const char *text, size_t n);

/* Types text under an explicit core tag (int, float, bool, null, str) as
 * PyYAML's constructors do: !!float 1e5 is 100000.0, !!null x is null.
 * Returns 0, or -1 when the tag is not a core scalar tag or the text is no
 * value of it (out contains SCALAR_ERROR when memory ran out). */
int yaml_resolve_tagged(const char *tag, const char *text, size_t n, scalar_value *out);

/* Whether a string, written plain, would read back as the same string
 * under PyYAML (so not as a number, bool, null, timestamp, = or <<). */
int yaml_plain_is_string(const char *text, size_t n);

#endif
