/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --late-stacks: offcpu -K without a stack on every switch-out. The
 * backend traces the sched events only; every few milliseconds the
 * threads the analyzer knows to be blocked for at least --min, and not
 * woken since, get their kernel stack read from /proc/<tid>/stack (root),
 * once per interval. Intervals that end before a scan sees them blocked
 * keep no stack ([Missed Kernel Stack], counted).
 */
#ifndef OFFCPU_LATESTACK_H
#define OFFCPU_LATESTACK_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer.h"
#include "ksym.h"

struct late_stacks {
	bool on;
	uint64_t min_ns;		/* --min: a block this long gets its stack */
	uint64_t period_ns;		/* between scans */
	uint64_t next_ns;		/* CLOCK_MONOTONIC of the next scan */
	struct ksyms *ksyms;
	uint64_t unknown_frames;	/* frames whose symbol kallsyms lacks */
	uint64_t unreadable;		/* blocked intervals whose thread's
					 * /proc/TID/stack did not read (a
					 * container's policy), in the run so far */
	int unreadable_errno;		/* the first such failure's errno */
};

/* The scan's period for --min @min_us: half of it, 5 to 100 ms. */
uint64_t late_stacks_period_ns(uint64_t min_us);
/*
 * Checks that it can run (the mono clock, readable kallsyms; the caller
 * checked root before tracing) and arms it. 0, or -1 after a one-line error.
 */
int late_stacks_setup(struct late_stacks *ls, uint64_t min_us, struct ksyms *k, bool mono);
/* @ms, shortened to the next scan. */
int late_stacks_wait_ms(const struct late_stacks *ls, uint64_t now, int ms);
/* Scan when due (@now: CLOCK_MONOTONIC, the trace clock). */
void late_stacks_tick(struct late_stacks *ls, struct analyzer *an, uint64_t now);

#endif
