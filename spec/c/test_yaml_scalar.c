/* test_yaml_scalar.c: YAML 1.1 typing of plain and tagged scalars, against PyYAML.
 *
 * The reference is PyYAML's safe loader (python3-yaml 6.0): every expected
 * value below is what `yaml.safe_load("v: " + TEXT)["v"]` gives, checked with
 *   /usr/bin/python3 -c 'import yaml; print(repr(yaml.safe_load("v: 0x_1f")["v"]))'
 * The YAML 1.1 type repository (yaml.org/type/{bool,null,int,float}.html) states
 * the same rules. Where ndlua departs from PyYAML on purpose it says so. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "bridge/yaml_scalar.h"

typedef struct {
    const char *text;
    scalar_type type;
    long long integer; /* SCALAR_INT, and SCALAR_BOOL as 0/1 */
    double number;     /* SCALAR_FLOAT */
} plain_case;

static const plain_case PLAIN[] = {
    /* bool: yes/no/true/false/on/off in lower, Title and UPPER case; others are strings */
    {"yes", SCALAR_BOOL, 1, 0}, {"Yes", SCALAR_BOOL, 1, 0}, {"YES", SCALAR_BOOL, 1, 0},
    {"no", SCALAR_BOOL, 0, 0}, {"No", SCALAR_BOOL, 0, 0}, {"NO", SCALAR_BOOL, 0, 0},
    {"true", SCALAR_BOOL, 1, 0}, {"True", SCALAR_BOOL, 1, 0}, {"TRUE", SCALAR_BOOL, 1, 0},
    {"false", SCALAR_BOOL, 0, 0}, {"False", SCALAR_BOOL, 0, 0}, {"FALSE", SCALAR_BOOL, 0, 0},
    {"on", SCALAR_BOOL, 1, 0}, {"On", SCALAR_BOOL, 1, 0}, {"ON", SCALAR_BOOL, 1, 0},
    {"off", SCALAR_BOOL, 0, 0}, {"Off", SCALAR_BOOL, 0, 0}, {"OFF", SCALAR_BOOL, 0, 0},
    {"yEs", SCALAR_STRING, 0, 0}, {"oFF", SCALAR_STRING, 0, 0}, {"y", SCALAR_STRING, 0, 0},
    {"n", SCALAR_STRING, 0, 0},
    /* null: ~, null in three cases, and the empty scalar */
    {"~", SCALAR_NULL, 0, 0}, {"null", SCALAR_NULL, 0, 0}, {"Null", SCALAR_NULL, 0, 0},
    {"NULL", SCALAR_NULL, 0, 0}, {"", SCALAR_NULL, 0, 0}, {"nULL", SCALAR_STRING, 0, 0},
    /* decimal ints, with sign and '_' separators */
    {"0", SCALAR_INT, 0, 0}, {"-0", SCALAR_INT, 0, 0}, {"12", SCALAR_INT, 12, 0},
    {"+12", SCALAR_INT, 12, 0}, {"-12", SCALAR_INT, -12, 0}, {"1_000", SCALAR_INT, 1000, 0},
    {"1__0", SCALAR_INT, 10, 0}, {"1_", SCALAR_INT, 1, 0}, {"_1", SCALAR_STRING, 0, 0},
    {"-_1", SCALAR_STRING, 0, 0},
    /* hex (lower-case x only), octal (leading 0), binary (lower-case b only) */
    {"0x1F", SCALAR_INT, 31, 0}, {"0x_1f", SCALAR_INT, 31, 0}, {"-0x1f", SCALAR_INT, -31, 0},
    {"0X1F", SCALAR_STRING, 0, 0}, {"017", SCALAR_INT, 15, 0}, {"0_17", SCALAR_INT, 15, 0},
    {"0_", SCALAR_INT, 0, 0}, {"08", SCALAR_STRING, 0, 0}, {"0o17", SCALAR_STRING, 0, 0},
    {"0b101", SCALAR_INT, 5, 0}, {"-0b1_01", SCALAR_INT, -5, 0}, {"0B1", SCALAR_STRING, 0, 0},
    {"0b", SCALAR_STRING, 0, 0}, {"0x", SCALAR_STRING, 0, 0},
    /* sexagesimal ints: 1:30 = 90, 190:20:30 = 190*3600 + 20*60 + 30 = 685230 */
    {"1:30", SCALAR_INT, 90, 0}, {"190:20:30", SCALAR_INT, 685230, 0}, {"-1:30", SCALAR_INT, -90, 0},
    {"1:5:9", SCALAR_INT, 3909, 0}, {"0:30", SCALAR_STRING, 0, 0}, {"1:60", SCALAR_STRING, 0, 0},
    /* the int64 edges; PyYAML has big ints, ndlua gives the nearest float past 64 bits */
    {"9223372036854775807", SCALAR_INT, INT64_MAX, 0},
    {"-9223372036854775808", SCALAR_INT, INT64_MIN, 0},
    {"0x7fffffffffffffff", SCALAR_INT, INT64_MAX, 0},
    {"9223372036854775808", SCALAR_FLOAT, 0, 9223372036854775808.0},
    {"-9223372036854775809", SCALAR_FLOAT, 0, -9223372036854775808.0},
    {"99999999999999999999", SCALAR_FLOAT, 0, 1e20},
    {"0x8000000000000000", SCALAR_FLOAT, 0, 9223372036854775808.0},
    /* floats need a dot, and an exponent needs its sign */
    {"1.5", SCALAR_FLOAT, 0, 1.5}, {"6.0e+1", SCALAR_FLOAT, 0, 60.0}, {"1.5E+3", SCALAR_FLOAT, 0, 1500.0},
    {"1.5e-3", SCALAR_FLOAT, 0, 0.0015}, {"1.", SCALAR_FLOAT, 0, 1.0}, {"0.", SCALAR_FLOAT, 0, 0.0},
    {".5", SCALAR_FLOAT, 0, 0.5}, {"1_0.5", SCALAR_FLOAT, 0, 10.5},
    {"1_000.000_1", SCALAR_FLOAT, 0, 1000.0001}, {"1:30.5", SCALAR_FLOAT, 0, 90.5},
    {"-1:30.5", SCALAR_FLOAT, 0, -90.5},
    {"6.0e1", SCALAR_STRING, 0, 0}, {"1e5", SCALAR_STRING, 0, 0}, {"1.0e5", SCALAR_STRING, 0, 0},
    {"-.5", SCALAR_STRING, 0, 0}, {"+.5", SCALAR_STRING, 0, 0}, {"._5", SCALAR_STRING, 0, 0},
    {".e5", SCALAR_STRING, 0, 0}, {"12e", SCALAR_STRING, 0, 0},
    /* infinities and NaN, in their three spellings; no bare inf or nan, no signed nan */
    {".inf", SCALAR_FLOAT, 0, INFINITY}, {".Inf", SCALAR_FLOAT, 0, INFINITY},
    {".INF", SCALAR_FLOAT, 0, INFINITY}, {"-.inf", SCALAR_FLOAT, 0, -INFINITY},
    {"+.inf", SCALAR_FLOAT, 0, INFINITY}, {".nan", SCALAR_FLOAT, 0, NAN}, {".NaN", SCALAR_FLOAT, 0, NAN},
    {".NAN", SCALAR_FLOAT, 0, NAN}, {"-.nan", SCALAR_STRING, 0, 0}, {"inf", SCALAR_STRING, 0, 0},
    {"nan", SCALAR_STRING, 0, 0},
    /* PyYAML reads 2001-12-14 as a datetime.date; ndlua keeps it a string (Lua has no dates) */
    {"2001-12-14", SCALAR_STRING, 0, 0},
    {"hello", SCALAR_STRING, 0, 0}, {"1 2", SCALAR_STRING, 0, 0},
};

