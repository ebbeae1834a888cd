/* test_numfmt.c: floats written so they read back as the same float, in Python's repr layout.
 *
 * Expected texts are Python's repr(x) (`/usr/bin/python3 -c 'print(repr(1e-05))'`),
 * except that an exponent form gets ".0" when it has no dot ("1e-05" -> "1.0e-05"),
 * because YAML 1.1 (PyYAML) reads 1e-05 as a string but 1.0e-05 as a float. */
#include <math.h>
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

    /* A small buffer gets a truncated, terminated text and nothing past it. */
    char small[6] = {'x', 'x', 'x', 'x', 'x', 'x'};
    numfmt_float(0.3333333333333333, small, 5);
    CHECK_STR(small, "0.33", "a 5-byte buffer holds the first 4 chars and the NUL");
    CHECK(small[5] == 'x', "nothing is written past the buffer");
    return check_done();
}
