/* vec.h - arrays that grow by doubling */
#ifndef VEC_H
#define VEC_H

#include <stddef.h>

/*
 * vec_grow - room for element n of size bytes in p, whose capacity is
 * *cap elements: p as it is when n < *cap, else reallocated to twice the
 * capacity (16 at first). Returns the array, or NULL (p untouched, still
 * to be freed) when out of memory.
 */
void *vec_grow(void *p, size_t *cap, size_t n, size_t size);

#endif
