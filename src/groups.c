// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "groups.h"

static uint32_t id_hash(int64_t id)
{
	uint64_t x = (uint64_t)id * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(x >> 32);
}

int groups_init(struct groups *g, uint32_t max_groups)
{
	uint32_t n = 16;

	memset(g, 0, sizeof(*g));
	while (n < 2ULL * (max_groups + 1) && n < (1u << 30))
		n <<= 1;
	g->index = malloc(n * sizeof(*g->index));
	g->v = calloc(max_groups + 1, sizeof(*g->v));
	if (!g->index || !g->v) {
		free(g->index);
		free(g->v);
		return -ENOMEM;
	}
	memset(g->index, 0xff, n * sizeof(*g->index));
	g->mask = n - 1;
	g->cap = max_groups;
	return 0;
}

void groups_clear(struct groups *g)
{
	uint32_t i;

	for (i = 0; i < g->n; i++)
		free(g->v[i]);
	g->n = 0;
	g->overflow = 0;
	memset(g->index, 0xff, (g->mask + 1) * sizeof(*g->index));
}

void groups_fini(struct groups *g)
{
	if (!g->v)
		return;
	groups_clear(g);
	free(g->v);
	free(g->index);
	memset(g, 0, sizeof(*g));
}

static struct group *lookup(struct groups *g, int64_t id, int create)
{
	uint32_t i = id_hash(id) & g->mask;
	struct group *grp;

	for (;;) {
		int32_t pos = g->index[i];

		if (pos < 0)
			break;
		if (g->v[pos]->id == id)
			return g->v[pos];
		i = (i + 1) & g->mask;
	}
	if (!create)
		return NULL;
	grp = calloc(1, sizeof(*grp));
	if (!grp)
		return NULL;
	grp->id = id;
	g->index[i] = (int32_t)g->n;
	g->v[g->n++] = grp;
	return grp;
}

struct group *groups_get(struct groups *g, int64_t id)
{
	struct group *grp = lookup(g, id, 0);

	if (grp)
		return grp;
	/* one slot is reserved beyond cap for the overflow group */
	if (g->n >= g->cap) {
		g->overflow++;
		return lookup(g, GROUP_OTHER, 1);
	}
	return lookup(g, id, 1);
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = *(const struct group *const *)a;
	const struct group *y = *(const struct group *const *)b;

	if (x->id == GROUP_OTHER || y->id == GROUP_OTHER)
		return (x->id == GROUP_OTHER) - (y->id == GROUP_OTHER);
	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_count(const void *a, const void *b)
{
	const struct group *x = *(const struct group *const *)a;
	const struct group *y = *(const struct group *const *)b;

	if (x->h.count != y->h.count)
		return (x->h.count > y->h.count) - (x->h.count < y->h.count);
	return cmp_group(a, b);
}

static void reindex(struct groups *g);

void groups_sort(struct groups *g)
{
	qsort(g->v, g->n, sizeof(*g->v), cmp_group);
	reindex(g);
}

void groups_sort_by_count(struct groups *g)
{
	qsort(g->v, g->n, sizeof(*g->v), cmp_count);
	reindex(g);
}

static void reindex(struct groups *g)
{
	uint32_t i;

	/* positions changed: rebuild the index */
	memset(g->index, 0xff, (g->mask + 1) * sizeof(*g->index));
	for (i = 0; i < g->n; i++) {
		uint32_t h = id_hash(g->v[i]->id) & g->mask;

		while (g->index[h] >= 0)
			h = (h + 1) & g->mask;
		g->index[h] = (int32_t)i;
	}
}
