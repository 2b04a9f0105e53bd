// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The analyzer's subscribers (analyzer_subscribe): what they hear of waits,
 * off-CPU intervals, samples, wakeups and the CPU-state model's stream,
 * and the on-CPU slices a switch ends, recorded for --mode oncpu and told
 * to them.
 */
#include <errno.h>
#include <stdlib.h>

#include "analyzer_local.h"

/* the CPU-state model's stream, to every subscriber that takes it */
static void cpu_change(void *arg, const struct cs_change *c)
{
	const struct analyzer *an = arg;
	unsigned i;

	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].cpu)
			an->sinks[i].cpu(an->sinks[i].arg, c);
}

static void cpu_late(void *arg, int32_t cpu, uint64_t lo_ns, uint64_t hi_ns)
{
	const struct analyzer *an = arg;
	unsigned i;

	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].cpu_late)
			an->sinks[i].cpu_late(an->sinks[i].arg, cpu, lo_ns, hi_ns);
}

int analyzer_subscribe(struct analyzer *an, const struct an_sink *s)
{
	if (an->nsinks >= AN_MAX_SINKS)
		return -ENOSPC;
	if (s->slice && !an->slice_ts) {
		an->slice_ts = calloc(AN_MAX_CPUS, sizeof(*an->slice_ts));
		an->slice_by = calloc(AN_MAX_CPUS, sizeof(*an->slice_by));
		if (!an->slice_ts || !an->slice_by)
			return -ENOMEM;
	}
	if ((s->needs & AN_NEED_WAKERS) && (!an->wake_stack_tid || !an->cur_comm)) {
		if (!an->wake_stack_tid)
			an->wake_stack_tid = calloc(AN_MAX_CPUS, sizeof(*an->wake_stack_tid));
		if (!an->cur_comm)
			an->cur_comm = calloc(AN_MAX_CPUS, sizeof(*an->cur_comm));
		if (!an->wake_stack_tid || !an->cur_comm)
			return -ENOMEM;
	}
	an->want_slices |= s->slice != NULL;
	an->want_queue |= s->queue != NULL || s->cpu != NULL;
	an->want_wakers |= (s->needs & AN_NEED_WAKERS) != 0;
	an->want_fork |= s->fork != NULL;
	an->sinks[an->nsinks++] = *s;
	if (s->cpu) {
		struct cs_sink cs = { .arg = an, .change = cpu_change, .late = cpu_late };

		cpustate_stream(&an->cs, &cs);
	}
	return 0;
}

/* what the subscribers hear */
void an_emit_wait(const struct analyzer *an, const struct an_wait *w)
{
	unsigned i;

	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].wait)
			an->sinks[i].wait(an->sinks[i].arg, w);
}

void an_emit_off(const struct analyzer *an, const struct an_off *o)
{
	unsigned i;

	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].off)
			an->sinks[i].off(an->sinks[i].arg, o);
}

void an_emit_slice(const struct analyzer *an, const struct an_slice *sl)
{
	unsigned i;

	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].slice)
			an->sinks[i].slice(an->sinks[i].arg, sl);
}

void an_emit_sample(struct analyzer *an, const struct sched_event *ev)
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
	sm.selected = an_task_wanted_quiet(an, ev->pid, NULL);
	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].sample)
			an->sinks[i].sample(an->sinks[i].arg, &sm);
}

void an_emit_wake(struct analyzer *an, const struct sched_event *ev)
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
	w.selected = an_task_wanted_quiet(an, ev->pid, ev->comm);
	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].wake)
			an->sinks[i].wake(an->sinks[i].arg, &w);
}

void an_emit_fork(struct analyzer *an, const struct sched_event *ev)
{
	struct an_fork f = { .ts = ev->ts, .tid = ev->pid, .child = ev->next_pid };
	unsigned i;

	/* a new thread group, while the child can still be looked up */
	f.process = an_tgid_lookup(an, ev->next_pid) == ev->next_pid;
	f.tgid = an_tgid_lookup(an, ev->pid);
	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].fork)
			an->sinks[i].fork(an->sinks[i].arg, &f);
}

