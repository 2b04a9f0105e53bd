/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The analyzer: turns a time-ordered stream of sched events into run-queue
 * latency and off-CPU intervals, filtered and grouped into histograms.
 * Pure: no I/O of its own; the caller's callbacks (tgid_of, comm_of,
 * in_cgroup, the late-stacks reader) may read /proc, and the analyses that
 * subscribed (analyzer_subscribe) hear what it measured.
 */
#ifndef OFFCPU_ANALYZER_H
#define OFFCPU_ANALYZER_H

#include <stdbool.h>
#include <stdint.h>

#include "cpustate.h"
#include "event.h"
#include "groups.h"
#include "posindex.h"
#include "stacks.h"
#include "tasktab.h"

enum an_mode {
	AN_RUNQ = 0x1,		/* wakeup/wakeup_new/preempt -> switch-in */
	AN_OFFCPU = 0x2,	/* switch-out -> switch-in */
	AN_ONCPU = 0x4,		/* switch-in -> switch-out: a timeslice */
};

enum an_stacks {
	AN_KSTACK = 0x1,	/* off-CPU time by kernel stack */
	AN_USTACK = 0x2,	/* ... and by user stack */
};

/* Whose run-queue rules to count by (runq --compat). */
enum an_compat {
	COMPAT_BCC,		/* runqlat: wakeup, wakeup_new, switch-out R or R+ */
	COMPAT_BPFTRACE,	/* runqlat.bt: the same, switch-out R (0) only */
	COMPAT_PERF,		/* perf sched timehist: first waking wins */
	/*
	 * libbpf-tools 0.26: runqlat as BCC's; cpudist's on-CPU mode counts a
	 * slice only where its task leaves runnable (R, R+), the idle task's
	 * too (its start map keys pid 0: one start for all CPUs' idle tasks)
	 */
	COMPAT_LIBBPF,
};

/* --compat's name for @c: "bcc", "bpftrace", "perf", "libbpf-tools" */
const char *an_compat_name(enum an_compat c);

enum an_key {
	KEY_NONE,		/* one histogram */
	KEY_PID,		/* per process (tgid) */
	KEY_TID,		/* per thread */
	KEY_CPU,		/* per CPU the interval ended on */
	KEY_COMM,		/* per thread name: a build's processes by tool */
	KEY_CGROUP,		/* per cgroup (a container): cfg.cgroup_of's ids */
};

/*
 * What the analyzer measures, told to the analyses that subscribed
 * (analyzer_subscribe), each as it happens in trace time. Pointers are
 * borrowed for the call.
 */
struct an_wait {		/* a run-queue wait of a selected thread ended */
	uint64_t start_ns, end_ns;	/* runnable (woken, new, preempted) -> on a CPU */
	int32_t tid, tgid, cpu;		/* tgid -1 unknown; cpu: where it ran */
	const char *comm;
	bool preempted;			/* it began with a preemption */
	uint8_t via;			/* how its start was found: AN_VIA_* */
	int32_t prev_tid;		/* the task switched out for it (0: idle) */
	const char *prev_comm;		/* ... its name, "" unknown */
};

/* an_wait.via: its own event, or what stood in for one the trace lacks */
enum {
	AN_VIA_EVENT,		/* its wakeup (waking, with --compat=perf) or preemption */
	AN_VIA_WAKING,		/* its sched_wakeup is not in the trace: from its waking */
	AN_VIA_ONTO_IDLE,	/* ... woken onto a CPU idle since before the waking: 0 */
	AN_VIA_IDLE_WOKEN,	/* no waking either, onto a CPU idle since it blocked: 0 */
};

struct an_off {			/* an off-CPU interval of a selected thread ended */
	uint64_t start_ns, end_ns;	/* switched out -> switched in */
	uint64_t wake_ns;		/* its wakeup (0: none seen: preempted, or lost) */
	uint64_t waking_ns;		/* AN_NEED_WAKERS: its sched_waking, 0 none */
	int32_t tid, tgid, cpu;		/* tgid -1 unknown; cpu: where it ran again */
	const char *comm;
	int64_t state;			/* prev_state at the switch-out */
	/*
	 * the name the trace gave it (NULL or "" none: perf's switch
	 * records): what analyzer_group() takes, as the analyzer's own
	 * groups do; @comm is that or the name looked up
	 */
	const char *comm_given;
	/*
	 * began blocked (not preempted, its state known): the part up to its
	 * wakeup (the wait for a CPU after it is run-queue time), in the
	 * state it began in: AN_BLK_S, AN_BLK_D or AN_BLK_OTHER; else
	 * AN_BLK_NONE and 0
	 */
	uint64_t blocked_ns;
	uint8_t blk;
	uint32_t kstack, ustack;	/* its stacks in an->kstacks/ustacks, 0 none */
	/* AN_NEED_WAKERS: who woke it (the waking event's task), 0 unknown */
	int32_t waker;
	const char *waker_comm;		/* "" unknown */
	uint32_t waker_kstack, waker_ustack;	/* the waker's stacks there, 0 none */
};

