// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * profile: where wall-clock time went, in totals, per thread (or process,
 * name, cgroup) and in one flame graph: on a CPU (sampled with the CPU
 * clock, weighted by each sample's period; the exact total from the
 * switches), waiting for a CPU (run-queue waits), blocked (off-CPU, by
 * the state it began in) and waiting for children (a parent in wait4),
 * each by stack. Every nanosecond of a thread's life in the window is one
 * of them. The flame graph is one tower per name (a build's tools), per
 * thread with -L. The output is src/report/wallprof.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hash.h"
#include "histan.h"
#include "profile.h"
#include "svg.h"
#include "timehist.h"

static const char profile_help[] =
"Usage: offcpu-ftrace profile [OPTIONS] [DURATION]\n"
"       offcpu-ftrace profile [OPTIONS] -- COMMAND [ARGS]\n"
"\n"
"Where wall-clock time goes: on a CPU (sampled with the CPU clock at -F\n"
"Hz, by kernel and user stack), waiting for a CPU, blocked (by the state\n"
"it began in) and waiting for children (a parent in wait4), each by\n"
"stack: the totals for all threads, a row per thread, one flame graph.\n"
"Every nanosecond of each thread's life in the window is one of them.\n"
"The perf backend samples (auto picks it where perf events are allowed);\n"
"ring has on-CPU time from the switches without stacks, proc each\n"
"thread's totals; 'report FILE profile' a recording's, from its switches.\n"
"User stacks need frame pointers: code built without them ends the stack\n"
"at its first function. The table: a row per thread (the default, -L),\n"
"per process (-P), per name (--by comm: a build's tools) or per cgroup\n"
"(--by cgroup). The flame graph and -f: a tower per name (the default and\n"
"--by comm), per thread (-L), per process (-P), per cgroup then name\n"
"(--by cgroup). --format: bcc (the table, default), json, svg (the flame\n"
"graph, its legend: on-CPU warm, run queue purple, blocked blue, waiting\n"
"for children green), or perfetto (a timeline for Perfetto's UI and\n"
"speedscope: each thread's states, a track per CPU, wakeups as flows,\n"
"each sample an instant with its stack); -f: folded lines (flamegraph.pl,\n"
"speedscope): name;user frames;kernel frames;[kind] microseconds.\n";

static const char profile_examples[] =
"\n"
"Examples:\n"
"  offcpu-ftrace profile -- make -j8                  # where the build's time went\n"
"  offcpu-ftrace profile --by comm -- make -j8        # ... by tool (cc1, as, ld, sh)\n"
"  offcpu-ftrace profile --format=svg -o p.svg -p 1234 30\n"
"  offcpu-ftrace profile -f -P -- ./test.sh > prof.folded\n"
"  offcpu-ftrace report build.dat profile --by comm   # from a recording\n";

/*
 * profile's own options (trace_opts.own). First, what its --format=perfetto
 * timeline (timehist's code, analysis_timehist_profile) reads as timehist's
 * own options: left zero, timehist's defaults.
 */
struct profile_opts {
	struct timehist_opts timeline;
	bool critical_path;	/* --critical-path: what decided the command's wall time */
};
AN_OWN_OPTS(profile_own, struct profile_opts)

enum { PR_CRITICAL_PATH = 1 };

static const char *profile_set(struct trace_opts *o, const struct an_option *opt,
			       const char *arg, char *buf, size_t len)
{
	(void)arg;
	(void)buf;
	(void)len;
	if (opt->id != PR_CRITICAL_PATH)
		return "internal: an option without a setter";
	profile_own_set(o)->critical_path = true;
	return NULL;
}

static const struct an_option profile_opts[] = {
	{ "frequency", 'F', required_argument, ANO_FREQUENCY, anopt_apply, "HZ",
	  "on-CPU samples per second (default 99: off the\n"
	  "kernel's tick, so samples do not lock step with it)", 0 },
	{ "user-stacks", 'U', no_argument, ANO_USTACK, anopt_apply, NULL,
	  "user stacks where threads block or wait too (the\n"
	  "samples always have them): a walk per switch, costly\n"
	  "where threads switch often", 0 },
	{ "critical-path", 0, no_argument, PR_CRITICAL_PATH, profile_set, NULL,
	  "with -- COMMAND: the path back from its end through\n"
	  "who woke whom, which waits decided its wall time: by\n"
	  "thread and state, and as a story (-f, --format=json,\n"
	  "svg: the path alone; perfetto: marked on the threads)", 0 },
	AN_OPT_END,
};

static const char *profile_what(const struct trace_opts *o)
{
	/* a recording keeps no samples */
	return o->replay_path ? "wall-clock time (on-CPU from the switches, waiting for a CPU, "
				"off-CPU)" :
	       "wall-clock time (on-CPU sampled, waiting for a CPU, off-CPU)";
}

static void profile_defaults(struct trace_opts *o)
{
	o->modes = AN_RUNQ | AN_OFFCPU;
	/*
	 * kernel stacks at every switch-out; user stacks there only with -U
	 * (a user stack walk per switch doubles the cost where threads switch
	 * often: docs/performance.md); the samples always have both. A
	 * recording without kernel stacks is profiled without them
	 * (AN_F_KSTACK_IF_ANY)
	 */
	o->kstack = true;
}

extern const struct analysis analysis_timehist_profile, analysis_critpath;

/*
 * --critical-path: the command's critical path (critpath.c, whose
 * --format=perfetto marks the path on the threads' timeline);
 * --format=perfetto: the timeline timehist draws, with the samples (timehist.c)
 */
static const struct analysis *profile_refine(const struct trace_opts *o)
{
	if (profile_own(o)->critical_path)
		return &analysis_critpath;
	return o->fmt == FMT_PERFETTO ? &analysis_timehist_profile : NULL;
}

static const char *profile_check(const struct trace_opts *o)
{
	if (o->key != KEY_NONE && o->key != KEY_TID && o->key != KEY_PID && o->key != KEY_COMM &&
	    o->key != KEY_CGROUP)
		return "profile is per thread (-L, the default), per process (-P), per name "
		       "(--by comm) or per cgroup (--by cgroup)";
	if (o->fmt != FMT_BCC && o->fmt != FMT_JSON && o->fmt != FMT_SVG)
		return "profile prints a table (the default), -f folded lines, --format=json or svg";
	if (o->folded && o->fmt != FMT_BCC)
		return "-f and --format exclude each other";
	if (o->interval_mode || o->count > 1 || o->msecs || o->xval)
		return "profile is one window in microseconds: no -i, COUNT, -m or --xval";
	return NULL;
}

static unsigned profile_events(const struct trace_opts *o)
{
	(void)o;
	return 1u << SEV_SAMPLE;	/* where the backend can sample (perf) */
}

static enum hist_refusal profile_hist(const struct trace_opts *o)
{
	(void)o;
	return HIST_NO_EVENTS;
}

static void profile_configure(const struct trace_opts *o, struct an_cfg *cfg)
{
	(void)o;
	cfg->key = KEY_TID;	/* the proc backend's totals, per thread */
	cfg->modes |= AN_ONCPU;
}

/* --by cgroup: @t's cgroup now (the cache follows the moves in trace order) */
static struct pthread *in_cgroup(struct profile *p, struct pthread *t)
{
	if (p->o->key == KEY_CGROUP)
		t->r.cg = an_cgroup_id(p->an, t->r.tid);
	return t;
}

/* thread @tid's account, or NULL where it has none */
struct pthread *profile_thread_find(struct profile *p, int32_t tid)
{
	uint32_t i;

	for (i = posindex_first(&p->tindex, tid_hash32(tid)); p->tindex.slot[i] >= 0;
	     i = posindex_next(&p->tindex, i))
		if (p->t[p->tindex.slot[i]].r.tid == tid)
			return &p->t[p->tindex.slot[i]];
	return NULL;
}

/* thread @tid's account, made at its first event (NULL: beyond --max-tasks); moves the others */
static struct pthread *thread_of(struct profile *p, int32_t tid)
{
	struct pthread *nt = profile_thread_find(p, tid);
	uint32_t i;

	if (nt)
		return in_cgroup(p, nt);
	if (p->nt >= p->maxt || !(nt = mem_grow_from(p->t, &p->capt, p->nt, sizeof(*p->t), 64))) {
		p->threads_over++;
		return NULL;
	}
	p->t = nt;
	memset(&p->t[p->nt], 0, sizeof(p->t[0]));
	p->t[p->nt].r.tid = tid;
	p->t[p->nt].r.tgid = -1;
	for (i = posindex_first(&p->tindex, tid_hash32(tid)); p->tindex.slot[i] >= 0;
	     i = posindex_next(&p->tindex, i))
		;
	p->tindex.slot[i] = (int32_t)p->nt;
	return in_cgroup(p, &p->t[p->nt++]);
}

/* the entry of @k: found, or made where there is room (NULL: none, or !@make) */
static struct pent *entry(struct profile *p, const struct pkey *k, bool make)
{
	uint64_t h = fnv1a64(FNV1A64_INIT, k, sizeof(*k));
	struct pent *nv;
	uint32_t i;

	for (i = posindex_first(&p->index, h); p->index.slot[i] >= 0;
	     i = posindex_next(&p->index, i))
		if (!memcmp(&p->v[p->index.slot[i]].k, k, sizeof(*k)))
			return &p->v[p->index.slot[i]];
	if (!make || p->n >= p->max ||
	    !(nv = mem_grow_from(p->v, &p->cap, p->n, sizeof(*p->v), 256)))
		return NULL;
	p->v = nv;
	p->v[p->n] = (struct pent){ *k, 0 };
	p->index.slot[i] = (int32_t)p->n;
	return &p->v[p->n++];
}

static struct pkey key_of(const struct pthread *t, int32_t cg, unsigned kind, uint32_t ks,
			  uint32_t us)
{
	struct pkey k;

	memset(&k, 0, sizeof(k));
	k.id = t->r.tid;
	k.tgid = t->r.tgid;
	k.cg = cg;
	k.kind = kind;
	k.kstack = ks;
	k.ustack = us;
	return k;
}

/* @ns more of @t's time of @kind by stack (the thread's own account is the caller's) */
static void add(struct profile *p, const struct pthread *t, unsigned kind, uint32_t ks,
		uint32_t us, uint64_t ns)
{
	struct pkey k = key_of(t, p->o->key == KEY_CGROUP ? t->r.cg : 0, kind, ks, us);
	struct pent *e;

	if (!ns)
		return;
	e = entry(p, &k, true);
	if (e)
		e->ns += ns;
	else
		p->overflow_ns += ns;
}

/* @t's time of @kind counted, by stack and in its own account */
static void count(struct profile *p, struct pthread *t, unsigned kind, uint32_t ks, uint32_t us,
		  uint64_t ns)
{
	t->r.ns[kind] += ns;
	add(p, t, kind, ks, us, ns);
}

/*
 * @ns of parent @t's blocked time (kind @pd->kind, no kernel stack) was
 * waiting for a child: moved to [waiting for children], in its account
 * and by stack (time beyond --max-stacks stays there)
 */
static void to_children(struct profile *p, struct pthread *t, const struct pending *pd)
{
	struct pkey k = key_of(t, pd->cg, pd->kind, 0, pd->ustack);
	struct pent *e = entry(p, &k, false);
	uint64_t ns = pd->ns < t->r.ns[pd->kind] ? pd->ns : t->r.ns[pd->kind];

	t->r.ns[pd->kind] -= ns;
	t->r.ns[PK_CHILDREN] += ns;
	if (!e)
		return;
	if (ns > e->ns)
		ns = e->ns;
	e->ns -= ns;
	k.kind = PK_CHILDREN;
	e = entry(p, &k, true);
	if (e)
		e->ns += ns;
	else
		p->overflow_ns += ns;
}

static void seen(struct profile *p, uint64_t ts)
{
	if (!p->first_ts || ts < p->first_ts)
		p->first_ts = ts;
	if (ts > p->last_ts)
		p->last_ts = ts;
}

static unsigned off_kind(const struct analyzer *an, int64_t state)
{
	if (state == SCHED_STATE_UNKNOWN)
		return PK_OFF_OTHER;
	if ((uint64_t)state & an->s_bits)
		return PK_OFF_S;
	if ((uint64_t)state & an->d_bits)
		return PK_OFF_D;
	return PK_OFF_OTHER;
}

static void on_sample(void *arg, const struct an_sample *s)
{
	struct profile *p = arg;
	struct pthread *t;
	uint32_t ks, us;

	seen(p, s->ts);
	if (!s->selected || !(t = thread_of(p, s->tid)))
		return;
	p->sampled = true;
	if (s->tgid > 0)
		t->r.tgid = s->tgid;
	t->r.samples++;
	t->r.samples_ns += s->period_ns;
	ks = s->kdepth ? stacktab_intern(&p->an->kstacks, s->kframes, s->kdepth) : 0;
	us = s->udepth ? stacktab_intern(&p->an->ustacks, s->uframes, s->udepth) : 0;
	add(p, t, PK_ONCPU, ks, us, s->period_ns);
}

/* a stretch's start: the switch-in, else ours of it, else the window's (0: a gap) */
static uint64_t slice_from(const struct profile *p, const struct pthread *t, uint64_t start_ns)
{
	return start_ns ? start_ns : t->on_since ? t->on_since :
	       !t->seen_out && !t->off_since ? (t->r.born ? t->r.born : p->first_ts) : 0;
}

/*
 * @t leaves a CPU: a parent's block its wakeup ended (pend) was a wait
 * for it if this is its exit
 */
static void switched_out(struct profile *p, struct pthread *t, bool dead)
{
	struct pending pd = t->pend;
	struct pthread *parent;

	t->pend.ns = 0;
	if (pd.ns && dead && (parent = profile_thread_find(p, pd.tid)))
		to_children(p, parent, &pd);
}

/*
 * A switch: the task leaving ran since its switch-in (or the window's
 * start), the one arriving was off since its switch-out (or the start)
 */
static void on_slice(void *arg, const struct an_slice *sl)
{
	struct profile *p = arg;
	struct pthread *t;
	uint64_t from;

	seen(p, sl->end_ns);
	if (sl->lost) {
		/*
		 * its switch-out is not in the trace: on the CPU up to the
		 * CPU's last event at least; the analyzer's off-CPU interval
		 * (state unknown) starts there, the rest is unplaced
		 */
		if (sl->tid > 0 && sl->selected && (t = thread_of(p, sl->tid)) &&
		    (from = slice_from(p, t, sl->start_ns))) {
			if (sl->end_ns > from)
				t->r.on_ns += sl->end_ns - from;
			t->on_since = 0;
			t->off_since = sl->end_ns;
			t->off_state = SCHED_STATE_UNKNOWN;
			t->seen_out = true;
			switched_out(p, t, false);
		}
		return;
	}
	if (sl->tid > 0 && sl->selected && (t = thread_of(p, sl->tid))) {
		bool dead = sl->state != SCHED_STATE_UNKNOWN &&
			    ((uint64_t)sl->state & p->an->dead_bits);

		/*
		 * its switch-in lost: on the CPU from the model's first sight
		 * of it running at the latest; before that, unplaced
		 */
		from = slice_from(p, t, sl->start_ns);
		if (!from)
			from = sl->in_by;
		if (sl->comm[0])
			comm_copy(t->r.comm, sl->comm);	/* the latest: an exec renames it */
		if (from && sl->end_ns > from)
			t->r.on_ns += sl->end_ns - from;
		t->on_since = 0;
		t->off_since = sl->end_ns;
		t->off_state = sl->state;
		t->seen_out = true;
		if (dead)
			t->r.died = sl->end_ns;
		switched_out(p, t, dead);
	}
	if (sl->next_tid > 0 && sl->next_selected && (t = thread_of(p, sl->next_tid))) {
		if (!t->seen_out && !t->on_since && !t->ran) {
			if (t->r.born)	/* created, then its first wait for a CPU */
				count(p, t, PK_RUNQ, 0, 0, sl->end_ns - t->r.born);
			else		/* off since before the window: its state and stack unknown */
				count(p, t, PK_OFF_OTHER, 0, 0, sl->end_ns - p->first_ts);
		}
		t->ran = true;
		t->on_since = t->last_in = sl->end_ns;
		t->off_since = 0;
	}
}

/* @w is a child process of @t's: created by @t's process, not one of its threads */
static bool child_of(struct profile *p, const struct pthread *w, const struct pthread *t)
{
	const struct pthread *c;

	if (!w->creator || (w->r.tgid > 0 && w->r.tgid != w->r.tid) || (t->r.tgid > 0 && w->r.tgid == t->r.tgid))
		return false;
	if (w->creator == t->r.tid)
		return true;
	c = profile_thread_find(p, w->creator);
	return c && t->r.tgid > 0 && c->r.tgid == t->r.tgid;
}

/*
 * A block of @t with no kernel stack (@o, @ns of it blocked in @kind):
 * waiting for a child if the task that woke it is a child process of its
 * that was exiting (its wakeup in its last stretch on a CPU); a child
 * still on its CPU then is decided at its switch-out. The kind it is now.
 */
static unsigned by_waker(struct profile *p, struct pthread *t, const struct an_off *o,
			 unsigned kind, uint64_t ns)
{
	struct pthread *w;

	if (!t->woke_by || t->woke_at < o->start_ns || t->woke_at > o->end_ns ||
	    !(w = profile_thread_find(p, t->woke_by)) || !child_of(p, w, t))
		return kind;
	if (w->r.died && w->last_in <= t->woke_at)
		return PK_CHILDREN;
	/* still on the CPU it woke @t from (since before the window, if no switch) */
	if (!w->r.died && (w->on_since ? w->on_since <= t->woke_at : !w->off_since))
		w->pend = (struct pending){ t->r.tid, p->o->key == KEY_CGROUP ? t->r.cg : 0, kind,
					    o->ustack, ns };
	return kind;
}

/*
 * an off-CPU interval by its stack: blocked until the wakeup, then
 * waiting for a CPU (a wait for a child with a kernel stack is told from
 * the stack at the print, where it is named)
 */
static void on_off(void *arg, const struct an_off *o)
{
	struct profile *p = arg;
	struct pthread *t = thread_of(p, o->tid);
	uint64_t wake = o->wake_ns ? o->wake_ns : o->waking_ns, runq, blocked;
	bool preempted = o->state != SCHED_STATE_UNKNOWN &&
			 sched_state_runnable(&p->an->cfg.states, o->state);
	unsigned kind;

	if (!t)
		return;
	if (o->tgid > 0)
		t->r.tgid = o->tgid;
	if (!t->r.comm[0])
		comm_copy(t->r.comm, o->comm);
	if (preempted || (wake >= o->start_ns && wake <= o->end_ns))
		runq = preempted ? o->end_ns - o->start_ns : o->end_ns - wake;
	else
		runq = 0;	/* its wakeup is not in the trace: all of it blocked */
	blocked = o->end_ns - o->start_ns - runq;
	kind = off_kind(p->an, o->state);
	if (!preempted && !o->kstack && blocked)
		kind = by_waker(p, t, o, kind, blocked);
	count(p, t, PK_RUNQ, o->kstack, o->ustack, runq);
	count(p, t, kind, o->kstack, o->ustack, blocked);
}

/*
 * The proc backend: each thread's totals for the window, from schedstat
 * (on-CPU and run-queue, exact) and status with the states it sampled
 * (blocked, split S/D by the samples); no stacks
 */
static void on_totals(void *arg, const struct an_thread *a, int32_t tgid)
{
	struct profile *p = arg;
	struct pthread *t = thread_of(p, a->tid);

	if (!t)
		return;
	p->totals = t->r.totals = true;
	if (tgid > 0)
		t->r.tgid = tgid;
	if (a->comm && a->comm[0])
		comm_copy(t->r.comm, a->comm);
	t->r.on_ns += a->oncpu_ns;
	count(p, t, PK_RUNQ, 0, 0, a->runq_ns);
	count(p, t, PK_OFF_S, 0, 0, a->blk.s_ns);
	count(p, t, PK_OFF_D, 0, 0, a->blk.d_ns);
	count(p, t, PK_OFF_OTHER, 0, 0, a->blk.other_ns);
}

/* an interval open at the window's end: its stacks and wakeup, for close_window */
static void on_open_off(void *arg, const struct an_off *o)
{
	struct profile *p = arg;
	struct pthread *t = thread_of(p, o->tid);

	if (!t || t->off_since != o->start_ns)
		return;
	t->open_ks = o->kstack;
	t->open_us = o->ustack;
	t->open_wake = o->wake_ns ? o->wake_ns : o->waking_ns;
}

/*
 * a thread created in the window lives from its first wakeup, made by
 * its creator (sched_wakeup_new, in the creator's context); who woke a
 * thread: its sched_waking's task (the waker's context), else its
 * sched_wakeup's (the waker's, or whatever ran where it was queued)
 */
static void on_wake(void *arg, const struct an_wake *w)
{
	struct profile *p = arg;
	struct pthread *t;

	seen(p, w->ts);
	if (!w->selected)
		return;
	if (w->type == SEV_WAKEUP_NEW) {
		if ((t = thread_of(p, w->tid)) && !t->r.born) {
			t->r.born = w->ts;
			t->creator = w->waker > 0 && w->waker != w->tid ? w->waker : 0;
		}
		return;
	}
	t = profile_thread_find(p, w->tid);
	if (!t || (w->type == SEV_WAKEUP && t->woke_waking && t->off_since &&
		   t->woke_at >= t->off_since))
		return;	/* its waking said who, in the waker's own context */
	t->woke_by = w->waker > 0 ? w->waker : 0;
	t->woke_at = w->ts;
	t->woke_waking = w->type == SEV_WAKING;
}

/*
 * tracing is on: the window starts now (in the trace clock where it is
 * the monotonic one), not at the first event, so that a thread's life
 * before its first event is placed too
 */
static void profile_begin(void *state, const struct an_view *v)
{
	struct profile *p = state;

	if (v->start_ns && v->clock && !strcmp(v->clock, "mono") &&
	    (!p->first_ts || v->start_ns < p->first_ts))
		p->first_ts = v->start_ns;
}

static int profile_setup(const struct trace_opts *o, struct analyzer *an, void **state)
{
	struct profile *p = calloc(1, sizeof(*p));
	struct an_sink sink = { .sample = on_sample, .slice = on_slice, .off = on_off,
				.wake = on_wake, .totals = on_totals,
				.open_off = on_open_off };
	int ret;

	if (!p)
		return -ENOMEM;
	p->o = o;
	p->an = an;
	p->max = o->max_stacks;
	p->maxt = o->max_tasks;
	sink.arg = p;
	ret = posindex_init(&p->index, p->max);
	if (!ret)
		ret = posindex_init(&p->tindex, p->maxt);
	if (!ret)
		ret = analyzer_subscribe(an, &sink);
	*state = p;
	return ret;
}

static void profile_free(void *state)
{
	struct profile *p = state;

	if (!p)
		return;
	posindex_fini(&p->index);
	posindex_fini(&p->tindex);
	heat_free(p->h.heat);
	free(p->v);
	free(p->t);
	free(p);
}

/* a kernel frame of a thread waiting for its children: wait4, waitid, waitpid */
static bool frame_waits(const char *s)
{
	static const char *const exact[] = { "do_wait", "kernel_wait4", "kernel_waitid" };
	static const char *const tail[] = { "sys_wait4", "sys_waitid", "sys_waitpid" };
	size_t i, n = strlen(s), m;

	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(s, exact[i]))
			return true;
	for (i = 0; i < sizeof(tail) / sizeof(tail[0]); i++) {
		m = strlen(tail[i]);
		if (n >= m && !strcmp(s + n - m, tail[i]))
			return true;
	}
	return false;
}