/*
 * --compat=libbpf-tools oncpu: libbpf-tools' cpudist counts the idle
 * task's slices as any runnable task's, its start kept under pid 0, one
 * for all CPUs: from the last switch to idle on any CPU to this switch
 * from idle (none when that is later)
 */
static void libbpf_idle_slice(struct analyzer *an, const struct sched_event *ev)
{
	if (ev->pid == 0 && an->idle_any_ts && ev->ts >= an->idle_any_ts &&
	    an_task_selected(an, IDLE_TID))
		an_record(an, &an->on, ev->ts - an->idle_any_ts, IDLE_TID, 0, ev->cpu, "swapper");
	if (ev->next_pid == 0)
		an->idle_any_ts = ev->ts;
}

/*
 * A switch on ev->cpu ends the stretch of the task the trace had there
 * (@was): told to the subscribers when its start is known, and starts
 * next_pid's.
 */
void an_slice_switch(struct analyzer *an, const struct sched_event *ev, int32_t was)
{
	uint64_t *at = &an->slice_ts[ev->cpu];
	bool on = an->cfg.modes & AN_ONCPU;
	bool selected = ev->pid > 0 && an_task_wanted_quiet(an, ev->pid, ev->comm);
	bool known = *at && was == ev->pid && ev->ts >= *at;
	struct an_slice sl = {
		.start_ns = known ? *at : 0, .end_ns = ev->ts, .tid = ev->pid > 0 ? ev->pid : 0,
		.cpu = ev->cpu, .next_tid = ev->next_pid > 0 ? ev->next_pid : 0,
		.next_comm = ev->next_comm ? ev->next_comm : "",
		.comm = ev->comm ? ev->comm : "", .state = ev->prev_state, .selected = selected,
		.in_by = known ? 0 : an->slice_by[ev->cpu],
	};

	sl.next_selected = ev->next_pid > 0 && an->nsinks &&
			   an_task_wanted_quiet(an, ev->next_pid, ev->next_comm);
	if (on && an->cfg.compat == COMPAT_LIBBPF)
		libbpf_idle_slice(an, ev);
	if (known && selected && on) {
		/* libbpf-tools cpudist: only a slice that ends runnable */
		if (an->cfg.compat != COMPAT_LIBBPF ||
		    sched_state_runnable(&an->cfg.states, ev->prev_state))
			an_record(an, &an->on, ev->ts - *at, ev->pid, -2, ev->cpu, ev->comm);
	} else if (selected && on && was < 0)
		an->on.inc.open_at_start++;	/* its switch-in: before the window */
	else if (selected && on)
		an->counts.slice_unmeasured++;	/* ... or lost in a gap */
	an_emit_slice(an, &sl);
	*at = ev->ts;
	an->slice_by[ev->cpu] = 0;
}

/* the sinks hear of @t's off-CPU interval, open at the window's end */
void an_open_off(struct analyzer *an, const struct task *t, int32_t tgid)
{
	struct an_off o;
	unsigned i;

	for (i = 0; i < an->nsinks && !an->sinks[i].open_off; i++)
		;
	if (i == an->nsinks)
		return;
	if (tgid == -2)
		tgid = an_tgid_lookup(an, t->tid);
	o = (struct an_off){ .start_ns = t->off_ts, .end_ns = an->last_ts,
			    .wake_ns = t->wake_ts, .waking_ns = t->waking_ts, .tid = t->tid,
			    .tgid = tgid, .cpu = -1, .comm = t->comm, .state = t->off_state,
			    .kstack = t->kstack, .ustack = t->ustack, .waker = t->waker,
			    .waker_comm = t->waker_comm, .waker_kstack = t->waker_kstack };

	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].open_off)
			an->sinks[i].open_off(an->sinks[i].arg, &o);
}
