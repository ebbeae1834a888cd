/* yaml_scalar.c: YAML 1.1 implicit typing of plain scalars (PyYAML's resolver rules). */
#include "yaml_scalar.h"

#include <errno.h>
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
 * A float needs its dot, and an exponent needs its sign: 1e5 is a string. */

static int equals(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(s, word, n) == 0;
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

static int is_binary(char c) { return c == '0' || c == '1'; }
static int is_octal(char c) { return c >= '0' && c <= '7'; }

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

/* Copies text without '_' into a NUL-terminated buffer; NULL if it does not fit. */
static char *strip_underscores(const char *s, size_t n, char *buf, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '_')
            continue;
        if (k + 1 >= cap)
            return NULL;
        buf[k++] = s[i];
    }
    buf[k] = '\0';
    return buf;
}

/* Sexagesimal value of "a:b:c" (digits and colons, sign stripped). */
static double sexagesimal_value(const char *digits)
{
    double value = 0;
    const char *p = digits;
    while (*p) {
        double part = strtod(p, (char **)&p);
        value = value * 60 + part;
        if (*p == ':')
            p++;
    }
    return value;
}

static scalar_value make_int_value(const char *s, size_t n)
{
    scalar_value v = {SCALAR_INT, 0, 0, 0};
    char buf[128];
    if (strip_underscores(s, n, buf, sizeof buf) == NULL) {
        v.type = SCALAR_FLOAT;
        v.number = HUGE_VAL;
        return v;
    }
    const char *p = buf;
    int negative = 0;
    if (*p == '-' || *p == '+')
        negative = *p++ == '-';
    if (strchr(p, ':') != NULL) {
        double d = sexagesimal_value(p);
        v.type = d < 9.0e18 ? SCALAR_INT : SCALAR_FLOAT;
        v.integer = (int64_t)d * (negative ? -1 : 1);
        v.number = negative ? -d : d;
        return v;
    }
    int base = 10;
    if (p[0] == '0' && p[1] == 'b')
        base = 2, p += 2;
    else if (p[0] == '0' && p[1] == 'x')
        base = 16, p += 2;
    else if (p[0] == '0' && p[1] != '\0')
        base = 8, p += 1;
    errno = 0;
    unsigned long long u = strtoull(p, NULL, base);
    unsigned long long limit = negative ? (unsigned long long)INT64_MAX + 1 : (unsigned long long)INT64_MAX;
    if (errno == ERANGE || u > limit) {
        v.type = SCALAR_FLOAT;
        v.number = negative ? -HUGE_VAL : HUGE_VAL;
        return v;
    }
    v.integer = negative ? (int64_t)(0 - u) : (int64_t)u;
    return v;
}

static scalar_value make_float_value(const char *s, size_t n)
{
    scalar_value v = {SCALAR_FLOAT, 0, 0, 0};
    if (one_of(s, n, NAN_WORDS)) {
        v.number = NAN;
        return v;
    }
    size_t i = sign_length(s, n);
    int negative = i && s[0] == '-';
    if (one_of(s + i, n - i, INF_WORDS)) {
        v.number = negative ? -INFINITY : INFINITY;
        return v;
    }
    char buf[512];
    if (strip_underscores(s + i, n - i, buf, sizeof buf) == NULL) {
        v.number = 0; /* absurdly long; strtod of a prefix would be wrong */
        v.type = SCALAR_STRING;
        return v;
    }
    double d = strchr(buf, ':') != NULL ? sexagesimal_value(buf) : strtod(buf, NULL);
    v.number = negative ? -d : d;
    return v;
}

scalar_value yaml_resolve_plain(const char *s, size_t n)
{
    scalar_value v = {SCALAR_STRING, 0, 0, 0};
    if (n == 0 || one_of(s, n, NULL_WORDS)) {
        v.type = SCALAR_NULL;
    } else if (one_of(s, n, TRUE_WORDS)) {
        v.type = SCALAR_BOOL;
        v.boolean = 1;
    } else if (one_of(s, n, FALSE_WORDS)) {
        v.type = SCALAR_BOOL;
    } else if (matches_int(s, n)) {
        v = make_int_value(s, n);
    } else if (matches_float(s, n)) {
        v = make_float_value(s, n);
    }
    return v;
}

int yaml_plain_is_string(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (equals(s, n, "<<") || equals(s, n, "="))
        return 0; /* merge and value keys: keep them quoted */
    return yaml_resolve_plain(s, n).type == SCALAR_STRING;
}

static const char CORE_PREFIX[] = "tag:yaml.org,2002:";

int yaml_resolve_tagged(const char *tag, const char *s, size_t n, scalar_value *out)
{
    size_t prefix = sizeof CORE_PREFIX - 1;
    if (strncmp(tag, CORE_PREFIX, prefix) != 0)
        return -1;
    const char *name = tag + prefix;
    scalar_value v = yaml_resolve_plain(s, n);
    if (strcmp(name, "str") == 0) {
        out->type = SCALAR_STRING;
        return 0;
    }
    if (strcmp(name, "null") == 0 && v.type == SCALAR_NULL)
        return *out = v, 0;
    if (strcmp(name, "bool") == 0 && v.type == SCALAR_BOOL)
        return *out = v, 0;
    if (strcmp(name, "int") == 0 && v.type == SCALAR_INT)
        return *out = v, 0;
    if (strcmp(name, "float") == 0 && (v.type == SCALAR_FLOAT || v.type == SCALAR_INT)) {
        if (v.type == SCALAR_INT) {
            v.number = (double)v.integer;
            v.type = SCALAR_FLOAT;
        }
        return *out = v, 0;
    }
    return -1;
}
