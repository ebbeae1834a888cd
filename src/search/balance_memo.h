/* balance_memo.h: values the kinds solver remembers (a stage's least seconds
 * by what its cells hold), each under its key in a space far larger than the
 * keys asked for (S · C² for C runs numbered): an open-addressing table as
 * large as twice the keys asked for, so no memory is touched for the others. */
#ifndef NDLUA_BALANCE_MEMO_H
#define NDLUA_BALANCE_MEMO_H

#include <stddef.h>

typedef struct {
    size_t key; /* the key + 1; 0: the entry is empty */
    double v;   /* NaN until set */
} bal_memo_entry;

typedef struct {
    bal_memo_entry *e; /* [cap] */
    size_t cap;        /* a power of two, at least twice n */
    size_t n;          /* keys asked for */
} bal_memo;

/* An empty memo; 0, or −1 out of memory. */
int bal_memo_init(bal_memo *m);

/* The value under key, NaN until set; NULL where a key not asked for
 * before cannot get memory (the caller then works the value out afresh). */
double *bal_memo_at(bal_memo *m, size_t key);

void bal_memo_free(bal_memo *m);

#endif
