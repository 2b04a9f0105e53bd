// SPDX-License-Identifier: GPL-2.0-or-later
/* report FILE [ANALYSIS]: the analyses of a live run, from a recording. */
#include <getopt.h>
#include <stdbool.h>
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
"  offcpu-ftrace report build.dat profile --critical-path   # made with\n"
"                       # 'offcpu-ftrace record -K --wakers -o build.dat -- make'\n"
"\n"
"Exit status: 0 done, 1 the file cannot be read (the message names the\n"
"offset where it broke), 2 bad usage (-o naming the recording, too), 3 the\n"
"results are partial with --strict, 5 the output could not be written.\n"
"See offcpu-ftrace-report(8).\n";

/*
 * The flag of @a's own tables that turns it into a mode a recording can
 * be given to (profile --critical-path), or NULL: each flag row applied
 * alone to empty options, and @a's refine asked.
 */
static const char *report_mode_flag(const struct analysis *a)
{
	const struct an_option *const *t;
	const struct an_option *r;
	const struct analysis *m;
	struct trace_opts o;
	char buf[128];

	for (t = a->options; a->refine && t && *t; t++)
		for (r = *t; !an_opt_is_end(r); r++) {
			if (r->has_arg != no_argument || !r->name || (r->flags & AO_HEADING))
				continue;
			memset(&o, 0, sizeof(o));
			o.pid = o.tid = -1;
			if (!r->set(&o, r, NULL, buf, sizeof(buf)) && (m = a->refine(&o)) &&
			    (m->flags & AN_F_REPORT))
				return r->name;
		}
	return NULL;
}

/*
 * "runq|offcpu|triage|profile" (the usage line, which the completion
 * reads), or with @flags "runq, ..., profile --critical-path": what a
 * recording can be given to
 */
static void reportable(char *buf, size_t len, const char *sep, bool flags)
{
	const struct analysis *a;
	const char *flag;
	size_t at = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; (a = analysis_at(i)) && at < len; i++) {
		if (a->flags & AN_F_MODE)
			continue;
		flag = a->flags & AN_F_REPORT ? NULL : report_mode_flag(a);
		if ((a->flags & AN_F_REPORT) || flag)
			at += (size_t)snprintf(buf + at, len - at, "%s%s%s%s", at ? sep : "",
					       a->name, flag && flags ? " --" : "",
					       flag && flags ? flag : "");
	}
}

int cmd_report(int argc, char **argv)
{
	const struct analysis *an = analysis_find("runq");	/* the default */
	const char *file, *cmd;
	char names[256];
	struct trace_opts o;
	int ret, skip = 2;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		reportable(names, sizeof(names), "|", false);
		printf("Usage: offcpu-ftrace report FILE [%s] [OPTIONS]\n", names);
		fputs(report_help, stdout);
		return EXIT_OK;
	}
	if (argc < 2 || argv[1][0] == '-' || !argv[1][0]) {
		reportable(names, sizeof(names), "|", false);
		usage_err("report", "the first argument is the recording%s: report FILE "
			  "[%s] [OPTIONS]", argc >= 2 && !argv[1][0] ? ", and it is empty" : "",
			  names);
		return EXIT_USAGE;
	}
	file = argv[1];
	if (argc >= 3 && argv[2][0] != '-') {
		const struct analysis *a = analysis_find(argv[2]);

		/* a command that is not, in a mode that is (profile --critical-path) */
		if (!a || (!(a->flags & AN_F_REPORT) && !report_mode_flag(a))) {
			reportable(names, sizeof(names), ", ", true);
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
	if (!(o.an->flags & AN_F_REPORT)) {
		usage_err("report", "%s runs on a recording only as %s --%s", cmd, cmd,
			  report_mode_flag(an));
		return EXIT_USAGE;
	}
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
