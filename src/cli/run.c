// SPDX-License-Identifier: GPL-2.0-or-later
/* A run: pick and open the backend, set up the analyzer, trace the window, restore. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bycgroup.h"
#include "choose.h"
#include "numparse.h"
#include "procfs.h"
#include "privdrop.h"
#include "kfacts.h"
#include "run.h"
#include "sig.h"
#include "timeutil.h"

/* how often the reader wakes when the watermark does not wake it first */
#define READ_PERIOD_MS 100
/* wait past an interval boundary before reading it out, for late commits */
#define BOUNDARY_SLACK_NS (3 * 1000 * 1000ULL)

/* --state letters -> prev_state bits, with this kernel's table */
static int state_filter(const struct trace_opts *o, struct an_cfg *cfg)
{
	const char *p;

	cfg->off_state_all = !o->state;
	if (!o->state)
		return -1;
	for (p = o->state; *p; p++) {
		char one[2] = { *p, 0 };
		uint64_t bit;

		if (*p == ',')
			continue;
		if (*p == 'R') {
			cfg->off_state_r = true;
			continue;
		}
		bit = sched_states_mask(&cfg->states, one);
		if (!bit) {
			usage_err(o->cmd, "--state: '%c' is not a task state on this kernel "
				  "(see the letters sched_switch prints for prev_state)", *p);
			return EXIT_USAGE;
		}
		cfg->off_state_bits |= bit;
	}
	return -1;
}

/*
 * A recording's own tgid list first, then /proc; a thread gone since
 * belongs to -p's process if it had it
 */
static int32_t run_tgid(int32_t tid, void *arg)
{
	const struct run *r = arg;
	int32_t tgid;
	unsigned i;

	if (r->o->replay_path) {
		/* the recording's saved_tgids alone: this host's /proc holds
		 * other threads under the same numbers (fixtures, other hosts,
		 * reused tids), so a recording without them knows no processes */
		tgid = r->ops->task_tgid ? r->ops->task_tgid(r->b, tid) : -1;
		return tgid >= 0 ? tgid : -1;
	}
	if (r->host_pids)
		return -1;	/* the host's pids: /proc here names other tasks so */
	tgid = proc_tgid(tid, NULL);
	for (i = 0; tgid < 0 && i < r->nstart_tids; i++)
		if (r->start_tids[i] == tid)
			tgid = r->o->pid;
	return tgid;
}

/* a process's name: from /proc while it lives (live runs only) */
static int run_comm(int32_t pid, char *buf, size_t len, void *arg)
{
	const struct run *r = arg;

	if (r->o->replay_path)	/* the recording's saved_cmdlines, never this host's /proc */
		return r->ops->task_comm ? r->ops->task_comm(r->b, pid, buf, len) : -ENOENT;
	if (r->host_pids)
		return -ENOENT;	/* the host's pids: /proc here names other tasks so */
	return proc_comm(pid, buf, len);
}

/* OFFCPU_FTRACE_DEBUG_TID=N: every event that names thread N, on stderr */
static void debug_event(const struct run *r, const struct sched_event *ev)
{
	char st[16];

	if (ev->pid != r->debug_tid && ev->next_pid != r->debug_tid &&
	    ev->common_pid != r->debug_tid)
		return;
	fprintf(stderr, "debug: %llu.%09llu cpu%d current=%d %s pid=%d",
		(unsigned long long)(ev->ts / 1000000000ULL),
		(unsigned long long)(ev->ts % 1000000000ULL), ev->cpu, ev->common_pid,
		sched_ev_name(ev->type), ev->pid);
	if (ev->type == SEV_SWITCH)
		fprintf(stderr, " state=%s next=%d",
			sched_state_str(&r->an.cfg.states, ev->prev_state, st, sizeof(st)),
			ev->next_pid);
	else if (sched_ev_is_stack(ev->type))
		fprintf(stderr, " frames=%u", ev->stack_depth);
	else if (ev->type == SEV_CGROUP_ATTACH || ev->type == SEV_CGROUP_TRANSFER)
		fprintf(stderr, " root=%d path=%s", ev->cg_root, ev->cg_path ? ev->cg_path : "?");
	fputc('\n', stderr);
}

/* an analysis that streams (runq --slower): what it has, to standard output */
static void run_stream(struct run *r)
{
	struct an_view v;

	if (!r->o->an->stream || r->o->output_path)
		return;
	run_view(r, &v);
	r->o->an->stream(r->an_state, &v, stdout);
	r->since_stream = 0;
}

