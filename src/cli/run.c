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
#include "escape.h"
#include "run.h"
#include "svg.h"
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
		return EXIT_FAIL;	/* said */
	if (r->o->strict && (r->lost_total || r->partial_total)) {
		strict_msg(r, "in the recording");
		return EXIT_PARTIAL;
	}
	return EXIT_OK;
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
	r->steal_ok = !proc_steal_ns(&r->steal_prev);	/* the hypervisor's, from now */
	r->stream_on = o->an->stream && !o->output_path;
	if (o->an->begin) {
		struct an_view v;

		run_view(r, &v);
		o->an->begin(r->an_state, &v);
	}
	/*
	 * where the kernel loses what an idle CPU does, some waits cannot be
	 * timed: the threads' own run_delay from now says how much they hold
	 */
	if (r->drops_possible && (o->modes & AN_RUNQ) && !o->interval_mode && o->count == 1 &&
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
				return EXIT_FAIL;
			if (flight_finish(r, now))
				return EXIT_FAIL;
			r->iv_start_ns = r->mono ? iv_start : 0;
			r->iv_end_ns = r->mono ? now : 0;
			ret = o->record_only ? 0 : run_print_interval(r, n, now - iv_start, true);
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
		analyzer_next_interval(&r->an);
		iv_start = iv_end;
	}
	if (ret)
		return EXIT_FAIL;	/* said */
	if (o->strict && (r->lost_total || r->partial_total)) {
		strict_msg(r, "");
		return EXIT_PARTIAL;
	}
	return EXIT_OK;
}

enum hist_refusal run_hist_refusal(const struct trace_opts *o)
{
	enum hist_refusal an = an_hist(o);

	if (an != HIST_CAN)
		return an;
	if (o->comm[o->comm[0] ? strspn(o->comm, HIST_COMM_CHARS) : 0])
		return HIST_NO_COMM;
	if (o->cgroup)
		return HIST_NO_CGROUP;
	if (o->key == KEY_CGROUP)
		return HIST_NO_BY_CGROUP;
	if (o->command)
		return HIST_NO_COMMAND;
	if (o->record_path)
		return HIST_NO_RECORD;
	return HIST_CAN;
}

/* The backend for @o, with the notes a user should see; false: none. */
static bool pick_backend(struct run *r, const struct trace_opts *o)
{
	struct host_caps *caps;
	struct choice ch;

	if (o->replay_path) {
		r->ops = backend_ops_of(BK_FILE);
		return true;
	}
	caps = calloc(1, sizeof(*caps));
	if (!caps) {
		err_msg("out of memory");
		return false;
	}
	/*
	 * the drop probe: for auto's choice, and for runq's waits on ring or
	 * perf, which take sched_waking where the kernel loses wakeups
	 */
	host_caps_probe(o->tracefs, !strcmp(o->backend, "auto") ||
			((o->modes & AN_RUNQ) && (!strcmp(o->backend, "ring") ||
						  !strcmp(o->backend, "perf"))), caps);
	if (o->an->flags & AN_F_SAMPLES)
		backend_choose_sampling(caps, o->backend, run_hist_refusal(o), &ch);
	else
		backend_choose(caps, o->backend, run_hist_refusal(o), &ch);
	/* losses seen, or not ruled out on a busy host: fill from sched_waking */
	r->drops_possible = caps->drops == DROPS_SEEN || caps->drops == DROPS_BUSY;
	if (caps->stale > 0) {
		char stale[400];

		host_caps_stale_text(caps, stale, sizeof(stale));
		err_msg("warning: %s", stale);
	}
	free(caps);
	r->ops = backend_ops_of(ch.kind);
	if (!r->ops) {
		err_msg("%s", ch.why);
		return false;
	}
	if (o->record_path && ch.kind != BK_RING && ch.kind != BK_PERF) {
		err_msg("a recording needs traced events (the ring or perf backend): %s; run as "
			"root, or with CAP_PERFMON ('offcpu-ftrace info' says what is missing)", ch.why);
		return false;
	}
	if (ch.kind == BK_PROC && (o->an->flags & AN_F_TRACED)) {
		/* sampling has totals, not the single events it lists or follows */
		err_msg("%s needs traced sched events, not available unprivileged: the proc "
			"backend samples /proc totals (%s); run as root, or with CAP_PERFMON "
			"for the perf backend ('offcpu-ftrace info' says what is missing)",
			run_what(o), ch.why);
		return false;
	}
	if (!strcmp(o->backend, "auto"))
		snprintf(r->why, sizeof(r->why), "%s", ch.why);
	if (ch.reason == CHOSEN_PERF || ch.reason == CHOSEN_DROPS || ch.reason == CHOSEN_SAMPLES)
		snprintf(r->pick_note, sizeof(r->pick_note), "using the perf backend: %s", ch.why);
	else if (ch.reason == CHOSEN_RING && ch.hist_refused != HIST_CAN)
		snprintf(r->pick_note, sizeof(r->pick_note), "using the ring backend, not the "
			 "kernel's hist triggers: %s", hist_refusal_text(ch.hist_refused));
	return true;
}