/*
 * does kernel stack @ks hold a wait for children? wait4 and waitid, or a
 * vfork's wait for its child to exec or exit (wait_for_vfork_done, where
 * it is inlined kernel_clone calling wait_for_completion)
 */
static bool stack_waits(const struct an_view *v, uint32_t ks)
{
	uint32_t depth = 0, i;
	const uint64_t *fr = stacktab_get(&v->an->kstacks, ks, &depth);
	char buf[NAME_LEN];
	bool completion = false;	/* the frame inside this one waits for a completion */

	for (i = 0; fr && i < depth && i < STACK_MAX_DEPTH; i++) {
		buf[0] = '\0';
		v->sym->kernel(v->sym->karg, fr[i], buf, sizeof(buf));
		buf[sizeof(buf) - 1] = '\0';
		if (frame_waits(buf) || !strcmp(buf, "wait_for_vfork_done") ||
		    (completion && !strcmp(buf, "kernel_clone")))
			return true;
		completion = !strncmp(buf, "wait_for_completion", 19);
	}
	return false;
}

/*
 * Blocked time whose kernel stack is a wait for children (a parent in
 * wait4) is [waiting for children], by stack and in the thread's account:
 * the stacks are named only now. -ENOMEM, else 0.
 */
static int children_by_stack(struct profile *p, const struct an_view *v)
{
	uint8_t *cls;	/* by stack id: 0 not asked yet, 1 no, 2 a wait for children */
	size_t i;

	if (!v->sym || !v->sym->kernel || !v->an->kstacks.n)
		return 0;
	cls = calloc(v->an->kstacks.n + 1, 1);
	if (!cls)
		return -ENOMEM;
	for (i = 0; i < p->n; i++) {
		struct pent *e = &p->v[i];
		struct pthread *t;
		uint32_t ks = e->k.kstack;

		if ((e->k.kind != PK_OFF_S && e->k.kind != PK_OFF_D && e->k.kind != PK_OFF_OTHER) ||
		    !ks || ks > v->an->kstacks.n)
			continue;
		if (!cls[ks])
			cls[ks] = stack_waits(v, ks) ? 2 : 1;
		if (cls[ks] != 2)
			continue;
		t = profile_thread_find(p, e->k.id);
		if (t) {
			uint64_t ns = e->ns < t->r.ns[e->k.kind] ? e->ns : t->r.ns[e->k.kind];

			t->r.ns[e->k.kind] -= ns;
			t->r.ns[PK_CHILDREN] += ns;
		}
		e->k.kind = PK_CHILDREN;	/* a key of its own: no other has this stack */
	}
	free(cls);
	return 0;
}

