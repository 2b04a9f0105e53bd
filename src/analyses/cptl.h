/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The critical path's input and its walk (profile --critical-path): each
 * followed thread's timeline of states (on a CPU, waiting for one,
 * blocked with its stack and waker), built from what the analyzer tells
 * its subscribers, in bounded memory; and the walk back from the
 * command's end through who woke (or created) whom, which tiles the
 * command's wall time with segments of struct cpath (src/report/cpath.h).
 * Pure: no I/O; whether a waking ran in an interrupt is the caller's
 * callback (it names the waker's stack).
 */
#ifndef OFFCPU_CPTL_H
#define OFFCPU_CPTL_H

#include <stdbool.h>
#include <stdint.h>

#include "cpath.h"
#include "event.h"
#include "posindex.h"

/* one stretch of a thread's life */
struct cp_seg {
	uint64_t start, end;
	int64_t state;			/* blocked: prev_state at the switch-out */
	int32_t other;			/* runq: the task switched out for it (0 idle, -1
					 * unknown); blocked: its waker (0 none seen) */
	uint32_t kstack, ustack;	/* blocked: its stacks, 0 none */
	uint32_t wstack;		/* blocked: the waker's kernel stack, 0 none */
	int16_t cpu;			/* -1 unknown */
	uint8_t kind;			/* CP_ON, CP_RUNQ, CP_BLOCKED (enum cpath_state) */
	uint8_t flags;			/* CPF_* */
};

#define CPF_PREEMPTED 0x1	/* runq: began with a preemption */
#define CPF_OPEN 0x2		/* blocked: still blocked when the window closed */

struct cp_thread {
	int32_t tid, tgid;		/* tgid -1 unknown */
	int32_t parent;			/* who created it (its sched_wakeup_new's task), 0 unknown */
	char comm[COMM_LEN];		/* its latest name (an exec renames it) */
	uint64_t born;			/* its sched_wakeup_new, 0 not in the window */
	uint64_t died;			/* switched out dead, 0 not */
	uint64_t in_since;		/* on a CPU since this switch-in, 0 not (known) */
	uint64_t first_wake;		/* woken before any state of it was seen (the
					 * command's release), 0 not */
	uint64_t first_ts;		/* the start of its first state, 0 none yet */
	int32_t in_cpu;
	struct cp_seg *seg;		/* by start */
	size_t n, cap;
};

/* a task outside the command named (a waker, a CPU's holder): direct-mapped */
#define CP_NAMES 4096
struct cp_name {
	int32_t tid;
	char comm[COMM_LEN];
};

/* The states of the threads followed, and their samples. */
struct cp_tl {
	struct cp_thread *t;
	size_t nt, capt;
	struct posindex index;		/* tid -> t[] */
	uint32_t maxt;
	uint64_t threads_over;		/* threads beyond maxt: not followed */
	uint64_t nseg, maxseg;		/* states kept, and their cap */
	uint64_t kept_from;		/* states that ended before it were dropped, 0 none */
	uint64_t dropped;		/* ... how many */
	struct cpath_sample *smp;
	size_t nsmp, capsmp, maxsmp;
	uint64_t samples_dropped;
	struct cp_name names[CP_NAMES];
};

/* @maxt threads, @maxseg states, @maxsmp samples at most. 0 or -ENOMEM. */
int cp_tl_init(struct cp_tl *tl, uint32_t maxt, uint64_t maxseg, size_t maxsmp);
void cp_tl_fini(struct cp_tl *tl);
/* Thread @tid's timeline (created when @add), or NULL (none, or beyond the cap: counted). */
struct cp_thread *cp_tl_thread(struct cp_tl *tl, int32_t tid, bool add);
/*
 * Add state @s to @t in its place by start (they come nearly in order:
 * at most a few back). 0, or -ENOMEM (not kept).
 */
int cp_tl_add(struct cp_tl *tl, struct cp_thread *t, const struct cp_seg *s);
/* Keep a sample (dropped, counted, beyond the cap). */
void cp_tl_sample(struct cp_tl *tl, const struct cpath_sample *s);
/* Name task @tid (not followed) @comm; and the name known, "" none. */
void cp_tl_name(struct cp_tl *tl, int32_t tid, const char *comm);
const char *cp_tl_name_of(const struct cp_tl *tl, int32_t tid);

/* What the walk needs besides the timelines. */
struct cp_walk_in {
	const struct cp_tl *tl;
	int32_t root;
	uint64_t start, end;
	/*
	 * every thread's sched_waking is in the trace (traced, none lost):
	 * a block that ended with none was woken in an idle CPU's interrupt
	 */
	bool wakings_whole;
	/* did the waking whose waker's stack is @wstack run in an interrupt? */
	bool (*in_irq)(void *arg, uint32_t wstack);
	void *arg;
};

/* What the walk found beyond the segments. */
struct cp_walk_out {
	struct cpath_seg *seg;		/* in time order; caller frees */
	size_t n;
	uint64_t irq_unchecked;		/* wakes followed without the waker's stack */
};

/*
 * Walk back from @in->end on the root: on a CPU or waiting for one, the
 * path stays on the thread; blocked and woken by a thread of the command
 * (not in an interrupt), it goes to the waker at the waking; before a
 * thread's creation, to its creator. The segments tile [start, end]. 0
 * or -ENOMEM.
 */
int cp_walk(const struct cp_walk_in *in, struct cp_walk_out *out);

#endif
