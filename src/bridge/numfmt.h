/* numfmt.h: numbers as text that reads back as the same number and the same type. */
#ifndef NDLUA_NUMFMT_H
#define NDLUA_NUMFMT_H

#include <stddef.h>

/* The shortest decimal form of d that reads back as d, laid out as
 * Python's repr lays it out ("100.0", "0.0001", "1e-05", "1e+16") except
 * that an exponent form always has a dot, so that YAML 1.1 reads it as a
 * float ("1.0e-05", "1.0e+16"). Infinities and NaN give ".inf", "-.inf",
 * ".nan" (YAML's spelling). Writes at most cap bytes (32 always suffice);
 * returns buf. */
char *numfmt_float(double d, char *buf, size_t cap);

/* The first of printf's "%.15g", "%.16g", "%.17g" forms of d that reads back
 * as d (the CSV's cells: lua/nd/report/csv.lua); "%.14g" where none does
 * (NaN). Writes at most cap bytes (32 always suffice); returns buf. */
char *numfmt_g(double d, char *buf, size_t cap);

#endif
