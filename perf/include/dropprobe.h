/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Does the kernel lose sched_switch tracepoint hits? A bounded probe
 * (counting only, until the first loss or a time limit) comparing the
 * scheduler's own context-switch count with the tracepoint's, per CPU.
 */
#ifndef OFFCPU_DROPPROBE_H
#define OFFCPU_DROPPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DROP_PROBE_CPUS 256	/* CPUs probed at most */
#define DROP_PROBE_MAX_MS 5000	/* the longest probe, whatever is asked */

enum drop_result {
	DROPS_UNKNOWN,		/* not probed, or too few switches to tell */
	DROPS_NONE,		/* every switch reached the tracepoint, and every CPU
				 * idled and came back (where the kernel counts
				 * switches to idle: to_idle >= 0) */
	DROPS_SEEN,		/* some CPU lost tracepoint hits */
	DROPS_BUSY,		/* none lost, but some CPU never idled in the probe
				 * (a busy host): the hits this kernel may lose, of
				 * an idle CPU's idle task, had no chance to occur */
};

struct drop_probe {
	enum drop_result result;
	unsigned ms;			/* how long it counted */
	uint64_t switches, recorded;	/* all CPUs */
	unsigned ncpu;
	struct {
		int cpu;
		uint64_t switches;	/* the scheduler's count */
		uint64_t recorded;	/* sched_switch hits */
		int64_t to_idle;	/* ... of them to the idle task, -1 unknown
					 * (the kernel refused the filter) */
		bool drops;
	} cpu[DROP_PROBE_CPUS];
};

/*
 * Probe with perf events (needs them allowed: root, CAP_PERFMON or
 * perf_event_paranoid <= 0) and tracefs's sched_switch id, until a CPU
 * loses a hit (at least 20 ms) or for @max_ms. Returns 0 (the answer in
 * @p, possibly DROPS_UNKNOWN) or a negative errno.
 */
int drop_probe_run(const char *tracefs, unsigned max_ms, struct drop_probe *p);
/*
 * CPU @cpu's counts since the first read (@base; @now the latest: the
 * scheduler's switches, the tracepoint's hits, its hits to idle or
 * UINT64_MAX where the filter was refused) added to @p: its entry (any
 * hit short is a loss) and the totals.
 */
void drop_probe_add(struct drop_probe *p, int cpu, const uint64_t base[3],
		    const uint64_t now[3]);
/* @p's answer from its per-CPU counts (drop_probe_run sets p->result so). */
enum drop_result drop_probe_verdict(const struct drop_probe *p);
/* The CPUs that lost hits, as "1,3" (empty if none). */
void drop_probe_cpus(const struct drop_probe *p, char *buf, size_t len);

/*
 * Can this process open perf's context-switch records CPU-wide (one real
 * open, closed at once: a seccomp profile may refuse what the
 * capabilities allow)? 0, or a negative errno with the kernel's answer in
 * @why (the caller adds what to do).
 */
int perf_switch_probe(char *why, size_t len);

#endif
