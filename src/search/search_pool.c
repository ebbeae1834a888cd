/* search_pool.c: the outer (TP, PP) pairs of a search shared out over threads.
 *
 * Each thread takes the next pair not yet taken and runs the loops inside
 * it with its own worker (estimate, layout cache, layer prices) into that
 * pair's own result. This thread waits, and merges the pairs' results into
 * the search's in the loop nest's order as they complete: counts add up,
 * fitting candidates follow one another with their order renumbered, the
 * first keep_dropped examples of dropped candidates are kept, and the
 * lightest is the first with the lowest peak. That is what one thread
 * running the nest gives, so the result does not depend on the threads.
 * (A worker stops pricing a dropped candidate early against its own pair's
 * lightest and examples, never against another pair's: what it leaves
 * unpriced could be neither the search's lightest nor one of its first
 * examples.) */
#include "search_pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "search_sort.h"

typedef struct {
    const model_t *m;
    const run_t *base;
    const search_space *sp;
    const search_pair *pairs;
    size_t n;
    search_result *parts; /* one a pair */
    bool *finished;
    size_t next;          /* the next pair to take */
    bool stop, failed;
    pthread_mutex_t lock;
    pthread_cond_t changed;
} pool;

int search_threads(const search_space *sp, size_t n)
{
    long want = sp->threads;
    if (want <= 0) {
        want = sysconf(_SC_NPROCESSORS_ONLN);
        if (want < 1)
            want = 1;
    }
    if ((size_t)want > n)
        want = n > 0 ? (long)n : 1;
    return (int)want;
}

/* The next pair to run, or -1 when none is left (or the search stops). */
static long take_pair(pool *p)
{
    pthread_mutex_lock(&p->lock);
    long j = p->stop || p->failed || p->next >= p->n ? -1 : (long)p->next++;
    pthread_mutex_unlock(&p->lock);
    return j;
}

static void finish_pair(pool *p, long j, bool ok)
{
    pthread_mutex_lock(&p->lock);
    if (ok)
        p->finished[j] = true;
    else
        p->failed = true;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
}

static void *work(void *arg)
{
    pool *p = arg;
    search_worker *w = search_worker_new(p->m, p->base, p->sp);
    if (w == NULL) {
        finish_pair(p, 0, false);
        return NULL;
    }
    for (long j = take_pair(p); j >= 0; j = take_pair(p))
        finish_pair(p, j, search_worker_pair(w, &p->pairs[j], &p->parts[j]) == 0);
    search_worker_free(w);
    return NULL;
}

static int append(candidate **arr, size_t *n, size_t *cap, const candidate *from, size_t count)
{
    if (count == 0)
        return 0; /* from may be NULL: memcpy takes no null pointer, even for no bytes */
    if (*n + count > *cap) {
        size_t grown = *cap ? *cap : 256;
        while (grown < *n + count)
            grown *= 2;
        candidate *a = realloc(*arr, grown * sizeof *a);
        if (a == NULL)
            return -1;
        *arr = a;
        *cap = grown;
    }
    memcpy(*arr + *n, from, count * sizeof *from);
    *n += count;
    return 0;
}

/* Adds one pair's result after what res holds (its fitting candidates as
 * the search keeps them: all, or a bounded search's top). */
static int merge(search_result *res, const search_result *part, const search_space *sp)
{
    for (size_t i = 0; i < part->n_fit; i++) {
        candidate c = part->fit[i];
        c.order += (int32_t)res->fitting;
        if (search_keep(res, sp, &c) != 0)
            return -1;
    }
    int64_t keep_dropped = sp->keep_dropped;
    size_t room = keep_dropped > (int64_t)res->n_drops ? (size_t)keep_dropped - res->n_drops : 0;
    size_t take = part->n_drops < room ? part->n_drops : room;
    if (append(&res->drops, &res->n_drops, &res->cap_drops, part->drops, take) != 0)
        return -1;
    if (part->has_lightest && (!res->has_lightest || part->lightest.peak < res->lightest.peak)) {
        res->lightest = part->lightest;
        res->has_lightest = true;
    }
    res->tested += part->tested;
    for (int i = 0; i < REFUSE_COUNT; i++)
        res->refused[i] += part->refused[i];
    res->priced += part->priced;
    res->fitting += part->fitting;
    res->dropped += part->dropped;
    return 0;
}

/* Waits until pair j is finished (true), or until it never will be (false). */
static bool wait_for(pool *p, size_t j)
{
    pthread_mutex_lock(&p->lock);
    while (!p->finished[j] && !p->failed && !(p->stop && j >= p->next))
        pthread_cond_wait(&p->changed, &p->lock);
    bool ready = p->finished[j] && !p->failed;
    pthread_mutex_unlock(&p->lock);
    return ready;
}

/* Merges the pairs in order as they finish; -1 when a worker or a merge failed. */
static int collect(pool *p, search_result *res, search_progress progress, void *data)
{
    for (size_t j = 0; j < p->n && wait_for(p, j); j++) {
        int rc = merge(res, &p->parts[j], p->sp);
        search_result_free(&p->parts[j]);
        bool stop = rc == 0 && progress != NULL && progress(data, p->pairs[j].done) != 0;
        pthread_mutex_lock(&p->lock);
        p->failed = p->failed || rc != 0;
        p->stop = p->stop || stop;
        pthread_cond_broadcast(&p->changed);
        pthread_mutex_unlock(&p->lock);
    }
    return p->failed ? -1 : 0;
}

int search_pool_run(const model_t *m, const run_t *base, const search_space *sp, const search_pair *pairs, size_t n,
                    int threads, search_result *res, search_progress progress, void *progress_data)
{
    pool p = {.m = m, .base = base, .sp = sp, .pairs = pairs, .n = n};
    p.parts = calloc(n ? n : 1, sizeof *p.parts);
    p.finished = calloc(n ? n : 1, sizeof *p.finished);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    int rc = p.parts == NULL || p.finished == NULL || ids == NULL ? -1 : 0;
    int started = 0;
    if (rc == 0) {
        pthread_mutex_init(&p.lock, NULL);
        pthread_cond_init(&p.changed, NULL);
        while (started < threads && pthread_create(&ids[started], NULL, work, &p) == 0)
            started++;
        if (started == 0)
            rc = -1;
        else
            rc = collect(&p, res, progress, progress_data);
        pthread_mutex_lock(&p.lock);
        p.stop = true; /* after a failure, the others take no more pairs */
        pthread_mutex_unlock(&p.lock);
        for (int i = 0; i < started; i++)
            pthread_join(ids[i], NULL);
        pthread_cond_destroy(&p.changed);
        pthread_mutex_destroy(&p.lock);
    }
    for (size_t j = 0; p.parts != NULL && j < n; j++)
        search_result_free(&p.parts[j]);
    free(p.parts);
    free(p.finished);
    free(ids);
    return rc;
}
