/* json_bridge.h: nd.json, JSON documents as Lua values (load, decode, encode). */
#ifndef NDLUA_JSON_BRIDGE_H
#define NDLUA_JSON_BRIDGE_H

#include <lua.h>

int json_lua_load(lua_State *L);   /* load(path) */
int json_lua_decode(lua_State *L); /* decode(text [, name]) */
int json_lua_encode(lua_State *L); /* encode(value [, {indent = n}]) -> text */

#endif
