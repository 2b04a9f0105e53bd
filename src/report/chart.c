// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Histograms as pictures: one window's log2 buckets as a bar chart per
 * group, with counts and p50/p90/p99 marked; and -i's intervals as a
 * latency heat map (x: time, y: bucket, colour: count), one panel for all
 * threads and one for each of the largest groups.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grow.h"
#include "report_local.h"
#include "svg.h"

#define CHART_W 900u
#define LEFT 90u
#define BAR_H 96u
#define PANEL_H 200u
#define DEFAULT_TOP 12u		/* groups drawn without --top */
#define MAX_ROWS 512u		/* groups a heat map keeps apart */
#define MAX_CELLS (1u << 20)	/* bucket counts a heat map keeps */

/* "16-31" (or "0-1") of slot @k */
static void bucket_label(char *buf, size_t len, unsigned k)
{
	snprintf(buf, len, "%" PRIu64 "-%" PRIu64, hist_slot_low(k), hist_slot_high(k));
}

/* "pid 42 make", "cpu 1", "comm make", or "all threads" */
static void group_name(char *buf, size_t len, const struct report *r, const struct group *g)
{
	const char *kn = report_key_name(r->key);

	if (!kn)
		snprintf(buf, len, "all selected threads");
	else if (g->id == GROUP_OTHER)
		snprintf(buf, len, "%s (other: --max-groups reached)", kn);
	else if (report_key_named(r->key))
		snprintf(buf, len, "%s %.80s", kn, report_group_name(r, g));
	else if (r->key == KEY_CPU)
		snprintf(buf, len, "cpu %" PRId64, g->id);
	else
		snprintf(buf, len, "%s %" PRId64 " %.16s", kn, g->id, g->comm);
}

static void chart(FILE *f, const struct report *r, const struct group *g, unsigned y)
{
	const struct hist *h = &g->h;
	int lo = hist_min_slot(h), hi = hist_max_slot(h), k;
	uint64_t max = 0;
	char name[96], lab[48];
	double bw;
	static const unsigned ps[] = { 50, 90, 99 };

	group_name(name, sizeof(name), r, g);
	fprintf(f, "<text x=\"%u\" y=\"%u\">", LEFT, y + 14);
	svg_escape(f, name, sizeof(name));
	fprintf(f, ": %" PRIu64 " intervals", h->count);
	if (h->count && hist_timed(h))
		fprintf(f, ", p50 %" PRIu64 ", p90 %" PRIu64 ", p99 %" PRIu64 ", max %" PRIu64 " %s",
			hist_percentile(h, 50), hist_percentile(h, 90), hist_percentile(h, 99),
			h->max, r->unit);
	fputs("</text>\n", f);
	if (!h->count || !hist_timed(h) || lo < 0) {
		char t[32];

		report_human_ns(t, sizeof(t), (double)h->sum_ns);
		fprintf(f, "<text x=\"%u\" y=\"%u\" class=\"status\">%s</text>\n", LEFT, y + 60,
			!h->count ? "no intervals ended in the window" : "");
		if (h->count)
			fprintf(f, "<text x=\"%u\" y=\"%u\" class=\"status\">total %s, sampled from "
				"/proc: no distribution</text>\n", LEFT, y + 60, t);
		return;
	}
	for (k = lo; k <= hi; k++)
		if (h->slot[k] > max)
			max = h->slot[k];
	bw = (double)(CHART_W - LEFT - 20) / (double)(hi - lo + 1);
	for (k = lo; k <= hi; k++) {
		double x = LEFT + (k - lo) * bw, bh = max ? (double)BAR_H * (double)h->slot[k] /
						       (double)max : 0;
		unsigned base = y + 56 + BAR_H;

		bucket_label(lab, sizeof(lab), (unsigned)k);
		fprintf(f, "<g><title>%s %s: %" PRIu64 "</title><rect x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"%.1f\" fill=\"rgb(70,110,190)\"/></g>\n", lab,
			r->unit, h->slot[k], x + 1, base - bh, bw - 2, bh);
		if (h->slot[k])
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
				"font-size=\"10\">%" PRIu64 "</text>\n", x + bw / 2, base - bh - 3,
				h->slot[k]);
		fprintf(f, "<text x=\"%.1f\" y=\"%u\" text-anchor=\"end\" font-size=\"10\" "
			"transform=\"rotate(-40 %.1f %u)\">%s</text>\n", x + bw / 2, base + 12,
			x + bw / 2, base + 12, lab);
	}
	for (k = 0; k < 3; k++) {
		unsigned s = hist_slot_of(hist_percentile(h, ps[k]));
		double x = LEFT + ((double)s - lo + 0.5) * bw;

		/* the labels above the bars, one row each: never on top of each other */
		fprintf(f, "<line x1=\"%.1f\" y1=\"%u\" x2=\"%.1f\" y2=\"%u\" stroke=\"rgb(200,60,40)\" "
			"stroke-dasharray=\"4,3\"/><text x=\"%.1f\" y=\"%u\" font-size=\"10\" "
			"fill=\"rgb(200,60,40)\">p%u</text>\n", x, y + 20 + k * 11, x, y + 56 + BAR_H,
			x + 3, y + 28 + k * 11, ps[k]);
	}
	fprintf(f, "<text x=\"%u\" y=\"%u\" font-size=\"10\" text-anchor=\"end\">%s</text>\n",
		LEFT - 6, y + 56 + BAR_H, r->unit);
}

