/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How a backend meets the core: a small ops table. A backend sets up its
 * kernel state (disabled), turns tracing on and off, and feeds decoded
 * sched events to a callback in timestamp order. The core never includes
 * tracefs or perf headers.
 */
#ifndef OFFCPU_BACKEND_H
#define OFFCPU_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct backend;
struct analyzer;

/* The scope a run traced, kept in its recording so a report applies it again. */
struct rec_scope {
	char kind[16];			/* "all", "command", "pid", "tid"; "" unknown */
	int32_t id;			/* command: its process; pid, tid: that id */
	char command[256];		/* command: the command line, shell-quoted */
	int32_t recorder;		/* the recording tool's own process, 0 unknown */
};

/*
 * A window as a recording holds it: what the recorder writes into the
 * file, and what recording() reads back from one.
 */
/* Which context switches a trace holds (backend_ops.switches, a recording's). */
enum bk_switches {
	/*
	 * the sched_switch tracepoint's: every one, unless the kernel loses
	 * those out of idle (the 6.18 host's: the drop probe says)
	 */
	BK_SW_TRACEPOINT,
	BK_SW_ALL,		/* every one: perf's context-switch records */
	BK_SW_LOSSY,		/* a recording that may lack switches out of idle */
	BK_SW_SELECTED,		/* the selected threads' only: an in-kernel pid filter */
};

struct backend_window {
	const char *clock;		/* trace clock of the events ("mono") */
	uint64_t start_ns, end_ns;	/* the traced window, in that clock */
	const uint64_t *lost_per_cpu;	/* events lost per CPU, cumulative */
	unsigned ncpu;			/* entries in lost_per_cpu */
	bool kernel_stacks;		/* kernel stacks were captured */
	uint64_t recovered;		/* switches taken from a second source (perf's
					 * context-switch records): recorded as any */
	const char *cmdlines;		/* "TID COMM" lines for saved_cmdlines, or
					 * NULL: tracefs's own file */
	const char *tgids;		/* "TID TGID" lines for saved_tgids, or NULL:
					 * the instance's (none without one) */
	struct rec_scope scope;
	/*
	 * --by cgroup: each thread's cgroup, "TID PATH" lines (the path below
	 * the hierarchy's root, as the run named it), and what the run keyed
	 * on ("the v1 hierarchy 1 (cpu) at ..."); NULL none. From
	 * recording(): the recording's, or NULL.
	 */
	const char *cgroups, *cgroups_keyed;
	/*
	 * more metadata: "key=value" lines, each ending in a newline, or
	 * NULL (a flight recording's trigger: flight=1 says the events
	 * outside start_ns..end_ns are not the window's). From recording():
	 * what saved a flight recording, in words (its flight_trigger), or NULL.
	 */
	const char *extra;
	/*
	 * the plan the run carried out: the backend's name and the events in
	 * --dry-run's words; each NULL: none (a file made without them)
	 */
	const char *plan_backend, *plan_events;
	int switches;			/* enum bk_switches: which the trace holds */
	/*
	 * each CPU's idle time in the window, /proc/stat's idle + iowait,
	 * @nproc entries, proc_listed[cpu] false where it had no line
	 * (offline); proc_idle NULL when not known
	 */
	const uint64_t *proc_idle;
	const bool *proc_listed;
	unsigned nproc;
};

/* Where a recording's formats and per-CPU stats come from (rec_source). */
struct backend_rec_src {
	const char *tracefs;		/* tracefs root: events/.../format, saved_cmdlines */
	const char *instance;		/* the backend's instance (per-CPU stats,
					 * saved_tgids), or NULL: none (perf) */
	unsigned ncpu;
	size_t page_size;		/* of every page handed to page_sink */
	uint32_t buffer_kb;		/* the kernel's buffer per CPU, 0 unknown */
};

/* A flight recorder's store (--flight), as the recorder tells it. */
struct backend_flight {
	size_t bytes, peak_bytes;	/* pages held now, at most */
	size_t cap_bytes;		/* the most it may hold per CPU */
	uint64_t short_drops;		/* pages dropped for room inside the window */
	uint64_t complete_from;		/* every CPU's events are held from here */
};

typedef void (*sched_ev_cb)(const struct sched_event *ev, void *arg);

