/* search_csv.h: a search's fitting candidates as the lines of search.lua's --csv, made in C (search_csv.c). */
#ifndef NDLUA_SEARCH_CSV_H
#define NDLUA_SEARCH_CSV_H

#include <stdbool.h>
#include <stddef.h>

#include "candidate.h"

/* Text that grows as lines are added to it. */
typedef struct {
    char *text;
    size_t len, cap;
} csv_text;

void csv_text_free(csv_text *t);

/* Appends the lines of the fitting candidates fit[from..to) of res, each
 * ending "\n", in the columns lua/nd/report/csv.lua states (csv.COLUMNS,
 * then the step's parts) and with its cells: rank, the degrees (op the
 * shard it comes to: the domain, dp or dp x cp when spans_cp, where it
 * does not divide it), recompute, peak_bytes, peak_stage, step_time_s, mfu,
 * tokens_per_s_per_device, nd_score, score, kept, forward_s ... optimizer_s.
 * A number is written as Lua writes the value the binding pushes for it: a
 * whole number below 9e15 as an integer, any other as numfmt_g writes it.
 * nd_score is read as it is (the caller scores the candidates first).
 * Returns 0, or -1 when the text cannot grow (out of memory). */
int search_csv_lines(const search_result *res, const search_space *sp, const run_t *base, bool spans_cp,
                     size_t from, size_t to, csv_text *out);

#endif
