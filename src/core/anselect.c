// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The analyzer's selection and grouping: which threads pass -p/-t/-c,
 * --cgroup and -- COMMAND (the follow set), their tgid, cgroup membership
 * and names through small caches in front of the caller's resolvers, and
 * the group (by thread, process, CPU, name or cgroup) an interval goes to.
 */
#include <string.h>

#include "analyzer_local.h"
#include "hash.h"

bool an_follow_has(const struct analyzer *an, int32_t tid)
{
	return tidset_has(&an->follow, tid);
}

void an_follow_add(struct analyzer *an, int32_t tid)
{
	/* past the cap (or out of memory), new descendants are not followed (counted) */
	if (tid > 0 && tidset_add(&an->follow, tid))
		an->counts.follow_overflow++;
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
int32_t an_tgid_lookup(struct analyzer *an, int32_t tid)
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
bool an_task_wanted(struct analyzer *an, int32_t tid, const char *comm,
		    int32_t *tgid)
{
	const struct an_cfg *c = &an->cfg;

	*tgid = -2;	/* not resolved */
	if (c->follow && !an_follow_has(an, tid))
		return false;
	if (c->tid >= 0 && tid != c->tid)
		return false;
	if (c->comm[0] && (!comm || !comm_eq(comm, c->comm)))
		return false;
	if (c->pid >= 0) {
		if (tid == IDLE_TID)
			return false;
		*tgid = an_tgid_lookup(an, tid);
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
	if (tid > 0)
		an->matched = true;
	return true;
}

/* an_task_wanted() for what subscribers hear: it counts nothing */
bool an_task_wanted_quiet(struct analyzer *an, int32_t tid, const char *comm)
{
	uint64_t tu = an->counts.tgid_unknown, cu = an->counts.cgroup_unknown;
	int32_t tgid;
	bool w = an_task_wanted(an, tid, comm, &tgid);

	an->counts.tgid_unknown = tu;
	an->counts.cgroup_unknown = cu;
	return w;
}

/* Is @tid selected by -p/-t (comm aside)? Idle and unknown are not. */
bool an_task_selected(struct analyzer *an, int32_t tid)
{
	if (tid <= 0)
		return tid == IDLE_TID && an->cfg.tid < 0 && an->cfg.pid < 0 && !an->cfg.follow;
	if (an->cfg.follow)
		return an_follow_has(an, tid);
	if (an->cfg.tid >= 0)
		return tid == an->cfg.tid;
	if (an->cfg.pid >= 0)
		return an_tgid_lookup(an, tid) == an->cfg.pid;
	return true;
}

/*
 * @comm, or when the event carried none (perf's switch records) the
 * thread's name looked up (cached, see comm_cache), or "[unknown]".
 */
const char *an_comm_or_lookup(struct analyzer *an, int32_t tid, const char *comm)
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
	const char *c = an_comm_or_lookup(an, tid, *comm);
	uint64_t h;

	h = fnv1a64(FNV1A64_INIT, c, strnlen(c, COMM_LEN));
	*comm = c;
	return (int64_t)(h & (uint64_t)INT64_MAX);
}

/* The group @n intervals of @tid ending on @cpu belong to, named; or NULL. */
struct group *an_group_of_n(struct analyzer *an, struct an_mode_state *m, int32_t tid,
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
			tgid = tid == IDLE_TID ? 0 : an_tgid_lookup(an, tid);
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
int64_t an_cgroup_stack_id(struct analyzer *an, int64_t id, int32_t tid)
{
	int cg;

	if (an->cfg.key != KEY_CGROUP)
		return id;
	cg = an->cfg.cgroup_of && tid > 0 ? an->cfg.cgroup_of(tid, an->cfg.group_arg) : 0;
	return STACK_ID_CGROUP(cg < 0 ? 0 : cg, id);
}

struct group *an_group_of(struct analyzer *an, struct an_mode_state *m, int32_t tid,
			  int32_t tgid, int32_t cpu, const char *comm)
{
	return an_group_of_n(an, m, tid, tgid, cpu, comm, 1);
}

int analyzer_groups_init(const struct analyzer *an, struct an_mode_state *m)
{
	memset(m, 0, sizeof(*m));
	return groups_init(&m->groups, an->cfg.max_groups);
}

void analyzer_groups_fini(struct an_mode_state *m)
{
	groups_fini(&m->groups);
}

void analyzer_groups_clear(struct an_mode_state *m)
{
	groups_clear(&m->groups);
	memset(&m->inc, 0, sizeof(m->inc));
}

struct group *analyzer_group(struct analyzer *an, struct an_mode_state *m, int32_t tid,
			     int32_t tgid, int32_t cpu, const char *comm)
{
	return an_group_of(an, m, tid, tgid, cpu, comm);
}

struct group *an_record(struct analyzer *an, struct an_mode_state *m, uint64_t ns,
			int32_t tid, int32_t tgid, int32_t cpu, const char *comm)
{
	struct group *g = an_group_of(an, m, tid, tgid, cpu, comm);

	if (g)
		hist_add(&g->h, ns, an->cfg.unit_ns);
	return g;
}
