/* lnd_balance.h: the pipeline balancer's functions in nd.core (balance, balance_coeffs). */
#ifndef NDLUA_LND_BALANCE_H
#define NDLUA_LND_BALANCE_H

#include <lauxlib.h>

extern const luaL_Reg lnd_balance_functions[];

#endif
