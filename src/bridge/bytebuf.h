/* bytebuf.h: a byte array that grows as bytes are appended. */
#ifndef NDLUA_BYTEBUF_H
#define NDLUA_BYTEBUF_H

#include <stddef.h>

/* All zero is an empty array; bytebuf_free gives its memory back. */
typedef struct {
    unsigned char *data;
    size_t size, capacity;
} bytebuf_t;

/* Appends n bytes at p: 0, or -1 (the array left as it was) when the
 * memory it needs cannot be had. */
int bytebuf_add(bytebuf_t *b, const void *p, size_t n);

void bytebuf_free(bytebuf_t *b);

#endif
