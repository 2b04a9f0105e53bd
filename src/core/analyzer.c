// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The analyzer: sched events in time order to run-queue and off-CPU
 * intervals. This file holds init and fini, the feed dispatcher (each
 * event to the parts that follow it, which analyzer_local.h names), and
 * the entry points for kernel histograms, /proc totals and the window's
 * intervals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer_local.h"

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
	if (!an->cur || !an->cur_ts || cpustate_init(&an->cs, cfg->cpu_trust, cfg->ncpu)) {
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
		an->slice_by = calloc(AN_MAX_CPUS, sizeof(*an->slice_by));
		an->want_slices = true;
		ret = an->slice_ts && an->slice_by ? 0 : -ENOMEM;
	}
	if (!ret && cfg->follow) {
		uint32_t i;

		/* the command, and twice as many descendants as threads tracked */
		an->follow.max = 2 * (cfg->max_tasks + cfg->nfollow);
		if (an->follow.max > (1u << 26))
			an->follow.max = 1u << 26;
		for (i = 0; !ret && i < cfg->nfollow; i++)
			ret = cfg->follow[i] > 0 ? tidset_add(&an->follow, cfg->follow[i]) : 0;
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
	free(an->slice_ts);
	an->slice_ts = NULL;
	free(an->slice_by);
	an->slice_by = NULL;
	free(an->wake_stack_tid);
	an->wake_stack_tid = NULL;
	free(an->cur_comm);
	an->cur_comm = NULL;
	an->nsinks = 0;
	free(an->cur);
	free(an->cur_ts);
	cpustate_fini(&an->cs);
	free(an->stack_tid);
	an->stack_tid = NULL;
	tidset_fini(&an->follow);
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

const char *an_compat_name(enum an_compat c)
{
	switch (c) {
	case COMPAT_BCC:
		return "bcc";
	case COMPAT_BPFTRACE:
		return "bpftrace";
	case COMPAT_PERF:
		return "perf";
	case COMPAT_LIBBPF:
		return "libbpf-tools";
	}
	return "?";
}

void analyzer_feed(struct analyzer *an, const struct sched_event *ev)
{
	an->seen++;
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

		if (*cur != ev->common_pid)
			an_seen_running(an, ev, *cur);
		else
			cpustate_event(&an->cs, ev->cpu, ev->ts, ev->common_pid, 0);
		if (*cur >= 0 && *cur != ev->common_pid) {
			an_infer_switch(an, ev->cpu, ev);
			if (an->slice_ts)
				an->slice_ts[ev->cpu] = 0;	/* when it went on: unknown */
		}
		if (an->want_slices && ev->type == SEV_SWITCH)
			an_slice_switch(an, ev, *cur);
		if (an->cur_comm && (ev->type == SEV_SWITCH || *cur != ev->common_pid))
			comm_copy(an->cur_comm[ev->cpu], ev->type == SEV_SWITCH && ev->next_comm ?
				  ev->next_comm : "");
		*cur = ev->type == SEV_SWITCH ? ev->next_pid : ev->common_pid;
		an->cur_ts[ev->cpu] = ev->ts;
	}

	if (ev->type == SEV_SAMPLE) {
		an_emit_sample(an, ev);
		return;
	}
	/* in the writer's context: no switch, wakeup or stack of the task moved */
	if (ev->type == SEV_CGROUP_ATTACH || ev->type == SEV_CGROUP_TRANSFER) {
		if (an->cfg.cgroup_moved && ev->pid > 0)
			an->cfg.cgroup_moved(ev->pid, ev->cg_root, ev->cg_path, an->cfg.group_arg);
		return;
	}
	if (ev->type >= SEV_KSTACK) {
		an_attach_stack(an, ev);
		return;
	}
	if (an->stack_tid && ev->cpu >= 0 && ev->cpu < AN_MAX_CPUS)
		an->stack_tid[ev->cpu] = -1;
	if (an->wake_stack_tid && ev->cpu >= 0 && ev->cpu < AN_MAX_CPUS)
		an->wake_stack_tid[ev->cpu] = 0;	/* set again by a waking */

	if (an->nsinks && (ev->type == SEV_WAKEUP || ev->type == SEV_WAKEUP_NEW ||
			   ev->type == SEV_WAKING))
		an_emit_wake(an, ev);
	switch (ev->type) {
	case SEV_WAKEUP:
		/* perf sched counts from sched_waking instead */
		if (an->cfg.compat == COMPAT_PERF)
			break;
		/* fall through */
	case SEV_WAKEUP_NEW:
		if (ev->type == SEV_WAKEUP_NEW)
			an_note_new(an, ev->pid, ev->comm);
		if (ev->pid > 0 && (an->cfg.modes & AN_OFFCPU))
			an_note_wakeup(an, ev);
		/* last start wins, as in runqlat (the first, as in perf sched) */
		if (ev->pid > 0 && (an->cfg.modes & AN_RUNQ))
			an_wake_start(an, ev, an->cfg.compat == COMPAT_PERF ? START_KEEP : 0);
		break;
	case SEV_FORK:
		an_note_new(an, ev->next_pid, NULL);
		/* a followed task's child (thread or process) is followed too */
		if (an->cfg.follow && an_follow_has(an, ev->pid))
			an_follow_add(an, ev->next_pid);
		if (an->want_fork && ev->next_pid > 0 && an_task_selected(an, ev->pid))
			an_emit_fork(an, ev);
		break;
	case SEV_WAKING:
		if (ev->pid > 0 && (an->cfg.modes & AN_RUNQ) && an->cfg.compat == COMPAT_PERF)
			an_wake_start(an, ev, START_KEEP);
		if (an->want_wakers && ev->pid > 0)
			an_note_waker(an, ev);
		else if (ev->pid > 0 && (an->cfg.modes & AN_RUNQ))
			an_note_waking(an, ev);
		break;
	case SEV_SWITCH:
		/*
		 * pid 0 is each CPU's idle task: never tracked, except to
		 * reproduce runqlat.bt, which times it (one key for all CPUs).
		 */
		if (ev->pid > 0 || (an->cfg.compat == COMPAT_BPFTRACE && ev->pid == 0)) {
			struct sched_event e = *ev;

			e.pid = e.pid ? e.pid : IDLE_TID;
			an_switch_out(an, &e);
		}
		if (ev->next_pid > 0 || (an->cfg.compat == COMPAT_BPFTRACE && ev->next_pid == 0)) {
			struct sched_event e = *ev;

			e.next_pid = e.next_pid ? e.next_pid : IDLE_TID;
			an_switch_in(an, &e);
		}
		/* in a trace of the selected threads only, theirs is what it will have */
		if (ev->cpu >= 0 && ev->cpu < AN_MAX_CPUS)
			cpustate_switch(&an->cs, ev->cpu, ev->ts, ev->next_pid,
					an->cs.trust != CS_SELECTED ||
					an_task_selected(an, ev->next_pid));
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

	an->seen++;
	if (tid > 0 && !an_task_wanted(an, tid, comm, &tgid))
		return;
	/* the kernel's keys: no thread (tid 0) is the one idle key */
	if (tid <= 0 && tgid == -2)
		tgid = -1;
	g = an_group_of_n(an, m, tid, tgid, cpu, comm, n);
	if (g)
		hist_add_n(&g->h, v, n, sum_ns);
}

/* @n intervals summing to @ns in @m's group of @tid: totals only */
static void add_totals(struct analyzer *an, struct an_mode_state *m, int32_t tid,
		       int32_t tgid, const char *comm, uint64_t n, uint64_t ns)
{
	struct group *g;

	if (!n && !ns)
		return;
	g = an_group_of(an, m, tid, tgid, -1, comm);
	if (g)
		hist_add_total(&g->h, n, ns, an->cfg.unit_ns);
}

void analyzer_add_thread(struct analyzer *an, const struct an_thread *t)
{
	int32_t tgid = -2;
	unsigned i;

	an->seen++;
	if (t->tid <= 0 || !an_task_wanted(an, t->tid, t->comm, &tgid))
		return;
	if (an->cfg.modes & AN_RUNQ)
		add_totals(an, &an->runq, t->tid, tgid, t->comm, t->runq_n, t->runq_ns);
	if (an->cfg.modes & AN_OFFCPU)
		add_totals(an, &an->off, t->tid, tgid, t->comm, t->off_n, t->off_ns);
	/* switched in pcount times, for exec time in all */
	if (an->cfg.modes & AN_ONCPU)
		add_totals(an, &an->on, t->tid, tgid, t->comm, t->runq_n, t->oncpu_ns);
	blk_split_merge(&an->counts.blocked, &t->blk);
	if (tgid == -2)
		tgid = an_tgid_lookup(an, t->tid);
	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].totals)
			an->sinks[i].totals(an->sinks[i].arg, t, tgid);
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
		    an_task_wanted_quiet(an, an->cur[i], NULL))
			an->on.inc.open_at_end++;

	for (i = 0; i <= an->tasks.mask; i++) {
		struct task *t = &an->tasks.slot[i];
		int32_t tgid;

		if (!t->tid || !an_task_wanted(an, t->tid, t->comm, &tgid))
			continue;
		if (t->flags & TASK_RUNQ)
			an->runq.inc.open_at_end++;
		if ((t->flags & TASK_OFF) && an_off_state_wanted(&an->cfg, t->off_state))
			an->off.inc.open_at_end++;
		if (t->flags & TASK_OFF)
			an_open_off(an, t, tgid);
	}
}

void analyzer_window_start(struct analyzer *an, uint64_t ts)
{
	cpustate_begin(&an->cs, ts);
}

void analyzer_close_cpus(struct analyzer *an, uint64_t end, const uint64_t *proc_idle,
			 const bool *listed, unsigned nproc, uint64_t tol_ns)
{
	cpustate_close(&an->cs, end ? end : an->last_ts, proc_idle, listed, nproc, tol_ns);
}

void analyzer_next_interval(struct analyzer *an)
{
	unsigned i;

	cpustate_next_interval(&an->cs);
	for (i = 0; i < an->nsinks; i++)
		if (an->sinks[i].boundary)
			an->sinks[i].boundary(an->sinks[i].arg);
	groups_clear(&an->runq.groups);
	groups_clear(&an->off.groups);
	groups_clear(&an->on.groups);
	memset(&an->on.inc, 0, sizeof(an->on.inc));
	if (an->cfg.stacks)
		stackagg_clear(&an->agg);
	memset(&an->runq.inc, 0, sizeof(an->runq.inc));
	memset(&an->off.inc, 0, sizeof(an->off.inc));
	memset(&an->counts, 0, sizeof(an->counts));
	memset(an->comm_cache, 0, sizeof(an->comm_cache));
}
