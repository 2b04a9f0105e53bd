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
	if (!an->cur || !an->cur_ts) {
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

void analyzer_fini(struct analyzer *an)
{
	free(an->cur);
	free(an->cur_ts);
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
	uint32_t h = ((uint32_t)tid * 2654435761u) >> (32 - TGID_CACHE_BITS);
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
	uint32_t h = ((uint32_t)tid * 2654435761u) >> (32 - TGID_CACHE_BITS);
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
	    (an->cfg.key == KEY_TID || an->cfg.key == KEY_COMM || tid == tgid ||
	     (!g->named && !g->comm[0]))) {
		comm_copy(g->comm, comm);
		g->named |= an->cfg.key == KEY_PID && tid == tgid;
	}
	return g;
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

/* What a switch-out in @state began: a sleep (S), a D wait, another block, or none. */
enum blk_kind { BLK_S, BLK_D, BLK_OTHER, BLK_NONE };

static enum blk_kind blk_kind(const struct analyzer *an, int64_t state)
{
	if (state == SCHED_STATE_UNKNOWN)
		return BLK_OTHER;
	if ((uint64_t)state & an->s_bits)
		return BLK_S;
	if ((uint64_t)state & an->d_bits)
		return BLK_D;
	return sched_state_runnable(&an->cfg.states, state) ? BLK_NONE : BLK_OTHER;
}

/* @ns of blocked time of @kind onto the three sums that split it. */
static void add_blk(uint64_t *s_ns, uint64_t *d_ns, uint64_t *other_ns, enum blk_kind kind,
		    uint64_t ns)
{
	if (kind == BLK_S)
		*s_ns += ns;
	else if (kind == BLK_D)
		*d_ns += ns;
	else if (kind == BLK_OTHER)
		*other_ns += ns;
}

/* A run-queue wait of @tid the trace could not measure, counted in its group. */
static void unmeasured(struct analyzer *an, int32_t tid, int32_t tgid, int32_t cpu,
		       const char *comm)
{
	struct group *g = group_of(an, &an->runq, tid, tgid, cpu, comm);

	an->counts.unmeasured++;
	if (g)
		g->unmeasured++;
}

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
		t->flags = (t->flags & ~(TASK_PREEMPTED | TASK_BLOCKED)) |
			   (state == START_PREEMPT ? TASK_PREEMPTED : 0);
	t->flags |= flag;
	if (flag == TASK_RUNQ) {
		t->runq_ts = ts;
	} else {
		t->flags &= ~TASK_STACK_TRIED;	/* a new interval */
		t->off_ts = ts;
		t->off_state = state;
		t->wake_ts = 0;
	}
	return t;
}

/*
 * True when that was the task's last start and its entry is gone: @t then
 * points at whatever the deletion moved into its slot, and must not be used.
 */
static bool clear_start(struct analyzer *an, struct task *t, unsigned flag)
{
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
	uint64_t d = end - t->off_ts;
	enum blk_kind kind;
	struct group *g;

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
	if (c->triage && t->off_state != SCHED_STATE_UNKNOWN && kind != BLK_NONE) {
		uint64_t bd = d > wake_ns ? d - wake_ns : 0;

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
		if (((c->stacks & AN_KSTACK) && !t->kstack) ||
		    ((c->stacks & AN_USTACK) && !t->ustack))
			an->counts.no_stack++;
		/* a stack line is named: folded output starts with the name */
		stackagg_add(&an->agg, id, tgid, comm_or_lookup(an, t->tid, comm), t->kstack,
			     t->ustack, d);
	}
	return 1;
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

	if (an->cfg.modes & AN_RUNQ) {
		if (t && (t->flags & TASK_RUNQ)) {
			if (wanted) {
				if (ev->ts < t->runq_ts) {
					an->runq.inc.negative++;
				} else {
					record(an, &an->runq, ev->ts - t->runq_ts,
					       tid, tgid, ev->cpu, comm);
					if (!(t->flags & TASK_PREEMPTED)) {
						wake_ns = ev->ts - t->runq_ts;
						an->counts.runq_wake_ns += wake_ns;
					}
				}
			}
			if (clear_start(an, t, TASK_RUNQ))
				t = NULL;
		} else if (t && (t->flags & TASK_BLOCKED)) {
			/* it blocked in the window: its wakeup is not in the trace */
			if (wanted)
				unmeasured(an, tid, tgid, ev->cpu, comm);
			if (clear_start(an, t, TASK_BLOCKED))
				t = NULL;
		} else if (t && (t->flags & TASK_NEW)) {
			/* created in the window: its sched_wakeup_new is not in the trace */
			if (wanted)
				unmeasured(an, tid, tgid, ev->cpu, comm);
		} else if (wanted) {
			an->runq.inc.open_at_start++;
		}
	}
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
	if (t && (t->flags & TASK_NEW))
		clear_start(an, t, TASK_NEW);
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
			set_start(an, ev->pid, ev->comm, TASK_RUNQ, ev->ts, START_PREEMPT);
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
				if (t && (t->flags & (TASK_RUNQ | TASK_BLOCKED)))
					clear_start(an, t, TASK_RUNQ | TASK_BLOCKED);
			} else if ((t = tasktab_get(&an->tasks, ev->pid))) {
				t->flags = (t->flags & ~(TASK_RUNQ | TASK_PREEMPTED)) | TASK_BLOCKED;
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

void analyzer_feed(struct analyzer *an, const struct sched_event *ev)
{
	if (ev->type < SEV_NTYPES)
		an->counts.events[ev->type]++;
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

		if (*cur >= 0 && *cur != ev->common_pid)
			infer_switch(an, ev->cpu, ev);
		*cur = ev->type == SEV_SWITCH ? ev->next_pid : ev->common_pid;
		an->cur_ts[ev->cpu] = ev->ts;
	}

	if (ev->type >= SEV_KSTACK) {
		attach_stack(an, ev);
		return;
	}
	if (an->stack_tid && ev->cpu >= 0 && ev->cpu < AN_MAX_CPUS)
		an->stack_tid[ev->cpu] = -1;

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
			set_start(an, ev->pid, ev->comm, TASK_RUNQ, ev->ts,
				  an->cfg.compat == COMPAT_PERF ? START_KEEP : 0);
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
			set_start(an, ev->pid, ev->comm, TASK_RUNQ, ev->ts, START_KEEP);
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

	if (t->tid <= 0 || !task_wanted(an, t->tid, t->comm, &tgid))
		return;
	if (an->cfg.modes & AN_RUNQ)
		add_totals(an, &an->runq, t->tid, tgid, t->comm, t->runq_n, t->runq_ns);
	if (an->cfg.modes & AN_OFFCPU)
		add_totals(an, &an->off, t->tid, tgid, t->comm, t->off_n, t->off_ns);
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

void analyzer_finish(struct analyzer *an)
{
	uint32_t i;

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
	}
}

void analyzer_next_interval(struct analyzer *an)
{
	groups_clear(&an->runq.groups);
	groups_clear(&an->off.groups);
	groups_clear(&an->blk.groups);
	memset(&an->blk.inc, 0, sizeof(an->blk.inc));
	if (an->cfg.stacks)
		stackagg_clear(&an->agg);
	memset(&an->runq.inc, 0, sizeof(an->runq.inc));
	memset(&an->off.inc, 0, sizeof(an->off.inc));
	memset(&an->counts, 0, sizeof(an->counts));
	memset(an->comm_cache, 0, sizeof(an->comm_cache));
}
