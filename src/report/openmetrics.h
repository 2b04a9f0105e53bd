/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OpenMetrics exposition of every command, in one place: the metric
 * families (names, types, units, help texts: the same in every file, so
 * node_exporter's textfile collector can merge the files of several
 * commands), histograms with fixed bucket bounds (the same le set in
 * every file of a metric, whatever the data, so Prometheus can sum them
 * across a fleet), and the status every window carries. The families are
 * listed in offcpu-ftrace(8), METRICS; they are stable.
 */
#ifndef OFFCPU_OPENMETRICS_H
#define OFFCPU_OPENMETRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "hist.h"

struct backend_sampling;

enum om_family {
	OM_RUNQ,		/* offcpu_ftrace_runq_latency_seconds, histogram */
	OM_OFFCPU,		/* offcpu_ftrace_offcpu_time_seconds, histogram */
	OM_BLOCKED,		/* offcpu_ftrace_blocked_seconds, histogram (triage) */
	OM_SAMPLED_RUNQ,	/* ..._sampled_runq_latency_seconds, summary (proc) */
	OM_SAMPLED_OFFCPU,	/* ..._sampled_offcpu_time_seconds, summary (proc) */
	OM_SAMPLED_BLOCKED,	/* ..._sampled_blocked_seconds, summary (proc) */
	OM_ONCPU,		/* offcpu_ftrace_oncpu_time_seconds, histogram */
	OM_SAMPLED_ONCPU,	/* ..._sampled_oncpu_time_seconds, summary (proc) */
	OM_NFAMILIES,
};

/*
 * The largest finite bucket bound of a histogram family: le = 2^k us for
 * k = 0..max (1 us .. 16.8 s for run-queue latency, .. 71.6 min for
 * off-CPU and blocked time), then +Inf.
 */
unsigned om_max_exponent(enum om_family fam);

/* "# TYPE", "# UNIT", "# HELP" of @fam, once per file. */
void om_family_head(FILE *f, enum om_family fam);
/* The sampled (summary) family of a histogram family. */
enum om_family om_sampled(enum om_family traced);

/*
 * One series of @fam: for a histogram every fixed bucket (cumulative,
 * from a histogram in microseconds), +Inf, _count and _sum; for a
 * summary _count and _sum. @labels: 'k="v",...' without braces, or "".
 */
void om_series(FILE *f, enum om_family fam, const char *labels, const struct hist *h);

/* What every window's exposition says about itself. */
struct om_status {
	const char *command;		/* "runq", "offcpu", "triage" */
	const char *backend;
	double window_s;
	time_t end;			/* wall-clock end of the window */
	uint64_t lost;			/* events the kernel could not store */
	uint64_t missed_switches;	/* of the selected threads */
	uint64_t unmeasured;		/* intervals the trace could not measure */
	uint64_t recovered;		/* switches from perf's switch records */
	bool partial;
	bool sampled;			/* totals from /proc, no buckets */
	double sample_hz;		/* sampled: the lowest rate used */
};

/*
 * Start @s for one window: what it is (@command, @backend), how long it
 * was and when it ended, and, for @sampling (NULL when traced), that its
 * values were sampled and at what rate. The counts and partial start at
 * zero: each command has its own, set after this.
 */
void om_status_init(struct om_status *s, const char *command, const char *backend,
		    double window_s, time_t end, const struct backend_sampling *sampling);

/* The status families and "# EOF". */
void om_status_print(FILE *f, const struct om_status *s);

#endif
