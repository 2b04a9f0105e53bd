// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One latency histogram from bpftrace, BCC, kernel hist-file or our JSON
 * text, as inclusive [low, high] buckets. Every loop is bounded by the
 * input; every number is checked for range; nothing is printed.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "khist.h"
#include "linescan.h"
#include "peerhist.h"

struct parser {
	struct reader r;
	struct peerhist *h;
	size_t cap_g, cap_b;	/* of h->g, of the last group's buckets */
	char *err;
	size_t errlen;
};

static int fail(struct parser *ps, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parser *ps, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = line_fail(ps->err, ps->errlen, line, fmt, ap);
	va_end(ap);
	return ret;
}

static char *str_dup(const char *s)
{
	return span_dup(s, s + strlen(s), SIZE_MAX);
}

/* Digits at *@p, which moves past them. */
static int take_u64(const char **p, const char *e, uint64_t *out)
{
	const char *d = *p;
	int ret;

	while (d < e && is_digit(*d))
		d++;
	ret = span_u64(*p, d, 10, out);
	if (!ret)
		*p = d;
	return ret;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* ------------------------------------------------------------------ */
/* Building the result                                                 */

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

static int unit_set(struct peerhist *h, const char *name)
{
	const char *u = peerhist_unit_name(name);

	free(h->unit);
	if (!u && name && *name == '@')
		name++;
	h->unit = str_dup(u ? u : name ? name : "");
	if (!h->unit)
		return -ENOMEM;
	h->unit_ns = !u ? 0 : u[0] == 'n' ? 1 : u[0] == 'u' ? 1000 : 1000000;
	return 0;
}

static void group_fini(struct peerhist_group *g)
{
	free(g->map);
	free(g->label);
	free(g->b);
}

/* Append a group; @map and @label are copied. */
static int group_add(struct parser *ps, const char *map, const char *label)
{
	struct peerhist *h = ps->h;
	struct peerhist_group *g;

	g = grow(h->g, &ps->cap_g, h->ng, sizeof(*g));
	if (!g)
		return -ENOMEM;
	h->g = g;
	g = &h->g[h->ng];
	memset(g, 0, sizeof(*g));
	g->map = str_dup(map);
	g->label = str_dup(label);
	if (!g->map || !g->label) {
		group_fini(g);
		return -ENOMEM;
	}
	h->ng++;
	ps->cap_b = 0;
	return 0;
}

static void group_drop_last(struct peerhist *h)
{
	group_fini(&h->g[--h->ng]);
}

/* Append a bucket to the last group; rows must ascend without overlap. */
static int bucket_add(struct parser *ps, uint64_t low, uint64_t high,
		      uint64_t count)
{
	struct peerhist_group *g = &ps->h->g[ps->h->ng - 1];
	struct peerhist_bucket *b;

	if (low > high)
		return fail(ps, ps->r.line, "bucket low %llu above high %llu",
			    (unsigned long long)low, (unsigned long long)high);
	if (g->nb && low <= g->b[g->nb - 1].high)
		return fail(ps, ps->r.line, "bucket [%llu, %llu] not above the previous one [%llu, %llu]",
			    (unsigned long long)low, (unsigned long long)high,
			    (unsigned long long)g->b[g->nb - 1].low,
			    (unsigned long long)g->b[g->nb - 1].high);
	b = grow(g->b, &ps->cap_b, g->nb, sizeof(*b));
	if (!b)
		return -ENOMEM;
	g->b = b;
	g->b[g->nb].low = low;
	g->b[g->nb].high = high;
	g->b[g->nb].count = count;
	g->nb++;
	g->total = sat_add(g->total, count);
	return 0;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Distinct map names among the groups. */
static int count_maps(struct peerhist *h)
{
	const char **v;
	size_t i, n = 0;

	if (!h->ng) {
		h->nmaps = 0;
		return 0;
	}
	v = malloc(h->ng * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < h->ng; i++)
		v[i] = h->g[i].map;
	qsort(v, h->ng, sizeof(*v), cmp_str_ptr);
	for (i = 0; i < h->ng; i++)
		n += i == 0 || strcmp(v[i], v[i - 1]);
	free(v);
	h->nmaps = n;
	return 0;
}

/* ------------------------------------------------------------------ */
/* bpftrace                                                            */

/* "1K" -> 1024: digits with an optional K, M, G or T (powers of 1024). */
static int bt_number(const char **p, const char *e, uint64_t *out)
{
	unsigned shift = 0;
	uint64_t v;
	int ret;

	ret = take_u64(p, e, &v);
	if (ret)
		return ret;
	if (*p < e) {
		switch (**p) {
		case 'K':
			shift = 10;
			break;
		case 'M':
			shift = 20;
			break;
		case 'G':
			shift = 30;
			break;
		case 'T':
			shift = 40;
			break;
		}
	}
	if (shift) {
		if (v > UINT64_MAX >> shift)
			return -ERANGE;
		v <<= shift;
		(*p)++;
	}
	*out = v;
	return 0;
}

/*
 * "@name:" or "@name[key]:" alone on its line (bpftrace 0.17 adds a
 * space); "@name: 3" is a scalar map, not a histogram. *@label_end is the
 * end of "@name[key]", *@name_end of "@name".
 */
static bool bt_header(const char *s, const char *e, const char **name_end,
		      const char **label_end)
{
	const char *t = rtrim(s, e), *q;

	if (e - s < 2 || *s != '@' || t[-1] != ':')
		return false;
	for (q = s + 1; q < t - 1 && (isalnum((unsigned char)*q) || *q == '_'); q++)
		;
	*name_end = q;
	*label_end = t - 1;
	if (q == t - 1)
		return true;
	return *q == '[' && t - 2 > q && t[-2] == ']';
}

/* "[2, 4)  3 |@@@   |", "[0]", "[1M, 2M)", "[100, ...)", "(..., 0)" */
static int bt_row(struct parser *ps, struct peerhist_group *g)
{
	const char *p = ps->r.ls, *e = rtrim(ps->r.ls, ps->r.le);
	uint64_t low = 0, high = 0, count;
	bool negative = false;
	int ret = 0;

	if (span_starts(p, e, "(..., ")) {
		p += 6;
		negative = true;
		ret = bt_number(&p, e, &high);
		if (ret || p == e || *p != ')')
			goto bad;
		p++;
	} else if (*p == '[') {
		p++;
		ret = bt_number(&p, e, &low);
		if (ret)
			goto bad;
		if (p < e && *p == ']') {
			high = low;
			p++;
		} else if (span_starts(p, e, ", ...)")) {
			high = UINT64_MAX;
			p += 6;
		} else if (span_starts(p, e, ", ")) {
			p += 2;
			ret = bt_number(&p, e, &high);
			if (ret || p == e || *p != ')' || high <= low)
				goto bad;
			high--;
			p++;
		} else {
			goto bad;
		}
	} else {
		goto bad;
	}
	p = skip_ws(p, e);
	ret = take_u64(&p, e, &count);
	if (ret)
		goto bad;
	p = skip_ws(p, e);
	if (p == e || *p != '|')
		goto bad;
	for (p++; p < e && (*p == '@' || *p == ' '); p++)
		;
	if (p == e || *p != '|' || p + 1 != e)
		goto bad;
	if (negative) {
		g->negative = sat_add(g->negative, count);
		g->total = sat_add(g->total, count);
		return 0;
	}
	return bucket_add(ps, low, high, count);
bad:
	if (ret == -ERANGE)
		return fail(ps, ps->r.line, "number out of range in '[low, high)' row");
	return fail(ps, ps->r.line, "expected '[low, high)' row");
}

static int parse_bpftrace(struct parser *ps, const struct peerhist_opts *o)
{
	struct reader *r = &ps->r;
	struct peerhist *h = ps->h;
	const char *want = o->map, *name_end, *label_end, *t, *te;
	bool in_map = false, kept = false;
	char map[256], label[PEERHIST_MAX_LABEL];
	size_t i, j;
	int ret;

	if (want && *want == '@')
		want++;
	while (reader_next(r)) {
		t = skip_ws(r->ls, r->le);
		te = rtrim(t, r->le);
		if (in_map) {
			struct peerhist_group *g = &h->g[h->ng - 1];

			if (*r->ls == '[' || *r->ls == '(') {
				ret = bt_row(ps, g);
				if (ret)
					return ret;
				kept = true;
				continue;
			}
			if (span_starts(t, te, "count=")) {
				kept = true;	/* our summary line */
				continue;
			}
			if (t < te && *t == '#') {
				/* ours: "# and N waits not measured ...: partial" */
				if (span_ends(t, te, ": partial"))
					h->partial = true;
				continue;
			}
			in_map = false;
			if (!kept)
				group_drop_last(h);
			else if (t != te && !bt_header(r->ls, r->le, &name_end, &label_end))
				return fail(ps, r->line, "expected '[low, high)' row or an empty line");
		}
		if (t == te)
			continue;
		if (bt_header(r->ls, r->le, &name_end, &label_end)) {
			if (name_end - r->ls - 1 >= (long)sizeof(map) ||
			    label_end - r->ls >= (long)sizeof(label))
				return fail(ps, r->line, "map name or key too long");
			snprintf(map, sizeof(map), "%.*s", (int)(name_end - r->ls - 1),
				 r->ls + 1);
			if (label_end == name_end)
				label[0] = '\0';
			else
				snprintf(label, sizeof(label), "%.*s",
					 (int)(label_end - r->ls), r->ls);
			ret = group_add(ps, map, label);
			if (ret)
				return ret;
			in_map = true;
			kept = false;
			continue;
		}
		if ((*r->ls == '[' || *r->ls == '(') && memchr(t, '|', (size_t)(te - t)))
			return fail(ps, r->line, "row outside a map: expected '@name:' first");
		/* "Attaching 4 probes...", ERROR lines, scalar maps: not ours */
	}
	if (in_map && !kept)
		group_drop_last(h);
	if (!h->ng)
		return fail(ps, r->line, "end of input: no bpftrace histogram ('@name:' followed by '[low, high)' rows)");
	if (want) {
		for (i = j = 0; i < h->ng; i++) {
			if (strcmp(h->g[i].map, want))
				group_fini(&h->g[i]);
			else
				h->g[j++] = h->g[i];
		}
		h->ng = j;
		if (!h->ng)
			return fail(ps, r->line, "end of input: no histogram map @%s", want);
	}
	ret = count_maps(h);
	if (ret)
		return ret;
	/* the unit: the first map named like one, else the first map */
	for (i = 0; i < h->ng; i++)
		if (peerhist_unit_name(h->g[i].map))
			break;
	return unit_set(h, h->g[i < h->ng ? i : 0].map);
}

/* ------------------------------------------------------------------ */
/* BCC                                                                 */

/* "     usecs               : count     distribution"; the unit word. */
static bool bcc_header(const char *s, const char *e, const char **us,
		       const char **ue)
{
	const char *p = skip_ws(s, e);

	e = rtrim(p, e);
	*us = p;
	while (p < e && !is_blank(*p))
		p++;
	*ue = p;
	if (*ue == *us)
		return false;
	p = skip_ws(p, e);
	if (p == e || *p != ':')
		return false;
	p = skip_ws(p + 1, e);
	if (!span_starts(p, e, "count"))
		return false;
	p = skip_ws(p + 5, e);
	return span_starts(p, e, "distribution") && p + 12 == e;
}

/* "pid = 1234 bash", "tid = 12", "cpu = 1" at column 0 */
static bool bcc_section(const char *s, const char *e)
{
	const char *p = s;

	while (p < e && (isalnum((unsigned char)*p) || *p == '_'))
		p++;
	return p > s && isalpha((unsigned char)*s) && span_starts(p, e, " = ") &&
	       skip_ws(p + 3, e) < e;
}

/* "%10d -> %-10d : %-8d |%-40s|" (or %20d in the wide layout) */
static int bcc_row(struct parser *ps)
{
	const char *p = ps->r.ls, *e = rtrim(ps->r.ls, ps->r.le);
	uint64_t low, high, count;
	int ret;

	p = skip_ws(p, e);
	ret = take_u64(&p, e, &low);
	if (ret)
		goto bad;
	p = skip_ws(p, e);
	if (!span_starts(p, e, "->"))
		goto bad;
	p = skip_ws(p + 2, e);
	ret = take_u64(&p, e, &high);
	if (ret)
		goto bad;
	p = skip_ws(p, e);
	if (p == e || *p != ':')
		goto bad;
	p = skip_ws(p + 1, e);
	ret = take_u64(&p, e, &count);
	if (ret)
		goto bad;
	p = skip_ws(p, e);
	if (p == e || *p != '|')
		goto bad;
	/* BCC's _stars() ends the bar with '+' when val > val_max */
	for (p++; p < e && (*p == '*' || *p == '+' || *p == ' '); p++)
		;
	if (p == e || *p != '|' || p + 1 != e)
		goto bad;
	return bucket_add(ps, low, high, count);
bad:
	if (ret == -ERANGE)
		return fail(ps, ps->r.line, "number out of range in 'low -> high : count' row");
	return fail(ps, ps->r.line, "expected 'low -> high : count |stars|' row");
}

/* "12:34:56" printed by -T between histograms */
static bool is_clock(const char *t, const char *te)
{
	return te - t >= 3 && is_digit(t[0]) && is_digit(t[1]) && t[2] == ':';
}

static int parse_bcc(struct parser *ps)
{
	struct reader *r = &ps->r;
	struct peerhist *h = ps->h;
	char label[PEERHIST_MAX_LABEL], unit[64] = "";
	const char *t, *te, *us, *ue;
	bool in_hist = false;
	int ret;

	label[0] = '\0';
	while (reader_next(r)) {
		t = skip_ws(r->ls, r->le);
		te = rtrim(t, r->le);
		if (in_hist) {
			if (t < te && is_digit(*t) && !is_clock(t, te)) {
				ret = bcc_row(ps);
				if (ret)
					return ret;
				continue;
			}
			in_hist = false;
		}
		if (t == te)
			continue;
		if (bcc_header(r->ls, r->le, &us, &ue)) {
			if (ue - us >= (long)sizeof(unit))
				return fail(ps, r->line, "unit name too long");
			if (unit[0] && ((size_t)(ue - us) != strlen(unit) ||
					memcmp(us, unit, (size_t)(ue - us))))
				return fail(ps, r->line, "unit '%.*s' differs from '%s' above",
					    (int)(ue - us), us, unit);
			snprintf(unit, sizeof(unit), "%.*s", (int)(ue - us), us);
			ret = group_add(ps, "", label);
			if (ret)
				return ret;
			label[0] = '\0';
			in_hist = true;
			continue;
		}
		if (r->ls == t && bcc_section(t, te)) {
			if (te - t >= (long)sizeof(label))
				return fail(ps, r->line, "section label too long");
			snprintf(label, sizeof(label), "%.*s", (int)(te - t), t);
			continue;
		}
		if (is_digit(*t) && span_find(t, te, "->"))
			return fail(ps, r->line, "row outside a histogram: expected a 'usecs : count distribution' header first");
		/* "Tracing run queue latency...", "^C", summaries: not ours */
	}
	if (!h->ng)
		return fail(ps, r->line, "end of input: no BCC histogram ('usecs : count distribution' header)");
	h->nmaps = 1;
	return unit_set(h, unit);
}

/* ------------------------------------------------------------------ */
/* Kernel hist file                                                    */

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
	struct parser ps;
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
			return fail(&ps, line, "no histogram has a key '%s'", o->key);
		return fail(&ps, line, "no latency key (.log2, .buckets, lat, latency, delta or delay) in any histogram");
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
			ret = fail(&ps, e->line, "entry has no key '%s'", key);
			goto out;
		}
		if (k->kind != KHIST_KEY_NUMBER && k->kind != KHIST_KEY_LOG2 &&
		    k->kind != KHIST_KEY_BUCKETS) {
			ret = fail(&ps, e->line, "key '%s' is a %s, not a latency", key,
				   khist_key_kind_name(k->kind));
			goto out;
		}
		if (khist_entry_val(e, "hitcount", &it[n].count)) {
			ret = fail(&ps, e->line, "entry has no hitcount");
			goto out;
		}
		it[n].low = k->low;
		it[n].high = k->high;
		kernel_label(label, sizeof(label), e, k);
		it[n].label = str_dup(label);
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
			ret = group_add(&ps, "", it[i].label);
			if (ret)
				goto out;
		}
		g = &ps.h->g[ps.h->ng - 1];
		b = g->nb ? &g->b[g->nb - 1] : NULL;
		if (b && b->low == it[i].low && b->high == it[i].high) {
			b->count = sat_add(b->count, it[i].count);
			g->total = sat_add(g->total, it[i].count);
			continue;
		}
		ps.r.line = it[i].line;
		ret = bucket_add(&ps, it[i].low, it[i].high, it[i].count);
		if (ret)
			goto out;
	}
	ps.h->nmaps = 1;
	ret = unit_set(ps.h, o->unit ? o->unit :
		       peerhist_unit_name(key) ? key : "");
