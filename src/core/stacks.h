/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Off-CPU time by stack: stacks interned once (an id per distinct frame
 * list), and time summed per (thread or process, kernel stack, user stack).
 * Both tables are bounded; what does not fit is counted.
 */
#ifndef OFFCPU_STACKS_H
#define OFFCPU_STACKS_H

#include <stdint.h>

#include "event.h"
#include "posindex.h"

struct stacktab {
	uint64_t *frames;	/* all frames, one pool */
	uint64_t nframes, cap_frames;
	struct stack_ent {
		uint64_t hash;
		uint32_t off, depth;
	} *v;			/* id - 1 -> stack */
	uint32_t n, cap;
	struct posindex index;	/* frames' hash -> position in v */
	uint64_t overflow;	/* stacks not interned: table full */
};

/* Returns 0 or -ENOMEM. */
int stacktab_init(struct stacktab *s, uint32_t max_stacks);
void stacktab_fini(struct stacktab *s);
/* Id of this frame list (1-based), 0 when the table is full. */
uint32_t stacktab_intern(struct stacktab *s, const uint64_t *frames, uint32_t depth);
/* Frames of @id, innermost first; NULL for id 0. */
const uint64_t *stacktab_get(const struct stacktab *s, uint32_t id, uint32_t *depth);

/* --by cgroup: an entry's id is a thread's in cgroup @cg */
#define STACK_ID_CGROUP(cg, tid) (((int64_t)(cg) << 32) | (uint32_t)(tid))
#define STACK_ID_CG(id) ((int)((id) >> 32))
#define STACK_ID_TID(id) ((int32_t)(uint32_t)(id))

struct stackagg_ent {
	int64_t id;		/* tid, or tgid with -P (STACK_ID_CGROUP with --by cgroup) */
	int32_t tgid;		/* for user symbols; -1 unknown */
	uint32_t kstack, ustack;
	char comm[COMM_LEN];
	uint64_t count;
	uint64_t total_ns;
};

struct stackagg {
	struct stackagg_ent *v;
	uint32_t n, cap;
	struct posindex index;	/* (id, kstack, ustack) -> position in v */
	uint64_t overflow;	/* intervals not summed: table full */
	uint64_t overflow_ns;
};

int stackagg_init(struct stackagg *a, uint32_t max_entries);
void stackagg_fini(struct stackagg *a);
void stackagg_clear(struct stackagg *a);
void stackagg_add(struct stackagg *a, int64_t id, int32_t tgid, const char *comm,
		  uint32_t kstack, uint32_t ustack, uint64_t ns);
/* @n intervals summing to @ns at once (an in-kernel aggregate). */
void stackagg_add_n(struct stackagg *a, int64_t id, int32_t tgid, const char *comm,
		    uint32_t kstack, uint32_t ustack, uint64_t n, uint64_t ns);
/* Sort v by total, largest first (the index is rebuilt). */
void stackagg_sort(struct stackagg *a);

#endif
