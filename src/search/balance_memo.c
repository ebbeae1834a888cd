/* balance_memo.c: the kinds solver's remembered values by key
 * (balance_memo.h): open addressing, linear probing, doubled at half full. */
#include "balance_memo.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static size_t home(size_t key, size_t cap)
{
    uint64_t x = (uint64_t)key * 0x9e3779b97f4a7c15u;
    return (size_t)(x ^ (x >> 32)) & (cap - 1);
}

int bal_memo_init(bal_memo *m)
{
    m->cap = 1024;
    m->n = 0;
    m->e = calloc(m->cap, sizeof *m->e);
    return m->e != NULL ? 0 : -1;
}

/* Twice the entries, each key moved to its new place; 0, or −1. */
static int grow(bal_memo *m)
{
    size_t cap = 2 * m->cap;
    bal_memo_entry *e = calloc(cap, sizeof *e);
    if (e == NULL)
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->e[i].key != 0) {
            size_t at = home(m->e[i].key - 1, cap);
            while (e[at].key != 0)
                at = (at + 1) & (cap - 1);
            e[at] = m->e[i];
        }
    free(m->e);
    m->e = e;
    m->cap = cap;
    return 0;
}

double *bal_memo_at(bal_memo *m, size_t key)
{
    if (2 * (m->n + 1) > m->cap && grow(m) != 0)
        return NULL;
    size_t at = home(key, m->cap);
    while (m->e[at].key != 0 && m->e[at].key != key + 1)
        at = (at + 1) & (m->cap - 1);
    if (m->e[at].key == 0) {
        m->e[at] = (bal_memo_entry){key + 1, NAN};
        m->n++;
    }
    return &m->e[at].v;
}

void bal_memo_free(bal_memo *m)
{
    free(m->e);
    m->e = NULL;
    m->cap = m->n = 0;
}
