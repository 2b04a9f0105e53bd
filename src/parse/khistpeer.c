// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A kernel hist file (struct khist, khist.c) as a struct peerhist: the
 * first histogram with a latency key; each entry's other keys make its
 * group's label, and the entries of one label its buckets, sorted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "khist.h"
#include "peerhist_local.h"

/* One entry of the hist file: its label, latency range and hitcount. */
struct kitem {
	char *label;
	uint64_t low, high, count;
	unsigned line;
};

static int cmp_kitem(const void *a, const void *b)
{
	const struct kitem *x = a, *y = b;
	int c = strcmp(x->label, y->label);

	if (c)
		return c;
	if (x->low != y->low)
		return x->low < y->low ? -1 : 1;
	if (x->high != y->high)
		return x->high < y->high ? -1 : 1;
	return 0;
}

/* The latency key of entries like @e, or NULL. */
static const char *kernel_key(const struct khist_entry *e, const char *want)
{
	static const char *const names[] = { "lat", "latency", "delta", "delay" };
	const struct khist_key *k;
	size_t i, j;

	if (want) {
		k = khist_entry_key(e, want);
		return k ? k->name : NULL;
	}
	for (i = 0; i < e->nkeys; i++)
		if (e->keys[i].kind == KHIST_KEY_LOG2 ||
		    e->keys[i].kind == KHIST_KEY_BUCKETS)
			return e->keys[i].name;
	for (i = 0; i < e->nkeys; i++)
		for (j = 0; j < sizeof(names) / sizeof(names[0]); j++)
			if (e->keys[i].kind == KHIST_KEY_NUMBER &&
			    !strcmp(e->keys[i].name, names[j]))
				return e->keys[i].name;
	return NULL;
}

/* Label of an entry from its keys other than @skip; bounded, truncated. */
static void kernel_label(char *buf, size_t len, const struct khist_entry *e,
			 const struct khist_key *skip)
{
	size_t n = 0, i, f;
	const struct khist_key *k;

	buf[0] = '\0';
#define PUT(...) do { \
		if (n < len) { \
			int _w = snprintf(buf + n, len - n, __VA_ARGS__); \
			n += _w > 0 ? (size_t)_w : 0; \
		} \
	} while (0)
	for (i = 0; i < e->nkeys; i++) {
		k = &e->keys[i];
		if (k == skip)
			continue;
		if (n)
			PUT(", ");
		switch (k->kind) {
		case KHIST_KEY_NUMBER:
			PUT("%s = %llu", k->name, (unsigned long long)k->value);
			break;
		case KHIST_KEY_COMM:
			PUT("%s = %llu %s", k->name, (unsigned long long)k->value, k->str);
			break;
		case KHIST_KEY_LOG2:
			PUT("%s = ~ 2^%llu", k->name, (unsigned long long)k->value);
			break;
		case KHIST_KEY_BUCKETS:
			PUT("%s = ~ %llu-%llu", k->name, (unsigned long long)k->low,
			    (unsigned long long)k->high);
			break;
		case KHIST_KEY_STACK:
			for (f = 0; f < k->nframes; f++)
				PUT("%s%s", f ? ";" : "", k->frames[f]);
			break;
		default:
			PUT("%s = %s", k->name, k->str ? k->str : "");
			break;
		}
	}
#undef PUT
}

int peerhist_from_khist(const struct khist *hf,
			    const struct peerhist_opts *opts,
			    struct peerhist **out, char *err, size_t errlen)
{
	static const struct peerhist_opts none;
	const struct peerhist_opts *o = opts ? opts : &none;
	const struct khist_hist *hh = NULL;
	const struct khist_key *k;
	const char *key = NULL;
	struct kitem *it = NULL;
	struct ph_parser ps;
	char label[PEERHIST_MAX_LABEL];
	size_t i, n = 0;
	int ret;

	if (!out || !hf)
		return -EINVAL;
	*out = NULL;
	memset(&ps, 0, sizeof(ps));
	ps.err = err;
	ps.errlen = errlen;
	for (i = 0; i < hf->nhists && !key; i++) {
		if (!hf->hists[i].nentries)
			continue;
		key = kernel_key(&hf->hists[i].entries[0], o->key);
		hh = &hf->hists[i];
	}
	if (!key) {
		unsigned line = hf->nhists ? hf->hists[0].line : 1;

		if (o->key)
			return ph_fail(&ps, line, "no histogram has a key '%s'", o->key);
		return ph_fail(&ps, line, "no latency key (.log2, .buckets, lat, latency, delta or delay) in any histogram");
	}
	ps.h = calloc(1, sizeof(*ps.h));
	if (!ps.h)
		return -ENOMEM;
	ps.h->format = PEERHIST_KERNEL;
	ps.h->partial = hh->truncated || hh->dropped;
	it = calloc(hh->nentries, sizeof(*it));
	if (!it) {
		ret = -ENOMEM;
		goto out;
	}
	for (n = 0; n < hh->nentries; n++) {
		const struct khist_entry *e = &hh->entries[n];

		it[n].line = e->line;
		k = khist_entry_key(e, key);
		if (!k) {
			ret = ph_fail(&ps, e->line, "entry has no key '%s'", key);
			goto out;
		}
		if (k->kind != KHIST_KEY_NUMBER && k->kind != KHIST_KEY_LOG2 &&
		    k->kind != KHIST_KEY_BUCKETS) {
			ret = ph_fail(&ps, e->line, "key '%s' is a %s, not a latency", key,
				      khist_key_kind_name(k->kind));
			goto out;
		}
		if (khist_entry_val(e, "hitcount", &it[n].count)) {
			ret = ph_fail(&ps, e->line, "entry has no hitcount");
			goto out;
		}
		it[n].low = k->low;
		it[n].high = k->high;
		kernel_label(label, sizeof(label), e, k);
		it[n].label = ph_str_dup(label);
		if (!it[n].label) {
			ret = -ENOMEM;
			goto out;
		}
	}
	qsort(it, n, sizeof(*it), cmp_kitem);
	for (i = 0; i < n; i++) {
		struct peerhist_group *g;
		struct peerhist_bucket *b;

		if (i == 0 || strcmp(it[i].label, it[i - 1].label)) {
			ret = ph_group_add(&ps, "", it[i].label);
			if (ret)
				goto out;
		}
		g = &ps.h->g[ps.h->ng - 1];
		b = g->nb ? &g->b[g->nb - 1] : NULL;
		if (b && b->low == it[i].low && b->high == it[i].high) {
			b->count = ph_sat_add(b->count, it[i].count);
			g->total = ph_sat_add(g->total, it[i].count);
			continue;
		}
		ps.r.line = it[i].line;
		ret = ph_bucket_add(&ps, it[i].low, it[i].high, it[i].count);
		if (ret)
			goto out;
	}
	ps.h->nmaps = 1;
	ret = ph_unit_set(ps.h, o->unit ? o->unit :
			  peerhist_unit_name(key) ? key : "");
out:
	for (i = 0; it && i < hh->nentries; i++)
		free(it[i].label);
	free(it);
	return ph_finish(&ps, ret, out);
}