/*
 * The window's end: what each thread was doing then runs to it; its wall
 * time is its life in the window; the waits for children are told by
 * their stacks. Once, at the first print. -ENOMEM, else 0.
 */
static int close_window(struct profile *p, const struct an_view *v, uint64_t end)
{
	size_t i;

	if (p->closed)
		return 0;
	p->closed = true;
	for (i = 0; i < p->nt; i++) {
		struct pthread *t = &p->t[i];

		if (t->on_since && end > t->on_since)
			t->r.on_ns += end - t->on_since;
		else if (t->off_since && !t->r.died && end > t->off_since) {
			/* blocked until its wakeup (if any), then waiting for a CPU */
			unsigned kind = off_kind(p->an, t->off_state);
			bool preempted = t->off_state != SCHED_STATE_UNKNOWN &&
					 sched_state_runnable(&p->an->cfg.states, t->off_state);
			bool woken = t->open_wake > t->off_since && t->open_wake < end;
			uint64_t runq = preempted ? end - t->off_since :
					woken ? end - t->open_wake : 0;

			count(p, t, PK_RUNQ, t->open_ks, t->open_us, runq);
			count(p, t, kind, t->open_ks, t->open_us, end - t->off_since - runq);
		}
		t->on_since = t->off_since = 0;
		if (!p->sampled)
			add(p, t, PK_ONCPU_NOSAMPLE, 0, 0, t->r.on_ns);
		if (!t->r.comm[0]) {
			const char *c = "[unknown]";

			comm_copy(t->r.comm, c);
		}
	}
	return children_by_stack(p, v);
}

