/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The size of what a trace could not measure: run-queue waits whose
 * wakeup and waking are both lost (this host's kernel, an idle CPU) are
 * counted, not timed; the threads' own schedstat run_delay, read when
 * tracing began and when the window ended, says how long they waited in
 * all, so the unmeasured part is that less what was measured.
 */
#ifndef OFFCPU_UNSIZED_H
#define OFFCPU_UNSIZED_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer.h"
#include "posindex.h"

struct unsized {
	struct unsized_thread {
		int32_t tid;
		uint64_t rd0;		/* run_delay when tracing began (0: born since) */
		uint64_t measured_ns;	/* waits measured since */
		uint32_t unmeasured;	/* waits not measured */
	} *v;
	uint32_t n, cap;
	struct posindex index;
	bool on;
};

/* Every thread's run_delay now, and the analyzer's waits from now on. 0 or -errno. */
int unsized_start(struct unsized *u, struct analyzer *an);
/*
 * The threads that had waits not measured: *ns more waiting in their
 * schedstat than was measured, *unsized of those waits in threads gone
 * (or unreadable) since. false when not started.
 */
bool unsized_result(struct unsized *u, uint64_t *ns, uint64_t *unsized);
void unsized_free(struct unsized *u);

#endif
