// SPDX-License-Identifier: GPL-2.0-or-later
/* Each CPU's state (idle, busy, unknown) from the events, resolved in time order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpustate.h"
#include "grow.h"

/* CPUs followed at most (as many as the analyzer follows) */
#define CS_MAX_CPUS 4096

int cpustate_init(struct cpustate *cs, enum cs_trust trust, uint32_t ncpu)
{
	memset(cs, 0, sizeof(*cs));
	cs->trust = trust;
	if (ncpu > CS_MAX_CPUS)
		ncpu = CS_MAX_CPUS;
	cs->cap = ncpu > 8 ? ncpu : 8;
	cs->cpu = calloc(cs->cap, sizeof(*cs->cpu));
	if (!cs->cpu)
		return -ENOMEM;
	cs->ncpu = ncpu;
	return 0;
}

void cpustate_fini(struct cpustate *cs)
{
	free(cs->cpu);
	free(cs->heap);
	cs->cpu = NULL;
	cs->heap = NULL;
	cs->n = cs->hcap = cs->ncpu = cs->cap = 0;
}

/* --- the changes held back: a min-heap by (time, push order) */

static bool item_less(const struct cs_item *a, const struct cs_item *b)
{
	return a->c.ts < b->c.ts || (a->c.ts == b->c.ts && (int32_t)(a->seq - b->seq) < 0);
}

static void heap_swap(struct cs_item *v, uint32_t a, uint32_t b)
{
	struct cs_item t = v[a];

	v[a] = v[b];
	v[b] = t;
}

static void heap_pop(struct cpustate *cs, struct cs_change *out)
{
	uint32_t i = 0;

	*out = cs->heap[0].c;
	cs->heap[0] = cs->heap[--cs->n];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < cs->n && item_less(&cs->heap[l], &cs->heap[m]))
			m = l;
		if (r < cs->n && item_less(&cs->heap[r], &cs->heap[m]))
			m = r;
		if (m == i)
			return;
		heap_swap(cs->heap, i, m);
		i = m;
	}
}

/* What the stream has held back up to @t goes out, in time order. */
static void emit_upto(struct cpustate *cs, uint64_t t)
{
	struct cs_change c;

	while (cs->n && cs->heap[0].c.ts <= t) {
		heap_pop(cs, &c);
		if (cs->sink.change)
			cs->sink.change(cs->sink.arg, &c);
	}
	if (t > cs->out)
		cs->out = t;
}

/* how far @c's state is settled: no later event can change it before this */
static uint64_t resolved_until(const struct cpustate *cs, const struct cs_cpu *c)
{
	if (!c->seen)
		return c->held;
	if (c->st == CS_UNKNOWN)
		return cs->now;		/* nothing later tells more of it */
	return c->last > c->assumed ? c->last : c->assumed;
}

/* Every CPU settled up to the horizon: the changes up to it go out. */
static void release(struct cpustate *cs)
{
	uint64_t h = cs->now;
	uint32_t i;

	cs->release_due = false;
	if (!cs->stream)
		return;		/* nothing held back */
	for (i = 0; i < cs->ncpu; i++) {
		uint64_t r = resolved_until(cs, &cs->cpu[i]);

		if (r < h)
			h = r;
	}
	cs->horizon = h;
	emit_upto(cs, h);
}

/*
 * Hold nothing before @t any more: each CPU not settled that far is taken
 * to stay as the events last showed it (unseen: unknown) up to @t.
 */
static void force_to(struct cpustate *cs, uint64_t t)
{
	uint32_t i;

	for (i = 0; i < cs->ncpu; i++) {
		struct cs_cpu *c = &cs->cpu[i];

		if (resolved_until(cs, c) >= t)
			continue;
		if (!c->seen)
			c->held = t;
		else
			c->assumed = t;
	}
	release(cs);
}