/* the busiest first: on a CPU, waiting for one or in D; then the longest lived */
static int by_total(const void *a, const void *b)
{
	const struct prow *x = a, *y = b;
	uint64_t bx = x->on_ns + x->ns[PK_RUNQ] + x->ns[PK_OFF_D];
	uint64_t by = y->on_ns + y->ns[PK_RUNQ] + y->ns[PK_OFF_D];

	if (bx != by)
		return bx > by ? -1 : 1;
	bx = total_ns(x);
	by = total_ns(y);
	if (bx != by)
		return bx > by ? -1 : 1;
	if (x->tid != y->tid)
		return (x->tid > y->tid) - (x->tid < y->tid);
	return strncmp(x->comm, y->comm, COMM_LEN);
}

static int by_total_thread(const void *a, const void *b)
{
	return by_total(&((const struct pthread *)a)->r, &((const struct pthread *)b)->r);
}

/* does thread @t belong in merged row @r? (-P: its process, --by: its name, its cgroup) */
static bool row_has(const struct profile *p, const struct prow *r, const struct prow *t)
{
	switch (p->o->key) {
	case KEY_CGROUP:
		return r->cg == t->cg;
	case KEY_COMM:
		return !strncmp(r->comm, t->comm, COMM_LEN);
	default:
		return r->tid == (t->tgid > 0 ? t->tgid : t->tid);
	}
}

