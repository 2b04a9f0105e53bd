/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one output layer: everything a run produced, printed as BCC text,
 * bpftrace text or JSON. Printing only; no state of its own.
 */
#ifndef OFFCPU_REPORT_H
#define OFFCPU_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "analyzer.h"
#include "backend.h"
#include "escape.h"
#include "stackout.h"

enum out_format {
	FMT_BCC,
	FMT_BPFTRACE,
	FMT_JSON,
	FMT_OPENMETRICS,	/* Prometheus/OpenMetrics text exposition */
	FMT_SVG,		/* a picture: flame graph, bucket chart, heat map */
};

struct heat;

/* What a report's histograms measure (its titles, metric family, footer lines). */
enum rep_measure {
	MEASURE_RUNQ,		/* waits for a CPU */
	MEASURE_OFFCPU,		/* off-CPU intervals */
	MEASURE_ONCPU,		/* on-CPU timeslices */
};

struct report {
	const char *command;		/* the command, as the output names it */
	enum rep_measure measure;
	const char *backend;		/* "ring", ... */
	const char *backend_why;	/* why it was chosen, or NULL */
	const char *clock;		/* trace clock used */
	const char *unit;		/* "usecs" or "msecs" */
	uint64_t unit_ns;		/* ns per unit */
	enum an_key key;
	double duration_s;		/* time tracing was on for this interval */
	unsigned interval;		/* 1-based */
	bool final;			/* last interval of the run */
	bool timestamp;			/* -T */
	time_t wall;			/* wall-clock time at the interval's end */
	const char *stopped_by;		/* signal name when cut short, else NULL */
	const struct an_counts *counts;
	const struct an_incomplete *inc;
	struct groups *groups;		/* sorted in place for printing */
	uint32_t top;			/* print only the N largest groups, 0 all */
	struct heat *heat;		/* svg with -i: every interval kept here */
	bool replaces;			/* each output replaces the last (-o FILE) */
	const struct stack_report *stacks; /* offcpu -K/-U: print these */
	uint64_t stack_overflow;	/* stacks not interned (table full) */
	bool late_stacks;		/* --late-stacks: read from /proc while blocked */
	uint64_t late_unknown_frames;	/* ... frames kallsyms lacks, left out (run) */
	uint64_t late_unreadable;	/* ... blocked threads whose stack did not read (run) */
	int late_unreadable_errno;	/* ... why the first did not */
	/* a sampling backend's account (proc), NULL when events were traced */
	const struct backend_sampling *sampling;
	uint64_t command_cpu_ns;	/* -- COMMAND: its and its children's CPU time
					 * (rusage), 0 unknown */
	uint64_t lost;			/* events lost, all CPUs */
	uint64_t dropped;		/* intervals an aggregating backend's
					 * kernel map dropped (hist: it was full) */
	/* the run-queue waits not measured, sized by the threads' schedstat */
	bool unmeasured_sized;
	uint64_t unmeasured_ns, unmeasured_unsized;
	uint64_t recovered;		/* switches only a second source had
					 * (perf's context-switch records) */
	const uint64_t *lost_cpu;	/* per CPU, ncpu entries */
	unsigned ncpu;
	/* live: what the hypervisor took from the CPUs in the window (steal,
	 * all CPUs added); a recording's is not known */
	bool steal_known;
	uint64_t steal_ns;
	/*
	 * optional, an analysis's own part: more JSON members (each written
	 * as ',"name":value'), the text printed instead of the histograms
	 * (the trailer follows it), and a heading above them
	 */
	void (*json_extra)(FILE *f, void *arg);
	void (*text_body)(FILE *f, void *arg);
	void (*text_head)(FILE *f, void *arg);	/* before the text's histograms */
	void (*json_groups)(FILE *f, void *arg);	/* the groups array's members */
	void *extra_arg;
};

/* Histogram rows only, in BCC's "usecs : count distribution" layout. */
void out_hist_bcc(FILE *f, const struct hist *h, const char *unit);
/* Histogram rows only, in bpftrace's hist() layout (no @name line). */
void out_hist_bpftrace(FILE *f, const struct hist *h);
/* Summary line printed under every text histogram. */
void out_hist_summary(FILE *f, const struct hist *h, const char *unit,
		      uint64_t unit_ns);

void report_print(FILE *f, enum out_format fmt, struct report *r);
/*
 * Something the numbers should hold is not in them: lost events, a full
 * kernel map, or switches/wakeups of the selected threads the trace lacks.
 */
bool report_partial(const struct report *r);

#endif