void svg_charts(FILE *f, struct report *r)
{
	struct groups *gs = r->groups;
	uint32_t i, shown, top = r->top ? r->top : DEFAULT_TOP;
	unsigned height, y;
	char title[128], status[512];
	struct group all;

	if (r->key == KEY_CPU)
		groups_sort(gs);
	else
		groups_sort_by_total(gs);
	shown = gs->n < top ? gs->n : top;
	memset(&all, 0, sizeof(all));
	hist_reset(&all.h);
	snprintf(title, sizeof(title), "%s (%s), %s", report_measure_title(r->measure),
		 r->command, r->unit);
	svg_status(status, sizeof(status), r);
	height = 100 + (shown ? shown : 1) * PANEL_H + (shown < gs->n ? 20 : 0);
	svg_begin(f, CHART_W, height);
	y = svg_heading(f, CHART_W, title, status);
	if (!gs->n)
		chart(f, r, &all, y);
	for (i = 0; i < shown; i++)
		chart(f, r, gs->v[i], y + i * PANEL_H);
	if (shown < gs->n)
		fprintf(f, "<text x=\"%u\" y=\"%u\" class=\"status\">and %u more groups not drawn "
			"(--top)</text>\n", LEFT, height - 12, gs->n - shown);
	svg_end(f);
}

/* ---- heat map ---- */

struct heat_row {
	int64_t id;
	char comm[COMM_LEN];
	uint64_t ns;
};

struct heat_cell {
	uint32_t iv;
	uint16_t row;
	uint8_t slot;
	uint64_t n;
};

struct heat {
	uint32_t niv;
	size_t capiv;
	time_t *wall;			/* each interval's end */
	struct heat_row rows[MAX_ROWS];	/* 0: all groups merged */
	uint32_t nrows;
	struct heat_cell *cells;
	size_t ncells, cap;
	bool truncated;			/* MAX_CELLS reached: groups no longer kept */
	bool other;			/* groups beyond MAX_ROWS went to one row */
};

struct heat *heat_new(void)
{
	struct heat *h = calloc(1, sizeof(*h));

	if (h)
		h->nrows = 1;
	return h;
}

void heat_free(struct heat *h)
{
	if (!h)
		return;
	free(h->wall);
	free(h->cells);
	free(h);
}

static int cell(struct heat *h, uint32_t iv, uint32_t row, unsigned slot, uint64_t n)
{
	struct heat_cell *v;

	if (h->ncells >= MAX_CELLS) {
		h->truncated = true;
		return -ENOSPC;
	}
	v = mem_grow_from(h->cells, &h->cap, h->ncells, sizeof(*v), 4096);
	if (!v)
		return -ENOMEM;
	h->cells = v;
	h->cells[h->ncells++] = (struct heat_cell){ iv, (uint16_t)row, (uint8_t)slot, n };
	return 0;
}

