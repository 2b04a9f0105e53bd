// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A run's backend: the choice and its notes, the request built from the
 * options (one builder for a run and for --dry-run), opening the backend
 * and its recorder, and a recording's scope.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "choose.h"
#include "escape.h"
#include "procfs.h"
#include "run.h"

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

void run_choose_req(const struct trace_opts *o, struct choose_req *req)
{
	memset(req, 0, sizeof(*req));
	req->want = o->backend;
	req->no_hist = run_hist_refusal(o);
	req->samples = (o->an->flags & AN_F_SAMPLES) != 0;
	req->traced = (o->an->flags & AN_F_TRACED) != 0;
	req->no_records = an_no_records(o);
	/* runq's histograms: its gaps are sized from schedstat (unsized.c) */
	req->sized = o->modes == AN_RUNQ && !(o->an->flags & AN_F_TRACED) && !o->replay_path;
	/* in a pid namespace of its own the tracepoints' pids (the host's) cannot serve these */
	req->pid_keyed = o->pid >= 0 || o->tid >= 0 || o->command || o->cgroup ||
			 o->key == KEY_PID || o->key == KEY_TID || o->key == KEY_CGROUP ||
			 (o->an->flags & AN_F_TIDS);
}

/* The backend for @o, with the notes a user should see; false: none. */
bool run_pick_backend(struct run *r, const struct trace_opts *o)
{
	struct choose_req req;
	struct host_caps *caps;
	struct choice ch;
	const struct backend_ops *want;

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
	 * the drop probe: for auto's choice, and for runq's waits on a
	 * backend of single events (ring, perf), which take sched_waking
	 * where the kernel loses wakeups
	 */
	want = backend_ops_named(o->backend);
	host_caps_probe(o->tracefs, !strcmp(o->backend, "auto") ||
			((o->modes & AN_RUNQ) && want && (want->caps & BCAP_EVENTS)), caps);
	run_choose_req(o, &req);
	backend_choose_req(caps, &req, &ch);
	/* losses seen, or not ruled out on a busy host: fill from sched_waking */
	r->drops_possible = caps->drops == DROPS_SEEN || caps->drops == DROPS_BUSY;
	r->drops_none = caps->drops == DROPS_NONE;
	r->switches_only = ch.switches_only;
	r->pidns_foreign = caps->pidns_foreign > 0;
	/* tracepoints in a container's pid namespace: every task, by the host's pids */
	r->host_pids = r->pidns_foreign && !ch.switches_only && backend_ops_of(ch.kind) &&
		       !(backend_ops_of(ch.kind)->caps & BCAP_SAMPLES);
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
	if (o->record_path && !(r->ops->caps & BCAP_RECORD)) {
		err_msg("a recording needs traced events (the ring or perf backend): %s; run as "
			"root, or with CAP_PERFMON ('offcpu-ftrace info' says what is missing)", ch.why);
		return false;
	}
	if ((r->ops->caps & BCAP_SAMPLES) && (o->an->flags & AN_F_TRACED)) {
		/* sampling has totals, not the single events it lists or follows */
		err_msg("%s needs traced sched events, not available unprivileged: the proc "
			"backend samples /proc totals (%s)%s%s; run as root, or with CAP_PERFMON "
			"for the perf backend ('offcpu-ftrace info' says what is missing)",
			run_what(o), ch.why, o->an->untraced ? "; " : "",
			o->an->untraced ? o->an->untraced : "");
		return false;
	}
	if (!strcmp(o->backend, "auto"))
		snprintf(r->why, sizeof(r->why), "%s", ch.why);
	snprintf(r->better, sizeof(r->better), "%s", ch.better);
	if (ch.switches_only)
		snprintf(r->pick_note, sizeof(r->pick_note), "using the perf backend's "
			 "context-switch records alone: %s", ch.why);
	else if (ch.reason == CHOSEN_PERF || ch.reason == CHOSEN_DROPS ||
		 ch.reason == CHOSEN_SAMPLES)
		snprintf(r->pick_note, sizeof(r->pick_note), "using the perf backend: %s", ch.why);
	else if (ch.reason == CHOSEN_SIZED)
		snprintf(r->pick_note, sizeof(r->pick_note), "using the ring backend: %s", ch.why);
	else if (ch.reason == CHOSEN_PIDNS)
		snprintf(r->pick_note, sizeof(r->pick_note), "using the proc backend: %s", ch.why);

	else if (ch.reason == CHOSEN_RING && ch.hist_refused != HIST_CAN)
		snprintf(r->pick_note, sizeof(r->pick_note), "using the ring backend, not the "
			 "kernel's hist triggers: %s", hist_refusal_text(ch.hist_refused));
	return true;
}

