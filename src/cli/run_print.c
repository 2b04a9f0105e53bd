// SPDX-License-Identifier: GPL-2.0-or-later
/* A run's output: symbols for stacks, each interval handed to its analysis, --xval's comparison. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "escape.h"
#include "procfs.h"
#include "svg.h"
#include "run.h"
#include "sig.h"

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
int run_setup_symbols(struct run *r)
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
			note_msg("/proc/kallsyms hides kernel addresses (kptr_restrict): "
				"kernel frames are printed as raw addresses");
	}
	/* this host's /proc: not the recording's; samples carry user frames */
	if ((o->ustack || (o->an->flags & AN_F_SAMPLES)) && !o->replay_path) {
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
static void xval_report(struct run *r, const struct an_view *v)
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
		r->o->an->print(r->an_state, v, FMT_JSON, m);
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
		a = (struct cmp_side){ "offcpu-ftrace", what, &da, NULL };
		b = (struct cmp_side){ "bpftrace", "the same rules as a bpftrace program", &db, NULL };
		if (r->o->fmt == FMT_JSON) {
			cmp_print_json(r->out.f, &a, &b, 0, false);
		} else {
			fprintf(r->out.f, "\n# cross-validation with bpftrace over the same window:\n");
			cmp_print(r->out.f, &a, &b, 0, false);
		}
	}
	free(json);
	peerhist_free(bt);
	peerhist_free(bt1);
	peerhist_free(ours);
	peerhist_free(ours1);
}

void run_view(const struct run *r, struct an_view *v)
{
	const struct trace_opts *o = r->o;

	memset(v, 0, sizeof(*v));
	v->o = o;
	v->an = (struct analyzer *)&r->an;
	v->backend = r->ops->name;
	v->backend_why = r->why[0] ? r->why : NULL;
	v->clock = r->clock;
	v->events = r->b ? r->ops->events(r->b) : 0;
	v->backend_caps = r->ops->caps;
	v->replaces = r->out.kind == OUT_FILE;
	v->start_ns = r->start_ns;
	if (!o->replay_path && r->mono) {
		struct timespec rt, mt;

		clock_gettime(CLOCK_REALTIME, &rt);
		clock_gettime(CLOCK_MONOTONIC, &mt);
		v->wall_known = true;
		v->wall_off_ns = ((int64_t)rt.tv_sec - (int64_t)mt.tv_sec) * 1000000000LL +
				 (rt.tv_nsec - mt.tv_nsec);
	}
	v->sym = &r->sym;
	v->late.on = r->late.on;
	v->late.unknown_frames = r->late.unknown_frames;
	v->late.unreadable = r->late.unreadable;
	v->late.unreadable_errno = r->late.unreadable_errno;
	v->replay_path = o->replay_path;
	v->recorded = r->scope_applied ? &r->rscope : NULL;
	v->recorder = o->replay_path ? r->rscope.recorder : (int32_t)getpid();
	v->child = r->have_child;
	v->child_cpu_ns = r->have_child && r->child.reaped ? r->child.cpu_ns : 0;
	v->cgroup = o->cgroup ? &r->cg : NULL;
	v->whole = r->whole;
	v->nwhole = r->nwhole;
}

void run_whole_start(struct run *r)
{
	const struct trace_opts *o = r->o;
	const int32_t *tids = o->pid >= 0 ? r->start_tids : &o->tid;
	unsigned n = o->pid >= 0 ? r->nstart_tids : o->tid >= 0 ? 1 : 0, i;
	uint64_t delay;

	/* only where /proc names the trace's threads (not the host's pids) */
	if (!n || o->replay_path || r->host_pids)
		return;
	r->snap = calloc(n, sizeof(*r->snap));
	for (i = 0; r->snap && i < n; i++)
		if (!proc_schedstat(tids[i], &r->snap[r->nsnap].exec, &delay,
				    &r->snap[r->nsnap].pcount))
			r->snap[r->nsnap++].tid = tids[i];
}

void run_whole_end(struct run *r, uint64_t window_ns)
{
	uint64_t exec, delay, pcount;
	unsigned i;

	if (!r->nsnap || r->whole)
		return;
	r->whole = calloc(r->nsnap, sizeof(*r->whole));
	for (i = 0; r->whole && i < r->nsnap; i++) {
		struct open_block *b = &r->whole[r->nwhole];

		/*
		 * it never ran since tracing began, and is blocked now: not
		 * switched in (pcount) and no CPU time (a thread on a CPU at the
		 * first read that blocks later is switched out, never in)
		 */
		if (proc_schedstat(r->snap[i].tid, &exec, &delay, &pcount) ||
		    pcount != r->snap[i].pcount || exec != r->snap[i].exec ||
		    proc_task_blocked(r->snap[i].tid, b->state, sizeof(b->state), b->where,
				      sizeof(b->where)) != 1)
			continue;
		b->tid = r->snap[i].tid;
		if (proc_comm(b->tid, b->comm, sizeof(b->comm)))
			b->comm[0] = '\0';
		b->so_far_ns = window_ns;
		b->whole_window = true;
		r->nwhole++;
	}
}

