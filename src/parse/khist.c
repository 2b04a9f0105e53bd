// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's hist file, parsed. What hist_show() prints, per trigger:
 *
 *   # event histogram
 *   #
 *   # trigger info: hist:keys=lat.log2:vals=hitcount:...:size=2048 [active]
 *   #
 *
 *   { lat: ~ 2^4  } hitcount:        161
 *   { pid:         10, lat: ~ 2^5  } hitcount:          7
 *   { common_stacktrace:
 *            __schedule+0x61f/0xbe0
 *   } hitcount:          3
 *
 *   Totals:
 *       Hits: 1377
 *       Entries: 11
 *       Dropped: 0
 *
 * with "\n\n" between triggers. A key of a synthetic event's stack field
 * prints as "stack.stacktrace" with no colon and its first frame on the
 * same line; onmax()/onchange() actions add lines starting with a tab.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "khist.h"
#include "grow.h"
#include "linescan.h"

struct parser {
	struct reader r;
	struct khist *hf;
	size_t cap_hists;
	struct khist_hist *cur;	/* being filled, or NULL */
	size_t cap_entries;		/* of cur */
	bool in_totals;
	bool after_entry;		/* action lines may follow */
	unsigned totals_seen;		/* TOT_* bits of cur */
	/* printed names of cur's keys from its trigger, to split values */
	char knames[KHIST_MAX_KEYS][KHIST_MAX_NAME + 1];
	size_t nknames;
	char *err;
	size_t errlen;
};

enum { TOT_HITS = 1, TOT_ENTRIES = 2, TOT_DROPPED = 4, TOT_ALL = 7 };

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

/* Characters of a key or value name as hist_field_name() prints it. */
static bool is_name_char(char c)
{
	return c != ' ' && c != '\t' && c != ':' && c != ',' && c != '{' &&
	       c != '}' && c != '\0';
}

/*
 * The modifier of @name in the trigger's keys= (@keys) or vals= list:
 * "lat.log2" -> "log2", "delta.buckets=100" -> "buckets=100"; "" when
 * none or unknown.
 */
static void trigger_mod(const char *trigger, bool keys, const char *name,
			char *mod, size_t modlen)
{
	const char *seg, *segend, *end, *it, *itend, *dot;
	size_t nlen = strlen(name);

	mod[0] = '\0';
	if (!trigger)
		return;
	/* the attributes end at the filter (" if ...") or the " [active]" */
	end = strchr(trigger, ' ');
	if (!end)
		end = trigger + strlen(trigger);
	for (seg = trigger; seg < end; seg = segend + 1) {
		segend = memchr(seg, ':', (size_t)(end - seg));
		if (!segend)
			segend = end;
		if (keys && span_starts(seg, segend, "keys="))
			seg += 5;
		else if (keys && span_starts(seg, segend, "key="))
			seg += 4;
		else if (!keys && span_starts(seg, segend, "vals="))
			seg += 5;
		else if (!keys && span_starts(seg, segend, "values="))
			seg += 7;
		else
			continue;
		for (it = seg; it < segend; it = itend + 1) {
			itend = memchr(it, ',', (size_t)(segend - it));
			if (!itend)
				itend = segend;
			dot = memchr(it, '.', (size_t)(itend - it));
			if (!dot || (size_t)(dot - it) != nlen ||
			    memcmp(it, name, nlen))
				continue;
			snprintf(mod, modlen, "%.*s", (int)(itend - dot - 1), dot + 1);
			return;
		}
	}
}

/*
 * The names hist_trigger_print_key() prints for the trigger's keys, in
 * order: "lat.log2" -> "lat", but "stack.stacktrace" stays whole.
 */
