/* numfmt.c: round-trip formatting of floats (Python's repr, with YAML's float rules). */
#include "numfmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *numfmt_float(double d, char *buf, size_t cap)
{
    if (isnan(d)) {
        snprintf(buf, cap, ".nan");
        return buf;
    }
    if (isinf(d)) {
        snprintf(buf, cap, d > 0 ? ".inf" : "-.inf");
        return buf;
    }
    char tmp[40];
    for (int precision = 15; precision <= 17; precision++) {
        snprintf(tmp, sizeof tmp, "%.*g", precision, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    char *e = strchr(tmp, 'e');
    if (strchr(tmp, '.') != NULL) {
        snprintf(buf, cap, "%s", tmp);
    } else if (e != NULL) {
        /* 1e+20 reads back as a string under YAML 1.1: write 1.0e+20 */
        snprintf(buf, cap, "%.*s.0%s", (int)(e - tmp), tmp, e);
    } else {
        snprintf(buf, cap, "%s.0", tmp);
    }
    return buf;
}
