// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * oncpu: how long tasks run before they switch out, a histogram of every
 * timeslice (switch-in to switch-out), as BCC's cpudist; -O: off-CPU time
 * instead (cpudist -O), offcpu's histogram under cpudist's name.
 */
#include <stdio.h>

#include "histan.h"

static const char oncpu_help[] =
"Usage: offcpu-ftrace oncpu [OPTIONS] [DURATION [COUNT]]\n"
"       offcpu-ftrace oncpu [OPTIONS] -- COMMAND [ARGS]\n"
"\n"
"On-CPU time per timeslice, as BCC's cpudist: from the switch that puts a\n"
"thread on a CPU to the one that takes it off, whatever it leaves in\n"
"(preempted, blocked or exiting), as a histogram. With -O, off-CPU time\n"
"instead (cpudist -O). DURATION, COUNT and -- COMMAND as for runq.\n"
"\n"
"Options:\n"
"  -p, --pid PID          only this process (all its threads)\n"
"  -t, --tid TID          only this thread\n"
"  -c, --comm COMM        only threads named COMM\n"
"  -P, --pids             one histogram per process\n"
"  -L, --tids             one histogram per thread\n"
"  -C, --cpus             one histogram per CPU\n"
"      --by KEY           pid, tid, cpu, comm or cgroup (--cgroup-depth N,\n"
"                         --cgroup-controller NAME as for runq)\n"
"      --top N            only the N histograms with the most time\n"
"  -O, --offcpu           off-CPU time instead (cpudist -O)\n"
"  -m, --milliseconds     histogram in milliseconds (default microseconds)\n"
"  -T, --timestamp        print the time before each interval's output\n"
"  -i, --interval SECS    print every SECS seconds\n"
"      --format FMT       bcc (default), bpftrace, json, openmetrics or svg\n"
"      --cgroup PATH, --backend, --rate, --tracefs, --buffer-size, --max-tasks,\n"
"      --max-groups, --strict, --record FILE, -o FILE, --dry-run, -q as for runq\n"
"  -h, --help             this help\n"
"\n"
"Examples:\n"
"  offcpu-ftrace oncpu 10                  # cpudist: timeslices for 10 seconds\n"
"  offcpu-ftrace oncpu -P -m 5             # per process, milliseconds\n"
"  offcpu-ftrace oncpu -O -p 1234 10       # cpudist -O: off-CPU time of one process\n"
"  offcpu-ftrace oncpu -L -- make -j8      # every thread of a build\n";

static void oncpu_usage(FILE *f)
{
	fputs(oncpu_help, f);
	an_help_exit(f, "oncpu");
}

static const char *oncpu_what(const struct trace_opts *o)
{
	return o->flag_O ? "off-CPU time" : "on-CPU time";
}

static void oncpu_defaults(struct trace_opts *o)
{
	o->modes = AN_ONCPU;
}

/* -O: offcpu's intervals; stacks belong to offcpu -K */
static const char *oncpu_check(const struct trace_opts *o)
{
	return histan_check(o);
}

static enum hist_refusal oncpu_hist(const struct trace_opts *o)
{
	/* -O is offcpu's histogram, which the kernel can sum; slices it does not */
	return o->flag_O ? HIST_CAN : HIST_NO_ONCPU;
}

static void oncpu_configure(const struct trace_opts *o, struct an_cfg *cfg)
{
	cfg->key = o->key;
	cfg->modes = o->flag_O ? AN_OFFCPU : AN_ONCPU;
}

/* cpudist's banner heads the text output (stdout), as cpudist prints it */
static void banner(FILE *f, void *arg)
{
	const struct trace_opts *o = arg;

	/* and the blank line cpudist prints before each histogram */
	fprintf(f, "Tracing %s time... Hit Ctrl-C to end.\n\n", o->flag_O ? "off-CPU" : "on-CPU");
}

static int oncpu_print(void *state, const struct an_view *v, enum out_format fmt, FILE *f)
{
	struct stack_report sr;
	struct report rep;

	if (v->o->flag_O)
		histan_fill(state, v, fmt, &v->an->off, MEASURE_OFFCPU, &rep, &sr);
	else
		histan_fill(state, v, fmt, &v->an->on, MEASURE_ONCPU, &rep, &sr);
	if (fmt == FMT_BCC && (v->interval == 1 || v->replaces)) {
		rep.text_head = banner;
		rep.extra_arg = (void *)v->o;
	}
	return histan_emit(f, fmt, &rep);
}

const struct analysis analysis_oncpu = {
	.name = "oncpu",
	.summary = "on-CPU time per timeslice (cpudist; -O off-CPU)",
	.bit = ANB_ONCPU,
	.flags = AN_F_REPORT,
	.help = oncpu_usage,
	.what = oncpu_what,
	.defaults = oncpu_defaults,
	.check = oncpu_check,
	.hist = oncpu_hist,
	.configure = oncpu_configure,
	.setup = histan_setup,
	.print = oncpu_print,
	.free = histan_free,
};
