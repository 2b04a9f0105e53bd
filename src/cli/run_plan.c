// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --dry-run: what a run would do, once everything that can be checked
 * without tracing has been (the command exists, -p/-t name live tasks,
 * the output can be written, the backend can run here): the backend and
 * why, the events, the scope and filters, the window, the output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "procfs.h"
#include "run.h"

static void print_events(FILE *f, const struct run *r)
{
	const struct trace_opts *o = r->o;
	const char *name = r->ops->name;
	/* the fill from sched_waking is the ring's and perf's (hist aggregates) */
	bool waking = (an_events(o) & (1u << SEV_WAKING)) != 0 ||
		      (r->drops_possible && (o->modes & AN_RUNQ) && strcmp(name, "hist"));

	if (!strcmp(name, "file")) {
		fprintf(f, "events:   those in %s\n", o->replay_path);
		return;
	}
	if (!strcmp(name, "proc")) {
		fprintf(f, "events:   none: each thread's /proc schedstat%s sampled %u times a "
			"second (no distribution, totals exact)\n",
			o->kstack ? ", status and stack (or wchan)" :
			o->modes & AN_OFFCPU ? " and status" : "",
			o->rate_hz ? o->rate_hz : 20);
		return;
	}
	fprintf(f, "events:   sched_switch, sched_wakeup, sched_wakeup_new%s%s%s",
		waking ? ", sched_waking" : "", o->command ? ", sched_process_fork" : "",
		/* as by_cgroup_want_moves() asks */
		o->key == KEY_CGROUP && !o->record_path && !o->flight.keep_ns ?
		", cgroup_attach_task and cgroup_transfer_tasks where the kernel has them" : "");
	if (!strcmp(name, "perf"))
		fputs(" (perf tracepoints), with perf's context-switch records", f);
	else if (!strcmp(name, "hist"))
		fputs(", aggregated in the kernel by hist triggers and synthetic events", f);
	else
		fputs(", in a tracefs instance of its own", f);
	if (o->late_stacks)
		fprintf(f, "; kernel stacks read from /proc/TID/stack of threads blocked "
			">= --min, every %llu ms (--late-stacks)",
			(unsigned long long)(late_stacks_period_ns(o->min_us) / 1000000));
	else if (o->kstack || o->ustack)
		fprintf(f, "; %s stacks at each switch-out", o->kstack && o->ustack ?
			"kernel and user" : o->kstack ? "kernel" : "user");
	fputc('\n', f);
}

static void print_scope(FILE *f, const struct run *r)
{
	const struct trace_opts *o = r->o;
	char cmd[512];

	fputs("scope:    ", f);
	if (o->command) {
		shell_quote_argv(cmd, sizeof(cmd), o->command, 400);
		fprintf(f, "the command %s and every process and thread it starts\n", cmd);
	} else if (o->pid >= 0) {
		int32_t *tids = NULL;
		int n = proc_threads(o->pid, &tids);

		fprintf(f, "process %d (%d thread%s now, and those it starts)\n", o->pid,
			n > 0 ? n : 0, n == 1 ? "" : "s");
		free(tids);
	} else if (o->tid >= 0) {
		fprintf(f, "thread %d\n", o->tid);
	} else if (r->scope_applied && !strcmp(r->rscope.kind, "command")) {
		fprintf(f, "as recorded: %s and its descendants (--all: every thread)\n",
			r->rscope.command[0] ? r->rscope.command : "the command");
	} else if (r->scope_applied) {
		fprintf(f, "as recorded: %s %d (--all: every thread)\n",
			!strcmp(r->rscope.kind, "pid") ? "process" : "thread", r->rscope.id);
	} else if (o->replay_path) {
		fprintf(f, "every thread in the recording\n");
	} else {
		fprintf(f, "all threads\n");
	}
	if (o->comm[0])
		fprintf(f, "filter:   threads named %s\n", o->comm);
	if (o->cgroup)
		fprintf(f, "filter:   threads in cgroup %s and below\n", o->cgroup);
	if (o->state)
		fprintf(f, "filter:   intervals that began in state %s\n", o->state);
	if (o->min_us || o->max_us != UINT64_MAX) {
		fprintf(f, "filter:   intervals of at least %llu us", (unsigned long long)o->min_us);
		if (o->max_us != UINT64_MAX)
			fprintf(f, " and at most %llu us", (unsigned long long)o->max_us);
		fputc('\n', f);
	}
}

