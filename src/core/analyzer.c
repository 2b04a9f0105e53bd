// SPDX-License-Identifier: GPL-2.0-or-later
/* The analyzer: sched events in time order to run-queue and off-CPU intervals. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "hash.h"

/* the tasktab key of the idle task under --compat=bpftrace (0 is "empty") */
#define IDLE_TID INT32_MIN

static void follow_add(struct analyzer *an, int32_t tid);

int analyzer_init(struct analyzer *an, const struct an_cfg *cfg)
{
	int ret;

	memset(an, 0, sizeof(*an));
	an->cfg = *cfg;
	if (!an->cfg.unit_ns)
		an->cfg.unit_ns = 1000;
	an->dead_bits = sched_states_mask(&cfg->states, "XZ");
	an->s_bits = sched_states_mask(&cfg->states, "S");
	an->d_bits = sched_states_mask(&cfg->states, "D");
	an->cur = malloc(AN_MAX_CPUS * sizeof(*an->cur));
	an->cur_ts = calloc(AN_MAX_CPUS, sizeof(*an->cur_ts));
	an->idle_since = calloc(AN_MAX_CPUS, sizeof(*an->idle_since));
	if (!an->cur || !an->cur_ts || !an->idle_since) {
		analyzer_fini(an);
		return -ENOMEM;
	}
	memset(an->cur, 0xff, AN_MAX_CPUS * sizeof(*an->cur));
	ret = tasktab_init(&an->tasks, cfg->max_tasks);
	if (ret) {
		analyzer_fini(an);
		return ret;
	}
	ret = groups_init(&an->runq.groups, cfg->max_groups);
	if (!ret)
		ret = groups_init(&an->off.groups, cfg->max_groups);
	if (!ret)
		ret = groups_init(&an->on.groups, cfg->max_groups);
	if (!ret && (cfg->modes & AN_ONCPU)) {
		an->slice_ts = calloc(AN_MAX_CPUS, sizeof(*an->slice_ts));
		an->want_slices = true;
		ret = an->slice_ts ? 0 : -ENOMEM;
	}
	if (!ret)
		ret = groups_init(&an->blk.groups, cfg->max_groups);
	if (!ret && cfg->triage) {
		an->in_tid = calloc(AN_MAX_CPUS, sizeof(*an->in_tid));
		an->in_ts = calloc(AN_MAX_CPUS, sizeof(*an->in_ts));
		ret = an->in_tid && an->in_ts ? 0 : -ENOMEM;
	}
	if (!ret && cfg->follow) {
		uint32_t i;

		/* the command, and twice as many descendants as threads tracked */
		an->follow.cap = 2 * (cfg->max_tasks + cfg->nfollow);
		if (an->follow.cap > (1u << 26))
			an->follow.cap = 1u << 26;
		an->follow.tid = malloc(an->follow.cap * sizeof(*an->follow.tid));
		ret = an->follow.tid ? posindex_init(&an->follow.index, an->follow.cap) : -ENOMEM;
		for (i = 0; !ret && i < cfg->nfollow; i++)
			follow_add(an, cfg->follow[i]);
	}
	if (!ret && cfg->wakers) {
		an->wake_stack_tid = calloc(AN_MAX_CPUS, sizeof(*an->wake_stack_tid));
		an->cur_comm = calloc(AN_MAX_CPUS, sizeof(*an->cur_comm));
		ret = an->wake_stack_tid && an->cur_comm ? 0 : -ENOMEM;
	}
	if (!ret && cfg->stacks) {
		an->stack_tid = malloc(AN_MAX_CPUS * sizeof(*an->stack_tid));
		ret = an->stack_tid ? 0 : -ENOMEM;
		if (!ret)
			memset(an->stack_tid, 0xff, AN_MAX_CPUS * sizeof(*an->stack_tid));
		if (!ret)
			ret = stacktab_init(&an->kstacks, cfg->max_stacks);
		if (!ret)
			ret = stacktab_init(&an->ustacks, cfg->max_stacks);
		if (!ret)
			ret = stackagg_init(&an->agg, cfg->max_stacks);
	}
	if (ret) {
		analyzer_fini(an);
		return ret;
	}
	return 0;
}

int analyzer_subscribe(struct analyzer *an, const struct an_sink *s)
{
	if (an->nsinks >= AN_MAX_SINKS)
		return -ENOSPC;
	if (s->slice && !an->slice_ts) {
		an->slice_ts = calloc(AN_MAX_CPUS, sizeof(*an->slice_ts));
		if (!an->slice_ts)
			return -ENOMEM;
	}
	an->want_slices |= s->slice != NULL;
	an->want_queue |= s->queue != NULL;
	an->sinks[an->nsinks++] = *s;
	return 0;
}

void analyzer_fini(struct analyzer *an)
{
	free(an->slice_ts);
	an->slice_ts = NULL;
	free(an->wake_stack_tid);
	an->wake_stack_tid = NULL;
	free(an->cur_comm);
	an->cur_comm = NULL;
	an->nsinks = 0;
	free(an->cur);
	free(an->cur_ts);
	free(an->idle_since);
	an->idle_since = NULL;
	free(an->stack_tid);
	an->stack_tid = NULL;
	free(an->follow.tid);
	an->follow.tid = NULL;
	posindex_fini(&an->follow.index);
	free(an->in_tid);
	free(an->in_ts);
	an->in_tid = NULL;
	an->in_ts = NULL;
	groups_fini(&an->blk.groups);
	stacktab_fini(&an->kstacks);
	stacktab_fini(&an->ustacks);
	stackagg_fini(&an->agg);
	an->cur = NULL;
	an->cur_ts = NULL;
	tasktab_fini(&an->tasks);
	groups_fini(&an->runq.groups);
	groups_fini(&an->off.groups);
	groups_fini(&an->on.groups);
}

/* The slot where @tid is in the follow set, or where it would go. */
static uint32_t follow_find(const struct analyzer *an, int32_t tid)
{
	const struct posindex *x = &an->follow.index;
	uint32_t i;

	for (i = posindex_first(x, posindex_mix((uint64_t)tid)); x->slot[i] >= 0;
	     i = posindex_next(x, i))
		if (an->follow.tid[x->slot[i]] == tid)
			break;
	return i;
}

static bool follow_has(const struct analyzer *an, int32_t tid)
{
	return an->follow.index.slot[follow_find(an, tid)] >= 0;
}

static void follow_add(struct analyzer *an, int32_t tid)
{
	uint32_t i;

	if (tid <= 0)
		return;
	i = follow_find(an, tid);
	if (an->follow.index.slot[i] >= 0)
		return;
	/* past the cap, new descendants are not followed (counted) */
	if (an->follow.n >= an->follow.cap) {
		an->counts.follow_overflow++;
		return;
	}
	an->follow.tid[an->follow.n] = tid;
	an->follow.index.slot[i] = (int32_t)an->follow.n++;
}

/* --cgroup membership through a small direct-mapped cache */
static int cgroup_lookup(struct analyzer *an, int32_t tid)
{
	uint32_t h = tid_hash32(tid) >> (32 - TGID_CACHE_BITS);
	int in;

	if (an->cg_cache[h].tid == tid)
		return an->cg_cache[h].in;
	in = an->cfg.in_cgroup(tid, an->cfg.cgroup_arg);
	an->cg_cache[h].tid = tid;
	an->cg_cache[h].in = (int8_t)in;
	return in;
}

