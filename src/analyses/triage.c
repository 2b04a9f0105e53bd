// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * triage: running, waiting for a CPU, or blocked, and on what: one
 * capture of the selected threads, pressure stall information and CPU
 * throttling, turned into a verdict by src/report/triage.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "escape.h"
#include "grow.h"
#include "histan.h"
#include "openblk.h"
#include "procfs.h"
#include "psi.h"
#include "triage.h"
#include "unclaimed.h"

static const char triage_help[] =
"Usage: offcpu-ftrace triage [OPTIONS] [DURATION]\n"
"       offcpu-ftrace triage [OPTIONS] -- COMMAND [ARGS]\n"
"\n"
"Running, or waiting -- and waiting for what? One capture of the selected\n"
"threads (all, -p, -t, -c, --cgroup, or a COMMAND and its descendants):\n"
"time running, waiting for a CPU and blocked, the tails, pressure stall\n"
"information and cgroup CPU throttling, and a verdict with the numbers\n"
"behind it and the next command to run. --format: bcc (text, default),\n"
"json or openmetrics; --by cgroup: also a row per cgroup (container),\n"
"with its own verdict.\n";

/* triage's own options (trace_opts.own): the verdicts' thresholds */
AN_OWN_OPTS(triage_own, struct triage_thresholds)

/* its rows (triage_set) */
enum { TR_TAIL = 1, TR_WAIT, TR_BLOCKED, TR_ONCPU, TR_THROTTLE, TR_DEMAND, TR_UNCLAIMED };

static const char *triage_set(struct trace_opts *o, const struct an_option *opt, const char *arg,
			      char *buf, size_t len)
{
	static const struct anopt_range r[] = {
		{ TR_TAIL, 1, 3600000, "a number of milliseconds" },
		{ TR_WAIT, 0, 100, "a percentage (0..100)" },
		{ TR_BLOCKED, 0, 100, "a percentage (0..100)" },
		{ TR_ONCPU, 0, 100, "a percentage (0..100)" },
		{ TR_THROTTLE, 0, 100, "a percentage (0..100)" },
		{ TR_DEMAND, 0, 100, "a percentage (0..100)" },
		{ TR_UNCLAIMED, 0, 100, "a percentage (0..100)" },
	};
	struct triage_thresholds *th = triage_own_set(o);
	unsigned long long v;
	const char *bad;

	if ((bad = anopt_ranged(opt, arg, r, sizeof(r) / sizeof(r[0]), &v, buf, len)))
		return bad;
	switch (opt->id) {
	case TR_TAIL: th->runq_tail_us = v * 1000; break;
	case TR_WAIT: th->runq_share = (unsigned)v; break;
	case TR_BLOCKED: th->blocked_share = (unsigned)v; break;
	case TR_ONCPU: th->oncpu_share = (unsigned)v; break;
	case TR_THROTTLE: th->throttle_share = (unsigned)v; break;
	case TR_DEMAND: th->wait_demand = (unsigned)v; break;
	case TR_UNCLAIMED: th->unclaimed = (unsigned)v; break;
	default: return "internal: an option without a setter";
	}
	return NULL;
}

#define ROW(name, id, argname, help) { name, 0, required_argument, id, triage_set, argname, help, 0 }
static const struct an_option triage_opts[] = {
	ROW("wait-p99", TR_TAIL, "MS", "p99 wait for a CPU meaning contention (default 5)"),
	ROW("wait-share", TR_WAIT, "PCT", "share of time waiting meaning contention (10)"),
	ROW("blocked-share", TR_BLOCKED, "PCT", "share of time blocked meaning blocked (50)"),
	ROW("oncpu-share", TR_ONCPU, "PCT", "share of time running meaning on-CPU (50)"),
	ROW("throttle-share", TR_THROTTLE, "PCT", "share of the window throttled by cpu.max (5)"),
	ROW("wait-demand", TR_DEMAND, "PCT", "share of the time wanting a CPU spent waiting for\n"
	    "it (p99 >= 1 ms) meaning contention (50)"),
	ROW("unclaimed-share", TR_UNCLAIMED, "PCT", "share of CPU time idle while the threads waited\n"
	    "on busy CPUs that earns a note (5; 0: never)"),
	AN_OPT_END,
};
#undef ROW