/*
 * -P: the threads added up per process, --by comm per name (the latest:
 * after an exec, the program's), --by cgroup per cgroup (the one each
 * thread was in at its last event), largest first; NULL: out of memory
 */
static struct prow *merge_rows(const struct profile *p, uint64_t start, uint64_t end, size_t *n)
{
	struct prow *r = calloc(p->nt ? p->nt : 1, sizeof(*r));
	size_t i, j, k;

	*n = 0;
	for (i = 0; r && i < p->nt; i++) {
		const struct prow *t = &p->t[i].r;

		for (j = 0; j < *n && !row_has(p, &r[j], t); j++)
			;
		if (j == *n) {
			r[j].tid = r[j].tgid = t->tgid > 0 ? t->tgid : t->tid;
			r[j].cg = t->cg;
			comm_copy(r[j].comm, t->comm);
			if (p->o->key == KEY_COMM)
				r[j].tid = r[j].tgid = 0;
			(*n)++;
		}
		/* a process's name: its leader's, else its first thread's */
		if (p->o->key == KEY_PID && t->tid == r[j].tid)
			comm_copy(r[j].comm, t->comm);
		r[j].nthreads++;
		r[j].wall_sum += wall_ns(t, start, end);
		r[j].on_ns += t->on_ns;
		r[j].samples += t->samples;
		r[j].samples_ns += t->samples_ns;
		for (k = 0; k < PK_N; k++)
			r[j].ns[k] += t->ns[k];
	}
	if (r)
		qsort(r, *n, sizeof(*r), by_total);
	return r;
}

