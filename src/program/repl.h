/* repl.h: the interactive prompt of ndlua. */
#ifndef NDLUA_REPL_H
#define NDLUA_REPL_H

#include <lua.h>

/* A protected call of the function below nargs arguments; returns 0, or
 * the exit status the error it printed means. */
typedef int (*repl_call_fn)(lua_State *L, int nargs);

/* Reads lines from the terminal and runs them with nd loaded as the
 * global `nd`, until end of input. Uses readline (loaded at run time)
 * for editing and history where the system has it. Returns 0. */
int repl_run(lua_State *L, repl_call_fn call);

#endif
