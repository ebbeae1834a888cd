/* balance.h: the pipeline balancer. How many body layers each stage and chunk
 * holds and how many of them use each recompute option, so that every stage
 * fits its memory and the step is shortest; exact, with a proof of optimality
 * or of infeasibility. Knows no Lua; prices nothing itself (the caller gives
 * each layer's bytes and seconds). */
#ifndef NDLUA_BALANCE_H
#define NDLUA_BALANCE_H

#include "core/run.h"
#include "balance_problem.h"
#include "balance_solvers.h"

/* Solves p into out (allocated here; bal_plan_free releases it). 0 on success
 * (feasible or proved infeasible), −1 on bad arguments or out of memory. */
int bal_solve(const bal_problem *p, bal_plan *out);
void bal_plan_free(bal_plan *out);

/* The step of a plan's stage times as timing.c prices it is a·Σ T + b·max T;
 * gives a and b for r's schedule, chunks and micro-batches at pp stages;
 * 0, or −1 out of memory. */
int bal_step_coeffs(const run_t *r, int64_t pp, double *a, double *b);

/* The objective and per-stage memory of a given plan (count as in bal_plan),
 * by p's rules; returns 0 when every cell's rules hold and every stage fits,
 * else 1 (the values are still filled). For checking plans from elsewhere. */
int bal_evaluate(const bal_problem *p, const int *count, double *objective, double *stage_time, double *stage_mem);
/* The same with, of count, those offloaded (offload, laid out as count; with
 * nkinds > 0 both per kind as kind_count); −1 out of memory. */
int bal_evaluate_offload(const bal_problem *p, const int *count, const int *offload, double *objective,
                         double *stage_time, double *stage_mem);

#endif
