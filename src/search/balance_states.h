/* balance_states.h: the states a dynamic program of the balancer reaches,
 * each numbered in a space far larger than the states it reaches (a stage,
 * where each chunk stands, the layers taken), mapped to slots 0, 1, 2, ... in
 * the order first reached. What the program keeps per state then lies in
 * arrays as long as the states reached, so it touches no memory for the
 * states it never reaches. */
#ifndef NDLUA_BALANCE_STATES_H
#define NDLUA_BALANCE_STATES_H

#include <stddef.h>

typedef struct {
    size_t key; /* the state's number + 1; 0: the entry is empty */
    int slot;
} bal_state_entry;

typedef struct {
    bal_state_entry *e; /* [cap], open addressing */
    size_t cap;         /* a power of two, at least twice n */
    int n;              /* slots given */
} bal_states;

/* An empty map; 0, or −1 out of memory. */
int bal_states_init(bal_states *m);

/* The slot of state key; a state not reached before gets the next slot
 * (m->n − 1 after the call) and *fresh = 1, else *fresh = 0. −1 out of memory. */
int bal_states_slot(bal_states *m, size_t key, int *fresh);

/* The slot of state key, or −1 when it was never reached. */
int bal_states_find(const bal_states *m, size_t key);

/* Every state forgotten, the room kept. */
void bal_states_clear(bal_states *m);

void bal_states_free(bal_states *m);

#endif
