// SPDX-License-Identifier: GPL-2.0-or-later
/* The tracing commands (every analysis, record too): parse, check the targets, run. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "procfs.h"
#include "run.h"

/* -p/-t must name live tasks: a typo should not trace nothing for 10 s */
static int check_targets(const struct trace_opts *o)
{
	int32_t tgid;

	if (o->pid >= 0) {
		tgid = proc_tgid(o->pid, NULL);
		if (tgid < 0) {
			err_msg("-p %d: no such process", o->pid);
			return EXIT_FAIL;
		}
		if (tgid != o->pid) {
			err_msg("-p %d: %d is a thread of process %d: use -t %d for the "
				"thread or -p %d for the process", o->pid, o->pid, tgid,
				o->pid, tgid);
			return EXIT_FAIL;
		}
	}
	if (o->tid >= 0 && proc_tgid(o->tid, NULL) < 0) {
		err_msg("-t %d: no such thread", o->tid);
		return EXIT_FAIL;
	}
	return -1;
}

int cmd_trace(const char *cmd, int argc, char **argv)
{
	struct trace_opts o;
	int ret = trace_opts_parse(&o, cmd, argc, argv);

	if (ret >= 0)
		return ret;
	if (o.all) {
		usage_err(cmd, "--all is an option of report (every thread in a recording, not "
			  "only the scope it was made with)");
		return EXIT_USAGE;
	}
	/* a critical path runs from the command's start to its end */
	if ((o.an->flags & AN_F_COMMAND) && !o.command) {
		usage_err(cmd, "%s needs -- COMMAND: it follows one from its start to its end "
			  "(or 'offcpu-ftrace report FILE' on a recording made with one)",
			  o.an->summary);
		return EXIT_USAGE;
	}
	/* the man pages' examples name processes and files of their own */
	if (o.dry_run && getenv("OFFCPU_FTRACE_PARSE_ONLY"))
		return EXIT_OK;
	ret = check_targets(&o);
	if (ret >= 0)
		return ret;
	return run_trace(&o);
}
