// SPDX-License-Identifier: GPL-2.0-or-later
/* compare: two histograms normalized to one unit and bucketing, and their distance. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "compare.h"
#include "escape.h"
#include "report.h"

static uint64_t row_low(int r)
{
	return r == 0 ? 0 : 1ULL << r;
}

static uint64_t row_high(int r)
{
	return r >= 63 ? UINT64_MAX : (2ULL << r) - 1;
}

static int row_of(uint64_t us)
{
	return us < 2 ? 0 : 63 - __builtin_clzll(us);
}

/* Spread @count over the rows that [lo, hi] (us, inclusive) covers. */
static void add_range(struct cmp_dist *d, uint64_t lo, uint64_t hi, double count)
{
	int r0 = row_of(lo), r1 = row_of(hi), r;
	double width = (double)(hi - lo) + 1;

	if (r0 == r1) {
		d->row[r0] += count;
		return;
	}
	/* values are assumed uniform inside an input bucket */
	d->split++;
	for (r = r0; r <= r1; r++) {
		uint64_t a = lo > row_low(r) ? lo : row_low(r);
		uint64_t b = hi < row_high(r) ? hi : row_high(r);

		d->row[r] += count * ((double)(b - a) + 1) / width;
	}
}

int cmp_normalize(const struct peerhist *h, uint64_t unit_ns, struct cmp_dist *d,
		  char *err, size_t errlen)
{
	size_t g, i;

	memset(d, 0, sizeof(*d));
	if (!unit_ns)
		unit_ns = h->unit_ns;
	if (!unit_ns) {
		snprintf(err, errlen, "the unit of the histogram is unknown (%s%s%s)",
			 h->unit[0] ? "'" : "", h->unit[0] ? h->unit : "not stated",
			 h->unit[0] ? "'" : "");
		return -EINVAL;
	}
	d->partial = h->partial;
	for (g = 0; g < h->ng; g++) {
		const struct peerhist_group *grp = &h->g[g];

		d->negative += grp->negative;
		for (i = 0; i < grp->nb; i++) {
			const struct peerhist_bucket *b = &grp->b[i];
			unsigned __int128 lo_ns, hi_ns;
			uint64_t lo, hi;

			if (!b->count)
				continue;
			/* [low, high] in the unit -> every ns they stand for -> us */
			lo_ns = (unsigned __int128)b->low * unit_ns;
			hi_ns = ((unsigned __int128)b->high + 1) * unit_ns - 1;
			lo = lo_ns / 1000 > UINT64_MAX ? UINT64_MAX : (uint64_t)(lo_ns / 1000);
			hi = hi_ns / 1000 > UINT64_MAX ? UINT64_MAX : (uint64_t)(hi_ns / 1000);
			add_range(d, lo, hi, (double)b->count);
			d->total += (double)b->count;
		}
	}
	return 0;
}

double cmp_distance(const struct cmp_dist *a, const struct cmp_dist *b)
{
	double s = 0;
	int r;

	if (a->total == 0 && b->total == 0)
		return 0;
	if (a->total == 0 || b->total == 0)
		return 1;
	for (r = 0; r < CMP_ROWS; r++)
		s += fabs(a->row[r] / a->total - b->row[r] / b->total);
	return s / 2;
}

int cmp_quantile_row(const struct cmp_dist *d, double q)
{
	double want = q * d->total, seen = 0;
	int r;

	if (d->total <= 0)
		return -1;
	for (r = 0; r < CMP_ROWS; r++) {
		seen += d->row[r];
		/* a small epsilon: split buckets leave fractions */
		if (d->row[r] > 0 && seen >= want - 1e-9)
			return r;
	}
	return CMP_ROWS - 1;
}

static int top_row(const struct cmp_dist *d)
{
	int r;

	for (r = CMP_ROWS - 1; r >= 0; r--)
		if (d->row[r] > 1e-9)
			return r;
	return -1;
}

static int bottom_row(const struct cmp_dist *d)
{
	int r;

	for (r = 0; r < CMP_ROWS; r++)
		if (d->row[r] > 1e-9)
			return r;
	return -1;
}

