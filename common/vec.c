/* vec.c - arrays that grow by doubling */
#include "common/vec.h"

#include <stdint.h>
#include <stdlib.h>

void *vec_grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	size_t c = *cap ? 2 * *cap : 16;
	if (c <= n)
		c = n + 1;
	if (size && c > SIZE_MAX / size)
		return NULL;
	void *q = realloc(p, c * size);
	if (q)
		*cap = c;
	return q;
}
