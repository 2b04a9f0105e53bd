/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The timeline of the switches: each stretch a task had on a CPU, told
 * at its switch-out with what came before it (off the CPU since when,
 * in which state, waiting for a CPU since when, woken by whom) and what
 * the trace could not see. Built from what the analyzer tells its
 * subscribers (slices, waits, off-CPU intervals, waits it could not
 * measure); its state is per CPU, so memory does not grow with the
 * window. timehist prints its runs one by one; the Perfetto writer draws
 * them as thread-state slices. Not for other layers.
 */
#ifndef OFFCPU_TLINE_H
#define OFFCPU_TLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer.h"

/* tl_run.marks: what the trace could not see about a run */
enum {
	TL_LOST_OUT = 0x1,	/* its switch-out is not in the trace: out_ns is the
				 * CPU's last event before the gap (a lower bound) */
	TL_IN_UNSEEN = 0x2,	/* its switch-in is not in the trace (before the
				 * window, or lost): in_ns 0, run time unknown */
	TL_OFF_INFERRED = 0x4,	/* off the CPU until a bound the trace holds (its
				 * switch-in was lost): off time short by the gap */
	TL_WAIT_UNMEASURED = 0x8,	/* its wait for a CPU is not in the trace */
	TL_WAIT_WAKING = 0x10,	/* waited from its sched_waking: its sched_wakeup
				 * is not in the trace */
	TL_WAIT_IDLE = 0x20,	/* woken onto a CPU idle since (wakeup not in the
				 * trace): taken as 0, the CPU ran it as it left idle */
	TL_WINDOW_END = 0x40,	/* still on the CPU when the window closed */
};

struct tl_run {
	int32_t cpu;
	int32_t tid;			/* 0: the CPU idled */
	int32_t tgid;			/* -1 unknown */
	const char *comm;		/* "" unknown */
	bool selected;			/* passes -p/-t/-c/--cgroup/-- COMMAND */
	uint64_t in_ns, out_ns;		/* switched in (0 unknown) and out */
	int64_t state;			/* prev_state it left in (SCHED_STATE_UNKNOWN) */
	int32_t next_tid;		/* switched in after it (0 idle, -1 unknown) */
	/* before this run */
	bool have_off;			/* its off-CPU interval is known: */
	uint64_t off_ns;		/* ... switched out at */
	uint64_t off_end_ns;		/* ... until (in_ns, or with TL_OFF_INFERRED the
					 * bound the analyzer closed it at) */
	int64_t off_state;		/* ... in this state */
	bool have_wait;			/* its wait for a CPU is known: */
	uint64_t wait_ns;		/* ... runnable since (its waking, wakeup or
					 * preemption; = in_ns when taken as 0) */
	bool preempted;			/* ... which began with a preemption */
	int32_t waker;			/* who woke it (sched_waking's task), 0 unknown */
	const char *waker_comm;		/* "" unknown */
	uint64_t waking_ns;		/* ... when, 0 unknown */
	unsigned marks;			/* TL_* */
};

/* Called for each run in trace order; a run's pointers are borrowed for the call. */
typedef void (*tl_run_fn)(void *arg, const struct tl_run *r);
/*
 * Called for each selected task off the CPU when the window closed (the
 * analyzer's open_off: since o->start_ns in o->state, woken at o->wake_ns,
 * 0 not yet), after the runs; @end_ns the window's end.
 */
typedef void (*tl_open_fn)(void *arg, const struct an_off *o, uint64_t end_ns);

struct tl_cpu;
struct tline {
	struct analyzer *an;
	tl_run_fn run;
	tl_open_fn open;		/* optional */
	/* optional: @tid (not idle, named @comm, "" unknown) was switched in on @cpu at @ts */
	void (*in)(void *arg, int32_t cpu, int32_t tid, const char *comm, uint64_t ts,
		   bool selected);
	void *arg;
	struct tl_cpu *cpu;		/* per CPU: the run under way there */
	uint32_t ncpu;			/* ... entries allocated */
	int32_t last_cpu;		/* the CPU of the switch being fed */
	uint64_t oom;			/* runs whose CPU state could not be allocated */
};

/* Subscribe @t to @an (before the first event); 0 or -errno. */
int tline_init(struct tline *t, struct analyzer *an, tl_run_fn run, tl_open_fn open, void *arg);
/* Free its state; accepts a zeroed one. */
void tline_fini(struct tline *t);

/* "[switch-out lost]" and the like for @marks, ", "-separated into @buf; "" none */
void tline_marks_text(unsigned marks, char *buf, size_t len);
/* the same as JSON's member names ("lost_switch_out", ...), for each bit */
const char *tline_mark_name(unsigned bit);

#endif