/* What a command needs from a backend. */
struct trace_req {
	const char *tracefs;		/* --tracefs DIR, NULL = find it */
	uint32_t buffer_kb;		/* per-CPU buffer, 0 = default */
	const int32_t *pids;		/* in-kernel filter: these tids ... */
	unsigned npids;
	bool follow_fork;		/* ... and their new threads/children */
	const char *comm;		/* -c NAME, NULL = any */
	const char *record_path;	/* a recording is made (the pages go to page_sink) */
	/*
	 * record_path (or --flight): every page of raw events goes to
	 * page_sink (the command line's recorder) as it is read (ring) or
	 * filled (perf, which writes its events as pages of the kernel's
	 * layout); NULL: none
	 */
	int (*page_sink)(void *arg, unsigned cpu, const void *page);
	void *page_arg;
	const char *replay_path;	/* file backend: the recording to read */
	bool waking;			/* also sched_waking (--compat=perf) */
	bool fork;			/* also sched_process_fork (follow children) */
	/*
	 * --by cgroup: also cgroup_attach_task and cgroup_transfer_tasks where
	 * the kernel has them (the events op says which it opened)
	 */
	bool cgroup_moves;
	int32_t pid;			/* -p (the process), or -1 */
	unsigned rate_hz;		/* sampling backends: samples per second */
	bool kstack;			/* kernel stacks of switch-outs */
	bool waking_kstack;		/* ... and of sched_waking (the waker's), with waking */
	bool cpu_samples;		/* profile: sample what runs, rate_hz a second
					 * (default 99), with callchains */
	bool ustack;			/* user stacks of switch-outs */
	/*
	 * the analysis needs of a switch only who left (preempted or not) and
	 * who came: no prev_state letters, comm or stack (runq): a backend
	 * with another complete source of switches may use it alone
	 */
	bool switch_minimal;
	/*
	 * no tracepoint at all: the switches from a source that needs no
	 * tracefs and names tasks by this process's pid namespace (perf's
	 * context-switch records); events() says what there is (switches)
	 */
	bool switches_only;
	const char *stack_states;	/* --state letters (NULL all): only
					 * those switch-outs carry stacks */
	/*
	 * What the analysis counts, for a backend that aggregates in the
	 * kernel (hist) and must do it by the same rules; streaming
	 * backends feed events and ignore it.
	 */
	struct trace_agg {
		unsigned modes;		/* enum an_mode */
		int key;		/* enum an_key of the in-kernel key */
		uint64_t unit_ns;
		uint64_t off_min_ns, off_max_ns;
		int compat;		/* enum an_compat */
	} agg;
};

#define BACKEND_ERRLEN 256

/* What a sampling backend (proc) saw: how far its totals reach. */
struct backend_sampling {
	double hz;			/* samples per second asked for */
	double hz_min;			/* the lowest rate used (lowered to bound
					 * the cost when many threads are sampled) */
	uint64_t threads;		/* threads sampled in the window */
	uint64_t vanished;		/* of those, gone between two samples: the
					 * time since their last sample is not seen */
	uint64_t cpu_seen_ns;		/* on-CPU time of the threads sampled */
	const char *stacks;		/* -K frames: "stack" (root), "wchan" (own
					 * processes), or NULL */
};

/* What a backend can do (backend_ops.caps): asked, never inferred from its name. */
#define BCAP_EVENTS 0x1		/* it feeds single events (not the kernel's sums) */
#define BCAP_RECORD 0x2		/* it can make a recording (page_sink, rec_source) */
#define BCAP_SUMS 0x4		/* the kernel aggregates (hist triggers): collect() */
#define BCAP_SAMPLES 0x8	/* it samples /proc: totals, no single events */
#define BCAP_REPLAY 0x10	/* it reads a recording */
#define BCAP_SWITCH_RECORDS 0x20	/* perf's context-switch records beside the tracepoints */

