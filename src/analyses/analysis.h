/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An analysis: one file in src/analyses/ that exports one descriptor. The
 * command line finds it by name (analysis_find), admits the options of
 * its tables (and the common ones), asks it what the backend must trace and whether the
 * kernel's hist triggers can do it, lets it configure the analyzer and
 * subscribe to what the analyzer measures, and hands it each interval to
 * print through src/report/. Nothing outside this folder and the command
 * table knows an analysis by its name.
 *
 * docs/design.md, "How to add an analysis", says which files a new one
 * touches.
 */
#ifndef OFFCPU_ANALYSIS_H
#define OFFCPU_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "analyzer.h"
#include "anopt.h"
#include "backend.h"
#include "cgroup.h"
#include "opts.h"
#include "report.h"
#include "stackout.h"

/* Why the kernel's hist triggers cannot run a request (the backend rule's input). */
enum hist_refusal {
	HIST_CAN,
	HIST_NO_TRIAGE,		/* triage needs every event */
	HIST_NO_USTACK,		/* user stacks are read in user space */
	HIST_NO_KSTACK,		/* kernel stacks: only where synthetic events carry them */
	HIST_NO_COMM,		/* a -c name kept out of kernel filters */
	HIST_NO_CGROUP,		/* --cgroup is checked per thread */
	HIST_NO_BY_CGROUP,	/* --by cgroup reads each thread's cgroup */
	HIST_NO_COMMAND,	/* -- COMMAND follows forks in user space */
	HIST_NO_WAKING,		/* --compat=perf needs sched_waking */
	HIST_NO_LATE,		/* --late-stacks reads stacks in user space */
	HIST_NO_EVENTS,		/* it lists or follows single events, not sums */
	HIST_NO_ONCPU,		/* timeslices are not kept in the kernel's triggers */
	HIST_NO_RECORD,		/* a recording keeps every event */
};

/* descriptor flags */
#define AN_F_RECORD_ONLY 0x1	/* prints nothing: the events go to a recording */
#define AN_F_REPORT 0x2		/* 'report FILE NAME' runs it on a recording */
#define AN_F_MODE 0x4		/* not a command: a command's refine() picks it */
#define AN_F_TRACED 0x8		/* it needs every event: no sampling backend */
#define AN_F_SAMPLES 0x10	/* it samples on-CPU stacks: auto prefers perf */
#define AN_F_TIDS 0x20		/* its output names threads by id (a pid namespace
				 * needs a backend naming them by its pids) */
#define AN_F_PERFETTO 0x40	/* it writes --format=perfetto (a timeline) */
#define AN_F_COMMAND 0x80	/* it follows a command: -- COMMAND, or a recording
				 * made with one (report refuses another scope) */
#define AN_F_KSTACK_IF_ANY 0x100	/* its kernel stacks are a default, not a
					 * request: a recording without them is
					 * analysed without (a note says so) */
#define AN_F_BOTH_KEYS 0x200	/* -P with --by cgroup: both columns (runq --slower) */

/*
 * What a run hands an analysis to print one interval: the backend's
 * account of it and the window. Filled by the command line; read-only.
 */
