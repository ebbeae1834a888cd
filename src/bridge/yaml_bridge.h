/* yaml_bridge.h: nd.yaml, YAML documents as Lua tables (load, decode, encode, dump). */
#ifndef NDLUA_YAML_BRIDGE_H
#define NDLUA_YAML_BRIDGE_H

#include <lua.h>

int yaml_lua_load(lua_State *L);   /* load(path) */
int yaml_lua_decode(lua_State *L); /* decode(text [, name]) */
int yaml_lua_encode(lua_State *L); /* encode(value) -> text */
int yaml_lua_dump(lua_State *L);   /* dump(value, path) */

#endif