/* events between two stream() calls inside one read (a recording's) */
#define STREAM_EVENTS 4096

static void on_event(const struct sched_event *ev, void *arg)
{
	struct run *r = arg;

	if (r->debug_tid > 0)
		debug_event(r, ev);
	/* maps are read when a process is first seen, so one that exits
	 * before the window ends still resolves */
	if ((ev->type == SEV_USTACK || (ev->type == SEV_SAMPLE && ev->ustack_depth)) &&
	    r->usyms && ev->next_pid > 0)
		usyms_snapshot(r->usyms, ev->next_pid);
	analyzer_feed(&r->an, ev);
	if (r->stream_on && ++r->since_stream >= STREAM_EVENTS)
		run_stream(r);
}

/* After the window: the kernel's sums, or the rest of the event stream. */
static int collect_or_drain(struct run *r)
{
	char err[512];
	int ret;

	if (r->ops->collect) {
		ret = r->ops->collect(r->b, &r->an, err, sizeof(err));
		if (ret)
			err_msg("%s", err);
		return ret;
	}
	ret = r->ops->read(r->b, UINT64_MAX, true, on_event, r);
	if (ret) {
		err_msg("reading the trace buffers failed: %s", strerror(-ret));
		return ret;
	}
	analyzer_finish(&r->an);
	return 0;
}

/* record: the trace.dat gets the window's metadata, then its final name */
void run_window_meta(struct run *r, struct backend_window *m, uint64_t *lost)
{
	memset(m, 0, sizeof(*m));
	m->clock = r->clock;
	m->ncpu = r->ops->lost(r->b, lost, RUN_MAX_CPUS);
	m->lost_per_cpu = lost;
	m->kernel_stacks = r->o->kstack;
	m->recovered = r->ops->recovered ? r->ops->recovered(r->b) : 0;
	if (r->ops->task_lists)
		r->ops->task_lists(r->b, &m->cmdlines, &m->tgids);
	/* the scope, so that a report shows what this run would have */
	if (r->have_child) {
		snprintf(m->scope.kind, sizeof(m->scope.kind), "command");
		m->scope.id = r->child.pid;
		shell_quote_argv(m->scope.command, sizeof(m->scope.command), r->o->command, 200);
	} else if (r->o->pid >= 0 || r->o->tid >= 0) {
		snprintf(m->scope.kind, sizeof(m->scope.kind), r->o->pid >= 0 ? "pid" : "tid");
		m->scope.id = r->o->pid >= 0 ? r->o->pid : r->o->tid;
	} else {
		snprintf(m->scope.kind, sizeof(m->scope.kind), "all");
	}
	m->scope.recorder = (int32_t)getpid();
	m->plan_backend = r->plan_events ? r->ops->name : NULL;
	m->plan_events = r->plan_events;
	/*
	 * how far the CPU-state model trusted the switches when the run
	 * began: a report finds what it found, where it found it
	 */
	m->switches = r->trust == CS_COMPLETE ? BK_SW_ALL :
		      r->trust == CS_SELECTED ? BK_SW_SELECTED : BK_SW_LOSSY;
	if (r->proc_ok && !r->o->flight.keep_ns) {
		unsigned i;

		/* each CPU's idle time over the whole window (not a flight window's) */
		for (i = 0; i < (unsigned)r->proc_n; i++)
			r->proc_iv[i] = r->proc_now[i] > r->proc_start[i] ?
					r->proc_now[i] - r->proc_start[i] : 0;
		m->proc_idle = r->proc_iv;
		m->proc_listed = r->proc_listed;
		m->nproc = (unsigned)r->proc_n;
	}
	/* --by cgroup: its threads' cgroups, so that report can key on them */
	free(r->cg_dump);
	r->cg_dump = by_cgroup_dump(&r->bycg);
	if (r->cg_dump) {
		by_cgroup_describe(&r->bycg, r->cg_keyed, sizeof(r->cg_keyed));
		m->cgroups = r->cg_dump;
		m->cgroups_keyed = r->cg_keyed;
	}
}

