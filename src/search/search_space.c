/* search_space.c: the names of the search's dimensions and of its reasons to refuse a candidate. */
#include "search_space.h"

const char *const DIM_NAMES[DIM_COUNT] = {"DP", "EP", "TP", "CP", "PP", "VPP", "MB", "MBS", "SP", "OP"};
const char *const REFUSAL_NAMES[REFUSE_COUNT] = {
    "a degree out of bounds", "EP over the experts or DP x TP", "EP divisibility", "filtered out",
    "CP constraints", "global batch", "layout",
};
