/* search_space.c: the descriptors and names of the search's dimensions and of its reasons to refuse a candidate. */
#include "search_space.h"

#define DIM_DESC(n, k, a, c, l, at, ...) {#n, k, a, c, l, at},
const dim_desc SEARCH_DIM_DESCS[DIM_COUNT] = {SEARCH_DIMS(DIM_DESC)};
#define DIM_NAME(n, ...) #n,
const char *const DIM_NAMES[DIM_COUNT] = {SEARCH_DIMS(DIM_NAME)};
const char *const REFUSAL_NAMES[REFUSE_COUNT] = {
    "a degree out of bounds", "EP over the experts or DP x TP", "EP divisibility", "filtered out",
    "CP constraints", "global batch", "layout",
};
