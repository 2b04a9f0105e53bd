// SPDX-License-Identifier: GPL-2.0-or-later
/* Growing arrays by doubling. */
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

void *mem_grow_from(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t ncap;

	if (n < *cap)
		return v;
	ncap = *cap ? *cap : (first ? first : 1);
	while (ncap <= n) {
		if (ncap > SIZE_MAX / 2)
			return NULL;
		ncap *= 2;
	}
	if (*cap && ncap < *cap * 2 && *cap <= SIZE_MAX / 2)
		ncap = *cap * 2;
	if (!size || ncap > SIZE_MAX / size)
		return NULL;
	v = realloc(v, ncap * size);
	if (v)
		*cap = ncap;
	return v;
}