static int finish_record(struct run *r, uint64_t start_ns, uint64_t end_ns)
{
	uint64_t lost[RUN_MAX_CPUS];
	struct backend_window m;
	char err[512] = "";
	int ret;

	if (!r->rec)
		return 0;
	run_window_meta(r, &m, lost);
	if (r->mono) {
		m.start_ns = start_ns;
		m.end_ns = end_ns;
	}
	/* the pages being filled (perf), then the file */
	ret = r->ops->flush_pages ? r->ops->flush_pages(r->b) : 0;
	if (ret) {
		err_msg("cannot write %s: %s", r->o->record_path, strerror(-ret));
		return ret;
	}
	ret = recorder_close(r->rec, &m, err, sizeof(err));
	r->rec = NULL;
	if (ret) {
		err_msg("%s", err);
		return ret;
	}
	if (r->o->record_only) {
		uint64_t n = 0, l = 0;
		unsigned t;

		for (t = 0; t < SEV_NTYPES; t++)
			n += r->an.counts.events[t];
		for (t = 0; t < m.ncpu; t++)
			l += lost[t];
		r->lost_total = l;	/* --strict: no print_interval() counted it */
		fprintf(stderr, "offcpu-ftrace: recorded %.3f s, %llu events (%llu lost) to %s\n",
			(double)(end_ns - start_ns) / 1e9, (unsigned long long)n,
			(unsigned long long)l, r->o->record_path);
	}
	return 0;
}

/* --strict: why the results are partial, and what to do, in one line */
static void strict_msg(const struct run *r, const char *where)
{
	if (r->lost_total)
		err_msg("results are partial (--strict): %llu event%s lost%s%s%s",
			(unsigned long long)r->lost_total, r->lost_total == 1 ? " was" : "s were", *where ? " " : "", where,
			*where ? "" : "; use a larger --buffer-size");
	else if (r->rejected_total)
		err_msg("results are partial (--strict): %llu record%s of %s cannot be true "
			"(skipped): is the file corrupt?", (unsigned long long)r->rejected_total,
			r->rejected_total == 1 ? "" : "s", r->o->replay_path);
	else if (r->late_total || r->negative_total)
		err_msg("results are partial (--strict): %llu event%s out of time order, %llu "
			"interval%s ending before %s began%s%s", (unsigned long long)r->late_total,
			r->late_total == 1 ? "" : "s", (unsigned long long)r->negative_total,
			r->negative_total == 1 ? "" : "s", r->negative_total == 1 ? "it" : "they",
			*where ? " " : "", where);
	else if (r->an_ok && r->an.counts.follow_overflow)
		err_msg("results are partial (--strict): %llu new task%s of the command %s not "
			"followed%s%s: the follow set holds twice --max-tasks (raise --max-tasks)",
			(unsigned long long)r->an.counts.follow_overflow,
			r->an.counts.follow_overflow == 1 ? "" : "s",
			r->an.counts.follow_overflow == 1 ? "was" : "were", *where ? " " : "", where);
	else if (r->partial_cpu_only == r->partial_total)
		err_msg("results are partial (--strict): the trace%s%s did not show whether some "
			"CPUs were idle (the footer says how much, and the bounds of what depends "
			"on it; 'offcpu-ftrace info' says which backend is exact here)",
			*where ? " " : "", where);
	else
		err_msg("results are partial (--strict): switches or wakeups of the selected "
			"threads are missing from the trace%s%s (the footer counts them; "
			"'offcpu-ftrace info' says which backend is exact here)",
			*where ? " " : "", where);
}