out:
	for (i = 0; it && i < hh->nentries; i++)
		free(it[i].label);
	free(it);
	if (ret) {
		peerhist_free(ps.h);
		return ret;
	}
	*out = ps.h;
	return 0;
}

/* ------------------------------------------------------------------ */
/* JSON: a small strict reader, values into a tree                      */

enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype t;
	unsigned line;
	bool is_uint;		/* J_NUM: integer in [0, UINT64_MAX] */
	bool is_int;		/* J_NUM: integer in int64 range */
	uint64_t u;
	int64_t i;
	char *s;		/* J_STR: decoded, NUL-terminated */
	struct jval *v;		/* J_ARR items, J_OBJ values */
	char **k;		/* J_OBJ keys */
	size_t n, cap;
};

struct jparser {
	const char *p, *end;
	unsigned line;
	unsigned depth;
	char *err;
	size_t errlen;
};

static int jfail(struct jparser *jp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int jfail(struct jparser *jp, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = line_fail(jp->err, jp->errlen, jp->line, fmt, ap);
	va_end(ap);
	return ret;
}

static void jval_fini(struct jval *v)
{
	size_t i;

	free(v->s);
	for (i = 0; i < v->n; i++) {
		jval_fini(&v->v[i]);
		if (v->k)
			free(v->k[i]);
	}
	free(v->v);
	free(v->k);
	memset(v, 0, sizeof(*v));
}

static void jskip_ws(struct jparser *jp)
{
	while (jp->p < jp->end) {
		char c = *jp->p;

		if (c == '\n')
			jp->line++;
		else if (c != ' ' && c != '\t' && c != '\r')
			break;
		jp->p++;
	}
}

static int jhex4(struct jparser *jp, unsigned *out)
{
	unsigned v = 0, i;

	if (jp->end - jp->p < 4)
		return jfail(jp, "end of input inside a \\u escape");
	for (i = 0; i < 4; i++) {
		char c = jp->p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return jfail(jp, "expected 4 hex digits after \\u");
	}
	jp->p += 4;
	*out = v;
	return 0;
}

/* A string at jp->p (on its '"'); *@out newly allocated, caller frees. */
static int jstring(struct jparser *jp, char **out)
{
	size_t n = 0, cap = 0;
	char *s = NULL, *ns;
	unsigned cp, lo;
	int ret = 0;

	jp->p++;
	for (;;) {
		unsigned char c;
		char enc[4];
		size_t k = 0, i;

		if (jp->p >= jp->end) {
			ret = jfail(jp, "end of input inside a string");
			goto bad;
		}
		c = (unsigned char)*jp->p++;
		if (c == '"')
			break;
		if (c < 0x20) {
			ret = jfail(jp, "control character in a string");
			goto bad;
		}
		if (c != '\\') {
			enc[k++] = (char)c;
		} else {
			if (jp->p >= jp->end) {
				ret = jfail(jp, "end of input inside a string");
				goto bad;
			}
			c = (unsigned char)*jp->p++;
			switch (c) {
			case '"': case '\\': case '/':
				enc[k++] = (char)c;
				break;
			case 'b':
				enc[k++] = '\b';
				break;
			case 'f':
				enc[k++] = '\f';
				break;
			case 'n':
				enc[k++] = '\n';
				break;
			case 'r':
				enc[k++] = '\r';
				break;
			case 't':
				enc[k++] = '\t';
				break;
			case 'u':
				ret = jhex4(jp, &cp);
				if (ret)
					goto bad;
				if (cp >= 0xdc00 && cp <= 0xdfff) {
					ret = jfail(jp, "lone low surrogate in \\u escape");
					goto bad;
				}
				if (cp >= 0xd800 && cp <= 0xdbff) {
					if (jp->end - jp->p < 2 || jp->p[0] != '\\' || jp->p[1] != 'u') {
						ret = jfail(jp, "high surrogate without its low half");
						goto bad;
					}
					jp->p += 2;
					ret = jhex4(jp, &lo);
					if (ret)
						goto bad;
					if (lo < 0xdc00 || lo > 0xdfff) {
						ret = jfail(jp, "high surrogate without its low half");
						goto bad;
					}
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				}
				if (cp == 0) {
					ret = jfail(jp, "\\u0000 in a string is not supported");
					goto bad;
				}
				/*
				 * json_str() writes each byte of a comm
				 * (not UTF-8) >= 0x7f as \u00XX: read those
				 * back as the bytes, so labels match /proc.
				 */
				if (cp <= 0xff) {
					enc[k++] = (char)cp;
				} else if (cp < 0x800) {
					enc[k++] = (char)(0xc0 | cp >> 6);
					enc[k++] = (char)(0x80 | (cp & 0x3f));
				} else if (cp < 0x10000) {
					enc[k++] = (char)(0xe0 | cp >> 12);
					enc[k++] = (char)(0x80 | ((cp >> 6) & 0x3f));
					enc[k++] = (char)(0x80 | (cp & 0x3f));
				} else {
					enc[k++] = (char)(0xf0 | cp >> 18);
					enc[k++] = (char)(0x80 | ((cp >> 12) & 0x3f));
					enc[k++] = (char)(0x80 | ((cp >> 6) & 0x3f));
					enc[k++] = (char)(0x80 | (cp & 0x3f));
				}
				break;
			default:
				ret = jfail(jp, "unknown escape '\\%c' in a string",
					    isprint(c) ? c : '?');
				goto bad;
			}
		}
		if (n + k + 1 > cap) {
			cap = cap ? cap * 2 : 32;
			ns = realloc(s, cap);
			if (!ns) {
				ret = -ENOMEM;
				goto bad;
			}
			s = ns;
		}
		for (i = 0; i < k; i++)
			s[n++] = enc[i];
	}
	if (!s) {
		s = malloc(1);
		if (!s)
			return -ENOMEM;
	}
	s[n] = '\0';
	*out = s;
	return 0;
bad:
	free(s);
	return ret;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int jnumber(struct jparser *jp, struct jval *v)
{
	const char *s = jp->p, *p = s, *e = jp->end;
	bool integer = true;
	char buf[32], *end;

	v->t = J_NUM;
	if (p < e && *p == '-')
		p++;
	if (p == e || !is_digit(*p))
		return jfail(jp, "expected a digit in a number");
	if (*p == '0' && p + 1 < e && is_digit(p[1]))
		return jfail(jp, "leading zero in a number");
	while (p < e && is_digit(*p))
		p++;
	if (p < e && *p == '.') {
		integer = false;
		if (++p == e || !is_digit(*p))
			return jfail(jp, "expected a digit after '.' in a number");
		while (p < e && is_digit(*p))
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		integer = false;
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (p == e || !is_digit(*p))
			return jfail(jp, "expected a digit in a number's exponent");
		while (p < e && is_digit(*p))
			p++;
	}
	jp->p = p;
	if (!integer || (size_t)(p - s) >= sizeof(buf))
		return 0;	/* kept as "a number"; we only need integers */
	memcpy(buf, s, (size_t)(p - s));
	buf[p - s] = '\0';
	errno = 0;
	if (*s == '-') {
		long long x = strtoll(buf, &end, 10);

		if (!errno && *end == '\0') {
			v->is_int = true;
			v->i = x;
		}
	} else {
		unsigned long long x = strtoull(buf, &end, 10);

		if (!errno && *end == '\0') {
			v->is_uint = true;
			v->u = x;
			v->is_int = x <= INT64_MAX;
			v->i = (int64_t)(x <= INT64_MAX ? x : 0);
		}
	}
	return 0;
}

static int jvalue(struct jparser *jp, struct jval *v);

static int jcontainer(struct jparser *jp, struct jval *v)
{
	bool obj = *jp->p == '{';
	char close = obj ? '}' : ']';
	struct jval *nv;
	char **nk;
	int ret;

	v->t = obj ? J_OBJ : J_ARR;
	if (++jp->depth > PEERHIST_JSON_DEPTH)
		return jfail(jp, "nesting deeper than %d", PEERHIST_JSON_DEPTH);
	jp->p++;
	jskip_ws(jp);
	if (jp->p < jp->end && *jp->p == close) {
		jp->p++;
		jp->depth--;
		return 0;
	}
	for (;;) {
		size_t cap = v->cap;

		nv = grow(v->v, &cap, v->n, sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		v->v = nv;
		if (obj) {
			size_t kcap = v->cap;

			nk = grow(v->k, &kcap, v->n, sizeof(*nk));
			if (!nk)
				return -ENOMEM;
			v->k = nk;
		}
		v->cap = cap;
		memset(&v->v[v->n], 0, sizeof(*nv));
		if (obj) {
			v->k[v->n] = NULL;
			jskip_ws(jp);
			if (jp->p >= jp->end)
				return jfail(jp, "end of input inside an object");
			if (*jp->p != '"')
				return jfail(jp, "expected a string key in an object");
			ret = jstring(jp, &v->k[v->n]);
			if (ret)
				return ret;
			v->n++;		/* owned from here: freed by jval_fini */
			jskip_ws(jp);
			if (jp->p >= jp->end)
				return jfail(jp, "end of input inside an object");
			if (*jp->p != ':')
				return jfail(jp, "expected ':' after an object key");
			jp->p++;
			ret = jvalue(jp, &v->v[v->n - 1]);
		} else {
			v->n++;
			ret = jvalue(jp, &v->v[v->n - 1]);
		}
		if (ret)
			return ret;
		jskip_ws(jp);
		if (jp->p < jp->end && *jp->p == ',') {
			jp->p++;
			continue;
		}
		if (jp->p < jp->end && *jp->p == close) {
			jp->p++;
			break;
		}
		if (jp->p >= jp->end)
			return jfail(jp, obj ? "end of input inside an object" :
					 "end of input inside an array");
		return jfail(jp, obj ? "expected ',' or '}' in an object" :
				 "expected ',' or ']' in an array");
	}
	jp->depth--;
	return 0;
}

static int jliteral(struct jparser *jp, const char *word, enum jtype t,
		    struct jval *v)
{
	size_t n = strlen(word);

	if ((size_t)(jp->end - jp->p) < n || memcmp(jp->p, word, n))
		return jfail(jp, "expected a JSON value");
	jp->p += n;
	v->t = t;
	return 0;
}

static int jvalue(struct jparser *jp, struct jval *v)
{
	jskip_ws(jp);
	v->line = jp->line;
	if (jp->p >= jp->end)
		return jfail(jp, "end of input: expected a JSON value");
	switch (*jp->p) {
	case '{':
	case '[':
		return jcontainer(jp, v);
	case '"':
		v->t = J_STR;
		return jstring(jp, &v->s);
	case 't':
		return jliteral(jp, "true", J_TRUE, v);
	case 'f':
		return jliteral(jp, "false", J_FALSE, v);
	case 'n':
		return jliteral(jp, "null", J_NULL, v);
	default:
		if (*jp->p == '-' || is_digit(*jp->p))
			return jnumber(jp, v);
		return jfail(jp, "expected a JSON value");
	}
}

static const struct jval *jget(const struct jval *obj, const char *key)
{
	size_t i;

	if (obj->t != J_OBJ)
		return NULL;
	for (i = 0; i < obj->n; i++)
		if (!strcmp(obj->k[i], key))
			return &obj->v[i];
	return NULL;
}

/* Non-negative integer member @key of @obj. */
static int jget_u64(struct parser *ps, const struct jval *obj, const char *key,
		    uint64_t *out)
{
	const struct jval *v = jget(obj, key);

	if (!v || v->t != J_NUM || !v->is_uint)
		return fail(ps, obj->line, "expected \"%s\": a non-negative integer", key);
	*out = v->u;
	return 0;
}

/* One of print_json()'s groups. */
static int json_group(struct parser *ps, const struct jval *g, const char *key)
{
	const struct jval *bs, *id, *comm, *other;
	char label[PEERHIST_MAX_LABEL];
	uint64_t low, high, count, sum = 0;
	size_t i;
	int ret;

	if (g->t != J_OBJ)
		return fail(ps, g->line, "expected a group object in \"groups\"");
	label[0] = '\0';
	if (key) {
		other = jget(g, "other");
		id = jget(g, key);
		comm = jget(g, "comm");
		if (other && other->t == J_TRUE) {
			snprintf(label, sizeof(label), "%s = (other)", key);
		} else if (id && id->t == J_NUM && id->is_int) {
			snprintf(label, sizeof(label), "%s = %lld%s%s", key,
				 (long long)id->i,
				 comm && comm->t == J_STR && comm->s[0] ? " " : "",
				 comm && comm->t == J_STR ? comm->s : "");
		} else {
			return fail(ps, g->line, "expected \"%s\": an integer id", key);
		}
	}
	ret = group_add(ps, "", label);
	if (ret)
		return ret;
	bs = jget(g, "buckets");
	if (!bs || bs->t != J_ARR)
		return fail(ps, g->line, "expected \"buckets\": an array");
	for (i = 0; i < bs->n; i++) {
		const struct jval *b = &bs->v[i];

		if (b->t != J_OBJ)
			return fail(ps, b->line, "expected a bucket object");
		ret = jget_u64(ps, b, "low", &low);
		if (!ret)
			ret = jget_u64(ps, b, "high", &high);
		if (!ret)
			ret = jget_u64(ps, b, "count", &count);
		if (ret)
			return ret;
		ps->r.line = b->line;
		ret = bucket_add(ps, low, high, count);
		if (ret)
			return ret;
		sum = sat_add(sum, count);
	}
	if (jget(g, "count")) {
		ret = jget_u64(ps, g, "count", &count);
		if (ret)
			return ret;
		if (count != sum)
			return fail(ps, g->line, "group \"count\" %llu is not the sum of its buckets %llu",
				    (unsigned long long)count, (unsigned long long)sum);
	}
	return 0;
}

static int json_report(struct parser *ps, const struct jval *root,
		       const struct peerhist_opts *o)
{
	const struct jval *unit, *key, *groups, *partial;
	size_t i;
	int ret;

	if (root->t != J_OBJ)
		return fail(ps, root->line, "expected a JSON object");
	unit = jget(root, "unit");
	if (!unit || unit->t != J_STR)
		return fail(ps, root->line, "expected \"unit\": a string");
	key = jget(root, "key");
	if (key && key->t != J_STR && key->t != J_NULL)
		return fail(ps, root->line, "expected \"key\": a string or null");
	if (key && key->t == J_STR && (!key->s[0] || strlen(key->s) > 32))
		return fail(ps, root->line, "expected \"key\": a short name");
	groups = jget(root, "groups");
	if (!groups || groups->t != J_ARR)
		return fail(ps, root->line, "expected \"groups\": an array");
	partial = jget(root, "partial");
	ps->h->partial = partial && partial->t == J_TRUE;
	for (i = 0; i < groups->n; i++) {
		ret = json_group(ps, &groups->v[i],
				 key && key->t == J_STR ? key->s : NULL);
		if (ret)
			return ret;
	}
	ps->h->nmaps = 1;
	return unit_set(ps->h, o->unit ? o->unit : unit->s);
}

static int parse_json(struct parser *ps, const char *text, size_t len,
		      const struct peerhist_opts *o)
{
	struct jparser jp = {
		.p = text, .end = text + len, .line = 1,
		.err = ps->err, .errlen = ps->errlen,
	};
	struct jval v;
	unsigned i;
	int ret;

	memset(&v, 0, sizeof(v));
	for (i = 0; i <= o->json_index; i++) {
		jval_fini(&v);
		jskip_ws(&jp);
		if (jp.p >= jp.end) {
			ret = jfail(&jp, "end of input: expected JSON value #%u, found %u",
				    o->json_index + 1, i);
			goto out;
		}
		ret = jvalue(&jp, &v);
		if (ret)
			goto out;
	}
	jskip_ws(&jp);
	if (jp.p < jp.end && *jp.p != '{') {
		ret = jfail(&jp, "expected the end of input or the next JSON object");
		goto out;
	}
	ret = json_report(ps, &v, o);
out:
	jval_fini(&v);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */

const char *peerhist_format_name(enum peerhist_format f)
{
	switch (f) {
	case PEERHIST_BPFTRACE:
		return "bpftrace";
	case PEERHIST_BCC:
		return "bcc";
	case PEERHIST_KERNEL:
		return "kernel";
	case PEERHIST_JSON:
		return "json";
	default:
		return "unknown";
	}
}

enum peerhist_format peerhist_detect(const char *text, size_t len)
{
	struct reader r = { .p = text, .end = text + len };
	const char *t, *te, *a, *b, *p;
	bool bt_pending = false;

	if (!text)
		return PEERHIST_UNKNOWN;
	if (len > PEERHIST_MAX_INPUT)
		len = PEERHIST_MAX_INPUT;
	for (p = text; p < text + len && isspace((unsigned char)*p); p++)
		;
	if (p < text + len && *p == '{') {
		for (p++; p < text + len && isspace((unsigned char)*p); p++)
			;
		if (p < text + len && (*p == '"' || *p == '}'))
			return PEERHIST_JSON;
	}
	while (reader_next(&r)) {
		t = skip_ws(r.ls, r.le);
		te = rtrim(t, r.le);
		if (bt_pending && (*r.ls == '[' || *r.ls == '(' ||
				   span_starts(r.ls, r.le, "count=")))
			return PEERHIST_BPFTRACE;
		bt_pending = false;
		if (span_starts(r.ls, r.le, "# event histogram") ||
		    span_starts(r.ls, r.le, "# trigger info:"))
			return PEERHIST_KERNEL;
		if (*r.ls == '{' && span_find(t, te, "hitcount:"))
			return PEERHIST_KERNEL;
		if (bcc_header(r.ls, r.le, &a, &b))
			return PEERHIST_BCC;
		if (bt_header(r.ls, r.le, &a, &b))
			bt_pending = true;
	}
	return PEERHIST_UNKNOWN;
}

int peerhist_parse(const char *text, size_t len,
		    const struct peerhist_opts *opts, struct peerhist **out,
		    char *err, size_t errlen)
{
	static const struct peerhist_opts none;
	const struct peerhist_opts *o = opts ? opts : &none;
	enum peerhist_format fmt = o->format;
	struct khist *hf;
	struct parser ps;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!out || (!text && len))
		return -EINVAL;
	*out = NULL;
	if (!text)
		text = "";
	memset(&ps, 0, sizeof(ps));
	ps.err = err;
	ps.errlen = errlen;
	ps.r.p = text;
	ps.r.end = text + len;
	if ((ret = text_check(text, len, PEERHIST_MAX_INPUT, err, errlen)))
		return ret;
	if (fmt == PEERHIST_UNKNOWN) {
		size_t i = 0;

		while (i < len && strchr(" \t\r\n", text[i]))
			i++;
		if (i == len) {
			snprintf(err, errlen, "it is empty: no histogram to read");
			return -EINVAL;
		}
		fmt = peerhist_detect(text, len);
	}
	if (fmt == PEERHIST_KERNEL) {
		ret = khist_parse(text, len, &hf, err, errlen);
		if (ret)
			return ret;
		ret = peerhist_from_khist(hf, o, out, err, errlen);
		khist_free(hf);
		return ret;
	}
	if (fmt == PEERHIST_UNKNOWN)
		return fail(&ps, 1, "unknown format: expected bpftrace '@name:' maps, a BCC 'usecs : count distribution' header, a kernel hist file or a JSON object");
	ps.h = calloc(1, sizeof(*ps.h));
	if (!ps.h)
		return -ENOMEM;
	ps.h->format = fmt;
	if (fmt == PEERHIST_BPFTRACE)
		ret = parse_bpftrace(&ps, o);
	else if (fmt == PEERHIST_BCC)
		ret = parse_bcc(&ps);
	else if (fmt == PEERHIST_JSON)
		ret = parse_json(&ps, text, len, o);
	else
		ret = fail(&ps, 1, "unknown format %d", (int)fmt);
	if (!ret && o->unit && fmt != PEERHIST_JSON)
		ret = unit_set(ps.h, o->unit);
	if (ret) {
		peerhist_free(ps.h);
		return ret;
	}
	*out = ps.h;
	return 0;
}

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
	struct parser ps;
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
		return fail(&ps, 1, "the input has %zu maps: choose one", h->nmaps);
	for (i = 0; i < h->ng; i++) {
		if (map && strcmp(h->g[i].map, map))
			continue;
		found = true;
		if (h->g[i].nb > SIZE_MAX / sizeof(*all) - nb)
			return -ENOMEM;
		nb += h->g[i].nb;
	}
	if (map && !found)
		return fail(&ps, 1, "no map @%s", map);
	ps.h = calloc(1, sizeof(*ps.h));
	if (!ps.h)
		return -ENOMEM;
	ps.h->format = h->format;
	ps.h->unit_ns = h->unit_ns;
	ps.h->partial = h->partial;
	ps.h->nmaps = 1;
	ps.h->unit = str_dup(h->unit ? h->unit : "");
	if (!ps.h->unit) {
		ret = -ENOMEM;
		goto out;
	}
	ret = group_add(&ps, map ? map : h->ng ? h->g[0].map : "", "");
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
		g->negative = sat_add(g->negative, h->g[i].negative);
		g->total = sat_add(g->total, h->g[i].negative);
	}
	qsort(all, n, sizeof(*all), cmp_bucket);
	for (i = j = 0; i < n; i++) {
		b = j ? &all[j - 1] : NULL;
		if (b && b->low == all[i].low && b->high == all[i].high) {
			b->count = sat_add(b->count, all[i].count);
		} else if (b && all[i].low <= b->high) {
			ret = fail(&ps, 1, "buckets [%llu, %llu] and [%llu, %llu] overlap",
				   (unsigned long long)b->low, (unsigned long long)b->high,
				   (unsigned long long)all[i].low,
				   (unsigned long long)all[i].high);
			goto out;
		} else {
			all[j++] = all[i];
		}
	}
	for (i = 0; i < j; i++)
		g->total = sat_add(g->total, all[i].count);
	g->b = all;
	g->nb = j;
	all = NULL;
out:
	free(all);
	if (ret) {
		peerhist_free(ps.h);
		return ret;
	}
	*out = ps.h;
	return 0;
}

void peerhist_free(struct peerhist *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->ng; i++)
		group_fini(&h->g[i]);
	free(h->g);
	free(h->unit);
	free(h);
}