struct an_view {
	const struct trace_opts *o;
	struct analyzer *an;
	const char *backend;		/* "ring", "perf", ... */
	const char *backend_why;	/* why auto chose it, or NULL */
	const char *clock;
	unsigned events;		/* what the backend provides: 1 << SEV_x */
	unsigned backend_caps;		/* what it can do: BCAP_* (backend.h) */
	/* this interval */
	double duration_s;
	unsigned interval;		/* 1-based */
	bool final;			/* the run's last */
	time_t wall;			/* when it ended */
	const char *stopped_by;		/* the signal's name when cut short */
	bool replaces;			/* each output replaces the last (-o FILE) */
	uint64_t start_ns;		/* the window's start in the trace clock, 0 unknown */
	uint64_t iv_start_ns, iv_end_ns;	/* this interval's bounds, 0 unknown */
	bool wall_known;		/* live, mono clock: trace time + wall_off_ns is
					 * the wall clock (CLOCK_REALTIME) */
	int64_t wall_off_ns;
	uint64_t lost;			/* events lost, all CPUs */
	const uint64_t *lost_cpu;	/* ... per CPU, ncpu entries */
	unsigned ncpu;
	uint64_t recovered;		/* switches taken from a second source */
	uint64_t dropped;		/* intervals an aggregating backend's map dropped */
	uint64_t rejected;		/* records of a recording that cannot be true, skipped */
	/* the run-queue waits not measured, sized by their threads' schedstat */
	bool unmeasured_sized;
	uint64_t unmeasured_ns;		/* waiting in run_delay beyond what was measured */
	uint64_t unmeasured_unsized;	/* ... of waits in threads gone since */
	/*
	 * ... and every thread alive at the interval's both ends: how many,
	 * what their run_delay grew by, what was measured of it
	 */
	uint64_t sched_threads, sched_run_delay_ns, sched_measured_ns;
	/* ... threads gone by its end: how many had waits, what was measured of them */
	uint64_t sched_gone, sched_gone_measured_ns;
	/* ... of them sized from their exit (taskstats), -1: exits not heard */
	int64_t sched_gone_sized;
	const struct backend_sampling *sampling;	/* a sampling backend's account */
	/* live: what the hypervisor took from the CPUs in this interval (steal) */
	bool steal_known;
	uint64_t steal_ns;
	/*
	 * each CPU's idle time in this interval, /proc/stat's idle + iowait
	 * (live: read at its ends; a recording's: its window), @nproc
	 * entries, proc_listed false for a CPU it had no line for (offline),
	 * each accurate to proc_tol_ns; proc_idle NULL when not known. The
	 * CPU-state model (v->an->cs) was closed with it.
	 */
	const uint64_t *proc_idle;
	const bool *proc_listed;
	unsigned nproc;
	uint64_t proc_tol_ns;
	/* stacks */
	const struct symbolizer *sym;
	struct {
		bool on;		/* --late-stacks */
		uint64_t unknown_frames, unreadable;	/* in the run so far */
		int unreadable_errno;
	} late;
	/* the scope */
	const char *replay_path;	/* report: the recording, else NULL */
	const struct rec_scope *recorded;	/* report: the recording's scope, when
						 * it applies; else NULL */
	int32_t recorder;		/* the tracing tool's own process (ours, or the
					 * recording's), 0 unknown */
	bool child;			/* -- COMMAND ran */
	uint64_t child_cpu_ns;		/* its CPU time and its children's, 0 unknown */
	const struct cgroup_sel *cgroup;	/* --cgroup, or NULL */
	/*
	 * the window's end: threads of -p/-t blocked since before the window
	 * began (no event in it), as /proc shows them; the run's own
	 */
	const struct open_block *whole;
	unsigned nwhole;
};