static const char triage_examples[] =
"\n"
"Examples:\n"
"  offcpu-ftrace triage 10                   # the whole host, 10 seconds\n"
"  offcpu-ftrace triage -- make -j8          # one build, start to end\n"
"  offcpu-ftrace triage --cgroup /sys/fs/cgroup/ci.slice 30\n"
"  offcpu-ftrace triage --format=json -p 1234 10\n"
"  offcpu-ftrace triage --by cgroup --top 5 30  # which container waits\n";

static const char triage_exit[] =
"\n"
"Exit status: 0 done (with -- COMMAND: its exit status), 1 tracing failed,\n"
"2 bad usage, 3 events lost with --strict, 5 the output could not be\n"
"written. See offcpu-ftrace-triage(8).\n";

/* --by cgroup: one cgroup's time, from the analyzer's intervals */
struct tcg {
	bool used;
	uint64_t running_ns, runq_ns, blk_d_ns, blk_s_ns, parent_ns;
	struct hist runq, blk;		/* waits for a CPU, blocked parts */
};

struct triage_state {
	struct psi psi0;		/* pressure when tracing began */
	struct cpu_throttle thr0;	/* --cgroup's throttling then */
	struct unclaimed *un;		/* idle CPU time while the threads waited */
	struct analyzer *an;
	struct tcg *cg;			/* --by cgroup: by the cache's cgroup id */
	size_t ncg, capcg;
	uint64_t cg_lost;		/* intervals not kept: out of memory */
	struct openblk open;		/* blocks still open at the window's end */
	/*
	 * the blocked parts of off-CPU intervals (to the wakeup) by process,
	 * with their split by state and whether the process started one of
	 * its own
	 */
	struct an_mode_state blk;
	uint64_t oncpu_ns;		/* the selected threads' time on a CPU */
	int32_t *in_tid;		/* per CPU: the selected thread running, or 0 */
	uint64_t *in_ts;		/* ... since when */
};


static const char *triage_what(const struct trace_opts *o)
{
	(void)o;
	return "where time goes (running, waiting for a CPU, blocked)";
}

static void triage_defaults(struct trace_opts *o)
{
	o->modes = AN_RUNQ | AN_OFFCPU;
	*triage_own_set(o) = (struct triage_thresholds){
		.runq_tail_us = 5000, .runq_share = 10, .blocked_share = 50, .oncpu_share = 50,
		.throttle_share = 5, .wait_demand = 50, .unclaimed = 5,
	};
}

static const char *triage_check(const struct trace_opts *o)
{
	if ((o->key != KEY_NONE && o->key != KEY_CGROUP) || o->fmt == FMT_BPFTRACE || o->xval)
		return "triage has no -P/-L/-C, --by other than cgroup, --format=bpftrace or "
		       "--xval";
	if (o->fmt == FMT_SVG)
		return "triage has no svg layout: use bcc, json or openmetrics";
	return NULL;
}

static enum hist_refusal triage_hist(const struct trace_opts *o)
{
	(void)o;
	return HIST_NO_TRIAGE;
}

/* triage names the top process */
static void triage_configure(const struct trace_opts *o, struct an_cfg *cfg)
{
	(void)o;
	cfg->key = KEY_PID;
}

/* the CPU-state model's resolved stream, for the unclaimed share */
static void on_cpu(void *arg, const struct cs_change *c)
{
	struct triage_state *s = arg;

	unclaimed_change(s->un, c);
}

static void on_cpu_late(void *arg, int32_t cpu, uint64_t lo_ns, uint64_t hi_ns)
{
	struct triage_state *s = arg;

	(void)cpu;
	unclaimed_late(s->un, lo_ns, hi_ns);
}

/* its unclaimed share depends on which CPUs were idle */
static bool triage_cpu_state(const struct trace_opts *o)
{
	(void)o;
	return true;
}

/* --by cgroup: @tid's cgroup's row now, NULL when it cannot be kept */
static struct tcg *cg_of(struct triage_state *s, int32_t tid)
{
	int id = an_cgroup_id(s->an, tid);
	struct tcg *v;

	if ((size_t)id >= s->ncg) {
		v = mem_grow_from(s->cg, &s->capcg, (size_t)id, sizeof(*s->cg), 16);
		if (!v) {
			s->cg_lost++;
			return NULL;
		}
		s->cg = v;
		memset(&s->cg[s->ncg], 0, ((size_t)id + 1 - s->ncg) * sizeof(*s->cg));
		s->ncg = (size_t)id + 1;
	}
	s->cg[id].used = true;
	return &s->cg[id];
}

