// SPDX-License-Identifier: GPL-2.0-or-later
/* A run's output: symbols for stacks, each interval's report, triage, --xval's comparison. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "escape.h"
#include "procfs.h"
#include "svg.h"
#include "run.h"
#include "sig.h"
#include "triage.h"

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

/*
 * triage: could the process of @g be "the one blocked longest"? Not
 * offcpu-ftrace itself, and, for sleeping, not a parent that only waits
 * for its children (it started a process, or sleeps in wait4() now).
 */
static bool blocked_candidate(const struct run *r, const struct group *g, bool asleep)
{
	if (g->id == GROUP_OTHER || g->id <= 0)
		return false;
	if ((!r->o->replay_path && g->id == getpid()) ||
	    (r->o->replay_path && g->id == r->rscope.recorder) ||
	    !strncmp(g->comm, "offcpu-ftrace", COMM_LEN))
		return false;
	if (asleep && (g->parent || (!r->o->replay_path &&
				     proc_waits_for_child((int32_t)g->id))))
		return false;
	return true;
}

/* triage: blocked time by state, and who was blocked (D) and asleep (S) longest */
static void blocked_split(const struct run *r, struct triage_in *in)
{
	const struct groups *gs = &r->an.blk.groups;
	const struct group *d = NULL, *s = NULL;
	uint32_t i;

	in->blocked_ns = in->blocked_d_ns = in->blocked_s_ns = in->parent_wait_ns = 0;
	for (i = 0; i < gs->n; i++) {
		const struct group *g = gs->v[i];
		uint64_t sl = g->blk_s_ns + g->blk_other_ns;

		/* a parent asleep while its children work: their time tells */
		if (g->parent) {
			in->parent_wait_ns += sl;
			sl = 0;
		}
		in->blocked_d_ns += g->blk_d_ns;
		in->blocked_s_ns += sl;
		if (g->blk_d_ns && blocked_candidate(r, g, false) &&
		    (!d || g->blk_d_ns > d->blk_d_ns))
			d = g;
		if (sl && blocked_candidate(r, g, true) &&
		    (!s || sl > s->blk_s_ns + s->blk_other_ns))
			s = g;
	}
	in->blocked_ns = in->blocked_d_ns + in->blocked_s_ns;
	in->top_d_pid = d ? (int32_t)d->id : -1;
	in->top_s_pid = s ? (int32_t)s->id : -1;
	if (d)
		memcpy(in->top_d_comm, d->comm, COMM_LEN);
	if (s)
		memcpy(in->top_s_comm, s->comm, COMM_LEN);
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

	if (r->scope_applied && !strcmp(r->rscope.kind, "command")) {
		/* a report of a recording made with -- COMMAND: the scope applies by itself */
		snprintf(scope, slen, "%s and its descendants (as recorded)",
			 r->rscope.command[0] ? r->rscope.command : "the command");
		snprintf(next, nlen, "%s", "");
	} else if (r->scope_applied) {
		snprintf(scope, slen, "%s %d (as recorded)",
			 !strcmp(r->rscope.kind, "pid") ? "process" : "thread", r->rscope.id);
		snprintf(next, nlen, "%s", "");
	} else if (r->have_child) {
		size_t n;

		snprintf(scope, slen, "%s and its descendants", o->command[0]);
		n = (size_t)snprintf(next, nlen, "-- ");
		if (n < nlen)
			shell_quote_argv(next + n, nlen - n, o->command, 160);
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
	struct backend_sampling smp;
	const struct trace_opts *o = r->o;
	char scope[4200], next[4200], tool[4200], restack[512];
	const struct group *g;
	struct triage_in in;
	struct hist runq, blk;
	struct cpu_throttle thr;

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
	in.wall = time(NULL);
	in.backend = r->ops->name;
	in.clock = r->clock;
	merge_groups(&r->an.runq.groups, &runq);
	merge_groups(&r->an.blk.groups, &blk);
	in.runq = &runq;
	in.blocked = &blk;
	in.running_ns = r->an.counts.oncpu_ns;
	in.runq_ns = runq.sum_ns;
	/* blocked intervals without the wait for a CPU after the wakeup */
	blocked_split(r, &in);
	in.by_command = r->have_child;
	if (o->replay_path && !(r->ops->events(r->b) & (1u << SEV_KSTACK))) {
		if (r->scope_applied && !strcmp(r->rscope.kind, "command") && r->rscope.command[0])
			snprintf(restack, sizeof(restack), "offcpu-ftrace record -K -o FILE -- %s",
				 r->rscope.command);
		else
			snprintf(restack, sizeof(restack), "offcpu-ftrace record -K -o FILE %s",
				 o->pid >= 0 || !strcmp(r->rscope.kind, "pid") ? "-p PID 10" :
				 o->tid >= 0 || !strcmp(r->rscope.kind, "tid") ? "-t TID 10" : "10");
		in.restack = restack;
	}
	in.top_runq_pid = -1;
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
	in.th.wait_demand = o->th.wait_demand;
	in.lost = lost;
	in.missed_switch = r->an.counts.missed_switch;
	in.unmeasured = r->an.counts.unmeasured;
	in.inferred = r->an.counts.inferred;
	in.recovered = recovered;
	in.partial = lost || analyzer_partial(&r->an);
	if (r->ops->sampling && !r->ops->sampling(r->b, &smp)) {
		in.sampling = &smp;
		in.command_cpu_ns = r->have_child && r->child.reaped ? r->child.cpu_ns : 0;
	}
	errno = 0;
	triage_print(r->out.f, o->fmt, &in);
	return ferror(r->out.f) ? (errno ? -errno : -EIO) : 0;
}

static int print_one(struct run *r, unsigned n, uint64_t dur_ns, bool final)
{
	const struct trace_opts *o = r->o;
	struct an_mode_state *m = (o->modes & AN_RUNQ) ? &r->an.runq : &r->an.off;
	uint64_t lost = 0, lost_iv[1024], recovered = 0;
	struct backend_sampling smp;
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
	/* --top ranks the stacks when there are any, else the histograms */
	rep.top = o->kstack || o->ustack ? 0 : o->top;
	rep.replaces = o->output_path != NULL;
	if (o->fmt == FMT_SVG && o->interval_mode && !o->kstack && !o->ustack) {
		if (!r->heat)
			r->heat = heat_new();
		rep.heat = r->heat;
	}
	rep.lost = lost;
	rep.recovered = recovered;
	if (r->ops->sampling && !r->ops->sampling(r->b, &smp)) {
		rep.sampling = &smp;
		rep.command_cpu_ns = r->have_child && r->child.reaped ? r->child.cpu_ns : 0;
	}
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
		rep.late_stacks = r->late.on;
		rep.late_unknown_frames = r->late.unknown_frames;
		rep.late_unreadable = r->late.unreadable;
		rep.late_unreadable_errno = r->late.unreadable_errno;
	}
	errno = 0;
	report_print(r->out.f, o->fmt, &rep);
	if (ferror(r->out.f))
		return errno ? -errno : -EIO;
	if (final && r->xval)
		xval_report(r, &rep);
	return 0;
}

int run_print_interval(struct run *r, unsigned n, uint64_t dur_ns, bool final)
{
	char err[512];
	int ret;

	/* each interval a whole file: -o with -i keeps the latest one */
	ret = out_begin(&r->out, r->o->output_path, err, sizeof(err));
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
