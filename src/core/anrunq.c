// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The analyzer's run-queue state machine: the starts a switch-out, wakeup,
 * waking or fork leaves per thread, closed by its switch-in into a
 * measured wait (or one counted unmeasured), the subscribers' queue
 * lengths, and the switches the trace lost, inferred from the task an
 * event finds running.
 */
#include "analyzer_local.h"

/* subscribers' run-queue length: @t joins @cpu's queue, or leaves its own */
static void queue_in(struct analyzer *an, struct task *t, int32_t cpu, uint64_t ts)
{
	unsigned i;

	if (!an->want_queue || t->queued_on || cpu < 0 || cpu >= AN_MAX_CPUS)
		return;
	/* with -p/-t/-c/--cgroup/-- COMMAND, only the selected tasks' queueing */
	if (!an_task_wanted_quiet(an, t->tid, t->comm[0] ? t->comm : NULL))
		return;
	t->queued_on = cpu + 1;
	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].queue)
			an->sinks[i].queue(an->sinks[i].arg, cpu, ts, 1);
	cpustate_queue(&an->cs, cpu, ts, 1);
}

/*
 * @t leaves the queue it is counted on, at @ts; where its switch-in was
 * lost (@from nonzero), somewhere in [@from, @ts]
 */
static void queue_leave(struct analyzer *an, struct task *t, uint64_t from, uint64_t ts)
{
	int32_t cpu = t->queued_on - 1;
	unsigned i;

	if (!t->queued_on)
		return;
	t->queued_on = 0;
	for (i = 0; i < an->nsinks; i++) {
		if (an->sinks[i].queue)
			an->sinks[i].queue(an->sinks[i].arg, cpu, ts, -1);
		if (from && an->sinks[i].queue_lost)
			an->sinks[i].queue_lost(an->sinks[i].arg, cpu, from, ts);
	}
	if (from)
		cpustate_queue_lost(&an->cs, cpu, from, ts);
	else
		cpustate_queue(&an->cs, cpu, ts, -1);
}

static void queue_out(struct analyzer *an, struct task *t, uint64_t ts)
{
	queue_leave(an, t, 0, ts);
}

/* A run-queue wait of @tid the trace could not measure, counted in its group. */
static void unmeasured(struct analyzer *an, int32_t tid, int32_t tgid, int32_t cpu,
		       const char *comm)
{
	struct group *g = an_group_of(an, &an->runq, tid, tgid, cpu, comm);
	unsigned i;

	an->counts.unmeasured++;
	if (g)
		g->unmeasured++;
	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].unmeasured)
			an->sinks[i].unmeasured(an->sinks[i].arg, tid, g);
}

/*
 * How far a sched_waking may come before the blocked switch-out it ends and
 * still start that wait: the waker raced the sleep (the sleeper's
 * sched_switch is recorded after its dequeue, the waking at ttwu's start)
 */
#define WAKING_RACE_NS (50 * 1000ULL)

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

/*
 * A run-queue wait of @tid from @start to its switch-in @ev ended: into its
 * group's histogram and to the subscribers. Returns the wait when it began
 * with a wakeup (the part of the blocked interval spent waiting for a
 * CPU), 0 for a preemption or a negative delta (counted).
 */
static void wait_to_sinks(struct analyzer *an, const struct sched_event *ev, uint64_t start,
			  bool preempted, uint8_t via, int32_t tid, int32_t tgid, const char *comm)
{
	if (an->nsinks) {
		/* names the event lacks (perf's switch records): the lookup's */
		struct an_wait w = {
			.start_ns = start, .end_ns = ev->ts, .tid = tid, .cpu = ev->cpu,
			.comm = an_comm_or_lookup(an, tid, comm), .preempted = preempted,
			.via = via, .prev_tid = ev->pid > 0 ? ev->pid : 0,
			.prev_comm = ev->pid > 0 ? an_comm_or_lookup(an, ev->pid, ev->comm) : "",
		};

		w.tgid = tgid >= -1 ? tgid : an_tgid_lookup(an, tid);
		an_emit_wait(an, &w);
	}
}

static uint64_t measured_wait(struct analyzer *an, const struct sched_event *ev, uint64_t start,
			      bool preempted, uint8_t via, int32_t tid, int32_t tgid,
			      const char *comm)
{
	if (ev->ts < start) {
		an->runq.inc.negative++;
		return 0;
	}
	an_record(an, &an->runq, ev->ts - start, tid, tgid, ev->cpu, comm);
	wait_to_sinks(an, ev, start, preempted, via, tid, tgid, comm);
	return preempted ? 0 : ev->ts - start;
}

