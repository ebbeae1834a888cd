/* bytebuf.c: a byte array that grows as bytes are appended. */
#include "bytebuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int bytebuf_add(bytebuf_t *b, const void *p, size_t n)
{
    if (n == 0)
        return 0;
    if (n > b->capacity - b->size) {
        size_t capacity = b->capacity ? b->capacity : 256;
        while (capacity - b->size < n) {
            if (capacity > SIZE_MAX / 2)
                return -1;
            capacity *= 2;
        }
        unsigned char *grown = realloc(b->data, capacity);
        if (grown == NULL)
            return -1;
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->size, p, n);
    b->size += n;
    return 0;
}

void bytebuf_free(bytebuf_t *b)
{
    free(b->data);
    b->data = NULL;
    b->size = b->capacity = 0;
}
