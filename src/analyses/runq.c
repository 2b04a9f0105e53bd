// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * runq: run-queue latency, how long threads wait for a CPU after they
 * become runnable (woken, new, or preempted) until they run; BCC's
 * runqlat and bpftrace's runqlat.bt, as a histogram per group.
 */
#include <stdio.h>

#include "histan.h"

static const char runq_help[] =
"Usage: offcpu-ftrace runq [OPTIONS] [DURATION [COUNT]]\n"
"       offcpu-ftrace runq [OPTIONS] -- COMMAND [ARGS]\n"
"\n"
"Run-queue latency: how long threads wait for a CPU after they become\n"
"runnable (woken, newly created, or preempted) until they run, as a\n"
"histogram. DURATION is in seconds (0.5, 10, 2m); COUNT prints that many\n"
"DURATION-long intervals (default 1). Without DURATION: until Ctrl-C.\n"
"With -- COMMAND: run COMMAND, trace it and every process and thread it\n"
"starts for its whole life, and exit with its exit status.\n";

static const char runq_only_help[] =
"      --slower US        list each wait longer than US microseconds as it\n"
"                         ends, as BCC's runqslower (-P: with the task\n"
"                         switched out for it, as runqslower -P; --by cgroup:\n"
"                         with the waiting thread's cgroup; both: both)\n"
"      --ran-instead      with --slower: who ran on that CPU during each\n"
"                         wait, the 3 longest (the answer to \"who took my CPU\")\n"
"      --compat PEER      count what PEER counts: bcc (default: wakeup,\n"
"                         wakeup_new, preempted R or R+), bpftrace\n"
"                         (runqlat.bt: preempted R only), perf (perf sched\n"
"                         timehist: from the first sched_waking)\n";

static const char runq_examples[] =
"\n"
"Examples:\n"
"  offcpu-ftrace runq 10              # one histogram of 10 seconds\n"
"  offcpu-ftrace runq 1 5             # five 1-second histograms\n"
"  offcpu-ftrace runq -P -m 5         # per process, milliseconds\n"
"  offcpu-ftrace runq -L -p 1234 10   # per thread of process 1234\n"
"  offcpu-ftrace runq --format=json 10 > runq.json\n"
"  offcpu-ftrace runq --format=bpftrace 10   # diff against runqlat.bt\n"
"  offcpu-ftrace runq --compat=bpftrace --xval 10   # and check it live\n"
"  offcpu-ftrace runq -L -- make -j8  # every thread of a build\n"
"  offcpu-ftrace runq --by comm --top 5 -- make -j8   # which tools wait\n"
"  offcpu-ftrace runq -P --top 5 -i 1 60 --format=svg -o runq.svg   # heat map\n"
"  offcpu-ftrace runq --format=openmetrics 60 > runq.prom.new && mv runq.prom.new runq.prom\n"
"  offcpu-ftrace runq --slower 10000 -P 30   # runqslower: waits over 10 ms\n"
"  offcpu-ftrace runq --slower 5000 --ran-instead -- make -j8   # who took the CPU\n";

static void runq_usage(FILE *f)
{
	fputs(runq_help, f);
	an_help_common(f);
	fputs(runq_only_help, f);
	fputs(runq_examples, f);
	an_help_exit(f, "runq");
}

static const char *runq_what(const struct trace_opts *o)
{
	(void)o;
	return "run-queue latency";
}

static void runq_defaults(struct trace_opts *o)
{
	o->modes = AN_RUNQ;
}

/* perf sched timehist's rule counts from the first sched_waking */
static unsigned runq_events(const struct trace_opts *o)
{
	return o->compat == COMPAT_PERF ? 1u << SEV_WAKING : 0;
}

static enum hist_refusal runq_hist(const struct trace_opts *o)
{
	return o->compat == COMPAT_PERF ? HIST_NO_WAKING : HIST_CAN;
}

extern const struct analysis analysis_slower;

/* --slower: the waits one by one (slower.c) instead of their histogram */
static const struct analysis *runq_refine(const struct trace_opts *o)
{
	return o->slower ? &analysis_slower : NULL;
}

static int runq_print(void *state, const struct an_view *v, enum out_format fmt, FILE *f)
{
	return histan_print(state, v, fmt, f, &v->an->runq, MEASURE_RUNQ);
}

const struct analysis analysis_runq = {
	.name = "runq",
	.summary = "run-queue latency histogram",
	.bit = ANB_RUNQ,
	.flags = AN_F_REPORT,
	.help = runq_usage,
	.what = runq_what,
	.defaults = runq_defaults,
	.refine = runq_refine,
	.check = histan_check,
	.events = runq_events,
	.hist = runq_hist,
	.configure = histan_configure,
	.setup = histan_setup,
	.print = runq_print,
	.free = histan_free,
};
