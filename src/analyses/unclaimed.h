/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPU time left unclaimed (BCC's cpuunclaimed, exact from the events):
 * at every moment, min(idle CPUs, tasks queued on busy CPUs), summed over
 * time. Fed the analyzer's run-queue changes and slices in trace order;
 * shared by runqlen -O and triage. Not for other layers.
 */
#ifndef OFFCPU_UNCLAIMED_H
#define OFFCPU_UNCLAIMED_H

#include <stdint.h>

#include "analyzer.h"

struct unclaimed {
	int8_t idle[AN_MAX_CPUS];	/* 1 idle, 0 busy, -1 not known yet */
	int32_t queued[AN_MAX_CPUS];	/* tasks on each CPU's run queue */
	int32_t ncpu;			/* highest CPU seen + 1 */
	int32_t nidle;			/* CPUs known idle */
	int64_t q_busy;			/* tasks queued on CPUs not known idle */
	int32_t nunknown;		/* CPUs whose state the trace did not show yet */
	uint64_t last_ns;		/* accumulated up to here */
	uint64_t unclaimed_ns;		/* CPU time idle while work waited elsewhere */
	uint64_t unknown_ns;		/* CPU time of CPUs not known idle or busy */
	uint64_t queued_ns;		/* time with a task queued on a busy CPU */
};

/* Zeroed, every CPU's state unknown. 0 or -ENOMEM (*u set). */
int unclaimed_new(struct unclaimed **u);
void unclaimed_queue(struct unclaimed *u, int32_t cpu, uint64_t ts, int delta);
void unclaimed_slice(struct unclaimed *u, const struct an_slice *s);
/* Accumulate up to @ts (the interval's end). */
void unclaimed_advance(struct unclaimed *u, uint64_t ts);
/* The interval's accumulators cleared (the CPUs' states kept). */
void unclaimed_clear(struct unclaimed *u);
/* unclaimed_ns as a share of @ncpu CPUs over @dur_ns; 0 when none. */
double unclaimed_share(const struct unclaimed *u, unsigned ncpu, uint64_t dur_ns);

#endif