static void row_label(char *buf, size_t len, int r)
{
	if (r < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%" PRIu64 " -> %" PRIu64, row_low(r), row_high(r));
}

static void print_count(FILE *f, double v)
{
	/* whole numbers unless a split bucket left a fraction */
	if (fabs(v - round(v)) < 1e-6)
		fprintf(f, "%12.0f", v);
	else
		fprintf(f, "%12.1f", v);
}

void cmp_print(FILE *f, const struct cmp_side *a, const struct cmp_side *b,
	       double tolerance, bool have_tolerance)
{
	const struct cmp_side *s[2] = { a, b };
	int lo, hi, r, i;
	double dist = cmp_distance(a->d, b->d);
	char la[64], lb[64];

	for (i = 0; i < 2; i++) {
		/* names as given, shown as report shows task names: no control character */
		fprintf(f, "%c: ", 'A' + i);
		text_field(f, s[i]->name, 4096, 0);
		fputs(" (", f);
		text_field(f, s[i]->what, 256, 0);
		fprintf(f, "): %.0f intervals", s[i]->d->total);
		if (s[i]->d->partial)
			fputs(", partial (its source says intervals are missing: events lost, entries "
			      "dropped or waits not measured)", f);
		if (s[i]->d->negative)
			fprintf(f, ", %" PRIu64 " negative values left out", s[i]->d->negative);
		if (s[i]->d->split)
			fprintf(f, ", %u buckets spread over several rows (approximate)",
				s[i]->d->split);
		fputc('\n', f);
	}
	lo = bottom_row(a->d);
	r = bottom_row(b->d);
	if (lo < 0 || (r >= 0 && r < lo))
		lo = r;
	hi = top_row(a->d) > top_row(b->d) ? top_row(a->d) : top_row(b->d);
	fprintf(f, "\n     usecs               :      count A  share A |      count B  share B\n");
	for (r = lo < 0 ? 0 : lo; lo >= 0 && r <= hi; r++) {
		fprintf(f, "%10" PRIu64 " -> %-10" PRIu64 " : ", row_low(r), row_high(r));
		print_count(f, a->d->row[r]);
		fprintf(f, " %7.1f%% |", a->d->total ? 100 * a->d->row[r] / a->d->total : 0);
		print_count(f, b->d->row[r]);
		fprintf(f, " %7.1f%%\n", b->d->total ? 100 * b->d->row[r] / b->d->total : 0);
	}
	row_label(la, sizeof(la), cmp_quantile_row(a->d, 0.5));
	row_label(lb, sizeof(lb), cmp_quantile_row(b->d, 0.5));
	fprintf(f, "\n%-26s: %-22s| %s\n", "p50 bucket", la, lb);
	row_label(la, sizeof(la), cmp_quantile_row(a->d, 0.99));
	row_label(lb, sizeof(lb), cmp_quantile_row(b->d, 0.99));
	fprintf(f, "%-26s: %-22s| %s\n", "p99 bucket", la, lb);
	row_label(la, sizeof(la), top_row(a->d));
	row_label(lb, sizeof(lb), top_row(b->d));
	fprintf(f, "%-26s: %-22s| %s\n", "max bucket", la, lb);
	fprintf(f, "%-26s: %.0f / %.0f\n", "count", a->d->total, b->d->total);
	fprintf(f, "\ndistance: %.4f (total variation between the shapes: 0 same, 1 disjoint)\n",
		dist);
	if (have_tolerance)
		fprintf(f, "%s: distance %.4f %s tolerance %.4f\n",
			dist <= tolerance ? "agree" : "DIFFER", dist,
			dist <= tolerance ? "<=" : ">", tolerance);
	cmp_print_explain(f, a, b);
}

static void json_side(FILE *f, const struct cmp_side *s)
{
	int r, first = 1;

	fputs("{\"name\":", f);
	json_str(f, s->name, 4096);
	fputs(",\"what\":", f);
	json_str(f, s->what, 256);
	fprintf(f, ",\"count\":%.3f,\"partial\":%s,\"negative\":%" PRIu64 ",\"split\":%u"
		",\"p50_row\":%d,\"p99_row\":%d,\"max_row\":%d,\"rows\":[",
		s->d->total, s->d->partial ? "true" : "false", s->d->negative, s->d->split,
		cmp_quantile_row(s->d, 0.5), cmp_quantile_row(s->d, 0.99), top_row(s->d));
	for (r = 0; r < CMP_ROWS; r++) {
		if (s->d->row[r] <= 1e-9)
			continue;
		fprintf(f, "%s{\"row\":%d,\"low\":%" PRIu64 ",\"high\":%" PRIu64 ",\"count\":%.3f}",
			first ? "" : ",", r, row_low(r), row_high(r), s->d->row[r]);
		first = 0;
	}
	fputs("]}", f);
}

void cmp_print_json(FILE *f, const struct cmp_side *a, const struct cmp_side *b,
		    double tolerance, bool have_tolerance)
{
	double dist = cmp_distance(a->d, b->d);

	fputs("{\"unit\":\"usecs\",\"a\":", f);
	json_side(f, a);
	fputs(",\"b\":", f);
	json_side(f, b);
	fprintf(f, ",\"distance\":%.6f", dist);
	if (have_tolerance)
		fprintf(f, ",\"tolerance\":%.6f,\"agree\":%s", tolerance,
			dist <= tolerance ? "true" : "false");
	cmp_print_explain_json(f, a, b);
	fputs("}\n", f);
}
