/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one model of each CPU's state: idle, or running a task, since when,
 * and how sure. Every analysis that needs to know whether a CPU was idle
 * reads it here (docs/design.md, "The state of each CPU").
 *
 * Fed by the analyzer in trace order: each event names the task current
 * on its CPU (0: the idle task), each recorded switch who runs next; the
 * analyzer adds, for a task the trace shows running where the CPU was
 * idle, the earliest it can have come there (its wakeup, or its last
 * event elsewhere). Pure: no I/O; /proc/stat's idle time is handed in.
 *
 * Two views:
 * - live (cpustate_idle_since): what the events fed so far show, for
 *   inferences made as they arrive (runq's onto_idle);
 * - resolved: each CPU's state over time once no later event can change
 *   it. A switch out of idle the trace lost is seen only at that CPU's
 *   next event, so the changes of every CPU are held back until all of
 *   them are known up to that time, then given to the sink in time order
 *   (with the run-queue changes the analyzer adds); per-interval sums per
 *   CPU (cpustate_cpu). At most CS_MAX_PENDING changes are held: past
 *   that the oldest go out with the state then known, and a lost switch
 *   found later behind them is a late one (cs_sink.late), which the
 *   consumers bound.
 */
#ifndef OFFCPU_CPUSTATE_H
#define OFFCPU_CPUSTATE_H

#include <stdbool.h>
#include <stdint.h>

/* How much of each CPU's switching the trace holds. */
enum cs_trust {
	/*
	 * every switch, but maybe not those out of idle (the 6.18 host's
	 * tracepoint loses them; not known to be complete): a task seen
	 * running on a CPU the trace had idle left idle unseen
	 */
	CS_LOSSY,
	/* every switch (perf's context-switch records; a kernel the drop probe found losing none) */
	CS_COMPLETE,
	/*
	 * only the switches of the selected threads (an in-kernel pid
	 * filter): a CPU's state is known while one of them runs
	 */
	CS_SELECTED,
};

enum cs_state { CS_UNKNOWN, CS_IDLE, CS_BUSY, CS_NSTATES };

enum cs_kind {
	CS_CH_STATE,	/* the CPU is in state val from ts on */
	CS_CH_QUEUE,	/* a task joined (+1) or left (-1) its run queue */
	/*
	 * a task that may have left its run queue already (its switch-in
	 * is lost, somewhere in a span): +1 at the earliest it can have
	 * run, -1 where the trace showed it running
	 */
	CS_CH_UNSURE,
};

/* One change of the resolved stream. */
struct cs_change {
	uint64_t ts;
	int32_t cpu;
	uint8_t kind;	/* enum cs_kind */
	int8_t val;	/* CS_CH_STATE: enum cs_state; else +1 or -1 */
};

/* Who hears the resolved stream (the analyzer, for its subscribers). */
struct cs_sink {
	void *arg;
	void (*change)(void *arg, const struct cs_change *c);
	/*
	 * what went out already turned out not known: up to @lo_ns of CPU
	 * time counted idle (or a task counted waiting) and up to @hi_ns
	 * counted busy may have been otherwise, at most one CPU at a time
	 * each. A consumer widens its bounds by that much.
	 */
	void (*late)(void *arg, int32_t cpu, uint64_t lo_ns, uint64_t hi_ns);
};

/* the most changes held back for the lost switches not found yet */
#define CS_MAX_PENDING (1u << 17)

struct cs_cpu {
	/* live: what the events so far show */
	uint8_t st;		/* enum cs_state */
	bool seen;		/* an event of it since `held` began */
	int32_t task;		/* CS_BUSY: who runs, -1 not known */
	uint64_t since;		/* st since */
	uint64_t last;		/* its last event */
	uint64_t assumed;	/* resolved this far on the live state alone (forced out) */
	uint64_t held;		/* !seen: its state is resolved up to here */
	/* resolved: its timeline, as pushed */
	uint8_t pst;		/* the state of the latest change pushed */
	uint64_t pfrom;		/* ... since (clipped to the interval) */
	uint64_t ns[CS_NSTATES];	/* this interval, per state, up to pfrom */
	uint64_t late_ns;	/* this interval: resolved, then found unknown */
	uint64_t idle_to;	/* its last event found a lost switch out of idle: idle to here */
	bool by_proc;		/* this interval: its open stretch was resolved by /proc/stat */
	bool offline;		/* this interval: no event, and /proc/stat lists it not */
};

struct cs_item {		/* a change held back (24 bytes) */
	struct cs_change c;	/* by c.ts */
	uint32_t seq;		/* pushes at one time keep their order */
};

struct cpustate {
	enum cs_trust trust;
	bool stream;		/* a sink takes the resolved stream */
	struct cs_sink sink;
	struct cs_cpu *cpu;
	uint32_t ncpu, cap;	/* CPUs known (the backend's, and any seen), allocated */
	uint64_t origin;	/* the interval's start (0: the first event's time) */
	uint64_t now;		/* the newest event's time */
	uint64_t out;		/* the stream went out up to here */
	uint64_t horizon;	/* every CPU is resolved up to here */
	bool release_due;	/* the horizon may have moved: look at the next call */
	struct cs_item *heap;	/* changes held back, by time */
	uint32_t n, hcap, seq;
	/* in the run: switches out of idle found lost, and other gaps */
	uint64_t lost_idle_exits, gaps;
	bool found_lossy;	/* trusted complete, but a switch out of idle was lost */
};

/* Returns 0 or -ENOMEM. @ncpu: the CPUs the trace covers, 0 not known. */
int cpustate_init(struct cpustate *cs, enum cs_trust trust, uint32_t ncpu);
void cpustate_fini(struct cpustate *cs);
/* @s hears the resolved stream from now on (one sink). */
void cpustate_stream(struct cpustate *cs, const struct cs_sink *s);
/* The window starts at @ts: a CPU's state before its first event counts from here. */
void cpustate_begin(struct cpustate *cs, uint64_t ts);
/*
 * An event on @cpu at @ts in the context of task @who (0: the idle task).
 * @after: the earliest @who can have come onto @cpu (its wakeup, or its
 * last event elsewhere), 0 not known: bounds a switch the trace lost.
 */
void cpustate_event(struct cpustate *cs, int32_t cpu, uint64_t ts, int32_t who, uint64_t after);
/*
 * The switch of that event: @next runs on @cpu from @ts (0: idle, -1 a
 * task not known).
 * @next_traced: in a CS_SELECTED trace, @next's switch out will be in it.
 */
void cpustate_switch(struct cpustate *cs, int32_t cpu, uint64_t ts, int32_t next,
		     bool next_traced);
/* A run-queue change of @cpu at @ts (+1 joined, -1 left), for the stream. */
void cpustate_queue(struct cpustate *cs, int32_t cpu, uint64_t ts, int delta);
/*
 * A task counted on @cpu's queue was seen running at @ts, its switch-in
 * lost: it left the queue in [@from, @ts]. (Instead of cpustate_queue -1.)
 */
void cpustate_queue_lost(struct cpustate *cs, int32_t cpu, uint64_t from, uint64_t ts);
/* Live: when @cpu went idle, if the events so far show it idle still; else 0. */
uint64_t cpustate_idle_since(const struct cpustate *cs, int32_t cpu);
/*
 * Live: where @cpu's last event showed a task running on it while the
 * model had it idle (a switch out of idle lost), how long it was known
 * idle: up to the later of its last event before and the task's bound;
 * else 0. The switch lies between that and the event.
 */
uint64_t cpustate_idle_until(const struct cpustate *cs, int32_t cpu);
/*
 * The interval ends at @end: everything up to it goes out. @proc_idle:
 * each CPU's idle time in the interval (/proc/stat's idle + iowait, @nproc
 * of them, accurate to @tol_ns; @listed false for a CPU it has no line
 * for), or NULL: a CPU without an event since its state was last known,
 * or idle since its last, has a single stretch of idle then busy (a lost
 * switch out of idle, to a task that showed nothing since) in all but a
 * CS_SELECTED trace, which /proc/stat times. A CPU with no event that
 * /proc/stat does not list is offline: busy with nothing (it runs no work).
 */
void cpustate_close(struct cpustate *cs, uint64_t end, const uint64_t *proc_idle,
		    const bool *listed, unsigned nproc, uint64_t tol_ns);
/* A new interval from the end of the last one: sums cleared, states kept. */
void cpustate_next_interval(struct cpustate *cs);
/* CPU time of unknown state in the interval (after cpustate_close: all of it). */
uint64_t cpustate_unknown_ns(const struct cpustate *cs);

#endif