static size_t trigger_keys(const char *trigger,
			   char names[][KHIST_MAX_NAME + 1], size_t max)
{
	const char *seg, *segend, *end, *it, *itend, *dot;
	size_t n = 0;

	end = strchr(trigger, ' ');
	if (!end)
		end = trigger + strlen(trigger);
	for (seg = trigger; seg < end; seg = segend + 1) {
		segend = memchr(seg, ':', (size_t)(end - seg));
		if (!segend)
			segend = end;
		if (span_starts(seg, segend, "keys="))
			seg += 5;
		else if (span_starts(seg, segend, "key="))
			seg += 4;
		else
			continue;
		for (it = seg; it < segend; it = itend + 1) {
			itend = memchr(it, ',', (size_t)(segend - it));
			if (!itend)
				itend = segend;
			dot = memchr(it, '.', (size_t)(itend - it));
			if (!dot || span_eq(dot, itend, ".stacktrace"))
				dot = itend;
			if (n == max || dot - it > KHIST_MAX_NAME || dot == it)
				return 0;	/* not what we expect: no hints */
			snprintf(names[n++], KHIST_MAX_NAME + 1, "%.*s",
				 (int)(dot - it), it);
		}
		return n;
	}
	return 0;
}

static void key_fini(struct khist_key *k)
{
	size_t i;

	free(k->name);
	free(k->str);
	for (i = 0; i < k->nframes; i++)
		free(k->frames[i]);
	free(k->frames);
}

static void entry_fini(struct khist_entry *e)
{
	size_t i;

	for (i = 0; i < e->nkeys; i++)
		key_fini(&e->keys[i]);
	free(e->keys);
	for (i = 0; i < e->nvals; i++)
		free(e->vals[i].name);
	free(e->vals);
}

/* Values a .log2 key of exponent @n stands for (see khist.h). */
static void log2_range(unsigned n, uint64_t *low, uint64_t *high)
{
	if (n == 0) {
		*low = 0;
		*high = 1;
		return;
	}
	*low = (1ULL << (n - 1)) + 1;
	*high = n >= 64 ? UINT64_MAX : 1ULL << n;
	if (n == 1)
		*low = 2;
}

/* "[  1234]" ending [s, e): its number and where the '[' is; 0 or -EINVAL. */
static int bracket_number(const char *s, const char *e, const char **open,
			  uint64_t *v)
{
	const char *o, *d;

	if (e - s < 3 || e[-1] != ']')
		return -EINVAL;
	for (o = e - 2; o > s && *o != '['; o--)
		;
	if (*o != '[')
		return -EINVAL;
	d = skip_ws(o + 1, e - 1);
	if (span_u64(d, e - 1, 10, v))
		return -EINVAL;
	*open = o;
	return 0;
}

