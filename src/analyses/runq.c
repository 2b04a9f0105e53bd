// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * runq: run-queue latency, how long threads wait for a CPU after they
 * become runnable (woken, new, or preempted) until they run; BCC's
 * runqlat and bpftrace's runqlat.bt, as a histogram per group.
 */
#include <stdio.h>

#include "histan.h"
#include "runq.h"

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

/* runq's own rows (runq_set) */
enum { RQ_SLOWER = 1, RQ_RAN_INSTEAD };

static const char *runq_set(struct trace_opts *o, const struct an_option *opt, const char *arg,
			    char *buf, size_t len)
{
	struct runq_opts *q = runq_own_set(o);
	unsigned long long v;
	const char *bad;

	switch (opt->id) {
	case RQ_SLOWER:
		if ((bad = anopt_number(opt, arg, 0, UINT64_MAX / 1000, "a number of microseconds",
					&v, buf, len)))
			return bad;
		q->slower = true;
		q->slower_us = v;
		return NULL;
	case RQ_RAN_INSTEAD:
		q->ran_instead = true;
		return NULL;
	}
	return "internal: an option without a setter";
}

#define A required_argument
#define N no_argument
static const struct an_option runq_opts[] = {
	{ "slower", 0, A, RQ_SLOWER, runq_set, "US",
	  "list each wait longer than US microseconds as it\n"
	  "ends, as BCC's runqslower (-P: with the task\n"
	  "switched out for it, as runqslower -P; --by cgroup:\n"
	  "with the waiting thread's cgroup; both: both)", 0 },
	{ "ran-instead", 0, N, RQ_RAN_INSTEAD, runq_set, NULL,
	  "with --slower: who ran on that CPU during each\n"
	  "wait, the 3 longest (the answer to \"who took my CPU\")", 0 },
	{ "compat", 0, A, ANO_COMPAT, anopt_apply, "PEER",
	  "count what PEER counts: bcc (default: wakeup,\n"
	  "wakeup_new, preempted R or R+; libbpf-tools the\n"
	  "same), bpftrace (runqlat.bt: preempted R only),\n"
	  "perf (perf 6.1 sched timehist's sch delay: from\n"
	  "the first sched_waking; after a preemption 0: the\n"
	  "wait is its \"wait time\")", 0 },
	AN_OPT_END,
};
#undef A
#undef N

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

static const char *runq_check(const struct trace_opts *o)
{
	if (runq_own(o)->ran_instead && !runq_own(o)->slower)
		return "--ran-instead says who ran during each wait --slower lists: add --slower US";
	return histan_check(o);
}

static enum hist_refusal runq_hist(const struct trace_opts *o)
{
	return o->compat == COMPAT_PERF ? HIST_NO_WAKING : HIST_CAN;
}

extern const struct analysis analysis_slower;

/* --slower: the waits one by one (slower.c) instead of their histogram */
static const struct analysis *runq_refine(const struct trace_opts *o)
{
	return runq_own(o)->slower ? &analysis_slower : NULL;
}

static int runq_print(void *state, const struct an_view *v, enum out_format fmt, FILE *f)
{
	return histan_print(state, v, fmt, f, &v->an->runq, MEASURE_RUNQ);
}

const struct analysis analysis_runq = {
	.name = "runq",
	.summary = "run-queue latency histogram",
	.flags = AN_F_REPORT,
	.options = (const struct an_option *const[]){ ANOPT_HISTS, runq_opts, anopt_xval,
						      NULL },
	.usage = runq_help,
	.examples = runq_examples,
	.what = runq_what,
	.defaults = runq_defaults,
	.refine = runq_refine,
	.check = runq_check,
	.events = runq_events,
	.no_records = histan_no_records,
	.hist = runq_hist,
	.configure = histan_configure,
	.setup = histan_setup,
	.print = runq_print,
	.free = histan_free,
};
