/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One tracing run of runq, offcpu, triage, record or report: the backend,
 * the analyzer, the window loop (run.c), the backend's choice, request
 * and opening (run_open.c), --dry-run's plan (run_plan.c) and the
 * printing of each interval (run_print.c).
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
	/*
	 * live: each CPU's idle time from /proc/stat (proc_cpu_idle) when
	 * tracing began, at the last print and at the interval's end; the
	 * interval's, for the view; CPUs listed, proc_n of them
	 */
	bool proc_ok;
	int proc_n;
	bool proc_listed[RUN_MAX_CPUS];
	uint64_t proc_start[RUN_MAX_CPUS], proc_prev[RUN_MAX_CPUS], proc_now[RUN_MAX_CPUS];
	uint64_t proc_iv[RUN_MAX_CPUS];
	bool drops_none;		/* the drop probe found the tracepoint losing none */
	enum cs_trust trust;		/* how far the CPU-state model trusts the trace */
	uint64_t dropped_prev;		/* ... and its dropped() */
	uint64_t rejected_prev;		/* ... and its rejected() */
	uint64_t rejected_total;	/* --strict: records skipped as impossible, */
	uint64_t late_total;		/* ... events out of time order, */
	uint64_t negative_total;	/* ... intervals that ended before they began */
	uint64_t partial_total;		/* intervals with partial results */
	uint64_t partial_cpu_only;	/* ... for CPU state the trace did not show alone */
	int32_t debug_tid;
	struct xval *xval;		/* --xval: bpftrace running beside us */
	struct child child;		/* -- COMMAND */
	bool have_child;
	struct cgroup_sel cg;		/* --cgroup */
	struct by_cgroup bycg;		/* --by cgroup */
	char *cg_dump;			/* ... its threads' cgroups for a recording */
	char cg_keyed[4400];		/* ... and what it keys on */
	char *plan_events;		/* a recording's: the events it traces (run_plan_events) */
	char recorded_plan[1200];	/* report --dry-run: what the recording's run planned */
	void *an_state;			/* the analysis's own, for the run */
	bool stream_on;			/* it streams results to standard output */
	bool drops_possible;		/* the drop probe found the tracepoint losing hits,
					 * or could not rule it out (DROPS_BUSY) */
	struct unsized unsized;		/* there: waits not measured, sized by schedstat */
	bool loss_noted;		/* a loss this run saw is kept for the boot */
	unsigned since_stream;		/* events since it last did */
	uint64_t start_ns;		/* the window's start (trace clock), 0 unknown */
	uint64_t iv_start_ns, iv_end_ns;	/* the interval printed (trace clock), 0 unknown */
	struct ksyms *ksyms;
	struct late_stacks late;	/* --late-stacks */
	struct usyms *usyms;
	struct symbolizer sym;
	char why[1024];			/* why auto chose the backend, "" else */
	char better[320];		/* what would give a better backend here, "" */
	/* perf from its context-switch records alone (struct choice) */
	bool switches_only;
	bool pidns_foreign;		/* this process is in a pid namespace of its own */
	bool host_pids;			/* ... and the events name tasks by the host's
					 * pids: no /proc lookup by them here */
	/*
	 * -p/-t: the threads and how often each had run when tracing began
	 * (schedstat's pcount), to find at the end those blocked the whole
	 * window (no event: nothing in the trace says so)
	 */
	struct whole_snap { int32_t tid; uint64_t pcount, exec; } *snap;
	unsigned nsnap;
	struct open_block *whole;	/* ... those found, for the view */
	unsigned nwhole;
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
/*
 * -p/-t: how often each of their threads had run when tracing began, and
 * at the window's end those that never ran since and are blocked (the
 * view's whole-window blocks: nothing in the trace shows them).
 */
void run_whole_start(struct run *r);
void run_whole_end(struct run *r, uint64_t window_ns);
/* The view of @r an analysis prints from, but for the interval's own fields. */
void run_view(const struct run *r, struct an_view *v);
/* Why the kernel's hist triggers cannot do what @o asks, or HIST_CAN. */
enum hist_refusal run_hist_refusal(const struct trace_opts *o);
struct choose_req;
/* What @o asks of the backend rule (choose.h): one builder for runs and info. */
void run_choose_req(const struct trace_opts *o, struct choose_req *req);
/* Print one interval; 0 or -errno when stdout failed. */
int run_print_interval(struct run *r, unsigned n, uint64_t dur_ns, bool final);
/* --dry-run: the plan, on stdout (run_plan.c). */
void run_print_plan(const struct run *r, const struct trace_req *req);
/*
 * What @req traces, as --dry-run's events line says it (a recording keeps
 * it): malloc'd, NULL when out of memory.
 */
char *run_plan_events(const struct run *r, const struct trace_req *req);
/*
 * --dry-run, past the checks run_trace() made (command, output, backend):
 * what can still be checked without tracing, then the plan. An exit status.
 */
int run_dry_run(struct run *r);

/* The backend (run_open.c) */
/* The backend for @o, with the notes a user should see (kept for run_say_pick); false: none, said. */
bool run_pick_backend(struct run *r, const struct trace_opts *o);
/* The backend choice's note, after the checks that could still refuse the run. */
void run_say_pick(const struct run *r);
/*
 * What the backend must trace for @o on this host, with no side effect:
 * the same for a run and for --dry-run's print.
 */
void run_plan_request(const struct run *r, struct trace_req *req);
/*
 * The plan and what it takes to carry it out: -p's threads now, --
 * COMMAND spawned (held), the cgroups opened. EXIT_* (said) or -1.
 */
int run_request(struct run *r, struct trace_req *req);
/*
 * --cgroup's selection, and --by cgroup's hierarchy live (keeping up to
 * @max_ids cgroups): 0, or EXIT_FAIL with what is wrong said
 */
int run_open_cgroups(struct run *r, uint32_t max_ids);
/* Open the backend (and the recorder of --record), say what it lacks. EXIT_* or -1. */
int run_open_backend(struct run *r, const struct trace_req *req);
/* A recording's scope (and its cgroups): -1, or EXIT_* when it cannot be reported as asked. */
int run_recorded_scope(struct run *r);
/*
 * Whether the trace must hold every CPU's switches (no in-kernel pid
 * filter: the analyzer filters): the analysis depends on which CPUs were
 * idle, or runq's waits where this kernel loses the idle CPUs' wakeups.
 */
bool run_every_switch(const struct run *r);
/* What a run measures, in words: the banner's and --dry-run's "run-queue latency". */
const char *run_what(const struct trace_opts *o);
/* The whole run: backend, analyzer, window, output, restore. An exit status. */
int run_trace(const struct trace_opts *o);

#endif
