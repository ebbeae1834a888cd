/* search_sort.c: ordering a search's fitting candidates by named keys.
 *
 * Kept candidates come first, then the keys in turn (a "-" before a name
 * sorts descending), then the order the loop nest found them in, so the
 * sort is stable and its result does not depend on how it runs. The key
 * values are worked out once a candidate into a table (MFU and throughput
 * follow from the step, src/search/candidate.c search_candidate_time); 4-byte indices
 * are merge-sorted over it, and the records move once, at the end.
 *
 * A search bounded to its top candidates keeps them, as it prices, in a
 * heap whose root is the one that ranks last, by the same order. */
#include "search_sort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The value of top key `key` of c: its step or peak, negated for a descending key. */
static double top_value(const candidate *c, int key)
{
    double v = (key < 0 ? -key : key) == TOP_STEP ? c->time.step : c->peak;
    return key < 0 ? -v : v;
}

/* Whether a ranks after b by sp's top keys: a strict order, as the sort's
 * (kept ones first, the keys, then the loop nest's order, unique to each). */
static bool ranks_after(const search_space *sp, const candidate *a, const candidate *b)
{
    if (a->kept != b->kept)
        return b->kept;
    for (int i = 0; i < sp->n_top_keys; i++) {
        double x = top_value(a, sp->top_keys[i]), y = top_value(b, sp->top_keys[i]);
        if (x != y)
            return x > y;
    }
    return a->order > b->order;
}

/* Room for one more fitting candidate, growing up to `most`; -1 when out of memory. */
static int grow(search_result *res, size_t most)
{
    if (res->n_fit < res->cap_fit)
        return 0;
    size_t cap = res->cap_fit ? 2 * res->cap_fit : 256;
    candidate *a = realloc(res->fit, (cap < most ? cap : most) * sizeof *a);
    if (a == NULL)
        return -1;
    res->fit = a;
    res->cap_fit = cap < most ? cap : most;
    return 0;
}

/* Puts c in place of the heap's root (the one that ranks last), and sifts it down. */
static void replace_last(candidate *h, size_t n, const search_space *sp, const candidate *c)
{
    size_t i = 0;
    for (size_t child = 1; child < n; i = child, child = 2 * i + 1) {
        if (child + 1 < n && ranks_after(sp, &h[child + 1], &h[child]))
            child++;
        if (!ranks_after(sp, &h[child], c))
            break;
        h[i] = h[child];
    }
    h[i] = *c;
}

int search_keep(search_result *res, const search_space *sp, const candidate *c)
{
    size_t top = sp->top > 0 ? (size_t)sp->top : SIZE_MAX;
    if (res->n_fit < top) {
        if (grow(res, top) != 0)
            return -1;
        size_t i = res->n_fit++;
        for (; sp->top > 0 && i > 0 && ranks_after(sp, c, &res->fit[(i - 1) / 2]); i = (i - 1) / 2)
            res->fit[i] = res->fit[(i - 1) / 2]; /* a bounded search sifts it up its heap */
        res->fit[i] = *c;
    } else if (ranks_after(sp, &res->fit[0], c)) {
        replace_last(res->fit, res->n_fit, sp, c);
    }
    return 0;
}

typedef struct {
    int field; /* index into KEY_NAMES */
    double sign;
} sort_key;

static const char *const KEY_NAMES[] = {"step_time_s", "peak_bytes", "nd_score", "score", "mfu",
                                        "tokens_per_s_per_device", NULL};

/* The keys the names give; -1 when one is unknown. */
static int parse_keys(const char *const *names, int n, sort_key *keys)
{
    for (int i = 0; i < n; i++) {
        const char *name = names[i];
        keys[i].sign = name[0] == '-' ? -1.0 : 1.0;
        if (name[0] == '-')
            name++;
        keys[i].field = -1;
        for (int f = 0; KEY_NAMES[f] != NULL; f++)
            if (strcmp(name, KEY_NAMES[f]) == 0)
                keys[i].field = f;
        if (keys[i].field < 0)
            return -1;
    }
    return 0;
}

typedef struct {
    const search_result *res;
    const search_space *sp;
    const run_t *base;
} sort_source;

static double key_value(const sort_source *src, const candidate *c, int field)
{
    step_time t;
    switch (field) {
    case 0: return c->time.step;
    case 1: return c->peak;
    case 2: return c->nd_score;
    case 3: return c->score;
    case 4: search_candidate_time(src->res, src->sp, src->base, c, &t); return t.mfu;
    default: search_candidate_time(src->res, src->sp, src->base, c, &t); return t.tokens_per_s_per_device;
    }
}

/* What the sort compares: whether each candidate was refused by keep()
 * (NULL when none was), its first key's signed value, and its order in the
 * nest (NULL when the records stand in that order, as a search that keeps
 * every fitting candidate leaves them: the index is then the order). A
 * 16384-device search sorts some 330 thousand candidates, 53 MiB of
 * records: the view adds 8 bytes a candidate. The later keys, read only
 * where the first ties, come from the records themselves (src). */
