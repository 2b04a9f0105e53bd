/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files behind analyzer.h share (not for its callers): the
 * helpers one concern of the analyzer calls in another. analyzer.c holds
 * init/fini, the feed dispatcher and the entry points for kernel
 * histograms, /proc totals and windows; anselect.c which threads count
 * and the group their intervals go to (with the tgid/comm/cgroup caches);
 * anrunq.c the run-queue state machine and switch inference; anoff.c
 * off-CPU intervals closed; anstacks.c stacks and wakers' stacks;
 * ansinks.c the subscribers and the on-CPU slices.
 */
#ifndef OFFCPU_ANALYZER_LOCAL_H
#define OFFCPU_ANALYZER_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer.h"

/* the tasktab key of the idle task under --compat=bpftrace (0 is "empty") */
#define IDLE_TID INT32_MIN

/* set_start() states for run-queue starts: must not replace one; preempted */
#define START_KEEP 1
#define START_PREEMPT 2

/* anselect.c: selection (-p/-t/-c/--cgroup/-- COMMAND), names, groups */

/* Is @tid in the -- COMMAND follow set? */
bool an_follow_has(const struct analyzer *an, int32_t tid);
/* @tid joins the follow set (past its cap: counted in follow_overflow). */
void an_follow_add(struct analyzer *an, int32_t tid);
/* tgid of @tid, cached; -1 when unknown. */
int32_t an_tgid_lookup(struct analyzer *an, int32_t tid);
/*
 * Does the thread pass -p/-t/-c/--cgroup? Sets *tgid to the tgid when it
 * was resolved (-1 unknown), -2 when it was not; counts what it could not
 * tell.
 */
bool an_task_wanted(struct analyzer *an, int32_t tid, const char *comm, int32_t *tgid);
/* an_task_wanted() for what subscribers hear: it counts nothing. */
bool an_task_wanted_quiet(struct analyzer *an, int32_t tid, const char *comm);
/* Is @tid selected by -p/-t (comm aside)? Idle and unknown are not. */
bool an_task_selected(struct analyzer *an, int32_t tid);
/* @comm, else @tid's name looked up (cached), else "[unknown]"; "swapper" for IDLE_TID. */
const char *an_comm_or_lookup(struct analyzer *an, int32_t tid, const char *comm);
/*
 * The group @n intervals of @tid ending on @cpu belong to in @m, named;
 * NULL when the table is full. @tgid -2: not resolved yet.
 */
struct group *an_group_of_n(struct analyzer *an, struct an_mode_state *m, int32_t tid,
			    int32_t tgid, int32_t cpu, const char *comm, uint64_t n);
/* an_group_of_n() for one interval. */
struct group *an_group_of(struct analyzer *an, struct an_mode_state *m, int32_t tid,
			  int32_t tgid, int32_t cpu, const char *comm);
/* One interval of @ns into its group's histogram; returns the group or NULL. */
struct group *an_record(struct analyzer *an, struct an_mode_state *m, uint64_t ns,
			int32_t tid, int32_t tgid, int32_t cpu, const char *comm);
/* --by cgroup: the stack entry id @id of @tid in its cgroup; else @id. */
int64_t an_cgroup_stack_id(struct analyzer *an, int64_t id, int32_t tid);

/* ansinks.c: what the subscribers hear, and the on-CPU slices */

void an_emit_wait(const struct analyzer *an, const struct an_wait *w);
void an_emit_off(const struct analyzer *an, const struct an_off *o);
void an_emit_slice(const struct analyzer *an, const struct an_slice *sl);
/* a sample (SEV_SAMPLE) to the subscribers */
void an_emit_sample(struct analyzer *an, const struct sched_event *ev);
/* a wakeup, wakeup_new or waking to the subscribers */
void an_emit_wake(struct analyzer *an, const struct sched_event *ev);
/* a selected thread's sched_process_fork to the subscribers */
void an_emit_fork(struct analyzer *an, const struct sched_event *ev);
/*
 * A switch on ev->cpu ends the slice of the task the trace had there
 * (@was, -1 none yet) and starts next_pid's: on-CPU time and subscribers.
 */
void an_slice_switch(struct analyzer *an, const struct sched_event *ev, int32_t was);
/* the subscribers hear of @t's off-CPU interval, open at the window's end */
void an_open_off(struct analyzer *an, const struct task *t, int32_t tgid);

/* anrunq.c: the run-queue state machine, and switches the trace lost */

/* next_pid was switched in on ev->cpu: close its pending intervals */
void an_switch_in(struct analyzer *an, const struct sched_event *ev);
/* ev->pid was switched out: open the intervals its state starts */
void an_switch_out(struct analyzer *an, const struct sched_event *ev);
/* A task created in the window: its first switch-in ends no interval. */
void an_note_new(struct analyzer *an, int32_t tid, const char *comm);
/* A blocked thread's wakeup: the bound for its off-CPU interval's end. */
void an_note_wakeup(struct analyzer *an, const struct sched_event *ev);
/* A wakeup starts a run-queue wait (@keep: START_KEEP, or 0 to replace one). */
void an_wake_start(struct analyzer *an, const struct sched_event *ev, int64_t keep);
/* sched_waking: where a blocked thread's wait starts if its wakeup is lost */
void an_note_waking(struct analyzer *an, const struct sched_event *ev);
/* The trace skipped a context switch on @cpu before @ev: infer it. */
void an_infer_switch(struct analyzer *an, int32_t cpu, const struct sched_event *ev);
/* ev->common_pid runs on ev->cpu, not @was, the task the trace had there. */
void an_seen_running(struct analyzer *an, const struct sched_event *ev, int32_t was);

/* anoff.c: off-CPU intervals closed */

/* Does --state want an interval that began in @state? */
bool an_off_state_wanted(const struct an_cfg *c, int64_t state);
/*
 * @t's off-CPU interval ends at @end, @wake_ns of it the wait for a CPU:
 * 1 recorded, 0 left out by --state/--min/--max, -1 negative.
 */
int an_close_off(struct analyzer *an, struct task *t, uint64_t end, int32_t tgid,
		 int32_t cpu, const char *comm, uint64_t wake_ns);

/* anstacks.c: stacks, and wakers' */

/* A stack record: onto the interval of the event it follows on its CPU. */
void an_attach_stack(struct analyzer *an, const struct sched_event *ev);
/* sched_waking with --wakers: the waker, and its stack to come */
void an_note_waker(struct analyzer *an, const struct sched_event *ev);

#endif
