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

#include "hist.h"
#include "psi.h"
#include "report.h"

struct triage_thresholds {
	uint64_t runq_tail_us;		/* p99 wait for a CPU that means contention */
	unsigned runq_share;		/* % of time waiting for a CPU, likewise */
	unsigned blocked_share;		/* % of time blocked that means "blocked" */
	unsigned oncpu_share;		/* % of time running that means "on-CPU" */
	unsigned throttle_share;	/* % of the window throttled by cpu.max */
};

enum verdict_kind {
	VERDICT_THROTTLED,
	VERDICT_CONTENTION,
	VERDICT_BLOCKED,
	VERDICT_ONCPU,
	VERDICT_MIXED,
	VERDICT_IDLE,		/* nothing selected ran */
};

struct triage_in {
	const char *scope;		/* "all threads", "make and its descendants", ... */
	const char *next_scope;		/* options to repeat the scope in a next step */
	const char *next_tool;		/* "offcpu-ftrace", or "offcpu-ftrace report F" */
	const char *next_window;	/* " 10" live, "" for a recording */
	double window_s;
	const char *backend, *clock;
	uint64_t running_ns, runq_ns, blocked_ns;
	const struct hist *runq, *blocked;	/* in usecs */
	int32_t top_blocked_pid;	/* -1 none */
	char top_blocked_comm[16];
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
	const struct backend_sampling *sampling;	/* proc: what it saw, else NULL */
	uint64_t command_cpu_ns;	/* -- COMMAND's rusage, 0 unknown */
};

struct verdict {
	enum verdict_kind kind;
	const char *name;		/* "cpu_contention", ... */
	char why[256];			/* the numbers that led to it */
	char next[256];			/* what to run next */
	double running, waiting, blocked;	/* shares 0..1 */
};

void triage_verdict(const struct triage_in *in, struct verdict *v);
void triage_print(FILE *f, enum out_format fmt, const struct triage_in *in);

#endif
