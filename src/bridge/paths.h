/* paths.h: where ndlua looks for scripts and its Lua library. */
#ifndef NDLUA_PATHS_H
#define NDLUA_PATHS_H

#include <stdio.h>

#include <lua.h>

typedef struct paths paths_t;

/* Builds the search list from NDLUA_PATH, the installed share directory
 * (BINDIR/../share/ndlua) and the source tree's lua/ beside a build. */
paths_t *paths_new(const char *argv0);
void paths_free(paths_t *paths);

/* The path of the script NAME (a path, else NAME or NAME.lua in each
 * directory in turn), newly allocated; NULL when it is nowhere. */
char *paths_find_script(const paths_t *paths, const char *name);

void paths_report_not_found(FILE *out, const paths_t *paths, const char *name);
void paths_print(FILE *out, const paths_t *paths);
/* Prints the scripts on the path (*.lua of each directory, a name found
 * earlier on the path winning), each with the first sentence of its
 * opening comment. */
void paths_print_scripts(FILE *out, const paths_t *paths);

/* Prepends every directory's ?.lua and ?/init.lua to package.path. */
int paths_set_package_path(lua_State *L, const paths_t *paths);

#endif
