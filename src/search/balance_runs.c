/* balance_runs.c: numbering the runs of a body by the count of each kind they
 * hold (balance_runs.h), with an open-addressing hash of the count vectors. */
#include "balance_runs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const int *prefix;
    int K;
    int *first, *len; /* [slot]: a run that holds the slot's counts (len −1: empty slot) */
    int *num;         /* [slot]: its number */
    size_t mask;
} count_hash;

static uint64_t hash_run(const count_hash *h, int b, int e)
{
    uint64_t x = 1469598103934665603u;
    for (int k = 0; k < h->K; k++) {
        x ^= (uint64_t)(h->prefix[(size_t)e * (size_t)h->K + (size_t)k] - h->prefix[(size_t)b * (size_t)h->K + (size_t)k]);
        x *= 1099511628211u;
    }
    return x ^ (x >> 29);
}

static int same_counts(const count_hash *h, int b, int e, int b2, int e2)
{
    for (int k = 0; k < h->K; k++) {
        size_t K = (size_t)h->K;
        if (h->prefix[(size_t)e * K + (size_t)k] - h->prefix[(size_t)b * K + (size_t)k] !=
            h->prefix[(size_t)e2 * K + (size_t)k] - h->prefix[(size_t)b2 * K + (size_t)k])
            return 0;
    }
    return 1;
}

/* The number of run [b, e), a new one (*count) when no run seen holds its counts. */
static int number_of(count_hash *h, int b, int e, int *count)
{
    size_t at = (size_t)hash_run(h, b, e) & h->mask;
    while (h->len[at] >= 0) {
        if (h->len[at] == e - b && same_counts(h, b, e, h->first[at], h->first[at] + h->len[at]))
            return h->num[at];
        at = (at + 1) & h->mask;
    }
    h->first[at] = b;
    h->len[at] = e - b;
    h->num[at] = (*count)++;
    return h->num[at];
}

/* The longest run from any start whose least bytes, summed from its start
 * (as bal_runs_build sums them), fit limit; stops past cap. */
static int longest_run(int N, const double *least, double limit, int cap)
{
    int span = 0;
    for (int b = 0; b < N && span <= cap; b++) {
        double sum = 0;
        int e = b;
        while (e < N && e - b <= cap && (sum += least[e]) <= limit)
            e++;
        span = e - b > span ? e - b : span;
    }
    return span;
}

int bal_runs_build(bal_runs *r, const int *prefix, int N, int K, const double *least, double limit,
                   size_t max_entries)
{
    memset(r, 0, sizeof *r);
    int cap = (int)(max_entries / ((size_t)N + 1) < (size_t)N ? max_entries / ((size_t)N + 1) : (size_t)N);
    int span = longest_run(N, least, limit, cap);
    size_t entries = ((size_t)N + 1) * ((size_t)span + 1);
    if (span > cap || entries > max_entries)
        return -1;
    size_t slots = 2;
    while (slots < 2 * entries)
        slots *= 2;
    count_hash h = {prefix, K, malloc(sizeof(int) * slots * 3), NULL, NULL, slots - 1};
    r->id = malloc(sizeof(int) * entries);
    if (h.first == NULL || r->id == NULL) {
        free(h.first);
        bal_runs_free(r);
        return -1;
    }
    h.len = h.first + slots;
    h.num = h.len + slots;
    for (size_t i = 0; i < slots; i++)
        h.len[i] = -1;
    r->N = N;
    r->span = span;
    for (int b = 0; b <= N; b++) {
        double sum = 0;
        int fits = 1;
        for (int n = 0; n <= span; n++) {
            fits = fits && b + n <= N && (n == 0 || (sum += least[b + n - 1]) <= limit);
            r->id[(size_t)b * ((size_t)span + 1) + (size_t)n] = fits ? number_of(&h, b, b + n, &r->count) : -1;
        }
    }
    free(h.first);
    return 0;
}

void bal_runs_free(bal_runs *r)
{
    free(r->id);
    memset(r, 0, sizeof *r);
}
