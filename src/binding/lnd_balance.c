/* lnd_balance.c: nd.core.balance(problem) and nd.core.balance_coeffs(pipeline), the pipeline balancer for Lua. */
#include "lnd_balance.h"

#include <float.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bridge/luautil.h"
#include "lua_fields.h"
#include "search/balance.h"

/* The options by the names Lua uses, in balance.h's order. */
static const char *const option_names[BAL_OPTIONS] = {"off", "selective", "comm", "both", "full"};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The layer table at lt's offload = {share, time = {option = seconds}}, if any:
 * the options named in time may run offloaded. */
static void read_offload(lua_State *L, int lt, const char *name, bal_layer *l)
{
    int type = lua_getfield(L, lt, "offload");
    if (type == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s.offload.", name);
    if (type != LUA_TTABLE || lua_getfield(L, -1, "time") != LUA_TTABLE)
        nd_bad_input(L, "balance: %s.offload must be {share = 0..1, time = {option = seconds}}", name);
    int ot = lua_gettop(L);
    l->offload_share = field_number(L, ot - 1, prefix, "share", 0, 1, 0);
    snprintf(prefix, sizeof prefix, "%s.offload.time.", name);
    for (int r = 0; r < BAL_OPTIONS; r++) {
        if (!field_present(L, ot, option_names[r]))
            continue;
        if (!(l->offered & (1u << r)))
            nd_bad_input(L, "balance: %s.offload.time.%s names an option %s does not offer", name, option_names[r], name);
        l->offload_time[r] = field_number(L, ot, prefix, option_names[r], 0, DBL_MAX, 0);
        l->offload_offered |= 1u << r;
    }
    lua_pop(L, 2);
}

/* A layer table at index lt (stat, fwd, act = {option = bytes}, time = {option = seconds}; an option
 * absent from act is not offered); name is its place in messages ("layer", "kinds[2]"). */
static void read_layer_at(lua_State *L, int lt, const char *name, bal_layer *l)
{
    char prefix[48];
    snprintf(prefix, sizeof prefix, "%s.", name);
    l->stat = field_number(L, lt, prefix, "stat", 0, DBL_MAX, 0);
    l->fwd = field_number(L, lt, prefix, "fwd", 0, DBL_MAX, 0);
    lua_getfield(L, lt, "act");
    lua_getfield(L, lt, "time");
    if (!lua_istable(L, -1) || !lua_istable(L, -2))
        nd_bad_input(L, "balance: %s.act and %s.time must be tables", name, name);
    for (int r = 0; r < BAL_OPTIONS; r++) {
        if (!field_present(L, lt + 1, option_names[r]))
            continue;
        snprintf(prefix, sizeof prefix, "%s.act.", name);
        l->act[r] = field_number(L, lt + 1, prefix, option_names[r], 0, DBL_MAX, 0);
        snprintf(prefix, sizeof prefix, "%s.time.", name);
        if (!field_present(L, lt + 2, option_names[r]))
            nd_bad_input(L, "balance: %s.time.%s is missing", name, option_names[r]);
        l->time[r] = field_number(L, lt + 2, prefix, option_names[r], 0, DBL_MAX, 0);
        l->offered |= 1u << r;
    }
    if (l->offered == 0)
        nd_bad_input(L, "balance: %s.act offers no recompute option", name);
    lua_pop(L, 2);
    read_offload(L, lt, name, l);
}

static void read_layer(lua_State *L, int t, bal_layer *l)
{
    if (lua_getfield(L, t, "layer") != LUA_TTABLE)
        nd_bad_input(L, "balance: layer must be a table (or give kinds and sequence)");
    read_layer_at(L, lua_gettop(L), "layer", l);
    if (field_present(L, lua_gettop(L), "pin"))
        nd_bad_input(L, "balance: layer.pin: only a kind is pinned (kinds = {...} with sequence)");
    lua_pop(L, 1);
}

/* A kind's pin = "first" | "last" at lt (the first or the last cell of the model order), if any. */
static int read_pin(lua_State *L, int lt, const char *name)
{
    char prefix[48];
    snprintf(prefix, sizeof prefix, "balance: %s.", name);
    char *pin = field_string(L, lt, prefix, "pin", "");
    int first = pin != NULL && strcmp(pin, "first") == 0, last = pin != NULL && strcmp(pin, "last") == 0;
    int none = pin != NULL && pin[0] == '\0';
    free(pin);
    if (!first && !last && !none)
        nd_bad_input(L, "balance: %s.pin must be \"first\" (the first cell: a vision tower) or \"last\" (the last cell: "
                        "MTP)", name);
    return first ? BAL_PIN_FIRST : last ? BAL_PIN_LAST : BAL_PIN_NONE;
}

/* t.kinds (a list of layer tables) and t.sequence (the 1-based kind of each body layer in
 * model order): into userdata left on the stack (freed with it). */
static void read_kinds(lua_State *L, int t, bal_problem *p)
{
    if (lua_getfield(L, t, "layer") != LUA_TNIL)
        nd_bad_input(L, "balance: give layer or kinds, not both");
    lua_pop(L, 1);
    if (lua_getfield(L, t, "kinds") != LUA_TTABLE || lua_rawlen(L, -1) < 1 || lua_rawlen(L, -1) > 64)
        nd_bad_input(L, "balance: kinds must be a list of 1 to 64 layer tables");
    int kt = lua_gettop(L), K = (int)lua_rawlen(L, kt);
    bal_layer *kinds = lua_newuserdatauv(L, sizeof *kinds * (size_t)K, 0);
    memset(kinds, 0, sizeof *kinds * (size_t)K);
    for (int k = 0; k < K; k++) {
        char name[32];
        snprintf(name, sizeof name, "kinds[%d]", k + 1);
        if (lua_rawgeti(L, kt, k + 1) != LUA_TTABLE)
            nd_bad_input(L, "balance: %s must be a layer table", name);
        read_layer_at(L, lua_gettop(L), name, &kinds[k]);
        kinds[k].pin = read_pin(L, lua_gettop(L), name);
        lua_pop(L, 1);
    }
    if (lua_getfield(L, t, "sequence") != LUA_TTABLE)
        nd_bad_input(L, "balance: sequence must be a list of kind numbers (1 to %d), one per body layer", K);
    int st = lua_gettop(L);
    lua_Unsigned n = lua_rawlen(L, st);
    if (n > (1u << 20))
        nd_bad_input(L, "balance: sequence holds more than %d layers", 1 << 20);
    if (field_present(L, t, "body") && (lua_Unsigned)p->body != n)
        nd_bad_input(L, "balance: body is %d but sequence lists %d layers", p->body, (int)n);
    int *kind_of = lua_newuserdatauv(L, sizeof(int) * ((size_t)n + 1), 0);
    for (lua_Unsigned i = 0; i < n; i++) {
        lua_rawgeti(L, st, (lua_Integer)i + 1);
        int ok;
        lua_Integer k = lua_tointegerx(L, -1, &ok);
        if (!ok || k < 1 || k > K)
            nd_bad_input(L, "balance: sequence[%d] must be a kind number from 1 to %d", (int)i + 1, K);
        kind_of[i] = (int)k - 1;
        lua_pop(L, 1);
    }
    lua_remove(L, st);
    lua_remove(L, kt);
    p->nkinds = K;
    p->kinds = kinds;
    p->kind_of = kind_of;
    p->body = (int)n;
    int first, last;
    if (bal_pinned_ends(p, &first, &last) != 0)
        nd_bad_input(L, "balance: the layers of a kind pinned first must open the sequence, and those pinned last close it");
}

static void read_pinned(lua_State *L, int t, const char *key, bal_pinned *p)
{
    int type = lua_getfield(L, t, key);
    if (type == LUA_TTABLE) {
        int pt = lua_gettop(L);
        char prefix[16];
        snprintf(prefix, sizeof prefix, "%s.", key);
        p->present = 1;
        p->stat = field_number(L, pt, prefix, "stat", 0, DBL_MAX, 0);
        p->act = field_number(L, pt, prefix, "act", 0, DBL_MAX, 0);
        p->time = field_number(L, pt, prefix, "time", 0, DBL_MAX, 0);
        p->fwd = field_number(L, pt, prefix, "fwd", 0, DBL_MAX, 0);
    } else if (type != LUA_TNIL) {
        nd_bad_input(L, "balance: %s must be a table", key);
    }
    lua_pop(L, 1);
}

/* Pushes {option = n} of the options offered, from n[r]. */
static void push_options(lua_State *L, const int *n, unsigned offered)
{
    lua_createtable(L, 0, BAL_OPTIONS);
    for (int r = 0; r < BAL_OPTIONS; r++)
        if (offered & (1u << r))
            field_set_int(L, option_names[r], n[r]);
}

/* Pushes cells[stage][chunk] = {option = n} from count ([cell · BAL_OPTIONS + r]). */
static void push_cells(lua_State *L, const bal_problem *p, const int *count, unsigned offered)
{
    lua_createtable(L, p->stages, 0);
    for (int s = 0; s < p->stages; s++) {
        lua_createtable(L, p->chunks, 0);
        for (int v = 0; v < p->chunks; v++) {
            push_options(L, count + (size_t)(v * p->stages + s) * BAL_OPTIONS, offered);
            lua_rawseti(L, -2, v + 1);
        }
        lua_rawseti(L, -2, s + 1);
    }
}

/* Pushes t[stage][chunk][kind] = {option = n} from n ([(cell · nkinds + k) · BAL_OPTIONS + r]),
 * the options each kind offers (with offloaded, those it may offload). */
static void push_kind_cells(lua_State *L, const bal_problem *p, const int *n, int offloaded)
{
    lua_createtable(L, p->stages, 0);
    for (int s = 0; s < p->stages; s++) {
        lua_createtable(L, p->chunks, 0);
        for (int v = 0; v < p->chunks; v++) {
            lua_createtable(L, p->nkinds, 0);
            for (int k = 0; k < p->nkinds; k++) {
                const bal_layer *l = &p->kinds[k];
                push_options(L, n + ((size_t)(v * p->stages + s) * (size_t)p->nkinds + (size_t)k) * BAL_OPTIONS,
                             offloaded ? l->offload_offered : l->offered);
                lua_rawseti(L, -2, k + 1);
            }
            lua_rawseti(L, -2, v + 1);
        }
        lua_rawseti(L, -2, s + 1);
    }
}

/* Pushes the plan as a table: feasible, optimal, objective, cells[stage][chunk] = {option = n},
 * with kinds kind_cells[stage][chunk][kind] = {option = n}; where layers may offload, offload[stage][chunk]
 * = {option = n} (of cells, those offloaded; with kinds also kind_offload); runs[stage][chunk] = {first, count} (body
 * layers in model order, 1-based); stage_time, stage_mem, bad_stage (1-based) / bad_need, capacity
 * (−1: the stages fit apart but no split in model order fits them all), explored, solve_s; where the
 * kinds solver ran, moves (the moves of a stage its proof priced). */
static void push_plan(lua_State *L, const bal_problem *p, const bal_plan *pl, double solve_s)
{
    lua_createtable(L, 0, 10);
    field_set_bool(L, "feasible", pl->feasible);
    field_set_bool(L, "optimal", pl->optimal);
    field_set_number(L, "solve_s", solve_s);
    field_set_int(L, "explored", pl->explored);
    if (pl->moves > 0)
        field_set_int(L, "moves", pl->moves);
    if (!pl->feasible) {
        if (pl->bad_stage >= 0) {
            field_set_int(L, "bad_stage", pl->bad_stage + 1);
            field_set_number(L, "bad_need", pl->bad_need);
        } else {
            field_set_int(L, "capacity", pl->capacity);
        }
        return;
    }
    field_set_number(L, "objective", pl->objective);
    unsigned offered = p->nkinds == 0 ? p->layer.offered : 0, offloaded = p->nkinds == 0 ? p->layer.offload_offered : 0;
    for (int k = 0; k < p->nkinds; k++) {
        offered |= p->kinds[k].offered;
        offloaded |= p->kinds[k].offload_offered;
    }
    push_cells(L, p, pl->count, offered);
    lua_setfield(L, -2, "cells");
    if (pl->offload != NULL) {
        push_cells(L, p, pl->offload, offloaded);
        lua_setfield(L, -2, "offload");
    }
    if (p->nkinds > 0) {
        push_kind_cells(L, p, pl->kind_count, 0);
        lua_setfield(L, -2, "kind_cells");
    }
    if (p->nkinds > 0 && pl->kind_offload != NULL) {
        push_kind_cells(L, p, pl->kind_offload, 1);
        lua_setfield(L, -2, "kind_offload");
    }
    lua_createtable(L, p->stages, 0);
    for (int s = 0; s < p->stages; s++) {
        lua_createtable(L, p->chunks, 0);
        for (int v = 0; v < p->chunks; v++) {
            int c = v * p->stages + s, held = 0;
            for (int r = 0; r < BAL_OPTIONS; r++)
                held += pl->count[c * BAL_OPTIONS + r];
            lua_createtable(L, 0, 2);
            field_set_int(L, "first", pl->first[c] + 1);
            field_set_int(L, "count", held);
            lua_rawseti(L, -2, v + 1);
        }
        lua_rawseti(L, -2, s + 1);
    }
    lua_setfield(L, -2, "runs");
    const double *rows[2] = {pl->stage_time, pl->stage_mem};
    const char *names[2] = {"stage_time", "stage_mem"};
    for (int i = 0; i < 2; i++) {
        lua_createtable(L, p->stages, 0);
        for (int s = 0; s < p->stages; s++) {
            lua_pushnumber(L, rows[i][s]);
            lua_rawseti(L, -2, s + 1);
        }
        lua_setfield(L, -2, names[i]);
    }
}

/* Reads the problem table at index 1 into p; its in-flight counts go to a
 * userdata left on the stack (freed with it). */
static void read_problem(lua_State *L, bal_problem *p)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    memset(p, 0, sizeof *p);
    p->stages = (int)field_int(L, 1, "", "stages", 1, 4096, 1, true);
    p->chunks = (int)field_int(L, 1, "", "chunks", 1, 64, 1, false);
    p->micro = (int)field_int(L, 1, "", "micro", 1, 1 << 24, 1, true);
    int has_kinds = field_present(L, 1, "kinds");
    p->body = (int)field_int(L, 1, "", "body", 0, 1 << 20, 0, !has_kinds);
    p->limit = field_number(L, 1, "", "limit", 0, DBL_MAX, 0);
    p->coef_sum = field_number(L, 1, "", "coef_sum", 0, DBL_MAX, 1);
    p->coef_max = field_number(L, 1, "", "coef_max", 0, DBL_MAX, 0);
    char *obj = field_string(L, 1, "", "objective", "step");
    int is_step = obj != NULL && strcmp(obj, "step") == 0, is_sapp = obj != NULL && strcmp(obj, "sapp") == 0;
    free(obj);
    if (!is_step && !is_sapp)
        nd_bad_input(L, "balance: objective must be \"step\" or \"sapp\"");
    p->objective = is_sapp ? BAL_OBJ_SAPP : BAL_OBJ_STEP;
    p->sapp_level = (int)field_int(L, 1, "", "sapp_level", 0, 2, 2, false);
    p->sapp_less_memory = field_bool(L, 1, "", "less_memory", false);
    if (is_sapp && p->chunks > 2)
        nd_bad_input(L, "balance: the sapp objective takes one or two chunks (the reference's rule is stated for those)");
    if (is_sapp && p->chunks == 2 && p->micro == p->stages && p->sapp_level >= 1)
        nd_bad_input(L, "balance: the sapp objective's separate bound for m = S with two chunks is not reproduced");
    if (has_kinds && is_sapp)
        nd_bad_input(L, "balance: the sapp objective takes one kind of body layer (layer), not kinds");
    char *order = field_string(L, 1, "", "order", "up");
    int up = order != NULL && strcmp(order, "up") == 0, vee = order != NULL && strcmp(order, "v") == 0;
    free(order);
    if (!up && !vee)
        nd_bad_input(L, "balance: order must be \"up\" (each chunk over the stages upward) or \"v\" (DualPipeV: "
                        "chunk 2 over them downward)");
    if (vee && (p->chunks != 2 || is_sapp))
        nd_bad_input(L, "balance: order \"v\" (DualPipeV) takes two chunks and the step objective");
    p->vshape = vee;
    p->every_start = field_bool(L, 1, "", "every_start", false);
    /* the tail follows the last body layer: on the last stage, or in the V order on the first */
    p->tail_stage = (int)field_int(L, 1, "", "tail_stage", 1, p->stages, vee ? 1 : p->stages, false) - 1;
    if (has_kinds)
        read_kinds(L, 1, p);
    else
        read_layer(L, 1, &p->layer);
    if (is_sapp && bal_offloads(p))
        nd_bad_input(L, "balance: the sapp objective has no offload (SAPP-PPB's rule keeps every activation)");
    read_pinned(L, 1, "head", &p->head);
    read_pinned(L, 1, "tail", &p->tail);
    size_t ncell = (size_t)p->stages * (size_t)p->chunks;
    double *inflight = lua_newuserdatauv(L, sizeof(double) * ncell, 0);
    if (lua_getfield(L, 1, "inflight") != LUA_TTABLE)
        nd_bad_input(L, "balance: inflight must be a table of stages");
    for (int s = 0; s < p->stages; s++) {
        if (lua_rawgeti(L, -1, s + 1) != LUA_TTABLE)
            nd_bad_input(L, "balance: inflight[%d] must be a table of chunks", s + 1);
        for (int v = 0; v < p->chunks; v++) {
            lua_rawgeti(L, -1, v + 1);
            int ok;
            double n = lua_tonumberx(L, -1, &ok);
            if (!ok || !(n >= 0))
                nd_bad_input(L, "balance: inflight[%d][%d] must be a number >= 0", s + 1, v + 1);
            inflight[v * p->stages + s] = n;
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    p->inflight = inflight;
}

/* balance(problem): problem = {stages, chunks, micro, body, limit, layer (or kinds = {layer, ...} and
 * sequence = {kind, ...} in model order), head, tail, tail_stage (1-based),
 * inflight = {[stage] = {[chunk] = n}}, coef_sum, coef_max, objective = "step" | "sapp", sapp_level,
 * less_memory, order = "up" | "v" (DualPipeV's model order: chunk 2 over the stages downward; tail_stage
 * then defaults to 1), every_start (kinds: try every chunk start, no one-program shortcut)}. */
static int lnd_balance_solve(lua_State *L)
{
    bal_problem p;
    read_problem(L, &p);
    bal_plan pl;
    double t0 = now_s();
    if (bal_solve(&p, &pl) != 0)
        return luaL_error(L, "balance: out of memory, or a problem too large to enumerate");
    double t1 = now_s();
    push_plan(L, &p, &pl, t1 - t0);
    bal_plan_free(&pl);
    return 1;
}

/* Reads {option = n} at t into n[r]. */
static void read_counts(lua_State *L, int t, const char *prefix, int *n)
{
    for (int r = 0; r < BAL_OPTIONS; r++)
        n[r] = (int)field_int(L, t, prefix, option_names[r], 0, 1 << 20, 0, false);
}

/* balance_evaluate(problem, cells): cells[stage][chunk] = {option = n} (with kinds:
 * cells[stage][chunk][kind] = {option = n}; a cell's offload = {option = n} says how many of those
 * run offloaded); -> whether the plan keeps
 * every rule and fits, its objective, {stage_time}, {stage_mem}, by the problem's rule. */
static int lnd_balance_evaluate(lua_State *L)
{
    bal_problem p;
    read_problem(L, &p);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t ncell = (size_t)p.stages * (size_t)p.chunks, K = p.nkinds > 0 ? (size_t)p.nkinds : 1;
    size_t per = ncell * K * BAL_OPTIONS;
    int *count = lua_newuserdatauv(L, sizeof(int) * per * 2, 0), *offload = count + per;
    double *st = lua_newuserdatauv(L, sizeof(double) * (size_t)p.stages * 2, 0);
    memset(count, 0, sizeof(int) * per * 2);
    for (int s = 0; s < p.stages; s++) {
        if (lua_rawgeti(L, 2, s + 1) != LUA_TTABLE)
            return nd_bad_input(L, "balance_evaluate: cells[%d] must be a table of chunks", s + 1);
        for (int v = 0; v < p.chunks; v++) {
            if (lua_rawgeti(L, -1, v + 1) != LUA_TTABLE)
                return nd_bad_input(L, "balance_evaluate: cells[%d][%d] must be a table", s + 1, v + 1);
            for (size_t k = 0; k < K; k++) {
                if (p.nkinds > 0 && lua_rawgeti(L, -1, (lua_Integer)k + 1) != LUA_TTABLE)
                    return nd_bad_input(L, "balance_evaluate: cells[%d][%d][%d] must be a table (counts of kind %d)",
                                        s + 1, v + 1, (int)k + 1, (int)k + 1);
                int t = lua_gettop(L);
                size_t at = (((size_t)v * (size_t)p.stages + (size_t)s) * K + k) * BAL_OPTIONS;
                read_counts(L, t, "cells.", count + at);
                int type = lua_getfield(L, t, "offload");
                if (type != LUA_TNIL && type != LUA_TTABLE)
                    return nd_bad_input(L, "balance_evaluate: a cell's offload must be a table {option = n}");
                if (type == LUA_TTABLE)
                    read_counts(L, t + 1, "cells.offload.", offload + at);
                lua_pop(L, 1);
                if (p.nkinds > 0)
                    lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    double obj;
    int bad = p.objective == BAL_OBJ_SAPP ? bal_evaluate_sapp(&p, count, &obj, st, st + p.stages)
                                          : bal_evaluate_offload(&p, count, offload, &obj, st, st + p.stages);
    if (bad < 0)
        return luaL_error(L, "balance_evaluate: out of memory");
    lua_pushboolean(L, !bad);
    lua_pushnumber(L, obj);
    for (int i = 0; i < 2; i++) {
        lua_createtable(L, p.stages, 0);
        for (int s = 0; s < p.stages; s++) {
            lua_pushnumber(L, st[i * p.stages + s]);
            lua_rawseti(L, -2, s + 1);
        }
    }
    return 4;
}

/* balance_coeffs{pp, vpp, micro, schedule = "1f1b"|"gpipe"|"seqpipe"|"dualpipev", seq_split}: a, b of
 * timing.c's step a·Σ T + b·max T. */
static int lnd_balance_coeffs(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    run_t r;
    memset(&r, 0, sizeof r);
    int64_t pp = field_int(L, 1, "", "pp", 1, 4096, 1, true);
    r.pp = pp;
    r.vpp = field_int(L, 1, "", "vpp", 1, 64, 1, false);
    r.micro_batch_num = field_int(L, 1, "", "micro", 1, 1 << 24, 1, true);
    r.pipeline.seq_split = field_int(L, 1, "", "seq_split", 1, 1 << 20, 1, false);
    char *sched = field_string(L, 1, "", "schedule", "1f1b");
    const char *names[] = {"1f1b", "gpipe", "seqpipe", "dualpipev"};
    const pp_schedule kinds[] = {SCHED_1F1B, SCHED_GPIPE, SCHED_SEQPIPE, SCHED_ZERO_BUBBLE_V};
    int found = -1;
    for (int i = 0; i < 4; i++)
        if (sched != NULL && strcmp(sched, names[i]) == 0)
            found = i;
    free(sched);
    if (found < 0)
        return nd_bad_input(L, "balance_coeffs: schedule must be 1f1b, gpipe, seqpipe or dualpipev");
    r.pipeline.schedule = kinds[found];
    double a, b;
    if (bal_step_coeffs(&r, pp, &a, &b) != 0)
        return luaL_error(L, "balance_coeffs: out of memory");
    lua_pushnumber(L, a);
    lua_pushnumber(L, b);
    return 2;
}

const luaL_Reg lnd_balance_functions[] = {
    {"balance", lnd_balance_solve},
    {"balance_coeffs", lnd_balance_coeffs},
    {"balance_evaluate", lnd_balance_evaluate},
    {NULL, NULL},
};