/*
 * the selected threads' time on a CPU, switch-in to switch-out: a switch
 * the trace lost leaves the CPU's running time unknown until the next
 */
static void on_slice(void *arg, const struct an_slice *sl)
{
	struct triage_state *s = arg;
	struct tcg *c;

	if (sl->cpu >= 0 && sl->cpu < AN_MAX_CPUS) {
		int32_t *in = &s->in_tid[sl->cpu];
		uint64_t *since = &s->in_ts[sl->cpu];

		if (!sl->lost && *in && *in == sl->tid && sl->end_ns >= *since)
			s->oncpu_ns += sl->end_ns - *since;
		*in = !sl->lost && sl->next_selected ? sl->next_tid : 0;
		*since = sl->end_ns;
	}
	if (s->cg && sl->selected && sl->tid > 0 && sl->start_ns && sl->end_ns > sl->start_ns &&
	    (c = cg_of(s, sl->tid)))
		c->running_ns += sl->end_ns - sl->start_ns;
}

static void on_wait(void *arg, const struct an_wait *w)
{
	struct triage_state *s = arg;
	struct tcg *c = cg_of(s, w->tid);

	if (c && w->end_ns >= w->start_ns) {
		hist_add(&c->runq, w->end_ns - w->start_ns, s->an->cfg.unit_ns);
		c->runq_ns += w->end_ns - w->start_ns;
	}
}

/*
 * --by cgroup: an interval that began blocked, to its wakeup; a process
 * that started processes of its own (a shell, make) asleep waits for its
 * children, as the window's own numbers leave it out
 */
static void cg_off(struct triage_state *s, const struct an_off *o)
{
	const struct group *g;
	struct tcg *c;

	if (!(c = cg_of(s, o->tid)))
		return;
	/* a parent's, whatever its state, apart: the row's time and tail alike */
	g = groups_find(&s->blk.groups, o->tgid > 0 ? o->tgid : o->tid);
	if (g && g->parent) {
		c->parent_ns += o->blocked_ns;
		return;
	}
	hist_add(&c->blk, o->blocked_ns, s->an->cfg.unit_ns);
	if (o->blk == AN_BLK_D)
		c->blk_d_ns += o->blocked_ns;
	else
		c->blk_s_ns += o->blocked_ns;
}

/* an interval that began blocked: its part up to the wakeup, by process */
static void on_off(void *arg, const struct an_off *o)
{
	struct triage_state *s = arg;
	struct group *g;

	if (o->blk == AN_BLK_NONE)
		return;
	if (s->cg)
		cg_off(s, o);
	g = analyzer_group(s->an, &s->blk, o->tid, o->tgid, o->cpu, o->comm_given);
	if (g) {
		hist_add(&g->h, o->blocked_ns, s->an->cfg.unit_ns);
		blk_split_add(&g->blk, o->blk, o->blocked_ns);
	}
}

/*
 * a selected thread started a process of its own: its process waits for
 * it, and is not "the blocked process"
 */
static void on_fork(void *arg, const struct an_fork *f)
{
	struct triage_state *s = arg;
	struct group *g;

	if (f->process && f->tgid > 0 && (g = groups_get(&s->blk.groups, f->tgid)))
		g->parent = true;
}

/* threads still running when the window closed */
static void on_finish(void *arg, uint64_t end_ns)
{
	struct triage_state *s = arg;
	unsigned i;

	for (i = 0; i < AN_MAX_CPUS; i++)
		if (s->in_tid[i] && end_ns > s->in_ts[i])
			s->oncpu_ns += end_ns - s->in_ts[i];
}

static void on_boundary(void *arg)
{
	struct triage_state *s = arg;

	analyzer_groups_clear(&s->blk);
	s->oncpu_ns = 0;
}

/* the proc backend: a thread's totals for the window */
static void on_totals(void *arg, const struct an_thread *t, int32_t tgid)
{
	struct triage_state *s = arg;
	struct group *g;
	struct tcg *c;

	s->oncpu_ns += t->oncpu_ns;
	if ((t->blk_n || t->blk_ns) &&
	    (g = analyzer_group(s->an, &s->blk, t->tid, tgid, -1, t->comm))) {
		hist_add_total(&g->h, t->blk_n, t->blk_ns, s->an->cfg.unit_ns);
		blk_split_merge(&g->blk, &t->blk);
	}
	if (!s->cg || !(c = cg_of(s, t->tid)))
		return;
	c->running_ns += t->oncpu_ns;
	c->runq_ns += t->runq_ns;
	hist_add_total(&c->runq, t->runq_n, t->runq_ns, s->an->cfg.unit_ns);
	c->blk_d_ns += t->blk.d_ns;
	c->blk_s_ns += t->blk.s_ns + t->blk.other_ns;
	hist_add_total(&c->blk, t->blk_n, t->blk_ns, s->an->cfg.unit_ns);
}

