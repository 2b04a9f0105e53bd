/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One record of the perf backend's ring, decoded: the bytes of a
 * PERF_RECORD_SAMPLE (a sched tracepoint hit, its raw payload read by the
 * format offsets, and its callchain), a PERF_RECORD_SWITCH_CPU_WIDE
 * context-switch record, a PERF_RECORD_COMM or a PERF_RECORD_LOST. Pure: no syscalls and no
 * state, so that crafted byte buffers test it (tests/unit/check_perfrec.c).
 * What a switch record means for the analyzer (repeat or lost switch) is
 * decided by perfread.c, which knows what it fed before.
 */
#ifndef OFFCPU_PERFREC_H
#define OFFCPU_PERFREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "fmt.h"

/*
 * What the records of one CPU's ring hold, as perfopen.c opened its events:
 * samples are PERF_SAMPLE_IDENTIFIER | TID | TIME | CPU | RAW, and the
 * event @chain_id's also CALLCHAIN; switch records carry sample_id_all's
 * TID | TIME | CPU.
 */
struct perfrec_layout {
	const struct sched_layout *sched;	/* the raw tracepoint payloads */
	uint64_t chain_id;	/* perf id of the event whose samples carry a
				 * callchain (sched_switch with stacks), 0 none */
	uint64_t wake_chain_id;	/* ... sched_waking's (the waker's kernel stack), 0 none */
	uint64_t sample_id;	/* perf id of the CPU clock sampling event (profile):
				 * TID | TIME | CPU | PERIOD | CALLCHAIN, no RAW; 0 none */
	bool kstack;		/* a switch brings its kernel stack (even empty) */
	bool ustack;		/* ... and its user stack, when it has frames */
};

enum perfrec_kind {
	PERFREC_NONE,		/* not of ours: another record type, or a sample
				 * whose payload is no sched event we decode */
	PERFREC_SAMPLE,		/* ev[0 .. nev): the sched event, then its stacks */
	PERFREC_SWITCH,		/* sw: a context-switch record */
	PERFREC_LOST,		/* lost: records the kernel could not write */
	PERFREC_COMM,		/* comm: a task's new name (an exec, a prctl) */
	PERFREC_FORK,		/* ev[0]: a SEV_FORK from a PERF_RECORD_FORK (a
				 * new thread or process: attr.task) */
};

/* A PERF_RECORD_COMM record: @tid (of process @pid) is now called @comm. */
struct perfrec_comm {
	uint64_t ts;		/* sample_id's time */
	int32_t cpu;
	int32_t pid, tid;
	char comm[COMM_LEN];
	bool exec;		/* PERF_RECORD_MISC_COMM_EXEC: named by an exec */
};

/* A PERF_RECORD_SWITCH_CPU_WIDE record, as prev -> next. */
struct perfrec_switch {
	uint64_t ts;		/* ns in the events' clock */
	int32_t cpu;
	int32_t prev, next;	/* out: the current task leaves for the other;
				 * in: it arrived from the other */
	bool out;		/* PERF_RECORD_MISC_SWITCH_OUT: written in prev's
				 * context; else in next's */
	bool preempt;		/* out only: MISC_SWITCH_OUT_PREEMPT (4.17+),
				 * prev was still runnable */
};

/*
 * One record decoded. The events' comm and stack pointers borrow from the
 * record's bytes and from kfr/ufr: valid while both are.
 */
struct perfrec {
	unsigned kind;		/* enum perfrec_kind */
	struct sched_event ev[3];
	unsigned nev;		/* PERFREC_SAMPLE: 1 to 3 */
	struct perfrec_switch sw;	/* PERFREC_SWITCH */
	uint64_t lost;		/* PERFREC_LOST */
	struct perfrec_comm comm;	/* PERFREC_COMM */
	uint64_t kfr[STACK_MAX_DEPTH], ufr[STACK_MAX_DEPTH];
};

/*
 * Decode the record at @buf, of which @len bytes may be read, into @r.
 * Returns 0 with r->kind set (r->nev 0 unless PERFREC_SAMPLE), or -EINVAL
 * for a record that is truncated or malformed (its header's size short of
 * a header or beyond @len, a field or the callchain or raw data past the
 * record's end): nothing beyond @len or the record is read.
 */
int perfrec_parse(const struct perfrec_layout *l, const void *buf, size_t len,
		  struct perfrec *r);

struct perf_event_attr;
/*
 * @a as the dummy event whose context-switch records perfrec_parse()
 * reads (sample_id_all's TID | TIME | CPU), disabled; the caller adds
 * the clock, the ring's wakeups and what else it asks.
 */
void perfrec_switch_attr(struct perf_event_attr *a);

#endif