/* tgid of @tid through a small direct-mapped cache in front of the resolver */
static int32_t tgid_lookup(struct analyzer *an, int32_t tid)
{
	uint32_t h = tid_hash32(tid) >> (32 - TGID_CACHE_BITS);
	int32_t tgid;

	if (an->tgid_cache[h].tid == tid)
		return an->tgid_cache[h].tgid;
	tgid = an->cfg.tgid_of ? an->cfg.tgid_of(tid, an->cfg.tgid_arg) : -1;
	an->tgid_cache[h].tid = tid;
	an->tgid_cache[h].tgid = tgid;
	return tgid;
}

static bool comm_eq(const char *a, const char *b)
{
	return strncmp(a, b, COMM_LEN) == 0;
}

/*
 * Does the thread pass -p/-t/-c? Sets *tgid when it had to be resolved
 * (-1 when unknown), so grouping by process does not look it up twice.
 */
static bool task_wanted(struct analyzer *an, int32_t tid, const char *comm,
			int32_t *tgid)
{
	const struct an_cfg *c = &an->cfg;

	*tgid = -2;	/* not resolved */
	if (c->follow && !follow_has(an, tid))
		return false;
	if (c->tid >= 0 && tid != c->tid)
		return false;
	if (c->comm[0] && (!comm || !comm_eq(comm, c->comm)))
		return false;
	if (c->pid >= 0) {
		if (tid == IDLE_TID)
			return false;
		*tgid = tgid_lookup(an, tid);
		if (*tgid < 0)
			an->counts.tgid_unknown++;
		if (*tgid != c->pid)
			return false;
	}
	if (c->in_cgroup) {
		int in = tid == IDLE_TID ? 0 : cgroup_lookup(an, tid);

		if (in < 0)
			an->counts.cgroup_unknown++;
		if (in != 1)
			return false;
	}
	return true;
}

/* task_wanted() for what subscribers hear: it counts nothing */
static bool task_wanted_quiet(struct analyzer *an, int32_t tid, const char *comm)
{
	uint64_t tu = an->counts.tgid_unknown, cu = an->counts.cgroup_unknown;
	int32_t tgid;
	bool w = task_wanted(an, tid, comm, &tgid);

	an->counts.tgid_unknown = tu;
	an->counts.cgroup_unknown = cu;
	return w;
}

/* Is @tid selected by -p/-t (comm aside)? Idle and unknown are not. */
static bool task_selected(struct analyzer *an, int32_t tid)
{
	if (tid <= 0)
		return tid == IDLE_TID && an->cfg.tid < 0 && an->cfg.pid < 0 && !an->cfg.follow;
	if (an->cfg.follow)
		return follow_has(an, tid);
	if (an->cfg.tid >= 0)
		return tid == an->cfg.tid;
	if (an->cfg.pid >= 0)
		return tgid_lookup(an, tid) == an->cfg.pid;
	return true;
}

/*
 * @comm, or when the event carried none (perf's switch records) the
 * thread's name looked up (cached, see comm_cache), or "[unknown]".
 */
static const char *comm_or_lookup(struct analyzer *an, int32_t tid, const char *comm)
{
	struct an_comm_slot *e;

	if (tid == IDLE_TID)
		return "swapper";
	if (comm && comm[0])
		return comm;
	if (!an->cfg.comm_of || tid <= 0)
		return "[unknown]";
	e = &an->comm_cache[(uint32_t)tid % COMM_CACHE_SLOTS];
	if (e->tid != tid || an->last_ts - e->ts >= COMM_CACHE_NS) {
		e->tid = tid;
		e->ts = an->last_ts;
		if (an->cfg.comm_of(tid, e->comm, COMM_LEN, an->cfg.tgid_arg) || !e->comm[0])
			comm_copy(e->comm, "[unknown]");	/* gone: not retried */
	}
	return e->comm;
}

/*
 * --by comm: the group of thread name *comm (comm_or_lookup), keyed by a
 * 64-bit hash of it: no two names in a few thousand groups share one.
 */
static int64_t comm_group_id(struct analyzer *an, int32_t tid, const char **comm)
{
	const char *c = comm_or_lookup(an, tid, *comm);
	uint64_t h;

	h = fnv1a64(FNV1A64_INIT, c, strnlen(c, COMM_LEN));
	*comm = c;
	return (int64_t)(h & (uint64_t)INT64_MAX);
}

/* The group @n intervals of @tid ending on @cpu belong to, named; or NULL. */
static struct group *group_of_n(struct analyzer *an, struct an_mode_state *m, int32_t tid,
				int32_t tgid, int32_t cpu, const char *comm, uint64_t n)
{
	struct group *g;
	int64_t id = 0;

	switch (an->cfg.key) {
	case KEY_NONE:
		break;
	case KEY_TID:
		id = tid == IDLE_TID ? 0 : tid;
		break;
	case KEY_CPU:
		id = cpu;
		break;
	case KEY_COMM:
		id = comm_group_id(an, tid, &comm);
		break;
	case KEY_CGROUP:
		/* 0 (unknown) where no cgroup can be told */
		id = an->cfg.cgroup_of ? an->cfg.cgroup_of(tid, an->cfg.group_arg) : 0;
		if (id < 0)
			id = 0;
		break;
	case KEY_PID:
		if (tgid == -2)
			tgid = tid == IDLE_TID ? 0 : tgid_lookup(an, tid);
		if (tgid < 0) {
			/* the process is gone: a thread id is the best key left */
			an->counts.tgid_unknown += n;
			tgid = tid;
		}
		id = tgid;
		break;
	}
	g = groups_get(&m->groups, id);
	if (!g)
		return NULL;
	if (an->cfg.key == KEY_CGROUP && !g->label && g->id != GROUP_OTHER && an->cfg.cgroup_names)
		an->cfg.cgroup_names((int)id, &g->label, &g->path, an->cfg.group_arg);
	/* a process is named for itself, whichever thread's interval this is */
	/* a thread with no name in the event (perf's switch records) too */
	if (((an->cfg.key == KEY_PID && (tid != tgid || !comm || !comm[0])) ||
	     (an->cfg.key == KEY_TID && (!comm || !comm[0]) && !g->comm[0])) &&
	    !g->named && !g->name_tried && id > 0 && an->cfg.comm_of) {
		char name[COMM_LEN];

		g->name_tried = true;
		if (an->cfg.comm_of((int32_t)id, name, COMM_LEN, an->cfg.tgid_arg) == 0 && name[0]) {
			comm_copy(g->comm, name);
			g->named = true;
		}
	}
	if (comm && comm[0] && an->cfg.key != KEY_CPU && an->cfg.key != KEY_NONE &&
	    an->cfg.key != KEY_CGROUP &&
	    (an->cfg.key == KEY_TID || an->cfg.key == KEY_COMM || tid == tgid ||
	     (!g->named && !g->comm[0]))) {
		comm_copy(g->comm, comm);
		g->named |= an->cfg.key == KEY_PID && tid == tgid;
	}
	return g;
}

/*
 * --by cgroup: a stack entry is a thread's in its cgroup, STACK_ID_CGROUP
 * (its cgroup id above the thread id): user frames are one process's, and
 * the line begins with the cgroup's name, then the thread's
 */
static int64_t cgroup_stack_id(struct analyzer *an, int64_t id, int32_t tid)
{
	int cg;

	if (an->cfg.key != KEY_CGROUP)
		return id;
	cg = an->cfg.cgroup_of && tid > 0 ? an->cfg.cgroup_of(tid, an->cfg.group_arg) : 0;
	return STACK_ID_CGROUP(cg < 0 ? 0 : cg, id);
}