enum { AN_BLK_S, AN_BLK_D, AN_BLK_OTHER, AN_BLK_NONE };	/* an_off.blk */

/* @ns of blocked time that began in @kind (AN_BLK_*: _NONE adds nothing) onto @b */
static inline void blk_split_add(struct blk_split *b, unsigned kind, uint64_t ns)
{
	if (kind == AN_BLK_S)
		b->s_ns += ns;
	else if (kind == AN_BLK_D)
		b->d_ns += ns;
	else if (kind == AN_BLK_OTHER)
		b->other_ns += ns;
}

static inline void blk_split_merge(struct blk_split *to, const struct blk_split *from)
{
	to->s_ns += from->s_ns;
	to->d_ns += from->d_ns;
	to->other_ns += from->other_ns;
}

struct an_slice {		/* a task's stretch on a CPU: switch-in -> switch-out */
	uint64_t start_ns, end_ns;	/* start 0: not known (before the window, or a
					 * switch the trace lost) */
	int32_t tid, cpu;		/* tid 0: the CPU idled */
	int32_t next_tid;		/* the task switched in at end_ns (0: idle) */
	const char *next_comm;		/* ... its name, "" unknown */
	bool next_selected;		/* ... passes the filters */
	const char *comm;		/* "" unknown */
	int64_t state;			/* prev_state it left in */
	bool selected;			/* the task passes -p/-t/-c/--cgroup/-- COMMAND */
	/*
	 * the trace lost this switch: @tid left at or after end_ns (the
	 * CPU's last event before the gap), for a task not known (next_tid
	 * 0), its state unknown
	 */
	bool lost;
	/*
	 * start_ns 0 because the switch-in was lost: the CPU's first event
	 * that showed the task running, which it ran from at the latest (0:
	 * none); the switch-in lies between the model's bound and this
	 */
	uint64_t in_by;
};

struct an_wake {		/* a wakeup edge: sched_waking, _wakeup or _wakeup_new */
	uint64_t ts;
	int32_t cpu;			/* where the event was recorded */
	uint8_t type;			/* SEV_WAKING, SEV_WAKEUP, SEV_WAKEUP_NEW */
	int32_t tid;			/* the woken thread */
	int32_t waker;			/* the task current on @cpu (the waker, for
					 * sched_waking) */
	bool selected;			/* the woken thread passes the filters */
};

struct an_sample {		/* an on-CPU sample (SEV_SAMPLE) of a task */
	uint64_t ts, period_ns;		/* period: the CPU time it stands for */
	int32_t tid, tgid, cpu;
	const uint64_t *kframes, *uframes;	/* innermost first; borrowed */
	uint32_t kdepth, udepth;
	bool selected;
};

/*
 * A selected thread (-p, -t, -- COMMAND: comm and cgroup aside) created a
 * task (sched_process_fork)
 */
struct an_fork {
	uint64_t ts;
	int32_t tid, tgid;		/* the parent thread, its process (-1 unknown) */
	int32_t child;
	bool process;			/* the child leads a new process (not a thread
					 * of its parent's), as far as it can be looked up */
};

/* an_sink.needs: what the analyzer follows for a subscriber beyond its hooks */
#define AN_NEED_WAKERS 0x1	/* who woke each blocked thread (its last
				 * sched_waking's task, with its name) and,
				 * with -K, from where (the kernel stack that
				 * follows the waking): an_off.waker* */

