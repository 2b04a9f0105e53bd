// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * offcpu: off-CPU time, from the switch that takes a thread off a CPU to
 * the one that puts it back; with -K/-U by stack (BCC's offcputime), as a
 * histogram per group otherwise (cpudist -O).
 */
#include <stdio.h>

#include "histan.h"

static const char offcpu_help[] =
"Usage: offcpu-ftrace offcpu [OPTIONS] [DURATION [COUNT]]\n"
"       offcpu-ftrace offcpu [OPTIONS] -- COMMAND [ARGS]\n"
"\n"
"Off-CPU time: how long threads stay off a CPU, from the context switch\n"
"that takes them off to the one that puts them back (blocked on I/O,\n"
"locks, sleeps, and waiting on the run queue after preemption), as a\n"
"histogram. DURATION, COUNT and -- COMMAND as for runq.\n";

#define A required_argument
#define N no_argument
#define ROW(name, letter, has, id, argname, help) { name, letter, has, id, anopt_apply, argname, help, 0 }
static const struct an_option offcpu_opts[] = {
	ROW("state", 0, A, ANO_STATE, "LETTERS", "only intervals that began in these states, e.g.\n"
	    "S, D, S,D, R (preempted); default all"),
	ROW("min", 0, A, ANO_MIN, "US", "only intervals of at least US microseconds"),
	ROW("max", 0, A, ANO_MAX, "US", "only intervals of at most US microseconds"),
	ROW("kernel-stacks", 'K', N, ANO_KSTACK, NULL, "total off-CPU time by kernel stack (offcputime)"),
	ROW("user-stacks", 'U', N, ANO_USTACK, NULL, "... and by user stack (needs frame pointers;\n"
	    "the ring backend keeps 8 user frames)"),
	ROW("delimited", 'd', N, ANO_DELIMITED, NULL, "'-' between user and kernel frames in -f output"),
	ROW("wakers", 0, optional_argument, ANO_WAKERS, "[=wakeup]",
	    "who woke them (wakeuptime: time blocked by waker\n"
	    "and target); with -K each blocked stack joined to\n"
	    "its waker's stack (offwaketime; -f folded);\n"
	    "--wakers=wakeup -K: the waker's stack alone, time\n"
	    "to the wakeup (wakeuptime)"),
	ROW("late-stacks", 0, N, ANO_LATE_STACKS, NULL, "with -K and --min US (>= 1000): no stack per\n"
	    "switch-out; read each long block's stack from\n"
	    "/proc/TID/stack while it lasts (root; cheap)"),
	AN_OPT_END,
};
#undef ROW
#undef A
#undef N

static const char offcpu_examples[] =
"\n"
"Examples:\n"
"  offcpu-ftrace offcpu 10            # off-CPU time histogram, 10 seconds\n"
"  offcpu-ftrace offcpu -K 10         # where threads block: time by stack\n"
"  offcpu-ftrace offcpu -K --format=svg -o offcpu.svg 10   # flame graph\n"
"  offcpu-ftrace offcpu -K -f -p 1234 10 > out.folded   # flamegraph.pl input\n"
"  offcpu-ftrace offcpu -KU --state D --top 20 10\n"
"  offcpu-ftrace offcpu --state D 10  # uninterruptible waits only (I/O)\n"
"  offcpu-ftrace offcpu -P --min 1000 10   # per process, >= 1 ms only\n"
"  offcpu-ftrace offcpu -t 4321 -m 30 # one thread, milliseconds\n"
"  offcpu-ftrace offcpu --wakers 10    # wakeuptime: who woke whom, how long\n"
"  offcpu-ftrace offcpu -K --wakers -f 10 > out.folded   # offwaketime\n";

static const char *offcpu_check(const struct trace_opts *o)
{
	const char *bad = anopt_check_offcpu(o);

	return bad ? bad : histan_check(o);
}

static const char *offcpu_what(const struct trace_opts *o)
{
	if (o->kstack || o->ustack)
		return o->kstack && o->ustack ? "off-CPU time by kernel and user stack" :
		       o->kstack ? "off-CPU time by kernel stack" : "off-CPU time by user stack";
	return "off-CPU time";
}

static void offcpu_defaults(struct trace_opts *o)
{
	o->modes = AN_OFFCPU;
}

static enum hist_refusal offcpu_hist(const struct trace_opts *o)
{
	if (o->ustack)
		return HIST_NO_USTACK;
	if (o->late_stacks)
		return HIST_NO_LATE;
	if (o->kstack)
		return HIST_NO_KSTACK;	/* only where the kernel passes stacks */
	return HIST_CAN;
}

extern const struct analysis analysis_wakers;

/* --wakers: who woke them (wakers.c) */
static const struct analysis *offcpu_refine(const struct trace_opts *o)
{
	return o->wakers ? &analysis_wakers : NULL;
}

static int offcpu_print(void *state, const struct an_view *v, enum out_format fmt, FILE *f)
{
	return histan_print(state, v, fmt, f, &v->an->off, MEASURE_OFFCPU);
}

const struct analysis analysis_offcpu = {
	.name = "offcpu",
	.summary = "off-CPU time histogram (-K: by stack)",
	.flags = AN_F_REPORT,
	.options = (const struct an_option *const[]){ ANOPT_HISTS, offcpu_opts,
						      anopt_stacks_fold, anopt_xval, NULL },
	.usage = offcpu_help,
	.examples = offcpu_examples,
	.what = offcpu_what,
	.defaults = offcpu_defaults,
	.refine = offcpu_refine,
	.check = offcpu_check,
	.no_records = histan_no_records,
	.hist = offcpu_hist,
	.configure = histan_configure,
	.setup = histan_setup,
	.print = offcpu_print,
	.free = histan_free,
};
