/* lnd_activations.c: nd.core.activation_split, one layer kind's formula bytes per token, for the census cross-check. */
#include "lnd_activations.h"

#include <string.h>

#include <lauxlib.h>

#include "activations.h"
#include "derive.h"
#include "lnd_push.h"
#include "lnd_run.h"
#include "lnd_types.h"

const layer_kind *lnd_check_kind(lua_State *L, const model_t *m, int arg)
{
    int i = model_kind_index(m, luaL_checkstring(L, arg));
    if (i < 0)
        luaL_argerror(L, arg, "no layer kind of that name in the model");
    return &m->kinds[i];
}

static void push_split(lua_State *L, const act_split *a, double per_token)
{
    lua_createtable(L, 0, 4);
    lnd_set_number(L, "shared", a->shared);
    lnd_set_number(L, "tp", a->tp);
    lnd_set_number(L, "expert", a->expert);
    lnd_set_number(L, "per_token", per_token);
    lnd_set_number(L, "layer", a->layer);
    lnd_set_number(L, "layer_tp", a->layer_tp);
}

/* nd.core.activation_split(model, run, kind, recompute) -> the formula's bytes
 * per token of one layer, split as parallelism divides them:
 *   {saved = {shared, tp, expert, per_token}, selective = {...}}
 * `shared` is what TP does not divide (a census's `saved`), tp + expert what
 * it does (`saved_tp`); per_token is after the run's division. */
int lnd_activation_split(lua_State *L)
{
    model_t *m = lnd_check_model(L, 1);
    run_t *r = lnd_check_run(L, 2);
    const layer_kind *k = lnd_check_kind(L, m, 3);
    derived_t d;
    derive(m, r, &d);
    double seq = (double)r->seq_length;
    act_split plain = kind_activations(m, k, r, &d, NULL, seq);
    act_split sel = kind_activations(m, k, r, &d, HYPERPARALLEL_SWITCHES, seq);
    lua_createtable(L, 0, 3);
    push_split(L, &plain, act_per_token(&plain, r, &d));
    lua_setfield(L, -2, "saved");
    push_split(L, &sel, act_per_token(&sel, r, &d));
    lua_setfield(L, -2, "selective");
    act_split out = output_activations(m, r, &d);
    push_split(L, &out, out.shared / (double)d.sp + out.tp / output_tp_divisor(r, &d));
    lua_setfield(L, -2, "output");
    return 1;
}
