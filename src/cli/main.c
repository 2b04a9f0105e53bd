// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * offcpu-ftrace: where a Linux host's time goes when its tasks are not
 * running -- run-queue latency and off-CPU time -- without BPF.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cli.h"
#include "config.h"
#include "privdrop.h"

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

/* a suppressed leak is not ours: no "Suppressions used" table on stderr */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}
#endif

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	/*
	 * capabilities given up before it runs (PRIV_*): report and compare
	 * read files their user names and trace nothing, so a copy given file
	 * capabilities does not read them with CAP_DAC_READ_SEARCH
	 */
	unsigned long long drop;
};

/*
 * The command table: every analysis (src/analyses/, in its order) is a
 * command that traces; these are the others.
 */
static const struct command commands[] = {
	{ "info", cmd_info, "host capabilities and backend choice", 0 },
	{ "report", cmd_report, "the analyses of a live run, from a recording",
	  PRIV_DAC_READ_SEARCH | PRIV_PERFMON },
	{ "compare", cmd_compare, "cross-validate two histograms (bpftrace, BCC, ...)",
	  PRIV_DAC_READ_SEARCH | PRIV_PERFMON | PRIV_SYSLOG },
	{ "cleanup", cmd_cleanup, "remove tracefs state left by killed runs", 0 },
	{ "overhead", cmd_overhead, "the tracer's effect on a job: is the trace admissible?", 0 },
	{ "waits", cmd_waits, "who waits on whom right now, from /proc (no tracing)", 0 },
};

static void help(FILE *f)
{
	unsigned i;

	fprintf(f, "Usage: offcpu-ftrace COMMAND [OPTIONS] [ARGS]\n"
		"\n"
		"Run-queue latency and off-CPU time from sched tracepoints, without BPF.\n"
		"\n"
		"Commands:\n");
	for (i = 0; analysis_at(i); i++)
		if (!(analysis_at(i)->flags & AN_F_MODE))
			fprintf(f, "  %-10s %s\n", analysis_at(i)->name, analysis_at(i)->summary);
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

/*
 * Never setuid or setgid: the tool opens files its user names (report,
 * compare, -o, --tracefs) and runs -- COMMAND, so a setuid-root copy
 * would read, write and run anything as root for anyone. Any id that
 * differs from the real one (saved ones too: a parent that only
 * lowered its effective id can raise it again) is refused first, before
 * anything is opened: a descriptor 2 left closed loses the message
 * rather than writing it into a file this process opened.
 */
static bool setid_refused(void)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	bool uid;

	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg)) {
		fprintf(stderr, "offcpu-ftrace: cannot read this process's user and group "
			"ids (getresuid): refusing to run\n");
		return true;
	}
	if (ru == eu && ru == su && rg == eg && rg == sg)
		return false;
	uid = ru != eu || ru != su;
	fprintf(stderr, "offcpu-ftrace: refusing to run set%s (real %s %u, effective or "
		"saved %u): remove the bit (chmod u-s,g-s) and grant capabilities instead; "
		"see SECURITY in offcpu-ftrace(8)\n", uid ? "uid" : "gid", uid ? "uid" : "gid",
		uid ? (unsigned)ru : (unsigned)rg,
		uid ? (unsigned)(eu != ru ? eu : su) : (unsigned)(eg != rg ? eg : sg));
	return true;
}

int main(int argc, char **argv)
{
	unsigned i;
	int fd;

	if (setid_refused())
		return EXIT_FAIL;

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
			int status, ret = commands[i].drop ? priv_drop(commands[i].drop) : 0;

			if (ret) {
				fprintf(stderr, "offcpu-ftrace: %s: cannot give up the capabilities it "
					"does not need (capset: %s): refusing to run\n", argv[1],
					strerror(-ret));
				return EXIT_FAIL;
			}
			status = commands[i].fn(argc - 1, argv + 1);

			/* what a run mounted (tracefs) goes, on every way out */
			cli_tracefs_done();
			return status;
		}
	}
	if (analysis_find(argv[1])) {
		int status = cmd_trace(argv[1], argc - 1, argv + 1);

		cli_tracefs_done();
		return status;
	}
	fprintf(stderr, "offcpu-ftrace: unknown command '%s'\n"
		"Try 'offcpu-ftrace --help'.\n", argv[1]);
	return EXIT_USAGE;
}
