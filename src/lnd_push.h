/* lnd_push.h: pushing computed numbers to Lua (whole numbers as integers). */
#ifndef NDLUA_LND_PUSH_H
#define NDLUA_LND_PUSH_H

#include <lua.h>

/* Pushes d as an integer when it is whole and fits, else as a float. */
void lnd_push_number(lua_State *L, double d);
/* t[key] = d for the table on top of the stack. */
void lnd_set_number(lua_State *L, const char *key, double d);

#endif