static uint32_t row_of(struct heat *h, const struct group *g)
{
	uint32_t i;

	for (i = 1; i < h->nrows; i++)
		if (h->rows[i].id == g->id)
			return i;
	if (h->nrows == MAX_ROWS) {
		h->other = true;
		return MAX_ROWS - 1;
	}
	h->rows[h->nrows].id = g->id;
	memcpy(h->rows[h->nrows].comm, g->comm, COMM_LEN);
	return h->nrows++;
}

int heat_add(struct heat *h, const struct report *r)
{
	const struct groups *gs = r->groups;
	uint64_t all[HIST_SLOTS] = { 0 };
	uint32_t iv = h->niv, i, row;
	unsigned k;
	time_t *w = mem_grow_from(h->wall, &h->capiv, h->niv, sizeof(*w), 64);

	if (!w)
		return -ENOMEM;
	h->wall = w;
	h->wall[h->niv++] = r->wall;
	for (i = 0; i < gs->n; i++) {
		const struct group *g = gs->v[i];

		h->rows[0].ns += g->h.sum_ns;
		for (k = 0; k < HIST_SLOTS; k++)
			all[k] += g->h.slot[k];
		if (r->key == KEY_NONE || h->truncated)
			continue;
		row = row_of(h, g);
		h->rows[row].ns += g->h.sum_ns;
		for (k = 0; k < HIST_SLOTS; k++)
			if (g->h.slot[k] && cell(h, iv, row, k, g->h.slot[k]) == -ENOMEM)
				return -ENOMEM;
	}
	for (k = 0; k < HIST_SLOTS; k++)
		if (all[k] && cell(h, iv, 0, k, all[k]) == -ENOMEM)
			return -ENOMEM;
	return 0;
}

/* white (few) to dark red (many), on a log scale of the panel's largest count */
static void heat_colour(char *buf, size_t len, uint64_t n, uint64_t max)
{
	double v = max > 1 ? log1p((double)n) / log1p((double)max) : 1;
	unsigned r = 255 - (unsigned)(75 * v), g = 245 - (unsigned)(235 * v),
		 b = 220 - (unsigned)(210 * v);

	snprintf(buf, len, "rgb(%u,%u,%u)", r, g, b);
}

static void panel(FILE *f, const struct heat *h, const struct report *r, uint32_t row,
		  unsigned y, double cw)
{
	int lo = HIST_SLOTS, hi = -1;
	uint64_t max = 0;
	size_t i;
	unsigned ch = 12, rows;
	char name[96], col[32], lab[48];

	for (i = 0; i < h->ncells; i++)
		if (h->cells[i].row == row) {
			lo = h->cells[i].slot < lo ? h->cells[i].slot : lo;
			hi = h->cells[i].slot > hi ? h->cells[i].slot : hi;
			max = h->cells[i].n > max ? h->cells[i].n : max;
		}
	if (row == 0) {
		snprintf(name, sizeof(name), "all selected threads");
	} else {
		struct group g = { .id = h->rows[row].id };

		memcpy(g.comm, h->rows[row].comm, COMM_LEN);
		group_name(name, sizeof(name), r, &g);
	}
	fprintf(f, "<text x=\"%u\" y=\"%u\">", LEFT, y + 14);
	svg_escape(f, name, sizeof(name));
	fputs("</text>\n", f);
	if (hi < 0) {
		fprintf(f, "<text x=\"%u\" y=\"%u\" class=\"status\">no intervals</text>\n", LEFT,
			y + 40);
		return;
	}
	rows = (unsigned)(hi - lo + 1);
	for (i = 0; i < h->ncells; i++) {
		const struct heat_cell *c = &h->cells[i];
		struct tm tm;
		char when[16];

		if (c->row != row)
			continue;
		localtime_r(&h->wall[c->iv], &tm);
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
		heat_colour(col, sizeof(col), c->n, max);
		bucket_label(lab, sizeof(lab), c->slot);
		fprintf(f, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" fill=\"%s\">"
			"<title>%s, %s %s: %" PRIu64 "</title></rect>\n", LEFT + c->iv * cw,
			y + 22 + (unsigned)(hi - c->slot) * ch, cw, ch, col, when, lab, r->unit, c->n);
	}
	for (i = 0; i < rows; i++) {
		bucket_label(lab, sizeof(lab), (unsigned)hi - (unsigned)i);
		fprintf(f, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\" font-size=\"9\">%s</text>\n",
			LEFT - 4, y + 22 + (unsigned)i * ch + 10, lab);
	}
	fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%.2f\" height=\"%u\" fill=\"none\" "
		"stroke=\"#999\"/>\n", LEFT, y + 22, cw * h->niv, rows * ch);
}

