/* search_csv.c: the lines of a search's --csv, written from the candidates' records without a Lua table between. */
#include "search_csv.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bridge/numfmt.h"

void csv_text_free(csv_text *t)
{
    free(t->text);
    memset(t, 0, sizeof *t);
}

/* Room for n more bytes (and a NUL); -1 when it cannot be had. */
static int reserve(csv_text *t, size_t n)
{
    if (t->cap - t->len > n)
        return 0;
    size_t cap = t->cap ? t->cap : 4096;
    while (cap - t->len <= n) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    char *text = realloc(t->text, cap);
    if (text == NULL)
        return -1;
    t->text = text;
    t->cap = cap;
    return 0;
}

/* Appends s[0..n); the caller reserved room. */
static void put(csv_text *t, const char *s, size_t n)
{
    memcpy(t->text + t->len, s, n);
    t->len += n;
}

/* An integer as Lua's tostring writes it ("%lld"). */
static void put_int(csv_text *t, int64_t v)
{
    char digits[24];
    size_t n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        t->text[t->len++] = '-';
    while (n > 0)
        t->text[t->len++] = digits[--n];
}

/* A number as the binding pushes it (field_push_number: a whole number
 * below 9e15 as a Lua integer) and csv.cell writes it: the integer's
 * digits, or numfmt_g's text of the float. */
static void put_number(csv_text *t, double d)
{
    if (isfinite(d) && d == floor(d) && fabs(d) < 9.0e15) {
        put_int(t, (int64_t)d);
        return;
    }
    char buf[32];
    numfmt_g(d, buf, sizeof buf);
    put(t, buf, strlen(buf));
}

/* A text cell, quoted when it holds a comma, a quote or a line break (csv.cell). */
static int put_text(csv_text *t, const char *s)
{
    size_t n = strlen(s);
    if (strpbrk(s, ",\"\n") == NULL) {
        if (reserve(t, n) != 0)
            return -1;
        put(t, s, n);
        return 0;
    }
    if (n > (SIZE_MAX - 2) / 2 || reserve(t, 2 * n + 2) != 0)
        return -1;
    t->text[t->len++] = '"';
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            t->text[t->len++] = '"';
        t->text[t->len++] = s[i];
    }
    t->text[t->len++] = '"';
    return 0;
}

/* The most one line's numbers take: 31 cells of at most 32 bytes each and their commas. */
#define LINE_ROOM 1200

static void comma(csv_text *t)
{
    t->text[t->len++] = ',';
}

/* The cell of a degree column (search_columns): the dimension's value as its form writes it
 * (a switch true or false), OP the shard it comes to (search.effective_op), the run's ETP for
 * DIM_COUNT. */
static void put_degree(csv_text *t, const candidate *c, int dim, const run_t *base, bool spans_cp)
{
    if (dim == DIM_COUNT) {
        put_int(t, base->etp);
    } else if (SEARCH_DIM_DESCS[dim].form == SHOWN_AS_SWITCH) {
        put(t, c->degree[dim] != 0 ? "true" : "false", c->degree[dim] != 0 ? 4 : 5);
    } else if (dim == DIM_OP) {
        int64_t domain = (int64_t)c->degree[DIM_DP] * (spans_cp ? c->degree[DIM_CP] : 1);
        int64_t op = c->degree[DIM_OP];
        put_int(t, op > 1 && domain % op != 0 ? domain : op);
    } else {
        put_int(t, c->degree[dim]);
    }
}

int search_csv_lines(const search_result *res, const search_space *sp, const run_t *base, bool spans_cp,
                     size_t from, size_t to, csv_text *out)
{
    int order[SEARCH_COLUMNS];
    search_columns(order);
    for (size_t i = from; i < to && i < res->n_fit; i++) {
        const candidate *c = &res->fit[i];
        step_time st;
        search_candidate_time(res, sp, base, c, &st);
        if (reserve(out, LINE_ROOM) != 0)
            return -1;
        put_int(out, (int64_t)i + 1);
        for (int k = 0; k < SEARCH_COLUMNS; k++) {
            comma(out);
            put_degree(out, c, order[k], base, spans_cp);
        }
        comma(out);
        if (put_text(out, RECOMPUTE_NAMES[c->mode]) != 0 || reserve(out, LINE_ROOM) != 0)
            return -1;
        comma(out);
        put_int(out, (int64_t)llround(c->peak));
        comma(out);
        put_int(out, c->peak_stage);
        const double before_kept[] = {st.step, st.mfu, st.tokens_per_s_per_device, c->nd_score, c->score};
        for (size_t k = 0; k < sizeof before_kept / sizeof before_kept[0]; k++) {
            comma(out);
            put_number(out, before_kept[k]);
        }
        comma(out);
        put(out, c->kept ? "true" : "false", c->kept ? 4 : 5);
        const double parts[] = {st.forward, st.backward, st.recompute, st.tp,     st.cp,
                                st.ep,      st.pp,       st.dp,        st.bubble, st.optimizer};
        for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
            comma(out);
            put_number(out, parts[k]);
        }
        out->text[out->len++] = '\n';
    }
    return 0;
}