static int triage_setup(const struct trace_opts *o, struct analyzer *an, void **state)
{
	struct triage_state *s = calloc(1, sizeof(*s));
	struct an_sink sink = { .cpu = on_cpu, .cpu_late = on_cpu_late, .slice = on_slice,
				.off = on_off, .totals = on_totals, .fork = on_fork,
				.finish = on_finish, .boundary = on_boundary };
	int ret;

	*state = s;
	if (!s)
		return -ENOMEM;
	s->an = an;
	ret = unclaimed_new(&s->un);
	if (!ret)
		ret = analyzer_groups_init(an, &s->blk);
	if (!ret) {
		s->in_tid = calloc(AN_MAX_CPUS, sizeof(*s->in_tid));
		s->in_ts = calloc(AN_MAX_CPUS, sizeof(*s->in_ts));
		ret = s->in_tid && s->in_ts ? 0 : -ENOMEM;
	}
	if (!ret && o->key == KEY_CGROUP) {
		/* the unknown cgroup's row first: the rows' array is never empty */
		s->cg = calloc(1, sizeof(*s->cg));
		s->ncg = s->capcg = 1;
		sink.wait = on_wait;
		ret = s->cg ? 0 : -ENOMEM;
	}
	sink.arg = s;
	if (!ret)
		ret = openblk_subscribe(&s->open, an);
	return ret ? ret : analyzer_subscribe(an, &sink);
}

static void triage_free(void *state)
{
	struct triage_state *s = state;

	if (s) {
		free(s->un);
		free(s->cg);
		analyzer_groups_fini(&s->blk);
		free(s->in_tid);
		free(s->in_ts);
	}
	free(s);
}