static int cmp_row(const void *a, const void *b, void *arg)
{
	const struct heat *h = arg;
	uint64_t x = h->rows[*(const uint32_t *)a].ns, y = h->rows[*(const uint32_t *)b].ns;

	return x < y ? 1 : x > y ? -1 : 0;
}

void svg_heatmap(FILE *f, const struct heat *h, const struct report *last)
{
	uint32_t order[MAX_ROWS], n = 0, i, top = last->top ? last->top : DEFAULT_TOP / 2;
	unsigned y, height, *panel_y, py;
	double cw = h->niv ? (double)(CHART_W - LEFT - 20) / h->niv : 1;
	char title[160], status[512], t0[16], t1[16];
	struct tm tm;
	size_t i2;

	for (i = 1; i < h->nrows; i++)
		order[n++] = i;
	qsort_r(order, n, sizeof(order[0]), cmp_row, (void *)h);
	if (n > top)
		n = top;
	panel_y = calloc(n + 1, sizeof(*panel_y));
	/* a panel is as tall as its rows of buckets */
	height = 100;	/* the heading: a title and up to three lines of status */
	for (i = 0; i <= n; i++) {
		uint32_t row = i ? order[i - 1] : 0;
		int lo = HIST_SLOTS, hi = -1;

		for (i2 = 0; i2 < h->ncells; i2++)
			if (h->cells[i2].row == row) {
				lo = h->cells[i2].slot < lo ? h->cells[i2].slot : lo;
				hi = h->cells[i2].slot > hi ? h->cells[i2].slot : hi;
			}
		if (panel_y)
			panel_y[i] = height;
		height += 40 + (hi >= 0 ? (unsigned)(hi - lo + 1) * 12 : 20);
	}
	height += 24;	/* the legend */
	snprintf(title, sizeof(title), "%s (%s) over %u intervals, %s",
		 report_measure_title(last->measure), last->command, h->niv, last->unit);
	t0[0] = t1[0] = '\0';
	if (h->niv) {
		localtime_r(&h->wall[0], &tm);
		strftime(t0, sizeof(t0), "%H:%M:%S", &tm);
		localtime_r(&h->wall[h->niv - 1], &tm);
		strftime(t1, sizeof(t1), "%H:%M:%S", &tm);
	}
	svg_status(status, sizeof(status), last);
	snprintf(status + strlen(status), sizeof(status) - strlen(status), " (the last "
		 "interval); %s to %s%s", t0, t1, h->truncated ? "; groups no longer kept past 1M "
		 "buckets" : "");
	svg_begin(f, CHART_W, height);
	y = svg_heading(f, CHART_W, title, status);
	(void)y;
	for (i = 0; i <= n; i++) {
		py = panel_y ? panel_y[i] : 80;
		panel(f, h, last, i ? order[i - 1] : 0, py, cw);
	}
	fprintf(f, "<text x=\"%u\" y=\"%u\" class=\"status\">x: time (a column per interval), "
		"y: bucket, colour: count (log)%s</text>\n", LEFT, height - 12,
		h->nrows - 1 > n ? "; the largest groups (--top)" : "");
	svg_end(f);
	free(panel_y);
}