struct an_thread;
struct an_sink {
	void *arg;
	unsigned needs;			/* AN_NEED_* */
	void (*sample)(void *arg, const struct an_sample *s);
	/* each optional */
	void (*wait)(void *arg, const struct an_wait *w);
	void (*off)(void *arg, const struct an_off *o);
	void (*slice)(void *arg, const struct an_slice *s);
	void (*wake)(void *arg, const struct an_wake *w);
	/*
	 * a task joined (+1) or left (-1) @cpu's run queue at @ts: woken
	 * (onto the wakeup's target CPU) or preempted, until it runs; a
	 * wakeup of a task still running queues nothing
	 */
	void (*queue)(void *arg, int32_t cpu, uint64_t ts, int delta);
	/*
	 * a task counted on @cpu's queue (queue) was seen running at @to,
	 * its switch-in lost: it left the queue somewhere in [@from, @to]
	 * (queue's -1 came at @to)
	 */
	void (*queue_lost)(void *arg, int32_t cpu, uint64_t from, uint64_t to);
	/*
	 * the CPU-state model's resolved stream (cpustate.h): each CPU's
	 * state changes and the selected tasks' run-queue changes, in time
	 * order, once no later event can change them (later than queue)
	 */
	void (*cpu)(void *arg, const struct cs_change *c);
	/* ... and what it said already that turned out not known (cs_sink.late) */
	void (*cpu_late)(void *arg, int32_t cpu, uint64_t lo_ns, uint64_t hi_ns);
	/*
	 * a run-queue wait of selected thread @tid the trace could not
	 * measure, counted in group @g (NULL: none, the groups were full)
	 */
	void (*unmeasured)(void *arg, int32_t tid, struct group *g);
	/*
	 * a sampling backend's totals of one selected thread for the interval
	 * (analyzer_add_thread); @tgid its process, -1 unknown
	 */
	void (*totals)(void *arg, const struct an_thread *t, int32_t tgid);
	/* a selected thread created a task */
	void (*fork)(void *arg, const struct an_fork *f);
	/* the reporting interval ends (analyzer_next_interval) */
	void (*boundary)(void *arg);
	/*
	 * at analyzer_finish: an off-CPU interval still open when the window
	 * closed (end_ns: the last event's time; wake_ns its wakeup, 0 none yet)
	 */
	void (*open_off)(void *arg, const struct an_off *o);
	/* the window ended at trace time @end_ns (analyzer_finish) */
	void (*finish)(void *arg, uint64_t end_ns);
};

#define AN_MAX_SINKS 4

/* Resolves a thread id to its process id; returns -1 when unknown. */
typedef int32_t (*tgid_fn)(int32_t tid, void *arg);

struct an_cfg {
	unsigned modes;			/* enum an_mode bits */
	enum an_key key;
	enum an_compat compat;
	uint64_t unit_ns;		/* 1000 (usecs) or 1000000 (msecs) */
	int32_t pid;			/* -p: tgid filter, -1 = off */
	int32_t tid;			/* -t: tid filter, -1 = off */
	char comm[COMM_LEN];		/* -c: comm filter, "" = off */
	/* offcpu --state: accept these prev_state bits, and R when off_r */
	uint64_t off_state_bits;
	bool off_state_r;
	bool off_state_all;		/* no --state given */
	uint64_t off_min_ns, off_max_ns; /* offcpu --min/--max, inclusive */
	struct sched_states states;
	uint32_t max_tasks;
	uint32_t max_groups;
	unsigned stacks;		/* enum an_stacks bits (offcpu -K/-U) */
	uint32_t max_stacks;		/* distinct stacks, and stack sums */
	tgid_fn tgid_of;
	void *tgid_arg;		/* also comm_of's */
	/* the name of task @pid (a process: its main thread's), 0 or -errno:
	 * -P groups are named for the process, not for one of its threads */
	int (*comm_of)(int32_t pid, char *buf, size_t len, void *arg);
	/*
	 * -- COMMAND: only these threads and every task they fork (from
	 * sched_process_fork events), whatever -p/-t say. NULL = off.
	 */
	const int32_t *follow;
	unsigned nfollow;
	/* --cgroup: is the thread in the cgroup? 1 yes, 0 no, -1 unknown */
	int (*in_cgroup)(int32_t tid, void *arg);
	void *cgroup_arg;
	/*
	 * --by cgroup: the cgroup thread @tid is in now, as a small id (>= 0;
	 * the caller names it), or -errno; its arg is group_arg
	 */
	int (*cgroup_of)(int32_t tid, void *arg);
	/* ... and cgroup @id's display name and full path (valid for the run) */
	void (*cgroup_names)(int id, const char **label, const char **path, void *arg);
	/*
	 * ... and a cgroup move (SEV_CGROUP_*), in trace order: task @pid
	 * (a thread, or a process's leader) moved to @path (NULL: the
	 * record's string was malformed) in hierarchy @root. The caller
	 * updates what cgroup_of answers, so every interval that ends after
	 * the move is keyed by the new cgroup: an interval counts in the
	 * cgroup its thread is in when it ends.
	 */
	void (*cgroup_moved)(int32_t pid, int32_t root, const char *path, void *arg);
	void *group_arg;
	/* the CPU-state model: how much switching the trace holds, the CPUs it covers (0 not known) */
	enum cs_trust cpu_trust;
	uint32_t ncpu;
	/*
	 * the analysis's figures depend on CPUs' idle state (runqlen -O,
	 * triage's unclaimed share): CPU time of unknown state makes them partial
	 */
	bool cpu_state;
};