/* report: the recording is the window, read in one pass */
static int replay_loop(struct run *r)
{
	struct backend_window w = { 0 };
	int ret;

	ret = r->ops->start(r->b);
	if (r->ops->recording && !r->ops->recording(r->b, &w)) {
		r->start_ns = w.start_ns;
		analyzer_window_start(&r->an, w.start_ns);
		/* /proc/stat's idle time in the recorded window, if it kept it */
		if (w.proc_idle && w.nproc) {
			r->proc_n = (int)(w.nproc < RUN_MAX_CPUS ? w.nproc : RUN_MAX_CPUS);
			memcpy(r->proc_now, w.proc_idle, (size_t)r->proc_n * sizeof(*r->proc_now));
			memcpy(r->proc_listed, w.proc_listed,
			       (size_t)r->proc_n * sizeof(*r->proc_listed));
			r->proc_ok = true;	/* from 0 (proc_prev) */
		}
		if (w.extra)
			note_msg("%s is a flight recording: %.3f s, trace time %.6f to %.6f s, "
				 "saved on %s", r->o->replay_path,
				 (double)(w.end_ns - w.start_ns) / 1e9, (double)w.start_ns / 1e9,
				 (double)w.end_ns / 1e9, w.extra);
	}
	r->stream_on = r->o->an->stream && !r->o->output_path;
	if (!ret)
		ret = r->ops->read(r->b, UINT64_MAX, true, on_event, r);
	if (ret) {
		err_msg("cannot read %s: %s", r->o->replay_path, strerror(-ret));
		return EXIT_FAIL;
	}
	analyzer_finish(&r->an);
	if (!r->mono)
		note_msg("%s was recorded with the %s clock%s", r->o->replay_path, r->clock,
			!strcmp(r->clock, "local") ? ": not synchronized across CPUs, so "
			"waits that migrate between CPUs are skewed" : "");
	r->iv_start_ns = w.start_ns;
	r->iv_end_ns = w.end_ns;
	ret = run_print_interval(r, 1, w.end_ns > w.start_ns ? w.end_ns - w.start_ns : 0, true);
	if (ret)
		return EXIT_OUTPUT;	/* said */
	if (r->o->strict && (r->lost_total || r->partial_total)) {
		strict_msg(r, "in the recording");
		return EXIT_PARTIAL;
	}
	return EXIT_OK;
}

/*
 * What this run saw of the kernel, kept for the boot (kfacts.h) so that
 * later runs choose the exact path at once: a switch missing from a trace
 * that lost no event (every event names its CPU's task, so the analyzer
 * sees the gap), or switches only perf's context-switch records had
 * (beyond one a CPU at each end of the window, where the tracepoint and
 * the records are turned on and off one after the other).
 */
static void note_kernel_loss(struct run *r)
{
	uint64_t missed = r->an.counts.missed_switch, rec;
	char d[256];

	if (r->loss_noted || r->o->replay_path || r->lost_total || r->o->comm[0] ||
	    !kfacts_path())
		return;
	rec = r->ops->recovered ? r->ops->recovered(r->b) : 0;
	if (missed)
		snprintf(d, sizeof(d), "%s on the %s backend, pid %d: %llu context switch%s "
			 "missing from a trace that lost no event", r->o->an->name, r->ops->name,
			 (int)getpid(), (unsigned long long)missed, missed == 1 ? "" : "es");
	else if (rec > 2 * (uint64_t)(r->ncpu ? r->ncpu : 1))
		snprintf(d, sizeof(d), "%s on the %s backend, pid %d: %llu context switches "
			 "in perf's records and not at the tracepoint", r->o->an->name,
			 r->ops->name, (int)getpid(), (unsigned long long)rec);
	else
		return;
	r->loss_noted = true;
	kfacts_note_loss(kfacts_path(), "run", d);
}

const char *run_what(const struct trace_opts *o)
{
	return o->an->what(o);
}

/* "tracing ... Hit Ctrl-C to end." on stderr: tests and users wait for it */
static void print_banner(const struct run *r, const char *what)
{
	const struct trace_opts *o = r->o;

	if (r->have_child)
		fprintf(stderr, "offcpu-ftrace: tracing %s of %s and its descendants (backend "
			"%s, clock %s)... Hit Ctrl-C to end.\n", what, o->command[0],
			r->ops->name, r->clock);
	else if (o->interval_mode)
		fprintf(stderr, "offcpu-ftrace: tracing %s, every %.6g s (backend %s, clock %s)"
			"... Hit Ctrl-C to end.\n", what, (double)o->duration_ns / 1e9,
			r->ops->name, r->clock);
	else if (o->duration_ns)
		fprintf(stderr, "offcpu-ftrace: tracing %s for %.6g s (backend %s, clock %s)"
			"... Hit Ctrl-C to end.\n", what,
			(double)o->duration_ns / 1e9 * (double)o->count, r->ops->name, r->clock);
	else
		fprintf(stderr, "offcpu-ftrace: tracing %s (backend %s, clock %s)"
			"... Hit Ctrl-C to end.\n", what, r->ops->name, r->clock);
}