static void check_plain(const plain_case *c)
{
    scalar_value v = yaml_resolve_plain(c->text, strlen(c->text));
    char what[160];
    snprintf(what, sizeof what, "plain '%s' has the type PyYAML gives it", c->text);
    CHECK_INT(v.type, c->type, what);
    if (v.type != c->type)
        return;
    snprintf(what, sizeof what, "plain '%s' has PyYAML's value", c->text);
    if (c->type == SCALAR_INT)
        CHECK_INT(v.integer, c->integer, what);
    else if (c->type == SCALAR_BOOL)
        CHECK_INT(v.boolean, c->integer, what);
    else if (c->type == SCALAR_FLOAT && isnan(c->number))
        CHECK(isnan(v.number), what);
    else if (c->type == SCALAR_FLOAT)
        CHECK(v.number == c->number, what);
}

/* Explicit core tags, as PyYAML's constructors read the text. */
typedef struct {
    const char *tag, *text;
    int rc;
    scalar_type type;
    long long integer;
    double number;
} tagged_case;

#define TAG(name) "tag:yaml.org,2002:" name

static const tagged_case TAGGED[] = {
    {TAG("str"), "12", 0, SCALAR_STRING, 0, 0},    /* !!str 12 -> '12' */
    {TAG("str"), "yes", 0, SCALAR_STRING, 0, 0},   /* !!str yes -> 'yes' */
    {TAG("str"), "~", 0, SCALAR_STRING, 0, 0},     /* !!str ~ -> '~' */
    {TAG("int"), "12", 0, SCALAR_INT, 12, 0},      /* !!int "12" -> 12 */
    {TAG("int"), "0x10", 0, SCALAR_INT, 16, 0},    /* !!int "0x10" -> 16 */
    {TAG("int"), "1_000", 0, SCALAR_INT, 1000, 0}, /* !!int "1_000" -> 1000 */
    {TAG("int"), "-0b11", 0, SCALAR_INT, -3, 0},   /* !!int "-0b11" -> -3 */
    {TAG("int"), "1.5", -1, SCALAR_STRING, 0, 0},  /* ValueError in PyYAML */
    {TAG("int"), "", -1, SCALAR_STRING, 0, 0},     /* IndexError in PyYAML */
    {TAG("float"), "1e5", 0, SCALAR_FLOAT, 0, 100000.0}, /* Python's float() reads 1e5 */
    {TAG("float"), "1", 0, SCALAR_FLOAT, 0, 1.0},
    {TAG("float"), "1_0", 0, SCALAR_FLOAT, 0, 10.0},
    {TAG("float"), "1:30", 0, SCALAR_FLOAT, 0, 90.0},
    {TAG("float"), "inf", 0, SCALAR_FLOAT, 0, INFINITY},
    {TAG("float"), "-Infinity", 0, SCALAR_FLOAT, 0, -INFINITY},
    {TAG("float"), "0x10", -1, SCALAR_FLOAT, 0, 0}, /* float('0x10') is a ValueError */
    {TAG("float"), "1e", -1, SCALAR_FLOAT, 0, 0},
    {TAG("bool"), "YeS", 0, SCALAR_BOOL, 1, 0},    /* PyYAML lower-cases the text */
    {TAG("bool"), "OFF", 0, SCALAR_BOOL, 0, 0},
    {TAG("bool"), "maybe", -1, SCALAR_STRING, 0, 0},
    {TAG("null"), "foo", 0, SCALAR_NULL, 0, 0},    /* PyYAML ignores the text */
    {TAG("timestamp"), "2001-01-01", -1, SCALAR_STRING, 0, 0},
    {"!foo", "bar", -1, SCALAR_STRING, 0, 0},
};

