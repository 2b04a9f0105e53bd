/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Thread names and priorities as the perf backend's event stream has
 * them, at each moment. perf's context-switch records carry no name: a
 * switch taken from one is named from this table, which the stream keeps
 * up to date in time order (the tracepoints' payloads, PERF_RECORD_COMM
 * of an exec or a prctl, PERF_RECORD_FORK's child taking its parent's
 * name) over a snapshot of /proc taken once the events are on, so that a
 * thread is never named by a later exec's name. Bounded: a full
 * neighbourhood drops its least recently used entry. Pure (no I/O):
 * tests/unit/check_perfrec.c.
 */
#ifndef OFFCPU_PNAMES_H
#define OFFCPU_PNAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"

#define PNAMES_PROBES 16

struct pname {
	int32_t tid;		/* 0: empty */
	int32_t prio;		/* the kernel's prio (120 = nice 0), -1 unknown */
	uint32_t used;		/* the table's tick at its last use */
	char comm[COMM_LEN];
};

struct pnames {
	struct pname *v;
	uint32_t mask;		/* slots - 1 */
	uint32_t tick;
	uint64_t evicted;	/* entries dropped for room */
};

/* Room for @slots (rounded up to a power of two). 0 or -ENOMEM. */
int pnames_init(struct pnames *n, uint32_t slots);
void pnames_fini(struct pnames *n);
/* @tid is called @comm (NULL or "": unchanged) with @prio (-1: unchanged) from now on. */
void pnames_set(struct pnames *n, int32_t tid, const char *comm, int32_t prio);
/* A new thread @tid of @ptid: named and prioritized as its parent now. */
void pnames_fork(struct pnames *n, int32_t ptid, int32_t tid);
/* @tid's entry, or NULL when no source had it (tid 0: the idle task, "swapper"). */
const struct pname *pnames_get(struct pnames *n, int32_t tid);

#endif
