// SPDX-License-Identifier: GPL-2.0-or-later
/* The shared open-addressing index of positions. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "posindex.h"

int posindex_init(struct posindex *x, uint32_t entries)
{
	uint32_t n = 16;

	while (n < 2ULL * entries && n < (1u << 30))
		n <<= 1;
	x->slot = malloc(n * sizeof(*x->slot));
	if (!x->slot)
		return -ENOMEM;
	x->mask = n - 1;
	posindex_clear(x);
	return 0;
}

void posindex_fini(struct posindex *x)
{
	free(x->slot);
	x->slot = NULL;
	x->mask = 0;
}

void posindex_clear(struct posindex *x)
{
	if (x->slot)
		memset(x->slot, 0xff, (x->mask + 1) * sizeof(*x->slot));
}

void posindex_put(struct posindex *x, uint64_t hash, int32_t pos)
{
	uint32_t i;

	for (i = posindex_first(x, hash); x->slot[i] >= 0; i = posindex_next(x, i))
		;
	x->slot[i] = pos;
}
