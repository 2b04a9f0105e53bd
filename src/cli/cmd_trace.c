// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * runq and offcpu: open a backend, trace for the window (in intervals),
 * feed the analyzer, print, restore. Every exit path goes through close.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tmount.h"
#include "backend.h"
#include "choose.h"
#include "cli.h"
#include "ksym.h"
#include "numparse.h"
#include "procfs.h"
#include "sig.h"
#include "timeutil.h"
#include "usym.h"
#include "xval.h"
#include "cgroup.h"
#include "child.h"
#include "triage.h"
#include "compare.h"

/* how often the reader wakes when the watermark does not wake it first */
#define READ_PERIOD_MS 100
/* wait past an interval boundary before reading it out, for late commits */
#define BOUNDARY_SLACK_NS (3 * 1000 * 1000ULL)

/* -p/-t must name live tasks: a typo should not trace nothing for 10 s */
static int check_targets(const struct trace_opts *o)
{
	int32_t tgid;

	if (o->pid >= 0) {
		tgid = proc_tgid(o->pid, NULL);
		if (tgid < 0) {
			err_msg("-p %d: no such process", o->pid);
			return EXIT_FAIL;
		}
		if (tgid != o->pid) {
			err_msg("-p %d: %d is a thread of process %d: use -t %d for the "
				"thread or -p %d for the process", o->pid, o->pid, tgid,
				o->pid, tgid);
			return EXIT_FAIL;
		}
	}
	if (o->tid >= 0 && proc_tgid(o->tid, NULL) < 0) {
		err_msg("-t %d: no such thread", o->tid);
		return EXIT_FAIL;
	}
	return -1;
}

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

struct run {
	const struct trace_opts *o;
	const struct backend_ops *ops;
	struct backend *b;
	struct analyzer an;
	bool an_ok;
	const char *clock;
	bool mono;
	uint64_t lost_prev[1024], lost_now[1024];
	unsigned ncpu;
	uint64_t lost_total;		/* all intervals: for --strict */
	uint64_t recovered_prev;	/* backend's recovered() at the last print */
	uint64_t partial_total;		/* intervals with partial results */
	int32_t debug_tid;
	struct xval *xval;		/* --xval: bpftrace running beside us */
	struct child child;		/* -- COMMAND */
	bool have_child;
	struct cgroup_sel cg;		/* --cgroup */
	struct psi psi0;		/* triage: pressure when tracing began */
	struct cpu_throttle thr0;
	struct ksyms *ksyms;
	struct usyms *usyms;
	struct symbolizer sym;
	char why[1024];			/* why auto chose the backend, "" else */
	const int32_t *start_tids;	/* -p: the process's threads at the start */
	unsigned nstart_tids;
};