static struct group *group_of(struct analyzer *an, struct an_mode_state *m, int32_t tid,
			      int32_t tgid, int32_t cpu, const char *comm)
{
	return group_of_n(an, m, tid, tgid, cpu, comm, 1);
}

static struct group *record(struct analyzer *an, struct an_mode_state *m, uint64_t ns,
			    int32_t tid, int32_t tgid, int32_t cpu, const char *comm)
{
	struct group *g = group_of(an, m, tid, tgid, cpu, comm);

	if (g)
		hist_add(&g->h, ns, an->cfg.unit_ns);
	return g;
}

/* what the subscribers hear */
static void emit_wait(const struct analyzer *an, const struct an_wait *w)
{
	unsigned i;

	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].wait)
			an->sinks[i].wait(an->sinks[i].arg, w);
}

static void emit_off(const struct analyzer *an, const struct an_off *o)
{
	unsigned i;

	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].off)
			an->sinks[i].off(an->sinks[i].arg, o);
}

static void emit_slice(const struct analyzer *an, const struct an_slice *sl)
{
	unsigned i;

	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].slice)
			an->sinks[i].slice(an->sinks[i].arg, sl);
}

/* subscribers' run-queue length: @t joins @cpu's queue, or leaves its own */
static void queue_in(struct analyzer *an, struct task *t, int32_t cpu, uint64_t ts)
{
	unsigned i;

	if (!an->want_queue || t->queued_on || cpu < 0 || cpu >= AN_MAX_CPUS)
		return;
	/* with -p/-t/-c/--cgroup/-- COMMAND, only the selected tasks' queueing */
	if (!task_wanted_quiet(an, t->tid, t->comm[0] ? t->comm : NULL))
		return;
	t->queued_on = cpu + 1;
	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].queue)
			an->sinks[i].queue(an->sinks[i].arg, cpu, ts, 1);
}

static void queue_out(const struct analyzer *an, struct task *t, uint64_t ts)
{
	unsigned i;

	if (!t->queued_on)
		return;
	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].queue)
			an->sinks[i].queue(an->sinks[i].arg, t->queued_on - 1, ts, -1);
	t->queued_on = 0;
}

static void emit_sample(struct analyzer *an, const struct sched_event *ev)
{
	struct an_sample sm;
	unsigned i;

	if (!an->nsinks || ev->pid <= 0)
		return;
	sm = (struct an_sample){
		.ts = ev->ts, .period_ns = ev->period, .tid = ev->pid, .tgid = ev->next_pid,
		.cpu = ev->cpu, .kframes = ev->stack, .uframes = ev->ustack,
		.kdepth = ev->stack_depth, .udepth = ev->ustack_depth,
	};
	sm.selected = task_wanted_quiet(an, ev->pid, NULL);
	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].sample)
			an->sinks[i].sample(an->sinks[i].arg, &sm);
}

static void emit_wake(struct analyzer *an, const struct sched_event *ev)
{
	struct an_wake w;
	unsigned i;

	if (!an->nsinks || ev->pid <= 0)
		return;
	w.ts = ev->ts;
	w.cpu = ev->cpu;
	w.type = ev->type;
	w.tid = ev->pid;
	w.waker = ev->common_pid;
	w.selected = task_wanted_quiet(an, ev->pid, ev->comm);
	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].wake)
			an->sinks[i].wake(an->sinks[i].arg, &w);
}

/* What a switch-out in @state began: AN_BLK_S (a sleep), _D, _OTHER (another block), _NONE. */
static unsigned blk_kind(const struct analyzer *an, int64_t state)
{
	if (state == SCHED_STATE_UNKNOWN)
		return AN_BLK_OTHER;
	if ((uint64_t)state & an->s_bits)
		return AN_BLK_S;
	if ((uint64_t)state & an->d_bits)
		return AN_BLK_D;
	return sched_state_runnable(&an->cfg.states, state) ? AN_BLK_NONE : AN_BLK_OTHER;
}

/* @ns of blocked time of @kind onto the three sums that split it. */
static void add_blk(uint64_t *s_ns, uint64_t *d_ns, uint64_t *other_ns, unsigned kind,
		    uint64_t ns)
{
	if (kind == AN_BLK_S)
		*s_ns += ns;
	else if (kind == AN_BLK_D)
		*d_ns += ns;
	else if (kind == AN_BLK_OTHER)
		*other_ns += ns;
}

/* A run-queue wait of @tid the trace could not measure, counted in its group. */
static void unmeasured(struct analyzer *an, int32_t tid, int32_t tgid, int32_t cpu,
		       const char *comm)
{
	struct group *g = group_of(an, &an->runq, tid, tgid, cpu, comm);
	unsigned i;

	an->counts.unmeasured++;
	if (g)
		g->unmeasured++;
	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].unmeasured)
			an->sinks[i].unmeasured(an->sinks[i].arg, tid);
}

/*
 * How far a sched_waking may come before the blocked switch-out it ends and
 * still start that wait: the waker raced the sleep (the sleeper's
 * sched_switch is recorded after its dequeue, the waking at ttwu's start)
 */
#define WAKING_RACE_NS (50 * 1000ULL)

/* set_start() states for run-queue starts: must not replace one; preempted */
#define START_KEEP 1
#define START_PREEMPT 2

/* Returns the task's entry, NULL when the table is full (counted). */
static struct task *set_start(struct analyzer *an, int32_t tid, const char *comm,
			      unsigned flag, uint64_t ts, int64_t state)
{
	struct task *t = tasktab_get(&an->tasks, tid);

	if (!t) {
		an->counts.state_overflow++;
		return NULL;
	}
	if (comm)
		comm_copy(t->comm, comm);
	if (flag == TASK_RUNQ && (t->flags & TASK_RUNQ) && state == START_KEEP)
		return t;	/* perf sched: the first wakeup wins */
	/* how the run-queue wait began: a preemption, or a wakeup */
	if (flag == TASK_RUNQ)
		t->flags = (t->flags & ~(TASK_PREEMPTED | TASK_BLOCKED | TASK_WAKING)) |
			   (state == START_PREEMPT ? TASK_PREEMPTED : 0);
	t->flags |= flag;
	if (flag == TASK_RUNQ) {
		t->runq_ts = ts;
	} else {
		t->flags &= ~TASK_STACK_TRIED;	/* a new interval */
		t->off_ts = ts;
		t->off_state = state;
		t->wake_ts = 0;
		t->waker = 0;
		t->waker_kstack = 0;
		t->waking_ts = 0;
		t->waker_comm[0] = '\0';
	}
	return t;
}

/*
 * True when that was the task's last start and its entry is gone: @t then
 * points at whatever the deletion moved into its slot, and must not be used.
 */
static bool clear_start(struct analyzer *an, struct task *t, unsigned flag)
{
	if (flag & TASK_RUNQ)
		queue_out(an, t, an->now);
	t->flags &= ~flag;
	if (flag & TASK_RUNQ)
		t->flags &= ~TASK_PREEMPTED;
	if (flag & TASK_OFF)
		t->flags &= ~TASK_STACK_TRIED;
	if (t->flags)
		return false;
	tasktab_del(&an->tasks, t);
	return true;
}


static bool off_state_wanted(const struct an_cfg *c, int64_t state)
{
	if (c->off_state_all)
		return true;
	if (state == SCHED_STATE_UNKNOWN)
		return false;
	if (sched_state_runnable(&c->states, state))
		return c->off_state_r;
	return ((uint64_t)state & c->off_state_bits) != 0;
}

