/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the kernel's tracefs offers, detected from its files (README,
 * trace_clock, format files), never from version numbers.
 */
#ifndef OFFCPU_PROBE_H
#define OFFCPU_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct tfs_caps {
	bool found;
	char dir[4096];
	char why[256];			/* when !found or !writable */
	bool writable;
	char clocks[256];		/* trace_clock, as the kernel lists it */
	bool clock_mono, clock_global;
	bool ev[SEV_NSCHED];		/* sched event formats present */
	bool hist;			/* hist triggers (CONFIG_HIST_TRIGGERS) */
	bool synth;			/* synthetic events */
	bool synth_stack;		/* stacks as synthetic event fields */
	bool buckets;			/* .buckets= modifier */
	bool stacktrace_trigger;	/* "stacktrace" trigger */
	const char *stack_key;		/* "common_stacktrace", "stacktrace" or NULL */
	bool preempt_from_fmt;
	uint64_t preempt_mask;
};

/* Fill the README-derived fields from the README text. */
void tfs_caps_from_readme(const char *readme, struct tfs_caps *c);
/* Probe a tracefs (NULL = find it). Always fills c->found/why. */
void tfs_caps_probe(const char *override, struct tfs_caps *c);

/*
 * Instances named offcpu-ftrace.<pid>[.<n>] whose process is gone (or is
 * another under a recycled pid: it started after the instance). Calls
 * @fn with each name; returns how many there were, or a negative errno.
 */
int tfs_stale_instances(const char *dir, void (*fn)(const char *name, int pid, void *arg),
			void *arg);
/*
 * Remove a stale instance: tracing off, events off, its triggers removed,
 * rmdir. 0 or -errno.
 */
int tfs_remove_stale(const char *dir, const char *name);
/*
 * Synthetic events named ofr_<pid>_* (the hist backend's) whose process is
 * gone: @fn with each name; returns how many, or a negative errno. Remove
 * them after the stale instances, whose triggers use them.
 */
int tfs_stale_synth(const char *dir, void (*fn)(const char *name, int pid, void *arg),
		    void *arg);
int tfs_remove_synth(const char *dir, const char *name);

#endif