struct analysis {
	const char *name;		/* the command's name: "runq" */
	const char *summary;		/* one line for 'offcpu-ftrace --help' */
	unsigned flags;			/* AN_F_* */
	/*
	 * The tables of the options it takes beyond the common ones
	 * (anopt.h), in --help's order, NULL-terminated; a row with a common
	 * row's name or letter replaces it. A mode (AN_F_MODE) takes its
	 * command's.
	 */
	const struct an_option *const *options;
	/* --help, printed around the options the tables give: the usage lines
	 * and what it does; the examples (with a blank line first); the exit
	 * status (NULL: the tracing commands' usual one) */
	const char *usage, *examples, *exit_help;
	/* its default text output, for --dry-run; NULL: histograms ("text
	 * (BCC's layout), per process") */
	const char *text_output;
	/* optional, AN_F_TRACED: what the proc backend's totals give instead,
	 * said where it is refused unprivileged */
	const char *untraced;
	/* What it measures, in words: the banner's and --dry-run's. */
	const char *(*what)(const struct trace_opts *o);
	/* Its defaults, before the options are parsed (o is zeroed otherwise). */
	void (*defaults)(struct trace_opts *o);
	/*
	 * optional: the analysis that runs, once the options are parsed
	 * (runq --slower is slower's): another descriptor, or NULL for itself
	 */
	const struct analysis *(*refine)(const struct trace_opts *o);
	/* optional: options that do not go together for it: a usage error, or NULL */
	const char *(*check)(const struct trace_opts *o);
	/*
	 * optional: what it asks of the backend beyond what its modes and
	 * the common options ask (the run fills the rest of @req first)
	 */
	void (*request)(const struct trace_opts *o, struct trace_req *req);
	/* optional: events it needs beyond switch, wakeup and wakeup_new: 1 << SEV_x */
	unsigned (*events)(const struct trace_opts *o);
	/*
	 * optional: why perf's context-switch records alone (who left,
	 * preempted or not, and who came: no tracepoint, no wakeup, state,
	 * name or stack) cannot serve it, or NULL: they can. Without the
	 * hook: they cannot. A container without tracefs, or with its own
	 * pid namespace, has nothing else that traces.
	 */
	const char *(*no_records)(const struct trace_opts *o);
	/* optional: why the kernel's hist triggers cannot do it (NULL: they can) */
	enum hist_refusal (*hist)(const struct trace_opts *o);
	/*
	 * optional: its figures depend on whether CPUs were idle (the
	 * CPU-state model, cpustate.h): the trace then keeps every CPU's
	 * switches (no in-kernel pid filter: the analyzer filters), and CPU
	 * time of unknown state makes the result partial
	 */
	bool (*cpu_state)(const struct trace_opts *o);
	/* optional: the analyzer as it needs it (after the options' common fields) */
	void (*configure)(const struct trace_opts *o, struct an_cfg *cfg);
	/*
	 * optional: its state for the run, after analyzer_init(); it may
	 * subscribe to the analyzer (analyzer_subscribe). 0 or -errno.
	 */
	int (*setup)(const struct trace_opts *o, struct analyzer *an, void **state);
	/* optional: tracing is on (a run's first moment); @v's scope is set */
	void (*begin)(void *state, const struct an_view *v);
	/*
	 * Print the interval in @fmt to @f (the run's format, or JSON for
	 * --xval's comparison). 0, or -errno when @f failed.
	 */
	int (*print)(void *state, const struct an_view *v, enum out_format fmt, FILE *f);
	/*
	 * optional: results as they happen (runq --slower's lines), to @f:
	 * called often while the window runs when the results go to standard
	 * output; print() then writes what is left of the interval.
	 */
	void (*stream)(void *state, const struct an_view *v, FILE *f);
	/*
	 * optional: after print(), whether what it printed is partial beyond
	 * what the analyzer counted (the critical path: a link between two
	 * threads the trace lost), for --strict
	 */
	bool (*partial)(void *state);
	/* optional: free the state; accepts NULL */
	void (*free)(void *state);
};

/* The optional hooks of @o's analysis, with their defaults. */
static inline const char *an_check(const struct trace_opts *o)
{
	return o->an->check ? o->an->check(o) : NULL;
}

static inline unsigned an_events(const struct trace_opts *o)
{
	return o->an->events ? o->an->events(o) : 0;
}

static inline const char *an_no_records(const struct trace_opts *o)
{
	return o->an->no_records ? o->an->no_records(o) : "it needs the sched tracepoints";
}

/* A recording without kernel stacks: is that a refusal for @o? */
static inline bool an_kstack_required(const struct trace_opts *o)
{
	return o->kstack && !(o->an->flags & AN_F_KSTACK_IF_ANY);
}

static inline enum hist_refusal an_hist(const struct trace_opts *o)
{
	return o->an->hist ? o->an->hist(o) : HIST_CAN;
}

static inline bool an_cpu_state(const struct trace_opts *o)
{
	return o->an->cpu_state && o->an->cpu_state(o);
}

/*
 * The analysis that is command @name, or NULL (an unknown name is the
 * caller's error; modes, AN_F_MODE, are no commands).
 */
const struct analysis *analysis_find(const char *name);
/* Every analysis, modes last, in the order the help lists them; NULL after the last. */
const struct analysis *analysis_at(unsigned i);
/* "runq, offcpu or triage": the commands with every flag of @flags set. */
void analysis_names(char *buf, size_t len, unsigned flags);


#endif