/* Classify the printed value [s, e) (blanks trimmed) of key @k. */
static int key_value(struct parser *ps, struct khist_key *k,
		     const char *s, const char *e, const char *mod)
{
	const char *a, *b, *open;
	uint64_t n, m;
	int ret;

	if (s == e)
		return fail(ps, ps->r.line, "key '%s' has no value", k->name);
	if (span_starts(s, e, "~ 2^")) {
		ret = span_u64(s + 4, e, 10, &n);
		if (ret || n > 64)
			return fail(ps, ps->r.line, "key '%s': expected '~ 2^N' with N <= 64",
				    k->name);
		k->kind = KHIST_KEY_LOG2;
		k->value = n;
		log2_range((unsigned)n, &k->low, &k->high);
		return 0;
	}
	if (span_starts(s, e, "~ ")) {
		a = s + 2;
		b = memchr(a, '-', (size_t)(e - a));
		if (!b || span_u64(a, b, 10, &n) || span_u64(b + 1, e, 10, &m) || m < n)
			return fail(ps, ps->r.line, "key '%s': expected '~ LOW-HIGH' bucket",
				    k->name);
		k->kind = KHIST_KEY_BUCKETS;
		k->value = k->low = n;
		k->high = m;
		return 0;
	}
	if (!strcmp(mod, "hex") && !span_u64(s, e, 16, &n)) {
		k->kind = KHIST_KEY_NUMBER;
		k->value = k->low = k->high = n;
		return 0;
	}
	ret = span_u64(s, e, 10, &n);
	if (ret == -ERANGE)
		return fail(ps, ps->r.line, "key '%s': number out of range", k->name);
	if (!ret) {
		k->kind = KHIST_KEY_NUMBER;
		k->value = k->low = k->high = n;
		return 0;
	}
	/* .sym / .sym-offset: "[ffffffff81000000] func+0x0/0x10" */
	b = *s == '[' ? memchr(s, ']', (size_t)(e - s)) : NULL;
	if (b && !span_u64(s + 1, b, 16, &n)) {
		k->kind = KHIST_KEY_SYM;
		k->value = k->low = k->high = n;
		a = skip_ws(b + 1, e);
		k->str = span_dup(a, e, KHIST_MAX_INPUT);
		return k->str ? 0 : -ENOMEM;
	}
	/* .execname "%-16s[%10llu]", .syscall "%-30s[%3llu]" */
	if (!bracket_number(s, e, &open, &n) && open > s) {
		k->kind = strcmp(mod, "syscall") ? KHIST_KEY_COMM : KHIST_KEY_SYSCALL;
		k->value = k->low = k->high = n;
		k->str = span_dup(s, rtrim(s, open), KHIST_MAX_INPUT);
		return k->str ? 0 : -ENOMEM;
	}
	k->kind = KHIST_KEY_STRING;
	k->str = span_dup(s, e, KHIST_MAX_INPUT);
	return k->str ? 0 : -ENOMEM;
}

/*
 * Where the value starting at @p ends: at ", NAME:" or ", NAME.stacktrace"
 * (the next key), else @lim. With the trigger's name of the next key in
 * @next (NULL: unknown, "": this is the last key), only that name counts,
 * so a string key holding ", x:" is not split.
 */
static const char *key_value_end(const char *p, const char *lim,
				 const char *next)
{
	const char *q, *t;

	if (next && !*next)
		return lim;
	for (q = p; q + 1 < lim; q++) {
		if (q[0] != ',' || q[1] != ' ')
			continue;
		for (t = q + 2; t < lim && is_name_char(*t); t++)
			;
		if (t == q + 2)
			continue;
		if (next && !span_eq(q + 2, t, next))
			continue;
		if ((t < lim && *t == ':') || span_ends(q + 2, t, ".stacktrace"))
			return q;
	}
	return next ? key_value_end(p, lim, NULL) : lim;
}

/* The last '}' of the current line, or NULL. */
static const char *line_close(const struct reader *r)
{
	const char *q;

	for (q = r->le; q > r->ls; q--)
		if (q[-1] == '}')
			return q - 1;
	return NULL;
}

/*
 * Frames of stack key @k: maybe one on the key's line at *@p, then one per
 * line up to a line starting with '}' or ','. Leaves *@p and *@close on
 * that line.
 */