static void heap_push(struct cpustate *cs, uint64_t ts, const struct cs_change *c)
{
	uint32_t i;

	if (cs->n >= CS_MAX_PENDING) {
		/* too much held: half of what is held goes out as known now */
		uint64_t top = cs->heap[0].c.ts;

		force_to(cs, top + (cs->now > top ? (cs->now - top) / 2 : 0));
	}
	if (cs->n >= cs->hcap) {
		size_t cap = cs->hcap;
		struct cs_item *v = mem_grow_from(cs->heap, &cap, cs->n, sizeof(*v), 1024);

		if (!v) {
			/* out of memory: what is held goes out now, this one too */
			force_to(cs, ts);
			if (cs->sink.change)
				cs->sink.change(cs->sink.arg, c);
			return;
		}
		cs->heap = v;
		cs->hcap = (uint32_t)cap;
	}
	i = cs->n++;
	cs->heap[i] = (struct cs_item){ .c = *c, .seq = cs->seq++ };
	cs->heap[i].c.ts = ts;
	while (i && item_less(&cs->heap[i], &cs->heap[(i - 1) / 2])) {
		heap_swap(cs->heap, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

/* --- each CPU's resolved timeline */

static struct cs_cpu *cpu_at(struct cpustate *cs, int32_t cpu)
{
	uint32_t i;

	if (cpu < 0 || cpu >= CS_MAX_CPUS)
		return NULL;
	if ((uint32_t)cpu >= cs->cap) {
		size_t cap = cs->cap;
		struct cs_cpu *v = mem_grow_from(cs->cpu, &cap, (size_t)cpu, sizeof(*v), 8);

		if (!v)
			return NULL;
		memset(v + cs->cap, 0, (cap - cs->cap) * sizeof(*v));
		cs->cpu = v;
		cs->cap = (uint32_t)cap;
	}
	/* a CPU the backend did not count: unknown until now, told as such */
	for (i = cs->ncpu; i <= (uint32_t)cpu; i++) {
		struct cs_cpu *c = &cs->cpu[i];
		struct cs_change ch = { .cpu = (int32_t)i, .kind = CS_CH_STATE, .val = CS_UNKNOWN };

		c->held = c->pfrom = cs->out > cs->origin ? cs->out : cs->origin;
		cs->ncpu = i + 1;
		if (cs->stream)
			heap_push(cs, c->held, &ch);
	}
	return &cs->cpu[cpu];
}

/* @c's timeline: its time up to @ts counted in the state it had */
static void account(struct cs_cpu *c, uint64_t ts)
{
	if (ts > c->pfrom) {
		c->ns[c->pst] += ts - c->pfrom;
		c->pfrom = ts;
	}
}

/* What the stream said of @c on [@from, out) was not so: widen the consumers' bounds. */
static void late(struct cpustate *cs, struct cs_cpu *c, int32_t cpu, uint64_t from, bool queue)
{
	uint64_t span = cs->out - from;

	c->late_ns += span;
	if (cs->sink.late)
		cs->sink.late(cs->sink.arg, cpu, span, queue ? 0 : span);
}

/* @c (CPU @cpu) is in state @st from @ts on: its timeline, and the stream */
static void set_state(struct cpustate *cs, struct cs_cpu *c, int32_t cpu, uint64_t ts,
		      enum cs_state st)
{
	struct cs_change ch = { .cpu = cpu, .kind = CS_CH_STATE, .val = (int8_t)st };

	if (ts < c->pfrom)
		ts = c->pfrom;	/* before the interval: printed already */
	if (st == c->pst)
		return;
	account(c, ts);
	if (cs->stream && ts < cs->out) {
		/* the stream went past it: it has @c as it was until now */
		if (c->pst != CS_UNKNOWN)
			late(cs, c, cpu, ts, false);
		ts = cs->out;
	}
	c->pst = (uint8_t)st;
	if (cs->stream)
		heap_push(cs, ts, &ch);
}

void cpustate_stream(struct cpustate *cs, const struct cs_sink *s)
{
	uint32_t i;

	cs->sink = *s;
	if (cs->stream)
		return;
	cs->stream = true;
	/* the CPUs the trace covers, each unknown until its events say */
	for (i = 0; i < cs->ncpu; i++) {
		struct cs_change ch = { .cpu = (int32_t)i, .kind = CS_CH_STATE,
					.val = (int8_t)cs->cpu[i].pst };

		heap_push(cs, cs->cpu[i].pfrom, &ch);
	}
}

void cpustate_begin(struct cpustate *cs, uint64_t ts)
{
	uint32_t i;

	if (cs->origin || !ts)
		return;
	cs->origin = cs->out = cs->horizon = ts;
	if (cs->now < ts)
		cs->now = ts;
	for (i = 0; i < cs->n; i++)
		if (cs->heap[i].c.ts < ts)
			cs->heap[i].c.ts = ts;
	for (i = 0; i < cs->ncpu; i++) {
		cs->cpu[i].held = cs->cpu[i].pfrom = ts;
		cs->cpu[i].last = cs->cpu[i].since = ts;
	}
}

/* the earliest @who can have come onto the CPU, within [@lo, @hi] */
static uint64_t bound(uint64_t after, uint64_t lo, uint64_t hi)
{
	return after < lo ? lo : after > hi ? hi : after;
}

/*
 * The CPU's first event since its state was last known (at c->held): only
 * one task can have run before it with no switch recorded, the one the
 * event shows, and only after the idle task (a switch from any other to
 * it would be in the trace, and so would one to idle).
 */
static void first_event(struct cpustate *cs, struct cs_cpu *c, int32_t cpu, uint64_t ts,
			int32_t who, uint64_t after)
{
	uint64_t from = c->held, l;

	c->seen = true;
	c->task = who;
	c->since = ts;
	if (cs->trust == CS_SELECTED) {
		/* other tasks ran unrecorded: known from here, while this one runs */
		c->st = who > 0 ? CS_BUSY : CS_UNKNOWN;
		set_state(cs, c, cpu, ts, c->st);
		return;
	}
	if (who == 0) {
		/* the idle task runs: it did since @from (a switch to it is recorded) */
		c->st = CS_IDLE;
		c->since = from;
		set_state(cs, c, cpu, from, CS_IDLE);
		return;
	}
	c->st = CS_BUSY;
	if (cs->trust == CS_COMPLETE) {
		c->since = from;	/* no switch: it ran all along */
		set_state(cs, c, cpu, from, CS_BUSY);
		return;
	}
	/* the switch from idle to it may be lost, after its bound */
	l = bound(after, from, ts);
	if (l > from)
		set_state(cs, c, cpu, from, CS_IDLE);
	if (l < ts)
		set_state(cs, c, cpu, l, CS_UNKNOWN);
	set_state(cs, c, cpu, ts, CS_BUSY);
}

void cpustate_event(struct cpustate *cs, int32_t cpu, uint64_t ts, int32_t who, uint64_t after)
{
	struct cs_cpu *c;
	bool at_min;

	if (!cs->origin)
		cpustate_begin(cs, ts);
	if (cs->release_due)
		release(cs);
	c = cpu_at(cs, cpu);
	if (!c)
		return;
	if (ts < cs->origin)
		ts = cs->origin;
	if (c->seen && ts < c->last)
		ts = c->last;	/* out of order: kept in its CPU's order */
	if (ts > cs->now)
		cs->now = ts;
	at_min = resolved_until(cs, c) <= cs->horizon;
	c->idle_to = 0;
	if (!c->seen) {
		first_event(cs, c, cpu, ts, who, after);
	} else if (c->st == CS_IDLE && who > 0) {
		/*
		 * a task runs where the trace had the idle task: the switch
		 * out of idle is lost (this 6.18 kernel's tracepoint), after
		 * the CPU's last event and the task's own bound
		 */
		uint64_t l = bound(after, c->last, ts);

		cs->lost_idle_exits++;
		if (cs->trust == CS_COMPLETE) {
			/* trusted complete (the drop probe saw no loss), and it is not */
			cs->found_lossy = true;
			cs->trust = CS_LOSSY;
		}
		set_state(cs, c, cpu, l, CS_UNKNOWN);
		set_state(cs, c, cpu, ts, CS_BUSY);
		c->st = CS_BUSY;
		c->task = who;
		c->since = ts;
		c->idle_to = l;
	} else if (c->st == CS_BUSY && (who == 0 || (c->task >= 0 && who != c->task))) {
		/* switches lost (lost events): anything ran since its last event */
		cs->gaps++;
		set_state(cs, c, cpu, c->last, CS_UNKNOWN);
		c->st = who > 0 ? CS_BUSY : cs->trust == CS_SELECTED ? CS_UNKNOWN : CS_IDLE;
		c->task = who;
		c->since = ts;
		set_state(cs, c, cpu, ts, c->st);
	} else if (c->st == CS_UNKNOWN && (who > 0 || cs->trust != CS_SELECTED)) {
		c->st = who > 0 ? CS_BUSY : CS_IDLE;
		c->task = who;
		c->since = ts;
		set_state(cs, c, cpu, ts, c->st);
	} else if (c->st == CS_BUSY && c->task < 0) {
		c->task = who;	/* busy with a task not known: this one */
	}
	c->last = ts;
	/* after what the analyzer adds for this event (cpustate_queue_lost) */
	cs->release_due |= at_min;
}

void cpustate_switch(struct cpustate *cs, int32_t cpu, uint64_t ts, int32_t next, bool next_traced)
{
	struct cs_cpu *c = cpu_at(cs, cpu);
	bool at_min;

	if (!c)
		return;
	if (cs->release_due)
		release(cs);
	if (ts < c->last)
		ts = c->last;
	if (ts > cs->now)
		cs->now = ts;
	at_min = resolved_until(cs, c) <= cs->horizon;
	c->seen = true;
	c->task = next;
	c->since = c->last = ts;
	if (cs->trust == CS_SELECTED && (next <= 0 || !next_traced))
		c->st = CS_UNKNOWN;	/* what runs next is not in the trace */
	else
		c->st = next == 0 ? CS_IDLE : CS_BUSY;	/* < 0: a task not known (an exiting one) */
	set_state(cs, c, cpu, ts, c->st);
	cs->release_due |= at_min;
}

void cpustate_queue(struct cpustate *cs, int32_t cpu, uint64_t ts, int delta)
{
	struct cs_change ch = { .cpu = cpu, .kind = CS_CH_QUEUE, .val = (int8_t)delta };

	if (!cs->stream || !cpu_at(cs, cpu))
		return;
	if (ts > cs->now)
		cs->now = ts;
	heap_push(cs, ts > cs->out ? ts : cs->out, &ch);
}

void cpustate_queue_lost(struct cpustate *cs, int32_t cpu, uint64_t from, uint64_t ts)
{
	struct cs_change ch = { .cpu = cpu, .kind = CS_CH_QUEUE, .val = -1 };
	struct cs_cpu *c;

	if (!cs->stream || !(c = cpu_at(cs, cpu)))
		return;
	if (from < cs->origin)
		from = cs->origin;	/* before the interval: printed already */
	if (from > ts)
		from = ts;
	if (from < cs->out) {
		/* the stream counted it waiting since: it may have run */
		late(cs, c, cpu, from, true);
		from = cs->out;
	}
	if (ts < from)
		ts = from;
	/* certain up to its bound, maybe waiting from there to where it ran */
	heap_push(cs, from, &ch);
	if (from < ts) {
		ch.kind = CS_CH_UNSURE;
		ch.val = 1;
		heap_push(cs, from, &ch);
		ch.val = -1;
		heap_push(cs, ts, &ch);
	}
}

uint64_t cpustate_idle_until(const struct cpustate *cs, int32_t cpu)
{
	return cpu >= 0 && (uint32_t)cpu < cs->ncpu ? cs->cpu[cpu].idle_to : 0;
}

uint64_t cpustate_idle_since(const struct cpustate *cs, int32_t cpu)
{
	const struct cs_cpu *c;

	if (cpu < 0 || (uint32_t)cpu >= cs->ncpu)
		return 0;
	c = &cs->cpu[cpu];
	return c->seen && c->st == CS_IDLE ? (c->since ? c->since : 1) : 0;
}

/*
 * @c's stretch from @o to @end has no event: idle (the idle task runs
 * events-free, and a switch to it is recorded) and then, if a switch out of
 * idle was lost, a task that showed nothing since. /proc/stat's idle time
 * @p of it (accurate to @tol) says where; a COMPLETE trace loses no such
 * switch, so there it is one state throughout, or not known.
 */
static void proc_split(struct cpustate *cs, struct cs_cpu *c, int32_t cpu, uint64_t o,
		       uint64_t end, uint64_t p, uint64_t tol)
{
	uint64_t s = end - o, a, b;

	c->by_proc = true;
	if (p + tol >= s) {
		/* idle throughout (an unseen CPU stays unseen: idle at its end) */
		set_state(cs, c, cpu, o, CS_IDLE);
		return;
	}
	if (p <= tol) {
		set_state(cs, c, cpu, o, CS_BUSY);
	} else if (cs->trust == CS_COMPLETE) {
		set_state(cs, c, cpu, o, CS_UNKNOWN);	/* one state, and neither fits */
		return;
	} else {
		a = o + p - tol;
		b = o + p + tol < end ? o + p + tol : end;
		set_state(cs, c, cpu, o, CS_IDLE);
		set_state(cs, c, cpu, a, CS_UNKNOWN);
		set_state(cs, c, cpu, b, CS_BUSY);
	}
	/* busy at its end, with a task not known (the next event names it) */
	c->seen = true;
	c->st = CS_BUSY;
	c->task = -1;
	c->since = end;
}

/* /proc/stat's idle time times the stretch at the end of each CPU with no event in it */
static void close_by_proc(struct cpustate *cs, uint64_t end, const uint64_t *proc,
			  const bool *listed, unsigned nproc, uint64_t tol)
{
	uint32_t i;

	for (i = 0; i < cs->ncpu && i < nproc; i++) {
		struct cs_cpu *c = &cs->cpu[i];
		uint64_t o, known, unknown;

		if (c->seen && c->st != CS_IDLE)
			continue;
		o = resolved_until(cs, c);
		if (o < c->pfrom)
			o = c->pfrom;
		if (o >= end)
			continue;
		if (!c->seen && listed && !listed[i]) {
			c->offline = true;	/* it runs nothing: as busy, with no queue */
			set_state(cs, c, (int32_t)i, o, CS_BUSY);
			continue;
		}
		known = c->ns[CS_IDLE] + (c->pst == CS_IDLE ? o - c->pfrom : 0);
		unknown = c->ns[CS_UNKNOWN] + (c->pst == CS_UNKNOWN ? o - c->pfrom : 0);
		/*
		 * /proc/stat's idle time of the interval is this stretch's only
		 * where nothing else of the CPU is unknown; one idle since its
		 * last event stays so, as the trace says, unless /proc/stat
		 * finds less idle than that
		 */
		if (unknown || c->late_ns || (c->seen && proc[i] + tol >= known + (end - o)))
			continue;
		proc_split(cs, c, (int32_t)i, o, end, proc[i] > known ? proc[i] - known : 0, tol);
	}
}

void cpustate_close(struct cpustate *cs, uint64_t end, const uint64_t *proc_idle,
		    const bool *listed, unsigned nproc, uint64_t tol_ns)
{
	uint32_t i;

	if (!cs->origin)
		cpustate_begin(cs, end);
	if (end < cs->now)
		end = cs->now;
	if (proc_idle && cs->trust != CS_SELECTED)
		close_by_proc(cs, end, proc_idle, listed, nproc, tol_ns);
	force_to(cs, end);
	emit_upto(cs, end);
	for (i = 0; i < cs->ncpu; i++) {
		struct cs_cpu *c = &cs->cpu[i];

		account(c, end);
		if (!c->seen)
			c->held = end;
		else if (c->assumed < end)
			c->assumed = end;
	}
	cs->now = end;
}

void cpustate_next_interval(struct cpustate *cs)
{
	uint32_t i;

	for (i = 0; i < cs->ncpu; i++) {
		struct cs_cpu *c = &cs->cpu[i];

		memset(c->ns, 0, sizeof(c->ns));
		c->late_ns = 0;
		c->by_proc = c->offline = false;
	}
	cs->origin = cs->out;
}

uint64_t cpustate_unknown_ns(const struct cpustate *cs)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < cs->ncpu; i++)
		n += cs->cpu[i].ns[CS_UNKNOWN];
	return n;
}
