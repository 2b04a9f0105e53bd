// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The peers' histogram text, bpftrace's hist() and BCC's
 * print_log2_hist(), as inclusive [low, high] buckets; the format
 * detection and peerhist_parse(), which hands a kernel hist file to
 * khistpeer.c and our JSON to ourjson.c. Every loop is bounded by the
 * input; every number is checked for range; nothing is printed.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "khist.h"
#include "linescan.h"
#include "peerhist_local.h"

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

/* ------------------------------------------------------------------ */
/* bpftrace                                                            */

static void group_drop_last(struct peerhist *h)
{
	ph_group_fini(&h->g[--h->ng]);
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
static int bt_row(struct ph_parser *ps, struct peerhist_group *g)
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
		g->negative = ph_sat_add(g->negative, count);
		g->total = ph_sat_add(g->total, count);
		return 0;
	}
	return ph_bucket_add(ps, low, high, count);
bad:
	if (ret == -ERANGE)
		return ph_fail(ps, ps->r.line, "number out of range in '[low, high)' row");
	return ph_fail(ps, ps->r.line, "expected '[low, high)' row");
}

static int parse_bpftrace(struct ph_parser *ps, const struct peerhist_opts *o)
{
	struct reader *r = &ps->r;
	struct peerhist *h = ps->h;
	const char *want = o->map, *name_end, *label_end, *t, *te;
	bool in_map = false, kept = false;
	char map[256], label[PEERHIST_MAX_LABEL];
	unsigned other = 0;	/* the last line like a header ('@...'), not one */
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
				return ph_fail(ps, r->line, "expected '[low, high)' row or an empty line");
		}
		if (t == te)
			continue;
		if (bt_header(r->ls, r->le, &name_end, &label_end)) {
			if (name_end - r->ls - 1 >= (long)sizeof(map) ||
			    label_end - r->ls >= (long)sizeof(label))
				return ph_fail(ps, r->line, "map name or key too long");
			snprintf(map, sizeof(map), "%.*s", (int)(name_end - r->ls - 1),
				 r->ls + 1);
			if (label_end == name_end)
				label[0] = '\0';
			else
				snprintf(label, sizeof(label), "%.*s",
					 (int)(label_end - r->ls), r->ls);
			ret = ph_group_add(ps, map, label);
			if (ret)
				return ret;
			in_map = true;
			kept = false;
			continue;
		}
		if ((*r->ls == '[' || *r->ls == '(') && memchr(t, '|', (size_t)(te - t))) {
			/* rows right under a line that is no header: that line is wrong */
			if (other && other == r->line - 1)
				return ph_fail(ps, other, "expected a '@name:' map header (rows "
					       "follow on line %u)", r->line);
			return ph_fail(ps, r->line, "row outside a map: expected '@name:' first");
		}
		/* "Attaching 4 probes...", ERROR lines, scalar maps: not ours */
		other = *t == '@' ? r->line : 0;
	}
	if (in_map && !kept)
		group_drop_last(h);
	if (!h->ng)
		return ph_fail(ps, r->line, "end of input: no bpftrace histogram ('@name:' followed by '[low, high)' rows)");
	if (want) {
		for (i = j = 0; i < h->ng; i++) {
			if (strcmp(h->g[i].map, want))
				ph_group_fini(&h->g[i]);
			else
				h->g[j++] = h->g[i];
		}
		h->ng = j;
		if (!h->ng)
			return ph_fail(ps, r->line, "end of input: no histogram map @%s", want);
	}
	ret = count_maps(h);
	if (ret)
		return ret;
	/* the unit: the first map named like one, else the first map */
	for (i = 0; i < h->ng; i++)
		if (peerhist_unit_name(h->g[i].map))
			break;
	return ph_unit_set(h, h->g[i < h->ng ? i : 0].map);
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
static int bcc_row(struct ph_parser *ps)
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
	return ph_bucket_add(ps, low, high, count);
bad:
	if (ret == -ERANGE)
		return ph_fail(ps, ps->r.line, "number out of range in 'low -> high : count' row");
	return ph_fail(ps, ps->r.line, "expected 'low -> high : count |stars|' row");
}

/* "12:34:56" printed by -T between histograms */
static bool is_clock(const char *t, const char *te)
{
	return te - t >= 3 && is_digit(t[0]) && is_digit(t[1]) && t[2] == ':';
}

static int parse_bcc(struct ph_parser *ps)
{
	struct reader *r = &ps->r;
	struct peerhist *h = ps->h;
	char label[PEERHIST_MAX_LABEL], unit[64] = "";
	const char *t, *te, *us, *ue;
	unsigned other = 0;	/* the last line like a header (its words), not one */
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
				return ph_fail(ps, r->line, "unit name too long");
			if (unit[0] && ((size_t)(ue - us) != strlen(unit) ||
					memcmp(us, unit, (size_t)(ue - us))))
				return ph_fail(ps, r->line, "unit '%.*s' differs from '%s' above",
					       (int)(ue - us), us, unit);
			snprintf(unit, sizeof(unit), "%.*s", (int)(ue - us), us);
			ret = ph_group_add(ps, "", label);
			if (ret)
				return ret;
			label[0] = '\0';
			in_hist = true;
			continue;
		}
		if (r->ls == t && bcc_section(t, te)) {
			if (te - t >= (long)sizeof(label))
				return ph_fail(ps, r->line, "section label too long");
			snprintf(label, sizeof(label), "%.*s", (int)(te - t), t);
			continue;
		}
		if (is_digit(*t) && span_find(t, te, "->")) {
			/* rows right under a line that is no header: that line is wrong */
			if (other && other == r->line - 1)
				return ph_fail(ps, other, "expected a 'usecs : count distribution' "
					       "header (rows follow on line %u)", r->line);
			return ph_fail(ps, r->line, "row outside a histogram: expected a 'usecs : count distribution' header first");
		}
		/* "Tracing run queue latency...", "^C", summaries: not ours */
		other = span_find(t, te, "count") || span_find(t, te, "distribution") ? r->line : 0;
	}
	if (!h->ng)
		return ph_fail(ps, r->line, "end of input: no BCC histogram ('usecs : count distribution' header)");
	h->nmaps = 1;
	return ph_unit_set(h, unit);
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
	struct ph_parser ps;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	memset(&ps, 0, sizeof(ps));
	ps.err = err;
	ps.errlen = errlen;
	if ((ret = text_open(&ps.r, text, len, PEERHIST_MAX_INPUT, err, errlen)))
		return ret;
	text = ps.r.p;	/* "" where it was NULL */
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
		return ph_fail(&ps, 1, "unknown format: expected bpftrace '@name:' maps, a BCC 'usecs : count distribution' header, a kernel hist file or a JSON object");
	ps.h = calloc(1, sizeof(*ps.h));
	if (!ps.h)
		return -ENOMEM;
	ps.h->format = fmt;
	if (fmt == PEERHIST_BPFTRACE)
		ret = parse_bpftrace(&ps, o);
	else if (fmt == PEERHIST_BCC)
		ret = parse_bcc(&ps);
	else if (fmt == PEERHIST_JSON)
		ret = ph_parse_json(&ps, text, len, o);
	else
		ret = ph_fail(&ps, 1, "unknown format %d", (int)fmt);
	if (!ret && o->unit && fmt != PEERHIST_JSON)
		ret = ph_unit_set(ps.h, o->unit);
	return ph_finish(&ps, ret, out);
}