static int trace_loop(struct run *r)
{
	const struct trace_opts *o = r->o;
	uint64_t iv_start, iv_end, now, window_start;
	unsigned n;
	int ret;

	ret = r->ops->start(r->b);
	if (ret) {
		const char *why = r->ops->why ? r->ops->why(r->b) : NULL;

		if (why && *why)
			err_msg("cannot turn tracing on: %s", why);
		else
			err_msg("cannot turn tracing on: %s", strerror(-ret));
		return EXIT_FAIL;
	}
	/*
	 * what file capabilities gave for the start is not needed after it:
	 * the events are open (CAP_PERFMON) and their formats read
	 * (CAP_DAC_READ_SEARCH, still needed where a flight recorder reads
	 * them again for each file it saves); CAP_SYSLOG stays, for naming
	 * kernel frames (SECURITY in offcpu-ftrace(8))
	 */
	ret = priv_drop(PRIV_PERFMON | (o->flight.keep_ns ? 0 : PRIV_DAC_READ_SEARCH));
	if (ret) {
		err_msg("cannot give up CAP_PERFMON and CAP_DAC_READ_SEARCH after the start "
			"(capset: %s)", strerror(-ret));
		return EXIT_FAIL;
	}
	iv_start = window_start = r->start_ns = mono_ns();
	run_whole_start(r);
	r->steal_ok = !proc_steal_ns(&r->steal_prev);	/* the hypervisor's, from now */
	/* each CPU's idle time, from now: the CPU-state model's check and bounds */
	r->proc_n = proc_cpu_idle(r->proc_start, r->proc_listed, RUN_MAX_CPUS);
	r->proc_ok = r->proc_n > 0;
	memcpy(r->proc_prev, r->proc_start, sizeof(r->proc_prev));
	if (r->mono)
		analyzer_window_start(&r->an, window_start);
	r->stream_on = o->an->stream && !o->output_path;
	if (o->an->begin) {
		struct an_view v;

		run_view(r, &v);
		o->an->begin(r->an_state, &v);
	}
	/*
	 * a wait the trace cannot time (lost events; a kernel that loses what
	 * an idle CPU does) is still in its thread's run_delay: every
	 * thread's, from now, says how much such waits hold
	 */
	if (!r->host_pids && (o->modes & AN_RUNQ) && !r->ops->collect && !r->ops->sampling &&
	    unsized_start(&r->unsized, &r->an))
		note_msg("cannot follow the threads' schedstat: waits not measured stay unsized");
	if (!o->quiet)
		print_banner(r, run_what(o));
	progress_init(&r->progress, window_start,
		      o->command || !o->duration_ns || o->count == UINT64_MAX ? 0 :
		      o->duration_ns * o->count, o->quiet);
	if (r->have_child) {
		char err[256];

		ret = child_release(&r->child, o->command[0], err, sizeof(err));
		if (ret) {
			err_msg("%s", err);
			r->ops->stop(r->b);
			return 127;	/* as a shell says "command not found" */
		}
	}
	for (n = 1;; n++) {
		bool last = !o->duration_ns || n == o->count;

		iv_end = o->duration_ns ? iv_start + o->duration_ns : UINT64_MAX;
		while (!sig_count && (now = mono_ns()) < iv_end && !r->flight.done &&
		       !(r->have_child && child_exited(&r->child))) {
			uint64_t left_ms = (iv_end - now) / 1000000;

			if (left_ms < 2) {
				/* finish the window exactly, not at the next poll tick */
				sleep_until_ns(iv_end);
				continue;
			}
			r->ops->wait(r->b, late_stacks_wait_ms(&r->late, now,
							       left_ms > READ_PERIOD_MS ? READ_PERIOD_MS
							       : (int)left_ms - 1));
			ret = r->ops->read(r->b, r->mono ? iv_end : UINT64_MAX, false,
					   on_event, r);
			unsized_tick(&r->unsized);	/* exits, as they come */
			if (r->stream_on)
				run_stream(r);
			late_stacks_tick(&r->late, &r->an, mono_ns());
			progress_tick(&r->progress, mono_ns());
			if (ret) {
				err_msg("reading the trace buffers failed: %s", strerror(-ret));
				return EXIT_FAIL;
			}
			if (flight_tick(r, mono_ns(), r->mono ? iv_end : UINT64_MAX, on_event))
				return EXIT_FAIL;
		}
		progress_clear(&r->progress);
		/* the interval's end: each CPU's idle time now, as close to it as can be */
		if (r->proc_ok && proc_cpu_idle(r->proc_now, r->proc_listed, RUN_MAX_CPUS) != r->proc_n)
			r->proc_ok = false;	/* CPUs came or went: not comparable */
		if (last || sig_count || r->flight.done || (r->have_child && r->child.done)) {
			ret = r->ops->stop(r->b);
			now = mono_ns();
			if (ret) {
				err_msg("cannot turn tracing off: %s", strerror(-ret));
				return EXIT_FAIL;
			}
			if (sig_count >= 2)
				return 128 + sig_last;	/* asked twice: restore, no output */
			ret = collect_or_drain(r);
			if (ret)
				return EXIT_FAIL;
			/* its final counters are read: collect it, and its CPU time */
			if (r->have_child)
				child_reap(&r->child);
			if (sig_count >= 2)
				return 128 + sig_last;
			if (o->record_path && !o->flight.keep_ns &&
			    finish_record(r, window_start, now))
				return EXIT_OUTPUT;
			if (flight_finish(r, now))
				return EXIT_FAIL;
			r->iv_start_ns = r->mono ? iv_start : 0;
			r->iv_end_ns = r->mono ? now : 0;
			run_whole_end(r, now - window_start);
			ret = o->record_only ? 0 : run_print_interval(r, n, now - iv_start, true);
			note_kernel_loss(r);
			break;
		}
		/* interval boundary: everything up to iv_end, then the report */
		if (r->ops->collect) {
			/* the kernel's sums: pause, read and clear, continue */
			char err[512] = "";

			r->ops->stop(r->b);
			ret = r->ops->collect(r->b, &r->an, err, sizeof(err));
			if (ret) {
				err_msg("%s", err);
				return EXIT_FAIL;
			}
			ret = r->ops->start(r->b);
			if (ret) {
				const char *why = r->ops->why ? r->ops->why(r->b) : NULL;

				err_msg("cannot continue tracing: %s", why && *why ? why :
					strerror(-ret));
				return EXIT_FAIL;
			}
		} else {
			sleep_until_ns(iv_end + BOUNDARY_SLACK_NS);
			ret = r->ops->read(r->b, r->mono ? iv_end : UINT64_MAX, false,
					   on_event, r);
			if (ret) {
				err_msg("reading the trace buffers failed: %s", strerror(-ret));
				return EXIT_FAIL;
			}
		}
		r->iv_start_ns = r->mono ? iv_start : 0;
		r->iv_end_ns = r->mono ? iv_end : 0;
		ret = run_print_interval(r, n, iv_end - iv_start, false);
		if (ret)
			break;
		note_kernel_loss(r);
		analyzer_next_interval(&r->an);
		iv_start = iv_end;
	}
	if (ret)
		return EXIT_OUTPUT;	/* said: the results could not be written */
	if (o->strict && (r->lost_total || r->partial_total)) {
		strict_msg(r, "");
		return EXIT_PARTIAL;
	}
	return EXIT_OK;
}


