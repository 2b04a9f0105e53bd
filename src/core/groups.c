// SPDX-License-Identifier: GPL-2.0-or-later
/* Histograms keyed by pid, tid or CPU, bounded, with one overflow group. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "groups.h"

int groups_init(struct groups *g, uint32_t max_groups)
{
	memset(g, 0, sizeof(*g));
	g->v = calloc(max_groups + 1, sizeof(*g->v));
	if (!g->v || posindex_init(&g->index, max_groups + 1)) {
		free(g->v);
		g->v = NULL;
		return -ENOMEM;
	}
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
	g->last = NULL;
	posindex_clear(&g->index);
}

void groups_fini(struct groups *g)
{
	if (!g->v)
		return;
	groups_clear(g);
	free(g->v);
	posindex_fini(&g->index);
	memset(g, 0, sizeof(*g));
}

static struct group *lookup(struct groups *g, int64_t id, int create)
{
	uint64_t h = posindex_mix((uint64_t)id);
	struct group *grp;
	uint32_t i;

	for (i = posindex_first(&g->index, h); g->index.slot[i] >= 0;
	     i = posindex_next(&g->index, i))
		if (g->v[g->index.slot[i]]->id == id)
			return g->v[g->index.slot[i]];
	if (!create)
		return NULL;
	grp = calloc(1, sizeof(*grp));
	if (!grp)
		return NULL;
	grp->id = id;
	g->index.slot[i] = (int32_t)g->n;
	g->v[g->n++] = grp;
	return grp;
}

struct group *groups_get(struct groups *g, int64_t id)
{
	struct group *grp;

	/* runs of one id are common (one histogram, a busy thread) */
	if (g->last && g->last->id == id)
		return g->last;
	grp = lookup(g, id, 0);
	if (grp)
		return g->last = grp;
	/* one slot is reserved beyond cap for the overflow group */
	if (g->n >= g->cap) {
		g->overflow++;
		return lookup(g, GROUP_OTHER, 1);
	}
	grp = lookup(g, id, 1);
	if (grp)
		g->last = grp;
	return grp;
}

struct group *groups_find(struct groups *g, int64_t id)
{
	return g->last && g->last->id == id ? g->last : lookup(g, id, 0);
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

/* largest total first; ties by count, then id */
static int cmp_total(const void *a, const void *b)
{
	const struct group *x = *(const struct group *const *)a;
	const struct group *y = *(const struct group *const *)b;

	if (x->id == GROUP_OTHER || y->id == GROUP_OTHER)
		return (x->id == GROUP_OTHER) - (y->id == GROUP_OTHER);
	if (x->h.sum_ns != y->h.sum_ns)
		return x->h.sum_ns < y->h.sum_ns ? 1 : -1;
	if (x->h.count != y->h.count)
		return x->h.count < y->h.count ? 1 : -1;
	return (x->id > y->id) - (x->id < y->id);
}

static void reindex(struct groups *g);

void groups_sort(struct groups *g)
{
	if (g->n)
		qsort(g->v, g->n, sizeof(*g->v), cmp_group);
	reindex(g);
}

void groups_sort_by_total(struct groups *g)
{
	if (g->n)
		qsort(g->v, g->n, sizeof(*g->v), cmp_total);
	reindex(g);
}

void groups_sort_by_count(struct groups *g)
{
	if (g->n)
		qsort(g->v, g->n, sizeof(*g->v), cmp_count);
	reindex(g);
}

static void reindex(struct groups *g)
{
	uint32_t i;

	/* positions changed: rebuild the index */
	posindex_clear(&g->index);
	for (i = 0; i < g->n; i++)
		posindex_put(&g->index, posindex_mix((uint64_t)g->v[i]->id), (int32_t)i);
}
