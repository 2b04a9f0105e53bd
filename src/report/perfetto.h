/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --format=perfetto: the Chrome trace-event JSON that Perfetto's UI
 * (its JSON importer) and speedscope open. One object, {"traceEvents":
 * [...], "displayTimeUnit": "ns", "otherData": {...}}, written as it goes
 * (the caller may switch the stream: a spool first, then standard output),
 * so memory does not grow with the trace:
 *
 *   - complete events (ph "X": ts and dur in whole microseconds, each
 *     end floored, so slices that meet share an end exactly) on a
 *     thread's track (pid, tid), or on a CPU's (the pseudo-process
 *     PF_CPU_PID, one thread per CPU);
 *   - instant events (ph "i", thread-scoped);
 *   - flows (ph "s" on the source thread, "f" with bp "e" on the target,
 *     one id), bound by the viewer to the slices that enclose them;
 *   - metadata (ph "M"): process_name and thread_name, once per name.
 *
 * Printing only: what the slices mean is the caller's.
 */
#ifndef OFFCPU_PERFETTO_H
#define OFFCPU_PERFETTO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* the pseudo-process of the CPU tracks (no pid reaches it: pid_max is 2^22) */
#define PF_CPU_PID 2000000000
#define PF_NAMED 1024		/* names remembered (direct-mapped) */

/* an argument of an event: an integer, or a string when @s is not NULL */
struct pf_arg {
	const char *key;
	const char *s;
	int64_t i;
};

struct pftrace {
	FILE *f;
	uint64_t n;		/* events written: a ',' before each after the first */
	uint64_t flows;		/* flow ids given */
	uint64_t named_cpus;	/* CPUs whose track is named (the first 64) */
	struct pf_named {
		int32_t pid, tid;
		uint64_t h;	/* the name's hash */
	} named[PF_NAMED];
};

/* Start the object on @f: {"traceEvents":[ */
void pf_begin(struct pftrace *p, FILE *f);
/* Go on writing to @f (the events written so far went elsewhere). */
void pf_retarget(struct pftrace *p, FILE *f);
/*
 * Name thread @tid of process @pid (@tid == @pid: the process too) as
 * @name (a comm: at most 16 bytes), unless it was just named so.
 */
void pf_thread_name(struct pftrace *p, int32_t pid, int32_t tid, const char *name);
/* A complete event of @dur_ns from @ts_ns on (pid, tid), with @nargs arguments. */
void pf_slice(struct pftrace *p, int32_t pid, int32_t tid, uint64_t ts_ns, uint64_t dur_ns,
	      const char *name, const char *cat, const struct pf_arg *args, unsigned nargs);
/* A slice on CPU @cpu's track (named "CPU N" at first use). */
void pf_cpu_slice(struct pftrace *p, int32_t cpu, uint64_t ts_ns, uint64_t dur_ns,
		  const char *name, const struct pf_arg *args, unsigned nargs);
/* A thread-scoped instant event. */
void pf_instant(struct pftrace *p, int32_t pid, int32_t tid, uint64_t ts_ns, const char *name,
		const char *cat, const struct pf_arg *args, unsigned nargs);
/* A flow @name from (pid, tid) at @from_ns to (pid, tid) at @to_ns. */
void pf_flow(struct pftrace *p, int32_t from_pid, int32_t from_tid, uint64_t from_ns,
	     int32_t to_pid, int32_t to_tid, uint64_t to_ns, const char *name);
struct sched_states;
/*
 * The name of a thread's blocked state as Perfetto's own traces call it
 * ("Sleeping (S)", "Uninterruptible Sleep (D)"), from prev_state @state;
 * a constant, or @buf (@len bytes) for a state it has no name for.
 */
const char *pf_blocked_name(const struct sched_states *st, int64_t state, char *buf, size_t len);
/*
 * Close the array and the object; @other (optional) writes the members
 * of "otherData" (each as "\"key\":value", comma-separated).
 */
void pf_end(struct pftrace *p, void (*other)(FILE *f, void *arg), void *arg);

#endif
