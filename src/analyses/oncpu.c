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
"instead (cpudist -O). DURATION, COUNT and -- COMMAND as for runq.\n";

static const char oncpu_examples[] =
"\n"
"Examples:\n"
"  offcpu-ftrace oncpu 10                  # cpudist: timeslices for 10 seconds\n"
"  offcpu-ftrace oncpu -P -m 5             # per process, milliseconds\n"
"  offcpu-ftrace oncpu -O -p 1234 10       # cpudist -O: off-CPU time of one process\n"
"  offcpu-ftrace oncpu -L -- make -j8      # every thread of a build\n"
"  offcpu-ftrace oncpu --compat=libbpf-tools 10   # as libbpf-tools' cpudist counts\n";

/* oncpu's own options (trace_opts.own) */
struct oncpu_opts {
	bool offcpu;		/* -O: off-CPU time instead (cpudist -O) */
};
AN_OWN_OPTS(oncpu_own, struct oncpu_opts)

static const char *oncpu_set(struct trace_opts *o, const struct an_option *opt, const char *arg,
			     char *buf, size_t len)
{
	(void)opt;
	(void)arg;
	(void)buf;
	(void)len;
	oncpu_own_set(o)->offcpu = true;	/* its one row: -O */
	return NULL;
}

static const struct an_option oncpu_opts[] = {
	{ "offcpu", 'O', no_argument, 1, oncpu_set, NULL,
	  "off-CPU time instead (cpudist -O)", 0 },
	{ "compat", 0, required_argument, ANO_COMPAT, anopt_apply, "PEER",
	  "bcc (default: every slice, as BCC's python\n"
	  "cpudist) or libbpf-tools (libbpf-tools 0.26's\n"
	  "cpudist: only slices that end runnable, the idle\n"
	  "task's too)", 0 },
	AN_OPT_END,
};

static const char *oncpu_what(const struct trace_opts *o)
{
	return oncpu_own(o)->offcpu ? "off-CPU time" : "on-CPU time";
}

static void oncpu_defaults(struct trace_opts *o)
{
	o->modes = AN_ONCPU;
}

/* -O: offcpu's intervals; stacks belong to offcpu -K */
static const char *oncpu_check(const struct trace_opts *o)
{
	if (o->compat_given && o->compat != COMPAT_BCC && o->compat != COMPAT_LIBBPF)
		return "--compat for oncpu: bcc (every slice, as BCC's python cpudist) or "
		       "libbpf-tools (only slices that end runnable, the idle task's too, as "
		       "libbpf-tools 0.26's cpudist)";
	return histan_check(o);
}

static enum hist_refusal oncpu_hist(const struct trace_opts *o)
{
	/* -O is offcpu's histogram, which the kernel can sum; slices it does not */
	return oncpu_own(o)->offcpu ? HIST_CAN : HIST_NO_ONCPU;
}

static void oncpu_configure(const struct trace_opts *o, struct an_cfg *cfg)
{
	cfg->key = o->key;
	cfg->modes = oncpu_own(o)->offcpu ? AN_OFFCPU : AN_ONCPU;
}

/* cpudist's banner heads the text output (stdout), as cpudist prints it */
static void banner(FILE *f, void *arg)
{
	const struct trace_opts *o = arg;

	/* and the blank line cpudist prints before each histogram */
	fprintf(f, "Tracing %s time... Hit Ctrl-C to end.\n\n", oncpu_own(o)->offcpu ? "off-CPU" : "on-CPU");
}

static int oncpu_print(void *state, const struct an_view *v, enum out_format fmt, FILE *f)
{
	struct stack_report sr;
	struct report rep;

	if (oncpu_own(v->o)->offcpu)
		histan_fill(state, v, fmt, &v->an->off, MEASURE_OFFCPU, &rep, &sr);
	else
		histan_fill(state, v, fmt, &v->an->on, MEASURE_ONCPU, &rep, &sr);
	if (fmt == FMT_BCC && (v->interval == 1 || v->replaces)) {
		rep.text_head = banner;
		rep.extra_arg = (void *)v->o;
	}
	return report_emit(f, fmt, &rep);
}

const struct analysis analysis_oncpu = {
	.name = "oncpu",
	.summary = "on-CPU time per timeslice (cpudist; -O off-CPU)",
	.flags = AN_F_REPORT,
	.options = (const struct an_option *const[]){ ANOPT_HISTS, oncpu_opts, NULL },
	.usage = oncpu_help,
	.examples = oncpu_examples,
	.what = oncpu_what,
	.defaults = oncpu_defaults,
	.check = oncpu_check,
	.no_records = histan_no_records,
	.hist = oncpu_hist,
	.configure = oncpu_configure,
	.setup = histan_setup,
	.print = oncpu_print,
	.free = histan_free,
};
