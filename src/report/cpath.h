/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A command's critical path, as profile --critical-path found it
 * (src/analyses/critpath.c): segments that tile the command's traced wall
 * time, [start, end], in time order, each one thread in one state. Printed
 * here: text (a ranked table, the path as a short story, the longest
 * segments), JSON, and folded lines of the path alone (for -f and the
 * flame graph).
 */
#ifndef OFFCPU_CPATH_H
#define OFFCPU_CPATH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "perfetto.h"
#include "stackout.h"

enum cpath_state {
	CP_ON,			/* on a CPU */
	CP_RUNQ,		/* waiting for one */
	CP_BLOCKED,		/* off a CPU, not runnable, nothing in the command woke it */
	CP_UNKNOWN,		/* the trace does not say (the why) */
};

/* A blocked segment's end, or why an unknown one is unknown. */
enum cpath_why {
	CPW_NONE,
	CPW_OUTSIDE,		/* woken by a task outside the command (other) */
	CPW_IRQ,		/* woken in an interrupt (its stack says), while
				 * other ran: a timer, a device */
	CPW_IDLE,		/* no waking in a trace that has every thread's: an
				 * interrupt on an idle CPU woke it (a timer, a device) */
	CPW_LOST,		/* no waking in a trace that may lack it (lost events,
				 * or none traced): who woke it is not known */
	CPW_OPEN,		/* still blocked when the window closed */
	CPW_CYCLE,		/* woken by a thread of the command the walk could not
				 * follow there (wakes in a cycle at one instant) */
	CPW_GAP,		/* unknown: between two events of the thread (switches lost) */
	CPW_BEFORE,		/* unknown: before the thread's first event */
	CPW_NOT_KEPT,		/* unknown: older than the states kept (the memory cap) */
};

/* How the path came to a segment's thread from the segment before it. */
enum cpath_via {
	CPV_SAME,		/* the same thread, or the path's first segment */
	CPV_WAKE,		/* the thread before woke this one */
	CPV_FORK,		/* ... created it */
};

struct cpath_seg {
	uint64_t start, end;		/* trace clock */
	int64_t state;			/* blocked: prev_state at its switch-out */
	int32_t tid;
	int32_t cpu;			/* on: where it ran; runq: where it then ran; -1 unknown */
	int32_t other;			/* runq: the task switched out for it (0 idle, -1
					 * unknown); blocked: its waker (0 none) */
	int32_t via_tid;		/* CPV_WAKE/_FORK: the thread of the segment before */
	uint32_t kstack, ustack;	/* blocked: its stacks at the switch-out, 0 none */
	uint32_t wstack;		/* blocked: the waker's kernel stack at the waking */
	uint32_t samples;		/* on: on-CPU samples of the thread inside it */
	uint8_t kind;			/* enum cpath_state */
	uint8_t why;			/* enum cpath_why */
	uint8_t via;			/* enum cpath_via */
	bool preempted;			/* runq: it began with a preemption */
};

/* An on-CPU sample of a thread of the command (the perf backend's). */
struct cpath_sample {
	uint64_t ts, period_ns;
	int32_t tid, tgid;
	uint32_t kstack, ustack;
};

struct cpath {
	const char *command;		/* the command line, or NULL */
	int32_t root;			/* its first process */
	uint64_t start, end;		/* its start and end (trace clock) */
	bool ended;			/* it exited in the window (else end: the window's) */
	const struct cpath_seg *seg;	/* in time order, tiling [start, end] */
	size_t n;
	/* the samples of its threads, by time */
	const struct cpath_sample *samples;
	size_t nsamples;
	bool sampled;			/* the backend sampled (on-CPU stacks) */
	/* a task's name and process (threads of the command, wakers, holders) */
	const char *(*comm_of)(const void *arg, int32_t tid);
	int32_t (*tgid_of)(const void *arg, int32_t tid);
	const void *name_arg;
	const struct stacktab *kstacks, *ustacks;
	const struct symbolizer *sym;
	const struct sched_states *states;
	uint32_t depth;			/* frames per stack printed */
	uint32_t top;			/* the longest segments listed (0: the default) */
	/* what the path could not hold */
	uint64_t kept_from;		/* states before this were dropped (the cap), 0 none */
	uint64_t states_dropped, states_cap;
	uint64_t threads_over;		/* threads beyond --max-tasks: not followed */
	uint64_t samples_dropped;	/* samples beyond their cap */
	uint64_t irq_unchecked;		/* wakes followed without the waker's stack, which
					 * would have told an interrupt's wake apart */
};

/* The text: the table by thread, the states, the story and the longest segments. */
void cpath_print_text(FILE *f, const struct cpath *p);
/* "# ..." lines: what the path could not hold, and why (nothing when it holds all). */
void cpath_print_notes(FILE *f, const struct cpath *p);
/* The JSON value of "critical_path". */
void cpath_print_json(FILE *f, const struct cpath *p);
/*
 * The path alone as folded lines ("comm-tid;user frames;kernel
 * frames;[kind]"), identical ones merged, the most time first; each on-CPU
 * segment's time shared among the samples inside it. Free with
 * stacks_fold_free(). 0 or -ENOMEM.
 */
int cpath_fold(const struct cpath *p, struct fold_line **lines, uint32_t *n);
/*
 * --format=perfetto, on a trace begun by the caller (who draws the
 * threads' states first): each segment marked on its thread's track
 * (category critical_path, nested in the state it is part of), all of
 * them in a lane of their own ("critical path"), and a flow where the
 * path crosses to another thread (its waker, its creator).
 */
void cpath_print_perfetto(struct pftrace *pf, const struct cpath *p);
/* The time of the path's segments that are unknown or lost a link, and whether any did. */
bool cpath_partial(const struct cpath *p, uint64_t *lost_ns);
/* The time of @p's segments in state @kind (enum cpath_state), or of all of them (-1). */
uint64_t cpath_sum(const struct cpath *p, int kind);

#endif
