// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --dry-run: what a run would do, once everything that can be checked
 * without tracing has been (the command exists, -p/-t name live tasks,
 * the output can be written, the backend can run here): the backend and
 * why, the events, the scope and filters, the window, the output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "procfs.h"
#include "run.h"

/* what @req traces, in words, on one line (no newline) */
static void put_events(FILE *f, const struct run *r, const struct trace_req *req)
{
	const struct trace_opts *o = r->o;
	unsigned caps = r->ops->caps;

	if (caps & BCAP_REPLAY) {
		fprintf(f, "those in %s", o->replay_path);
		return;
	}
	if (caps & BCAP_SAMPLES) {
		fprintf(f, "none: each thread's /proc schedstat%s sampled %u times a "
			"second (no distribution, totals exact)",
			o->kstack ? ", status and stack (or wchan)" :
			o->modes & AN_OFFCPU ? " and status" : "",
			o->rate_hz ? o->rate_hz : 20);
		return;
	}
	if (req->switches_only) {
		fprintf(f, "context switches and%s forks from perf's context-switch "
			"records alone (no tracepoint: who left, preempted or not, and who "
			"came)", req->fork ? "" : " no");
		return;
	}
	/* the fill from sched_waking is the event backends' (the kernel's sums have none) */
	fprintf(f, "sched_switch, sched_wakeup, sched_wakeup_new%s%s%s%s, %s",
		req->waking && (caps & BCAP_EVENTS) ? ", sched_waking" : "",
		req->fork ? ", sched_process_fork" : "",
		req->cpu_samples ? ", CPU clock samples" : "",
		req->cgroup_moves ? ", cgroup_attach_task and cgroup_transfer_tasks where the "
		"kernel has them" : "", r->ops->source);
	/* a scope that a kernel filter would keep to its own threads' events */
	if ((o->pid >= 0 || o->tid >= 0 || o->command) && run_every_switch(r))
		fputs("; every CPU's switches, not only the selected threads' (which CPUs "
		      "idle: the selection is made here)", f);
	if (o->late_stacks)
		fprintf(f, "; kernel stacks read from /proc/TID/stack of threads blocked "
			">= --min, every %llu ms (--late-stacks)",
			(unsigned long long)(late_stacks_period_ns(o->min_us) / 1000000));
	else if (req->kstack || req->ustack)
		fprintf(f, "; %s stacks at each switch-out%s", req->kstack && req->ustack ?
			"kernel and user" : req->kstack ? "kernel" : "user", req->waking_kstack ?
			" and the waker's kernel stack at each sched_waking" : "");
}

static void print_events(FILE *f, const struct run *r, const struct trace_req *req)
{
	fputs("events:   ", f);
	put_events(f, r, req);
	fputc('\n', f);
}

char *run_plan_events(const struct run *r, const struct trace_req *req)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	put_events(f, r, req);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
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

static void print_output(FILE *f, const struct run *r)
{
	static const char *const fmts[] = { "text (BCC's layout)", "text (bpftrace's layout)",
					    "JSON", "OpenMetrics", "SVG",
					    "a Perfetto trace (Chrome trace-event JSON)" };
	_Static_assert(sizeof(fmts) / sizeof(fmts[0]) == FMT_PERFETTO + 1, "a name per format");
	static const char *const keys[] = { "one histogram", "per process", "per thread",
					    "per CPU", "per thread name", "per cgroup" };
	const struct trace_opts *o = r->o;

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
		r->out.kind == OUT_FILE ? " (atomically)" :
		r->out.kind == OUT_THROUGH ? " (written through: a device or FIFO)" : "");
	if (o->record_path && !o->flight.keep_ns)
		fprintf(f, "also:     the events recorded to %s\n", o->record_path);
	if (o->strict)
		fputs("strict:   exit 3 when the results are partial\n", f);
}

void run_print_plan(const struct run *r, const struct trace_req *req)
{
	const struct trace_opts *o = r->o;
	FILE *f = stdout;

	fprintf(f, "dry run: %s (%s): every check passed, nothing traced\n",
		o->replay_path ? "report" : o->cmd, run_what(o));
	fprintf(f, "backend:  %s%s%s\n", r->ops->name, r->why[0] ? ": " : "", r->why);
	print_events(f, r, req);
	if (r->recorded_plan[0])
		fprintf(f, "recorded: %s\n", r->recorded_plan);
	print_scope(f, r);
	if (r->bycg.on) {
		char cg[4300];

		by_cgroup_describe(&r->bycg, cg, sizeof(cg));
		fprintf(f, "cgroups:  keyed on %s\n", cg);
	}
	print_window(f, o);
	print_output(f, r);
}

/*
 * --dry-run, past the checks run_trace() made (command, output, backend):
 * the cgroup resolves, a recording opens and has what is asked of it;
 * then the plan. Nothing is traced and nothing in tracefs is written.
 */
int run_dry_run(struct run *r)
{
	const struct trace_opts *o = r->o;
	char err[BACKEND_ERRLEN] = "";
	int ret;

	/* --by cgroup: the hierarchy it would key on (said in the plan) */
	if (run_open_cgroups(r, 1))
		return EXIT_FAIL;
	run_say_pick(r);
	if (o->replay_path) {
		struct trace_req req = { .replay_path = o->replay_path, .kstack = o->kstack,
					 .ustack = o->ustack };
		struct backend_window w;
		unsigned ev;

		if (r->ops->open(&r->b, &req, err, sizeof(err))) {
			err_msg("%s", err);
			return EXIT_FAIL;
		}
		/* what the recording's run planned, as its --dry-run said it */
		if (r->ops->recording && !r->ops->recording(r->b, &w) && w.plan_backend &&
		    w.plan_events)
			snprintf(r->recorded_plan, sizeof(r->recorded_plan), "the %s backend: %s",
				 w.plan_backend, w.plan_events);
		text_clean(r->recorded_plan);	/* a file's text: no control characters */
		ev = r->ops->events(r->b);
		ret = run_recorded_scope(r);
		r->ops->close(r->b, err, sizeof(err));
		if (ret >= 0)
			return ret;
		if ((an_kstack_required(o) && !(ev & (1u << SEV_KSTACK))) ||
		    (o->ustack && !(ev & (1u << SEV_USTACK)))) {
			err_msg("%s has no %s stacks: record with 'offcpu-ftrace record %s'",
				o->replay_path, o->kstack && !(ev & (1u << SEV_KSTACK)) ?
				"kernel" : "user", o->kstack ? "-K" : "-U");
			return EXIT_FAIL;
		}
	}
	{
		struct trace_req plan;

		run_plan_request(r, &plan);
		run_print_plan(r, &plan);
	}
	by_cgroup_close(&r->bycg);
	if (fflush(stdout) || ferror(stdout)) {
		err_msg("cannot write the output: %s", strerror(errno ? errno : EIO));
		return EXIT_OUTPUT;
	}
	return EXIT_OK;
}
