// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record: no analysis printed; the window's sched events (and sched_waking,
 * for a later --compat=perf or waker analysis) go into a trace.dat that
 * 'report' analyses later.
 */
#include <stdio.h>

#include "analysis.h"

static const char record_help[] =
"Usage: offcpu-ftrace record [-o FILE] [OPTIONS] [DURATION]\n"
"       offcpu-ftrace record [-o FILE] [OPTIONS] -- COMMAND [ARGS]\n"
"\n"
"Capture the sched events of a window into a trace.dat file, to analyse\n"
"later, elsewhere, with 'offcpu-ftrace report' (or trace-cmd report,\n"
"KernelShark). The file holds the raw per-CPU pages and what decoding\n"
"them needs: event formats, clock, task names, kernel version, CPU count,\n"
"window, lost-event counts, and the kernel symbols of captured stacks.\n"
"It is created mode 0600 and renamed into place when complete.\n"
"\n"
"Options:\n"
"  -o, --output FILE      where to write (default: offcpu-ftrace.dat)\n"
"  -p, --pid PID          only this process (filtered in the kernel)\n"
"  -t, --tid TID          only this thread\n"
"  -K, --kernel-stacks    also a kernel stack at each switch-out\n"
"  -U, --user-stacks      also a user stack at each switch-out\n"
"      --state LETTERS    stacks only for switch-outs in these states\n"
"      --wakers           with -K: the waker's stack at each sched_waking too\n"
"      --backend ring|perf  auto picks as runq does (perf where this kernel loses\n"
"                         switches: exact); hist and proc cannot record\n"
"\n"
"Flight recorder (a rare outlier, without recording all day):\n"
"      --flight SECS      keep only the last SECS (up to 3600) in memory; save\n"
"                         them to FILE when a trigger fires, --after later\n"
"      --runq-over US     trigger: a run-queue wait longer than US microseconds\n"
"      --offcpu-over US   trigger: an off-CPU interval longer than US (in the\n"
"                         states --state names, or any)\n"
"                         (and always SIGUSR1: save now)\n"
"      --after SECS       keep recording this long after the trigger (default 1)\n"
"      --max-files N      FILE, then FILE.2 ... FILE.N (default 1); then stop\n"
"      --keep-going       after the last file trace on (counting triggers) until\n"
"                         DURATION, the COMMAND's end or Ctrl-C\n"
"                         The store: at most 8 x --buffer-size KiB per CPU.\n"
"      --tracefs DIR, --buffer-size KB, --max-tasks N, --strict, --dry-run, -q\n"
"                         as for runq\n"
"  -h, --help             this help\n"
"\n"
"Without DURATION, until Ctrl-C; with -- COMMAND, the command's life.\n"
"\n"
"Examples:\n"
"  offcpu-ftrace record -o ci.dat 10              # ten seconds of the host\n"
"  offcpu-ftrace record -K -o build.dat -- make -j8\n"
"  offcpu-ftrace record -K --wakers -o w.dat 10   # for offcpu -K --wakers\n"
"  offcpu-ftrace report ci.dat runq -P            # later, anywhere\n"
"  offcpu-ftrace record --flight 30 --runq-over 50000 -o stall.dat -- ./ci-step\n"
"\n"
"Exit status: 0 recorded, or with --flight ran (a note says when nothing was\n"
"saved), with -- COMMAND: its exit status; 1 failed,\n"
"2 bad usage, 3 events lost with --strict. See offcpu-ftrace-record(8).\n";

static void record_usage(FILE *f)
{
	fputs(record_help, f);
}

static const char *record_what(const struct trace_opts *o)
{
	(void)o;
	return "sched events into a recording";
}

static void record_defaults(struct trace_opts *o)
{
	o->modes = AN_RUNQ | AN_OFFCPU;
	o->record_only = true;
	o->record_path = "offcpu-ftrace.dat";
}

/* a recording keeps sched_waking too, for a later --compat=perf */
static unsigned record_events(const struct trace_opts *o)
{
	(void)o;
	return 1u << SEV_WAKING;
}

static int record_print(void *state, const struct an_view *v, enum out_format fmt, FILE *f)
{
	(void)state;
	(void)v;
	(void)fmt;
	(void)f;
	return 0;	/* AN_F_RECORD_ONLY: the recording is the result */
}

const struct analysis analysis_record = {
	.name = "record",
	.summary = "capture sched events into a trace.dat file (--flight: around an outlier)",
	.bit = ANB_RECORD,
	.flags = AN_F_RECORD_ONLY,
	.help = record_usage,
	.what = record_what,
	.defaults = record_defaults,
	.events = record_events,
	.print = record_print,
};
