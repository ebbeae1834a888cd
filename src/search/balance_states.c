/* balance_states.c: the balancer's map from a state's number to its slot
 * (balance_states.h): open addressing, linear probing, doubled at half full. */
#include "balance_states.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t home(const bal_states *m, size_t key)
{
    uint64_t x = (uint64_t)key * 0x9e3779b97f4a7c15u;
    return (size_t)(x ^ (x >> 32)) & (m->cap - 1);
}

int bal_states_init(bal_states *m)
{
    m->cap = 1024;
    m->n = 0;
    m->e = calloc(m->cap, sizeof *m->e);
    return m->e != NULL ? 0 : -1;
}

/* Twice the entries, every state moved to its new place; 0, or −1. */
static int grow(bal_states *m)
{
    bal_states bigger = {calloc(2 * m->cap, sizeof *m->e), 2 * m->cap, m->n};
    if (bigger.e == NULL)
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->e[i].key != 0) {
            size_t at = home(&bigger, m->e[i].key - 1);
            while (bigger.e[at].key != 0)
                at = (at + 1) & (bigger.cap - 1);
            bigger.e[at] = m->e[i];
        }
    free(m->e);
    *m = bigger;
    return 0;
}

int bal_states_slot(bal_states *m, size_t key, int *fresh)
{
    size_t at = home(m, key);
    while (m->e[at].key != 0) {
        if (m->e[at].key == key + 1) {
            *fresh = 0;
            return m->e[at].slot;
        }
        at = (at + 1) & (m->cap - 1);
    }
    if ((size_t)m->n + 1 > m->cap / 2) {
        if (grow(m) != 0)
            return -1;
        return bal_states_slot(m, key, fresh);
    }
    m->e[at] = (bal_state_entry){key + 1, m->n};
    *fresh = 1;
    return m->n++;
}

int bal_states_find(const bal_states *m, size_t key)
{
    size_t at = home(m, key);
    while (m->e[at].key != 0) {
        if (m->e[at].key == key + 1)
            return m->e[at].slot;
        at = (at + 1) & (m->cap - 1);
    }
    return -1;
}

void bal_states_clear(bal_states *m)
{
    memset(m->e, 0, sizeof *m->e * m->cap);
    m->n = 0;
}

void bal_states_free(bal_states *m)
{
    free(m->e);
    m->e = NULL;
    m->cap = 0;
    m->n = 0;
}
