/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Histograms keyed by one id (pid, tid, cpu, or a single group). Bounded:
 * past the cap, samples go to one "other" group and are counted.
 */
#ifndef OFFCPU_GROUPS_H
#define OFFCPU_GROUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "hist.h"
#include "posindex.h"

#define GROUP_OTHER INT64_MIN	/* id of the overflow group */

/* blocked time by the state it began in: a sleep (S), D (disk, some locks), another block */
struct blk_split {
	uint64_t s_ns, d_ns, other_ns;
};

struct group {
	int64_t id;
	char comm[COMM_LEN];	/* last comm seen for this id ("" if none) */
	struct hist h;
	uint64_t unmeasured;	/* intervals the trace could not measure */
	/*
	 * ... the time they held, from the threads' own schedstat (set after
	 * the interval by whoever sized them: unmeasured_sized), and how
	 * many of them are in threads that could not be sized (gone)
	 */
	uint64_t unmeasured_ns, unmeasured_unsized;
	bool unmeasured_sized;
	/* triage: blocked time by the state it began in, the wait for a CPU
	 * after the wakeup left out */
	struct blk_split blk;
	bool parent;		/* triage: it started a process of its own */
	bool named;		/* comm is the process's own name */
	bool name_tried;	/* ... looked up once */
	/* --by cgroup: its display name and full path (the namer's, kept for the run) */
	const char *label, *path;
};

struct groups {
	struct group **v;	/* n groups, in creation order */
	uint32_t n, cap;
	struct posindex index;	/* id -> position in v */
	uint64_t overflow;	/* samples that went to GROUP_OTHER */
	struct group *last;	/* the last group got (a one-entry cache) */
};

int groups_init(struct groups *g, uint32_t max_groups);
void groups_fini(struct groups *g);
/* Drop all groups (memory kept bounded; used between intervals). */
void groups_clear(struct groups *g);
/* The group for @id, created when new; never NULL after init succeeded
 * except on allocation failure. */
struct group *groups_get(struct groups *g, int64_t id);
/* The group for @id if there is one (never created), else NULL. */
struct group *groups_find(struct groups *g, int64_t id);
/* Sort v by id (GROUP_OTHER last) for printing. */
void groups_sort(struct groups *g);
/* Sort v by total time, largest first (GROUP_OTHER last). */
void groups_sort_by_total(struct groups *g);
/* Sort v by total count, ascending (bpftrace's order for hist maps). */
void groups_sort_by_count(struct groups *g);

#endif
