// SPDX-License-Identifier: GPL-2.0-or-later
/* The shared open-addressing index of positions, and the set of task ids on it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
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

/* The slot where @tid is in @s, or where it would go. */
static uint32_t tidset_find(const struct tidset *s, int32_t tid)
{
	uint32_t i;

	for (i = posindex_first(&s->index, posindex_mix((uint64_t)tid)); s->index.slot[i] >= 0;
	     i = posindex_next(&s->index, i))
		if (s->v[s->index.slot[i]] == tid)
			break;
	return i;
}

bool tidset_has(const struct tidset *s, int32_t tid)
{
	return s->v && s->index.slot && s->index.slot[tidset_find(s, tid)] >= 0;
}

int tidset_add(struct tidset *s, int32_t tid)
{
	uint32_t k;

	if (tidset_has(s, tid))
		return 0;
	if (s->max && s->n >= s->max)
		return -ENOSPC;
	if (s->n == s->cap) {
		size_t ncap = s->cap;
		struct posindex x;
		int32_t *v = mem_grow_from(s->v, &ncap, s->n, sizeof(*v), 64);

		if (!v)
			return -ENOMEM;
		s->v = v;
		/* the new index whole before the old one goes: members stay members */
		if (posindex_init(&x, (uint32_t)ncap))
			return -ENOMEM;
		posindex_fini(&s->index);
		s->index = x;
		s->cap = ncap;
		for (k = 0; k < s->n; k++)
			posindex_put(&s->index, posindex_mix((uint64_t)s->v[k]), (int32_t)k);
	}
	k = tidset_find(s, tid);
	s->v[s->n] = tid;
	s->index.slot[k] = (int32_t)s->n++;
	return 0;
}

void tidset_fini(struct tidset *s)
{
	posindex_fini(&s->index);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
