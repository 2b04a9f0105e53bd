// SPDX-License-Identifier: GPL-2.0-or-later
/* report FILE [ANALYSIS]: the analyses of a live run, from a recording. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cli.h"
#include "run.h"

static const char report_help[] =
"\n"
"The analyses of a live run, from a recording: one made by 'offcpu-ftrace\n"
"record' (or --record), or by 'trace-cmd record -e sched_switch -e\n"
"sched_wakeup -e sched_wakeup_new' on any machine. The recording is the\n"
"window: no DURATION, -i, COUNT or -- COMMAND. Default analysis: runq.\n"
"\n"
"Options: those of the analysis (see 'offcpu-ftrace runq --help', and\n"
"each analysis's own), except --backend, --tracefs, --buffer-size, --cgroup,\n"
"--xval, --record and --late-stacks. Kernel frames are named from the symbols in the\n"
"recording; user frames print as addresses (the recorded processes' maps\n"
"are not in the file). -o FILE writes the results to FILE, atomically.\n"
"A recording made with -- COMMAND, -p or -t shows that scope again, as the\n"
"live run did (a note says so); -p/-t replace it, --all shows every thread.\n"
"\n"
"Examples:\n"
"  offcpu-ftrace report ci.dat                  # run-queue latency\n"
"  offcpu-ftrace report ci.dat runq -P --format=json\n"
"  offcpu-ftrace report build.dat offcpu -K --top 5\n"
"  offcpu-ftrace report build.dat offcpu -K --format=svg > build.svg\n"
"  offcpu-ftrace report trace.dat triage        # a trace-cmd recording\n"
"  offcpu-ftrace report ci.dat runq --slower 10000 -P   # runqslower\n"
"  offcpu-ftrace report ci.dat oncpu -L         # cpudist per thread\n"
"\n"
"Exit status: 0 done, 1 the file cannot be read (the message names the\n"
"offset where it broke), 2 bad usage, 3 events lost with --strict.\n"
"See offcpu-ftrace-report(8).\n";

/* "runq|offcpu|triage": the analyses a recording can be given to */
static void reportable(char *buf, size_t len)
{
	const struct analysis *a;
	size_t at = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; (a = analysis_at(i)) && at < len; i++)
		if ((a->flags & (AN_F_REPORT | AN_F_MODE)) == AN_F_REPORT)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "|" : "", a->name);
}

int cmd_report(int argc, char **argv)
{
	const struct analysis *an = analysis_find("runq");	/* the default */
	const char *file, *cmd;
	char names[256];
	struct trace_opts o;
	int ret, skip = 2;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		reportable(names, sizeof(names));
		printf("Usage: offcpu-ftrace report FILE [%s] [OPTIONS]\n", names);
		fputs(report_help, stdout);
		return EXIT_OK;
	}
	if (argc < 2 || argv[1][0] == '-') {
		reportable(names, sizeof(names));
		usage_err("report", "the first argument is the recording: report FILE "
			  "[%s] [OPTIONS]", names);
		return EXIT_USAGE;
	}
	file = argv[1];
	if (argc >= 3 && argv[2][0] != '-') {
		const struct analysis *a = analysis_find(argv[2]);

		if (!a || !(a->flags & AN_F_REPORT)) {
			analysis_names(names, sizeof(names), AN_F_REPORT);
			usage_err("report", "unknown analysis '%s': %s", argv[2], names);
			return EXIT_USAGE;
		}
		an = a;
		skip = 3;
	}
	cmd = an->name;
	/* the analysis parses what follows, as if it were its own command */
	argv[skip - 1] = (char *)cmd;
	ret = trace_opts_parse(&o, cmd, argc - skip + 1, argv + skip - 1);
	if (ret >= 0)
		return ret;
	if (o.duration_ns || o.interval_mode || o.count > 1 || o.command) {
		usage_err("report", "the recording is the window: no DURATION, -i, COUNT "
			  "or -- COMMAND");
		return EXIT_USAGE;
	}
	if (strcmp(o.backend, "auto") || o.tracefs || o.buffer_kb || o.cgroup || o.xval ||
	    o.record_path || o.late_stacks) {
		usage_err("report", "--backend, --tracefs, --buffer-size, --cgroup, --xval, "
			  "--record and --late-stacks are options of live runs (a recording "
			  "holds the stacks it was made with)");
		return EXIT_USAGE;
	}
	o.replay_path = file;
	o.backend = "file";
	if (o.dry_run && getenv("OFFCPU_FTRACE_PARSE_ONLY"))
		return EXIT_OK;
	return run_trace(&o);
}