static void print_window(FILE *f, const struct trace_opts *o)
{
	double s = (double)o->duration_ns / 1e9;

	fputs("window:   ", f);
	if (o->replay_path)
		fputs("the recording's\n", f);
	else if (o->command && o->interval_mode)
		fprintf(f, "the command's life, printed every %g s\n", s);
	else if (o->command)
		fputs("the command's life\n", f);
	else if (o->interval_mode && o->count != UINT64_MAX)
		fprintf(f, "%llu intervals of %g s\n", (unsigned long long)o->count, s);
	else if (o->interval_mode)
		fprintf(f, "every %g s until Ctrl-C\n", s);
	else if (!o->duration_ns)
		fputs("until Ctrl-C\n", f);
	else if (o->count > 1)
		fprintf(f, "%llu windows of %g s\n", (unsigned long long)o->count, s);
	else
		fprintf(f, "%g s\n", s);
}

static void print_output(FILE *f, const struct trace_opts *o)
{
	static const char *const fmts[] = { "text (BCC's layout)", "text (bpftrace's layout)",
					    "JSON", "OpenMetrics", "SVG" };
	_Static_assert(sizeof(fmts) / sizeof(fmts[0]) == FMT_SVG + 1, "a name per format");
	static const char *const keys[] = { "one histogram", "per process", "per thread",
					    "per CPU", "per thread name", "per cgroup" };

	if (o->flight.keep_ns) {
		fprintf(f, "flight:   the last %.6g s kept in memory; saved as %s", (double)o->flight.keep_ns / 1e9,
			o->record_path);
		if (o->flight.max_files > 1)
			fprintf(f, " (then %s.2 ... up to %u files)", o->record_path,
				o->flight.max_files);
		fprintf(f, "%s, %.6g s after a trigger\ntrigger:  ",
			o->flight.keep_going ? ", tracing on after the last" : "",
			(double)o->flight.after_ns / 1e9);
		if (o->flight.runq_over_ns)
			fprintf(f, "a run-queue wait over %.6g us, ",
				(double)o->flight.runq_over_ns / 1e3);
		if (o->flight.offcpu_over_ns)
			fprintf(f, "an off-CPU interval over %.6g us%s%s, ",
				(double)o->flight.offcpu_over_ns / 1e3, o->state ? " in " : "",
				o->state ? o->state : "");
		fprintf(f, "%sSIGUSR1\n", o->flight.runq_over_ns || o->flight.offcpu_over_ns ? "or " : "");
		if (o->record_only)
			return;
	}
	if (o->record_only) {
		fprintf(f, "output:   %s (trace.dat, mode 0600, renamed into place when "
			"complete)\n", o->record_path);
		return;
	}
	if (o->an->text_output)
		fprintf(f, "output:   %s%s", o->fmt == FMT_BCC ? o->an->text_output : fmts[o->fmt],
			o->key == KEY_CGROUP ? ", with a row per cgroup" : "");
	else
		fprintf(f, "output:   %s, %s%s", o->folded ? "folded stacks" : fmts[o->fmt],
			o->kstack || o->ustack ? "by stack" : keys[o->key],
			o->msecs ? ", milliseconds" : "");
	if (o->top)
		fprintf(f, ", the top %u", o->top);
	fprintf(f, ", to %s%s\n", o->output_path ? o->output_path : "standard output",
		o->output_path ? " (atomically)" : "");
	if (o->record_path && !o->flight.keep_ns)
		fprintf(f, "also:     the events recorded to %s\n", o->record_path);
	if (o->strict)
		fputs("strict:   exit 3 when the results are partial\n", f);
}

void run_print_plan(const struct run *r)
{
	const struct trace_opts *o = r->o;
	FILE *f = stdout;

	fprintf(f, "dry run: %s (%s): every check passed, nothing traced\n",
		o->replay_path ? "report" : o->cmd, run_what(o));
	fprintf(f, "backend:  %s%s%s\n", r->ops->name, r->why[0] ? ": " : "", r->why);
	print_events(f, r);
	print_scope(f, r);
	if (r->bycg.on) {
		char cg[4300];

		by_cgroup_describe(&r->bycg, cg, sizeof(cg));
		fprintf(f, "cgroups:  keyed on %s\n", cg);
	}
	print_window(f, o);
	print_output(f, o);
}
