// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The analyzer's stacks: the records after a switch-out (the blocked
 * thread's) or a waking (the waker's), the waker itself, stacks from a
 * kernel aggregate, and stacks read late for threads blocked long.
 */
#include "analyzer_local.h"

/* A stack record follows the event it belongs to on the same CPU. */
void an_attach_stack(struct analyzer *an, const struct sched_event *ev)
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
 * sched_waking fires in the waker's context: the task current on the CPU
 * woke ev->pid, whose off-CPU interval it ends; the stack after it is the
 * waker's. The last waking before the thread runs wins, as offwaketime's.
 */
void an_note_waker(struct analyzer *an, const struct sched_event *ev)
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

void analyzer_add_kstack_n(struct analyzer *an, int32_t tid, const char *comm,
			   const uint64_t *frames, uint32_t depth, uint64_t n, uint64_t sum_ns)
{
	int32_t tgid = -2;
	int64_t id = tid;
	uint32_t k;

	if (!an->cfg.stacks || (tid > 0 && !an_task_wanted(an, tid, comm, &tgid)))
		return;
	if (an->cfg.key == KEY_PID) {
		if (tgid == -2)
			tgid = tid > 0 ? an_tgid_lookup(an, tid) : -1;
		id = tgid >= 0 ? tgid : tid;
	}
	id = an_cgroup_stack_id(an, id, tid);
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
		    !an_off_state_wanted(&an->cfg, t->off_state))
			continue;
		/*
		 * One try per interval, whatever comes of it: a thread found
		 * running again ends its interval soon, a gone one never does,
		 * and a full stack table stays full (counted once)
		 */
		t->flags |= TASK_STACK_TRIED;
		if (!an_task_wanted(an, t->tid, t->comm, &tgid))
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
