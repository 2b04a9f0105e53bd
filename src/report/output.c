// SPDX-License-Identifier: GPL-2.0-or-later
/* Text layouts of the histogram peers print, byte for byte. */
#include <inttypes.h>
#include <string.h>

#include "report.h"

/* BCC row r: r = 0 is values 0 and 1, r >= 1 is slot r + 1 */
static uint64_t bcc_row_count(const struct hist *h, int r)
{
	return r == 0 ? h->slot[0] + h->slot[1] : h->slot[r + 1];
}

/*
 * BCC's print_log2_hist(): rows from "0 -> 1" up to the highest non-empty
 * one, stars = floor(width * count / max); past index 32 the wide layout.
 */
void out_hist_bcc(FILE *f, const struct hist *h, const char *unit)
{
	int top = hist_max_slot(h), rows, r;
	uint64_t vmax = 0;
	int wide, stars, width;

	if (top < 0)
		return;
	rows = top <= 1 ? 1 : top;	/* rows 0 .. rows-1 */
	for (r = 0; r < rows; r++)
		if (bcc_row_count(h, r) > vmax)
			vmax = bcc_row_count(h, r);
	/* BCC's index of row r is r + 1; > 32 switches layout */
	wide = rows > 32;
	stars = wide ? 20 : 40;
	width = wide ? 20 : 10;
	if (wide)
		fprintf(f, "               %-29s : count     distribution\n", unit);
	else
		fprintf(f, "     %-19s : count     distribution\n", unit);
	for (r = 0; r < rows; r++) {
		uint64_t low = r == 0 ? 0 : 1ULL << r;
		uint64_t high = r >= 63 ? UINT64_MAX : (2ULL << r) - 1;
		uint64_t val = bcc_row_count(h, r);
		int n = (int)((unsigned __int128)val * stars / vmax), i;

		fprintf(f, "%*" PRIu64 " -> %-*" PRIu64 " : %-8" PRIu64 " |",
			width, low, width, high, val);
		for (i = 0; i < stars; i++)
			fputc(i < n ? '*' : ' ', f);
		fputs("|\n", f);
	}
}

void out_hist_bcc_linear(FILE *f, const uint64_t *val, unsigned n, const char *name,
			 const char *unit)
{
	uint64_t max = 0;
	int i, last = -1;

	for (i = 0; i < (int)n; i++) {
		if (val[i])
			last = i;
		if (val[i] > max)
			max = val[i];
	}
	if (last < 0)
		return;
	fprintf(f, "     %-13s : %s     distribution\n", name, unit);
	for (i = 0; i <= last; i++) {
		unsigned stars = max ? (unsigned)(40 * val[i] / max) : 0;

		fprintf(f, "        %-10d : %-8" PRIu64 " |%-*.*s%*s|\n", i, val[i], (int)stars,
			(int)stars, "****************************************", 40 - (int)stars, "");
	}
}

/* bpftrace's hist_index_label(): 2^power with K/M/G/T for powers of 1024 */
static void bt_label(char *buf, size_t len, unsigned power)
{
	const char *suffix = "";

	if (power >= 40) {
		suffix = "T";
		power -= 40;
	} else if (power >= 30) {
		suffix = "G";
		power -= 30;
	} else if (power >= 20) {
		suffix = "M";
		power -= 20;
	} else if (power >= 10) {
		suffix = "K";
		power -= 10;
	}
	snprintf(buf, len, "%" PRIu64 "%s", (uint64_t)1 << power, suffix);
}

/*
 * bpftrace's TextOutput::hist(): rows from the lowest to the highest
 * non-empty bucket; label left in 16, count right in 8, bar of
 * (int)(count / (float)max * 52) '@', computed in float as bpftrace does
 * so rounding matches.
 */
void out_hist_bpftrace(FILE *f, const struct hist *h)
{
	int lo = hist_min_slot(h), hi = hist_max_slot(h), k;
	uint64_t vmax = 0;

	if (hi < 0)
		return;
	for (k = lo; k <= hi; k++)
		if (h->slot[k] > vmax)
			vmax = h->slot[k];
	for (k = lo; k <= hi; k++) {
		char label[64], a[24], b[24];
		float q = (float)h->slot[k] / (float)vmax;
		int bar = (int)(q * 52.0f), i;

		if (k <= 1) {
			snprintf(label, sizeof(label), "[%d]", k);
		} else {
			bt_label(a, sizeof(a), (unsigned)k - 1);
			bt_label(b, sizeof(b), (unsigned)k);
			snprintf(label, sizeof(label), "[%s, %s)", a, b);
		}
		fprintf(f, "%-16s%8" PRIu64 " |", label, h->slot[k]);
		for (i = 0; i < 52; i++)
			fputc(i < bar ? '@' : ' ', f);
		fputs("|\n", f);
	}
}

void out_hist_summary(FILE *f, const struct hist *h, const char *unit,
		      uint64_t unit_ns)
{
	double avg = h->count ? (double)h->sum_ns / (double)h->count / (double)unit_ns : 0;

	fprintf(f, "count=%" PRIu64 " avg=%.1f p50=%" PRIu64 " p90=%" PRIu64
		" p99=%" PRIu64 " max=%" PRIu64 " (%s)\n",
		h->count, avg, hist_percentile(h, 50), hist_percentile(h, 90),
		hist_percentile(h, 99), h->count ? h->max : 0, unit);
}