/* @ev, a switch-in, is from the idle task of a CPU idle since @ts or earlier (the model says) */
static bool idle_since_before(const struct analyzer *an, const struct sched_event *ev, uint64_t ts)
{
	uint64_t since = cpustate_idle_since(&an->cs, ev->cpu);

	return ev->pid == 0 && since && since <= ts;
}

/* next_pid was switched in on ev->cpu: its run-queue wait ends. Returns the
 * wakeup's part of its blocked interval; *tp NULL when the entry went. */
static uint64_t runq_switch_in(struct analyzer *an, const struct sched_event *ev,
			       struct task **tp, bool wanted, int32_t tgid, const char *comm)
{
	struct task *t = *tp;
	int32_t tid = ev->next_pid;
	uint64_t wake_ns = 0;

	if (t && (t->flags & TASK_RUNQ) && (t->flags & TASK_PREEMPTED) &&
	    an->cfg.compat == COMPAT_PERF) {
		/*
		 * perf 6.1's timehist files it under "wait time": the run after
		 * it has "sch delay" 0, which its rows, and so this histogram, hold;
		 * the subscribers (timelines) get the wait as it was, a preemption
		 */
		if (wanted && ev->ts >= t->runq_ts) {
			an_record(an, &an->runq, 0, tid, tgid, ev->cpu, comm);
			wait_to_sinks(an, ev, t->runq_ts, true, AN_VIA_EVENT, tid, tgid, comm);
			an->counts.perf_preempted++;
		} else if (wanted) {
			an->runq.inc.negative++;
		}
		if (clear_start(an, t, TASK_RUNQ))
			*tp = NULL;
	} else if (t && (t->flags & TASK_RUNQ)) {
		if (wanted)
			wake_ns = measured_wait(an, ev, t->runq_ts, t->flags & TASK_PREEMPTED,
						AN_VIA_EVENT, tid, tgid, comm);
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
			wake_ns = measured_wait(an, ev, ev->ts, false, AN_VIA_ONTO_IDLE, tid, tgid,
						comm);
			an->counts.from_waking++;
			an->counts.onto_idle++;
		} else if (wanted && t->waking_ts && t->waking_ts <= ev->ts) {
			wake_ns = measured_wait(an, ev, t->waking_ts, false, AN_VIA_WAKING, tid,
						tgid, comm);
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
			wake_ns = measured_wait(an, ev, ev->ts, false, AN_VIA_IDLE_WOKEN, tid, tgid,
						comm);
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
void an_switch_in(struct analyzer *an, const struct sched_event *ev)
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
	wanted = an_task_wanted(an, tid, comm, &tgid);
	if (an->cfg.modes & AN_RUNQ)
		wake_ns = runq_switch_in(an, ev, &t, wanted, tgid, comm);
	/*
	 * t is NULL if its entry was deleted above; else still valid: only
	 * clear_start() removes entries, only set_start()/an_note_new() add them
	 */
	if (an->cfg.modes & AN_OFFCPU) {
		if (t && (t->flags & TASK_OFF)) {
			if (wanted)
				an_close_off(an, t, ev->ts, tgid, ev->cpu, comm, wake_ns);
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
void an_note_new(struct analyzer *an, int32_t tid, const char *comm)
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
void an_switch_out(struct analyzer *an, const struct sched_event *ev)
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
void an_infer_switch(struct analyzer *an, int32_t cpu, const struct sched_event *ev)
{
	int32_t out = an->cur[cpu], in = ev->common_pid, tgid;
	uint64_t ts = an->cur_ts[cpu], bound;
	struct task *t;

	/*
	 * With -p/-t the backend may filter in the kernel, so switches between
	 * other tasks are absent by design: only gaps of selected tasks count.
	 */
	if (!an_task_selected(an, out) && !an_task_selected(an, in))
		return;
	an->counts.missed_switch++;
	if (out >= 0 && an->nsinks && an->slice_ts) {
		/*
		 * the stretch it had: to the CPU's last event at least; the
		 * idle task's, as far as the CPU-state model knows it idle
		 * (the switch out of idle was lost after that)
		 */
		uint64_t until = out ? 0 : cpustate_idle_until(&an->cs, cpu);
		struct an_slice sl = {
			.start_ns = an->slice_ts[cpu] && an->slice_ts[cpu] <= ts ?
				    an->slice_ts[cpu] : 0,
			.end_ns = until > ts ? until : ts, .tid = out, .cpu = cpu,
			.comm = an->cur_comm ? an->cur_comm[cpu] : "",
			.state = SCHED_STATE_UNKNOWN, .lost = true,
			.selected = out > 0 && an_task_wanted_quiet(an, out, NULL),
		};

		an_emit_slice(an, &sl);
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
		if (an_task_wanted(an, in, t->comm, &tgid))
			unmeasured(an, in, tgid, cpu, t->comm);
		if (clear_start(an, t, TASK_RUNQ | TASK_BLOCKED))
			t = NULL;
	}
	if (t && (t->flags & TASK_OFF)) {
		if (t->wake_ts > bound)
			bound = t->wake_ts;
		if (!an_task_wanted(an, in, t->comm, &tgid)) {
			/* not ours */
		} else if (bound <= t->off_ts) {
			/*
			 * it left another CPU after this one's last event and
			 * its wakeup is not in the trace either: nothing bounds
			 * the interval, which is not measured (counted)
			 */
			an->counts.off_unmeasured++;
		} else if (an_close_off(an, t, bound, tgid, cpu, t->comm, 0) > 0) {
			an->counts.inferred++;
			an->counts.inferred_slack_ns += ev->ts > bound ? ev->ts - bound : 0;
		}
		clear_start(an, t, TASK_OFF);
	}
}

/*
 * A blocked thread's wakeup: the earliest it can run again, the bound for
 * closing its off-CPU interval if the trace loses its switch-in.
 */
void an_note_wakeup(struct analyzer *an, const struct sched_event *ev)
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
void an_wake_start(struct analyzer *an, const struct sched_event *ev, int64_t keep)
{
	struct task *t = set_start(an, ev->pid, ev->comm, TASK_RUNQ, ev->ts, keep);
	int32_t cpu = ev->has_target ? ev->target_cpu : ev->cpu;

	if (t && an->want_queue && cpu >= 0 && cpu < AN_MAX_CPUS && an->cur[cpu] != ev->pid)
		queue_in(an, t, cpu, ev->ts);
}

/*
 * sched_waking of a thread that blocked in the window: where its run-queue
 * wait starts if the sched_wakeup after it is lost
 */
void an_note_waking(struct analyzer *an, const struct sched_event *ev)
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
 * The earliest task @tid can have been switched in anywhere, as far as the
 * trace shows: not before it was switched out, woken or preempted; 0 when
 * nothing is known
 */
static uint64_t not_before(struct analyzer *an, int32_t tid)
{
	const struct task *t = tasktab_find(&an->tasks, tid);
	uint64_t b = 0;

	if (!t)
		return 0;
	if (t->flags & (TASK_RUNQ | TASK_BLOCKED))
		b = t->runq_ts;
	if ((t->flags & (TASK_BLOCKED | TASK_WAKING)) && t->waking_ts > b)
		b = t->waking_ts;
	if ((t->flags & TASK_OFF) && t->off_ts > b)
		b = t->off_ts;
	if ((t->flags & TASK_OFF) && t->wake_ts > b)
		b = t->wake_ts;
	return b;
}

/*
 * ev->common_pid runs on ev->cpu, not what the trace had there: the model
 * hears it with its bound, and a task still counted queued (its switch-in
 * lost) leaves its queue between the bound and now
 */
void an_seen_running(struct analyzer *an, const struct sched_event *ev, int32_t was)
{
	int32_t who = ev->common_pid;
	uint64_t after = who > 0 ? not_before(an, who) : 0;
	struct task *t;

	cpustate_event(&an->cs, ev->cpu, ev->ts, who, after);
	if (who > 0 && an->want_queue && (t = tasktab_find(&an->tasks, who)) && t->queued_on) {
		uint64_t from = was >= 0 && an->cur_ts[ev->cpu] > after ? an->cur_ts[ev->cpu] : after;

		queue_leave(an, t, from && from <= ev->ts ? from : ev->ts, ev->ts);
	}
	if (an->slice_by)
		an->slice_by[ev->cpu] = who > 0 ? ev->ts : 0;	/* on at the latest here */
}
