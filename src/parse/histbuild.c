// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Building a struct peerhist, for every reader of peerhist.h: groups in
 * input order, buckets ascending without overlap, the unit by its name.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "linescan.h"
#include "peerhist_local.h"

int ph_fail(struct ph_parser *ps, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = line_fail(ps->err, ps->errlen, line, fmt, ap);
	va_end(ap);
	return ret;
}

char *ph_str_dup(const char *s)
{
	return span_dup(s, s + strlen(s), SIZE_MAX);
}

const char *peerhist_unit_name(const char *name)
{
	static const char *const names[][5] = {
		{ "ns", "ns", "nsecs", "nsec", "nanoseconds" },
		{ "us", "us", "usecs", "usec", "microseconds" },
		{ "ms", "ms", "msecs", "msec", "milliseconds" },
	};
	unsigned i, j;

	if (!name)
		return NULL;
	if (*name == '@')
		name++;
	for (i = 0; i < 3; i++)
		for (j = 1; j < 5; j++)
			if (!strcmp(name, names[i][j]))
				return names[i][0];
	return NULL;
}

int ph_unit_set(struct peerhist *h, const char *name)
{
	const char *u = peerhist_unit_name(name);

	free(h->unit);
	if (!u && name && *name == '@')
		name++;
	h->unit = ph_str_dup(u ? u : name ? name : "");
	if (!h->unit)
		return -ENOMEM;
	h->unit_ns = !u ? 0 : u[0] == 'n' ? 1 : u[0] == 'u' ? 1000 : 1000000;
	return 0;
}

void ph_group_fini(struct peerhist_group *g)
{
	free(g->map);
	free(g->label);
	free(g->b);
}

int ph_group_add(struct ph_parser *ps, const char *map, const char *label)
{
	struct peerhist *h = ps->h;
	struct peerhist_group *g;

	g = mem_grow(h->g, &ps->cap_g, h->ng, sizeof(*g));
	if (!g)
		return -ENOMEM;
	h->g = g;
	g = &h->g[h->ng];
	memset(g, 0, sizeof(*g));
	g->map = ph_str_dup(map);
	g->label = ph_str_dup(label);
	if (!g->map || !g->label) {
		ph_group_fini(g);
		return -ENOMEM;
	}
	h->ng++;
	ps->cap_b = 0;
	return 0;
}

int ph_bucket_add(struct ph_parser *ps, uint64_t low, uint64_t high,
		  uint64_t count)
{
	struct peerhist_group *g = &ps->h->g[ps->h->ng - 1];
	struct peerhist_bucket *b;

	if (low > high)
		return ph_fail(ps, ps->r.line, "bucket low %llu above high %llu",
			       (unsigned long long)low, (unsigned long long)high);
	if (g->nb && low <= g->b[g->nb - 1].high)
		return ph_fail(ps, ps->r.line, "bucket [%llu, %llu] not above the previous one [%llu, %llu]",
			       (unsigned long long)low, (unsigned long long)high,
			       (unsigned long long)g->b[g->nb - 1].low,
			       (unsigned long long)g->b[g->nb - 1].high);
	b = mem_grow(g->b, &ps->cap_b, g->nb, sizeof(*b));
	if (!b)
		return -ENOMEM;
	g->b = b;
	g->b[g->nb].low = low;
	g->b[g->nb].high = high;
	g->b[g->nb].count = count;
	g->nb++;
	g->total = ph_sat_add(g->total, count);
	return 0;
}

int ph_finish(struct ph_parser *ps, int ret, struct peerhist **out)
{
	if (ret) {
		peerhist_free(ps->h);
		ps->h = NULL;
		return ret;
	}
	*out = ps->h;
	return 0;
}

void peerhist_free(struct peerhist *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->ng; i++)
		ph_group_fini(&h->g[i]);
	free(h->g);
	free(h->unit);
	free(h);
}
