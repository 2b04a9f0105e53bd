/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile's state: profile.c accounts each thread's time by kind and
 * stack, closes the window and adds the threads up into rows, which
 * src/report/wallprof.c prints (wallprof.h: the kinds, a row, the
 * entries by stack). Not for other files.
 */
#ifndef OFFCPU_PROFILE_H
#define OFFCPU_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "histan.h"
#include "posindex.h"
#include "wallprof.h"

/*
 * a parent's block that this thread's wakeup ended, without a stack: it
 * waited for this child if the child's next switch-out is its exit
 */
struct pending {
	int32_t tid, cg;		/* the parent, and its cgroup key then */
	uint32_t kind, ustack;		/* where its time is now */
	uint64_t ns;			/* 0: none */
};

/* one thread's account: its row, and where the switches left it */
struct pthread {
	struct prow r;
	uint64_t on_since, off_since;	/* where the switches left it, 0 unknown */
	uint64_t last_in;		/* its last switch-in, 0 unknown */
	int64_t off_state;
	uint32_t open_ks, open_us;	/* the stacks of its interval open at the end */
	uint64_t open_wake;		/* ... and its wakeup there, 0 none */
	int32_t creator;		/* the task that created it in the window, 0 unknown */
	int32_t woke_by;		/* the task that last woke it (0: none, or idle) */
	uint64_t woke_at;		/* ... when */
	bool woke_waking;		/* ... by its sched_waking, in the waker's context */
	struct pending pend;
	bool seen_out;			/* a switch-out of it is in the window */
	bool ran;			/* ... a switch-in */
};

struct profile {
	const struct trace_opts *o;
	struct analyzer *an;
	struct histan h;
	struct pthread *t;
	size_t nt, capt;
	struct posindex tindex;
	uint32_t maxt;
	uint64_t threads_over;		/* threads beyond --max-tasks */
	struct pent *v;
	size_t n, cap;
	struct posindex index;
	uint32_t max;
	uint64_t overflow_ns;		/* beyond --max-stacks */
	uint64_t first_ts, last_ts;
	bool sampled;			/* samples arrived */
	bool totals;			/* a sampling backend's totals arrived (proc) */
	bool closed;			/* close_window() ran: a second print adds nothing */
};

/* thread @tid's account, or NULL where it has none (profile.c) */
struct pthread *profile_thread_find(struct profile *p, int32_t tid);

#endif
