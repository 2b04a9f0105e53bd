// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * offcpu-ftrace: where a Linux host's time goes when its tasks are not
 * running -- run-queue latency and off-CPU time -- without BPF.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "config.h"

#if defined(__SANITIZE_ADDRESS__)
/*
 * --enable-sanitizers: LeakSanitizer's suppressions for leaks in the
 * libraries, not ours (tests/fuzz/lsan.supp says why): libtracecmd's
 * trace-clock name, allocated by glibc's sscanf("%ms"), which this
 * program never uses itself.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\nleak:libtracecmd.so\nleak:__vfscanf_internal\n";
}
#endif

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "runq", cmd_runq, "run-queue latency histogram" },
	{ "offcpu", cmd_offcpu, "off-CPU time histogram (-K: by stack)" },
	{ "triage", cmd_triage, "running or waiting, and for what: a verdict" },
	{ "info", cmd_info, "host capabilities and backend choice" },
	{ "record", cmd_record, "capture sched events into a trace.dat file" },
	{ "report", cmd_report, "the analyses of a live run, from a recording" },
	{ "compare", cmd_compare, "cross-validate two histograms (bpftrace, BCC, ...)" },
	{ "cleanup", cmd_cleanup, "remove tracefs state left by killed runs" },
};

static void help(FILE *f)
{
	unsigned i;

	fprintf(f, "Usage: offcpu-ftrace COMMAND [OPTIONS] [ARGS]\n"
		"\n"
		"Run-queue latency and off-CPU time from sched tracepoints, without BPF.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n"
		"Examples:\n"
		"  offcpu-ftrace runq 10          # run-queue latency for 10 seconds\n"
		"  offcpu-ftrace offcpu -P 10     # off-CPU time per process\n"
		"  offcpu-ftrace info             # what this host supports\n"
		"\n"
		"'offcpu-ftrace COMMAND --help' describes each command; see offcpu-ftrace(8).\n");
}

int main(int argc, char **argv)
{
	unsigned i;
	int fd;

	/* closed 0, 1 or 2: /dev/null there, so no file we open lands on one */
	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			return EXIT_FAIL;

	if (argc < 2) {
		help(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		help(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("offcpu-ftrace %s\n", PACKAGE_VERSION);
		return EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			int status = commands[i].fn(argc - 1, argv + 1);

			/* what a run mounted (tracefs) goes, on every way out */
			cli_tracefs_done();
			return status;
		}
	}
	fprintf(stderr, "offcpu-ftrace: unknown command '%s'\n"
		"Try 'offcpu-ftrace --help'.\n", argv[1]);
	return EXIT_USAGE;
}
