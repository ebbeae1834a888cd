/* pipeline_cell.h: what the interleaved timeline (pipeline_sim.h) and its
 * state between rounds (pipeline_sim_state.h) both read: the order and a
 * chunk's seconds on a stage. */
#ifndef NDLUA_PIPELINE_CELL_H
#define NDLUA_PIPELINE_CELL_H

typedef enum {
    PIPE_ORDER_INTERLEAVED, /* Megatron-LM's interleaved 1F1B (MindFormers' build_virtualpipeline) */
    PIPE_ORDER_LESS_MEMORY, /* its less-memory variant (MindFormers' build_virtualpipeline2) */
} pipe_order;

/* Seconds one micro-batch of a chunk takes on a stage: forward, the
 * recompute its backward reruns first, and the backward. */
typedef struct {
    double f, r, b;
} pipe_cell;

#endif
