/* lnd_init.c: registers nd.core, the C functions and types the nd Lua module is built on (as Lua's linit.c opens its libraries). */
#include "lnd_init.h"

#include "core/derive.h"
#include "bridge/chunks.h"
#include "bridge/docmeta.h"
#include "bridge/file_write.h"
#include "bridge/fs.h"
#include "bridge/json_bridge.h"
#include "core/nd_limits.h"
#include "bridge/numfmt.h"
#include "search/search.h"
#include "bridge/yaml_bridge.h"
#include "bridge/luautil.h"
#include "lnd_balance.h"
#include "lnd_estimate.h"
#include "lnd_model.h"
#include "lnd_run.h"
#include "lnd_search.h"
#include "lua_fields.h"

#ifndef NDLUA_VERSION
#define NDLUA_VERSION "0.0.0"
#endif

/* fail(message | error table): ends the script with the message and exit status 2. */
static int nd_fail(lua_State *L)
{
    if (lua_istable(L, 1)) {
        lua_settop(L, 1);
        lua_pushboolean(L, 1);
        lua_setfield(L, 1, "bad_input");
        return lua_error(L);
    }
    return nd_bad_input(L, "%s", luaL_checkstring(L, 1));
}

/* float_text(x): x as the CSV writes a float, the first of %.15g, %.16g, %.17g that reads back (numfmt_g). */
static int nd_float_text(lua_State *L)
{
    char buf[32];
    lua_pushstring(L, numfmt_g(luaL_checknumber(L, 1), buf, sizeof buf));
    return 1;
}

/* isnull(v): whether v is nd.null. */
static int nd_isnull(lua_State *L)
{
    lua_pushboolean(L, nd_is_null(L, 1));
    return 1;
}

static const luaL_Reg yaml_functions[] = {
    {"load", yaml_lua_load}, {"decode", yaml_lua_decode}, {"encode", yaml_lua_encode},
    {"dump", yaml_lua_dump}, {"keys", docmeta_lua_keys},  {"where", docmeta_lua_where}, {NULL, NULL},
};
static const luaL_Reg json_functions[] = {
    {"load", json_lua_load},      {"decode", json_lua_decode}, {"encode", json_lua_encode},
    {"array", docmeta_lua_array}, {"keys", docmeta_lua_keys},  {NULL, NULL},
};
static const luaL_Reg core_functions[] = {
    {"fail", nd_fail},                    {"isnull", nd_isnull},              {"keys", docmeta_lua_keys},
    {"where", docmeta_lua_where},         {"array", docmeta_lua_array},       {"model", lnd_model_new},
    {"run", lnd_run_new},                 {"estimate", lnd_estimate},         {"layout", lnd_layout},
    {"time_estimate", lnd_time_estimate}, {"time_params", lnd_time_params}, {"activation_split", lnd_activation_split},
    {"write_file", nd_lua_write_file},    {"file_id", nd_lua_file_id},        {"list_dir", nd_lua_list_dir},
    {"mkdir_p", nd_lua_mkdir_p},          {"isatty", nd_lua_isatty},          {"float_text", nd_float_text},
    {"compiled", chunks_lua_compiled},    {"model_bounds", lnd_model_bounds}, {"run_bounds", lnd_run_bounds},
    {"loadfile", chunks_lua_loadfile},    {"allocated_with_offset", lnd_allocated_with_offset},
    {NULL, NULL},
};

/* Pushes nd.core.limits, the bounds of src/core/nd_limits.h as Lua integers. */
static void push_limits(lua_State *L)
{
    lua_createtable(L, 0, 8);
    field_set_int(L, "devices", ND_MAX_DEVICES);
    field_set_int(L, "vpp", ND_MAX_VPP);
    field_set_int(L, "layers", ND_MAX_LAYERS);
    field_set_int(L, "batch", ND_MAX_BATCH);
    field_set_int(L, "global_batch", ND_MAX_GLOBAL_BATCH);
    field_set_int(L, "threads", ND_MAX_THREADS);
    field_set_int(L, "top_keys", SEARCH_TOP_KEYS);
    field_set_int(L, "device_memory", ND_MAX_DEVICE_MEMORY);
}

int luaopen_nd_core(lua_State *L)
{
    docmeta_open(L);
    luaL_newlib(L, core_functions);
    luaL_setfuncs(L, lnd_search_functions, 0);
    luaL_setfuncs(L, lnd_balance_functions, 0);
    lnd_open_search(L);
    lua_createtable(L, 0, 2); /* nd.core.types: the metatables; lua/nd/model.lua and run.lua add to them */
    lnd_open_model(L);
    lua_setfield(L, -2, "model");
    lnd_open_run(L);
    lua_setfield(L, -2, "run");
    lua_setfield(L, -2, "types");
    luaL_newlib(L, yaml_functions);
    lua_setfield(L, -2, "yaml");
    luaL_newlib(L, json_functions);
    lua_setfield(L, -2, "json");
    nd_push_null(L);
    lua_setfield(L, -2, "null");
    field_set_string(L, "version", NDLUA_VERSION);
    push_limits(L);
    lua_setfield(L, -2, "limits");
    lua_createtable(L, 0, 2);
    field_set_int(L, "device_memory", ND_DEFAULT_DEVICE_MEMORY);
    lnd_push_family_defaults(L);
    lua_setfield(L, -2, "family");
    lua_setfield(L, -2, "defaults");
    return 1;
}

int lnd_preload(lua_State *L)
{
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_nd_core);
    lua_setfield(L, -2, "nd.core");
    lua_pop(L, 1);
    return 0;
}