struct backend_ops {
	const char *name;
	unsigned caps;			/* BCAP_* */
	/* where the events come from, for --dry-run's plan ("in a tracefs instance of its own") */
	const char *source;
	/*
	 * Set up everything, tracing still off. Returns 0 or a negative
	 * errno with a one-line reason and fix in @err. *b is set even on
	 * failure when something must be closed.
	 */
	int (*open)(struct backend **b, const struct trace_req *req,
		    char *err, size_t errlen);
	/* Tracing on/off in the kernel. */
	int (*start)(struct backend *b);
	int (*stop)(struct backend *b);
	/* Sleep until data is worth reading or @timeout_ms passed; EINTR ok. */
	int (*wait)(struct backend *b, int timeout_ms);
	/*
	 * Read what the kernel has and feed, in time order, the events with
	 * ts <= @limit that are safe to order. @drain: tracing is off, feed
	 * everything up to @limit. Returns 0 or a negative errno.
	 */
	int (*read)(struct backend *b, uint64_t limit, bool drain,
		    sched_ev_cb cb, void *arg);
	/* The trace clock in use, and whether it is CLOCK_MONOTONIC. */
	const char *(*clock)(struct backend *b, bool *is_mono);
	/* Events lost so far per CPU (cumulative); returns the CPU count. */
	unsigned (*lost)(struct backend *b, uint64_t *lost_cpu, unsigned max);
	/* How prev_state reads on this kernel. */
	const struct sched_states *(*states)(struct backend *b);
	/* Bit (1 << SEV_x) set for each event type the kernel provides. */
	unsigned (*events)(struct backend *b);
	/*
	 * Aggregating backends (hist): the kernel summed the interval that
	 * just ended; fill @an's histograms and counters from it and start
	 * the next one. Streaming backends leave this NULL and feed events.
	 */
	int (*collect)(struct backend *b, struct analyzer *an, char *err, size_t errlen);
	/*
	 * optional (aggregating backends): intervals the kernel measured but
	 * could not keep (a full map), cumulative; the results are partial
	 */
	uint64_t (*dropped)(struct backend *b);
	/*
	 * optional (recordings): records that cannot be true (a CPU's time
	 * stepping back or past the recording's end, a pid out of range),
	 * skipped, cumulative; the results are partial
	 */
	uint64_t (*rejected)(struct backend *b);
	/*
	 * optional: the name of a kernel frame the backend gave the analyzer
	 * (a token from an aggregating backend, an address from a recording,
	 * named with its own symbols); 0, or -ENOENT with a raw form
	 */
	int (*kframe)(struct backend *b, uint64_t token, char *buf, size_t len);
	/*
	 * optional (the backends that record, page_sink): where a
	 * recording's metadata comes from, once open. 0 or a negative errno.
	 */
	int (*rec_source)(struct backend *b, struct backend_rec_src *s);
	/* optional: hand the pages being filled to page_sink now, partly full */
	int (*flush_pages)(struct backend *b);
	/*
	 * optional (a backend whose events tracefs did not see): the threads
	 * of the events recorded, as saved_cmdlines ("TID COMM" lines) and
	 * saved_tgids ("TID TGID") have them, valid until the next call or
	 * close; NULL where it has none
	 */
	void (*task_lists)(struct backend *b, const char **cmdlines, const char **tgids);
	/*
	 * optional (a backend reading a recording): the recorded window;
	 * lost_per_cpu is NULL. 0 or a negative errno. Strings live as long
	 * as @b.
	 */
	int (*recording)(struct backend *b, struct backend_window *w);
	/*
	 * optional (a recording): thread @tid's process as the recording
	 * noted it (saved_tgids): the tgid, -1 when it is not listed, -2
	 * when the recording has no such list (never this host's /proc).
	 */
	int32_t (*task_tgid)(struct backend *b, int32_t tid);
	/*
	 * optional (a recording): thread @tid's name as the recording's
	 * saved_cmdlines has it, into @buf: 0, or -ENOENT when it is not there
	 */
	int (*task_comm)(struct backend *b, int32_t tid, char *buf, size_t len);
	/*
	 * optional: one line the user should know after open() succeeded
	 * (e.g. instances left by killed runs), or NULL
	 */
	const char *(*notice)(struct backend *b);
	/*
	 * optional: context switches the sched_switch tracepoint did not
	 * deliver that the backend fed from a second source (perf's
	 * context-switch records), cumulative
	 */
	uint64_t (*recovered)(struct backend *b);
	/*
	 * optional, after open(): which context switches the trace holds
	 * (enum bk_switches); without it, BK_SW_TRACEPOINT. The CPU-state
	 * model trusts the trace that far (docs/design.md).
	 */
	int (*switches)(struct backend *b);
	/*
	 * optional, sampling backends: fill @s; 0. Their totals come from the
	 * kernel's counters, their distributions and stacks from samples.
	 */
	int (*sampling)(struct backend *b, struct backend_sampling *s);
	/* optional: why the last start() or stop() failed, in words */
	const char *(*why)(struct backend *b);
	/*
	 * Undo everything open() did and free @b; accepts NULL. Returns 0,
	 * or a negative errno with what could not be restored in @err.
	 */
	int (*close)(struct backend *b, char *err, size_t errlen);
};

#endif
