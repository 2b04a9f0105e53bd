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

/* where host_caps.drops came from */
enum drop_source {
	DROPS_FROM_NONE,	/* not probed */
	DROPS_FROM_PROBE,	/* this process's probe */
	DROPS_FROM_STATE,	/* a probe or run earlier this boot (kfacts.h) */
};

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
	bool perf_allowed;		/* the capabilities allow it, and a real open of
					 * context-switch records succeeded */
	char perf_why[512];
	bool perf_records;		/* context-switch records open CPU-wide (a real
					 * open; no tracefs needed) */
	/*
	 * the capabilities allow perf but the open was refused (a container's
	 * seccomp profile): perf_why says so and what to do
	 */
	bool perf_refused;
	/* the pid namespace: 1 a container's own (the tracepoints' pids are the
	 * host's), 0 the kernel's, < 0 unknown */
	int pidns_foreign;
	bool container;			/* signs of a container: its own pid namespace,
					 * or podman's /run/.containerenv */
	bool userns_foreign;		/* a user namespace of its own (rootless): no
					 * capability of it reaches tracefs or perf */
	/* does the tracepoint lose switches? (DROPS_UNKNOWN: not probed) */
	enum drop_result drops;
	enum drop_source drops_from;	/* where that answer came from */
	/* DROPS_FROM_STATE: what saw it, when, and where that is kept */
	char drops_seen[512];
	unsigned drop_probe_ms;		/* how long this probe counted */
	uint64_t clean_probe_ms;	/* probing this boot that saw no loss, this
					 * probe's included */
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
	CHOSEN_SIZED,		/* auto: it loses them, but for run-queue waits perf
				 * cannot make up for it either: the ring, each
				 * wait not measured sized from schedstat */
	CHOSEN_HIST,		/* auto: the kernel aggregates */
	CHOSEN_RING,		/* auto: tracefs writable */
	CHOSEN_PERF,		/* auto: tracefs not writable; perf events allowed */
	CHOSEN_PROC,		/* auto: no tracing privileges; /proc sampling */
	CHOSEN_SAMPLES,		/* auto: the analysis samples stacks; perf can */
	CHOSEN_RECORDS,		/* auto: no tracepoints here; perf's switch records */
	CHOSEN_PIDNS,		/* auto: a pid namespace; a backend naming its pids */
	CHOSEN_FILE,		/* report */
	CHOSEN_REFUSED,		/* asked for a backend that cannot run here */
	CHOSEN_NONE,		/* nothing can run here */
};

/* What a command asks of the rule. */
struct choose_req {
	const char *want;		/* "auto" or a backend name */
	enum hist_refusal no_hist;	/* why the kernel's hist triggers cannot do it */
	bool samples;			/* it samples on-CPU stacks (AN_F_SAMPLES): auto
					 * takes perf wherever it can run */
	bool traced;			/* it needs single events (AN_F_TRACED): no proc */
	/*
	 * why perf's context-switch records alone (no tracepoint: no tracefs,
	 * or the host's pids in a pid namespace) cannot serve it, or NULL:
	 * they can (who left, preempted or not, and who came)
	 */
	const char *no_records;
	/*
	 * it measures run-queue waits alone, whose gaps its run sizes from
	 * every thread's schedstat (runq's histograms): where the kernel loses
	 * an idle CPU's events, perf's switch records cannot make it exact
	 * either (the wakeups are lost to both), so the cheaper ring serves
	 */
	bool sized;
	/* it filters, groups or names threads by pid (-p, -t, -- COMMAND,
	 * --cgroup, -P, -L, --by cgroup...): in a pid namespace the
	 * tracepoints' host pids cannot serve it */
	bool pid_keyed;
};

struct choice {
	enum backend_kind kind;		/* BK_NONE when nothing can run */
	/*
	 * BK_PERF from its context-switch records alone, no tracepoint (no
	 * tracefs here, or a pid namespace whose pids the tracepoints lack):
	 * switches carry who left (preempted or not) and who came, by the
	 * pids this process sees; no wakeups, states, names or stacks
	 */
	bool switches_only;
	char better[320];		/* what would give a better backend here, or "" */
	enum choose_reason reason;
	/* auto picked ring although the kernel has hist triggers, for this */
	enum hist_refusal hist_refused;
	char why[1024];			/* one line */
};

/* The rule. Pure: reads only @c and @r. */
void backend_choose_req(const struct host_caps *c, const struct choose_req *r,
			struct choice *out);
/*
 * The rule for a request that needs the tracepoints (no_records set) and
 * names no thread. @want: "auto" or a backend name; @no_hist: why this
 * command cannot run in the kernel's hist triggers.
 */
void backend_choose(const struct host_caps *c, const char *want, enum hist_refusal no_hist,
		    struct choice *out);
/*
 * For an analysis that samples on-CPU stacks (AN_F_SAMPLES): auto takes
 * perf wherever it can run (only perf samples); otherwise backend_choose().
 */
void backend_choose_sampling(const struct host_caps *c, const char *want,
			     enum hist_refusal no_hist, struct choice *out);
/*
 * Whether backend @k can run here at all (for some request), and why or
 * why not, in one phrase into @buf: 2 fully, 1 in part (perf's
 * context-switch records alone), 0 not.
 */
int backend_can(const struct host_caps *c, enum backend_kind k, char *buf, size_t len);
/* Does backend_choose() need c->drops for this request? */
bool choose_needs_drop_probe(const struct host_caps *c, const char *want);

/*
 * The drop probe's bound in a run, and in info (which exists to answer
 * it). At idle on the development host the first loss came after 20-656
 * ms (median about 100 ms, 20 probes): 300 ms sees it in about 3 runs of
 * 4, 1000 ms in all 20, and whichever run sees it first keeps it for the
 * boot. Once this boot has probed DROP_PROBE_CLEAN_MS without a loss,
 * runs probe DROP_PROBE_SHORT_MS (the traced runs themselves still keep
 * a loss they see).
 */
#define DROP_PROBE_RUN_MS 300
#define DROP_PROBE_INFO_MS 1000
#define DROP_PROBE_CLEAN_MS 10000
#define DROP_PROBE_SHORT_MS 20

/*
 * Probe the host: tracefs at @tracefs (NULL: find it), perf permission,
 * /proc; whether the tracepoint loses switches only when @drop_ms: from
 * what this boot already saw (kfacts.h), else the drop probe for at most
 * @drop_ms, whose sighting is kept for the boot.
 */
void host_caps_probe_ms(const char *tracefs, unsigned drop_ms, struct host_caps *c);
/* host_caps_probe_ms() with DROP_PROBE_RUN_MS when @drops, else none. */
void host_caps_probe(const char *tracefs, bool drops, struct host_caps *c);
/* The ops of the backend named @name ("ring", "file"...), NULL when none is. */
const struct backend_ops *backend_ops_named(const char *name);
/* The ops of @k, NULL for BK_NONE. */
const struct backend_ops *backend_ops_of(enum backend_kind k);

#endif