static void check_tagged(const tagged_case *c)
{
    scalar_value v = {SCALAR_STRING, 0, 0, 0, NULL};
    int rc = yaml_resolve_tagged(c->tag, c->text, strlen(c->text), &v);
    char what[160];
    snprintf(what, sizeof what, "%s '%s' is %s", c->tag, c->text, c->rc == 0 ? "read" : "refused");
    CHECK_INT(rc, c->rc, what);
    if (rc != 0 || c->rc != 0)
        return;
    snprintf(what, sizeof what, "%s '%s' has PyYAML's type and value", c->tag, c->text);
    if (c->type == SCALAR_FLOAT)
        CHECK(v.type == SCALAR_FLOAT && v.number == c->number, what);
    else if (c->type == SCALAR_INT)
        CHECK(v.type == SCALAR_INT && v.integer == c->integer, what);
    else if (c->type == SCALAR_BOOL)
        CHECK(v.type == SCALAR_BOOL && v.boolean == c->integer, what);
    else
        CHECK_INT(v.type, c->type, what);
}

/* Texts that match the int rule but have no digits: PyYAML raises ValueError. */
static void check_errors(void)
{
    const char *texts[] = {"0x_", "0b_", "-0x__"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        scalar_value v = yaml_resolve_plain(texts[i], strlen(texts[i]));
        char what[96];
        snprintf(what, sizeof what, "plain '%s' is an error, as in PyYAML", texts[i]);
        CHECK(v.type == SCALAR_ERROR && v.error != NULL && strstr(v.error, "digits") != NULL, what);
    }
}

