/* numfmt.h: numbers as text that reads back as the same number and the same type. */
#ifndef NDLUA_NUMFMT_H
#define NDLUA_NUMFMT_H

#include <stddef.h>

/* The shortest decimal form of d that reads back as d, always with a dot
 * or an exponent so that it stays a float ("100.0", "1.0e+20"). Infinities
 * and NaN give ".inf", "-.inf", ".nan" (YAML's spelling). Returns buf. */
char *numfmt_float(double d, char *buf, size_t cap);

#endif