/*
 * The off-CPU interval of @t ends at @end (the thread passed the -p/-t/-c
 * filters); @wake_ns of it, at its end, was the wait for a CPU after its
 * wakeup. Returns 1 when it was recorded, 0 when --state/--min/--max
 * left it out, -1 when it was negative.
 */
static int close_off(struct analyzer *an, struct task *t, uint64_t end, int32_t tgid,
		     int32_t cpu, const char *comm, uint64_t wake_ns)
{
	const struct an_cfg *c = &an->cfg;
	uint64_t d = end - t->off_ts, bd;
	unsigned kind;
	struct group *g;
	bool blocked;

	/* --state applies to how the interval began */
	if (!off_state_wanted(c, t->off_state))
		return 0;
	if (end < t->off_ts) {
		an->off.inc.negative++;
		return -1;
	}
	if (d < c->off_min_ns || d > c->off_max_ns)
		return 0;
	record(an, &an->off, d, t->tid, tgid, cpu, comm);
	/*
	 * triage: intervals that began blocked, up to the wakeup (the wait
	 * for a CPU after it is run-queue time, counted there)
	 */
	kind = blk_kind(an, t->off_state);
	blocked = t->off_state != SCHED_STATE_UNKNOWN && kind != AN_BLK_NONE;
	bd = blocked && d > wake_ns ? d - wake_ns : 0;
	if (an->nsinks) {
		struct an_off o = {
			.start_ns = t->off_ts, .end_ns = end, .wake_ns = t->wake_ts,
			.tid = t->tid, .cpu = cpu, .comm = comm_or_lookup(an, t->tid, comm),
			.state = t->off_state, .blocked_ns = bd,
			.blk = blocked ? (uint8_t)kind : AN_BLK_NONE,
			.kstack = t->kstack, .ustack = t->ustack,
			.waker = t->waker, .waker_kstack = t->waker_kstack,
			.waking_ns = t->waking_ts, .waker_comm = "",
		};

		if (t->waker)
			o.waker_comm = comm_or_lookup(an, t->waker, t->waker_comm);

		if (tgid == -2)
			tgid = tgid_lookup(an, t->tid);
		o.tgid = tgid;
		emit_off(an, &o);
	}
	if (c->triage && blocked) {
		g = record(an, &an->blk, bd, t->tid, tgid, cpu, comm);
		if (g)
			add_blk(&g->blk_s_ns, &g->blk_d_ns, &g->blk_other_ns, kind, bd);
	}
	/* blocked time by the state it began in */
	add_blk(&an->counts.blocked_s_ns, &an->counts.blocked_d_ns,
		&an->counts.blocked_other_ns, kind, d);
	if (c->stacks) {
		int64_t id = t->tid;

		if (c->key == KEY_PID || (c->stacks & AN_USTACK)) {
			if (tgid == -2)
				tgid = tgid_lookup(an, t->tid);
			if (c->key == KEY_PID)
				id = tgid >= 0 ? tgid : t->tid;
		}
		id = cgroup_stack_id(an, id, t->tid);
		if (((c->stacks & AN_KSTACK) && !t->kstack) ||
		    ((c->stacks & AN_USTACK) && !t->ustack))
			an->counts.no_stack++;
		/* a stack line is named: folded output starts with the name */
		stackagg_add(&an->agg, id, tgid, comm_or_lookup(an, t->tid, comm), t->kstack,
			     t->ustack, d);
	}
	return 1;
}

/*
 * A run-queue wait of @tid from @start to its switch-in @ev ended: into its
 * group's histogram and to the subscribers. Returns the wait when it began
 * with a wakeup (the part of the blocked interval spent waiting for a
 * CPU), 0 for a preemption or a negative delta (counted).
 */
static uint64_t measured_wait(struct analyzer *an, const struct sched_event *ev, uint64_t start,
			      bool preempted, int32_t tid, int32_t tgid, const char *comm)
{
	if (ev->ts < start) {
		an->runq.inc.negative++;
		return 0;
	}
	record(an, &an->runq, ev->ts - start, tid, tgid, ev->cpu, comm);
	if (an->nsinks) {
		/* names the event lacks (perf's switch records): the lookup's */
		struct an_wait w = {
			.start_ns = start, .end_ns = ev->ts, .tid = tid, .cpu = ev->cpu,
			.comm = comm_or_lookup(an, tid, comm), .preempted = preempted,
			.prev_tid = ev->pid > 0 ? ev->pid : 0,
			.prev_comm = ev->pid > 0 ? comm_or_lookup(an, ev->pid, ev->comm) : "",
		};

		w.tgid = tgid >= -1 ? tgid : tgid_lookup(an, tid);
		emit_wait(an, &w);
	}
	if (preempted)
		return 0;
	an->counts.runq_wake_ns += ev->ts - start;
	return ev->ts - start;
}

/* @ev, a switch-in, is from the idle task of a CPU idle since @ts or earlier */
static bool idle_since_before(const struct analyzer *an, const struct sched_event *ev, uint64_t ts)
{
	return ev->pid == 0 && ev->cpu >= 0 && ev->cpu < AN_MAX_CPUS && an->idle_since[ev->cpu] &&
	       an->idle_since[ev->cpu] <= ts;
}

/* next_pid was switched in on ev->cpu: its run-queue wait ends. Returns the
 * wakeup's part of its blocked interval; *tp NULL when the entry went. */
static uint64_t runq_switch_in(struct analyzer *an, const struct sched_event *ev,
			       struct task **tp, bool wanted, int32_t tgid, const char *comm)
{
	struct task *t = *tp;
	int32_t tid = ev->next_pid;
	uint64_t wake_ns = 0;

	if (t && (t->flags & TASK_RUNQ)) {
		if (wanted)
			wake_ns = measured_wait(an, ev, t->runq_ts, t->flags & TASK_PREEMPTED, tid,
						tgid, comm);
		if (clear_start(an, t, TASK_RUNQ))
			*tp = NULL;
	} else if (t && (t->flags & TASK_BLOCKED)) {
		/*
		 * it blocked in the window and its sched_wakeup is not in the
		 * trace (this host's kernel drops those of an idle CPU): its
		 * sched_waking, in the waker's context, starts the wait
		 */
		if (wanted && t->waking_ts && t->waking_ts <= ev->ts &&
		    idle_since_before(an, ev, t->waking_ts)) {
			/*
			 * onto a CPU idle since before the waking: the kernel
			 * queued it when that CPU left idle, and it ran at once
			 * (nothing else was queued there): from the waking would
			 * add the wake-up's IPI and idle exit, which schedstat's
			 * run_delay and runqlat do not count
			 */
			wake_ns = measured_wait(an, ev, ev->ts, false, tid, tgid, comm);
			an->counts.from_waking++;
			an->counts.onto_idle++;
		} else if (wanted && t->waking_ts && t->waking_ts <= ev->ts) {
			wake_ns = measured_wait(an, ev, t->waking_ts, false, tid, tgid, comm);
			an->counts.from_waking++;
		} else if (wanted && an->cfg.compat != COMPAT_PERF &&
			   idle_since_before(an, ev, t->runq_ts)) {
			/*
			 * no waking either: woken in an interrupt on an idle
			 * CPU (a timer, an I/O completion), which this kernel
			 * does not record, onto a CPU idle all the time it was
			 * blocked: the same switch from idle, 0 (not as perf
			 * sched, which counts from a waking only)
			 */
			wake_ns = measured_wait(an, ev, ev->ts, false, tid, tgid, comm);
			an->counts.idle_woken++;
		} else if (wanted) {
			unmeasured(an, tid, tgid, ev->cpu, comm);
		}
		if (clear_start(an, t, TASK_BLOCKED))
			*tp = NULL;
	} else if (t && (t->flags & TASK_NEW)) {
		/* created in the window: its sched_wakeup_new is not in the trace */
		if (wanted)
			unmeasured(an, tid, tgid, ev->cpu, comm);
	} else if (wanted) {
		an->runq.inc.open_at_start++;
	}
	return wake_ns;
}

