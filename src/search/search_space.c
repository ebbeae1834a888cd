/* search_space.c: the descriptors and names of the search's dimensions and of its reasons to refuse a candidate. */
#include "search_space.h"

#define DIM_DESC(n, k, a, c, l, at, bound, col, width, form, line, yaml, legacy)                                        \
    {#n, k, a, c, l, at, col, width, line, SHOWN_AS_##form, yaml, legacy},
const dim_desc SEARCH_DIM_DESCS[DIM_COUNT] = {SEARCH_DIMS(DIM_DESC)};
#define DIM_NAME(n, ...) #n,
const char *const DIM_NAMES[DIM_COUNT] = {SEARCH_DIMS(DIM_NAME)};

/* Every column place within the columns, so search_columns writes inside order[] (the places
 * being the numbers 1..SEARCH_COLUMNS each once is spec/registries_spec.lua's). */
#define COLUMN_OUTSIDE(n, k, a, c, l, at, bound, col, ...) +(col < 1 || col > SEARCH_COLUMNS || col == SEARCH_ETP_COLUMN)
_Static_assert(0 SEARCH_DIMS(COLUMN_OUTSIDE) == 0, "a search dimension's column place is outside the columns");

void search_columns(int order[SEARCH_COLUMNS])
{
    order[SEARCH_ETP_COLUMN - 1] = DIM_COUNT;
    for (int d = 0; d < DIM_COUNT; d++)
        order[SEARCH_DIM_DESCS[d].column - 1] = d;
}

const char *const REFUSAL_NAMES[REFUSE_COUNT] = {
    "a degree out of bounds", "EP over the experts or DP x TP", "EP divisibility", "filtered out",
    "CP constraints", "global batch", "layout",
};
