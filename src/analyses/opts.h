/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The options of a tracing command, as parsed (src/cli/cli.c): what every
 * analysis reads to configure itself. The analysis it runs is ->an.
 */
#ifndef OFFCPU_OPTS_H
#define OFFCPU_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer.h"
#include "report.h"

struct analysis;

/* The bytes a command's analysis keeps its own options in (AN_OWN_OPTS) */
#define AN_OWN_OPTS_BYTES 64

/* --late-stacks: the shortest --min it takes (a block shorter ends unseen) */
#define LATE_STACKS_MIN_US 1000

struct trace_opts {
	const char *cmd;		/* the command, for messages: "runq", "record" */
	const struct analysis *an;	/* what it runs (the command's, or report's choice) */
	unsigned modes;			/* enum an_mode */
	enum an_key key;
	bool prev_too;			/* -P with --by cgroup (runq --slower: both columns) */
	enum an_compat compat;		/* runq --compat */
	bool compat_given;		/* --compat was given (runqlen: BCC's samples) */
	bool wakers;			/* offcpu --wakers: who woke them */
	bool wakeup_only;		/* --wakers=wakeup: wakeuptime's time and stack */
	bool xval;			/* --xval: bpftrace alongside */
	bool all;			/* report --all: not the recording's scope */
	bool quiet;			/* -q: no banner, notes or progress */
	bool msecs;
	bool timestamp;
	int32_t pid, tid;		/* -1 = not given */
	char comm[COMM_LEN];
	const char *state;		/* --state letters, NULL = all */
	uint64_t min_us, max_us;
	enum out_format fmt;
	const char *backend;		/* "auto" or a backend name */
	const char *tracefs;
	uint32_t max_tasks, max_groups, buffer_kb;
	unsigned rate_hz;		/* --rate: proc backend samples per second */
	uint64_t duration_ns;		/* 0 = until a signal */
	uint64_t count;			/* intervals to print */
	bool dry_run;			/* parse only (man page examples) */
	char **command;			/* -- COMMAND [ARGS]: NULL-terminated */
	const char *cgroup;		/* --cgroup PATH */
	/* --by cgroup: --cgroup-depth (0: whole paths), --cgroup-controller (NULL: cpu) */
	unsigned cgroup_depth;
	const char *cgroup_controller;
	bool interval_mode;		/* -i: COUNT intervals (default: forever) */
	bool strict;			/* exit EXIT_PARTIAL when events were lost */
	/* offcpu by stack (-K, -U) */
	bool kstack, ustack;
	bool late_stacks;		/* --late-stacks: -K from /proc while blocked */
	bool folded;			/* -f */
	bool delimited;			/* -d: "-" between user and kernel */
	uint32_t stack_depth;		/* frames printed per stack */
	uint32_t top;			/* 0 = all */
	uint32_t max_stacks;
	/* recordings */
	const char *record_path;	/* --record FILE, record -o FILE */
	const char *output_path;	/* -o FILE: results, atomically (NULL: stdout) */
	bool record_only;		/* record: no analysis printed */
	/* --flight SECS: keep the last SECS, save around a trigger (record_path) */
	struct flight_opts {
		uint64_t keep_ns;		/* 0: no flight recorder */
		uint64_t after_ns;		/* --after (default 1 s) */
		bool after_given;
		uint64_t runq_over_ns;		/* --runq-over US, 0 none */
		uint64_t offcpu_over_ns;	/* --offcpu-over US, 0 none */
		unsigned max_files;		/* --max-files (default 1) */
		bool keep_going;		/* --keep-going: trace on after the last */
	} flight;
	const char *replay_path;	/* report FILE */
	/*
	 * The options only one command takes (timehist's columns, triage's
	 * thresholds, profile's --critical-path, runq's --slower, oncpu's
	 * and runqlen's -O): its analysis's own, typed in its file (or its
	 * room's header), set by its rows and its defaults, read by nothing
	 * else (AN_OWN_OPTS). Copied with the struct; zero before defaults.
	 */
	union {
		max_align_t align;
		unsigned char bytes[AN_OWN_OPTS_BYTES];
	} own;
};

/*
 * In an analysis's file (or its room's header): NAME(o), its own options
 * of TYPE in @o, read-only, and NAME##_set(o) for its setters and
 * defaults. The size is checked when it compiles.
 */
#define AN_OWN_OPTS(name, type)                                                          \
	_Static_assert(sizeof(type) <= AN_OWN_OPTS_BYTES, #type " is over AN_OWN_OPTS_BYTES"); \
	static inline const type *name(const struct trace_opts *o)                       \
	{                                                                                \
		return (const type *)(const void *)o->own.bytes;                         \
	}                                                                                \
	static inline type *name##_set(struct trace_opts *o)                             \
	{                                                                                \
		return (type *)(void *)o->own.bytes;                                     \
	}

#endif