/* --xval: bpftrace attached before our window starts; failures only warn */
static void start_xval(struct run *r, const struct an_cfg *cfg)
{
	char err[512];
	char *prog = xval_program(r->o, cfg->states.preempt_mask,
				  sched_states_mask(&cfg->states, "XZ"), cfg->off_state_bits,
				  err, sizeof(err));

	if (prog && xval_start(&r->xval, prog, err, sizeof(err)) == 0) {
		free(prog);
		return;
	}
	free(prog);
	err_msg("--xval: %s; only offcpu-ftrace's result will be shown", err);
}


/* How far the CPU-state model can trust the trace's switches (cpustate.h). */
static enum cs_trust run_trust(const struct run *r)
{
	switch (r->ops->switches ? r->ops->switches(r->b) : BK_SW_TRACEPOINT) {
	case BK_SW_ALL:
		return CS_COMPLETE;
	case BK_SW_SELECTED:
		return CS_SELECTED;
	case BK_SW_LOSSY:
		return CS_LOSSY;
	default:
		/* the tracepoint's: this kernel's losses, as the drop probe saw them */
		return r->drops_none ? CS_COMPLETE : CS_LOSSY;
	}
}

/* The analyzer as @o asks, on this backend's state table. EXIT_* or -1. */
static int analyzer_from_opts(struct run *r, struct an_cfg *cfg)
{
	const struct trace_opts *o = r->o;
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	cfg->modes = o->modes;
	cfg->compat = o->compat;
	cfg->unit_ns = o->msecs ? 1000000 : 1000;
	cfg->pid = o->pid;
	cfg->tid = o->tid;
	memcpy(cfg->comm, o->comm, COMM_LEN);
	cfg->off_min_ns = o->min_us * 1000;
	cfg->off_max_ns = o->max_us == UINT64_MAX ? UINT64_MAX : o->max_us * 1000;
	cfg->states = *r->ops->states(r->b);
	cfg->max_tasks = o->max_tasks;
	cfg->max_groups = o->max_groups;
	cfg->stacks = (o->kstack ? AN_KSTACK : 0) | (o->ustack ? AN_USTACK : 0);
	if (r->have_child) {
		cfg->follow = &r->child.pid;
		cfg->nfollow = 1;
	} else if (r->scope_applied && !strcmp(r->rscope.kind, "command")) {
		cfg->follow = &r->rscope.id;
		cfg->nfollow = 1;
	} else if (r->scope_applied) {
		cfg->pid = !strcmp(r->rscope.kind, "pid") ? r->rscope.id : -1;
		cfg->tid = !strcmp(r->rscope.kind, "tid") ? r->rscope.id : -1;
	}
	if (o->cgroup) {
		cfg->in_cgroup = cgroup_sel_has;
		cfg->cgroup_arg = &r->cg;
	}
	if (r->bycg.on) {
		cfg->cgroup_of = by_cgroup_id;
		cfg->cgroup_names = by_cgroup_names;
		cfg->cgroup_moved = by_cgroup_moved;
		cfg->group_arg = &r->bycg;
	}
	cfg->max_stacks = o->max_stacks;
	r->trust = run_trust(r);
	cfg->cpu_trust = r->trust;
	cfg->ncpu = r->ops->lost(r->b, r->lost_now, RUN_MAX_CPUS);
	/* events traced: a sampling or aggregating backend has no CPU state to show */
	cfg->cpu_state = an_cpu_state(o) && (r->ops->caps & BCAP_EVENTS);
	cfg->tgid_of = run_tgid;
	cfg->comm_of = run_comm;
	cfg->tgid_arg = r;
	ret = state_filter(o, cfg);
	if (ret >= 0)
		return ret;
	if (o->an->configure)
		o->an->configure(o, cfg);
	ret = analyzer_init(&r->an, cfg);
	if (ret) {
		err_msg("cannot allocate state for %u tasks: %s", o->max_tasks, strerror(-ret));
		return EXIT_FAIL;
	}
	r->an_ok = true;
	ret = o->an->setup ? o->an->setup(o, &r->an, &r->an_state) : 0;
	if (ret) {
		err_msg("cannot set up the %s analysis: %s", o->an->name, strerror(-ret));
		return EXIT_FAIL;
	}
	ret = flight_setup(r);
	if (ret == -ENOTSUP) {
		err_msg("--flight times its triggers and window in the mono trace clock, which "
			"this backend does not trace in here (clock %s)", r->clock);
		return EXIT_FAIL;
	}
	if (ret) {
		err_msg("cannot set up the flight recorder: %s", strerror(-ret));
		return EXIT_FAIL;
	}
	return -1;
}

