/* check.h: a minimal TAP producer for ndlua's C unit tests. */
#ifndef NDLUA_CHECK_H
#define NDLUA_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_run, check_failed;

static void check_report(int ok, const char *file, int line, const char *what)
{
    check_run++;
    if (!ok)
        check_failed++;
    printf("%sok %d - %s", ok ? "" : "not ", check_run, what);
    if (!ok)
        printf("  # at %s:%d", file, line);
    printf("\n");
}

#define CHECK(cond, what) check_report((cond) != 0, __FILE__, __LINE__, (what))

#define CHECK_INT(got, want, what)                                                          \
    do {                                                                                    \
        long long g_ = (long long)(got), w_ = (long long)(want);                            \
        check_report(g_ == w_, __FILE__, __LINE__, (what));                                 \
        if (g_ != w_)                                                                       \
            printf("#   got %lld, want %lld\n", g_, w_);                                    \
    } while (0)

#define CHECK_NEAR(got, want, tol, what)                                                    \
    do {                                                                                    \
        double g_ = (double)(got), w_ = (double)(want);                                     \
        int ok_ = fabs(g_ - w_) <= (tol);                                                   \
        check_report(ok_, __FILE__, __LINE__, (what));                                      \
        if (!ok_)                                                                           \
            printf("#   got %.17g, want %.17g\n", g_, w_);                                  \
    } while (0)

#define CHECK_STR(got, want, what)                                                          \
    do {                                                                                    \
        const char *g_ = (got), *w_ = (want);                                               \
        int ok_ = g_ != NULL && strcmp(g_, w_) == 0;                                        \
        check_report(ok_, __FILE__, __LINE__, (what));                                      \
        if (!ok_)                                                                           \
            printf("#   got \"%s\", want \"%s\"\n", g_ ? g_ : "(null)", w_);                 \
    } while (0)

static int check_done(void)
{
    printf("1..%d\n", check_run);
    return check_failed ? 1 : 0;
}

#endif