static int key_frames(struct parser *ps, struct khist_key *k,
		      const char **p, const char **close, unsigned first)
{
	struct reader *r = &ps->r;
	const char *q, *fe;
	char **nf;

	k->kind = KHIST_KEY_STACK;
	k->frames = calloc(KHIST_MAX_FRAMES, sizeof(*k->frames));
	if (!k->frames)
		return -ENOMEM;
	q = skip_ws(*p, r->le);
	if (q < r->le) {
		/* the synthetic event's "stack.stacktrace         frame" */
		fe = *close ? *close : r->le;
		if (q < fe) {
			k->frames[k->nframes] = span_dup(q, rtrim(q, fe), KHIST_MAX_INPUT);
			if (!k->frames[k->nframes])
				return -ENOMEM;
			k->nframes++;
		}
		if (*close) {
			*p = *close;
			return 0;
		}
	}
	for (;;) {
		if (!reader_next(r))
			return fail(ps, r->line, "end of input inside the entry of line %u: expected a stack frame or '}'",
				    first);
		q = skip_ws(r->ls, r->le);
		if (q == r->le)
			return fail(ps, r->line, "expected a stack frame or '}'");
		if (*q == '}' || *q == ',') {
			*p = q;
			*close = line_close(r);
			break;
		}
		if (k->nframes == KHIST_MAX_FRAMES)
			return fail(ps, r->line, "more than %d stack frames",
				    KHIST_MAX_FRAMES);
		k->frames[k->nframes] = span_dup(q, rtrim(q, r->le), KHIST_MAX_INPUT);
		if (!k->frames[k->nframes])
			return -ENOMEM;
		k->nframes++;
	}
	nf = realloc(k->frames, (k->nframes ? k->nframes : 1) * sizeof(*nf));
	if (nf)
		k->frames = nf;
	return 0;
}

/* "12.34" -> 1234 */
static int percent_value(const char *s, const char *e, uint64_t *out)
{
	const char *dot = memchr(s, '.', (size_t)(e - s));
	uint64_t i, f;

	if (!dot || e - dot != 3 || span_u64(s, dot, 10, &i) ||
	    span_u64(dot + 1, e, 10, &f) || i > UINT64_MAX / 100 - 1)
		return -EINVAL;
	*out = i * 100 + f;
	return 0;
}

/* " hitcount:          5  delta:        123" after the entry's '}' */
static int entry_vals(struct parser *ps, struct khist_entry *ent,
		      const char *p, const char *e)
{
	const char *trigger = ps->cur->trigger;
	struct khist_val *v;
	const char *colon, *ne, *t;
	char mod[32], base[KHIST_MAX_NAME + 8];
	bool percent;
	uint64_t n;
	int ret;

	ent->vals = calloc(KHIST_MAX_VALS, sizeof(*ent->vals));
	if (!ent->vals)
		return -ENOMEM;
	for (;;) {
		p = skip_ws(p, e);
		if (p == e)
			break;
		colon = memchr(p, ':', (size_t)(e - p));
		if (!colon)
			return fail(ps, ps->r.line, "expected 'name: value' after '}'");
		ne = rtrim(p, colon);
		percent = span_ends(p, ne, " (%)");
		for (t = p; t < (percent ? ne - 4 : ne) && is_name_char(*t); t++)
			;
		if (t == p || t != (percent ? ne - 4 : ne) ||
		    t - p > KHIST_MAX_NAME)
			return fail(ps, ps->r.line, "expected 'name: value' after '}'");
		snprintf(base, sizeof(base), "%.*s", (int)(t - p), p);
		trigger_mod(trigger, false, base, mod, sizeof(mod));
		t = colon + 1;
		if (!percent && !strcmp(mod, "graph")) {
			/* " %s: %20s", a bar of '#' that may be all blanks */
			if (t < e && *t == ' ')
				t++;
			p = e - t > 20 ? t + 20 : e;
			continue;
		}
		t = skip_ws(t, e);
		for (p = t; p < e && !is_blank(*p); p++)
			;
		if (p == t)
			return fail(ps, ps->r.line, "expected a number after '%s:'", base);
		if (percent && span_eq(t, p, "[ERROR]"))
			continue;
		if (percent)
			ret = percent_value(t, p, &n);
		else
			ret = span_u64(t, p, !strcmp(mod, "hex") ? 16 : 10, &n);
		if (ret == -ERANGE)
			return fail(ps, ps->r.line, "value of '%s' out of range", base);
		if (ret)
			return fail(ps, ps->r.line, "value of '%s' is not a number", base);
		if (ent->nvals == KHIST_MAX_VALS)
			return fail(ps, ps->r.line, "more than %d values",
				    KHIST_MAX_VALS);
		v = &ent->vals[ent->nvals];
		/* the percent of a value keeps its printed name */
		if (percent)
			strcat(base, " (%)");
		v->name = span_dup(base, base + strlen(base), KHIST_MAX_INPUT);
		if (!v->name)
			return -ENOMEM;
		v->value = n;
		ent->nvals++;
	}
	if (!ent->nvals) {
		free(ent->vals);
		ent->vals = NULL;
	} else {
		v = realloc(ent->vals, ent->nvals * sizeof(*v));
		if (v)
			ent->vals = v;
	}
	return 0;
}