/* A long scalar has no length limit (no fixed buffer behind the typing). */
static void check_long_texts(void)
{
    char text[1200];
    memset(text, '0', sizeof text - 1);
    text[0] = '1';
    text[1] = '.';
    text[sizeof text - 1] = '\0';
    scalar_value v = yaml_resolve_plain(text, strlen(text));
    CHECK(v.type == SCALAR_FLOAT && v.number == 1.0, "a 1199-char float 1.000... reads as 1.0");
    memset(text, '1', 300);
    text[300] = '\0';
    v = yaml_resolve_plain(text, strlen(text));
    CHECK(v.type == SCALAR_FLOAT && v.number == 1.1111111111111112e299, /* float(int("1" * 300)) */
          "a 300-digit int becomes the nearest float, 1.1111111111111112e+299");
    memset(text, '9', 400);
    text[400] = '\0';
    v = yaml_resolve_plain(text, strlen(text));
    CHECK(v.type == SCALAR_FLOAT && isinf(v.number), "a 400-digit int overflows to inf as strtod does");
}

/* Which strings the emitter may write plain: those PyYAML reads back as the
 * same string. Timestamps are quoted, since PyYAML would read a date. */
static void check_plain_is_string(void)
{
    const char *plain[] = {"hello", "1e5", "yEs", "0o17", "2001-1-1", "a b", "-.nan"};
    const char *quoted[] = {"yes", "ON", "~", "null", "12", "0x1f", "1:30", "1.5", ".inf", "",
                            "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10",
                            "2001-1-1 1:02:03 Z", "<<", "=", "0x_"};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        char what[96];
        snprintf(what, sizeof what, "'%s' may be written plain", plain[i]);
        CHECK(yaml_plain_is_string(plain[i], strlen(plain[i])), what);
    }
    for (size_t i = 0; i < sizeof quoted / sizeof quoted[0]; i++) {
        char what[96];
        snprintf(what, sizeof what, "'%s' must be quoted", quoted[i]);
        CHECK(!yaml_plain_is_string(quoted[i], strlen(quoted[i])), what);
    }
}

int main(void)
{
    for (size_t i = 0; i < sizeof PLAIN / sizeof PLAIN[0]; i++)
        check_plain(&PLAIN[i]);
    for (size_t i = 0; i < sizeof TAGGED / sizeof TAGGED[0]; i++)
        check_tagged(&TAGGED[i]);
    check_errors();
    check_long_texts();
    check_plain_is_string();
    return check_done();
}
