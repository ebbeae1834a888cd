/* numfmt.c: round-trip formatting of floats (Python's repr, with YAML's float rules). */
#include "numfmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fewest significant digits that read back as d (d finite, not zero):
 * writes them to digits (NUL-terminated, no dot) and returns the decimal
 * point's position, so that d = 0.DIGITS * 10^decpt. */
static int shortest_digits(double d, char *digits, size_t cap)
{
    char tmp[40]; /* "%.16e" of a double: at most 24 chars */
    for (int precision = 0; precision <= 16; precision++) {
        snprintf(tmp, sizeof tmp, "%.*e", precision, fabs(d));
        if (strtod(tmp, NULL) == fabs(d))
            break;
    }
    char *e = strchr(tmp, 'e');
    size_t k = 0;
    for (const char *p = tmp; p < e && k + 1 < cap; p++)
        if (*p != '.')
            digits[k++] = *p;
    while (k > 1 && digits[k - 1] == '0')
        k--;
    digits[k] = '\0';
    return atoi(e + 1) + 1;
}

/* Appends n copies of c to buf at *len, within cap. */
static void put_repeat(char *buf, size_t cap, size_t *len, char c, int n)
{
    for (int i = 0; i < n && *len + 1 < cap; i++)
        buf[(*len)++] = c;
    buf[*len < cap ? *len : cap - 1] = '\0';
}

static void put_text(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
    for (size_t i = 0; i < n && *len + 1 < cap; i++)
        buf[(*len)++] = s[i];
    buf[*len < cap ? *len : cap - 1] = '\0';
}

/* Python's repr layout: positional when -4 < decpt <= 16, else d.ddde+XX. */
static void layout(char *buf, size_t cap, int negative, const char *digits, int decpt)
{
    size_t len = 0, n = strlen(digits);
    buf[0] = '\0';
    if (negative)
        put_text(buf, cap, &len, "-", 1);
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            put_text(buf, cap, &len, "0.", 2);
            put_repeat(buf, cap, &len, '0', -decpt);
            put_text(buf, cap, &len, digits, n);
        } else if ((size_t)decpt >= n) {
            put_text(buf, cap, &len, digits, n);
            put_repeat(buf, cap, &len, '0', decpt - (int)n);
            put_text(buf, cap, &len, ".0", 2);
        } else {
            put_text(buf, cap, &len, digits, (size_t)decpt);
            put_text(buf, cap, &len, ".", 1);
            put_text(buf, cap, &len, digits + decpt, n - (size_t)decpt);
        }
        return;
    }
    /* An exponent without a dot reads as a string under YAML 1.1: 1.0e+20. */
    char exponent[16];
    snprintf(exponent, sizeof exponent, "e%c%02d", decpt - 1 < 0 ? '-' : '+', abs(decpt - 1));
    put_text(buf, cap, &len, digits, 1);
    put_text(buf, cap, &len, ".", 1);
    put_text(buf, cap, &len, n > 1 ? digits + 1 : "0", n > 1 ? n - 1 : 1);
    put_text(buf, cap, &len, exponent, strlen(exponent));
}

char *numfmt_g(double d, char *buf, size_t cap)
{
    for (int precision = 15; precision <= 17; precision++) {
        snprintf(buf, cap, "%.*g", precision, d);
        if (strtod(buf, NULL) == d)
            return buf;
    }
    snprintf(buf, cap, "%.14g", d);
    return buf;
}

char *numfmt_float(double d, char *buf, size_t cap)
{
    if (cap == 0)
        return buf;
    if (isnan(d)) {
        snprintf(buf, cap, ".nan");
    } else if (isinf(d)) {
        snprintf(buf, cap, d > 0 ? ".inf" : "-.inf");
    } else if (d == 0) {
        snprintf(buf, cap, signbit(d) ? "-0.0" : "0.0");
    } else {
        char digits[24];
        int decpt = shortest_digits(d, digits, sizeof digits);
        layout(buf, cap, signbit(d) != 0, digits, decpt);
    }
    return buf;
}