/* The backend choice's note, after the checks that could still refuse the run */
static void say_pick_note(const struct run *r)
{
	if (r->pick_note[0])
		note_msg("%s", r->pick_note);
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

/* The backend's page_sink: the recorder, once it is open */
static int run_page(void *arg, unsigned cpu, const void *page)
{
	struct run *r = arg;

	return recorder_page(r->rec, cpu, page);
}

/* What the backend must trace, from @o; spawns -- COMMAND (held). EXIT_* or -1. */
static int request_from_opts(struct run *r, struct trace_req *req)
{
	const struct trace_opts *o = r->o;
	char err[BACKEND_ERRLEN] = "";
	int ret;

	memset(req, 0, sizeof(*req));
	req->tracefs = o->tracefs;
	req->buffer_kb = o->buffer_kb;
	req->pid = o->pid;
	req->rate_hz = o->rate_hz;
	if (o->pid >= 0) {
		/* in-kernel pre-filter; the analyzer still checks each tgid */
		ret = proc_threads(o->pid, &r->tids);
		if (ret > 0) {
			req->pids = r->start_tids = r->tids;
			req->npids = r->nstart_tids = (unsigned)ret;
			req->follow_fork = true;
		}
	} else if (o->tid >= 0) {
		req->pids = &o->tid;
		req->npids = 1;
	}
	if (o->command) {
		/* held before exec: its pid goes into the kernel's filter first */
		/*
		 * results a program reads, on our stdout: the command's own
		 * output goes to stderr instead of into them
		 */
		bool to_stderr = !o->output_path &&
				 (o->fmt == FMT_JSON || o->fmt == FMT_OPENMETRICS ||
				  o->fmt == FMT_SVG || o->fmt == FMT_BPFTRACE || o->folded);

		ret = child_spawn(&r->child, o->command, to_stderr, err, sizeof(err));
		if (ret) {
			err_msg("%s", err);
			return EXIT_FAIL;
		}
		r->have_child = true;
		req->pids = &r->child.pid;
		req->npids = 1;
		req->follow_fork = true;
		req->fork = true;
	}
	if (o->cgroup && cgroup_sel_open(&r->cg, o->cgroup, err, sizeof(err))) {
		err_msg("%s", err);
		return EXIT_FAIL;
	}
	if (o->key == KEY_CGROUP && !r->bycg.on && !o->replay_path &&
	    by_cgroup_open(&r->bycg, o->cgroup_controller, o->cgroup_depth,
			   o->max_groups < CGROUP_IDS_LIMIT ? o->max_groups : CGROUP_IDS_LIMIT, err,
			   sizeof(err))) {
		err_msg("%s", err);
		return EXIT_FAIL;
	}
	req->comm = o->comm[0] ? o->comm : NULL;
	req->waking = (an_events(o) & (1u << SEV_WAKING)) != 0;
	/*
	 * where this kernel loses the sched_wakeup an idle CPU does, the
	 * sched_waking in the waker's context starts the wait instead
	 */
	if (r->drops_possible && (o->modes & AN_RUNQ))
		req->waking = true;
	req->record_path = o->record_path;
	if (o->record_path) {
		/* the pages go to the recorder, opened once the backend is */
		req->page_sink = run_page;
		req->page_arg = r;
	}
	if (o->flight.keep_ns)
		req->waking = true;	/* as a recording keeps it */
	req->replay_path = o->replay_path;
	req->cgroup_moves = by_cgroup_want_moves(&r->bycg, req);
	req->agg.modes = o->modes;
	req->agg.key = o->key;
	req->agg.unit_ns = o->msecs ? 1000000 : 1000;
	req->agg.off_min_ns = o->min_us * 1000;
	req->agg.off_max_ns = o->max_us == UINT64_MAX ? UINT64_MAX : o->max_us * 1000;
	req->agg.compat = o->compat;
	req->kstack = o->kstack && !o->late_stacks;	/* late: none in the trace */
	/* --wakers -K: the waker's stack at each sched_waking, too */
	req->waking_kstack = req->kstack && o->wakers;
	req->cpu_samples = (an_events(o) & (1u << SEV_SAMPLE)) != 0;
	req->ustack = o->ustack;
	req->stack_states = o->state;
	/* runq (runqslower, runqlen too): preempted or not is all a switch must say */
	req->switch_minimal = o->modes == AN_RUNQ && !o->kstack && !o->ustack && !o->state &&
			      o->compat != COMPAT_BPFTRACE && !o->record_path && !req->cpu_samples &&
			      !o->comm[0];	/* the records carry no names: -c reads them */
	return -1;
}

/*
 * --record, record, --flight: the recorder of the backend's pages (the
 * flight store holds SECS + --after + 1 s, at most eight kernel buffers
 * per CPU by default). EXIT_FAIL or -1.
 */
static int open_recorder(struct run *r)
{
	const struct trace_opts *o = r->o;
	struct backend_rec_src src;
	char err[512] = "";
	uint64_t keep = 0;
	uint32_t kb = 0;

	if (!o->record_path)
		return -1;
	if (!r->ops->rec_source || r->ops->rec_source(r->b, &src)) {
		err_msg("the %s backend cannot record: use --backend=ring or perf", r->ops->name);
		return EXIT_FAIL;
	}
	if (o->flight.keep_ns) {
		keep = o->flight.keep_ns + o->flight.after_ns + 1000000000ULL;
		kb = 8 * (o->buffer_kb ? o->buffer_kb : src.buffer_kb ? src.buffer_kb : 8192);
	}
	if (recorder_open(&r->rec, o->record_path, &src, keep, kb, err, sizeof(err))) {
		err_msg("%s", err);
		return EXIT_FAIL;
	}
	return -1;
}

/* Open the backend and say what it lacks. EXIT_* or -1. */
static int open_backend(struct run *r, const struct trace_req *req)
{
	const struct trace_opts *o = r->o;
	char err[BACKEND_ERRLEN] = "";
	const char *cgn;
	unsigned ev;

	if (r->ops->open(&r->b, req, err, sizeof(err))) {
		err_msg("%s", err);
		return EXIT_FAIL;
	}
	if (r->ops->notice && r->ops->notice(r->b))
		err_msg("%s", r->ops->notice(r->b));
	r->clock = r->ops->clock(r->b, &r->mono);
	ev = r->ops->events(r->b);
	if (o->replay_path && ((o->kstack && !(ev & (1u << SEV_KSTACK))) ||
			       (o->ustack && !(ev & (1u << SEV_USTACK))))) {
		err_msg("%s has no %s stacks: record with 'offcpu-ftrace record %s'",
			o->replay_path, o->kstack && !(ev & (1u << SEV_KSTACK)) ? "kernel" : "user",
			o->kstack ? "-K" : "-U");
		return EXIT_FAIL;
	}
	if (!(ev & (1u << SEV_WAKEUP_NEW)))
		note_msg("this kernel has no sched_wakeup_new event: a new "
			"thread's first wait for a CPU is not counted");
	cgn = by_cgroup_moves_note(&r->bycg, req, ev, r->ops->sampling != NULL);
	if (cgn)
		note_msg("%s", cgn);
	return open_recorder(r);
}

/* report: the scope the recording was made with, unless -p, -t or --all say otherwise */
/*
 * report --by cgroup: keyed on the cgroups the recording holds (a run with
 * --by cgroup and --record or --flight keeps them). -1, or EXIT_FAIL said.
 */
static int recorded_cgroups(struct run *r, const struct backend_window *w)
{
	const struct trace_opts *o = r->o;
	char err[512];

	if (o->key != KEY_CGROUP)
		return -1;
	if (!w->cgroups) {
		err_msg("%s holds no cgroups: a file that keeps them is made by a live analysis "
			"with --by cgroup ('offcpu-ftrace runq --by cgroup --record FILE', or with "
			"--flight), not by record", o->replay_path);
		return EXIT_FAIL;	/* as for a recording without the stacks asked */
	}
	if (by_cgroup_open_recorded(&r->bycg, w->cgroups, w->cgroups_keyed, o->cgroup_depth,
				    o->max_groups < CGROUP_IDS_LIMIT ? o->max_groups :
				    CGROUP_IDS_LIMIT, err, sizeof(err))) {
		err_msg("%s", err);
		return EXIT_FAIL;
	}
	return -1;
}

/* A recording's scope (and its cgroups): -1, or EXIT_* when it cannot be reported as asked. */
static int recorded_scope(struct run *r)
{
	const struct trace_opts *o = r->o;
	const struct rec_scope *s = &r->rscope;
	struct backend_window w;
	bool forks;
	int ret;

	if (!r->ops->recording || r->ops->recording(r->b, &w))
		return recorded_cgroups(r, &(struct backend_window){ 0 });
	r->rscope = w.scope;
	if ((ret = recorded_cgroups(r, &w)) >= 0)
		return ret;
	if (!s->kind[0] || !strcmp(s->kind, "all") || o->all || o->pid >= 0 || o->tid >= 0)
		return -1;
	r->scope_applied = true;
	forks = r->ops->events(r->b) & (1u << SEV_FORK);
	if (!strcmp(s->kind, "command"))
		note_msg("as recorded, only %s and its descendants%s (--all: every thread "
			"in the recording)", s->command[0] ? s->command : "the command",
			forks ? "" : "; the recording has no fork events, so only its first "
			"process");
	else
		note_msg("as recorded, only %s %d (--all: every thread in the recording)",
			!strcmp(s->kind, "pid") ? "process" : "thread", s->id);
	return -1;
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

/* -o FILE and the recording can be written: found out now, not after a long window. */
static int check_output(const struct trace_opts *o)
{
	const char *paths[2] = { o->record_only ? NULL : o->output_path, o->record_path };
	char err[512];
	struct out t;

	for (int i = 0; i < 2; i++) {
		if (!paths[i])
			continue;
		if (out_begin(&t, paths[i], err, sizeof(err))) {
			err_msg("%s", err);
			return EXIT_FAIL;
		}
		out_end(&t, false, err, sizeof(err));
	}
	return -1;
}

/*
 * --dry-run, past the checks run_trace() made (command, output, backend):
 * the cgroup resolves, a recording opens and has what is asked of it;
 * then the plan. Nothing is traced and nothing in tracefs is written.
 */
static int dry_run(struct run *r)
{
	const struct trace_opts *o = r->o;
	char err[BACKEND_ERRLEN] = "";
	int ret;

	if (o->cgroup && cgroup_sel_open(&r->cg, o->cgroup, err, sizeof(err))) {
		err_msg("%s", err);
		return EXIT_FAIL;
	}
	/* --by cgroup: the hierarchy it would key on (said in the plan) */
	if (o->key == KEY_CGROUP && !o->replay_path &&
	    by_cgroup_open(&r->bycg, o->cgroup_controller, o->cgroup_depth, 1, err, sizeof(err))) {
		err_msg("%s", err);
		return EXIT_FAIL;
	}
	say_pick_note(r);
	if (o->replay_path) {
		struct trace_req req = { .replay_path = o->replay_path, .kstack = o->kstack,
					 .ustack = o->ustack };
		unsigned ev;

		if (r->ops->open(&r->b, &req, err, sizeof(err))) {
			err_msg("%s", err);
			return EXIT_FAIL;
		}
		ev = r->ops->events(r->b);
		ret = recorded_scope(r);
		r->ops->close(r->b, err, sizeof(err));
		if (ret >= 0)
			return ret;
		if ((o->kstack && !(ev & (1u << SEV_KSTACK))) ||
		    (o->ustack && !(ev & (1u << SEV_USTACK)))) {
			err_msg("%s has no %s stacks: record with 'offcpu-ftrace record %s'",
				o->replay_path, o->kstack && !(ev & (1u << SEV_KSTACK)) ?
				"kernel" : "user", o->kstack ? "-K" : "-U");
			return EXIT_FAIL;
		}
	}
	run_print_plan(r);
	by_cgroup_close(&r->bycg);
	if (fflush(stdout) || ferror(stdout)) {
		err_msg("cannot write the output: %s", strerror(errno ? errno : EIO));
		return EXIT_FAIL;
	}
	return EXIT_OK;
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
	if (check_output(o) >= 0 || (!o->replay_path && !cli_tracefs_ready(o->tracefs)) ||
	    !pick_backend(r, o)) {
		free(r);
		return EXIT_FAIL;
	}
	if (o->late_stacks && r->ops->kframe) {
		/* its frames are its own tokens, not kernel addresses */
		err_msg("--late-stacks is for the ring and perf backends: %s samples its stacks "
			"itself (drop --late-stacks)", r->ops->name);
		free(r);
		return EXIT_FAIL;
	}
	if (o->dry_run) {
		status = dry_run(r);
		by_cgroup_close(&r->bycg);
		free(r);
		return status;
	}
	status = request_from_opts(r, &req);
	if (status < 0) {
		say_pick_note(r);
		status = run_setup_symbols(r);
	}
	if (status >= 0)
		goto out_free;
	sig_setup();
	status = open_backend(r, &req);
	if (status < 0 && o->replay_path)
		status = recorded_scope(r);
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
	ksyms_free(r->ksyms);
	usyms_free(r->usyms);
	free(r->tids);
	free(r);
	return status;
}
