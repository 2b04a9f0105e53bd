/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which backend a command gets, and why: one rule for runs and for info.
 * The rule is pure (capabilities in, a decision out: backend_choose());
 * probing the host is separate (host_caps_probe()).
 */
#ifndef OFFCPU_CHOOSE_H
#define OFFCPU_CHOOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "backend.h"
#include "dropprobe.h"

enum backend_kind {
	BK_NONE,
	BK_HIST,		/* the kernel's hist triggers aggregate */
	BK_RING,		/* a private tracefs instance, decoded here */
	BK_PERF,		/* perf_event_open, with context-switch records */
	BK_PROC,		/* /proc sampling, no privileges */
	BK_FILE,		/* report: a recording */
};


/* -c names that go into a trigger filter as "NAME"; others stay in user space */
#define HIST_COMM_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:+@=,% "

/* The refusal in words (a phrase). */
const char *hist_refusal_text(enum hist_refusal r);

/* What the host offers the backends. */
struct host_caps {
	/* tracefs */
	bool tfs_asked;			/* --tracefs DIR: tracing was asked for */
	bool tfs_found, tfs_writable, tfs_not_root;
	char tfs_dir[4096];
	char tfs_why[256];		/* when not found or not writable */
	bool ev_switch, ev_wakeup;	/* sched event formats readable */
	bool hist, synth, buckets;	/* hist triggers, synthetic events, .buckets */
	bool synth_stack;		/* stacks through synthetic events (6.3+) */
	/* perf */
	bool perf_allowed;
	char perf_why[192];
	/* does the tracepoint lose switches? (DROPS_UNKNOWN: not probed) */
	enum drop_result drops;
	char drop_cpus[128];
	uint64_t drop_switches, drop_recorded;
	bool drop_idle_counted;		/* the probe counted switches to idle (a
					 * filtered tracepoint): BUSY can be told */
	/* proc: /proc/<pid>/task/<tid>/schedstat readable */
	bool proc_ok;
	/* instances of runs killed by SIGKILL, still recording (tfs_stale_instances) */
	bool stale_checked;		/* root, tracefs writable: looked */
	int stale;
	char stale_names[256];
};

/* "N tracefs instances left by killed runs (...), still recording: run ..." or "" */
void host_caps_stale_text(const struct host_caps *c, char *buf, size_t len);

enum choose_reason {
	CHOSEN_ASKED,		/* --backend NAME, and it can run */
	CHOSEN_DROPS,		/* auto: the tracepoint loses switches; perf has them */
	CHOSEN_HIST,		/* auto: the kernel aggregates */
	CHOSEN_RING,		/* auto: tracefs writable */
	CHOSEN_PERF,		/* auto: tracefs not writable; perf events allowed */
	CHOSEN_PROC,		/* auto: no tracing privileges; /proc sampling */
	CHOSEN_SAMPLES,		/* auto: the analysis samples stacks; perf can */
	CHOSEN_FILE,		/* report */
	CHOSEN_REFUSED,		/* asked for a backend that cannot run here */
	CHOSEN_NONE,		/* nothing can run here */
};

struct choice {
	enum backend_kind kind;		/* BK_NONE when nothing can run */
	enum choose_reason reason;
	/* auto picked ring although the kernel has hist triggers, for this */
	enum hist_refusal hist_refused;
	char why[1024];			/* one line */
};

/*
 * The rule. @want: "auto" or a backend name; @no_hist: why this command
 * cannot run in the kernel's hist triggers. Pure: reads only @c.
 */
void backend_choose(const struct host_caps *c, const char *want, enum hist_refusal no_hist,
		    struct choice *out);
/*
 * For an analysis that samples on-CPU stacks (AN_F_SAMPLES): auto takes
 * perf wherever it can run (only perf samples); otherwise backend_choose().
 */
void backend_choose_sampling(const struct host_caps *c, const char *want,
			     enum hist_refusal no_hist, struct choice *out);
/* Does backend_choose() need c->drops for this request? */
bool choose_needs_drop_probe(const struct host_caps *c, const char *want);

/*
 * Probe the host: tracefs at @tracefs (NULL: find it), perf permission,
 * /proc; the drop probe only when @drops (a few ms of perf events).
 */
void host_caps_probe(const char *tracefs, bool drops, struct host_caps *c);
/* The ops of @k, NULL for BK_NONE. */
const struct backend_ops *backend_ops_of(enum backend_kind k);

#endif