/* The backend choice's note, after the checks that could still refuse the run */
void run_say_pick(const struct run *r)
{
	if (r->pick_note[0])
		note_msg("%s", r->pick_note);
	if (r->host_pids)
		note_msg("this process runs in a pid namespace of its own (a container's): the "
			 "%s backend's events hold every task of the host, by the host's pids: "
			 "tasks outside this container are counted too", r->ops->name);
	if (r->better[0])
		note_msg("a better backend: %s", r->better);
}

/* The backend's page_sink: the recorder, once it is open */
static int run_page(void *arg, unsigned cpu, const void *page)
{
	struct run *r = arg;

	return recorder_page(r->rec, cpu, page);
}

bool run_every_switch(const struct run *r)
{
	/* the backends that sum or sample select their threads themselves */
	return (r->ops->caps & BCAP_EVENTS) &&
	       (an_cpu_state(r->o) || (r->drops_possible && (r->o->modes & AN_RUNQ)));
}

/*
 * What the backend must trace for @o on this host: the plan, built the
 * same way for a run and for --dry-run's print, with no side effect (no
 * process started, no file opened; the tids of -p and -- COMMAND's pid
 * are the run's, set by run_request).
 */
void run_plan_request(const struct run *r, struct trace_req *req)
{
	const struct trace_opts *o = r->o;

	memset(req, 0, sizeof(*req));
	req->tracefs = o->tracefs;
	req->buffer_kb = o->buffer_kb;
	req->pid = o->pid;
	req->rate_hz = o->rate_hz;
	if (o->tid >= 0 && !run_every_switch(r)) {	/* (as request_from_opts: no filter then) */
		req->pids = &o->tid;
		req->npids = 1;
	}
	req->follow_fork = o->pid >= 0 || o->command;
	req->fork = o->command != NULL;
	req->comm = o->comm[0] ? o->comm : NULL;
	req->waking = (an_events(o) & (1u << SEV_WAKING)) != 0;
	/*
	 * where this kernel loses the sched_wakeup an idle CPU does, the
	 * sched_waking in the waker's context starts the wait instead
	 */
	if (r->drops_possible && (o->modes & AN_RUNQ))
		req->waking = true;
	req->record_path = o->record_path;
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
	req->cpu_samples = (an_events(o) & (1u << SEV_SAMPLE)) != 0;
	req->ustack = o->ustack;
	req->stack_states = o->state;
	req->switches_only = r->switches_only;
	/* runq (runqslower, runqlen too): preempted or not is all a switch must say */
	req->switch_minimal = o->modes == AN_RUNQ && !o->kstack && !o->ustack && !o->state &&
			      o->compat != COMPAT_BPFTRACE && !o->record_path && !req->cpu_samples &&
			      !o->comm[0];	/* the records carry no names: -c reads them */
	/* what the analysis itself asks beyond that (--wakers -K: the waker's stacks) */
	if (o->an->request)
		o->an->request(o, req);
}

int run_open_cgroups(struct run *r, uint32_t max_ids)
{
	const struct trace_opts *o = r->o;
	char err[BACKEND_ERRLEN] = "";

	if (o->cgroup && cgroup_sel_open(&r->cg, o->cgroup, err, sizeof(err))) {
		err_msg("%s", err);
		return EXIT_FAIL;
	}
	/* a recording's cgroups are its own (run_recorded_scope) */
	if (o->key == KEY_CGROUP && !r->bycg.on && !o->replay_path &&
	    by_cgroup_open(&r->bycg, o->cgroup_controller, o->cgroup_depth, max_ids, err,
			   sizeof(err))) {
		err_msg("%s", err);
		return EXIT_FAIL;
	}
	return 0;
}

/*
 * The plan, and what it takes to carry it out: -p's threads now, --
 * COMMAND spawned (held), the cgroups opened. EXIT_* or -1.
 */
