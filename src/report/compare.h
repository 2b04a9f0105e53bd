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

/* Who made a histogram, as far as its text says. */
enum cmp_tool {
	CMP_UNKNOWN,
	CMP_OURS,		/* offcpu-ftrace: its JSON, or its text's trailer */
	CMP_RUNQLAT,		/* "Tracing run queue latency": BCC's or libbpf-tools' */
	CMP_RUNQLAT_BT,		/* "Tracing CPU scheduler": bpftrace's runqlat.bt */
	CMP_CPUDIST,		/* "Tracing on-CPU time": BCC's or libbpf-tools' cpudist */
	CMP_CPUDIST_OFF,	/* "Tracing off-CPU time": cpudist -O */
};

struct cmp_source {
	enum cmp_tool tool;
	char command[16];	/* ours: runq, oncpu, offcpu... */
	char compat[16];	/* ours: --compat given ("libbpf-tools"), "" not */
	char backend[8];	/* ours */
	bool off;		/* ours: oncpu -O (off-CPU intervals) */
	bool idle_section;	/* a "pid = 0" or "tid = 0" section: libbpf-tools'
				 * cpudist times the idle task, BCC's python does not */
};

/* Who made @text (@format as detected or given). Pure. */
void cmp_source_detect(const char *text, size_t len, enum peerhist_format format,
		       struct cmp_source *s);
/* @s in words, into @buf */
void cmp_source_name(const struct cmp_source *s, char *buf, size_t len);

#define CMP_EXPLAIN_MAX 6
/* what differs between two sources' rules, in lines */
struct cmp_explain {
	char line[CMP_EXPLAIN_MAX][300];
	unsigned n;
};

/*
 * Which differences in what @a and @b count (@an, @bn intervals) explain
 * a gap between them, or that they count by the same rules. Pure.
 */
void cmp_explain_sources(const struct cmp_source *a, double an, const struct cmp_source *b,
			 double bn, struct cmp_explain *e);

struct cmp_side {
	const char *name;	/* file name or "offcpu-ftrace" */
	const char *what;	/* format and map, e.g. "bpftrace @usecs" */
	const struct cmp_dist *d;
	const struct cmp_source *src;	/* who made it, NULL not asked */
};

/* "sources: ..." and "why: ..." lines (nothing without both sources) */
void cmp_print_explain(FILE *f, const struct cmp_side *a, const struct cmp_side *b);
/* the same as JSON members ',"sources":{...},"why":[...]' */
void cmp_print_explain_json(FILE *f, const struct cmp_side *a, const struct cmp_side *b);

/* Side by side, with count, p50, p99, max row and the distance. */
void cmp_print(FILE *f, const struct cmp_side *a, const struct cmp_side *b,
	       double tolerance, bool have_tolerance);
void cmp_print_json(FILE *f, const struct cmp_side *a, const struct cmp_side *b,
		    double tolerance, bool have_tolerance);

#endif
