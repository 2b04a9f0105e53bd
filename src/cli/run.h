/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One tracing run of runq, offcpu, triage, record or report: the backend,
 * the analyzer, the window loop (run.c) and the printing of each
 * interval (run_print.c).
 */
#ifndef OFFCPU_RUN_H
#define OFFCPU_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"
#include "analyzer.h"
#include "backend.h"
#include "bycgroup.h"
#include "cgroup.h"
#include "child.h"
#include "cli.h"
#include "flight.h"
#include "output.h"
#include "progress.h"
#include "ksym.h"
#include "latestack.h"
#include "psi.h"
#include "report.h"
#include "stackout.h"
#include "tracefs_rec.h"
#include "unsized.h"
#include "usym.h"
#include "xval.h"

/* CPUs whose lost-event counts a run keeps (as many as the analyzer follows) */
#define RUN_MAX_CPUS AN_MAX_CPUS

struct run {
	const struct trace_opts *o;
	const struct backend_ops *ops;
	struct backend *b;
	struct analyzer an;
	bool an_ok;
	const char *clock;
	bool mono;
	/* events lost per CPU, at the last print and now, and in between */
	uint64_t lost_prev[RUN_MAX_CPUS], lost_now[RUN_MAX_CPUS], lost_iv[RUN_MAX_CPUS];
	unsigned ncpu;
	uint64_t lost_total;		/* all intervals: for --strict */
	uint64_t recovered_prev;	/* backend's recovered() at the last print */
	bool steal_ok;			/* live, /proc/stat has steal: steal_prev */
	uint64_t steal_prev;		/* proc_steal_ns() at the last print */
	uint64_t dropped_prev;		/* ... and its dropped() */
	uint64_t partial_total;		/* intervals with partial results */
	int32_t debug_tid;
	struct xval *xval;		/* --xval: bpftrace running beside us */
	struct child child;		/* -- COMMAND */
	bool have_child;
	struct cgroup_sel cg;		/* --cgroup */
	struct by_cgroup bycg;		/* --by cgroup */
	char *cg_dump;			/* ... its threads' cgroups for a recording */
	char cg_keyed[4400];		/* ... and what it keys on */
	void *an_state;			/* the analysis's own, for the run */
	bool stream_on;			/* it streams results to standard output */
	bool drops_possible;		/* the drop probe found the tracepoint losing hits,
					 * or could not rule it out (DROPS_BUSY) */
	struct unsized unsized;		/* there: waits not measured, sized by schedstat */
	unsigned since_stream;		/* events since it last did */
	uint64_t start_ns;		/* the window's start (trace clock), 0 unknown */
	uint64_t iv_start_ns, iv_end_ns;	/* the interval printed (trace clock), 0 unknown */
	struct ksyms *ksyms;
	struct late_stacks late;	/* --late-stacks */
	struct usyms *usyms;
	struct symbolizer sym;
	char why[1024];			/* why auto chose the backend, "" else */
	char pick_note[1200];		/* the note on that choice, said once the
					 * request's checks passed, or "" */
	struct out out;			/* -o FILE, or stdout */
	struct progress progress;	/* the elapsed/left line on a terminal */
	int32_t *tids;			/* -p: owned copy of start_tids */
	const int32_t *start_tids;	/* -p: the process's threads at the start */
	unsigned nstart_tids;
	/* report: the scope the recording was made with, and whether it applies */
	struct rec_scope rscope;
	bool scope_applied;
	struct flight flight;		/* --flight */
	struct recorder *rec;		/* --record, record, --flight: the pages */
};

/* A recording's metadata as this run stands (window bounds left 0). */
void run_window_meta(struct run *r, struct backend_window *m, uint64_t *lost);

/* Symbol tables for -K/-U; EXIT_* on failure, -1 to go on. */
int run_setup_symbols(struct run *r);
/* The view of @r an analysis prints from, but for the interval's own fields. */
void run_view(const struct run *r, struct an_view *v);
/* Why the kernel's hist triggers cannot do what @o asks, or HIST_CAN. */
enum hist_refusal run_hist_refusal(const struct trace_opts *o);
/* Print one interval; 0 or -errno when stdout failed. */
int run_print_interval(struct run *r, unsigned n, uint64_t dur_ns, bool final);
/* --dry-run: the plan, on stdout (run_plan.c). */
void run_print_plan(const struct run *r);
/* What a run measures, in words: the banner's and --dry-run's "run-queue latency". */
const char *run_what(const struct trace_opts *o);
/* The whole run: backend, analyzer, window, output, restore. An exit status. */
int run_trace(const struct trace_opts *o);

#endif
