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
"Without DURATION, until Ctrl-C; with -- COMMAND, the command's life.\n"
"--backend: auto picks as runq does (perf where this kernel loses\n"
"switches: exact); ring and perf record, hist and proc cannot.\n";

#define A required_argument
#define N no_argument
#define ROW(name, letter, has, id, argname, help, flags) \
	{ name, letter, has, id, anopt_apply, argname, help, flags }
static const struct an_option record_opts[] = {
	ROW("output", 'o', A, ANO_RECORD_FILE, "FILE", "where to write (default: offcpu-ftrace.dat)", 0),
	ROW("kernel-stacks", 'K', N, ANO_KSTACK, NULL, "also a kernel stack at each switch-out", 0),
	ROW("user-stacks", 'U', N, ANO_USTACK, NULL, "also a user stack at each switch-out", 0),
	ROW("state", 0, A, ANO_STATE, "LETTERS", "stacks only for switch-outs in these states", 0),
	ROW("wakers", 0, optional_argument, ANO_WAKERS, NULL,
	    "with -K: the waker's stack at each sched_waking too", 0),
	ROW(NULL, 0, 0, 0, NULL, "Flight recorder (a rare outlier, without recording all day):",
	    AO_HEADING),
	ROW("flight", 0, A, ANO_FLIGHT, "SECS", "keep only the last SECS (up to 3600) in memory; save\n"
	    "them to FILE when a trigger fires, --after later", 0),
	ROW("runq-over", 0, A, ANO_RUNQ_OVER, "US", "trigger: a run-queue wait longer than US microseconds", 0),
	ROW("offcpu-over", 0, A, ANO_OFFCPU_OVER, "US", "trigger: an off-CPU interval longer than US (in the\n"
	    "states --state names, or any)\n(and always SIGUSR1: save now)", 0),
	ROW("after", 0, A, ANO_AFTER, "SECS", "keep recording this long after the trigger (default 1)", 0),
	ROW("max-files", 0, A, ANO_MAX_FILES, "N", "FILE, then FILE.2 ... FILE.N (default 1); then stop", 0),
	ROW("keep-going", 0, N, ANO_KEEP_GOING, NULL, "after the last file trace on (counting triggers) until\n"
	    "DURATION, the COMMAND's end or Ctrl-C\n"
	    "The store: at most 8 x --buffer-size KiB per CPU.", 0),
	ROW(NULL, 0, 0, 0, NULL, "Tracing:", AO_HEADING),
	AN_OPT_END,
};
#undef ROW
#undef A
#undef N

static const char record_examples[] =
"\n"
"Examples:\n"
"  offcpu-ftrace record -o ci.dat 10              # ten seconds of the host\n"
"  offcpu-ftrace record -K -o build.dat -- make -j8\n"
"  offcpu-ftrace record -K --wakers -o w.dat 10   # for offcpu -K --wakers\n"
"  offcpu-ftrace report ci.dat runq -P            # later, anywhere\n"
"  offcpu-ftrace record --flight 30 --runq-over 50000 -o stall.dat -- ./ci-step\n";

static const char record_exit[] =
"\n"
"Exit status: 0 recorded, or with --flight ran (a note says when nothing was\n"
"saved), with -- COMMAND: its exit status; 1 failed,\n"
"2 bad usage, 3 events lost with --strict, 4 the recording could not be\n"
"written. See offcpu-ftrace-record(8).\n";


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

/* --wakers -K: the waker's kernel stack at each sched_waking, for a later offcpu -K --wakers */
static void record_request(const struct trace_opts *o, struct trace_req *req)
{
	req->waking_kstack = req->kstack && o->wakers;
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
	.flags = AN_F_RECORD_ONLY,
	.options = (const struct an_option *const[]){ record_opts, NULL },
	.usage = record_help,
	.examples = record_examples,
	.exit_help = record_exit,
	.what = record_what,
	.defaults = record_defaults,
	.events = record_events,
	.request = record_request,
	.print = record_print,
};