/*
 * -o FILE and the recording can be written, and neither is the recording
 * read: found out now, not after a long window. r->out is ready for the
 * run (out_close() at its end). -1, or the exit status (said).
 */
static int check_output(struct run *r)
{
	const struct trace_opts *o = r->o;
	const char *inputs[] = { o->replay_path, NULL };
	unsigned check = o->dry_run ? OUT_CHECK_ONLY : 0;
	char err[512];
	struct out t;
	int ret;

	if (o->record_path && !o->record_only && o->output_path &&
	    !strcmp(o->output_path, o->record_path)) {
		usage_err(o->cmd, "-o and --record name the same file, %s: give two",
			  o->record_path);
		return EXIT_USAGE;
	}
	/* the recording's first: -o's device or FIFO is opened last, for the run */
	ret = o->record_path ? out_open(&t, o->record_path, inputs,
					OUT_CHECK_ONLY | OUT_RECORDING, err, sizeof(err)) : 0;
	if (!ret)
		ret = out_open(&r->out, o->record_only ? NULL : o->output_path, inputs, check,
			       err, sizeof(err));
	if (!ret)
		return -1;
	err_msg("%s", err);
	return ret == -EINVAL ? EXIT_USAGE : EXIT_OUTPUT;
}


/* -- COMMAND: its exit status becomes ours once the window is closed. */
static int child_finish(struct run *r, int status)
{
	int cs;

	if (!r->have_child)
		return status;
	if (r->child.go_fd >= 0) {
		/* never released: setup failed, the command never ran */
		child_abort(&r->child);
		return status;
	}
	if (!r->child.done && sig_count)
		kill(r->child.pid, sig_last);
	cs = child_wait(&r->child);
	overhead_link_tell(&r->child, cs, r->ops ? r->ops->name : NULL);
	return status == EXIT_OK ? cs : status;
}

