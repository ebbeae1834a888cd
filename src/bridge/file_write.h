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

/* The text of a file written in chunks: next() sets the next chunk (*n = 0:
 * the end) and returns 0, or -1 to give the write up (errno set); a chunk
 * stays valid until the next call. */
typedef struct {
    int (*next)(void *data, const char **chunk, size_t *n);
    void *data;
} write_source;

/* nd_write_file of the chunks src gives, written as they come. */
int nd_write_source(const char *path, const write_source *src, const char **step);

/* Makes SIGINT, SIGTERM and SIGHUP (unless ignored) remove the temporary
 * files being written before ndlua dies of the signal (a shell sees status
 * 130, 143, 129): an interrupted run leaves no FILE.tmp-XXXXXX, and removes
 * only its own. */
void nd_cleanup_on_signals(void);

/* write_file(path, text | chunks): true, or nil and "STEP: strerror".
 * chunks is a function returning the text's next string, nil or "" at the
 * end; an error in it is raised again once the write is given up. */
int nd_lua_write_file(lua_State *L);

/* file_id(path): "DEVICE:INODE" of the file path names (links followed) and
 * its kind ("file", "directory", "other": a device, a pipe...), or nil when
 * stat finds none: two paths naming one file have one id. */
int nd_lua_file_id(lua_State *L);

#endif
