/* balance_memo.h: values the balancer's programs remember (a stage's least
 * seconds by what its cells hold), each under its key in a space far larger
 * than the keys asked for: they lie in a map (balance_states.h) and an array
 * as long as the keys asked for, so no memory is touched for the others. */
#ifndef NDLUA_BALANCE_MEMO_H
#define NDLUA_BALANCE_MEMO_H

#include "balance_states.h"

#include <stddef.h>

typedef struct {
    bal_states keys; /* key → its place in v */
    double *v;       /* NaN until set */
    int cap;         /* places v has room for */
} bal_memo;

/* An empty memo; 0, or −1 out of memory. */
int bal_memo_init(bal_memo *m);

/* The value under key, NaN until set; NULL where a key not asked for
 * before cannot get memory (the caller then works the value out afresh). */
double *bal_memo_at(bal_memo *m, size_t key);

void bal_memo_free(bal_memo *m);

#endif