typedef struct {
    uint8_t *unkept;
    double *first;
    int32_t *order;
    const sort_source *src;
    const sort_key *rest;
    int n_rest;
} sort_view;

static void free_view(sort_view *v)
{
    free(v->unkept);
    free(v->first);
    free(v->order);
}

/* The view of src's candidates; -1 when out of memory. */
static int fill_view(const sort_source *src, const sort_key *keys, int nk, sort_view *v)
{
    size_t n = src->res->n_fit;
    const candidate *fit = src->res->fit;
    memset(v, 0, sizeof *v);
    v->src = src;
    v->rest = keys + 1;
    v->n_rest = nk > 1 ? nk - 1 : 0;
    bool ascending = true, refused = false;
    for (size_t i = 0; i < n; i++) {
        ascending = ascending && (i == 0 || fit[i].order > fit[i - 1].order);
        refused = refused || !fit[i].kept;
    }
    if ((nk > 0 && (v->first = malloc((n ? n : 1) * sizeof *v->first)) == NULL) ||
        (!ascending && (v->order = malloc((n ? n : 1) * sizeof *v->order)) == NULL) ||
        (refused && (v->unkept = malloc(n ? n : 1)) == NULL))
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (v->first != NULL)
            v->first[i] = keys[0].sign * key_value(src, &fit[i], keys[0].field);
        if (v->order != NULL)
            v->order[i] = fit[i].order;
        if (v->unkept != NULL)
            v->unkept[i] = fit[i].kept ? 0 : 1;
    }
    return 0;
}

static int compare_values(double a, double b) { return a < b ? -1 : a > b ? 1 : 0; }

/* Kept ones first, then the keys value by value, then the nest's order. */
static int compare(const sort_view *s, uint32_t a, uint32_t b)
{
    if (s->unkept != NULL && s->unkept[a] != s->unkept[b])
        return s->unkept[a] < s->unkept[b] ? -1 : 1;
    int by = s->first != NULL ? compare_values(s->first[a], s->first[b]) : 0;
    const candidate *fit = s->src->res->fit;
    for (int i = 0; by == 0 && i < s->n_rest; i++) {
        const sort_key *k = &s->rest[i];
        by = compare_values(k->sign * key_value(s->src, &fit[a], k->field),
                            k->sign * key_value(s->src, &fit[b], k->field));
    }
    if (by != 0)
        return by;
    if (s->order == NULL)
        return a < b ? -1 : a > b;
    return s->order[a] < s->order[b] ? -1 : s->order[a] > s->order[b];
}

/* A bottom-up merge sort of indices: stable, with no global comparator state. */
static int merge_sort_indices(const sort_view *s, uint32_t *idx, size_t n)
{
    uint32_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (tmp == NULL)
        return -1;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = compare(s, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
            while (i < mid)
                tmp[k++] = idx[i++];
            while (j < hi)
                tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, n * sizeof *idx);
    }
    free(tmp);
    return 0;
}

/* Puts v in the order idx gives (v[i] becomes the old v[idx[i]]), in place:
 * each cycle of the permutation is walked once, holding one record aside.
 * idx is consumed (each place, once filled, points at itself). */
static void apply_order(candidate *v, uint32_t *idx, size_t n)
{
    for (size_t start = 0; start < n; start++) {
        if (idx[start] == start)
            continue;
        candidate held = v[start];
        size_t at = start;
        while (idx[at] != start) {
            size_t from = idx[at];
            v[at] = v[from];
            idx[at] = (uint32_t)at;
            at = from;
        }
        v[at] = held;
        idx[at] = (uint32_t)at;
    }
}

int search_sort(search_result *res, const search_space *sp, const run_t *base, const char *const *names, int n)
{
    size_t count = res->n_fit;
    if (count > UINT32_MAX)
        return -2;
    sort_key *keys = malloc((size_t)(n > 0 ? n : 1) * sizeof *keys);
    if (keys == NULL)
        return -2;
    if (parse_keys(names, n, keys) != 0) {
        free(keys);
        return -1;
    }
    sort_source src = {res, sp, base};
    sort_view view;
    int rc = fill_view(&src, keys, n, &view) != 0 ? -2 : 0;
    uint32_t *idx = malloc((count ? count : 1) * sizeof *idx);
    if (idx == NULL)
        rc = -2;
    if (rc == 0) {
        for (size_t i = 0; i < count; i++)
            idx[i] = (uint32_t)i;
        rc = merge_sort_indices(&view, idx, count) != 0 ? -2 : 0;
    }
    free_view(&view);
    if (rc == 0)
        apply_order(res->fit, idx, count);
    free(idx);
    free(keys);
    return rc;
}