/* the threads largest first, their index rebuilt */
static void sort_reindex(struct profile *p)
{
	size_t i;

	if (p->nt)
		qsort(p->t, p->nt, sizeof(*p->t), by_total_thread);
	posindex_clear(&p->tindex);
	for (i = 0; i < p->nt; i++)
		posindex_put(&p->tindex, tid_hash32(p->t[i].r.tid), (int32_t)i);
}

/* the output's lookups (struct prof_out) */
static const struct prow *out_thread(void *arg, int32_t tid)
{
	const struct pthread *t = profile_thread_find(arg, tid);

	return t ? &t->r : NULL;
}

static const char *out_cgroup_name(void *arg, int id, const char **path)
{
	const struct profile *p = arg;

	return an_cgroup_name(p->an, id, path);
}

static int profile_print(void *state, const struct an_view *v, enum out_format fmt, FILE *f)
{
	struct profile *p = state;
	struct prof_out a = {
		.key = p->o->key, .top = p->o->top, .folded = p->o->folded, .hz = p->o->rate_hz,
		.stack_depth = v->o->stack_depth, .replay = v->replay_path != NULL,
		.switch_records = (v->backend_caps & BCAP_SWITCH_RECORDS) != 0,
		.thread = out_thread, .cgroup_name = out_cgroup_name, .arg = p, .sym = v->sym,
		.kstacks = &v->an->kstacks, .ustacks = &v->an->ustacks,
		.start = v->iv_start_ns ? v->iv_start_ns : p->first_ts,
		.end = v->iv_end_ns ? v->iv_end_ns : p->last_ts,
	};
	struct prow *rows;
	struct stack_report sr;
	struct report rep;
	size_t i;
	int ret;

	/* the window: from the earlier of its start and its first event */
	if (!p->first_ts || a.start < p->first_ts)
		p->first_ts = a.start;
	a.start = p->first_ts;
	ret = close_window(p, v, a.end);
	if (ret)
		return ret;
	sort_reindex(p);
	if (p->o->key == KEY_PID || p->o->key == KEY_COMM || p->o->key == KEY_CGROUP) {
		rows = merge_rows(p, a.start, a.end, &a.nrows);
	} else {	/* the threads' own rows */
		rows = calloc(p->nt ? p->nt : 1, sizeof(*rows));
		for (i = 0; rows && i < p->nt; i++)
			rows[i] = p->t[i].r;
		a.nrows = p->nt;
	}
	if (!rows)
		return -ENOMEM;
	a.rows = rows;
	/* what the window's accounting left for the output to say */
	a.sampled = p->sampled;
	a.totals = p->totals;
	a.overflow_ns = p->overflow_ns;
	a.threads_over = p->threads_over;
	a.v = p->v;
	a.n = p->n;
	for (i = 0; i < p->nt; i++)
		a.samples += p->t[i].r.samples;
	histan_fill(&p->h, v, fmt, &v->an->on, MEASURE_ONCPU, &rep, &sr);
	rep.stacks = NULL;
	ret = wallprof_print(&a, fmt, &rep, f);
	free(rows);
	return ret;
}

const struct analysis analysis_profile = {
	.name = "profile",
	.summary = "wall-clock profile: on-CPU, run-queue and off-CPU time by stack",
	.flags = AN_F_SAMPLES | AN_F_TIDS | AN_F_PERFETTO | AN_F_REPORT | AN_F_KSTACK_IF_ANY,
	.options = (const struct an_option *const[]){ anopt_keys_threads, anopt_by, profile_opts,
						      anopt_stacks_fold, NULL },
	.usage = profile_help,
	.examples = profile_examples,
	.text_output = "the totals and a table (-f: folded lines)",
	.what = profile_what,
	.defaults = profile_defaults,
	.refine = profile_refine,
	.check = profile_check,
	.events = profile_events,
	.hist = profile_hist,
	.configure = profile_configure,
	.setup = profile_setup,
	.begin = profile_begin,
	.print = profile_print,
	.free = profile_free,
};