/* next_pid was switched in on ev->cpu: close its pending intervals */
static void switch_in(struct analyzer *an, const struct sched_event *ev)
{
	int32_t tid = ev->next_pid, tgid;
	const char *comm = ev->next_comm;
	uint64_t wake_ns = 0;	/* the wait for a CPU that ended its blocked interval */
	struct task *t;
	bool wanted;

	t = tasktab_find(&an->tasks, tid);
	/* a switch only a second source saw carries no name: the one we know */
	if (!comm && t && t->comm[0])
		comm = t->comm;
	wanted = task_wanted(an, tid, comm, &tgid);
	if (an->cfg.modes & AN_RUNQ)
		wake_ns = runq_switch_in(an, ev, &t, wanted, tgid, comm);
	/*
	 * t is NULL if its entry was deleted above; else still valid: only
	 * clear_start() removes entries, only set_start()/note_new() add them
	 */
	if (an->cfg.modes & AN_OFFCPU) {
		if (t && (t->flags & TASK_OFF)) {
			if (wanted)
				close_off(an, t, ev->ts, tgid, ev->cpu, comm, wake_ns);
			if (clear_start(an, t, TASK_OFF))
				t = NULL;
		} else if (wanted && !(t && (t->flags & TASK_NEW))) {
			an->off.inc.open_at_start++;
		}
	}
	if (t && (t->flags & (TASK_NEW | TASK_WAKING)))
		clear_start(an, t, TASK_NEW | TASK_WAKING);
}

/*
 * A task created in the window (sched_wakeup_new, sched_process_fork):
 * it was never off a CPU, so its first switch-in ends no interval.
 */
static void note_new(struct analyzer *an, int32_t tid, const char *comm)
{
	struct task *t;

	if (tid <= 0 || !(an->cfg.modes & (AN_OFFCPU | AN_RUNQ)))
		return;
	t = tasktab_get(&an->tasks, tid);
	if (!t) {
		an->counts.state_overflow++;
		return;
	}
	if (t->flags & TASK_OFF)
		return;		/* it did run: this is about a later start */
	if (comm && !t->comm[0])
		comm_copy(t->comm, comm);
	t->flags |= TASK_NEW;
}

/* ev->pid was switched out: open the intervals its state starts */
static void switch_out(struct analyzer *an, const struct sched_event *ev)
{
	const struct an_cfg *c = &an->cfg;
	/* runqlat.bt tests prev_state == TASK_RUNNING: R+ is not runnable */
	bool runnable = c->compat == COMPAT_BPFTRACE ? ev->prev_state == 0 :
			sched_state_runnable(&c->states, ev->prev_state);

	if (c->modes & AN_RUNQ) {
		if (runnable) {
			/* preempted: waits on the run queue from now */
			struct task *t = set_start(an, ev->pid, ev->comm, TASK_RUNQ, ev->ts,
						   START_PREEMPT);

			if (t)
				queue_in(an, t, ev->cpu, ev->ts);
		} else {
			/*
			 * Blocked: a start left by a wakeup that raced with
			 * the task still running is stale; the next switch-in
			 * needs a new wakeup anyway. Dropping it keeps
			 * open_at_end honest (BCC keeps it, to no effect).
			 */
			struct task *t;

			/*
			 * A dead task never comes back, and one runqlat.bt
			 * does not count as runnable (R+) gets no wakeup.
			 */
			if (((uint64_t)ev->prev_state & an->dead_bits) ||
			    sched_state_runnable(&c->states, ev->prev_state)) {
				t = tasktab_find(&an->tasks, ev->pid);
				if (t && (t->flags & (TASK_RUNQ | TASK_BLOCKED | TASK_WAKING)))
					clear_start(an, t, TASK_RUNQ | TASK_BLOCKED | TASK_WAKING);
			} else if ((t = tasktab_get(&an->tasks, ev->pid))) {
				queue_out(an, t, ev->ts);
				/* its next waking is this block's, or one that raced it */
				if (!(t->flags & TASK_WAKING) || ev->ts - t->waking_ts > WAKING_RACE_NS)
					t->waking_ts = 0;
				t->runq_ts = ev->ts;	/* blocked since (a wakeup replaces it) */
				t->flags = (t->flags & ~(TASK_RUNQ | TASK_PREEMPTED | TASK_WAKING)) |
					   TASK_BLOCKED;
			} else {
				an->counts.state_overflow++;
			}
		}
	}
	/*
	 * Every switch-out starts an off-CPU interval, whatever --state says:
	 * an unwanted one must still end quietly at its switch-in rather than
	 * look like an interval that began before the window.
	 */
	if ((c->modes & AN_OFFCPU) && !((uint64_t)ev->prev_state & an->dead_bits)) {
		struct task *t = set_start(an, ev->pid, ev->comm, TASK_OFF, ev->ts,
					   ev->prev_state);

		if (c->stacks) {
			/* the stacks recorded right after this event are its */
			if (t)
				t->kstack = t->ustack = 0;
			if (ev->cpu >= 0 && ev->cpu < AN_MAX_CPUS)
				an->stack_tid[ev->cpu] = ev->pid;
		}
	}
}

/*
 * The trace skipped a context switch on @cpu: the task it last put there is
 * gone and ev->common_pid runs. Both happened after the CPU's last recorded
 * event and before @ev. The task now running left the CPU it waited for no
 * earlier than that event and than its own wakeup: its off-CPU interval is
 * closed at the later of the two (an underestimate by at most the time up
 * to @ev, summed in inferred_slack_ns) and counted as inferred. Its
 * run-queue wait cannot be bounded that way and is not measured (counted).
 */
static void infer_switch(struct analyzer *an, int32_t cpu, const struct sched_event *ev)
{
	int32_t out = an->cur[cpu], in = ev->common_pid, tgid;
	uint64_t ts = an->cur_ts[cpu], bound;
	struct task *t;

	/*
	 * With -p/-t the backend may filter in the kernel, so switches between
	 * other tasks are absent by design: only gaps of selected tasks count.
	 */
	if (!task_selected(an, out) && !task_selected(an, in))
		return;
	an->counts.missed_switch++;
	if (an->in_tid)
		an->in_tid[cpu] = 0;	/* its running time is unknown */
	if (out > 0 && an->nsinks && an->slice_ts) {
		/* the stretch it had: to the CPU's last event at least */
		struct an_slice sl = {
			.start_ns = an->slice_ts[cpu] && an->slice_ts[cpu] <= ts ?
				    an->slice_ts[cpu] : 0,
			.end_ns = ts, .tid = out, .cpu = cpu,
			.comm = an->cur_comm ? an->cur_comm[cpu] : "",
			.state = SCHED_STATE_UNKNOWN, .lost = true,
			.selected = task_wanted_quiet(an, out, NULL),
		};

		emit_slice(an, &sl);
	}
	if (out > 0 && (an->cfg.modes & AN_OFFCPU)) {
		t = tasktab_find(&an->tasks, out);
		if (!t || !(t->flags & TASK_OFF))
			set_start(an, out, NULL, TASK_OFF, ts, SCHED_STATE_UNKNOWN);
	}
	if (in <= 0 || !(t = tasktab_find(&an->tasks, in)))
		return;
	bound = ts;
	if (t->flags & (TASK_RUNQ | TASK_BLOCKED)) {
		if ((t->flags & TASK_RUNQ) && t->runq_ts > bound)
			bound = t->runq_ts;
		if (task_wanted(an, in, t->comm, &tgid))
			unmeasured(an, in, tgid, cpu, t->comm);
		if (clear_start(an, t, TASK_RUNQ | TASK_BLOCKED))
			t = NULL;
	}
	if (t && (t->flags & TASK_OFF)) {
		if (t->wake_ts > bound)
			bound = t->wake_ts;
		if (!task_wanted(an, in, t->comm, &tgid)) {
			/* not ours */
		} else if (bound <= t->off_ts) {
			/*
			 * it left another CPU after this one's last event and
			 * its wakeup is not in the trace either: nothing bounds
			 * the interval, which is not measured (counted)
			 */
			an->counts.off_unmeasured++;
		} else if (close_off(an, t, bound, tgid, cpu, t->comm, 0) > 0) {
			an->counts.inferred++;
			an->counts.inferred_slack_ns += ev->ts > bound ? ev->ts - bound : 0;
		}
		clear_start(an, t, TASK_OFF);
	}
}

