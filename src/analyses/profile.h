/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile's parts: profile.c accounts each thread's time by kind and
 * stack, closes the window and adds the threads up into rows;
 * profile_out.c prints them (the totals and table, folded lines, JSON,
 * the flame graph). What both read: the kinds, a thread's account, the
 * entries by stack, one print's window and rows. Not for other files.
 */
#ifndef OFFCPU_PROFILE_H
#define OFFCPU_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "histan.h"
#include "posindex.h"

#define NAME_LEN 256

enum pkind {
	PK_ONCPU,		/* [on-cpu]: sampled, by stack */
	PK_ONCPU_NOSAMPLE,	/* [on-cpu, no samples]: from the switches, no stack */
	PK_RUNQ,		/* [runq]: waiting for a CPU */
	PK_OFF_S,		/* [off-cpu S]: asleep */
	PK_OFF_D,		/* [off-cpu D]: uninterruptible */
	PK_OFF_OTHER,		/* [off-cpu]: another or unknown state */
	PK_CHILDREN,		/* [waiting for children]: a parent in wait4 or waitid */
	PK_N,
};

/*
 * a parent's block that this thread's wakeup ended, without a stack: it
 * waited for this child if the child's next switch-out is its exit
 */
struct pending {
	int32_t tid, cg;		/* the parent, and its cgroup key then */
	uint32_t kind, ustack;		/* where its time is now */
	uint64_t ns;			/* 0: none */
};

/* one thread's account (-P, --by: a row's, its threads added) */
struct pthread {
	int32_t tid, tgid;
	int32_t cg;			/* --by cgroup: its cgroup at its last event */
	char comm[COMM_LEN];
	uint64_t born, died;		/* in the window (0: before it / after it) */
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
	bool totals;			/* the proc backend's: its life is their sum */
	uint32_t nthreads;		/* merged rows: the threads merged */
	uint64_t wall_sum;		/* ... and their lives in the window, added */
	uint64_t on_ns, samples_ns, samples;
	uint64_t ns[PK_N];		/* by kind: the traced ones exact */
};

/* a stack entry: one thread's time of one kind with one stack */
struct pkey {
	int32_t id;			/* tid */
	int32_t tgid;			/* for user symbols */
	int32_t cg;			/* --by cgroup: the thread's then, else 0 */
	uint32_t kind, kstack, ustack;
};

struct pent {
	struct pkey k;
	uint64_t ns;
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

/* one print: its window and rows, what the output reads */
struct out {
	struct profile *p;
	const struct an_view *v;
	uint64_t start, end;
	const struct pthread *rows;	/* the threads, or the merged rows */
	size_t nrows;
};

/* thread @tid's account, or NULL where it has none (profile.c) */
struct pthread *profile_thread_find(struct profile *p, int32_t tid);

/* blocked on its own account: asleep, in D, or another state */
static inline uint64_t off_ns(const struct pthread *t)
{
	return t->ns[PK_OFF_S] + t->ns[PK_OFF_D] + t->ns[PK_OFF_OTHER];
}

/* every kind's time in its own account */
static inline uint64_t total_ns(const struct pthread *t)
{
	return t->on_ns + t->ns[PK_RUNQ] + off_ns(t) + t->ns[PK_CHILDREN];
}

/* its life in the window (merged rows: their threads' lives, added) */
static inline uint64_t wall_ns(const struct pthread *t, uint64_t start, uint64_t end)
{
	uint64_t a = t->born > start ? t->born : start, b = t->died && t->died < end ? t->died : end;

	if (t->nthreads)
		return t->wall_sum;
	if (t->totals)
		return total_ns(t);
	return b > a ? b - a : 0;
}

/* one print's output of @a's rows in @fmt (profile_out.c): 0 or -errno */
int profile_print_out(struct out *a, enum out_format fmt, FILE *f);

#endif