static void triage_begin(void *state, const struct an_view *v)
{
	struct triage_state *s = state;

	psi_read(&s->psi0, v->cgroup && v->cgroup->v2 ? v->cgroup->dir : NULL);
	if (v->cgroup)
		cgroup_throttle(v->cgroup, &s->thr0);
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
 * Could the process of @g be "the one blocked longest"? Not offcpu-ftrace
 * itself, and, for sleeping, not a parent that only waits for its
 * children (it started a process, or sleeps in wait4() now).
 */
static bool blocked_candidate(const struct an_view *v, const struct group *g, bool asleep)
{
	if (g->id == GROUP_OTHER || g->id <= 0)
		return false;
	if ((v->recorder && g->id == v->recorder) ||
	    !strncmp(g->comm, "offcpu-ftrace", COMM_LEN))
		return false;
	if (asleep && (g->parent || (!v->replay_path &&
				     proc_waits_for_child((int32_t)g->id))))
		return false;
	return true;
}

/* blocked time by state, and who was blocked (D) and asleep (S) longest */
static void blocked_split(const struct triage_state *st, const struct an_view *v,
			  struct triage_in *in)
{
	const struct groups *gs = &st->blk.groups;
	const struct group *d = NULL, *s = NULL;
	uint32_t i;

	in->blocked_ns = in->blocked_d_ns = in->blocked_s_ns = in->parent_wait_ns = 0;
	for (i = 0; i < gs->n; i++) {
		const struct group *g = gs->v[i];
		uint64_t sl = g->blk.s_ns + g->blk.other_ns;

		/*
		 * a parent asleep while its children work: their time tells,
		 * and its blocked intervals (all of them, as in the tails:
		 * blocked_merge) are apart
		 */
		if (g->parent) {
			in->parent_wait_ns += sl + g->blk.d_ns;
			continue;
		}
		in->blocked_d_ns += g->blk.d_ns;
		in->blocked_s_ns += sl;
		if (g->blk.d_ns && blocked_candidate(v, g, false) &&
		    (!d || g->blk.d_ns > d->blk.d_ns))
			d = g;
		if (sl && blocked_candidate(v, g, true) &&
		    (!s || sl > s->blk.s_ns + s->blk.other_ns))
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

/*
 * The blocked intervals' distribution, over the threads and intervals
 * their time covers: a parent's (blocked_split) into @parents instead
 */
static void blocked_merge(const struct groups *gs, struct hist *h, struct hist *parents)
{
	uint32_t i;

	hist_reset(h);
	hist_reset(parents);
	for (i = 0; i < gs->n; i++)
		hist_merge(gs->v[i]->parent ? parents : h, &gs->v[i]->h);
}

static void merge_groups(const struct groups *gs, struct hist *h)
{
	uint32_t i;

	hist_reset(h);
	for (i = 0; i < gs->n; i++)
		hist_merge(h, &gs->v[i]->h);
}

/* the scope in words, and the options that repeat it */
static void triage_scope(const struct an_view *v, char *scope, size_t slen, char *next,
			 size_t nlen)
{
	const struct trace_opts *o = v->o;
	const struct rec_scope *rs = v->recorded;

	if (rs && !strcmp(rs->kind, "command")) {
		/* a report of a recording made with -- COMMAND: the scope applies by itself */
		snprintf(scope, slen, "%s and its descendants (as recorded)",
			 rs->command[0] ? rs->command : "the command");
		snprintf(next, nlen, "%s", "");
	} else if (rs) {
		snprintf(scope, slen, "%s %d (as recorded)",
			 !strcmp(rs->kind, "pid") ? "process" : "thread", rs->id);
		snprintf(next, nlen, "%s", "");
	} else if (v->child) {
		size_t n;

		snprintf(scope, slen, "%s and its descendants", o->command[0]);
		n = (size_t)snprintf(next, nlen, "-- ");
		if (n < nlen)
			shell_quote_argv(next + n, nlen - n, o->command, 160);
	} else if (o->pid >= 0) {
		snprintf(scope, slen, "process %d", o->pid);
		snprintf(next, nlen, "-p %d%s", o->pid, v->replay_path ? "" : " 10");
	} else if (o->tid >= 0) {
		snprintf(scope, slen, "thread %d", o->tid);
		snprintf(next, nlen, "-t %d%s", o->tid, v->replay_path ? "" : " 10");
	} else if (o->cgroup) {
		snprintf(scope, slen, "cgroup %s", v->cgroup ? v->cgroup->dir : o->cgroup);
		snprintf(next, nlen, "--cgroup %s 10", o->cgroup);
	} else if (o->comm[0]) {
		snprintf(scope, slen, "threads named %s", o->comm);
		snprintf(next, nlen, "-c %s%s", o->comm, v->replay_path ? "" : " 10");
	} else {
		snprintf(scope, slen, "all threads");
		snprintf(next, nlen, "%s", v->replay_path ? "" : "10");
	}
}

/* a recording without kernel stacks: the command that makes one with them */
static void triage_restack(const struct an_view *v, char *buf, size_t len)
{
	const struct trace_opts *o = v->o;
	const struct rec_scope *rs = v->recorded;

	if (rs && !strcmp(rs->kind, "command") && rs->command[0])
		snprintf(buf, len, "offcpu-ftrace record -K -o FILE -- %s", rs->command);
	else
		snprintf(buf, len, "offcpu-ftrace record -K -o FILE %s",
			 o->pid >= 0 || (rs && !strcmp(rs->kind, "pid")) ? "-p PID 10" :
			 o->tid >= 0 || (rs && !strcmp(rs->kind, "tid")) ? "-t TID 10" : "10");
}

/* what happened to the cgroup and the host's pressure over the window */
static void triage_pressure(const struct triage_state *s, const struct an_view *v,
			    struct triage_in *in)
{
	struct cpu_throttle thr;

	in->psi_before = s->psi0;
	if (!v->replay_path)	/* a recording holds no pressure figures */
		psi_read(&in->psi_after, v->cgroup && v->cgroup->v2 ? v->cgroup->dir : NULL);
	if (v->cgroup) {
		cgroup_throttle(v->cgroup, &thr);
		in->have_throttle = thr.have && s->thr0.have;
		in->nr_throttled = thr.nr_throttled - s->thr0.nr_throttled;
		in->throttled_ns = thr.throttled_ns - s->thr0.throttled_ns;
		in->periods = thr.periods - s->thr0.periods;
	}
}

/* the window's unclaimed share: of every CPU's time, idle while they waited elsewhere */
static void triage_unclaimed(struct triage_state *s, const struct an_view *v,
			     struct triage_in *in)
{
	uint64_t start = v->iv_start_ns, end = v->iv_end_ns;
	struct unclaimed_result r;

	if (!start || !end) {
		/* the trace clock's bounds not known: its last event, the window's length */
		unclaimed_advance(s->un, v->an->last_ts);
		end = (start = 0) + (uint64_t)(v->duration_s * 1e9);
	} else {
		unclaimed_advance(s->un, end > v->an->last_ts ? end : v->an->last_ts);
	}
	unclaimed_result(s->un, v, v->ncpu ? v->ncpu : (unsigned)s->un->ncpu, end - start, &r);
	in->unclaimed = r.share;
	in->unclaimed_min = r.min;
	in->unclaimed_max = r.max;
	in->unclaimed_partial = !r.exact;
	in->cpu_unknown_ns = r.unknown_ns;
	in->cpu_proc = r.proc;
}

static uint64_t busy_ns(const struct tcg *c)
{
	return c->running_ns + c->runq_ns + c->blk_d_ns;
}

/* the busiest first: running, waiting for a CPU or in D; then all their time */
static int by_busy(const void *a, const void *b)
{
	const struct tcg *x = *(const struct tcg *const *)a, *y = *(const struct tcg *const *)b;
	uint64_t bx = busy_ns(x), by = busy_ns(y);

	if (bx == by) {
		bx += x->blk_s_ns;
		by += y->blk_s_ns;
	}
	return bx > by ? -1 : bx < by;
}

/*
 * @c's numbers as the row's, and their verdict under the window's
 * thresholds; a row with less thread time than ROW_MIN_SHARE of the
 * window (a process that came and went) is too small for one
 */
#define ROW_MIN_SHARE 0.01

static void fill_row(struct triage_row *r, const struct tcg *c, const struct triage_in *in)
{
	struct triage_in one = *in;
	double total, need = in->window_s * 1e9 * ROW_MIN_SHARE;

	one.running_ns = r->running_ns = c->running_ns;
	one.runq_ns = r->runq_ns = c->runq_ns;
	one.blocked_d_ns = r->blocked_d_ns = c->blk_d_ns;
	one.blocked_s_ns = r->blocked_s_ns = c->blk_s_ns;
	one.blocked_ns = r->blocked_ns = c->blk_d_ns + c->blk_s_ns;
	one.runq = r->runq = &c->runq;
	one.blocked = r->blocked = &c->blk;
	r->parent_wait_ns = c->parent_ns;
	one.have_throttle = false;	/* the window's --cgroup, not this one */
	one.top_d_pid = one.top_s_pid = -1;
	triage_verdict(&one, &r->v);
	total = (double)r->running_ns + (double)r->runq_ns + (double)r->blocked_ns;
	if (total > 0 && total < need) {
		r->v.kind = VERDICT_IDLE;
		r->v.name = "idle";
		snprintf(r->v.why, sizeof(r->v.why), "its threads were in the window %.3f ms in "
			 "all, under the %.3g ms (%.0f%% of the window) a verdict needs",
			 total / 1e6, need / 1e6, ROW_MIN_SHARE * 100);
		snprintf(r->v.next, sizeof(r->v.next), "nothing here: trace longer if it matters");
	}
}

/*
 * --by cgroup: a row per cgroup the busiest first, --top N of them and the
 * rest merged into "other" (in *@other); NULL when out of memory
 */
static struct triage_row *cgroup_rows(struct triage_state *s, const struct an_view *v,
				      const struct triage_in *in, struct tcg *other, size_t *n)
{
	struct tcg **by = calloc(s->ncg, sizeof(*by));
	struct triage_row *rows = calloc(s->ncg + 1, sizeof(*rows));
	unsigned top = v->o->top;
	size_t i, k, used = 0;

	*n = 0;
	if (!by || !rows) {
		free(by);
		free(rows);
		return NULL;
	}
	for (i = 0; i < s->ncg; i++)
		if (s->cg[i].used)
			by[used++] = &s->cg[i];
	qsort(by, used, sizeof(*by), by_busy);
	memset(other, 0, sizeof(*other));
	for (i = 0; i < used; i++) {
		if (top && i >= top) {
			other->running_ns += by[i]->running_ns;
			other->runq_ns += by[i]->runq_ns;
			other->blk_d_ns += by[i]->blk_d_ns;
			other->blk_s_ns += by[i]->blk_s_ns;
			other->parent_ns += by[i]->parent_ns;
			hist_merge(&other->runq, &by[i]->runq);
			hist_merge(&other->blk, &by[i]->blk);
			continue;
		}
		k = (size_t)(by[i] - s->cg);
		rows[*n].name = an_cgroup_name(s->an, (int)k, &rows[*n].path);
		fill_row(&rows[(*n)++], by[i], in);
	}
	if (top && used > top) {
		rows[*n].name = "other";
		fill_row(&rows[(*n)++], other, in);
	}
	free(by);
	return rows;
}

static int triage_print_iv(void *state, const struct an_view *v, enum out_format fmt, FILE *f)
{
	struct triage_state *s = state;
	struct triage_row *rows = NULL;
	struct tcg other;
	char scope[4200], next[4200], tool[4200], restack[512];
	const struct group *g;
	struct triage_in in;
	struct hist runq, blk, pblk;

	memset(&in, 0, sizeof(in));
	triage_scope(v, scope, sizeof(scope), next, sizeof(next));
	in.scope = scope;
	in.next_scope = next;
	if (v->replay_path) {
		snprintf(tool, sizeof(tool), "offcpu-ftrace report %s", v->replay_path);
		in.next_tool = tool;
		in.next_window = "";
	}
	in.window_s = v->duration_s;
	in.wall = v->wall;
	in.backend = v->backend;
	in.clock = v->clock;
	merge_groups(&v->an->runq.groups, &runq);
	blocked_merge(&s->blk.groups, &blk, &pblk);
	in.runq = &runq;
	in.blocked = &blk;
	in.parent_waits = &pblk;
	in.running_ns = s->oncpu_ns;
	in.runq_ns = runq.sum_ns;
	/* blocked intervals without the wait for a CPU after the wakeup */
	blocked_split(s, v, &in);
	in.by_command = v->child;
	if (v->replay_path && !(v->events & (1u << SEV_KSTACK))) {
		triage_restack(v, restack, sizeof(restack));
		in.restack = restack;
	}
	in.top_runq_pid = -1;
	if ((g = top_group(&v->an->runq.groups))) {
		in.top_runq_pid = (int32_t)g->id;
		memcpy(in.top_runq_comm, g->comm, COMM_LEN);
	}
	triage_pressure(state, v, &in);
	in.th = *triage_own(v->o);
	in.lost = v->lost;
	in.missed_switch = v->an->counts.missed_switch;
	in.unmeasured = v->an->counts.unmeasured;
	in.inferred = v->an->counts.inferred;
	in.recovered = v->recovered;
	in.partial = v->lost || v->dropped || v->rejected || analyzer_partial(v->an) ||
		     (analyzer_matched_nothing(v->an) && !v->nwhole);
	triage_unclaimed(state, v, &in);
	in.open = openblk_fill(&s->open, v);
	in.steal_known = v->steal_known;
	in.steal_ns = v->steal_ns;
	/* /proc/stat's steal grows on the online CPUs (v->ncpu is the
	 * backend's count, possible CPUs on some) */
	in.ncpu = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	if (v->sampling) {
		in.sampling = v->sampling;
		in.command_cpu_ns = v->child_cpu_ns;
		in.unclaimed = -1;	/* no queues in /proc's counters */
	}
	if (s->cg) {
		rows = cgroup_rows(s, v, &in, &other, &in.nrows);
		if (!rows)
			return -ENOMEM;
		in.rows = rows;
		in.rows_lost = s->cg_lost;
	}
	errno = 0;
	triage_print(f, fmt, &in);
	free(rows);
	return ferror(f) ? (errno ? -errno : -EIO) : 0;
}

const struct analysis analysis_triage = {
	.name = "triage",
	.summary = "running or waiting, and for what: a verdict",
	.flags = AN_F_REPORT | AN_F_TIDS,
	.options = (const struct an_option *const[]){ anopt_by, triage_opts, NULL },
	.usage = triage_help,
	.examples = triage_examples,
	.exit_help = triage_exit,
	.text_output = "the text report",
	.what = triage_what,
	.defaults = triage_defaults,
	.check = triage_check,
	.hist = triage_hist,
	.configure = triage_configure,
	.cpu_state = triage_cpu_state,
	.setup = triage_setup,
	.begin = triage_begin,
	.print = triage_print_iv,
	.free = triage_free,
};
