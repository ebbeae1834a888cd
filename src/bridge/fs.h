/* fs.h: directory listing, directory creation and the terminal test, done in
 * C so that no Lua code spawns a shell (`ls`, `mkdir -p`, `test -t`). */
#ifndef NDLUA_FS_H
#define NDLUA_FS_H

#include <stddef.h>

#include <lua.h>

/* The entries of a directory: names[0..count), each allocated. */
typedef struct {
    char **names;
    size_t count;
} nd_dir_names;

/* Lists the entries of directory PATH, "." and ".." left out, sorted bytewise
 * (strcmp). Returns 0 with *out filled, or -1 with errno set (the directory
 * cannot be opened or read, or memory ran out) and *out empty. */
int nd_list_dir(const char *path, nd_dir_names *out);
void nd_dir_names_free(nd_dir_names *names);

/* Creates directory PATH and its missing parents (mode 0777 less the umask),
 * as `mkdir -p` does: an existing directory is success. Returns 0, or -1
 * with errno set. */
int nd_mkdir_p(const char *path);

/* list_dir(path): the names of the entries, sorted bytewise, or nil and
 * "PATH: cannot list the directory: strerror". */
int nd_lua_list_dir(lua_State *L);

/* mkdir_p(path): true, or nil and "PATH: cannot create the directory: strerror". */
int nd_lua_mkdir_p(lua_State *L);

/* isatty(fd): whether file descriptor fd (0, 1, 2...) is a terminal. */
int nd_lua_isatty(lua_State *L);

#endif
