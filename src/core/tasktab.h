/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bounded per-thread state: tid -> pending interval starts. Open addressing
 * with linear probing and backward-shift deletion. It starts at 1024 slots
 * and doubles as threads arrive, up to twice the capacity fixed at
 * creation (--max-tasks), so memory is bounded and, for the usual few
 * hundred threads, small enough to stay in the cache. tasktab_get() may
 * move every entry: pointers from before it are stale.
 */
#ifndef OFFCPU_TASKTAB_H
#define OFFCPU_TASKTAB_H

#include <stdint.h>

#define TASK_RUNQ	0x1	/* runq_ts is a pending run-queue start */
#define TASK_OFF	0x2	/* off_ts is a pending off-CPU start */
#define TASK_PREEMPTED	0x4	/* the run-queue start was a preemption */
#define TASK_BLOCKED	0x8	/* switched out blocked in the window: its
				 * wakeup starts the next run-queue wait */
#define TASK_NEW	0x10	/* created in the window, never run yet: its
				 * first switch-in closes no off-CPU interval */
#define TASK_WAKING	0x40	/* a sched_waking came while it was not known
				 * to be blocked (waking_ts): a waker racing
				 * its sleep, if it now blocks at once */
#define TASK_STACK_TRIED 0x20	/* --late-stacks: this off-CPU interval had
				 * its one try (kept only with TASK_OFF) */

struct task {
	int32_t tid;		/* 0 = empty slot (pid 0 is never stored) */
	uint32_t flags;
	uint64_t runq_ts;
	uint64_t off_ts;
	int64_t off_state;	/* prev_state at the switch-out */
	uint64_t wake_ts;	/* its latest wakeup since then, 0 none */
	uint32_t kstack;	/* stacks at the switch-out, 0 = none */
	uint32_t ustack;
	/* the wakers: who woke it since it switched out (sched_waking, in the
	 * waker's context), when, and the waker's kernel stack there */
	int32_t waker;		/* 0 none */
	uint32_t waker_kstack;
	uint64_t waking_ts;
	char waker_comm[16];
	int32_t queued_on;	/* subscribers' run-queue length: the CPU + 1
				 * whose queue it is counted on, 0 none */
	char comm[16];		/* comm when the pending start was set */
};

struct tasktab {
	struct task *slot;
	uint32_t mask;		/* number of slots - 1 */
	uint32_t max_mask;	/* the most slots it may grow to, - 1 */
	uint32_t used;
	uint32_t cap;		/* max entries (--max-tasks) */
};

/* Returns 0 or -ENOMEM. */
int tasktab_init(struct tasktab *t, uint32_t max_tasks);
void tasktab_fini(struct tasktab *t);
struct task *tasktab_find(struct tasktab *t, int32_t tid);
/* Find or insert; NULL when the table is at its cap. */
struct task *tasktab_get(struct tasktab *t, int32_t tid);
void tasktab_del(struct tasktab *t, struct task *e);

#endif