/* Intervals that could not be measured, per mode. */
struct an_incomplete {
	uint64_t open_at_start;	/* ended in the window, started before it */
	uint64_t open_at_end;	/* started in the window, still open at its end */
	uint64_t negative;	/* end timestamp before start: dropped */
};

struct an_counts {
	uint64_t events[SEV_NTYPES];	/* decoded events by type */
	uint64_t state_overflow;	/* starts dropped: --max-tasks reached */
	uint64_t tgid_unknown;		/* intervals whose process was gone */
	uint64_t late;			/* events older than one already fed */
	uint64_t follow_overflow;	/* -- COMMAND: descendants beyond the cap */
	uint64_t cgroup_unknown;	/* --cgroup: threads gone before the check */
	uint64_t missed_switch;		/* a CPU ran a task whose switch-in
					 * was never recorded */
	uint64_t inferred;		/* off-CPU intervals closed at the
					 * tightest bound before such a gap
					 * (an underestimate) */
	uint64_t inferred_slack_ns;	/* ... by at most this much in all */
	uint64_t unmeasured;		/* run-queue waits of selected threads
					 * lost to such a gap */
	uint64_t perf_preempted;	/* --compat=perf: waits after a preemption, which
					 * perf 6.1's timehist counts as "wait time",
					 * its "sch delay" 0: in the histogram as 0 */
	uint64_t from_waking;		/* run-queue waits timed from sched_waking:
					 * their sched_wakeup is not in the trace */
	uint64_t onto_idle;		/* ... of those, woken onto a CPU idle since
					 * before the waking: the wait is its switch
					 * from idle (0), as the kernel counts it */
	uint64_t idle_woken;		/* run-queue waits with no waking in the
					 * trace either (woken in an idle CPU's
					 * interrupt) onto a CPU idle since
					 * before the thread blocked: its switch
					 * from idle, 0 */
	uint64_t slice_unmeasured;	/* on-CPU slices of selected threads
					 * whose switch-in such a gap lost */
	uint64_t off_unmeasured;	/* off-CPU intervals lost to one: the
					 * thread left another CPU after this
					 * one's last event, wakeup unseen */
	uint64_t no_stack;		/* ... summed without the stack asked for */
	uint64_t late_kstacks;		/* kernel stacks read while blocked
					 * (analyzer_late_kstacks) */
	/* off-CPU time of intervals that began blocked, by that state */
	struct blk_split blocked;
};

struct an_mode_state {
	struct groups groups;
	struct an_incomplete inc;
};

#define TGID_CACHE_BITS 14
#define COMM_CACHE_SLOTS 256
#define COMM_CACHE_NS 1000000000ULL
#define AN_MAX_CPUS 4096	/* CPUs whose current task is followed */