/* triage: time selected threads spend on a CPU, switch-in to switch-out */
static void oncpu_switch(struct analyzer *an, const struct sched_event *ev)
{
	int32_t tgid;

	if (an->in_tid[ev->cpu] && an->in_tid[ev->cpu] == ev->pid &&
	    ev->ts >= an->in_ts[ev->cpu])
		an->counts.oncpu_ns += ev->ts - an->in_ts[ev->cpu];
	an->in_tid[ev->cpu] = ev->next_pid > 0 &&
			      task_wanted(an, ev->next_pid, ev->next_comm, &tgid) ?
			      ev->next_pid : 0;
	an->in_ts[ev->cpu] = ev->ts;
}

/* A stack record follows the event it belongs to on the same CPU. */
static void attach_stack(struct analyzer *an, const struct sched_event *ev)
{
	struct task *t;
	uint32_t id;

	/* the waker's stack, right after its sched_waking on that CPU */
	if (an->wake_stack_tid && ev->cpu >= 0 && ev->cpu < AN_MAX_CPUS &&
	    an->wake_stack_tid[ev->cpu] > 0) {
		int32_t woken = an->wake_stack_tid[ev->cpu];

		an->wake_stack_tid[ev->cpu] = 0;
		t = tasktab_find(&an->tasks, woken);
		if (t && (t->flags & TASK_OFF) && ev->type == SEV_KSTACK &&
		    (an->cfg.stacks & AN_KSTACK))
			t->waker_kstack = stacktab_intern(&an->kstacks, ev->stack, ev->stack_depth);
		return;
	}
	/* a recording with stacks read by an analysis that wants none */
	if (!an->stack_tid)
		return;
	if (ev->cpu < 0 || ev->cpu >= AN_MAX_CPUS || an->stack_tid[ev->cpu] != ev->pid ||
	    ev->pid <= 0)
		return;
	t = tasktab_find(&an->tasks, ev->pid);
	if (!t || !(t->flags & TASK_OFF))
		return;
	if (ev->type == SEV_KSTACK && (an->cfg.stacks & AN_KSTACK)) {
		id = stacktab_intern(&an->kstacks, ev->stack, ev->stack_depth);
		t->kstack = id;
	} else if (ev->type == SEV_USTACK && (an->cfg.stacks & AN_USTACK)) {
		id = stacktab_intern(&an->ustacks, ev->stack, ev->stack_depth);
		t->ustack = id;
	}
}

/*
 * A blocked thread's wakeup: the earliest it can run again, the bound for
 * closing its off-CPU interval if the trace loses its switch-in.
 */
static void note_wakeup(struct analyzer *an, const struct sched_event *ev)
{
	struct task *t = tasktab_find(&an->tasks, ev->pid);

	if (t && (t->flags & TASK_OFF) && ev->ts >= t->off_ts)
		t->wake_ts = ev->ts;
}

/*
 * A wakeup starts a run-queue wait; for subscribers the task joins the
 * queue of the CPU it was woken onto, unless it is still running there
 * (woken before it switched out: it was never off the queue)
 */
static void wake_start(struct analyzer *an, const struct sched_event *ev, int64_t keep)
{
	struct task *t = set_start(an, ev->pid, ev->comm, TASK_RUNQ, ev->ts, keep);
	int32_t cpu = ev->has_target ? ev->target_cpu : ev->cpu;

	if (t && an->want_queue && cpu >= 0 && cpu < AN_MAX_CPUS && an->cur[cpu] != ev->pid)
		queue_in(an, t, cpu, ev->ts);
}

/*
 * A switch on ev->cpu ends the stretch of the task the trace had there
 * (@was): told to the subscribers when its start is known, and starts
 * next_pid's.
 */
static void slice_switch(struct analyzer *an, const struct sched_event *ev, int32_t was)
{
	uint64_t *at = &an->slice_ts[ev->cpu];
	bool on = an->cfg.modes & AN_ONCPU;
	bool selected = ev->pid > 0 && task_wanted_quiet(an, ev->pid, ev->comm);
	bool known = *at && was == ev->pid && ev->ts >= *at;
	struct an_slice sl = {
		.start_ns = known ? *at : 0, .end_ns = ev->ts, .tid = ev->pid > 0 ? ev->pid : 0,
		.cpu = ev->cpu, .next_tid = ev->next_pid > 0 ? ev->next_pid : 0,
		.comm = ev->comm ? ev->comm : "", .state = ev->prev_state, .selected = selected,
	};

	sl.next_selected = ev->next_pid > 0 && an->nsinks &&
			   task_wanted_quiet(an, ev->next_pid, ev->next_comm);
	if (known && selected && on)
		record(an, &an->on, ev->ts - *at, ev->pid, -2, ev->cpu, ev->comm);
	else if (selected && on && was < 0)
		an->on.inc.open_at_start++;	/* its switch-in: before the window */
	else if (selected && on)
		an->counts.slice_unmeasured++;	/* ... or lost in a gap */
	emit_slice(an, &sl);
	*at = ev->ts;
}

/*
 * sched_waking of a thread that blocked in the window: where its run-queue
 * wait starts if the sched_wakeup after it is lost
 */
static void note_waking(struct analyzer *an, const struct sched_event *ev)
{
	struct task *t = tasktab_find(&an->tasks, ev->pid);

	if (t && (t->flags & TASK_BLOCKED)) {
		t->waking_ts = ev->ts;
		return;
	}
	/*
	 * not known to be blocked yet: sched_waking fires before the
	 * sleeper's own sched_switch is recorded when the waker races its
	 * sleep; kept for a switch-out that follows at once
	 */
	if (t || (an->cfg.modes & AN_RUNQ)) {
		if (!t)
			t = tasktab_get(&an->tasks, ev->pid);
		if (!t)
			return;	/* the table is full: no start to lose */
		if (!(t->flags & TASK_RUNQ)) {
			t->flags |= TASK_WAKING;
			t->waking_ts = ev->ts;
		}
	}
}

/*
 * sched_waking fires in the waker's context: the task current on the CPU
 * woke ev->pid, whose off-CPU interval it ends; the stack after it is the
 * waker's. The last waking before the thread runs wins, as offwaketime's.
 */