int run_request(struct run *r, struct trace_req *req)
{
	const struct trace_opts *o = r->o;
	char err[BACKEND_ERRLEN] = "";
	int ret;

	if (run_open_cgroups(r, o->max_groups < CGROUP_IDS_LIMIT ? o->max_groups :
				CGROUP_IDS_LIMIT))
		return EXIT_FAIL;
	run_plan_request(r, req);
	if (o->pid >= 0) {
		/* in-kernel pre-filter; the analyzer still checks each tgid */
		ret = proc_threads(o->pid, &r->tids);
		if (ret > 0) {
			req->pids = r->start_tids = r->tids;
			req->npids = r->nstart_tids = (unsigned)ret;
		}
	}
	if (o->command) {
		/*
		 * held before exec: its pid goes into the kernel's filter
		 * first. The results and the command's own output never share
		 * standard output: with the results there (no -o), the
		 * command's goes to stderr
		 */
		ret = child_spawn(&r->child, o->command, o->output_path ? -1 : STDERR_FILENO, err,
				  sizeof(err));
		if (ret) {
			err_msg("%s", err);
			return EXIT_FAIL;
		}
		r->have_child = true;
		req->pids = &r->child.pid;
		req->npids = 1;
	}
	/*
	 * whether a CPU was idle is in every CPU's switches, not the selected
	 * threads': an analysis that asks it (and runq's waits where this
	 * kernel loses the idle CPUs' wakeups: onto_idle) has no in-kernel
	 * pid filter, and the analyzer filters instead (forks followed; -p's
	 * threads kept for their process when they are gone)
	 */
	if (run_every_switch(r)) {
		req->pids = NULL;
		req->npids = 0;
	}
	if (o->record_path) {
		/* the pages go to the recorder, opened once the backend is */
		req->page_sink = run_page;
		req->page_arg = r;
	}
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
int run_open_backend(struct run *r, const struct trace_req *req)
{
	const struct trace_opts *o = r->o;
	char err[BACKEND_ERRLEN] = "";
	const char *cgn;
	unsigned ev;

	if (r->ops->open(&r->b, req, err, sizeof(err))) {
		err_msg("%s", err);
		return EXIT_FAIL;
	}
	/* a note ("sampling /proc at 20 Hz"): -q has none */
	if (r->ops->notice && r->ops->notice(r->b) && !cli_quiet)
		err_msg("%s", r->ops->notice(r->b));
	r->clock = r->ops->clock(r->b, &r->mono);
	ev = r->ops->events(r->b);
	if (o->replay_path && ((an_kstack_required(o) && !(ev & (1u << SEV_KSTACK))) ||
			       (o->ustack && !(ev & (1u << SEV_USTACK))))) {
		err_msg("%s has no %s stacks: record with 'offcpu-ftrace record %s'",
			o->replay_path, o->kstack && !(ev & (1u << SEV_KSTACK)) ? "kernel" : "user",
			o->kstack ? "-K" : "-U");
		return EXIT_FAIL;
	}
	if (o->replay_path && o->kstack && !(ev & (1u << SEV_KSTACK)))
		note_msg("%s has no kernel stacks ('record -K' keeps them): %s without them",
			 o->replay_path, o->cmd);
	if ((ev & (1u << SEV_WAKEUP)) && !(ev & (1u << SEV_WAKEUP_NEW)))
		note_msg("this kernel has no sched_wakeup_new event: a new "
			"thread's first wait for a CPU is not counted");
	cgn = by_cgroup_moves_note(&r->bycg, req, ev, r->ops->sampling != NULL);
	if (cgn)
		note_msg("%s", cgn);
	return open_recorder(r);
}

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
int run_recorded_scope(struct run *r)
{
	const struct trace_opts *o = r->o;
	const struct rec_scope *s = &r->rscope;
	struct backend_window w;
	bool forks;
	int ret;

	if (!r->ops->recording || r->ops->recording(r->b, &w))
		memset(&w, 0, sizeof(w));	/* not ours: no scope, no cgroups */
	r->rscope = w.scope;
	/* the recording's words, shown in notes and outputs: no control character */
	text_clean(r->rscope.command);
	/* profile --critical-path: from the command's start to its end */
	if ((o->an->flags & AN_F_COMMAND) && strcmp(s->kind, "command")) {
		err_msg("%s was not recorded with -- COMMAND (its scope: %s): %s needs one",
			o->replay_path, s->kind[0] ? s->kind : "not said", o->an->summary);
		return EXIT_USAGE;
	}
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
