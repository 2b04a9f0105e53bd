/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile's state: profile.c accounts each thread's time by kind and
 * stack, closes the window and adds the threads up into rows, which
 * src/report/wallprof.c prints (wallprof.h: the kinds, a thread's
 * account, the entries by stack). Not for other files.
 */
#ifndef OFFCPU_PROFILE_H
#define OFFCPU_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "histan.h"
#include "posindex.h"
#include "wallprof.h"

struct profile {
	const struct trace_opts *o;
	struct analyzer *an;
	struct histan h;
	struct pthread *t;
	size_t nt, capt;
	struct posindex tindex;
	uint32_t maxt;
	uint64_t threads_over;		/* threads beyond --max-tasks */
	struct pent *v;
	size_t n, cap;
	struct posindex index;
	uint32_t max;
	uint64_t overflow_ns;		/* beyond --max-stacks */
	uint64_t first_ts, last_ts;
	bool sampled;			/* samples arrived */
	bool totals;			/* a sampling backend's totals arrived (proc) */
	bool closed;			/* close_window() ran: a second print adds nothing */
};

/* thread @tid's account, or NULL where it has none (profile.c) */
struct pthread *profile_thread_find(struct profile *p, int32_t tid);

#endif
