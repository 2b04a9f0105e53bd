/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cross-validation: two latency histograms from any tool, normalized onto
 * one grid (microseconds, BCC's rows: 0-1, 2-3, 4-7, ...), then compared
 * bucket by bucket and by total variation distance.
 */
#ifndef OFFCPU_COMPARE_H
#define OFFCPU_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "peerhist.h"

#define CMP_ROWS 64	/* row 0: 0..1 us; row r: [2^r, 2^(r+1) - 1] us */

struct cmp_dist {
	double row[CMP_ROWS];
	double total;
	uint64_t negative;	/* bpftrace's (..., 0): not comparable, counted */
	unsigned split;		/* input buckets spread over several rows */
	bool partial;		/* the source said it is incomplete */
};

/*
 * Normalize one histogram (all groups merged). @unit_ns 0 takes the
 * histogram's own unit. Returns 0, or -EINVAL with the reason in @err.
 */
int cmp_normalize(const struct peerhist *h, uint64_t unit_ns, struct cmp_dist *d,
		  char *err, size_t errlen);
/* Total variation distance between the normalized shapes: 0..1. */
double cmp_distance(const struct cmp_dist *a, const struct cmp_dist *b);
/* Row holding the @q quantile (0 < q <= 1); -1 when empty. */
int cmp_quantile_row(const struct cmp_dist *d, double q);

struct cmp_side {
	const char *name;	/* file name or "offcpu-ftrace" */
	const char *what;	/* format and map, e.g. "bpftrace @usecs" */
	const struct cmp_dist *d;
};

/* Side by side, with count, p50, p99, max row and the distance. */
void cmp_print(FILE *f, const struct cmp_side *a, const struct cmp_side *b,
	       double tolerance, bool have_tolerance);
void cmp_print_json(FILE *f, const struct cmp_side *a, const struct cmp_side *b,
		    double tolerance, bool have_tolerance);

#endif