static void note_waker(struct analyzer *an, const struct sched_event *ev)
{
	struct task *t = tasktab_find(&an->tasks, ev->pid);

	if (t && (t->flags & TASK_BLOCKED))
		t->waking_ts = ev->ts;	/* the run-queue wait's start, if its wakeup is lost */
	if (!t || !(t->flags & TASK_OFF) || ev->ts < t->off_ts || ev->common_pid <= 0)
		return;
	t->waker = ev->common_pid;
	t->waking_ts = ev->ts;
	t->waker_kstack = 0;
	comm_copy(t->waker_comm, ev->cpu >= 0 && ev->cpu < AN_MAX_CPUS &&
		  an->cur[ev->cpu] == ev->common_pid ? an->cur_comm[ev->cpu] : "");
	if (ev->cpu >= 0 && ev->cpu < AN_MAX_CPUS)
		an->wake_stack_tid[ev->cpu] = ev->pid;
}

void analyzer_feed(struct analyzer *an, const struct sched_event *ev)
{
	if (ev->type < SEV_NTYPES)
		an->counts.events[ev->type]++;
	an->now = ev->ts;
	/* the backend merges CPUs in time order; say so if it could not */
	if (ev->ts < an->last_ts)
		an->counts.late++;
	else
		an->last_ts = ev->ts;
	/*
	 * Every event names the task current on its CPU. One the trace never
	 * switched in means a sched_switch is missing: lost, or (seen on
	 * 6.18) a switch from or to idle that ftrace and perf did not record.
	 * (Stack records name the task of the event they follow.)
	 */
	if (ev->cpu >= 0 && ev->cpu < AN_MAX_CPUS && ev->type < SEV_KSTACK) {
		int32_t *cur = &an->cur[ev->cpu];

		/* an event in a task's context: the CPU is not idle (any more) */
		if (ev->common_pid != 0)
			an->idle_since[ev->cpu] = 0;
		if (*cur >= 0 && *cur != ev->common_pid) {
			infer_switch(an, ev->cpu, ev);
			if (an->slice_ts)
				an->slice_ts[ev->cpu] = 0;	/* when it went on: unknown */
		}
		if (an->want_slices && ev->type == SEV_SWITCH)
			slice_switch(an, ev, *cur);
		if (an->cur_comm && (ev->type == SEV_SWITCH || *cur != ev->common_pid))
			comm_copy(an->cur_comm[ev->cpu], ev->type == SEV_SWITCH && ev->next_comm ?
				  ev->next_comm : "");
		*cur = ev->type == SEV_SWITCH ? ev->next_pid : ev->common_pid;
		an->cur_ts[ev->cpu] = ev->ts;
	}

	if (ev->type == SEV_SAMPLE) {
		emit_sample(an, ev);
		return;
	}
	/* in the writer's context: no switch, wakeup or stack of the task moved */
	if (ev->type == SEV_CGROUP_ATTACH || ev->type == SEV_CGROUP_TRANSFER) {
		if (an->cfg.cgroup_moved && ev->pid > 0)
			an->cfg.cgroup_moved(ev->pid, ev->cg_root, ev->cg_path, an->cfg.group_arg);
		return;
	}
	if (ev->type >= SEV_KSTACK) {
		attach_stack(an, ev);
		return;
	}
	if (an->stack_tid && ev->cpu >= 0 && ev->cpu < AN_MAX_CPUS)
		an->stack_tid[ev->cpu] = -1;
	if (an->wake_stack_tid && ev->cpu >= 0 && ev->cpu < AN_MAX_CPUS)
		an->wake_stack_tid[ev->cpu] = 0;	/* set again by a waking */

	if (an->nsinks && (ev->type == SEV_WAKEUP || ev->type == SEV_WAKEUP_NEW ||
			   ev->type == SEV_WAKING))
		emit_wake(an, ev);
	switch (ev->type) {
	case SEV_WAKEUP:
		/* perf sched counts from sched_waking instead */
		if (an->cfg.compat == COMPAT_PERF)
			break;
		/* fall through */
	case SEV_WAKEUP_NEW:
		if (ev->type == SEV_WAKEUP_NEW)
			note_new(an, ev->pid, ev->comm);
		if (ev->pid > 0 && (an->cfg.modes & AN_OFFCPU))
			note_wakeup(an, ev);
		/* last start wins, as in runqlat (the first, as in perf sched) */
		if (ev->pid > 0 && (an->cfg.modes & AN_RUNQ))
			wake_start(an, ev, an->cfg.compat == COMPAT_PERF ? START_KEEP : 0);
		break;
	case SEV_FORK:
		note_new(an, ev->next_pid, NULL);
		/* a followed task's child (thread or process) is followed too */
		if (an->cfg.follow && follow_has(an, ev->pid))
			follow_add(an, ev->next_pid);
		/*
		 * triage: a process that started one of its own (a new thread
		 * group, when the child can still be looked up) waits for it,
		 * and is not "the blocked process"
		 */
		if (an->cfg.triage && ev->next_pid > 0 && task_selected(an, ev->pid) &&
		    tgid_lookup(an, ev->next_pid) == ev->next_pid) {
			int32_t ptgid = tgid_lookup(an, ev->pid);
			struct group *g = ptgid > 0 ? groups_get(&an->blk.groups, ptgid) : NULL;

			if (g)
				g->parent = true;
		}
		break;
	case SEV_WAKING:
		if (ev->pid > 0 && (an->cfg.modes & AN_RUNQ) && an->cfg.compat == COMPAT_PERF)
			wake_start(an, ev, START_KEEP);
		if (an->cfg.wakers && ev->pid > 0)
			note_waker(an, ev);
		else if (ev->pid > 0 && (an->cfg.modes & AN_RUNQ))
			note_waking(an, ev);
		break;
	case SEV_SWITCH:
		if (an->in_tid && ev->cpu >= 0 && ev->cpu < AN_MAX_CPUS)
			oncpu_switch(an, ev);
		/*
		 * pid 0 is each CPU's idle task: never tracked, except to
		 * reproduce runqlat.bt, which times it (one key for all CPUs).
		 */
		if (ev->pid > 0 || (an->cfg.compat == COMPAT_BPFTRACE && ev->pid == 0)) {
			struct sched_event e = *ev;

			e.pid = e.pid ? e.pid : IDLE_TID;
			switch_out(an, &e);
		}
		if (ev->next_pid > 0 || (an->cfg.compat == COMPAT_BPFTRACE && ev->next_pid == 0)) {
			struct sched_event e = *ev;

			e.next_pid = e.next_pid ? e.next_pid : IDLE_TID;
			switch_in(an, &e);
		}
		if (ev->cpu >= 0 && ev->cpu < AN_MAX_CPUS)
			an->idle_since[ev->cpu] = ev->next_pid == 0 ? ev->ts : 0;
		break;
	default:
		break;
	}
}

void analyzer_add_intervals(struct analyzer *an, unsigned mode, int32_t tid, int32_t cpu,
			    const char *comm, uint64_t v, uint64_t n, uint64_t sum_ns)
{
	struct an_mode_state *m = mode == AN_RUNQ ? &an->runq : &an->off;
	int32_t tgid = -2;
	struct group *g;

	if (tid > 0 && !task_wanted(an, tid, comm, &tgid))
		return;
	/* the kernel's keys: no thread (tid 0) is the one idle key */
	if (tid <= 0 && tgid == -2)
		tgid = -1;
	g = group_of_n(an, m, tid, tgid, cpu, comm, n);
	if (g)
		hist_add_n(&g->h, v, n, sum_ns);
}

