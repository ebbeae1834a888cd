/* numfmt.c: round-trip formatting of floats (Python's repr, with YAML's float rules). */
#include "numfmt.h"

#include <math.h>
#include <stdint.h>
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

#if defined(__SIZEOF_INT128__)
/* numfmt_g without printf or strtod: the p significant digits printf
 * rounds d to (ties to even), found with exact integer arithmetic on d's
 * mantissa and exponent, and whether they read back as d, decided by
 * whether they lie within d's rounding interval (the reals strtod takes to
 * d). Both are exact, so the text is printf's, byte for byte; a search's
 * CSV formats some sixteen floats a row this way. Doubles whose scaled
 * values would not fit 128 bits (below about 1e-11 or above about 1e21), subnormals,
 * infinities and NaN are left to the printf path. */
__extension__ typedef unsigned __int128 u128;

/* 10^j for j <= 38 (10^38 < 2^127). */
static u128 pow10_u128(int j)
{
    u128 r = 1;
    while (j-- > 0)
        r *= 10;
    return r;
}

/* The powers of ten up to 10^17, for the digit counts of q. */
static const uint64_t POW10[] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u, 10000000000u,
    100000000000u, 1000000000000u, 10000000000000u, 100000000000000u, 1000000000000000u, 10000000000000000u,
    100000000000000000u,
};

/* 5^k for k <= 27. */
static const uint64_t POW5[] = {
    1u, 5u, 25u, 125u, 625u, 3125u, 15625u, 78125u, 390625u, 1953125u, 9765625u, 48828125u, 244140625u,
    1220703125u, 6103515625u, 30517578125u, 152587890625u, 762939453125u, 3814697265625u, 19073486328125u,
    95367431640625u, 476837158203125u, 2384185791015625u, 11920928955078125u, 59604644775390625u,
    298023223876953125u, 1490116119384765625u, 7450580596923828125u,
};

/* The scaled value x * 10^k as N / den exactly, with gap / den the scaled
 * spacing of the doubles above x (2^e * 10^k), and den < 2^116 so that 100
 * times it, and four times that, still fit; shift is den's power of two
 * when den is one (-1 otherwise). 0, or -1 where a part would not fit. */
static int scaled(uint64_t m, int e, int k, u128 *n, u128 *den, u128 *gap, int *shift)
{
    *shift = -1;
    if (k >= 0) {
        if (k > 27) /* 5^27 < 2^63: m * 5^k fits 116 bits */
            return -1;
        u128 f = POW5[k];
        int sh = e + k; /* x * 10^k = m * 5^k * 2^sh */
        if (sh >= 0) {
            if (sh > 60 || (((u128)m * f) >> (120 - sh)) != 0)
                return -1;
            *n = ((u128)m * f) << sh, *den = 1, *gap = f << sh, *shift = 0;
        } else {
            if (-sh > 115)
                return -1;
            *n = (u128)m * f, *den = (u128)1 << -sh, *gap = f, *shift = -sh;
        }
        return 0;
    }
    int j = -k;
    if (j > 30)
        return -1;
    u128 t = pow10_u128(j); /* x * 10^k = m * 2^e / 10^j */
    if (e >= 0) {
        if (e > 66)
            return -1;
        *n = (u128)m << e, *den = t, *gap = (u128)1 << e;
    } else {
        if (-e > 15 || t >= ((u128)1 << (116 + e)))
            return -1;
        *n = m, *den = t << -e, *gap = 1;
    }
    return 0;
}

/* Lays out the p digits of q (10^(p-1) <= q < 10^p) with decimal exponent
 * E as printf's "%.*g" does: trailing zeros and a bare dot dropped, the
 * exponent form when E < -4 or E >= p. Writes at most 25 bytes. */
