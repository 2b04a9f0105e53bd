/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The size of what a trace could not measure. A run-queue wait whose
 * wakeup or switch-in the trace lacks (lost events; this host's kernel,
 * an idle CPU) is counted, not timed; its time is still in the kernel's
 * own accounting. Every thread's schedstat run_delay is read when tracing
 * begins and at each interval's end (all threads, not only the selected
 * ones: any of them may have a wait not measured), so the time those
 * waits held is what the thread's run_delay grew by less what was
 * measured of it: host-wide, and per group (struct group's
 * unmeasured_ns). A thread gone before the interval's end cannot be read
 * from /proc: the kernel's taskstats sends its run_delay as it exits
 * (taskstats.h, root), which sizes it too; where that is not heard (no
 * CONFIG_TASKSTATS, not root, a burst the socket had no room for) its
 * waits not measured are counted as not sized.
 */
#ifndef OFFCPU_UNSIZED_H
#define OFFCPU_UNSIZED_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer.h"
#include "posindex.h"
#include "taskstats.h"

#define UNSIZED_GROUPS 4	/* groups one thread's waits are split over, kept apart */

struct unsized {
	struct unsized_thread {
		int32_t tid;
		bool seen;		/* in the snapshot at the interval's start */
		bool alive_now;		/* ... and in the one at its end */
		bool exited;		/* taskstats told its exit: rd_exit */
		uint64_t rd_exit;	/* its run_delay then */
		uint64_t rd0;		/* run_delay then (0: born since) */
		uint64_t measured_ns;	/* waits measured since */
		uint32_t unmeasured;	/* waits not measured since */
		/* ... by group (its first UNSIZED_GROUPS; the rest in the last) */
		struct group *g[UNSIZED_GROUPS];
		uint32_t gn[UNSIZED_GROUPS];
	} *v;
	uint32_t n, cap;
	struct posindex index;
	bool on;
	struct ts_listener ts;	/* exits, where taskstats can be heard */
	bool ts_on;
};

/* The interval's account (unsized_interval). */
struct unsized_result {
	uint64_t ns;		/* the time of the waits not measured (schedstat) */
	uint64_t unsized;	/* waits not measured in threads gone (not sized) */
	uint64_t threads;	/* threads whose waits not measured were sized */
	/*
	 * every thread alive at both ends: what its run_delay grew by, and
	 * what was measured of it (a check on the measured waits themselves)
	 */
	uint64_t alive, alive_rd_ns, alive_measured_ns;
	/* threads gone by the interval's end: how many waited, what was measured of them */
	uint64_t gone, gone_measured_ns;
	/* ... of them sized from their exit (taskstats); exits the socket lost */
	uint64_t gone_sized, exits_lost;
	bool exits_heard;	/* taskstats was listened to */
};

/* Every thread's run_delay now, and the analyzer's waits from now on. 0 or -errno. */
int unsized_start(struct unsized *u, struct analyzer *an);
/* The exits heard since (taskstats), kept for the interval's end: call it often. */
void unsized_tick(struct unsized *u);
/*
 * The interval that ends now: the waits not measured sized from every
 * thread's run_delay (into @res, and each group's unmeasured_ns,
 * unmeasured_unsized and unmeasured_sized); the next interval starts
 * from here. false when not started.
 */
bool unsized_interval(struct unsized *u, struct unsized_result *res);
void unsized_free(struct unsized *u);

/*
 * Pure: what one thread's waits not measured held, from its run_delay at
 * the interval's start (@rd0) and end (@rd1) and what was measured; 0
 * when its run_delay grew by less (a wait open at the start, measured in
 * part: not this thread's to size).
 */
uint64_t unsized_thread_ns(uint64_t rd0, uint64_t rd1, uint64_t measured_ns);
/*
 * Thread @t's waits not measured, @ns in all (when @sized; else counted
 * as not sized), shared out over the groups they counted in by their
 * numbers there: each group's unmeasured_ns, unmeasured_unsized, and
 * unmeasured_sized set.
 */
void unsized_share(const struct unsized_thread *t, uint64_t ns, bool sized);

#endif