/* @n intervals summing to @ns in @m's group of @tid: totals only */
static struct group *add_totals(struct analyzer *an, struct an_mode_state *m, int32_t tid,
				int32_t tgid, const char *comm, uint64_t n, uint64_t ns)
{
	struct group *g;

	if (!n && !ns)
		return NULL;
	g = group_of(an, m, tid, tgid, -1, comm);
	if (g)
		hist_add_total(&g->h, n, ns, an->cfg.unit_ns);
	return g;
}

void analyzer_add_thread(struct analyzer *an, const struct an_thread *t)
{
	int32_t tgid = -2;
	unsigned i;

	if (t->tid <= 0 || !task_wanted(an, t->tid, t->comm, &tgid))
		return;
	if (an->cfg.modes & AN_RUNQ)
		add_totals(an, &an->runq, t->tid, tgid, t->comm, t->runq_n, t->runq_ns);
	if (an->cfg.modes & AN_OFFCPU)
		add_totals(an, &an->off, t->tid, tgid, t->comm, t->off_n, t->off_ns);
	/* switched in pcount times, for exec time in all */
	if (an->cfg.modes & AN_ONCPU)
		add_totals(an, &an->on, t->tid, tgid, t->comm, t->runq_n, t->oncpu_ns);
	if (an->cfg.triage) {
		struct group *g = add_totals(an, &an->blk, t->tid, tgid, t->comm, t->blk_n,
					     t->blk_ns);

		if (g) {
			g->blk_s_ns += t->s_ns;
			g->blk_d_ns += t->d_ns;
			g->blk_other_ns += t->other_ns;
		}
		an->counts.oncpu_ns += t->oncpu_ns;
	}
	an->counts.blocked_s_ns += t->s_ns;
	an->counts.blocked_d_ns += t->d_ns;
	an->counts.blocked_other_ns += t->other_ns;
	if (tgid == -2)
		tgid = tgid_lookup(an, t->tid);
	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].totals)
			an->sinks[i].totals(an->sinks[i].arg, t, tgid);
}

void analyzer_add_kstack_n(struct analyzer *an, int32_t tid, const char *comm,
			   const uint64_t *frames, uint32_t depth, uint64_t n, uint64_t sum_ns)
{
	int32_t tgid = -2;
	int64_t id = tid;
	uint32_t k;

	if (!an->cfg.stacks || (tid > 0 && !task_wanted(an, tid, comm, &tgid)))
		return;
	if (an->cfg.key == KEY_PID) {
		if (tgid == -2)
			tgid = tid > 0 ? tgid_lookup(an, tid) : -1;
		id = tgid >= 0 ? tgid : tid;
	}
	id = cgroup_stack_id(an, id, tid);
	k = depth ? stacktab_intern(&an->kstacks, frames, depth) : 0;
	if (!k)
		an->counts.no_stack += n;
	stackagg_add_n(&an->agg, id, tgid < 0 ? -1 : tgid, comm, k, 0, n, sum_ns);
}

unsigned analyzer_late_kstacks(struct analyzer *an, uint64_t before, an_stack_reader read,
			       void *arg)
{
	uint64_t frames[STACK_MAX_DEPTH];
	unsigned n = 0, depth;
	uint32_t i;

	if (!(an->cfg.stacks & AN_KSTACK))
		return 0;
	for (i = 0; i <= an->tasks.mask; i++) {
		struct task *t = &an->tasks.slot[i];
		int32_t tgid;

		/*
		 * a switch-out of unknown state (perf's switch records carry
		 * none) is tried too: the reader takes no stack of a thread
		 * /proc says is running or runnable
		 */
		if (!t->tid || !(t->flags & TASK_OFF) || (t->flags & TASK_STACK_TRIED) ||
		    t->kstack || t->wake_ts || t->off_ts > before ||
		    (t->off_state != SCHED_STATE_UNKNOWN &&
		     sched_state_runnable(&an->cfg.states, t->off_state)) ||
		    !off_state_wanted(&an->cfg, t->off_state))
			continue;
		/*
		 * One try per interval, whatever comes of it: a thread found
		 * running again ends its interval soon, a gone one never does,
		 * and a full stack table stays full (counted once)
		 */
		t->flags |= TASK_STACK_TRIED;
		if (!task_wanted(an, t->tid, t->comm, &tgid))
			continue;
		depth = read(t->tid, frames, arg);
		if (!depth)
			continue;
		t->kstack = stacktab_intern(&an->kstacks, frames,
					    depth < STACK_MAX_DEPTH ? depth : STACK_MAX_DEPTH);
		if (t->kstack) {
			an->counts.late_kstacks++;
			n++;
		}
	}
	return n;
}

/* the sinks hear of @t's off-CPU interval, open at the window's end */
static void open_off(struct analyzer *an, const struct task *t, int32_t tgid)
{
	struct an_off o;
	unsigned i;

	for (i = 0; i < an->nsinks && !an->sinks[i].open_off; i++)
		;
	if (i == an->nsinks)
		return;
	if (tgid == -2)
		tgid = tgid_lookup(an, t->tid);
	o = (struct an_off){ .start_ns = t->off_ts, .end_ns = an->last_ts,
			    .wake_ns = t->wake_ts, .waking_ns = t->waking_ts, .tid = t->tid,
			    .tgid = tgid, .cpu = -1, .comm = t->comm, .state = t->off_state,
			    .kstack = t->kstack, .ustack = t->ustack, .waker = t->waker,
			    .waker_comm = t->waker_comm, .waker_kstack = t->waker_kstack };

	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].open_off)
			an->sinks[i].open_off(an->sinks[i].arg, &o);
}

void analyzer_finish(struct analyzer *an)
{
	uint32_t i;

	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].finish)
			an->sinks[i].finish(an->sinks[i].arg, an->last_ts);

	/* threads on a CPU when the window closed: their slice is open */
	for (i = 0; (an->cfg.modes & AN_ONCPU) && i < AN_MAX_CPUS; i++)
		if (an->slice_ts[i] && an->cur[i] > 0 &&
		    task_wanted_quiet(an, an->cur[i], NULL))
			an->on.inc.open_at_end++;
	/* threads still running when the window closed */
	for (i = 0; an->in_tid && i < AN_MAX_CPUS; i++)
		if (an->in_tid[i] && an->last_ts > an->in_ts[i])
			an->counts.oncpu_ns += an->last_ts - an->in_ts[i];

	for (i = 0; i <= an->tasks.mask; i++) {
		struct task *t = &an->tasks.slot[i];
		int32_t tgid;

		if (!t->tid || !task_wanted(an, t->tid, t->comm, &tgid))
			continue;
		if (t->flags & TASK_RUNQ)
			an->runq.inc.open_at_end++;
		if ((t->flags & TASK_OFF) && off_state_wanted(&an->cfg, t->off_state))
			an->off.inc.open_at_end++;
		if (t->flags & TASK_OFF)
			open_off(an, t, tgid);
	}
}

void analyzer_next_interval(struct analyzer *an)
{
	unsigned i;

	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].boundary)
			an->sinks[i].boundary(an->sinks[i].arg);
	groups_clear(&an->runq.groups);
	groups_clear(&an->off.groups);
	groups_clear(&an->on.groups);
	memset(&an->on.inc, 0, sizeof(an->on.inc));
	groups_clear(&an->blk.groups);
	memset(&an->blk.inc, 0, sizeof(an->blk.inc));
	if (an->cfg.stacks)
		stackagg_clear(&an->agg);
	memset(&an->runq.inc, 0, sizeof(an->runq.inc));
	memset(&an->off.inc, 0, sizeof(an->off.inc));
	memset(&an->counts, 0, sizeof(an->counts));
	memset(an->comm_cache, 0, sizeof(an->comm_cache));
}
