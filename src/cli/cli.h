/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command-line layer: the only code that prints errors or exits. */
#ifndef OFFCPU_CLI_H
#define OFFCPU_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer.h"
#include "opts.h"
#include "report.h"

/* Exit statuses, documented in offcpu-ftrace(8). */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* the environment or the kernel refused */
#define EXIT_USAGE	2	/* bad command line */
#define EXIT_PARTIAL	3	/* --strict: events were lost, results partial */
#define EXIT_CYCLE	4	/* waits: a cycle of waits (a deadlock) was found */
#define EXIT_OUTPUT	5	/* the output (-o, a recording, stdout) cannot be written */


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
 * Mount tracefs for this run when it is not mounted and we may (as root,
 * without --tracefs), saying so in one line. Where it cannot be mounted
 * (no CAP_SYS_ADMIN, no /sys: a container) nothing is said here: the
 * backends that need no tracefs may serve, and the reason is what
 * tmount_find() says from then on. main() unmounts it at the end
 * (cli_tracefs_done).
 */
void cli_tracefs_ready(const char *tracefs);
void cli_tracefs_done(void);

/*
 * Parse the arguments of analysis @cmd (its name: runq, offcpu, record,
 * ...). Returns -1 to continue, else an exit status.
 */
int trace_opts_parse(struct trace_opts *o, const char *cmd, int argc, char **argv);
/*
 * A tracing command's --help: its usage, the options it takes (the
 * common table's and its own tables', in that order, with their help),
 * its examples and exit status.
 */
struct analysis;
void cli_trace_help(const struct analysis *an, FILE *f);

/* A tracing command: analysis @name, run with its arguments. */
int cmd_trace(const char *name, int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_waits(int argc, char **argv);
int cmd_overhead(int argc, char **argv);

struct child;
/*
 * A traced run of overhead (src/cli/cmd_overhead.c): run_trace() takes
 * the pipe overhead passed (OFFCPU_FTRACE_OVERHEAD_FD, hidden from the
 * command), and once the command is reaped tells it the command's exit
 * status, CPU and wall time, and the backend that traced it (@backend,
 * its name; NULL: none). Both do nothing in any other run.
 */
void overhead_link_take(void);
void overhead_link_tell(const struct child *c, int exit_status, const char *backend);

#endif
