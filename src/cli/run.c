// SPDX-License-Identifier: GPL-2.0-or-later
/* A run: pick and open the backend, set up the analyzer, trace the window, restore. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "choose.h"
#include "numparse.h"
#include "procfs.h"
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
	int32_t tgid = r->o->replay_path && r->ops->task_tgid ? r->ops->task_tgid(r->b, tid) : -2;
	unsigned i;

	if (tgid >= -1)
		return tgid;
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

	if (r->o->replay_path)
		return -ENOENT;
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
	else if (ev->type >= SEV_KSTACK)
		fprintf(stderr, " frames=%u", ev->stack_depth);
	fputc('\n', stderr);
}

static void on_event(const struct sched_event *ev, void *arg)
{
	struct run *r = arg;

	if (r->debug_tid > 0)
		debug_event(r, ev);
	/* maps are read when a process is first seen, so one that exits
	 * before the window ends still resolves */
	if (ev->type == SEV_USTACK && r->usyms && ev->next_pid > 0)
		usyms_snapshot(r->usyms, ev->next_pid);
	analyzer_feed(&r->an, ev);
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
static int finish_record(struct run *r, uint64_t start_ns, uint64_t end_ns)
{
	uint64_t lost[1024];
	struct backend_window m = { 0 };
	char err[512] = "";
	int ret;

	if (!r->ops->record_close)
		return 0;
	m.clock = r->clock;
	if (r->mono) {
		m.start_ns = start_ns;
		m.end_ns = end_ns;
	}
	m.ncpu = r->ops->lost(r->b, lost, 1024);
	m.lost_per_cpu = lost;
	m.kernel_stacks = r->o->kstack;
	/* the scope, so that a report shows what this run would have */
	if (r->have_child) {
		snprintf(m.scope.kind, sizeof(m.scope.kind), "command");
		m.scope.id = r->child.pid;
		shell_quote_argv(m.scope.command, sizeof(m.scope.command), r->o->command, 200);
	} else if (r->o->pid >= 0 || r->o->tid >= 0) {
		snprintf(m.scope.kind, sizeof(m.scope.kind), r->o->pid >= 0 ? "pid" : "tid");
		m.scope.id = r->o->pid >= 0 ? r->o->pid : r->o->tid;
	} else {
		snprintf(m.scope.kind, sizeof(m.scope.kind), "all");
	}
	m.scope.recorder = (int32_t)getpid();
	ret = r->ops->record_close(r->b, &m, err, sizeof(err));
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
	if (!ret)
		ret = r->ops->read(r->b, UINT64_MAX, true, on_event, r);
	if (ret) {
		err_msg("cannot read %s: %s", r->o->replay_path, strerror(-ret));
		return EXIT_FAIL;
	}
	analyzer_finish(&r->an);
	if (r->ops->recording)
		r->ops->recording(r->b, &w);
	if (!r->mono)
		note_msg("%s was recorded with the %s clock%s", r->o->replay_path, r->clock,
			!strcmp(r->clock, "local") ? ": not synchronized across CPUs, so "
			"waits that migrate between CPUs are skewed" : "");
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
	if (o->record_only)
		return "sched events into a recording";
	if (o->triage)
		return "where time goes (running, waiting for a CPU, blocked)";
	if (o->modes & AN_RUNQ)
		return "run-queue latency";
	if (o->kstack || o->ustack)
		return o->kstack && o->ustack ? "off-CPU time by kernel and user stack" :
		       o->kstack ? "off-CPU time by kernel stack" : "off-CPU time by user stack";
	return "off-CPU time";
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
	iv_start = window_start = mono_ns();
	if (o->triage) {
		psi_read(&r->psi0, o->cgroup && r->cg.v2 ? r->cg.dir : NULL);
		if (o->cgroup)
			cgroup_throttle(&r->cg, &r->thr0);
	}
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
		while (!sig_count && (now = mono_ns()) < iv_end &&
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
			late_stacks_tick(&r->late, &r->an, mono_ns());
			progress_tick(&r->progress, mono_ns());
			if (ret) {
				err_msg("reading the trace buffers failed: %s", strerror(-ret));
				return EXIT_FAIL;
			}
		}
		progress_clear(&r->progress);
		if (last || sig_count || (r->have_child && r->child.done)) {
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
			if (o->record_path && finish_record(r, window_start, now))
				return EXIT_FAIL;
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

/* Why the kernel's hist triggers cannot do what @o asks, or HIST_CAN. */
static enum hist_refusal hist_unsupported(const struct trace_opts *o)
{
	if (o->triage)
		return HIST_NO_TRIAGE;
	if (o->ustack || (o->kstack && !(o->modes & AN_OFFCPU)))
		return HIST_NO_USTACK;
	if (o->late_stacks)
		return HIST_NO_LATE;
	if (o->kstack)
		return HIST_NO_KSTACK;	/* only where the kernel passes stacks */
	if (o->comm[o->comm[0] ? strspn(o->comm, HIST_COMM_CHARS) : 0])
		return HIST_NO_COMM;
	if (o->cgroup)
		return HIST_NO_CGROUP;
	if (o->command)
		return HIST_NO_COMMAND;
	if (o->compat == COMPAT_PERF)
		return HIST_NO_WAKING;
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
	host_caps_probe(o->tracefs, !strcmp(o->backend, "auto"), caps);
	backend_choose(caps, o->backend, hist_unsupported(o), &ch);
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
	if (!strcmp(o->backend, "auto"))
		snprintf(r->why, sizeof(r->why), "%s", ch.why);
	if (ch.reason == CHOSEN_PERF || ch.reason == CHOSEN_DROPS)
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
	req->comm = o->comm[0] ? o->comm : NULL;
	/* a recording keeps sched_waking too, for a later --compat=perf */
	req->waking = o->compat == COMPAT_PERF || o->record_only;
	req->record_path = o->record_path;
	req->replay_path = o->replay_path;
	req->agg.modes = o->modes;
	req->agg.key = o->key;
	req->agg.unit_ns = o->msecs ? 1000000 : 1000;
	req->agg.off_min_ns = o->min_us * 1000;
	req->agg.off_max_ns = o->max_us == UINT64_MAX ? UINT64_MAX : o->max_us * 1000;
	req->agg.compat = o->compat;
	req->kstack = o->kstack && !o->late_stacks;	/* late: none in the trace */
	req->ustack = o->ustack;
	req->stack_states = o->state;
	return -1;
}

/* Open the backend and say what it lacks. EXIT_* or -1. */
static int open_backend(struct run *r, const struct trace_req *req)
{
	const struct trace_opts *o = r->o;
	char err[BACKEND_ERRLEN] = "";
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
	return -1;
}

/* report: the scope the recording was made with, unless -p, -t or --all say otherwise */
static void recorded_scope(struct run *r)
{
	const struct trace_opts *o = r->o;
	const struct rec_scope *s = &r->rscope;
	struct backend_window w;
	bool forks;

	if (!r->ops->recording || r->ops->recording(r->b, &w))
		return;
	r->rscope = w.scope;
	if (!s->kind[0] || !strcmp(s->kind, "all") || o->all || o->pid >= 0 || o->tid >= 0)
		return;
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
}

/* The analyzer as @o asks, on this backend's state table. EXIT_* or -1. */
static int analyzer_from_opts(struct run *r, struct an_cfg *cfg)
{
	const struct trace_opts *o = r->o;
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	cfg->modes = o->modes;
	cfg->key = o->triage ? KEY_PID : o->key;	/* triage names the top process */
	cfg->compat = o->compat;
	cfg->triage = o->triage;
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
	cfg->max_stacks = o->max_stacks;
	cfg->tgid_of = run_tgid;
	cfg->comm_of = run_comm;
	cfg->tgid_arg = r;
	ret = state_filter(o, cfg);
	if (ret >= 0)
		return ret;
	ret = analyzer_init(&r->an, cfg);
	if (ret) {
		err_msg("cannot allocate state for %u tasks: %s", o->max_tasks, strerror(-ret));
		return EXIT_FAIL;
	}
	r->an_ok = true;
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

	if (o->cgroup && cgroup_sel_open(&r->cg, o->cgroup, err, sizeof(err))) {
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
		recorded_scope(r);
		r->ops->close(r->b, err, sizeof(err));
		if ((o->kstack && !(ev & (1u << SEV_KSTACK))) ||
		    (o->ustack && !(ev & (1u << SEV_USTACK)))) {
			err_msg("%s has no %s stacks: record with 'offcpu-ftrace record %s'",
				o->replay_path, o->kstack && !(ev & (1u << SEV_KSTACK)) ?
				"kernel" : "user", o->kstack ? "-K" : "-U");
			return EXIT_FAIL;
		}
	}
	run_print_plan(r);
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
		recorded_scope(r);
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
	heat_free(r->heat);
	ksyms_free(r->ksyms);
	usyms_free(r->usyms);
	free(r->tids);
	free(r);
	return status;
}