static void lay_out_g(int negative, uint64_t q, int p, int E, char *buf)
{
    static const char PAIRS[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    char digits[20];
    int i = p;
    for (; i >= 2; i -= 2, q /= 100)
        memcpy(digits + i - 2, PAIRS + 2 * (q % 100), 2);
    if (i == 1)
        digits[0] = (char)('0' + q);
    int nd = p;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    size_t len = 0;
    if (negative)
        buf[len++] = '-';
    if (E < -4 || E >= p) {
        buf[len++] = digits[0];
        if (nd > 1) {
            buf[len++] = '.';
            memcpy(buf + len, digits + 1, (size_t)nd - 1);
            len += (size_t)nd - 1;
        }
        int a = E < 0 ? -E : E;
        buf[len++] = 'e';
        buf[len++] = E < 0 ? '-' : '+';
        if (a >= 100)
            buf[len++] = (char)('0' + a / 100);
        buf[len++] = (char)('0' + a / 10 % 10);
        buf[len++] = (char)('0' + a % 10);
    } else if (E >= 0) {
        int whole = E + 1;
        memcpy(buf + len, digits, (size_t)whole);
        len += (size_t)whole;
        if (nd > whole) {
            buf[len++] = '.';
            memcpy(buf + len, digits + whole, (size_t)(nd - whole));
            len += (size_t)(nd - whole);
        }
    } else {
        buf[len++] = '0';
        buf[len++] = '.';
        for (int i = 0; i < -E - 1; i++)
            buf[len++] = '0';
        memcpy(buf + len, digits, (size_t)nd);
        len += (size_t)nd;
    }
    buf[len] = '\0';
}

/* numfmt_g by integers: x * 10^k exactly once, for 17 digits; the 16 and
 * 15 digit roundings follow from it by dividing its integer part by 10 or
 * 100. Returns 0 with buf written, or -1 where d is left to printf. */
static int fast_g(double d, char *buf, size_t cap)
{
    double x = fabs(d);
    if (!(x >= 0x1p-1000 && x <= 0x1p+1000) || cap < 32)
        return -1;
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    uint64_t m = (bits & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1 << 52);
    int e = (int)(bits >> 52) - 1075; /* x = m * 2^e, 2^52 <= m < 2^53 (x is normal) */
    /* log10(x) lies in [(e + 52) lg 2, (e + 53) lg 2): its floor, within one,
     * is floor((e + 52) * 78913 / 2^18) (78913 / 2^18 = 0.3010301...) */
    long t = (long)(e + 52) * 78913;
    int E = (int)(t >= 0 ? t / 262144 : -((-t + 262143) / 262144));
    u128 n = 0, den = 1, gap = 1, q0 = 0;
    int found = 0, shift;
    for (int tries = 0; tries < 3 && !found; tries++) {
        if (scaled(m, e, 16 - E, &n, &den, &gap, &shift) != 0)
            return -1;
        q0 = shift >= 0 ? n >> shift : n / den;
        if (q0 >= POW10[17])
            E++;
        else if (q0 < POW10[16])
            E--;
        else
            found = 1;
    }
    if (!found)
        return -1;
    uint64_t q17 = (uint64_t)q0;
    u128 r17 = n - q0 * den;
    for (int p = 15; p <= 17; p++) {
        uint64_t unit = POW10[17 - p]; /* the p-digit value is x * 10^k / unit */
        u128 D = den * unit, r = (u128)(q17 % unit) * den + r17, diff = r;
        uint64_t q = q17 / unit;
        int above = 0;
        if (r > D - r || (r == D - r && (q & 1) != 0))
            q++, diff = D - r, above = 1;
        /* read back when within half the gap of x, a quarter below a power of two;
         * exactly half reads back as x when its mantissa is even */
        u128 twice = above || m != ((uint64_t)1 << 52) ? 2 * diff : 4 * diff;
        if (diff == 0 || twice < gap || (twice == gap && (m & 1) == 0)) {
            int Ep = E;
            if (q == POW10[p])
                q = POW10[p - 1], Ep++;
            lay_out_g(signbit(d) != 0, q, p, Ep, buf);
            return 0;
        }
    }
    return -1;
}
#endif

char *numfmt_g(double d, char *buf, size_t cap)
{
#if defined(__SIZEOF_INT128__)
    if (fast_g(d, buf, cap) == 0)
        return buf;
#endif
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
