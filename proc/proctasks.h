/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The proc backend's tasks: which threads a run selects (found again at
 * every sample), and what each one's counters were at the interval's
 * start and at its latest sample.
 */
#ifndef OFFCPU_PROCTASKS_H
#define OFFCPU_PROCTASKS_H

#include <stdbool.h>
#include <stdint.h>

#include "posindex.h"
#include "procread.h"

/* Time a thread spent asleep at one kernel stack, from its samples. */
struct pstack {
	uint32_t id;		/* the backend's stack id */
	uint32_t samples;
	uint64_t ns;
};

struct ptask {
	int32_t tid, tgid;
	bool seen;		/* found by the latest sample */
	bool gone;		/* vanished: its last period is not seen */
	struct proc_sample base;	/* counters at the interval's start */
	struct proc_sample last;	/* ... at its latest sample */
	uint64_t start_ns;	/* the interval's start for it (boottime ns) */
	uint64_t last_ns;	/* its latest sample */
	uint32_t n_s, n_d, n_other;	/* samples asleep: S, D, other */
	uint32_t nsamples;
	uint64_t blk_sampled_ns;	/* time between samples spent asleep */
	struct pstack *stacks;	/* -K */
	uint32_t nstacks;
	size_t capstacks;
	int fd_schedstat, fd_stat, fd_status, fd_wchan;	/* kept open, -1 if not */
};

struct ptasks {
	struct ptask *v;
	uint32_t n, max;	/* tasks, and the most there may be */
	size_t cap;		/* of v */
	struct posindex index;	/* tid -> position in v */
	uint64_t seen_total;	/* threads ever sampled */
	uint64_t gone_total;	/* ... that vanished between samples */
	bool keep_fds;		/* false once open files ran short */
};

/* Room for @max threads (--max-tasks). 0 or -ENOMEM. */
int ptasks_init(struct ptasks *t, uint32_t max);
void ptasks_fini(struct ptasks *t);
/* The task of @tid, created (zeroed, not yet read) when new; NULL when full. */
struct ptask *ptasks_get(struct ptasks *t, int32_t tid, bool *created);
/* Drop the tasks that are gone (after their interval was reported). */
void ptasks_sweep(struct ptasks *t);

/*
 * Read @p's counters now: schedstat always; status when @switches (it
 * holds the state and name too); stat when @full (start time, parent,
 * CPU times), or for the state without @switches. The fields a read
 * skips keep @s's values. 0, or -ENOENT when the thread is gone.
 */
int ptask_read(struct ptasks *t, struct ptask *p, bool switches, bool full,
	       struct proc_sample *s);
/* Read @p's /proc file @name ("wchan", "stack") into @buf. 0 or -errno. */
int ptask_read_file(struct ptasks *t, struct ptask *p, const char *name, char *buf, size_t len);

/* How a run selects threads. */
struct psel {
	int32_t tid;		/* -t, or -1 */
	int32_t pid;		/* -p, or -1 */
	int32_t root;		/* -- COMMAND: the command, or -1 */
	const char *comm;	/* -c, or NULL */
};

/*
 * Call @fn for every thread the selection holds now, with its process
 * id. -- COMMAND: the command's threads and every descendant process's
 * (from /proc/<tid>/task/<tid>/children, or each process's parent where
 * that file is missing); @followed remembers processes found once, so a
 * descendant whose parent exited stays selected. Returns how many.
 */
unsigned psel_walk(const struct psel *sel, struct tidset *followed,
		   void (*fn)(int32_t tgid, int32_t tid, void *arg), void *arg);

#endif
