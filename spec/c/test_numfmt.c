/* test_numfmt.c: floats written so they read back as the same float, in Python's repr layout.
 *
 * Expected texts are Python's repr(x) (`/usr/bin/python3 -c 'print(repr(1e-05))'`),
 * except that an exponent form gets ".0" when it has no dot ("1e-05" -> "1.0e-05"),
 * because YAML 1.1 (PyYAML) reads 1e-05 as a string but 1.0e-05 as a float. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "bridge/numfmt.h"

typedef struct {
    double value;
    const char *text;
} fmt_case;

static const fmt_case CASES[] = {
    {1.0, "1.0"},                       /* repr(1.0) */
    {100.0, "100.0"},                   /* repr(100.0) */
    {-2.5, "-2.5"},
    {0.1, "0.1"},                       /* shortest, not 0.10000000000000001 */
    {1.0 / 3.0, "0.3333333333333333"},  /* repr(1/3): 16 digits */
    {2.0 / 3.0, "0.6666666666666666"},
    {0.0001, "0.0001"},                 /* repr keeps 4 leading zeros positional */
    {1e-05, "1.0e-05"},                 /* repr: 1e-05 */
    {1.5e-07, "1.5e-07"},               /* repr: 1.5e-07 */
    {3.0e-05, "3.0e-05"},               /* repr: 3e-05 */
    {1e15, "1000000000000000.0"},       /* repr stays positional up to 16 digits */
    {1e16, "1.0e+16"},                  /* repr: 1e+16 */
    {1e22, "1.0e+22"},
    {9007199254740992.0, "9007199254740992.0"}, /* 2**53 */
    {123456789.125, "123456789.125"},
    {1.7976931348623157e308, "1.7976931348623157e+308"}, /* the largest double */
    {5e-324, "5.0e-324"},               /* the smallest denormal; repr: 5e-324 */
    {0.0, "0.0"},
    {-0.0, "-0.0"},
    {INFINITY, ".inf"},                 /* YAML's spellings */
    {-INFINITY, "-.inf"},
};

int main(void)
{
    char buf[64], what[96];
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        snprintf(what, sizeof what, "numfmt_float writes %s", CASES[i].text);
        CHECK_STR(numfmt_float(CASES[i].value, buf, sizeof buf), CASES[i].text, what);
    }
    CHECK_STR(numfmt_float(NAN, buf, sizeof buf), ".nan", "numfmt_float writes NaN as .nan");

    /* Every text reads back as the same double. */
    const double samples[] = {0.1, 0.2, 0.3, 1.0 / 3.0, 2.718281828459045, 6.02214076e23, 1.602176634e-19,
                              4.35e-310, 123456.789e10, 9.999999999999999e22};
    int all = 1;
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        numfmt_float(samples[i], buf, sizeof buf);
        if (strtod(buf, NULL) != samples[i])
            all = 0, printf("# %s does not read back as %.17g\n", buf, samples[i]);
    }
    CHECK(all, "every text reads back as the double it came from");

    /* numfmt_g, the CSV's floats: the first of %.15g, %.16g, %.17g that reads
     * back. 0.1 and 1e22 read back at 15 digits; 1/3 needs 16 (Python's
     * repr, the shortest, has 16 digits: 0.3333333333333333); 0.1 + 0.2
     * needs 17 (repr: 0.30000000000000004); 2^60 = 1152921504606846976 reads
     * back from 1.152921504606847e+18 (24 away, within half its spacing of
     * 256) but not from 1.15292150460685e+18 (3024 away). */
    const struct {
        double value;
        const char *text;
    } G[] = {{0.1, "0.1"},     {1e22, "1e+22"}, {1.0 / 3.0, "0.3333333333333333"}, {0.1 + 0.2, "0.30000000000000004"},
             {0x1p60, "1.152921504606847e+18"}, {-0.0, "-0"}, {2.0, "2"}, {INFINITY, "inf"}, {NAN, "nan"}};
    for (size_t i = 0; i < sizeof G / sizeof G[0]; i++) {
        snprintf(what, sizeof what, "numfmt_g writes %s", G[i].text);
        CHECK_STR(numfmt_g(G[i].value, buf, sizeof buf), G[i].text, what);
    }

    /* numfmt_g's integer path (no printf) against printf itself: the first
     * of %.15g, %.16g, %.17g that strtod reads back, over doubles of every
     * magnitude the integer path takes and beyond it (random mantissas and
     * exponents), the values next to powers of two and ten, halves that sit
     * exactly between two 16-digit texts (ties, which printf rounds to even),
     * and a search's sort of numbers (seconds, shares, tokens a second). */
    uint64_t seed = 0x9e3779b97f4a7c15u;
    long compared = 0, differ = 0;
    for (long i = 0; i < 400000; i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        double v;
        switch (i % 5) {
        case 0: /* any finite double between 2^-60 and 2^100 */
            v = ldexp((double)(seed >> 11) / 0x1p53 + 0.5, (int)(seed % 161) - 60);
            break;
        case 1: /* a power of two or ten, or a neighbour of one */
            v = (i / 5) % 2 ? ldexp(1.0, (int)(seed % 141) - 70) : pow(10.0, (double)(int)(seed % 41) - 20);
            v = seed % 3 == 0 ? nextafter(v, 0) : seed % 3 == 1 ? nextafter(v, INFINITY) : v;
            break;
        case 2: /* x.5 with 16 or 17 digits before the point: exact ties at %.16g, %.17g */
            v = (double)(int64_t)(seed % 4000000000000000u + 1000000000000000u) + 0.5;
            break;
        case 3: /* a ratio of small integers: seconds and shares */
            v = (double)(seed % 100000 + 1) / (double)((seed >> 20) % 9999 + 1);
            break;
        default: /* a product of a share and a rate: tokens a second */
            v = ((double)(seed % 1000003) / 1000003.0) * 5199.304561180798 * (double)((seed >> 30) % 97 + 1);
        }
        if (seed & 1)
            v = -v;
        char want[40];
        for (int precision = 15; precision <= 17; precision++) {
            snprintf(want, sizeof want, "%.*g", precision, v);
            if (strtod(want, NULL) == v)
                break;
        }
        numfmt_g(v, buf, sizeof buf);
        compared++;
        if (strcmp(buf, want) != 0 && differ++ < 5)
            printf("# numfmt_g(%a) = %s, printf: %s\n", v, buf, want);
    }
    snprintf(what, sizeof what, "numfmt_g writes printf's text for %ld doubles", compared);
    CHECK_INT(differ, 0, what);

    /* A small buffer gets a truncated, terminated text and nothing past it. */
    char small[6] = {'x', 'x', 'x', 'x', 'x', 'x'};
    numfmt_float(0.3333333333333333, small, 5);
    CHECK_STR(small, "0.33", "a 5-byte buffer holds the first 4 chars and the NUL");
    CHECK(small[5] == 'x', "nothing is written past the buffer");
    return check_done();
}