struct analyzer {
	struct an_cfg cfg;
	struct tasktab tasks;
	struct an_mode_state runq, off;
	struct an_mode_state on;	/* AN_ONCPU: timeslices */
	struct an_counts counts;
	uint64_t dead_bits;	/* X|Z: a task switched out dead never returns */
	uint64_t s_bits, d_bits;	/* S and D in prev_state */
	uint64_t last_ts;	/* newest event fed */
	/*
	 * In the whole run: what was fed (events, a kernel's sums, a
	 * sampler's totals), and whether -p, -t, -c, --cgroup or -- COMMAND
	 * let any thread of it through
	 */
	uint64_t seen;
	bool matched;
	uint64_t now;		/* the time of the event being fed */
	/*
	 * Names of threads whose events carry none (perf's switch records),
	 * for --by comm and for stack lines: looked up by thread,
	 * direct-mapped; each kept for a second of
	 * trace time (and cleared each interval), so a renamed or reused
	 * thread is named afresh at least that often
	 */
	struct an_comm_slot {
		int32_t tid;	/* 0: empty */
		uint64_t ts;	/* trace time of the lookup */
		char comm[COMM_LEN];
	} comm_cache[COMM_CACHE_SLOTS];
	int32_t *cur;		/* per CPU: task running per the trace, -1 unknown */
	uint64_t *cur_ts;	/* per CPU: time of its last event */
	struct cpustate cs;	/* each CPU's state: idle, busy, unknown (cpustate.h) */
	uint64_t idle_any_ts;	/* --compat=libbpf-tools oncpu: the last switch to any
				 * CPU's idle task (cpudist's start of pid 0) */
	int32_t *stack_tid;	/* per CPU: thread whose stack records come next */
	/* AN_NEED_WAKERS, per CPU: the thread whose waker's stack comes next */
	int32_t *wake_stack_tid;
	char (*cur_comm)[COMM_LEN];	/* ... and the running task's name */
	struct stacktab kstacks, ustacks;
	struct stackagg agg;	/* off-CPU time by (id, kstack, ustack) */
	struct tidset follow;	/* -- COMMAND's tasks, max of them at most */
	struct an_sink sinks[AN_MAX_SINKS];
	unsigned nsinks;
	bool want_slices;	/* a sink takes slices: slice_ts is kept */
	bool want_queue;	/* a sink takes run-queue changes */
	bool want_wakers;	/* a sink needs AN_NEED_WAKERS */
	bool want_fork;		/* a sink takes forks */
	uint64_t *slice_ts;	/* per CPU: when its current task went on, 0 unknown */
	uint64_t *slice_by;	/* ... and when not: when the trace first showed it on, 0 none */
	struct { int32_t tid; int8_t in; } cg_cache[1 << TGID_CACHE_BITS];
	struct { int32_t tid, tgid; } tgid_cache[1 << TGID_CACHE_BITS];
};

/* Returns 0 or a negative errno; the cfg is copied. */
int analyzer_init(struct analyzer *an, const struct an_cfg *cfg);
/*
 * Tell @s what the analyzer measures from now on (before the first event).
 * 0, -ENOSPC past AN_MAX_SINKS, -ENOMEM.
 */
int analyzer_subscribe(struct analyzer *an, const struct an_sink *s);
/*
 * Groups of an analysis's own (triage's blocked parts), under the run's
 * key (cfg.key) and named as the analyzer's own: init with the run's cap
 * (0 or -errno), cleared each interval by their owner, fini.
 */
int analyzer_groups_init(const struct analyzer *an, struct an_mode_state *m);
void analyzer_groups_fini(struct an_mode_state *m);
void analyzer_groups_clear(struct an_mode_state *m);
/*
 * The group in @m an interval of thread @tid (process @tgid: -1 unknown,
 * -2 not looked up; name @comm as the trace gave it, NULL none) ending on
 * @cpu belongs to, created when new; NULL when the table is full. In a
 * subscriber's call the id is the same as the analyzer's own groups'.
 */
struct group *analyzer_group(struct analyzer *an, struct an_mode_state *m, int32_t tid,
			     int32_t tgid, int32_t cpu, const char *comm);
void analyzer_fini(struct analyzer *an);
void analyzer_feed(struct analyzer *an, const struct sched_event *ev);
/*
 * Aggregating backends: @n intervals of @mode (AN_RUNQ or AN_OFFCPU) of
 * thread @tid (0 when the kernel did not key by thread) ending on @cpu
 * (-1 unknown), whose values floor to @v units and sum to @sum_ns;
 * @comm is the thread's name if known (NULL: a -c filter drops it). The
 * -p/-t/-c filters and the grouping apply as for events.
 */
void analyzer_add_intervals(struct analyzer *an, unsigned mode, int32_t tid, int32_t cpu,
			    const char *comm, uint64_t v, uint64_t n, uint64_t sum_ns);
/*
 * Aggregating backends, offcpu -K: @n off-CPU intervals of thread @tid
 * summing to @sum_ns, all switched out at kernel stack @frames (innermost
 * first; a backend's own frame tokens, named by its symbolizer).
 */