static bool is_stack_name(const char *s, const char *e)
{
	return span_eq(s, e, "stacktrace") || span_eq(s, e, "common_stacktrace");
}

/* One entry: its '{' line is the reader's current line. */
static int entry_parse(struct parser *ps, struct khist_entry *ent)
{
	struct reader *r = &ps->r;
	const char *p, *q, *close, *vend;
	struct khist_key *k;
	bool hints = ps->nknames > 0;
	char mod[32];
	int ret;

	ent->line = r->line;
	ent->keys = calloc(KHIST_MAX_KEYS, sizeof(*ent->keys));
	if (!ent->keys)
		return -ENOMEM;
	close = line_close(r);
	p = r->ls + 1;
	for (;;) {
		p = skip_ws(p, r->le);
		if (close && p == close)
			break;
		if (p == r->le)
			return fail(ps, r->line, "expected a key or '}'");
		if (ent->nkeys) {
			if (*p != ',')
				return fail(ps, r->line, "expected ',' or '}' after key '%s'",
					    ent->keys[ent->nkeys - 1].name);
			p = skip_ws(p + 1, r->le);
		}
		if (ent->nkeys == KHIST_MAX_KEYS)
			return fail(ps, r->line, "more than %d keys", KHIST_MAX_KEYS);
		for (q = p; q < r->le && is_name_char(*q); q++)
			;
		if (q == p || q - p > KHIST_MAX_NAME)
			return fail(ps, r->line, "expected a key name");
		k = &ent->keys[ent->nkeys++];
		k->name = span_dup(p, q, KHIST_MAX_INPUT);
		if (!k->name)
			return -ENOMEM;
		if (span_ends(p, q, ".stacktrace") && (q == r->le || *q != ':')) {
			p = q;
			ret = key_frames(ps, k, &p, &close, ent->line);
			if (ret)
				return ret;
			continue;
		}
		if (q == r->le || *q != ':')
			return fail(ps, r->line, "expected ':' after key '%s'", k->name);
		p = skip_ws(q + 1, r->le);
		if (p == r->le && is_stack_name(k->name, k->name + strlen(k->name))) {
			ret = key_frames(ps, k, &p, &close, ent->line);
			if (ret)
				return ret;
			continue;
		}
		hints = hints && ent->nkeys <= ps->nknames &&
			!strcmp(k->name, ps->knames[ent->nkeys - 1]);
		vend = key_value_end(p, close ? close : r->le,
				     !hints ? NULL : ent->nkeys < ps->nknames ?
				     ps->knames[ent->nkeys] : "");
		if (!close && vend == r->le)
			return fail(ps, r->line, "expected '}' to close the entry");
		trigger_mod(ps->cur->trigger, true, k->name, mod, sizeof(mod));
		ret = key_value(ps, k, p, rtrim(p, vend), mod);
		if (ret)
			return ret;
		p = vend;
	}
	if (!ent->nkeys)
		return fail(ps, r->line, "entry has no key");
	k = realloc(ent->keys, ent->nkeys * sizeof(*k));
	if (k)
		ent->keys = k;
	return entry_vals(ps, ent, close + 1, r->le);
}

