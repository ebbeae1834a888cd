/* balance_problem.h: the pipeline balancer's problem and plan, shared by
 * its two objectives (balance.c: ndlua's step; balance_sapp.c: SAPP-PPB's). */
#ifndef NDLUA_BALANCE_PROBLEM_H
#define NDLUA_BALANCE_PROBLEM_H

/* The recompute options, in the order SAPP-PPB numbers them. */
enum { BAL_OFF, BAL_SELECTIVE, BAL_COMM, BAL_BOTH, BAL_FULL, BAL_OPTIONS };

/* One kind of body layer: its static bytes, and per
 * option the activations one micro-batch keeps, its forward + backward
 * seconds and its backward seconds; `offered` has bit r set when option r may
 * be chosen. `fwd` is the forward alone (the same under every option). */
typedef struct {
    double stat, fwd;
    double act[BAL_OPTIONS], time[BAL_OPTIONS];
    unsigned offered;
    /* Offloading activations to the host (the reference's -ao; step objective
     * only): option r with bit r of offload_offered set may also run
     * offloaded, keeping (1 − offload_share) of act[r] on the device and
     * taking time[r] + offload_time[r]. */
    double offload_share, offload_time[BAL_OPTIONS];
    unsigned offload_offered;
    /* Kinds only: BAL_PIN_FIRST keeps every layer of the kind in the first
     * cell of the model order (a vision tower before the embedding, stage 0),
     * BAL_PIN_LAST in the last (MTP after the last body layer); the kind's
     * layers must then open, or close, the sequence. */
    int pin;
} bal_layer;

enum { BAL_PIN_NONE, BAL_PIN_FIRST, BAL_PIN_LAST };

/* A layer pinned to one cell (the embedding on the first, the head on the
 * last): static bytes, activations per micro-batch, forward + backward, forward. */
typedef struct {
    int present;
    double stat, act, time, fwd;
} bal_pinned;

typedef enum { BAL_OBJ_STEP, BAL_OBJ_SAPP } bal_objective;

/* The problem. Cells are (chunk v, stage s), index v·stages + s. Every cell
 * holds at least one layer (a pinned one counts). */
typedef struct {
    int stages, chunks, micro;
    int body;                /* body layers to place */
    bal_layer layer;         /* every body layer, when nkinds is 0 */
    /* Layers of several kinds (step objective only): kind_of[i] (0-based, i in
     * model order, body entries) names one of kinds[nkinds]. Model order runs
     * chunk by chunk, each over the stages upward: every cell holds a
     * contiguous run of body layers, the head before them, the tail after. */
    int nkinds;
    const bal_layer *kinds;
    const int *kind_of;
    /* DualPipeV's V-shaped model order (chunks 2, step objective): chunk 0
     * runs the stages upward, chunk 1 then runs them downward, so stage s
     * holds the s-th run of chunk 0 and the (S − 1 − s)-th of chunk 1, and
     * the last stage holds the two runs that meet in the middle of the body. */
    int vshape;
    /* Kinds: every chunk start tried, the one program of balance_kinds_alike.c
     * not taken where it applies (the same plan, slower: for checking it). */
    int every_start;
    bal_pinned head, tail;   /* head on (0, 0); tail on (chunks − 1, tail_stage) */
    int tail_stage;
    double limit;            /* memory per device, in the unit of the bytes given */
    const double *inflight;  /* [cell]: micro-batches of activations the cell keeps */
    /* BAL_OBJ_STEP: step = coef_sum·Σ_s T_s + coef_max·max_s T_s, T_s the
     * stage's forward + backward seconds (bal_step_coeffs gives timing.c's). */
    double coef_sum, coef_max;
    bal_objective objective;
    int sapp_level;          /* BAL_OBJ_SAPP: the reference's -O (0, 1, 2) */
    int sapp_less_memory;    /* BAL_OBJ_SAPP: the less-memory interleaved variant */
} bal_problem;

/* The answer. feasible and optimal are 1/0; an infeasible problem names
 * bad_stage (the stage that cannot hold even its least layers with the
 * least-memory option, and bad_need, that stage's least memory), or, with
 * bad_stage −1, capacity: the most body layers the stages hold together
 * (fewer than the body), or the least they must hold (more than the body). */
typedef struct {
    int feasible, optimal;
    double objective;
    int *count;              /* [cell · BAL_OPTIONS + r]: body layers of option r */
    int *kind_count;         /* nkinds > 0: [(cell · nkinds + k) · BAL_OPTIONS + r]; else NULL */
    int *first;              /* [cell]: its first body layer in model order (0-based) */
    int *offload;            /* offloading offered: [cell · BAL_OPTIONS + r]: of count, those offloaded; else NULL */
    int *kind_offload;       /* offloading offered and nkinds > 0: as kind_count, those offloaded; else NULL */
    double *stage_time;      /* [stage]: forward + backward of the stage */
    double *stage_mem;       /* [stage]: its memory by the problem's rule */
    int bad_stage;
    double bad_need;
    int capacity;
    long explored;           /* bottleneck values tried (the proof's size); kinds: the programs run (a chunk start
                                tried is one; the one program of balance_kinds_alike.c is one) */
    long moves;              /* kinds: the moves (a stage's cells given their runs) the proof priced; else 0 */
} bal_plan;

/* Writes into opt (BAL_OPTIONS entries) the options l offers, in the order
 * above; with prune, leaves out every option another offered one equals or
 * beats in both time and activations (of two equal ones the later goes).
 * Returns how many (balance_problem.c). */
int bal_undominated_options(const bal_layer *l, int prune, int *opt);
/* The same over n choices given as arrays, offered a bit mask. */
int bal_undominated(const double *act, const double *time, unsigned offered, int n, int prune, int *opt);

/* The cell (v · stages + s) that comes j-th in p's model order. */
int bal_model_cell(const bal_problem *p, int j);

/* Kinds: the body layers pinned to the first cell (*first, the sequence's
 * opening ones) and to the last (*last, its closing ones); 0, or −1 when a
 * pinned kind's layers do not all open (or close) the sequence. */
int bal_pinned_ends(const bal_problem *p, int *first, int *last);

/* Whether any body layer of p may offload. */
int bal_offloads(const bal_problem *p);

/* Sorts opt[0..n) by l's time, fastest first (stable). */
void bal_sort_options_by_time(const bal_layer *l, int *opt, int n);

/* The pinned layers cell (chunk v, stage s) holds, head first, into out;
 * returns how many (0, 1, or 2 where one cell is both first and last). */
int bal_pinned_at(const bal_problem *p, int v, int s, const bal_pinned *out[2]);

#endif
