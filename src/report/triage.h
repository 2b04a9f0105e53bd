/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * triage: the runbook's decision matrix as a command. From one capture:
 * where the selected threads' time went (running, waiting for a CPU,
 * blocked), the tails, pressure stall information and CPU throttling,
 * and a verdict with the numbers that led to it and the next step.
 */
#ifndef OFFCPU_TRIAGE_H
#define OFFCPU_TRIAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "hist.h"
#include "psi.h"
#include "report.h"

struct triage_thresholds {
	uint64_t runq_tail_us;		/* p99 wait for a CPU that means contention */
	unsigned runq_share;		/* % of time waiting for a CPU, likewise */
	unsigned blocked_share;		/* % of time blocked that means "blocked" */
	unsigned oncpu_share;		/* % of time running that means "on-CPU" */
	unsigned throttle_share;	/* % of the window throttled by cpu.max */
	unsigned wait_demand;		/* % of the time wanting a CPU spent waiting */
	unsigned unclaimed;		/* % of CPU time idle while work waited: a note */
};

enum verdict_kind {
	VERDICT_THROTTLED,
	VERDICT_CONTENTION,
	VERDICT_BLOCKED,	/* mostly uninterruptible (D) */
	VERDICT_SLEEPING,	/* mostly asleep (S): by choice, or for another thread */
	VERDICT_ONCPU,
	VERDICT_MIXED,
	VERDICT_IDLE,		/* nothing selected ran */
	VERDICT_HUNG,		/* nothing ran: blocked the whole window (or to its end) */
};

struct triage_row;

struct triage_in {
	const char *scope;		/* "all threads", "make and its descendants", ... */
	const char *next_scope;		/* options to repeat the scope in a next step */
	const char *next_tool;		/* "offcpu-ftrace", or "offcpu-ftrace report F" */
	const char *next_window;	/* " 10" live, "" for a recording */
	bool by_command;		/* the scope is -- COMMAND: repeat it, not a pid */
	/* a recording without kernel stacks: how to make one that has them
	 * ("offcpu-ftrace record -K -o F ..."), else NULL */
	const char *restack;
	double window_s;
	time_t wall;			/* when the window ended */
	const char *backend, *clock;
	uint64_t running_ns, runq_ns, blocked_ns;
	/* blocked_ns by the state it began in: uninterruptible (D: disk, some
	 * locks) and sleeping (S, and any other blocked state) */
	uint64_t blocked_d_ns, blocked_s_ns;
	/* asleep in processes that started processes of their own (a shell,
	 * make): waiting for their children, left out of blocked_ns */
	uint64_t parent_wait_ns;
	const struct hist *runq, *blocked;	/* in usecs */
	/* parent_wait_ns's intervals (NULL: not kept apart, a row's) */
	const struct hist *parent_waits;
	/* the process blocked longest in D, and the one asleep longest (not
	 * one waiting for its children, not offcpu-ftrace itself); -1 none */
	int32_t top_d_pid, top_s_pid;
	char top_d_comm[16], top_s_comm[16];
	int32_t top_runq_pid;
	char top_runq_comm[16];
	struct psi psi_before, psi_after;
	bool have_throttle;
	uint64_t nr_throttled, throttled_ns, periods;	/* deltas over the window */
	struct triage_thresholds th;
	uint64_t lost, missed_switch;
	uint64_t unmeasured, inferred;	/* intervals the trace could not measure */
	uint64_t recovered;		/* switches from perf's switch records */
	bool partial;
	/* blocks still open at the window's end (the selected threads'), or NULL */
	const struct open_blocks *open;
	/* CPU time idle while the threads waited on busy CPUs' queues, as a
	 * share of all CPUs' time (cpuunclaimed); < 0 unknown (sampled) */
	double unclaimed;
	/*
	 * ... unclaimed_partial where some CPU's idle state was not in the
	 * trace: the bounds it lies within (narrowed by /proc/stat's idle time
	 * when cpu_proc), and how much CPU time that was
	 */
	double unclaimed_min, unclaimed_max;
	bool unclaimed_partial, cpu_proc;
	uint64_t cpu_unknown_ns;
	/* live: what the hypervisor took from the CPUs (steal, all @ncpu added) */
	bool steal_known;
	uint64_t steal_ns;
	unsigned ncpu;
	const struct backend_sampling *sampling;	/* proc: what it saw, else NULL */
	uint64_t command_cpu_ns;	/* -- COMMAND's rusage, 0 unknown */
	/* --by cgroup: a row per cgroup, the busiest first (--top: the rest
	 * merged into a last row named "other"), else none */
	const struct triage_row *rows;
	size_t nrows;
	uint64_t rows_lost;		/* intervals no row could keep (out of memory) */
};

struct verdict {
	enum verdict_kind kind;
	const char *name;		/* "cpu_contention", ... */
	char why[512];			/* the numbers that led to it */
	char next[768];			/* what to run next */
	double running, waiting, blocked;	/* shares 0..1 */
};

/* --by cgroup: one cgroup's part of the window, and its own verdict */
struct triage_row {
	const char *name;		/* the runtime's id, or the path */
	const char *path;		/* below the hierarchy's root; NULL unknown */
	uint64_t running_ns, runq_ns, blocked_ns, blocked_d_ns, blocked_s_ns, parent_wait_ns;
	const struct hist *runq, *blocked;
	struct verdict v;		/* triage_verdict() of its numbers alone */
};

void triage_verdict(const struct triage_in *in, struct verdict *v);
void triage_print(FILE *f, enum out_format fmt, const struct triage_in *in);

#endif