int run_trace(const struct trace_opts *o)
{
	char err[BACKEND_ERRLEN] = "", why[512];
	struct run *r = calloc(1, sizeof(*r));
	struct trace_req req;
	struct an_cfg cfg;
	int status;

	if (!r) {
		err_msg("out of memory");
		return EXIT_FAIL;
	}
	r->o = o;
	if (o->record_path && backend_ops_named(o->backend) &&
	    !(backend_ops_named(o->backend)->caps & BCAP_RECORD)) {
		usage_err(o->cmd, "%s: recordings are made by the ring or perf backend, not %s",
			  o->record_only ? "record" : "--record", o->backend);
		free(r);
		return EXIT_USAGE;
	}
	/* before the command is spawned: it must not inherit overhead's pipe */
	overhead_link_take();
	if (o->command && child_can_exec(o->command[0], why, sizeof(why))) {
		err_msg("%s", why);
		free(r);
		return 127;	/* as a shell says "command not found" */
	}
	if (getenv("OFFCPU_FTRACE_DEBUG_TID"))
		parse_pid(getenv("OFFCPU_FTRACE_DEBUG_TID"), &r->debug_tid);
	if (o->late_stacks && geteuid() != 0) {
		err_msg("--late-stacks reads /proc/TID/stack, which only root can: run as root, "
			"or drop --late-stacks");
		free(r);
		return EXIT_FAIL;
	}
	status = check_output(r);
	if (status >= 0) {
		free(r);
		return status;
	}
	if (!o->replay_path)
		cli_tracefs_ready(o->tracefs);
	if (!run_pick_backend(r, o)) {
		out_close(&r->out);
		free(r);
		return EXIT_FAIL;
	}
	if (o->late_stacks && r->ops->kframe) {
		/* its frames are its own tokens, not kernel addresses */
		err_msg("--late-stacks is for the ring and perf backends: %s samples its stacks "
			"itself (drop --late-stacks)", r->ops->name);
		out_close(&r->out);
		free(r);
		return EXIT_FAIL;
	}
	if (o->dry_run) {
		status = run_dry_run(r);
		by_cgroup_close(&r->bycg);
		out_close(&r->out);
		free(r);
		return status;
	}
	status = run_request(r, &req);
	/* the plan it runs, for the recording's metadata: the one --dry-run prints */
	if (status < 0 && o->record_path && !(r->plan_events = run_plan_events(r, &req))) {
		err_msg("out of memory");
		status = EXIT_FAIL;
	}
	if (status < 0) {
		run_say_pick(r);
		status = run_setup_symbols(r);
	}
	if (status >= 0)
		goto out_free;
	sig_setup();
	status = run_open_backend(r, &req);
	if (status < 0 && o->replay_path)
		status = run_recorded_scope(r);
	if (status < 0)
		status = analyzer_from_opts(r, &cfg);
	if (status < 0 && o->late_stacks &&
	    late_stacks_setup(&r->late, o->min_us, r->ksyms, r->mono))
		status = EXIT_FAIL;
	if (status < 0) {
		if (o->xval)
			start_xval(r, &cfg);
		status = o->replay_path ? replay_loop(r) : trace_loop(r);
	}
	/* a recording not finished leaves no file; the flight store goes */
	recorder_abort(r->rec);
	r->rec = NULL;
	if (r->ops->close(r->b, err, sizeof(err))) {
		err_msg("%s", err);
		if (status == EXIT_OK)
			status = EXIT_FAIL;
	}
	if (r->an_ok)
		analyzer_fini(&r->an);
out_free:
	status = child_finish(r, status);
	xval_free(r->xval);
	if (o->an->free)
		o->an->free(r->an_state);
	unsized_free(&r->unsized);
	by_cgroup_close(&r->bycg);
	free(r->cg_dump);
	free(r->plan_events);
	ksyms_free(r->ksyms);
	usyms_free(r->usyms);
	free(r->tids);
	free(r->snap);
	free(r->whole);
	out_close(&r->out);
	free(r);
	return status;
}