/* Close the current histogram: its Totals are complete or it is cut. */
static void hist_finish(struct parser *ps)
{
	struct khist_entry *e;

	if (!ps->cur)
		return;
	ps->cur->truncated = ps->totals_seen != TOT_ALL;
	if (ps->cur->truncated)
		ps->cur->hits = ps->cur->entries_total = ps->cur->dropped = 0;
	if (ps->cur->nentries) {
		e = realloc(ps->cur->entries, ps->cur->nentries * sizeof(*e));
		if (e)
			ps->cur->entries = e;
	}
}

static int hist_start(struct parser *ps)
{
	struct khist *hf = ps->hf;
	struct khist_hist *h;

	hist_finish(ps);
	h = mem_grow(hf->hists, &ps->cap_hists, hf->nhists, sizeof(*h));
	if (!h)
		return -ENOMEM;
	hf->hists = h;
	ps->cur = &hf->hists[hf->nhists++];
	memset(ps->cur, 0, sizeof(*ps->cur));
	ps->cur->line = ps->r.line;
	ps->cur->truncated = true;
	ps->cap_entries = 0;
	ps->in_totals = false;
	ps->after_entry = false;
	ps->totals_seen = 0;
	ps->nknames = 0;
	return 0;
}

/* "    Hits: 1377" */
static int totals_line(struct parser *ps, const char *s, const char *e)
{
	struct khist_hist *h = ps->cur;
	const char *colon = memchr(s, ':', (size_t)(e - s)), *v;
	uint64_t n;
	int ret;

	if (!colon)
		return fail(ps, ps->r.line, "expected 'Hits: N', 'Entries: N' or 'Dropped: N'");
	v = skip_ws(colon + 1, e);
	ret = span_u64(v, rtrim(v, e), 10, &n);
	if (ret)
		return fail(ps, ps->r.line, "%.*s: %s", (int)(colon - s), s,
			    ret == -ERANGE ? "number out of range" : "expected a number");
	if (span_eq(s, colon, "Hits")) {
		h->hits = n;
		ps->totals_seen |= TOT_HITS;
	} else if (span_eq(s, colon, "Entries")) {
		h->entries_total = n;
		ps->totals_seen |= TOT_ENTRIES;
	} else if (span_eq(s, colon, "Dropped")) {
		h->dropped = n;
		ps->totals_seen |= TOT_DROPPED;
	}
	/* other names: a newer kernel's addition, not an error */
	return 0;
}

static int header_line(struct parser *ps, const char *s, const char *e)
{
	static const char info[] = "# trigger info: ";
	int ret;

	if (span_starts(s, e, "# event histogram"))
		return hist_start(ps);
	if (!span_starts(s, e, info))
		return 0;		/* "#" spacer lines */
	if (!ps->cur || ps->cur->nentries || ps->in_totals) {
		ret = hist_start(ps);
		if (ret)
			return ret;
	}
	if (ps->cur->trigger)
		return fail(ps, ps->r.line, "second '# trigger info:' line for one histogram");
	s += sizeof(info) - 1;
	ps->cur->trigger = span_dup(s, rtrim(s, e), KHIST_MAX_INPUT);
	if (!ps->cur->trigger)
		return -ENOMEM;
	ps->nknames = trigger_keys(ps->cur->trigger, ps->knames, KHIST_MAX_KEYS);
	return 0;
}

static int entry_add(struct parser *ps)
{
	struct khist_hist *h;
	struct khist_entry *e;
	int ret;

	if (!ps->cur) {
		ret = hist_start(ps);
		if (ret)
			return ret;
	}
	h = ps->cur;
	if (ps->in_totals)
		return fail(ps, ps->r.line, "entry after Totals: expected '# event histogram' first");
	e = mem_grow(h->entries, &ps->cap_entries, h->nentries, sizeof(*e));
	if (!e)
		return -ENOMEM;
	h->entries = e;
	e = &h->entries[h->nentries];
	memset(e, 0, sizeof(*e));
	ret = entry_parse(ps, e);
	if (ret) {
		entry_fini(e);
		return ret;
	}
	h->nentries++;
	ps->after_entry = true;
	return 0;
}

