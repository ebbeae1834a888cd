/* yaml_scalar.c: YAML 1.1 implicit typing of plain scalars (PyYAML's resolver and constructors). */
#include "yaml_scalar.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The rules, restated from the YAML 1.1 type repository as PyYAML applies them:
 *   null   ~ | null | Null | NULL | (empty)
 *   bool   yes/no/true/false/on/off in lower, Title and UPPER case
 *   int    [-+]? 0b[01_]+ | [-+]? 0[0-7_]+ | [-+]? (0 | [1-9][0-9_]*)
 *          | [-+]? 0x[0-9a-fA-F_]+ | [-+]? [1-9][0-9_]* (:[0-5]?[0-9])+
 *   float  [-+]? [0-9][0-9_]* . [0-9_]* ([eE][-+][0-9]+)?
 *          | . [0-9][0-9_]* ([eE][-+][0-9]+)?
 *          | [-+]? [0-9][0-9_]* (:[0-5]?[0-9])+ . [0-9_]*
 *          | [-+]? .inf (3 cases) | .nan (3 cases)
 * A float needs its dot, and an exponent needs its sign: 1e5 is a string.
 * Values are built as PyYAML's constructors build them: '_' is dropped,
 * a leading 0 means octal, a:b:c is base 60. */

const char YAML_SCALAR_NO_MEMORY[] = "out of memory";
static const char NO_DIGITS[] = "an integer without digits";

/* (the first byte first: most scalars differ from a word there, and the
 * words' lengths are then never measured) */
static int equals(const char *s, size_t n, const char *word)
{
    return n > 0 && s[0] == word[0] && strlen(word) == n && memcmp(s, word, n) == 0;
}

static int one_of(const char *s, size_t n, const char *const *words)
{
    for (; *words != NULL; words++)
        if (equals(s, n, *words))
            return 1;
    return 0;
}

