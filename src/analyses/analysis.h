/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An analysis: one file in src/analyses/ that exports one descriptor. The
 * command line finds it by name (analysis_find), admits the options that
 * declare its bit, asks it what the backend must trace and whether the
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
#include "backend.h"
#include "cgroup.h"
#include "opts.h"
#include "report.h"
#include "stackout.h"

/* Which analyses an option belongs to (struct optdef's cmds in src/cli/cli.c). */
enum an_bit {
	ANB_RUNQ = 0x1,
	ANB_OFFCPU = 0x2,
	ANB_TRIAGE = 0x4,
	ANB_RECORD = 0x8,
	ANB_ONCPU = 0x10,
	ANB_RUNQLEN = 0x20,
	ANB_PROFILE = 0x40,
	/* those that print results */
	ANB_TRACE = ANB_RUNQ | ANB_OFFCPU | ANB_TRIAGE | ANB_ONCPU | ANB_RUNQLEN | ANB_PROFILE,
	ANB_ALL = ANB_TRACE | ANB_RECORD,
};

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
	/* the run-queue waits not measured, sized by their threads' schedstat */
	bool unmeasured_sized;
	uint64_t unmeasured_ns;		/* waiting in run_delay beyond what was measured */
	uint64_t unmeasured_unsized;	/* ... of waits in threads gone since */
	const struct backend_sampling *sampling;	/* a sampling backend's account */
	/* live: what the hypervisor took from the CPUs in this interval (steal) */
	bool steal_known;
	uint64_t steal_ns;
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
};

struct analysis {
	const char *name;		/* the command's name: "runq" */
	const char *summary;		/* one line for 'offcpu-ftrace --help' */
	unsigned bit;			/* enum an_bit: the options it takes */
	unsigned flags;			/* AN_F_* */
	void (*help)(FILE *f);		/* --help, examples and exit status included */
	/* its default text output, for --dry-run; NULL: histograms ("text
	 * (BCC's layout), per process") */
	const char *text_output;
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
	/* optional: events it needs beyond switch, wakeup and wakeup_new: 1 << SEV_x */
	unsigned (*events)(const struct trace_opts *o);
	/* optional: why the kernel's hist triggers cannot do it (NULL: they can) */
	enum hist_refusal (*hist)(const struct trace_opts *o);
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

static inline enum hist_refusal an_hist(const struct trace_opts *o)
{
	return o->an->hist ? o->an->hist(o) : HIST_CAN;
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

/* What a tracing command's help shares (help.c). */
void an_help_common(FILE *f);
void an_help_exit(FILE *f, const char *name);

#endif
