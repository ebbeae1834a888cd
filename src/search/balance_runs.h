/* balance_runs.h: the contiguous runs of a body of layer kinds, numbered by
 * what they hold. Two runs that hold as many layers of each kind get one
 * number, so that a cost that depends only on those counts (a stage's least
 * time in balance_kinds.c) is worked out once for every run alike. */
#ifndef NDLUA_BALANCE_RUNS_H
#define NDLUA_BALANCE_RUNS_H

#include <stddef.h>

typedef struct {
    int *id;   /* [b · (span + 1) + n]: the number of run [b, b + n), or −1 */
    int N;     /* body layers */
    int span;  /* the longest run numbered */
    int count; /* distinct numbers */
} bal_runs;

/* Numbers every run of the body (N layers, K kinds, prefix[i · K + k] the
 * layers of kind k among the first i) whose layers' least bytes (least[i]
 * for layer i, each ≥ 0) sum to no more than limit; a longer run gets −1 (it
 * cannot fit in any cell). 0, or −1 out of memory or when the table would
 * hold more than max_entries numbers (r is then left empty). */
int bal_runs_build(bal_runs *r, const int *prefix, int N, int K, const double *least, double limit,
                   size_t max_entries);

/* The number of run [b, e), or −1 when it cannot fit. */
static inline int bal_runs_id(const bal_runs *r, int b, int e)
{
    return e - b > r->span ? -1 : r->id[(size_t)b * (size_t)(r->span + 1) + (size_t)(e - b)];
}

void bal_runs_free(bal_runs *r);

#endif
