/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command-line layer: the only code that prints errors or exits. */
#ifndef OFFCPU_CLI_H
#define OFFCPU_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer.h"
#include "opts.h"
#include "report.h"

/* Exit statuses, documented in offcpu-ftrace(8). */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* the environment or the kernel refused */
#define EXIT_USAGE	2	/* bad command line */
#define EXIT_PARTIAL	3	/* --strict: events were lost, results partial */


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

/*
 * Parse the arguments of analysis @cmd (its name: runq, offcpu, record,
 * ...). Returns -1 to continue, else an exit status.
 */
int trace_opts_parse(struct trace_opts *o, const char *cmd, int argc, char **argv);

/* A tracing command: analysis @name, run with its arguments. */
int cmd_trace(const char *name, int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