void analyzer_add_kstack_n(struct analyzer *an, int32_t tid, const char *comm,
			   const uint64_t *frames, uint32_t depth, uint64_t n, uint64_t sum_ns);
/*
 * The results are partial: a switch or wakeup of the selected threads was
 * missing from the trace (intervals inferred or not measured), an event
 * came out of time order, or an interval ended before it began.
 */
/*
 * A filter (-p, -t, -c, --cgroup, -- COMMAND) matched no thread of what
 * the run saw so far: an empty result that must not pass for complete
 * (the threads did not run, or their pids are not the trace's).
 */
static inline bool analyzer_matched_nothing(const struct analyzer *an)
{
	const struct an_cfg *c = &an->cfg;

	return (c->pid >= 0 || c->tid >= 0 || c->comm[0] || c->follow || c->in_cgroup) &&
	       an->seen > 0 && !an->matched;
}

/*
 * CPU time whose idle state the trace did not show, in the interval (after
 * analyzer_close_cpus), when the analysis's figures depend on it; else 0
 */
static inline uint64_t analyzer_cpu_unknown_ns(const struct analyzer *an)
{
	return an->cfg.cpu_state ? cpustate_unknown_ns(&an->cs) : 0;
}

/*
 * Did the trace miss what the results need? (Not counted here: a filter
 * that matched nothing, which the run may explain: threads blocked the
 * whole window.) CPU state it did not show, where the analysis depends
 * on it, is.
 */
static inline bool analyzer_partial(const struct analyzer *an)
{
	return an->counts.missed_switch > 0 || an->counts.unmeasured > 0 ||
	       an->counts.slice_unmeasured > 0 || an->counts.late > 0 ||
	       an->runq.inc.negative > 0 || an->off.inc.negative > 0 ||
	       an->counts.follow_overflow > 0 || analyzer_cpu_unknown_ns(an) > 0;
}

/*
 * Sampling backends (proc): one thread's totals over the interval, from
 * the kernel's counters: no interval has a time of its own, so they are
 * counted and summed but never bucketed. Filters and grouping apply as
 * for events.
 */
struct an_thread {
	int32_t tid;
	const char *comm;
	uint64_t runq_n, runq_ns;	/* waits for a CPU (schedstat) */
	uint64_t off_n, off_ns;		/* off-CPU intervals (switches), time off */
	uint64_t blk_n, blk_ns;		/* of those, blocked: neither running nor waiting */
	uint64_t oncpu_ns;
	struct blk_split blk;		/* blocked time by sampled state */
};
void analyzer_add_thread(struct analyzer *an, const struct an_thread *t);

/*
 * --late-stacks: the threads off-CPU since @before or earlier (trace clock)
 * in a blocked state --state wants (or one the trace does not know), not
 * woken since, whose interval has no kernel stack yet. @read is asked
 * once per interval for each one's stack (up to STACK_MAX_DEPTH frames;
 * 0: none); the frames it
 * gives become the interval's stack. @read must not feed the analyzer.
 * Returns how many stacks were taken.
 */
typedef unsigned (*an_stack_reader)(int32_t tid, uint64_t *frames, void *arg);
unsigned analyzer_late_kstacks(struct analyzer *an, uint64_t before, an_stack_reader read,
			       void *arg);

/* Counts intervals still open (call once, when the window has ended). */
void analyzer_finish(struct analyzer *an);
/* The window starts at @ts (trace clock): CPUs' states count from here (else: the first event). */
void analyzer_window_start(struct analyzer *an, uint64_t ts);
/*
 * The interval ends at @end (0: the last event's time): the CPU-state
 * model resolves every CPU up to it, with each CPU's idle time in it from
 * /proc/stat (@proc_idle, @nproc entries, accurate to @tol_ns, @listed
 * false for an offline CPU; NULL not known: cpustate_close()), and its
 * subscribers hear the rest of its stream. Before the interval is printed.
 */
void analyzer_close_cpus(struct analyzer *an, uint64_t end, const uint64_t *proc_idle,
			 const bool *listed, unsigned nproc, uint64_t tol_ns);
/* Start a new reporting interval: histograms and counters cleared, pending
 * starts kept (an interval is reported where it ends). */
void analyzer_next_interval(struct analyzer *an);

#endif
