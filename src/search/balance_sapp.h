/* balance_sapp.h: the balancer under SAPP-PPB's objective and memory rule (balance_sapp.c). */
#ifndef NDLUA_BALANCE_SAPP_H
#define NDLUA_BALANCE_SAPP_H

#include "balance_problem.h"

/* Solves p (objective BAL_OBJ_SAPP, one or two chunks) into out, whose
 * fields the caller zeroed (bad_stage −1); 0, or −1 out of memory or a
 * problem the rule is not reproduced for. */
int bal_solve_sapp(const bal_problem *p, bal_plan *out);
/* A plan's objective and per-stage memory under the rule; 0 when it keeps
 * every rule and fits, else 1. */
int bal_evaluate_sapp(const bal_problem *p, const int *count, double *objective, double *stage_time,
                      double *stage_mem);

#endif
