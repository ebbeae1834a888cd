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
} scalar_type;

typedef struct {
    scalar_type type;
    int boolean;
    int64_t integer;
    double number;
} scalar_value;

/* Types the plain (unquoted, untagged) scalar text[0..n). Integers beyond
 * 64 bits become floats (PyYAML keeps them as big integers; ndlua says
 * later that such a value is out of range). */
scalar_value yaml_resolve_plain(const char *text, size_t n);

/* Types text under an explicit core tag (int, float, bool, null, str).
 * Returns 0, or -1 when the text is no value of that tag. */
int yaml_resolve_tagged(const char *tag, const char *text, size_t n, scalar_value *out);

/* Whether a string, written plain, would read back as the same string. */
int yaml_plain_is_string(const char *text, size_t n);

#endif