static const char *const TRUE_WORDS[] = {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", NULL};
static const char *const FALSE_WORDS[] = {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", NULL};
static const char *const NULL_WORDS[] = {"~", "null", "Null", "NULL", NULL};
static const char *const INF_WORDS[] = {".inf", ".Inf", ".INF", NULL};
static const char *const NAN_WORDS[] = {".nan", ".NaN", ".NAN", NULL};

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_binary(char c) { return c == '0' || c == '1'; }
static int is_octal(char c) { return c >= '0' && c <= '7'; }

static int is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Skips chars of a class (with '_' allowed); returns how many. */
static size_t span(const char *s, size_t n, int (*cls)(char))
{
    size_t i = 0;
    while (i < n && (cls(s[i]) || s[i] == '_'))
        i++;
    return i;
}

/* Matches one or more (:[0-5]?[0-9]) groups from s; returns the length, 0 if none. */
static size_t sexagesimal_tail(const char *s, size_t n)
{
    size_t i = 0, groups = 0;
    while (i < n && s[i] == ':') {
        size_t j = i + 1;
        if (j + 1 < n && s[j] >= '0' && s[j] <= '5' && is_digit(s[j + 1]))
            j += 2;
        else if (j < n && is_digit(s[j]))
            j += 1;
        else
            break;
        i = j;
        groups++;
    }
    return groups ? i : 0;
}

static size_t sign_length(const char *s, size_t n)
{
    return n > 0 && (s[0] == '-' || s[0] == '+') ? 1 : 0;
}

static int matches_int(const char *s, size_t n)
{
    size_t i = sign_length(s, n);
    const char *b = s + i;
    size_t m = n - i;
    if (m >= 3 && b[0] == '0' && b[1] == 'b')
        return span(b + 2, m - 2, is_binary) == m - 2;
    if (m >= 3 && b[0] == '0' && b[1] == 'x')
        return span(b + 2, m - 2, is_hex) == m - 2;
    if (m >= 2 && b[0] == '0')
        return span(b + 1, m - 1, is_octal) == m - 1;
    if (m == 1 && b[0] == '0')
        return 1;
    if (m == 0 || b[0] < '1' || b[0] > '9')
        return 0;
    size_t d = 1 + span(b + 1, m - 1, is_digit);
    if (d == m)
        return 1;
    return sexagesimal_tail(b + d, m - d) == m - d;
}

static size_t exponent_length(const char *s, size_t n)
{
    if (n >= 3 && (s[0] == 'e' || s[0] == 'E') && (s[1] == '-' || s[1] == '+') && is_digit(s[2])) {
        size_t i = 3;
        while (i < n && is_digit(s[i]))
            i++;
        return i;
    }
    return 0;
}

static int matches_float(const char *s, size_t n)
{
    if (one_of(s, n, NAN_WORDS))
        return 1;
    size_t i = sign_length(s, n);
    if (one_of(s + i, n - i, INF_WORDS))
        return 1;
    if (i == 0 && n >= 2 && s[0] == '.' && is_digit(s[1])) {
        size_t j = 2 + span(s + 2, n - 2, is_digit);
        return j == n || j + exponent_length(s + j, n - j) == n;
    }
    if (i >= n || !is_digit(s[i]))
        return 0;
    size_t j = i + 1 + span(s + i + 1, n - i - 1, is_digit);
    size_t sexa = sexagesimal_tail(s + j, n - j);
    if (sexa > 0) {
        j += sexa;
        if (j >= n || s[j] != '.')
            return 0;
        return j + 1 + span(s + j + 1, n - j - 1, is_digit) == n;
    }
    if (j >= n || s[j] != '.')
        return 0;
    j += 1 + span(s + j + 1, n - j - 1, is_digit);
    return j == n || j + exponent_length(s + j, n - j) == n;
}

/* Advances *i over min..max digits; 0 when fewer than min are there. */
static int take_digits(const char *s, size_t n, size_t *i, size_t min, size_t max)
{
    size_t k = 0;
    while (*i + k < n && k < max && is_digit(s[*i + k]))
        k++;
    *i += k;
    return k >= min;
}

static int take(const char *s, size_t n, size_t *i, char c)
{
    if (*i < n && s[*i] == c) {
        (*i)++;
        return 1;
    }
    return 0;
}

static size_t take_blanks(const char *s, size_t n, size_t *i)
{
    size_t start = *i;
    while (*i < n && (s[*i] == ' ' || s[*i] == '\t'))
        (*i)++;
    return *i - start;
}

/* PyYAML's timestamp: YYYY-MM-DD, or YYYY-M-D(T|t|blanks)H:MM:SS(.f)?(blanks?(Z|+-H(:MM)?))? */
static int matches_timestamp(const char *s, size_t n)
{
    size_t i = 0;
    if (!take_digits(s, n, &i, 4, 4) || !take(s, n, &i, '-') || !take_digits(s, n, &i, 1, 2) ||
        !take(s, n, &i, '-') || !take_digits(s, n, &i, 1, 2))
        return 0;
    if (i == n)
        return n == 10; /* the date alone needs two-digit month and day */
    if (!take(s, n, &i, 'T') && !take(s, n, &i, 't') && take_blanks(s, n, &i) == 0)
        return 0;
    if (!take_digits(s, n, &i, 1, 2) || !take(s, n, &i, ':') || !take_digits(s, n, &i, 2, 2) ||
        !take(s, n, &i, ':') || !take_digits(s, n, &i, 2, 2))
        return 0;
    if (take(s, n, &i, '.'))
        take_digits(s, n, &i, 0, n);
    size_t before = i;
    take_blanks(s, n, &i);
    if (i == n)
        return i == before;
    if (take(s, n, &i, 'Z'))
        return i == n;
    if (!take(s, n, &i, '-') && !take(s, n, &i, '+'))
        return 0;
    if (!take_digits(s, n, &i, 1, 2))
        return 0;
    if (take(s, n, &i, ':') && !take_digits(s, n, &i, 2, 2))
        return 0;
    return i == n;
}

static scalar_value make_value(scalar_type type)
{
    scalar_value v = {type, 0, 0, 0, NULL};
    return v;
}

static scalar_value error_value(const char *why)
{
    scalar_value v = make_value(SCALAR_ERROR);
    v.error = why;
    return v;
}

/* The text without its '_' separators, NUL-terminated, newly allocated. */
static char *compact(const char *s, size_t n)
{
    char *out = malloc(n + 1);
    if (out == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '_')
            out[k++] = s[i];
    out[k] = '\0';
    return out;
}

/* Strips one sign from *p; returns whether it was a minus. */
static int take_sign(char **p)
{
    int negative = **p == '-';
    if (**p == '-' || **p == '+')
        (*p)++;
    return negative;
}

static int digit_value(char c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

/* The value of the digits p[0..n) in base: exact in *value unless *overflow,
 * and as a double in *approx. Returns -1 when there is no digit or a bad one. */
static int read_digits(const char *p, size_t n, int base, uint64_t *value, double *approx, int *overflow)
{
    *value = 0;
    *approx = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int d = digit_value(p[i]);
        if (d >= base)
            return -1;
        if (*value > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            *overflow = 1;
        else
            *value = *value * (uint64_t)base + (uint64_t)d;
        *approx = *approx * base + d;
    }
    return 0;
}

/* An integer of the given sign and magnitude; the nearest float past 64 bits. */
static scalar_value signed_int(int negative, uint64_t magnitude, double approx, int overflow)
{
    const uint64_t max = (uint64_t)INT64_MAX;
    scalar_value v = make_value(SCALAR_INT);
    if (overflow || magnitude > max + (negative ? 1u : 0u)) {
        v.type = SCALAR_FLOAT;
        v.number = negative ? -approx : approx;
    } else if (negative) {
        v.integer = magnitude > max ? INT64_MIN : -(int64_t)magnitude;
    } else {
        v.integer = (int64_t)magnitude;
    }
    return v;
}

/* a:b:c (no sign, no '_') as PyYAML builds it: ((a * 60) + b) * 60 + c. */
static scalar_value sexagesimal_int(const char *p, int negative)
{
    uint64_t value = 0;
    double approx = 0;
    int overflow = 0;
    while (*p) {
        size_t k = strcspn(p, ":");
        uint64_t part;
        double part_approx;
        if (read_digits(p, k, 10, &part, &part_approx, &overflow) != 0)
            return error_value(NO_DIGITS);
        if (value > (UINT64_MAX - part) / 60)
            overflow = 1;
        else
            value = value * 60 + part;
        approx = approx * 60 + part_approx;
        p += k + (p[k] == ':');
    }
    return signed_int(negative, value, approx, overflow);
}

/* 0b..., 0x..., 0... (octal) or decimal digits, no sign, no '_'. */
static scalar_value based_int(const char *p, int negative)
{
    int base = 10;
    if (p[0] == '0' && p[1] == 'b')
        base = 2, p += 2;
    else if (p[0] == '0' && p[1] == 'x')
        base = 16, p += 2;
    else if (p[0] == '0' && p[1] != '\0')
        base = 8, p += 1;
    uint64_t value;
    double approx;
    int overflow = 0;
    if (read_digits(p, strlen(p), base, &value, &approx, &overflow) != 0)
        return error_value(NO_DIGITS);
    if (base == 10)
        approx = strtod(p, NULL); /* correctly rounded, for values past 64 bits */
    return signed_int(negative, value, approx, overflow);
}

/* The value of text that matches the int rule (PyYAML's construct_yaml_int). */
static scalar_value int_value(const char *s, size_t n)
{
    char *text = compact(s, n);
    if (text == NULL)
        return error_value(YAML_SCALAR_NO_MEMORY);
    char *p = text;
    int negative = take_sign(&p);
    scalar_value v = strchr(p, ':') != NULL ? sexagesimal_int(p, negative) : based_int(p, negative);
    free(text);
    return v;
}

/* Whether p is a number as Python's float() reads one: blanks, a sign,
 * digits with a dot or an exponent, or inf, infinity, nan; in lower case. */
static int python_float(const char *p, double *out)
{
    char *end;
    while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
    const char *q = p + (*p == '-' || *p == '+');
    if (strncmp(q, "inf", 3) != 0 && strncmp(q, "nan", 3) != 0) {
        size_t digits = strspn(q, "0123456789");
        if (q[digits] == '.')
            digits += strspn(q + digits + 1, "0123456789");
        if (digits == 0 || strchr(q, 'x') != NULL)
            return -1; /* Python reads no hexadecimal floats; strtod would */
    }
    *out = strtod(p, &end);
    if (end == p || *end == '(')
        return -1;
    while (*end == ' ' || *end == '\t' || *end == '\n')
        end++;
    return *end == '\0' ? 0 : -1;
}

/* Base-60 float a:b:c.d, each part a Python float (the text is modified). */
static int sexagesimal_float(char *p, double *out)
{
    double value = 0;
    for (char *part = p; part != NULL;) {
        char *colon = strchr(part, ':');
        if (colon != NULL)
            *colon = '\0';
        double d;
        if (python_float(part, &d) != 0)
            return -1;
        value = value * 60 + d;
        part = colon ? colon + 1 : NULL;
    }
    *out = value;
    return 0;
}

/* The value of a float, as PyYAML's construct_yaml_float builds it: '_'
 * dropped, lower case, .inf/.nan, base 60, else Python's float(). */
static int float_value(const char *s, size_t n, scalar_value *out)
{
    char *text = compact(s, n);
    if (text == NULL) {
        *out = error_value(YAML_SCALAR_NO_MEMORY);
        return -1;
    }
    for (char *c = text; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    char *p = text;
    int negative = take_sign(&p);
    double d = 0;
    int rc = 0;
    if (strcmp(p, ".inf") == 0)
        d = INFINITY;
    else if (strcmp(p, ".nan") == 0)
        d = NAN, negative = 0;
    else if (strchr(p, ':') != NULL)
        rc = sexagesimal_float(p, &d);
    else
        rc = python_float(p, &d);
    free(text);
    *out = make_value(SCALAR_FLOAT);
    out->number = negative ? -d : d;
    return rc;
}

scalar_value yaml_resolve_plain(const char *s, size_t n)
{
    scalar_value v = make_value(SCALAR_STRING);
    if (n == 0 || one_of(s, n, NULL_WORDS)) {
        v.type = SCALAR_NULL;
    } else if (one_of(s, n, TRUE_WORDS)) {
        v.type = SCALAR_BOOL;
        v.boolean = 1;
    } else if (one_of(s, n, FALSE_WORDS)) {
        v.type = SCALAR_BOOL;
    } else if (matches_int(s, n)) {
        v = int_value(s, n);
    } else if (matches_float(s, n)) {
        float_value(s, n, &v);
    }
    return v;
}

int yaml_plain_is_string(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (equals(s, n, "<<") || equals(s, n, "="))
        return 0; /* PyYAML's merge and value keys */
    return yaml_resolve_plain(s, n).type == SCALAR_STRING && !matches_timestamp(s, n);
}

/* !!bool takes the six words in any case (PyYAML lower-cases them). */
static int tagged_bool(const char *s, size_t n, scalar_value *out)
{
    static const char *const words[] = {"yes", "true", "on", "no", "false", "off"};
    char lower[6];
    if (n >= sizeof lower)
        return -1;
    for (size_t i = 0; i < n; i++)
        lower[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    for (int w = 0; w < 6; w++) {
        if (equals(lower, n, words[w])) {
            *out = make_value(SCALAR_BOOL);
            out->boolean = w < 3;
            return 0;
        }
    }
    return -1;
}

const char YAML_CORE_TAG_PREFIX[] = "tag:yaml.org,2002:";

int yaml_resolve_tagged(const char *tag, const char *s, size_t n, scalar_value *out)
{
    size_t prefix = sizeof YAML_CORE_TAG_PREFIX - 1;
    if (strncmp(tag, YAML_CORE_TAG_PREFIX, prefix) != 0)
        return -1;
    const char *name = tag + prefix;
    if (strcmp(name, "str") == 0) {
        *out = make_value(SCALAR_STRING);
        return 0;
    }
    if (strcmp(name, "null") == 0) {
        *out = make_value(SCALAR_NULL); /* PyYAML ignores the text */
        return 0;
    }
    if (strcmp(name, "bool") == 0)
        return tagged_bool(s, n, out);
    if (strcmp(name, "int") == 0) {
        if (!matches_int(s, n))
            return -1;
        *out = int_value(s, n);
        return out->type == SCALAR_INT || out->type == SCALAR_FLOAT ? 0 : -1;
    }
    if (strcmp(name, "float") == 0)
        return n == 0 ? -1 : float_value(s, n, out);
    return -1;
}
