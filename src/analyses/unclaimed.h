/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPU time left unclaimed (BCC's cpuunclaimed, from the events): at every
 * moment, min(idle CPUs, tasks waiting on busy CPUs' run queues), summed
 * over time. Fed the CPU-state model's resolved stream (cpustate.h: each
 * CPU idle, busy or unknown, and the run-queue changes, in time order), so
 * a CPU whose state the trace did not show is counted both ways: the
 * result is a range, which /proc/stat's idle time narrows. Shared by
 * runqlen -O and triage. Not for other layers.
 */
#ifndef OFFCPU_UNCLAIMED_H
#define OFFCPU_UNCLAIMED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"

struct unclaimed {
	int8_t st[AN_MAX_CPUS];		/* each CPU's state (enum cs_state), -1 not told */
	int32_t queued[AN_MAX_CPUS];	/* tasks waiting on its run queue */
	int32_t unsure[AN_MAX_CPUS];	/* ... and that may have run already */
	int32_t ncpu;			/* highest CPU told + 1 */
	int32_t nidle, nunknown;	/* CPUs idle; of unknown state */
	/* tasks waiting on busy CPUs; on CPUs of unknown state; maybe waiting on either */
	int64_t q_busy, q_unknown, q_unsure;
	uint64_t last_ns;		/* accumulated up to here */
	/*
	 * CPU time idle while work waited on a busy CPU: at least (a CPU of
	 * unknown state busy, a task that may have run not waiting) and at
	 * most (the other way round); what the model found late widens both
	 */
	uint64_t lo_ns, hi_ns, late_lo_ns, late_hi_ns;
};

/* The interval's unclaimed share, with what it rests on. */
struct unclaimed_result {
	double share, min, max;		/* of every CPU's time: the estimate, its bounds */
	uint64_t ns, min_ns, max_ns;
	bool exact;			/* every CPU's state known: min == max */
	uint64_t unknown_ns;		/* CPU time of unknown state (the model's) */
	uint64_t idle_ns;		/* CPU time known idle (the model's) */
	bool proc;			/* /proc/stat's idle time was known (and narrowed the bounds) */
	uint64_t proc_idle_ns;		/* ... all CPUs it listed */
};

/* Zeroed, no CPU told yet. 0 or -ENOMEM (*u set). */
int unclaimed_new(struct unclaimed **u);
/* The CPU-state model's stream: a state or run-queue change (an_sink.cpu). */
void unclaimed_change(struct unclaimed *u, const struct cs_change *c);
/* ... and its late findings (an_sink.cpu_late). */
void unclaimed_late(struct unclaimed *u, uint64_t lo_ns, uint64_t hi_ns);
/* Accumulate up to @ts (the interval's end). */
void unclaimed_advance(struct unclaimed *u, uint64_t ts);
/* The interval's accumulators cleared (the CPUs' states kept). */
void unclaimed_clear(struct unclaimed *u);
/*
 * The interval's share of @ncpu CPUs over @dur_ns, its bounds narrowed by
 * /proc/stat's idle time of the CPUs whose state is unknown (v->proc_*,
 * when known), into @r. @v->an's model must be closed (print time).
 */
void unclaimed_result(const struct unclaimed *u, const struct an_view *v, unsigned ncpu,
		      uint64_t dur_ns, struct unclaimed_result *r);
/*
 * Text lines after the share's own: "# partial: ..." with the bounds when
 * it is not exact, and "# CPU state: ..." (what the trace showed, and
 * /proc/stat's idle time beside it).
 */
void unclaimed_print_text(FILE *f, const struct unclaimed_result *r, const struct an_view *v);
/* JSON members ',"share_min":...,"cpu_state":{...}' for the unclaimed object. */
void unclaimed_print_json(FILE *f, const struct unclaimed_result *r, const struct an_view *v);

#endif