/* /proc first; a thread gone since belongs to -p's process if it had it */
static int32_t run_tgid(int32_t tid, void *arg)
{
	const struct run *r = arg;
	int32_t tgid = proc_tgid(tid, NULL);
	unsigned i;

	for (i = 0; tgid < 0 && i < r->nstart_tids; i++)
		if (r->start_tids[i] == tid)
			tgid = r->o->pid;
	return tgid;
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

static int ksym_name(void *arg, uint64_t addr, char *buf, size_t len)
{
	return ksyms_format(arg, addr, buf, len);
}

static int usym_name(void *arg, int32_t tgid, uint64_t addr, char *buf, size_t len)
{
	return usyms_format(arg, tgid, addr, buf, len);
}

/* An aggregating backend names its own kernel frames (the kernel did) */
static int backend_kframe(void *arg, uint64_t token, char *buf, size_t len)
{
	const struct run *r = arg;

	return r->ops->kframe(r->b, token, buf, len);
}

/* Symbol tables for -K/-U; a notice when the kernel hides addresses. */
static int setup_symbols(struct run *r)
{
	const struct trace_opts *o = r->o;
	int ret;

	if (o->kstack && r->ops->kframe) {
		r->sym.kernel = backend_kframe;
		r->sym.karg = r;
	} else if (o->kstack) {
		ret = ksyms_load(&r->ksyms, "/proc/kallsyms");
		if (ret) {
			err_msg("cannot read /proc/kallsyms: %s", strerror(-ret));
			return EXIT_FAIL;
		}
		if (ksyms_restricted(r->ksyms))
			err_msg("note: /proc/kallsyms hides kernel addresses (kptr_restrict): "
				"kernel frames are printed as raw addresses");
	}
	if (o->ustack && !o->replay_path) {	/* this host's /proc: not the recording's */
		r->usyms = usyms_new(4096);
		if (!r->usyms) {
			err_msg("out of memory");
			return EXIT_FAIL;
		}
	}
	if (!r->sym.kernel) {
		r->sym.kernel = ksym_name;
		r->sym.karg = r->ksyms;
	}
	r->sym.user = usym_name;
	r->sym.uarg = r->usyms;
	return -1;
}

/*
 * --xval: stop bpftrace, read its histogram and ours (through our own
 * JSON, the same path `compare` takes) and print the comparison.
 */
static void xval_report(struct run *r, struct report *rep)
{
	struct peerhist_opts jo = { .format = PEERHIST_JSON };
	struct peerhist *bt = NULL, *ours = NULL, *bt1 = NULL, *ours1 = NULL;
	struct cmp_dist da, db;
	struct cmp_side a, b;
	char err[512], what[64];
	char *json = NULL;
	size_t len = 0;
	FILE *m;
	int ret;

	ret = xval_finish(r->xval, &bt, err, sizeof(err));
	xval_free(r->xval);
	r->xval = NULL;
	if (ret) {
		err_msg("--xval: %s; only offcpu-ftrace's result is shown", err);
		return;
	}
	m = open_memstream(&json, &len);
	if (m) {
		report_print(m, FMT_JSON, rep);
		fclose(m);
	}
	ret = !json ? -ENOMEM : peerhist_parse(json, len, &jo, &ours, err, sizeof(err));
	if (!ret)
		ret = peerhist_merge(ours, NULL, &ours1, err, sizeof(err));
	if (!ret)
		ret = peerhist_merge(bt, NULL, &bt1, err, sizeof(err));
	if (!ret)
		ret = cmp_normalize(ours1, 0, &da, err, sizeof(err));
	if (!ret)
		ret = cmp_normalize(bt1, 0, &db, err, sizeof(err));
	if (ret) {
		err_msg("--xval: cannot compare: %s", err);
	} else {
		snprintf(what, sizeof(what), "%s backend", r->ops->name);
		a = (struct cmp_side){ "offcpu-ftrace", what, &da };
		b = (struct cmp_side){ "bpftrace", "the same rules as a bpftrace program", &db };
		if (r->o->fmt == FMT_JSON) {
			cmp_print_json(stdout, &a, &b, 0, false);
		} else {
			printf("\n# cross-validation with bpftrace over the same window:\n");
			cmp_print(stdout, &a, &b, 0, false);
		}
	}
	free(json);
	peerhist_free(bt);
	peerhist_free(bt1);
	peerhist_free(ours);
	peerhist_free(ours1);
}

/* The group with the largest sum in @gs, or NULL. */
static const struct group *top_group(const struct groups *gs)
{
	const struct group *best = NULL;
	uint32_t i;

	for (i = 0; i < gs->n; i++)
		if (gs->v[i]->id != GROUP_OTHER &&
		    (!best || gs->v[i]->h.sum_ns > best->h.sum_ns))
			best = gs->v[i];
	return best;
}

static void merge_groups(const struct groups *gs, struct hist *h)
{
	uint32_t i;

	hist_reset(h);
	for (i = 0; i < gs->n; i++)
		hist_merge(h, &gs->v[i]->h);
}

/* triage: the scope in words, and the options that repeat it */
static void triage_scope(const struct run *r, char *scope, size_t slen, char *next, size_t nlen)
{
	const struct trace_opts *o = r->o;

	if (r->have_child) {
		snprintf(scope, slen, "%s and its descendants", o->command[0]);
		snprintf(next, nlen, "-- %s ...", o->command[0]);
	} else if (o->pid >= 0) {
		snprintf(scope, slen, "process %d", o->pid);
		snprintf(next, nlen, "-p %d%s", o->pid, o->replay_path ? "" : " 10");
	} else if (o->tid >= 0) {
		snprintf(scope, slen, "thread %d", o->tid);
		snprintf(next, nlen, "-t %d%s", o->tid, o->replay_path ? "" : " 10");
	} else if (o->cgroup) {
		snprintf(scope, slen, "cgroup %s", r->cg.dir);
		snprintf(next, nlen, "--cgroup %s 10", o->cgroup);
	} else if (o->comm[0]) {
		snprintf(scope, slen, "threads named %s", o->comm);
		snprintf(next, nlen, "-c %s%s", o->comm, o->replay_path ? "" : " 10");
	} else {
		snprintf(scope, slen, "all threads");
		snprintf(next, nlen, "%s", o->replay_path ? "" : "10");
	}
}

static int print_triage(struct run *r, uint64_t dur_ns, uint64_t lost, uint64_t recovered)
{
	const struct trace_opts *o = r->o;
	char scope[4200], next[4200], tool[4200];
	const struct group *g;
	struct triage_in in;
	struct hist runq, blk;
	struct cpu_throttle thr;
	uint64_t blk_ns;

	memset(&in, 0, sizeof(in));
	triage_scope(r, scope, sizeof(scope), next, sizeof(next));
	in.scope = scope;
	in.next_scope = next;
	if (o->replay_path) {
		snprintf(tool, sizeof(tool), "offcpu-ftrace report %s", o->replay_path);
		in.next_tool = tool;
		in.next_window = "";
	}
	in.window_s = (double)dur_ns / 1e9;
	in.backend = r->ops->name;
	in.clock = r->clock;
	merge_groups(&r->an.runq.groups, &runq);
	merge_groups(&r->an.blk.groups, &blk);
	in.runq = &runq;
	in.blocked = &blk;
	in.running_ns = r->an.counts.oncpu_ns;
	in.runq_ns = runq.sum_ns;
	/* blocked intervals end with the wait for a CPU after the wakeup */
	blk_ns = blk.sum_ns > r->an.counts.runq_wake_ns ? blk.sum_ns - r->an.counts.runq_wake_ns : 0;
	in.blocked_ns = blk_ns;
	in.top_blocked_pid = in.top_runq_pid = -1;
	if ((g = top_group(&r->an.blk.groups))) {
		in.top_blocked_pid = (int32_t)g->id;
		memcpy(in.top_blocked_comm, g->comm, COMM_LEN);
	}
	if ((g = top_group(&r->an.runq.groups))) {
		in.top_runq_pid = (int32_t)g->id;
		memcpy(in.top_runq_comm, g->comm, COMM_LEN);
	}
	in.psi_before = r->psi0;
	if (!o->replay_path)	/* a recording holds no pressure figures */
		psi_read(&in.psi_after, o->cgroup && r->cg.v2 ? r->cg.dir : NULL);
	if (o->cgroup) {
		cgroup_throttle(&r->cg, &thr);
		in.have_throttle = thr.have && r->thr0.have;
		in.nr_throttled = thr.nr_throttled - r->thr0.nr_throttled;
		in.throttled_ns = thr.throttled_ns - r->thr0.throttled_ns;
		in.periods = thr.periods - r->thr0.periods;
	}
	in.th.runq_tail_us = o->th.runq_tail_us;
	in.th.runq_share = o->th.runq_share;
	in.th.blocked_share = o->th.blocked_share;
	in.th.oncpu_share = o->th.oncpu_share;
	in.th.throttle_share = o->th.throttle_share;
	in.lost = lost;
	in.missed_switch = r->an.counts.missed_switch;
	in.unmeasured = r->an.counts.unmeasured;
	in.inferred = r->an.counts.inferred;
	in.recovered = recovered;
	in.partial = lost || analyzer_partial(&r->an);
	errno = 0;
	triage_print(stdout, o->fmt, &in);
	return ferror(stdout) ? (errno ? -errno : -EIO) : 0;
}

/* Print one interval; returns 0 or -errno when stdout failed. */
static int print_interval(struct run *r, unsigned n, uint64_t dur_ns, bool final)
{
	const struct trace_opts *o = r->o;
	struct an_mode_state *m = (o->modes & AN_RUNQ) ? &r->an.runq : &r->an.off;
	uint64_t lost = 0, lost_iv[1024], recovered = 0;
	struct stack_report sr;
	struct report rep;
	unsigned i;

	r->ncpu = r->ops->lost(r->b, r->lost_now, 1024);
	for (i = 0; i < r->ncpu; i++) {
		lost_iv[i] = r->lost_now[i] - r->lost_prev[i];
		r->lost_prev[i] = r->lost_now[i];
		lost += lost_iv[i];
	}
	r->lost_total += lost;
	if (r->ops->recovered) {
		uint64_t now = r->ops->recovered(r->b);

		recovered = now - r->recovered_prev;
		r->recovered_prev = now;
	}
	if (analyzer_partial(&r->an) || r->an.counts.dropped)
		r->partial_total++;
	if (o->triage)
		return print_triage(r, dur_ns, lost, recovered);
	memset(&rep, 0, sizeof(rep));
	rep.command = o->cmd;
	rep.backend = r->ops->name;
	rep.backend_why = r->why[0] ? r->why : NULL;
	rep.clock = r->clock;
	rep.unit = o->msecs ? "msecs" : "usecs";
	rep.unit_ns = o->msecs ? 1000000 : 1000;
	rep.key = o->key;
	rep.duration_s = (double)dur_ns / 1e9;
	rep.interval = n;
	rep.final = final;
	rep.timestamp = o->timestamp;
	rep.wall = time(NULL);
	rep.stopped_by = sig_count ? sig_name(sig_last) : NULL;
	rep.counts = &r->an.counts;
	rep.inc = &m->inc;
	rep.groups = &m->groups;
	rep.lost = lost;
	rep.recovered = recovered;
	rep.lost_cpu = lost_iv;
	rep.ncpu = r->ncpu;
	if (o->kstack || o->ustack) {
		memset(&sr, 0, sizeof(sr));
		sr.agg = &r->an.agg;
		sr.kstacks = &r->an.kstacks;
		sr.ustacks = &r->an.ustacks;
		sr.kstack = o->kstack;
		sr.ustack = o->ustack;
		sr.folded = o->folded;
		sr.delimited = o->delimited;
		sr.depth = o->stack_depth;
		sr.top = o->top;
		sr.key = o->key;
		sr.unit_ns = rep.unit_ns;
		sr.sym = &r->sym;
		rep.stacks = &sr;
		rep.stack_overflow = r->an.kstacks.overflow + r->an.ustacks.overflow;
	}
	errno = 0;
	report_print(stdout, o->fmt, &rep);
	if (ferror(stdout))
		return errno ? -errno : -EIO;
	if (final && r->xval)
		xval_report(r, &rep);
	return 0;
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
		err_msg("results are partial (--strict): %llu events were lost%s%s%s",
			(unsigned long long)r->lost_total, *where ? " " : "", where,
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
		err_msg("note: %s was recorded with the %s clock%s", r->o->replay_path, r->clock,
			!strcmp(r->clock, "local") ? ": not synchronized across CPUs, so "
			"waits that migrate between CPUs are skewed" : "");
	ret = print_interval(r, 1, w.end_ns > w.start_ns ? w.end_ns - w.start_ns : 0, true);
	if (ret) {
		err_msg("cannot write the output: %s", strerror(-ret));
		return EXIT_FAIL;
	}
	if (r->o->strict && (r->lost_total || r->partial_total)) {
		strict_msg(r, "in the recording");
		return EXIT_PARTIAL;
	}
	return EXIT_OK;
}

static int trace_loop(struct run *r)
{
	const struct trace_opts *o = r->o;
	uint64_t iv_start, iv_end, now, window_start;
	const char *what;
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
	what = o->record_only ? "sched events into a recording" :
	       o->triage ? "where time goes (triage)" :
	       (o->modes & AN_RUNQ) ? "run-queue latency" :
	       o->kstack && o->ustack ? "off-CPU time by kernel and user stack" :
	       o->kstack ? "off-CPU time by kernel stack" :
	       o->ustack ? "off-CPU time by user stack" : "off-CPU time";
	if (r->have_child) {
		char err[256];

		fprintf(stderr, "offcpu-ftrace: tracing %s of %s and its descendants (backend "
			"%s, clock %s)... Hit Ctrl-C to end.\n", what, o->command[0],
			r->ops->name, r->clock);
		ret = child_release(&r->child, o->command[0], err, sizeof(err));
		if (ret) {
			err_msg("%s", err);
			r->ops->stop(r->b);
			return 127;	/* as a shell says "command not found" */
		}
	} else if (o->interval_mode)
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
			r->ops->wait(r->b, left_ms > READ_PERIOD_MS ? READ_PERIOD_MS
							     : (int)left_ms - 1);
			ret = r->ops->read(r->b, r->mono ? iv_end : UINT64_MAX, false,
					   on_event, r);
			if (ret) {
				err_msg("reading the trace buffers failed: %s", strerror(-ret));
				return EXIT_FAIL;
			}
		}
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
			if (sig_count >= 2)
				return 128 + sig_last;
			if (o->record_path && finish_record(r, window_start, now))
				return EXIT_FAIL;
			ret = o->record_only ? 0 : print_interval(r, n, now - iv_start, true);
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
		ret = print_interval(r, n, iv_end - iv_start, false);
		if (ret)
			break;
		analyzer_next_interval(&r->an);
		iv_start = iv_end;
	}
	if (ret) {
		err_msg("cannot write the output: %s", strerror(-ret));
		return EXIT_FAIL;
	}
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
	free(caps);
	r->ops = backend_ops_of(ch.kind);
	if (!r->ops) {
		err_msg("%s", ch.why);
		return false;
	}
	if (!strcmp(o->backend, "auto"))
		snprintf(r->why, sizeof(r->why), "%s", ch.why);
	if (ch.reason == CHOSEN_PERF || ch.reason == CHOSEN_DROPS)
		err_msg("note: using the perf backend: %s", ch.why);
	else if (ch.reason == CHOSEN_RING && ch.hist_refused != HIST_CAN)
		err_msg("note: using the ring backend, not the kernel's hist triggers: %s",
			hist_refusal_text(ch.hist_refused));
	return true;
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

static int run_trace(const struct trace_opts *o)
{
	char err[BACKEND_ERRLEN] = "", why[512];
	struct run *r = calloc(1, sizeof(*r));
	struct trace_req req;
	struct an_cfg cfg;
	int32_t *tids = NULL;
	int ret, status;

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
	if (!pick_backend(r, o)) {
		free(r);
		return EXIT_FAIL;
	}
	memset(&req, 0, sizeof(req));
	req.tracefs = o->tracefs;
	req.buffer_kb = o->buffer_kb;
	if (o->pid >= 0) {
		/* in-kernel pre-filter; the analyzer still checks each tgid */
		ret = proc_threads(o->pid, &tids);
		if (ret > 0) {
			req.pids = r->start_tids = tids;
			req.npids = r->nstart_tids = (unsigned)ret;
			req.follow_fork = true;
		}
	} else if (o->tid >= 0) {
		req.pids = &o->tid;
		req.npids = 1;
	}
	if (o->command) {
		/* held before exec: its pid goes into the kernel's filter first */
		ret = child_spawn(&r->child, o->command, err, sizeof(err));
		if (ret) {
			err_msg("%s", err);
			free(r);
			return EXIT_FAIL;
		}
		r->have_child = true;
		req.pids = &r->child.pid;
		req.npids = 1;
		req.follow_fork = true;
		req.fork = true;
	}
	if (o->cgroup && cgroup_sel_open(&r->cg, o->cgroup, err, sizeof(err))) {
		err_msg("%s", err);
		status = EXIT_FAIL;
		goto out_free;
	}
	req.comm = o->comm[0] ? o->comm : NULL;
	/* a recording keeps sched_waking too, for a later --compat=perf */
	req.waking = o->compat == COMPAT_PERF || o->record_only;
	req.record_path = o->record_path;
	req.replay_path = o->replay_path;
	req.modes = o->modes;
	req.key = o->key;
	req.unit_ns = o->msecs ? 1000000 : 1000;
	req.off_min_ns = o->min_us * 1000;
	req.off_max_ns = o->max_us == UINT64_MAX ? UINT64_MAX : o->max_us * 1000;
	req.compat = o->compat;
	req.kstack = o->kstack;
	req.ustack = o->ustack;
	req.stack_states = o->state;
	status = setup_symbols(r);
	if (status >= 0)
		goto out_free;

	sig_setup();
	ret = r->ops->open(&r->b, &req, err, sizeof(err));
	if (ret) {
		err_msg("%s", err);
		status = EXIT_FAIL;
		goto out_close;
	}
	if (r->ops->notice && r->ops->notice(r->b))
		err_msg("%s", r->ops->notice(r->b));
	r->clock = r->ops->clock(r->b, &r->mono);
	if (o->replay_path && ((o->kstack && !(r->ops->events(r->b) & (1u << SEV_KSTACK))) ||
			       (o->ustack && !(r->ops->events(r->b) & (1u << SEV_USTACK))))) {
		err_msg("%s has no %s stacks: record with 'offcpu-ftrace record %s'",
			o->replay_path, o->kstack && !(r->ops->events(r->b) & (1u << SEV_KSTACK)) ?
			"kernel" : "user", o->kstack ? "-K" : "-U");
		status = EXIT_FAIL;
		goto out_close;
	}
	if (!(r->ops->events(r->b) & (1u << SEV_WAKEUP_NEW)))
		err_msg("note: this kernel has no sched_wakeup_new event: a new "
			"thread's first wait for a CPU is not counted");

	memset(&cfg, 0, sizeof(cfg));
	cfg.modes = o->modes;
	cfg.key = o->triage ? KEY_PID : o->key;	/* triage names the top process */
	cfg.compat = o->compat;
	cfg.triage = o->triage;
	cfg.unit_ns = o->msecs ? 1000000 : 1000;
	cfg.pid = o->pid;
	cfg.tid = o->tid;
	memcpy(cfg.comm, o->comm, COMM_LEN);
	cfg.off_min_ns = o->min_us * 1000;
	cfg.off_max_ns = o->max_us == UINT64_MAX ? UINT64_MAX : o->max_us * 1000;
	cfg.states = *r->ops->states(r->b);
	cfg.max_tasks = o->max_tasks;
	cfg.max_groups = o->max_groups;
	cfg.stacks = (o->kstack ? AN_KSTACK : 0) | (o->ustack ? AN_USTACK : 0);
	if (r->have_child) {
		cfg.follow = &r->child.pid;
		cfg.nfollow = 1;
	}
	if (o->cgroup) {
		cfg.in_cgroup = cgroup_sel_has;
		cfg.cgroup_arg = &r->cg;
	}
	cfg.max_stacks = o->max_stacks;
	cfg.tgid_of = run_tgid;
	cfg.tgid_arg = r;
	status = state_filter(o, &cfg);
	if (status >= 0)
		goto out_close;
	ret = analyzer_init(&r->an, &cfg);
	if (ret) {
		err_msg("cannot allocate state for %u tasks: %s", o->max_tasks,
			strerror(-ret));
		status = EXIT_FAIL;
		goto out_close;
	}
	r->an_ok = true;
	if (o->xval)
		start_xval(r, &cfg);
	status = o->replay_path ? replay_loop(r) : trace_loop(r);

out_close:
	ret = r->ops->close(r->b, err, sizeof(err));
	if (ret) {
		err_msg("%s", err);
		if (status == EXIT_OK)
			status = EXIT_FAIL;
	}
	if (r->an_ok)
		analyzer_fini(&r->an);
out_free:
	if (r->have_child) {
		/* the command's status is ours, once our window is closed */
		if (r->child.go_fd >= 0) {
			/* never released: setup failed, the command never ran */
			child_abort(&r->child);
		} else {
			int cs;

			if (!r->child.done && sig_count)
				kill(r->child.pid, sig_last);
			cs = child_wait(&r->child);
			if (status == EXIT_OK)
				status = cs;
		}
	}
	xval_free(r->xval);
	ksyms_free(r->ksyms);
	usyms_free(r->usyms);
	free(tids);
	free(r);
	return status;
}

static int cmd_trace(const char *cmd, int argc, char **argv)
{
	struct trace_opts o;
	int ret = trace_opts_parse(&o, cmd, argc, argv);

	if (ret >= 0)
		return ret;
	if (o.dry_run)
		return EXIT_OK;
	ret = check_targets(&o);
	if (ret >= 0)
		return ret;
	return run_trace(&o);
}

int cmd_runq(int argc, char **argv)
{
	return cmd_trace("runq", argc, argv);
}

int cmd_offcpu(int argc, char **argv)
{
	return cmd_trace("offcpu", argc, argv);
}

int cmd_triage(int argc, char **argv)
{
	return cmd_trace("triage", argc, argv);
}

int cmd_record(int argc, char **argv)
{
	return cmd_trace("record", argc, argv);
}

static const char report_help[] =
"Usage: offcpu-ftrace report FILE [runq|offcpu|triage] [OPTIONS]\n"
"\n"
"The analyses of a live run, from a recording: one made by 'offcpu-ftrace\n"
"record' (or --record), or by 'trace-cmd record -e sched_switch -e\n"
"sched_wakeup -e sched_wakeup_new' on any machine. The recording is the\n"
"window: no DURATION, -i, COUNT or -- COMMAND. Default analysis: runq.\n"
"\n"
"Options: those of the analysis (see 'offcpu-ftrace runq --help' and\n"
"offcpu, triage), except --backend, --tracefs, --buffer-size, --cgroup,\n"
"--xval and --record. Kernel frames are named from the symbols in the\n"
"recording; user frames print as addresses (the recorded processes' maps\n"
"are not in the file).\n"
"\n"
"Examples:\n"
"  offcpu-ftrace report ci.dat                  # run-queue latency\n"
"  offcpu-ftrace report ci.dat runq -P --format=json\n"
"  offcpu-ftrace report build.dat offcpu -K --top 5\n"
"  offcpu-ftrace report trace.dat triage        # a trace-cmd recording\n"
"\n"
"Exit status: 0 done, 1 the file cannot be read (the message names the\n"
"offset where it broke), 2 bad usage, 3 events lost with --strict.\n"
"See offcpu-ftrace-report(8).\n";

int cmd_report(int argc, char **argv)
{
	const char *file, *cmd = "runq";
	struct trace_opts o;
	int ret, skip = 2;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(report_help, stdout);
		return EXIT_OK;
	}
	if (argc < 2 || argv[1][0] == '-') {
		usage_err("report", "the first argument is the recording: report FILE "
			  "[runq|offcpu|triage] [OPTIONS]");
		return EXIT_USAGE;
	}
	file = argv[1];
	if (argc >= 3 && (!strcmp(argv[2], "runq") || !strcmp(argv[2], "offcpu") ||
			  !strcmp(argv[2], "triage"))) {
		cmd = argv[2];
		skip = 3;
	}
	/* the analysis parses what follows, as if it were its own command */
	argv[skip - 1] = (char *)cmd;
	ret = trace_opts_parse(&o, cmd, argc - skip + 1, argv + skip - 1);
	if (ret >= 0)
		return ret;
	if (o.duration_ns || o.interval_mode || o.count > 1 || o.command) {
		usage_err("report", "the recording is the window: no DURATION, -i, COUNT "
			  "or -- COMMAND");
		return EXIT_USAGE;
	}
	if (strcmp(o.backend, "auto") || o.tracefs || o.buffer_kb || o.cgroup || o.xval ||
	    o.record_path) {
		usage_err("report", "--backend, --tracefs, --buffer-size, --cgroup, --xval and "
			  "--record are options of live runs");
		return EXIT_USAGE;
	}
	o.replay_path = file;
	o.backend = "file";
	if (o.dry_run)
		return EXIT_OK;
	return run_trace(&o);
}