static int parse_lines(struct parser *ps)
{
	struct reader *r = &ps->r;
	const char *s, *e;
	int ret;

	while (reader_next(r)) {
		s = r->ls;
		e = r->le;
		if (skip_ws(s, e) == e)
			continue;
		if (*s == '#') {
			ret = header_line(ps, s, e);
		} else if (*s == '{') {
			ret = entry_add(ps);
		} else if (ps->in_totals && is_blank(*s)) {
			ret = totals_line(ps, skip_ws(s, e), rtrim(s, e));
		} else if (*s == '\t' && ps->after_entry && !ps->in_totals) {
			ret = 0;	/* onmax()/onchange() output */
		} else if (span_eq(s, rtrim(s, e), "Totals:")) {
			if (!ps->cur) {
				ret = hist_start(ps);
				if (ret)
					return ret;
			}
			if (ps->in_totals)
				return fail(ps, r->line, "second 'Totals:' for one histogram");
			ps->in_totals = true;
			ret = 0;
		} else {
			ret = fail(ps, r->line, "expected a '{' entry, 'Totals:' or a '#' line");
		}
		if (ret)
			return ret;
	}
	hist_finish(ps);
	return 0;
}

int khist_parse(const char *text, size_t len, struct khist **out,
		   char *err, size_t errlen)
{
	struct parser ps;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	memset(&ps, 0, sizeof(ps));
	ps.err = err;
	ps.errlen = errlen;
	if ((ret = text_open(&ps.r, text, len, KHIST_MAX_INPUT, err, errlen)))
		return ret;
	ps.hf = calloc(1, sizeof(*ps.hf));
	if (!ps.hf)
		return -ENOMEM;
	ret = parse_lines(&ps);
	if (ret) {
		khist_free(ps.hf);
		return ret;
	}
	*out = ps.hf;
	return 0;
}

void khist_free(struct khist *hf)
{
	size_t i, j;

	if (!hf)
		return;
	for (i = 0; i < hf->nhists; i++) {
		struct khist_hist *h = &hf->hists[i];

		for (j = 0; j < h->nentries; j++)
			entry_fini(&h->entries[j]);
		free(h->entries);
		free(h->trigger);
	}
	free(hf->hists);
	free(hf);
}

const struct khist_key *khist_entry_key(const struct khist_entry *e,
					      const char *name)
{
	size_t i;

	for (i = 0; i < e->nkeys; i++)
		if (!strcmp(e->keys[i].name, name))
			return &e->keys[i];
	return NULL;
}

int khist_entry_val(const struct khist_entry *e, const char *name,
		       uint64_t *value)
{
	size_t i;

	for (i = 0; i < e->nvals; i++) {
		if (!strcmp(e->vals[i].name, name)) {
			*value = e->vals[i].value;
			return 0;
		}
	}
	return -ENOENT;
}

uint64_t khist_hist_sum(const struct khist_hist *h, const char *name)
{
	uint64_t sum = 0, v;
	size_t i;

	for (i = 0; i < h->nentries; i++) {
		if (khist_entry_val(&h->entries[i], name, &v))
			continue;
		sum = sum + v < sum ? UINT64_MAX : sum + v;
	}
	return sum;
}

const char *khist_key_kind_name(enum khist_key_kind k)
{
	switch (k) {
	case KHIST_KEY_NUMBER:
		return "number";
	case KHIST_KEY_LOG2:
		return "log2";
	case KHIST_KEY_BUCKETS:
		return "buckets";
	case KHIST_KEY_STACK:
		return "stack";
	case KHIST_KEY_COMM:
		return "comm";
	case KHIST_KEY_SYM:
		return "sym";
	case KHIST_KEY_SYSCALL:
		return "syscall";
	case KHIST_KEY_STRING:
		return "string";
	}
	return "unknown";
}
