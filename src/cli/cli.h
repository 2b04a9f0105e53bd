/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command-line layer: the only code that prints errors or exits. */
#ifndef OFFCPU_CLI_H
#define OFFCPU_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer.h"
#include "report.h"

/* Exit statuses, documented in offcpu-ftrace(8). */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* the environment or the kernel refused */
#define EXIT_USAGE	2	/* bad command line */
#define EXIT_PARTIAL	3	/* --strict: events were lost, results partial */

/* --late-stacks: the shortest --min it takes (a block shorter ends unseen) */
#define LATE_STACKS_MIN_US 1000

struct trace_opts {
	const char *cmd;		/* "runq" or "offcpu" */
	unsigned modes;			/* enum an_mode */
	enum an_key key;
	enum an_compat compat;		/* runq --compat */
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
	bool interval_mode;		/* -i: COUNT intervals (default: forever) */
	bool triage;
	struct {
		uint64_t runq_tail_us;
		unsigned runq_share, blocked_share, oncpu_share, throttle_share, wait_demand;
	} th;				/* triage thresholds */
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
	const char *replay_path;	/* report FILE */
};

void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "offcpu-ftrace: note: ..." on stderr, unless -q (cli_quiet) */
void note_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern bool cli_quiet;
void usage_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct option;
/*
 * getopt_long for a command, with the shared error handling: the next
 * option, -1 after the last, or CLI_OPT_BAD once a usage error was
 * printed ("needs a value", "unknown option"). Call with @first true to
 * start over (every command parses argv afresh).
 */
#define CLI_OPT_BAD (-2)
int cli_getopt(const char *cmd, int argc, char **argv, const char *so,
	       const struct option *lo, bool first);

/*
 * Before a command that traces: mount tracefs when it is not mounted (as
 * root, without --tracefs), saying so in one line. false when that failed
 * (the error printed). main() unmounts it at the end (cli_tracefs_done).
 */
bool cli_tracefs_ready(const char *tracefs);
void cli_tracefs_done(void);

/* --help of a tracing command, on stdout. */
void trace_help(const char *cmd);
/* Parse runq/offcpu arguments. Returns -1 to continue, else an exit status. */
int trace_opts_parse(struct trace_opts *o, const char *cmd, int argc, char **argv);

int cmd_runq(int argc, char **argv);
int cmd_offcpu(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_triage(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