/* the backend's counters since the last print: lost, recovered, dropped, rejected */
static void interval_counts(struct run *r, struct an_view *v, uint64_t *lost_iv)
{
	unsigned i;

	r->ncpu = r->ops->lost(r->b, r->lost_now, RUN_MAX_CPUS);
	for (i = 0; i < r->ncpu; i++) {
		lost_iv[i] = r->lost_now[i] - r->lost_prev[i];
		r->lost_prev[i] = r->lost_now[i];
		v->lost += lost_iv[i];
	}
	v->lost_cpu = lost_iv;
	v->ncpu = r->ncpu;
	r->lost_total += v->lost;
	if (r->ops->recovered) {
		uint64_t now = r->ops->recovered(r->b);

		v->recovered = now - r->recovered_prev;
		r->recovered_prev = now;
	}
	if (r->ops->dropped) {
		uint64_t now = r->ops->dropped(r->b);

		v->dropped = now - r->dropped_prev;
		r->dropped_prev = now;
	}
	if (r->ops->rejected) {
		uint64_t now = r->ops->rejected(r->b);

		v->rejected = now - r->rejected_prev;
		r->rejected_prev = now;
		r->rejected_total += v->rejected;
	}
}

/*
 * /proc/stat's idle time per CPU in the interval, into the view, and the
 * CPU-state model resolved up to the interval's end with it (accurate to
 * a tick at each end, and the few milliseconds between a read and the
 * interval's bound)
 */
static void close_cpus(struct run *r, struct an_view *v)
{
	uint64_t tol = 2 * proc_tick_ns() + 2000000;
	int i;

	if (r->proc_ok) {
		for (i = 0; i < r->proc_n; i++)
			r->proc_iv[i] = r->proc_now[i] > r->proc_prev[i] ?
					r->proc_now[i] - r->proc_prev[i] : 0;
		memcpy(r->proc_prev, r->proc_now, sizeof(r->proc_prev));
		v->proc_idle = r->proc_iv;
		v->proc_listed = r->proc_listed;
		v->nproc = (unsigned)r->proc_n;
		v->proc_tol_ns = tol;
	}
	analyzer_close_cpus(&r->an, r->iv_end_ns > r->an.last_ts ? r->iv_end_ns : r->an.last_ts,
			    v->proc_idle, v->proc_listed, v->nproc, tol);
}

static int print_one(struct run *r, unsigned n, uint64_t dur_ns, bool final)
{
	struct backend_sampling smp;
	struct unsized_result us;
	struct an_view v;
	uint64_t steal;
	int ret;

	run_view(r, &v);
	interval_counts(r, &v, r->lost_iv);
	close_cpus(r, &v);
	r->late_total += r->an.counts.late;
	r->negative_total += r->an.runq.inc.negative + r->an.off.inc.negative;
	if (analyzer_partial(&r->an) || v.dropped || v.rejected ||
	    (analyzer_matched_nothing(&r->an) && !v.nwhole))
		r->partial_total++;
	if (analyzer_cpu_unknown_ns(&r->an) && !v.dropped && !v.rejected &&
	    !r->an.counts.missed_switch && !r->an.counts.unmeasured &&
	    !r->an.counts.slice_unmeasured && !r->an.counts.late &&
	    !r->an.runq.inc.negative && !r->an.off.inc.negative &&
	    !analyzer_matched_nothing(&r->an))
		r->partial_cpu_only++;
	v.duration_s = (double)dur_ns / 1e9;
	v.iv_start_ns = r->iv_start_ns;
	v.iv_end_ns = r->iv_end_ns;
	v.interval = n;
	v.final = final;
	v.wall = time(NULL);
	v.stopped_by = sig_count ? sig_name(sig_last) : NULL;
	if (r->ops->sampling && !r->ops->sampling(r->b, &smp))
		v.sampling = &smp;
	if (r->steal_ok && !proc_steal_ns(&steal)) {
		v.steal_known = true;
		v.steal_ns = steal > r->steal_prev ? steal - r->steal_prev : 0;
		r->steal_prev = steal;
	}
	if (unsized_interval(&r->unsized, &us)) {
		v.unmeasured_sized = true;
		v.unmeasured_ns = us.ns;
		v.unmeasured_unsized = us.unsized;
		v.sched_threads = us.alive;
		v.sched_run_delay_ns = us.alive_rd_ns;
		v.sched_measured_ns = us.alive_measured_ns;
		v.sched_gone = us.gone;
		v.sched_gone_measured_ns = us.gone_measured_ns;
		v.sched_gone_sized = us.exits_heard ? (int64_t)us.gone_sized : -1;
	}
	ret = r->o->an->print(r->an_state, &v, r->o->fmt, r->out.f);
	if (ret)
		return ret;
	/* what the analysis found missing itself (a critical path's lost link) */
	if (r->o->an->partial && r->o->an->partial(r->an_state))
		r->partial_total++;
	if (final && r->xval)
		xval_report(r, &v);
	return 0;
}

int run_print_interval(struct run *r, unsigned n, uint64_t dur_ns, bool final)
{
	char err[512];
	int ret;

	/* each interval a whole file: -o with -i keeps the latest one */
	ret = out_begin(&r->out, err, sizeof(err));
	if (ret) {
		err_msg("%s", err);
		return ret;
	}
	ret = print_one(r, n, dur_ns, final);
	if (ret) {
		err_msg("cannot write the output%s%s: %s", r->o->output_path ? " to " : "",
			r->o->output_path ? r->o->output_path : "", strerror(-ret));
		out_end(&r->out, false, err, sizeof(err));
		return ret;
	}
	ret = out_end(&r->out, true, err, sizeof(err));
	if (ret)
		err_msg("%s", err);
	return ret;
}
