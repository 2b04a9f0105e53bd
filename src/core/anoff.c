// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The analyzer's off-CPU intervals as they close: --state/--min/--max,
 * the histogram, the subscribers (with the part of it blocked, by the
 * state it began in) and the stacks' sums.
 */
#include "analyzer_local.h"

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

bool an_off_state_wanted(const struct an_cfg *c, int64_t state)
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
int an_close_off(struct analyzer *an, struct task *t, uint64_t end, int32_t tgid,
		 int32_t cpu, const char *comm, uint64_t wake_ns)
{
	const struct an_cfg *c = &an->cfg;
	uint64_t d = end - t->off_ts, bd;
	unsigned kind;
	bool blocked;

	/* --state applies to how the interval began */
	if (!an_off_state_wanted(c, t->off_state))
		return 0;
	if (end < t->off_ts) {
		an->off.inc.negative++;
		return -1;
	}
	if (d < c->off_min_ns || d > c->off_max_ns)
		return 0;
	an_record(an, &an->off, d, t->tid, tgid, cpu, comm);
	/*
	 * the part of one that began blocked up to its wakeup, for the
	 * subscribers (the wait for a CPU after it is run-queue time)
	 */
	kind = blk_kind(an, t->off_state);
	blocked = t->off_state != SCHED_STATE_UNKNOWN && kind != AN_BLK_NONE;
	bd = blocked && d > wake_ns ? d - wake_ns : 0;
	if (an->nsinks) {
		struct an_off o = {
			.start_ns = t->off_ts, .end_ns = end, .wake_ns = t->wake_ts,
			.tid = t->tid, .cpu = cpu, .comm = an_comm_or_lookup(an, t->tid, comm),
			.state = t->off_state, .comm_given = comm, .blocked_ns = bd,
			.blk = blocked ? (uint8_t)kind : AN_BLK_NONE,
			.kstack = t->kstack, .ustack = t->ustack,
			.waker = t->waker, .waker_kstack = t->waker_kstack,
			.waking_ns = t->waking_ts, .waker_comm = "",
		};

		if (t->waker)
			o.waker_comm = an_comm_or_lookup(an, t->waker, t->waker_comm);

		if (tgid == -2)
			tgid = an_tgid_lookup(an, t->tid);
		o.tgid = tgid;
		an_emit_off(an, &o);
	}
	/* blocked time by the state it began in */
	blk_split_add(&an->counts.blocked, kind, d);
	if (c->stacks) {
		int64_t id = t->tid;

		if (c->key == KEY_PID || (c->stacks & AN_USTACK)) {
			if (tgid == -2)
				tgid = an_tgid_lookup(an, t->tid);
			if (c->key == KEY_PID)
				id = tgid >= 0 ? tgid : t->tid;
		}
		id = an_cgroup_stack_id(an, id, t->tid);
		if (((c->stacks & AN_KSTACK) && !t->kstack) ||
		    ((c->stacks & AN_USTACK) && !t->ustack))
			an->counts.no_stack++;
		/* a stack line is named: folded output starts with the name */
		stackagg_add(&an->agg, id, tgid, an_comm_or_lookup(an, t->tid, comm), t->kstack,
			     t->ustack, d);
	}
	return 1;
}
