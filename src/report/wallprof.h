/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile's output (src/analyses/profile.c accounts the time): a
 * thread's row by kind, the entries by stack, and one print's window
 * and rows, printed as the totals and table, -f's folded lines, JSON or
 * the flame graph. Printing only: what it reads of the run is in struct
 * prof_out.
 */
#ifndef OFFCPU_WALLPROF_H
#define OFFCPU_WALLPROF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

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
 * one row of the output: a thread's account by kind (-P, --by: a row's,
 * its threads added)
 */
struct prow {
	int32_t tid, tgid;
	int32_t cg;			/* --by cgroup: its cgroup at its last event */
	char comm[COMM_LEN];
	uint64_t born, died;		/* in the window (0: before it / after it) */
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

/* blocked on its own account: asleep, in D, or another state */
static inline uint64_t off_ns(const struct prow *t)
{
	return t->ns[PK_OFF_S] + t->ns[PK_OFF_D] + t->ns[PK_OFF_OTHER];
}

/* every kind's time in its own account */
static inline uint64_t total_ns(const struct prow *t)
{
	return t->on_ns + t->ns[PK_RUNQ] + off_ns(t) + t->ns[PK_CHILDREN];
}

/* its life in the window (merged rows: their threads' lives, added) */
static inline uint64_t wall_ns(const struct prow *t, uint64_t start, uint64_t end)
{
	uint64_t a = t->born > start ? t->born : start, b = t->died && t->died < end ? t->died : end;

	if (t->nthreads)
		return t->wall_sum;
	if (t->totals)
		return total_ns(t);
	return b > a ? b - a : 0;
}

/* one print: what the output reads */
struct prof_out {
	enum an_key key;		/* the rows: threads (KEY_TID: -L; KEY_NONE: by
					 * name in the stacks), KEY_PID, KEY_COMM, KEY_CGROUP */
	unsigned top;			/* --top, 0: all */
	bool folded;			/* -f */
	unsigned hz;			/* the sampling rate asked, 0: the default */
	uint32_t stack_depth;		/* frames per stack at most */
	bool sampled;			/* on-CPU samples arrived */
	bool totals;			/* a sampling backend's totals (proc): no stacks */
	bool replay;			/* from a recording */
	bool switch_records;		/* the backend has every switch (perf's records) */
	uint64_t samples;		/* every thread's samples */
	uint64_t overflow_ns;		/* beyond --max-stacks */
	uint64_t threads_over;		/* events of threads beyond --max-tasks */
	const struct pent *v;		/* the entries by stack */
	size_t n;
	/* thread @tid's account, or NULL where it has none */
	const struct prow *(*thread)(void *arg, int32_t tid);
	/* --by cgroup: cgroup @id's name, and its path (NULL: unknown) */
	const char *(*cgroup_name)(void *arg, int id, const char **path);
	void *arg;
	const struct symbolizer *sym;	/* NULL: frames not named */
	const struct stacktab *kstacks, *ustacks;
	uint64_t start, end;		/* the window */
	const struct prow *rows;	/* the threads, or the merged rows */
	size_t nrows;
};

/*
 * @a in @fmt inside @rep's envelope (the run's account, filled by the
 * analysis): JSON, the flame graph, or the totals and table (-f: folded
 * lines, the rest on stderr). 0 or -errno when @f failed.
 */
int wallprof_print(struct prof_out *a, enum out_format fmt, struct report *rep, FILE *f);

#endif
