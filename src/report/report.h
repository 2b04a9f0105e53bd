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
	FMT_PERFETTO,		/* Chrome trace-event JSON: Perfetto's UI, speedscope */
};

struct heat;

/* What a report's histograms measure (its titles, metric family, footer lines). */
enum rep_measure {
	MEASURE_RUNQ,		/* waits for a CPU */
	MEASURE_OFFCPU,		/* off-CPU intervals */
	MEASURE_ONCPU,		/* on-CPU timeslices */
};

/*
 * Blocks still open when the window ended: not intervals (their end is not
 * known), so in no histogram; counted, and the longest shown, each with its
 * time so far (a lower bound). A thread blocked the whole window has no
 * event at all: the command line finds those of -p/-t in /proc.
 */
#define OPEN_BLOCKS_SHOWN 5
struct open_block {
	int32_t tid;
	char comm[16];
	char state[8];		/* as the kernel prints it: "S", "D", "" unknown */
	uint64_t so_far_ns;	/* blocked at least this long */
	bool whole_window;	/* since before the window began (no event) */
	char where[96];		/* the kernel function it sleeps in, "" unknown */
	uint32_t kstack;	/* its stack at the switch-out (the analyzer's id), 0 none */
};

struct open_blocks {
	uint64_t n;		/* blocks open at the window's end */
	uint64_t sum_ns;	/* their time so far, added */
	uint64_t whole;		/* of them, blocked since before the window */
	unsigned shown;		/* the longest, in b[] */
	struct open_block b[OPEN_BLOCKS_SHOWN];
};

/* Add @b to @ob, keeping the longest OPEN_BLOCKS_SHOWN. */
void open_blocks_add(struct open_blocks *ob, const struct open_block *b);
/* Its trailer lines ("# N blocks still open ..."), nothing when none. */
void open_blocks_print_text(FILE *f, const struct open_blocks *ob);
/* ,"open_blocks":{...} (nothing when @ob is NULL) */
void open_blocks_print_json(FILE *f, const struct open_blocks *ob);

struct report {
	const char *command;		/* the command, as the output names it */
	const char *compat;		/* --compat's peer ("libbpf-tools"), NULL not given */
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
	const struct open_blocks *open;	/* offcpu: blocks open at the window's end, or NULL */
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
	uint64_t rejected;		/* records of a recording that cannot be
					 * true, skipped (partial) */
	/* the run-queue waits not measured, sized by the threads' schedstat */
	bool unmeasured_sized;
	/* -p, -t, -c, --cgroup or -- COMMAND was given (filtered), and matched
	 * no thread of what the run saw (nomatch) */
	bool filtered, nomatch;
	uint64_t seen;			/* what the run saw: events, sums, totals */
	bool own_partial;		/* the analysis's own result lacks what the trace
					 * lost (its part says what) */
	bool no_wakeups;		/* the backend traced switches alone (perf's
					 * records without tracepoints): no wakeup */
	uint64_t unmeasured_ns, unmeasured_unsized;
	/* every thread alive at both ends of the interval: how many, what their
	 * run_delay grew by, and what was measured of it */
	uint64_t sched_threads, sched_run_delay_ns, sched_measured_ns;
	uint64_t sched_gone, sched_gone_measured_ns;	/* threads gone by its end */
	int64_t sched_gone_sized;	/* ... sized from their exit; -1 exits not heard */
	uint64_t recovered;		/* switches only a second source had
					 * (perf's context-switch records) */
	const uint64_t *lost_cpu;	/* per CPU, ncpu entries */
	unsigned ncpu;
	/* live: what the hypervisor took from the CPUs in the window (steal,
	 * all CPUs added); a recording's is not known */
	bool steal_known;
	uint64_t steal_ns;
	/*
	 * its figures depend on CPUs' idle state (runqlen -O): CPU time whose
	 * state the trace did not show makes them partial (incomplete's
	 * cpu_state_unknown_ns; the analysis says what it bounds)
	 */
	bool cpu_state;
	uint64_t cpu_unknown_ns;
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
	/* JSON: the analysis already wrote the object's '{' and its first
	 * members (events it streamed): the envelope goes on after a ',' */
	bool json_continues;
};

/* Histogram rows only, in BCC's "usecs : count distribution" layout. */
void out_hist_bcc(FILE *f, const struct hist *h, const char *unit);
/*
 * BCC's print_linear_hist(): "     @name : @unit     distribution", then a
 * row per value 0 .. the last non-empty one of @val[0 .. @n), stars =
 * floor(40 * count / max). Nothing when every count is 0.
 */
void out_hist_bcc_linear(FILE *f, const uint64_t *val, unsigned n, const char *name,
			 const char *unit);
/* Histogram rows only, in bpftrace's hist() layout (no @name line). */
void out_hist_bpftrace(FILE *f, const struct hist *h);
/* Summary line printed under every text histogram. */
void out_hist_summary(FILE *f, const struct hist *h, const char *unit,
		      uint64_t unit_ns);

void report_print(FILE *f, enum out_format fmt, struct report *r);
/* report_print(), and whether @f took it: 0 or -errno. */
int report_emit(FILE *f, enum out_format fmt, struct report *r);
/*
 * The text layouts of an analysis that prints its own body: @body (its
 * table, or -f's lines) inside the envelope, then @notes (what the
 * numbers are, what they miss), on @f; with @folded the lines alone on
 * @f and the envelope and notes on stderr, so that folded lines stay
 * pure for flame graph tools. Both are called with r->extra_arg.
 * 0, or -errno when @f failed.
 */
int report_emit_text(FILE *f, enum out_format fmt, struct report *r, bool folded,
		     void (*body)(FILE *f, void *arg), void (*notes)(FILE *f, void *arg));
/*
 * Something the numbers should hold is not in them: lost events, a full
 * kernel map, or switches/wakeups of the selected threads the trace lacks.
 */
bool report_partial(const struct report *r);
struct om_status;
/*
 * The OpenMetrics status of @r's window (om_status_print()): its counts,
 * every kind of interval the trace could not measure, report_partial().
 */
void report_om_status(struct om_status *st, const struct report *r);
/*
 * runq: every wait the histogram lacks is sized from its thread's
 * schedstat and none is missing altogether (no event lost or dropped,
 * no start dropped), so the histogram's time and theirs is the total
 */
bool report_totals_exact(const struct report *r);

#endif
