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

#include "analyzer.h"
#include "backend.h"
#include "cgroup.h"
#include "child.h"
#include "cli.h"
#include "output.h"
#include "progress.h"
#include "ksym.h"
#include "latestack.h"
#include "psi.h"
#include "report.h"
#include "stackout.h"
#include "usym.h"
#include "xval.h"

struct run {
	const struct trace_opts *o;
	const struct backend_ops *ops;
	struct backend *b;
	struct analyzer an;
	bool an_ok;
	const char *clock;
	bool mono;
	uint64_t lost_prev[1024], lost_now[1024];
	unsigned ncpu;
	uint64_t lost_total;		/* all intervals: for --strict */
	uint64_t recovered_prev;	/* backend's recovered() at the last print */
	uint64_t partial_total;		/* intervals with partial results */
	int32_t debug_tid;
	struct xval *xval;		/* --xval: bpftrace running beside us */
	struct child child;		/* -- COMMAND */
	bool have_child;
	struct cgroup_sel cg;		/* --cgroup */
	struct psi psi0;		/* triage: pressure when tracing began */
	struct cpu_throttle thr0;
	struct ksyms *ksyms;
	struct late_stacks late;	/* --late-stacks */
	struct usyms *usyms;
	struct symbolizer sym;
	char why[1024];			/* why auto chose the backend, "" else */
	char pick_note[1200];		/* the note on that choice, said once the
					 * request's checks passed, or "" */
	struct out out;			/* -o FILE, or stdout */
	struct progress progress;	/* the elapsed/left line on a terminal */
	struct heat *heat;		/* --format=svg -i: the heat map's intervals */
	int32_t *tids;			/* -p: owned copy of start_tids */
	const int32_t *start_tids;	/* -p: the process's threads at the start */
	unsigned nstart_tids;
	/* report: the scope the recording was made with, and whether it applies */
	struct rec_scope rscope;
	bool scope_applied;
};

/* Symbol tables for -K/-U; EXIT_* on failure, -1 to go on. */
int run_setup_symbols(struct run *r);
/* Print one interval; 0 or -errno when stdout failed. */
int run_print_interval(struct run *r, unsigned n, uint64_t dur_ns, bool final);
/* --dry-run: the plan, on stdout (run_plan.c). */
void run_print_plan(const struct run *r);
/* What a run measures, in words: the banner's and --dry-run's "run-queue latency". */
const char *run_what(const struct trace_opts *o);
/* The whole run: backend, analyzer, window, output, restore. An exit status. */
int run_trace(const struct trace_opts *o);

#endif
