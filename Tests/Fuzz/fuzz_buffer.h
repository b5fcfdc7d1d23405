/* A growable byte buffer the fuzz targets' encoders write into (each target wraps it in its codec's sink type). */
#ifndef FUZZ_BUFFER_H
#define FUZZ_BUFFER_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint8_t *bytes; size_t size, capacity; } buffer;

/* Appends size bytes; 0 on success, 1 when memory ran out (the buffer is then unchanged). */
static int buffer_append(buffer *out, const uint8_t *data, size_t size) {
    if (out->size + size > out->capacity) {
        size_t capacity = (out->size + size) * 2;
        uint8_t *grown = realloc(out->bytes, capacity);
        if (!grown) return 1;
        out->bytes = grown;
        out->capacity = capacity;
    }
    memcpy(out->bytes + out->size, data, size);
    out->size += size;
    return 0;
}

#endif
