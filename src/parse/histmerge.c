// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * peerhist_merge(): the groups of a struct peerhist (or of one bpftrace
 * map) summed into one histogram: compare and the cross-validation
 * compare one distribution per side.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "peerhist_local.h"

/* Buckets by low, then high edge. */
static int cmp_bucket(const void *a, const void *b)
{
	const struct peerhist_bucket *x = a, *y = b;

	if (x->low != y->low)
		return x->low < y->low ? -1 : 1;
	if (x->high != y->high)
		return x->high < y->high ? -1 : 1;
	return 0;
}

int peerhist_merge(const struct peerhist *h, const char *map,
		    struct peerhist **out, char *err, size_t errlen)
{
	struct peerhist_bucket *all = NULL, *b;
	struct peerhist_group *g;
	struct ph_parser ps;
	size_t i, j, n = 0, nb = 0;
	bool found = false;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!out || !h)
		return -EINVAL;
	*out = NULL;
	memset(&ps, 0, sizeof(ps));
	ps.err = err;
	ps.errlen = errlen;
	if (map && *map == '@')
		map++;
	if (!map && h->nmaps > 1)
		return ph_fail(&ps, 1, "the input has %zu maps: choose one", h->nmaps);
	for (i = 0; i < h->ng; i++) {
		if (map && strcmp(h->g[i].map, map))
			continue;
		found = true;
		if (h->g[i].nb > SIZE_MAX / sizeof(*all) - nb)
			return -ENOMEM;
		nb += h->g[i].nb;
	}
	if (map && !found)
		return ph_fail(&ps, 1, "no map @%s", map);
	ps.h = calloc(1, sizeof(*ps.h));
	if (!ps.h)
		return -ENOMEM;
	ps.h->format = h->format;
	ps.h->unit_ns = h->unit_ns;
	ps.h->partial = h->partial;
	ps.h->nmaps = 1;
	ps.h->unit = ph_str_dup(h->unit ? h->unit : "");
	if (!ps.h->unit) {
		ret = -ENOMEM;
		goto out;
	}
	ret = ph_group_add(&ps, map ? map : h->ng ? h->g[0].map : "", "");
	if (ret)
		goto out;
	g = &ps.h->g[0];
	all = malloc((nb ? nb : 1) * sizeof(*all));
	if (!all) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < h->ng; i++) {
		if (map && strcmp(h->g[i].map, map))
			continue;
		if (h->g[i].nb)
			memcpy(all + n, h->g[i].b, h->g[i].nb * sizeof(*all));
		n += h->g[i].nb;
		g->negative = ph_sat_add(g->negative, h->g[i].negative);
		g->total = ph_sat_add(g->total, h->g[i].negative);
	}
	qsort(all, n, sizeof(*all), cmp_bucket);
	for (i = j = 0; i < n; i++) {
		b = j ? &all[j - 1] : NULL;
		if (b && b->low == all[i].low && b->high == all[i].high) {
			b->count = ph_sat_add(b->count, all[i].count);
		} else if (b && all[i].low <= b->high) {
			ret = ph_fail(&ps, 1, "buckets [%llu, %llu] and [%llu, %llu] overlap",
				      (unsigned long long)b->low, (unsigned long long)b->high,
				      (unsigned long long)all[i].low,
				      (unsigned long long)all[i].high);
			goto out;
		} else {
			all[j++] = all[i];
		}
	}
	for (i = 0; i < j; i++)
		g->total = ph_sat_add(g->total, all[i].count);
	g->b = all;
	g->nb = j;
	all = NULL;
out:
	free(all);
	return ph_finish(&ps, ret, out);
}
