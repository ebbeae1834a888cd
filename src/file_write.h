/* file_write.h: writing a whole output file so that a failure is seen and leaves no half file. */
#ifndef NDLUA_FILE_WRITE_H
#define NDLUA_FILE_WRITE_H

#include <stddef.h>

#include <lua.h>

/* Writes text[0..n) to path. A regular file (or a path not there yet) is
 * written to a temporary file beside it, flushed, closed and renamed over
 * it, so a failure leaves the old file as it was; a device or a pipe
 * (/dev/stdout, /dev/full) is written in place. Every write, the flush, the
 * close and the rename are checked. Returns 0, or -1 with errno set and
 * *step naming what failed ("cannot create", "cannot write", ...). */
int nd_write_file(const char *path, const char *text, size_t n, const char **step);

/* write_file(path, text): true, or nil and "STEP: strerror". */
int nd_lua_write_file(lua_State *L);

/* file_id(path): "DEVICE:INODE" of the file path names (links followed) and
 * its kind ("file", "directory", "other": a device, a pipe...), or nil when
 * stat finds none: two paths naming one file have one id. */
int nd_lua_file_id(lua_State *L);

#endif
