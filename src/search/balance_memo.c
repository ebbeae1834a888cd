/* balance_memo.c: the balancer's remembered values by key (balance_memo.h). */
#include "balance_memo.h"

#include <math.h>
#include <stdlib.h>

int bal_memo_init(bal_memo *m)
{
    m->v = NULL;
    m->cap = 0;
    return bal_states_init(&m->keys);
}

double *bal_memo_at(bal_memo *m, size_t key)
{
    int fresh, at = bal_states_slot(&m->keys, key, &fresh);
    if (at < 0)
        return NULL;
    while (at >= m->cap) { /* places past cap are unset until v grows over them */
        int cap = 2 * m->cap + 256;
        double *more = realloc(m->v, sizeof *more * (size_t)cap);
        if (more == NULL)
            return NULL;
        for (int i = m->cap; i < cap; i++)
            more[i] = NAN;
        m->v = more;
        m->cap = cap;
    }
    return &m->v[at];
}

void bal_memo_free(bal_memo *m)
{
    bal_states_free(&m->keys);
    free(m->v);
    m->v = NULL;
    m->cap = 0;
}
