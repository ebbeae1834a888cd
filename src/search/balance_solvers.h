/* balance_solvers.h: the balancer's solvers for particular forms of its
 * problem, which bal_solve and bal_evaluate (balance.h) send problems to. */
#ifndef NDLUA_BALANCE_SOLVERS_H
#define NDLUA_BALANCE_SOLVERS_H

#include "balance_problem.h"

/* SAPP-PPB's objective and memory rule (balance_sapp.c). bal_solve_sapp
 * solves p (objective BAL_OBJ_SAPP, one or two chunks) into out, whose fields
 * the caller zeroed (bad_stage −1); 0, or −1 out of memory or a problem the
 * rule is not reproduced for. bal_evaluate_sapp: a plan's objective and
 * per-stage memory under the rule; 0 when it keeps every rule and fits, else 1. */
int bal_solve_sapp(const bal_problem *p, bal_plan *out);
int bal_evaluate_sapp(const bal_problem *p, const int *count, double *objective, double *stage_time,
                      double *stage_mem);

/* Body layers of several kinds in model order (balance_kinds.c; nkinds > 0,
 * the step objective). bal_solve_kinds allocates out's count, kind_count,
 * stage_time and stage_mem (the caller frees them) and returns 0 when solved,
 * feasible or proved not, −1 out of memory or too large; where a layer may
 * offload, also offload and kind_offload. bal_evaluate_kinds reads kind
 * counts ([(cell · nkinds + k) · BAL_OPTIONS + r]) and of them the offloaded
 * ones (kind_offload, NULL for none), keeps bal_evaluate's rules, and that
 * each cell holds as many layers of each kind as its run in model order has. */
int bal_solve_kinds(const bal_problem *p, bal_plan *out);
int bal_evaluate_kinds(const bal_problem *p, const int *kind_count, const int *kind_offload, double *objective,
                       double *stage_time, double *stage_mem);

#endif
