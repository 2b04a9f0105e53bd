// SPDX-License-Identifier: GPL-2.0-or-later
/* The analyzer's state machine on synthetic event sequences. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analyzer.h"
#include "tasktab.h"
#include "fixture.h"

#define S_SLEEP 0x1
#define S_DISK 0x2
#define S_DEAD 0x10
#define PREEMPT 0x100

static struct analyzer an;
static int32_t on_cpu[8];	/* what the fake kernel runs on each CPU */

static struct an_cfg base_cfg(unsigned modes)
{
	struct an_cfg c;

	memset(&c, 0, sizeof(c));
	c.modes = modes;
	c.unit_ns = 1;		/* values in the histogram = ns deltas */
	c.pid = c.tid = -1;
	c.off_state_all = true;
	c.off_max_ns = UINT64_MAX;
	c.max_tasks = 64;
	c.max_groups = 16;
	c.states.preempt_mask = PREEMPT;
	c.states.nletters = 4;
	c.states.letter[0].bit = S_SLEEP;
	c.states.letter[0].letter = 'S';
	c.states.letter[1].bit = S_DISK;
	c.states.letter[1].letter = 'D';
	c.states.letter[2].bit = S_DEAD;
	c.states.letter[2].letter = 'X';
	c.states.letter[3].bit = 0x20;
	c.states.letter[3].letter = 'Z';
	return c;
}

static void init(const struct an_cfg *c)
{
	ck_assert_int_eq(analyzer_init(&an, c), 0);
	memset(on_cpu, 0, sizeof(on_cpu));
}

static void wakeup(uint64_t ts, int cpu, int pid, bool new_task)
{
	struct sched_event e = { .ts = ts, .cpu = cpu, .pid = pid, .comm = "task",
				 .common_pid = on_cpu[cpu],
				 .type = new_task ? SEV_WAKEUP_NEW : SEV_WAKEUP };

	analyzer_feed(&an, &e);
}

static void sw_named(uint64_t ts, int cpu, int prev, int64_t state, int next,
		     const char *prev_comm, const char *next_comm)
{
	char pc[COMM_LEN] = "", nc[COMM_LEN] = "";
	struct sched_event e = { .ts = ts, .cpu = cpu, .type = SEV_SWITCH,
				 .pid = prev, .prev_state = state, .next_pid = next,
				 .comm = pc, .next_comm = nc, .common_pid = prev };

	on_cpu[cpu] = next;
	strncpy(pc, prev_comm, COMM_LEN - 1);
	strncpy(nc, next_comm, COMM_LEN - 1);
	analyzer_feed(&an, &e);
}

static void sw(uint64_t ts, int cpu, int prev, int64_t state, int next)
{
	sw_named(ts, cpu, prev, state, next, "task", "task");
}

static const struct hist *only_hist(struct an_mode_state *m)
{
	ck_assert_uint_eq(m->groups.n, 1);
	return &m->groups.v[0]->h;
}

START_TEST(test_wakeup_to_run)
{
	struct an_cfg c = base_cfg(AN_RUNQ);
	const struct hist *h;

	init(&c);
	wakeup(100, 0, 7, false);
	sw(130, 0, 0, 0, 7);		/* idle -> 7: waited 30 */
	h = only_hist(&an.runq);
	ck_assert_uint_eq(h->count, 1);
	ck_assert_uint_eq(h->sum_ns, 30);
	ck_assert_uint_eq(an.counts.events[SEV_WAKEUP], 1);
	ck_assert_uint_eq(an.counts.events[SEV_SWITCH], 1);
	analyzer_fini(&an);
}
END_TEST

START_TEST(test_preempted)
{
	struct an_cfg c = base_cfg(AN_RUNQ);
	const struct hist *h;

	init(&c);
	/* 7 preempted in kernel (R+) by 8, then 8 blocks and 7 runs again */
	wakeup(10, 0, 8, false);
	sw(20, 0, 7, PREEMPT, 8);
	sw(50, 0, 8, S_SLEEP, 7);
	/* 7 preempted in user space (state 0) by 9 */
	wakeup(60, 0, 9, false);
	sw(70, 0, 7, 0, 9);
	sw(75, 0, 9, S_SLEEP, 7);
	h = only_hist(&an.runq);
	ck_assert_uint_eq(h->count, 4);		/* 8: 10, 7: 30, 9: 10, 7: 5 */
	ck_assert_uint_eq(h->sum_ns, 10 + 30 + 10 + 5);
	ck_assert_uint_eq(an.runq.inc.open_at_start, 0);
	analyzer_fini(&an);
}
END_TEST

START_TEST(test_wakeup_while_running)
{
	struct an_cfg c = base_cfg(AN_RUNQ);
	const struct hist *h;

	init(&c);
	wakeup(1, 0, 7, false);
	sw(2, 0, 0, 0, 7);		/* 7 runs: 1 */
	wakeup(10, 1, 7, false);	/* woken while still on the CPU */
	sw(20, 0, 7, S_SLEEP, 0);	/* then blocks: the start was stale */
	wakeup(30, 1, 7, false);
	sw(35, 0, 0, 0, 7);		/* waited 5, not 25 */
	h = only_hist(&an.runq);
	ck_assert_uint_eq(h->count, 2);
	ck_assert_uint_eq(h->sum_ns, 1 + 5);
	ck_assert_uint_eq(h->max, 5);
	/* last start wins when woken twice before running */
	wakeup(40, 0, 7, false);
	sw(41, 0, 7, S_SLEEP, 0);
	wakeup(50, 0, 7, false);
	wakeup(60, 0, 7, false);
	sw(61, 0, 0, 0, 7);
	ck_assert_uint_eq(h->count, 3);
	ck_assert_uint_eq(h->sum_ns, 1 + 5 + 1);
	analyzer_fini(&an);
}
END_TEST

START_TEST(test_wakeup_new_and_idle)
{
	struct an_cfg c = base_cfg(AN_RUNQ);
	const struct hist *h;

	init(&c);
	wakeup(100, 0, 0, false);	/* pid 0 is idle: never tracked */
	sw(110, 0, 0, 0, 0);
	ck_assert_uint_eq(an.tasks.used, 0);
	wakeup(200, 1, 42, true);	/* wakeup_new */
	sw(260, 1, 0, 0, 42);
	h = only_hist(&an.runq);
	ck_assert_uint_eq(h->count, 1);
	ck_assert_uint_eq(h->sum_ns, 60);
	sw(300, 1, 42, 0, 0);		/* 42 preempted by idle?: runnable */
	ck_assert_uint_eq(an.tasks.used, 1);
	ck_assert_uint_eq(an.runq.inc.open_at_start, 0);
	analyzer_finish(&an);
	ck_assert_uint_eq(an.runq.inc.open_at_end, 1);
	analyzer_fini(&an);
}
END_TEST

START_TEST(test_migration_per_cpu)
{
	struct an_cfg c = base_cfg(AN_RUNQ);

	c.key = KEY_CPU;
	init(&c);
	wakeup(100, 0, 7, false);	/* woken from CPU 0 */
	sw(150, 1, 0, 0, 7);		/* runs on CPU 1 */
	wakeup(200, 1, 8, false);
	sw(210, 0, 0, 0, 8);
	ck_assert_uint_eq(an.runq.groups.n, 2);
	groups_sort(&an.runq.groups);
	ck_assert_int_eq(an.runq.groups.v[0]->id, 0);
	ck_assert_uint_eq(an.runq.groups.v[0]->h.sum_ns, 10);
	ck_assert_int_eq(an.runq.groups.v[1]->id, 1);
	ck_assert_uint_eq(an.runq.groups.v[1]->h.sum_ns, 50);
	analyzer_fini(&an);
}
END_TEST

START_TEST(test_window_edges)
{
	struct an_cfg c = base_cfg(AN_RUNQ | AN_OFFCPU);

	init(&c);
	sw(10, 0, 0, 0, 7);		/* 7's wakeup was before the window */
	ck_assert_uint_eq(an.runq.inc.open_at_start, 1);
	ck_assert_uint_eq(an.off.inc.open_at_start, 1);
	ck_assert_uint_eq(an.runq.groups.n, 0);
	sw(20, 0, 7, S_SLEEP, 0);	/* blocks, never woken in the window */
	wakeup(30, 0, 9, false);	/* woken, never runs in the window */
	analyzer_finish(&an);
	ck_assert_uint_eq(an.runq.inc.open_at_end, 1);
	ck_assert_uint_eq(an.off.inc.open_at_end, 1);
	analyzer_fini(&an);
}
END_TEST

START_TEST(test_negative_and_late)
{
	struct an_cfg c = base_cfg(AN_RUNQ);

	init(&c);
	wakeup(100, 0, 7, false);
	ck_assert(!analyzer_partial(&an));
	sw(90, 1, 0, 0, 7);		/* earlier than its start */
	ck_assert_uint_eq(an.runq.inc.negative, 1);
	ck_assert_uint_eq(an.counts.late, 1);
	ck_assert_uint_eq(an.runq.groups.n, 0);
	/* either makes the results partial (--strict exits 3): they cannot be true */
	ck_assert(analyzer_partial(&an));
	analyzer_next_interval(&an);
	ck_assert(!analyzer_partial(&an));
	sw(200, 1, 7, 0, 3);
	sw(150, 0, 0, 0, 4);		/* out of time order, nothing negative */
	ck_assert_uint_eq(an.counts.late, 1);
	ck_assert_uint_eq(an.runq.inc.negative, 0);
	ck_assert_uint_eq(an.counts.missed_switch, 0);
	ck_assert(analyzer_partial(&an));
	analyzer_fini(&an);
}
END_TEST

START_TEST(test_state_overflow)
{
	struct an_cfg c = base_cfg(AN_RUNQ);

	c.max_tasks = 2;
	init(&c);
	wakeup(1, 0, 7, false);
	wakeup(2, 0, 8, false);
	wakeup(3, 0, 9, false);		/* no room */
	ck_assert_uint_eq(an.counts.state_overflow, 1);
	sw(10, 0, 0, 0, 7);		/* frees a slot */
	wakeup(11, 0, 9, false);
	ck_assert_uint_eq(an.counts.state_overflow, 1);
	sw(12, 0, 7, S_SLEEP, 9);
	ck_assert_uint_eq(only_hist(&an.runq)->count, 2);
	analyzer_fini(&an);
}
END_TEST

START_TEST(test_offcpu)
{
	struct an_cfg c = base_cfg(AN_OFFCPU);
	const struct hist *h;

	init(&c);
	sw(10, 0, 7, S_SLEEP, 0);
	sw(40, 1, 0, 0, 7);		/* off 30 */
	sw(50, 1, 7, PREEMPT, 8);	/* preempted: counted by default */
	sw(55, 1, 8, S_DEAD, 7);	/* 8 exits: never tracked */
	h = only_hist(&an.off);
	ck_assert_uint_eq(h->count, 2);
	ck_assert_uint_eq(h->sum_ns, 35);
	ck_assert_ptr_null(tasktab_find(&an.tasks, 8));
	analyzer_fini(&an);

	/* --state D and --min/--max */
	c = base_cfg(AN_OFFCPU);
	c.off_state_all = false;
	c.off_state_bits = S_DISK;
	c.off_min_ns = 10;
	c.off_max_ns = 100;
	init(&c);
	sw(10, 0, 7, S_SLEEP, 0);
	sw(40, 0, 0, 0, 7);		/* S: filtered out */
	sw(50, 0, 7, S_DISK, 0);
	sw(55, 0, 0, 0, 7);		/* D but 5 < min */
	sw(60, 0, 7, S_DISK, 0);
	sw(80, 0, 0, 0, 7);		/* D, 20: counted */
	sw(90, 0, 7, S_DISK, 0);
	sw(290, 0, 0, 0, 7);		/* D but 200 > max */
	sw(300, 0, 7, PREEMPT, 0);
	sw(320, 0, 0, 0, 7);		/* R not asked for */
	h = only_hist(&an.off);
	ck_assert_uint_eq(h->count, 1);
	ck_assert_uint_eq(h->sum_ns, 20);
	/* unwanted states end quietly: they are not window edges */
	ck_assert_uint_eq(an.off.inc.open_at_start, 0);
	sw(400, 0, 7, S_SLEEP, 0);
	analyzer_finish(&an);
	ck_assert_uint_eq(an.off.inc.open_at_end, 0);
	analyzer_fini(&an);
}
END_TEST

static int32_t fake_tgid(int32_t tid, void *arg)
{
	(void)arg;
	return tid >= 100 ? 100 : tid == 50 ? -1 : tid;
}

static int fake_comm(int32_t pid, char *buf, size_t len, void *arg)
{
	(void)arg;
	snprintf(buf, len, "%s", pid == 100 ? "server" : "other");
	return 0;
}

static unsigned comm_lookups;

static int counting_comm(int32_t tid, char *buf, size_t len, void *arg)
{
	(void)arg;
	comm_lookups++;
	if (tid == 9)
		return -ENOENT;	/* gone */
	snprintf(buf, len, "%s", tid == 7 ? "cc1" : "as");
	return 0;
}

/* --by comm with nameless events (perf's switch records): a lookup per thread, second and interval */
START_TEST(test_by_comm_nameless)
{
	struct an_cfg c = base_cfg(AN_OFFCPU);
	int i;

	c.key = KEY_COMM;
	c.comm_of = counting_comm;
	comm_lookups = 0;
	init(&c);
	for (i = 0; i < 10; i++) {
		uint64_t t = 100 + (uint64_t)i * 100;

		sw_named(t, 0, 0, 0, 7, "", "");
		sw_named(t + 10, 0, 7, S_SLEEP, 8, "", "");
		sw_named(t + 20, 0, 8, S_SLEEP, 9, "", "");
		sw_named(t + 30, 0, 9, S_SLEEP, 0, "", "");
	}
	groups_sort_by_total(&an.off.groups);
	ck_assert_uint_eq(an.off.groups.n, 3);
	ck_assert_uint_eq(comm_lookups, 3);
	for (i = 0; i < 3; i++) {
		const struct group *g = an.off.groups.v[i];

		ck_assert(!strcmp(g->comm, "cc1") || !strcmp(g->comm, "as") ||
			  !strcmp(g->comm, "[unknown]"));
		ck_assert_uint_eq(g->h.count, 9);
	}
	/* a second of trace time later, afresh */
	sw_named(1500000000, 0, 0, 0, 7, "", "");
	ck_assert_uint_eq(comm_lookups, 4);
	/* and in the next interval */
	analyzer_next_interval(&an);
	sw_named(1500000100, 0, 7, S_SLEEP, 0, "", "");
	sw_named(1500000200, 0, 0, 0, 7, "", "");
	ck_assert_uint_eq(comm_lookups, 5);
	analyzer_fini(&an);
}
END_TEST

START_TEST(test_filters_and_keys)
{
	struct an_cfg c = base_cfg(AN_RUNQ);

	/* -p 100: threads 100 and 101 belong to it, 7 does not */
	c.pid = 100;
	c.key = KEY_TID;
	c.tgid_of = fake_tgid;
	init(&c);
	wakeup(1, 0, 101, false);
	wakeup(2, 0, 7, false);
	sw(5, 0, 0, 0, 101);
	sw(6, 1, 0, 0, 7);
	ck_assert_uint_eq(an.runq.groups.n, 1);
	ck_assert_int_eq(an.runq.groups.v[0]->id, 101);
	ck_assert_str_eq(an.runq.groups.v[0]->comm, "task");
	analyzer_fini(&an);

	/* -P: keyed by process; a gone process falls back to its tid */
	c = base_cfg(AN_RUNQ);
	c.key = KEY_PID;
	c.tgid_of = fake_tgid;
	init(&c);
	wakeup(1, 0, 101, false);
	wakeup(1, 0, 102, false);
	wakeup(1, 0, 50, false);
	sw_named(5, 0, 0, 0, 101, "swapper", "worker");
	sw_named(6, 0, 101, S_SLEEP, 102, "worker", "worker2");
	sw_named(7, 0, 102, S_SLEEP, 50, "worker2", "gone");
	groups_sort(&an.runq.groups);
	ck_assert_uint_eq(an.runq.groups.n, 2);
	ck_assert_int_eq(an.runq.groups.v[0]->id, 50);
	ck_assert_int_eq(an.runq.groups.v[1]->id, 100);
	ck_assert_uint_eq(an.runq.groups.v[1]->h.count, 2);
	ck_assert_uint_eq(an.counts.tgid_unknown, 1);
	/* with no way to look the process up: its first thread's name */
	ck_assert_str_eq(an.runq.groups.v[1]->comm, "worker");
	analyzer_fini(&an);
	c.comm_of = fake_comm;
	init(&c);
	wakeup(1, 0, 101, false);
	sw_named(5, 0, 0, 0, 101, "swapper", "worker");
	ck_assert_uint_eq(an.runq.groups.n, 1);
	ck_assert_str_eq(an.runq.groups.v[0]->comm, "server");
	analyzer_fini(&an);

	/* --by comm: threads of any process, one group per name */
	c = base_cfg(AN_RUNQ);
	c.key = KEY_COMM;
	init(&c);
	wakeup(1, 0, 7, false);
	wakeup(1, 0, 8, false);
	wakeup(1, 0, 9, false);
	sw_named(5, 0, 0, 0, 7, "swapper", "cc1");
	sw_named(6, 0, 7, S_SLEEP, 8, "cc1", "cc1");
	sw_named(7, 0, 8, S_SLEEP, 9, "cc1", "as");
	groups_sort_by_total(&an.runq.groups);
	ck_assert_uint_eq(an.runq.groups.n, 2);
	ck_assert_str_eq(an.runq.groups.v[0]->comm, "cc1");
	ck_assert_uint_eq(an.runq.groups.v[0]->h.count, 2);
	ck_assert_str_eq(an.runq.groups.v[1]->comm, "as");
	analyzer_fini(&an);

	/* -c COMM and -t TID */
	c = base_cfg(AN_RUNQ);
	strcpy(c.comm, "make");
	init(&c);
	wakeup(1, 0, 7, false);
	wakeup(1, 0, 8, false);
	sw_named(5, 0, 0, 0, 7, "swapper", "make");
	sw_named(6, 0, 7, S_SLEEP, 8, "make", "cc1");
	ck_assert_uint_eq(only_hist(&an.runq)->count, 1);
	analyzer_fini(&an);

	c = base_cfg(AN_RUNQ);
	c.tid = 8;
	init(&c);
	wakeup(1, 0, 7, false);
	wakeup(1, 0, 8, false);
	sw(5, 0, 0, 0, 7);
	sw(6, 0, 7, S_SLEEP, 8);
	ck_assert_uint_eq(only_hist(&an.runq)->sum_ns, 5);
	analyzer_finish(&an);
	ck_assert_uint_eq(an.runq.inc.open_at_end, 0);
	analyzer_fini(&an);
}
END_TEST

/*
 * A filter that matched no thread of what the run saw never passes for
 * complete: -p of a process whose threads the trace names otherwise (a
 * pid namespace's), or that did not run.
 */
START_TEST(test_filter_matched_nothing)
{
	struct an_cfg c = base_cfg(AN_RUNQ);

	c.pid = 300;		/* no thread of the trace is of process 300 */
	c.tgid_of = fake_tgid;
	init(&c);
	ck_assert(!analyzer_matched_nothing(&an));	/* nothing seen yet: nothing said */
	wakeup(1, 0, 101, false);
	sw(5, 0, 0, 0, 101);
	ck_assert(analyzer_matched_nothing(&an));
	/* the run decides: blocked the whole window explains it, else partial */
	ck_assert(!analyzer_partial(&an));
	/* across intervals: the run's, not the interval's */
	analyzer_next_interval(&an);
	ck_assert(analyzer_matched_nothing(&an));
	analyzer_fini(&an);

	/* -p 100 matches thread 101: complete */
	c.pid = 100;
	init(&c);
	wakeup(1, 0, 101, false);
	sw(5, 0, 0, 0, 101);
	ck_assert(!analyzer_matched_nothing(&an));
	analyzer_fini(&an);

	/* no filter: an empty trace or a busy one, never "matched nothing" */
	c = base_cfg(AN_RUNQ);
	init(&c);
	sw(5, 0, 0, 0, 0);
	ck_assert(!analyzer_matched_nothing(&an));
	analyzer_fini(&an);
}
END_TEST

START_TEST(test_intervals_and_groups_cap)
{
	struct an_cfg c = base_cfg(AN_RUNQ);
	int i;

	c.key = KEY_TID;
	c.max_groups = 2;
	init(&c);
	for (i = 1; i <= 4; i++) {
		wakeup((uint64_t)i * 10, 0, i, false);
		sw((uint64_t)i * 10 + 1, 0, 0, 0, i);
	}
	/* two groups, the rest in (other) */
	ck_assert_uint_eq(an.runq.groups.n, 3);
	ck_assert_uint_eq(an.runq.groups.overflow, 2);
	groups_sort(&an.runq.groups);
	ck_assert(an.runq.groups.v[2]->id == GROUP_OTHER);
	ck_assert_uint_eq(an.runq.groups.v[2]->h.count, 2);
	/* a start pending across an interval boundary ends in the next one */
	wakeup(100, 0, 1, false);
	analyzer_next_interval(&an);
	ck_assert_uint_eq(an.runq.groups.n, 0);
	sw(130, 0, 0, 0, 1);
	ck_assert_uint_eq(an.runq.groups.n, 1);
	ck_assert_uint_eq(an.runq.groups.v[0]->h.sum_ns, 30);
	analyzer_fini(&an);
}
END_TEST

START_TEST(test_missed_switch)
{
	struct an_cfg c = base_cfg(AN_RUNQ);

	init(&c);
	sw(10, 1, 0, 0, 5);
	sw(20, 1, 5, S_SLEEP, 0);
	wakeup(30, 1, 7, false);
	/* the kernel ran 7 on CPU 1 without a recorded switch-in ... */
	on_cpu[1] = 7;
	wakeup(40, 1, 9, false);	/* ... 7 wakes 9: common_pid says so */
	ck_assert_uint_eq(an.counts.missed_switch, 1);
	sw(50, 1, 7, S_SLEEP, 9);	/* consistent again: no second count */
	ck_assert_uint_eq(an.counts.missed_switch, 1);
	/* 7's wakeup was never closed and is dropped, not mis-measured */
	ck_assert_uint_eq(only_hist(&an.runq)->count, 1);	/* 9: 10 */
	ck_assert_uint_eq(only_hist(&an.runq)->sum_ns, 10);
	analyzer_fini(&an);

	/*
	 * A wakeup the trace lost (in an idle CPU's interrupt): the thread
	 * blocked in the window, so its next switch-in is a wait not measured,
	 * not one that began before the window ...
	 */
	init(&c);
	sw(10, 1, 0, 0, 5);
	wakeup(15, 1, 6, false);
	sw(20, 1, 5, S_SLEEP, 6);	/* 5 blocks in the window, 6 runs */
	sw(30, 1, 6, S_SLEEP, 0);
	sw(50, 1, 0, 0, 5);		/* back, no wakeup recorded */
	ck_assert_uint_eq(an.counts.unmeasured, 1);
	ck_assert_uint_eq(an.counts.idle_woken, 0);
	ck_assert_uint_eq(an.runq.inc.open_at_start, 1);	/* the first, at 10 */
	ck_assert(analyzer_partial(&an));
	sw(60, 1, 5, S_SLEEP | S_DEAD, 0);	/* exits: nothing kept */
	ck_assert_ptr_null(tasktab_find(&an.tasks, 5));
	/* ... unless the CPU it runs on idled all the time it was blocked: 0 */
	sw(61, 0, 0, 0, 8);
	sw(62, 0, 8, S_SLEEP, 0);	/* 8 blocks, CPU 0 idles */
	sw(70, 0, 0, 0, 8);
	ck_assert_uint_eq(an.counts.idle_woken, 1);
	ck_assert_uint_eq(an.counts.unmeasured, 1);
	analyzer_fini(&an);
}
END_TEST

/* what the unmeasured sink heard: the thread and the group the wait counts in */
static int32_t um_tid;
static struct group *um_group;

static void on_um(void *arg, int32_t tid, struct group *g)
{
	(void)arg;
	um_tid = tid;
	um_group = g;
}

START_TEST(test_inferred_switch)
{
	struct an_cfg c = base_cfg(AN_OFFCPU | AN_RUNQ);
	struct an_sink sink = { .unmeasured = on_um };

	init(&c);
	um_tid = 0;
	um_group = NULL;
	ck_assert_int_eq(analyzer_subscribe(&an, &sink), 0);
	sw(5, 1, 0, 0, 5);
	sw(10, 1, 5, S_SLEEP, 0);	/* 5 blocks, CPU 1 idles */
	wakeup(30, 1, 5, false);	/* timer irq on the idle CPU wakes 5 */
	/* the idle -> 5 switch is not in the trace; 5 blocks again at 90 */
	on_cpu[1] = 5;
	sw(90, 1, 5, S_SLEEP, 0);
	ck_assert_uint_eq(an.counts.missed_switch, 1);
	ck_assert_uint_eq(an.counts.inferred, 1);
	/* closed at the CPU's last event before the gap: the wakeup */
	ck_assert_uint_eq(only_hist(&an.off)->count, 1);
	ck_assert_uint_eq(only_hist(&an.off)->sum_ns, 20);
	/* its run-queue wait is unknown: counted as such, not measured */
	ck_assert_uint_eq(only_hist(&an.runq)->count, 0);
	ck_assert_uint_eq(an.runq.groups.v[0]->unmeasured, 1);
	ck_assert_uint_eq(an.counts.unmeasured, 1);
	/* the subscribers hear which thread, in which group (to size it) */
	ck_assert_int_eq(um_tid, 5);
	ck_assert_ptr_eq(um_group, an.runq.groups.v[0]);
	/* and the next interval starts at the recorded switch-out */
	sw(150, 1, 0, 0, 5);
	ck_assert_uint_eq(only_hist(&an.off)->count, 2);
	ck_assert_uint_eq(only_hist(&an.off)->sum_ns, 20 + 60);
	analyzer_fini(&an);

	/* a missing switch-out: the task left at the CPU's last event */
	c = base_cfg(AN_OFFCPU);
	init(&c);
	sw(5, 0, 0, 0, 7);
	wakeup(20, 0, 9, false);	/* 7 wakes 9 */
	on_cpu[0] = 0;			/* 7 -> idle not recorded */
	wakeup(50, 0, 7, false);	/* idle's irq wakes 7 */
	sw(60, 0, 0, 0, 7);
	ck_assert_uint_eq(an.counts.missed_switch, 1);
	ck_assert_uint_eq(only_hist(&an.off)->sum_ns, 60 - 20);
	analyzer_fini(&an);

	/*
	 * Woken from another CPU after the idle CPU's last event: the wakeup
	 * is the tighter bound (the CPU's last event would give 0).
	 */
	c = base_cfg(AN_OFFCPU | AN_RUNQ);
	init(&c);
	sw(5, 1, 0, 0, 5);
	sw(10, 1, 5, S_SLEEP, 0);	/* 5 blocks; CPU 1 records nothing more */
	sw(20, 0, 0, 0, 8);
	wakeup(70, 0, 5, false);	/* 8 wakes 5 on CPU 0 */
	on_cpu[1] = 5;			/* idle -> 5 on CPU 1 not recorded */
	sw(90, 1, 5, S_SLEEP, 0);
	ck_assert_uint_eq(an.counts.missed_switch, 1);
	ck_assert_uint_eq(an.counts.inferred, 1);
	ck_assert_uint_eq(an.counts.unmeasured, 1);	/* its wait for CPU 1 */
	ck_assert_uint_eq(only_hist(&an.off)->sum_ns, 70 - 10);
	ck_assert_uint_eq(an.counts.inferred_slack_ns, 90 - 70);
	ck_assert(analyzer_partial(&an));
	analyzer_fini(&an);

	/* the same in offcpu mode alone: wakeups still bound the interval */
	c = base_cfg(AN_OFFCPU);
	init(&c);
	sw(5, 1, 0, 0, 5);
	sw(10, 1, 5, S_SLEEP, 0);
	sw(20, 0, 0, 0, 8);
	wakeup(70, 0, 5, false);
	on_cpu[1] = 5;
	sw(90, 1, 5, S_SLEEP, 0);
	ck_assert_uint_eq(only_hist(&an.off)->sum_ns, 70 - 10);
	analyzer_fini(&an);

	/*
	 * Left CPU 0 after CPU 1's last event, wakeup unseen: nothing bounds
	 * the interval (CPU 1's last event is before it began): not measured,
	 * never negative
	 */
	c = base_cfg(AN_OFFCPU);
	init(&c);
	sw(5, 1, 0, 0, 9);		/* CPU 1 runs 9; its last event */
	sw(6, 0, 0, 0, 5);
	sw(10, 0, 5, S_SLEEP, 0);	/* 5 blocks on CPU 0 at 10 */
	on_cpu[1] = 5;			/* 9 -> idle -> 5 on CPU 1: not recorded */
	sw(90, 1, 5, S_SLEEP, 0);
	ck_assert_uint_eq(an.off.inc.negative, 0);
	ck_assert_uint_eq(an.counts.off_unmeasured, 1);
	ck_assert_uint_eq(an.off.groups.n, 0);
	analyzer_fini(&an);
}
END_TEST

/* a task created in the window: its first switch-in ends no interval */
START_TEST(test_new_tasks)
{
	struct an_cfg c = base_cfg(AN_OFFCPU | AN_RUNQ);
	struct sched_event fork = { .ts = 3, .cpu = 0, .type = SEV_FORK, .pid = 5,
				    .next_pid = 6, .common_pid = 5 };
	struct task *t;

	init(&c);
	sw(1, 0, 0, 0, 5);
	wakeup(2, 0, 7, true);		/* 5 creates 7 (sched_wakeup_new) */
	fork.common_pid = on_cpu[0];
	analyzer_feed(&an, &fork);	/* and 6, whose wakeup_new is not seen */
	sw(10, 0, 5, PREEMPT, 7);
	sw(20, 0, 7, S_SLEEP, 6);
	sw(30, 0, 6, S_SLEEP, 5);
	ck_assert_uint_eq(an.off.inc.open_at_start, 1);	/* 5 only */
	ck_assert_uint_eq(an.runq.inc.open_at_start, 1);	/* 5 */
	ck_assert_uint_eq(an.counts.unmeasured, 1);		/* 6: its wakeup_new unseen */
	ck_assert_uint_eq(only_hist(&an.runq)->count, 2);	/* 7: 2 -> 10, 5: 10 -> 30 */
	ck_assert_uint_eq(only_hist(&an.off)->count, 1);	/* 5: 10 -> 30 */
	/* nothing is left behind for them */
	t = tasktab_find(&an.tasks, 6);
	ck_assert(!t || !(t->flags & TASK_NEW));
	analyzer_fini(&an);
}
END_TEST

/* -- COMMAND's follow set: its descendants up to twice --max-tasks, the rest counted */
START_TEST(test_follow_cap)
{
	struct an_cfg c = base_cfg(AN_OFFCPU);
	const int32_t cmd = 100;
	struct sched_event fork = { .ts = 3, .cpu = 0, .type = SEV_FORK, .pid = cmd };
	int32_t i;

	c.follow = &cmd;
	c.nfollow = 1;
	init(&c);
	ck_assert(tidset_has(&an.follow, cmd));
	ck_assert(!tidset_has(&an.follow, 1000));
	for (i = 0; i < 200; i++) {
		fork.next_pid = 1000 + i;
		fork.ts++;
		analyzer_feed(&an, &fork);
	}
	/* the command and 129 children: 2 x (64 + 1) */
	ck_assert_uint_eq(an.follow.n, 130);
	ck_assert_uint_eq(an.counts.follow_overflow, 71);
	ck_assert(tidset_has(&an.follow, 1000));
	ck_assert(tidset_has(&an.follow, 1128));
	ck_assert(!tidset_has(&an.follow, 1129));
	ck_assert(analyzer_partial(&an));	/* --strict exits 3 */
	/* a child's child is followed while there is room, and a repeat costs nothing */
	analyzer_fini(&an);
	c.max_tasks = 1000;
	init(&c);
	fork.next_pid = 500;
	analyzer_feed(&an, &fork);
	fork.pid = 500;
	fork.next_pid = 501;
	analyzer_feed(&an, &fork);
	analyzer_feed(&an, &fork);
	ck_assert(tidset_has(&an.follow, 501));
	ck_assert_uint_eq(an.follow.n, 3);
	ck_assert_uint_eq(an.counts.follow_overflow, 0);
	ck_assert(!analyzer_partial(&an));
	analyzer_fini(&an);
}
END_TEST

/* a switch a second source recorded: no prev_state, no names */
START_TEST(test_switch_without_state_or_comm)
{
	struct an_cfg c = base_cfg(AN_OFFCPU | AN_RUNQ);
	struct sched_event e = { .ts = 40, .cpu = 1, .type = SEV_SWITCH, .pid = 0,
				 .common_pid = 0, .next_pid = 5,
				 .prev_state = SCHED_STATE_UNKNOWN };

	c.key = KEY_TID;
	init(&c);
	sw_named(5, 1, 0, 0, 5, "swapper/1", "worker");
	sw_named(10, 1, 5, S_SLEEP, 0, "worker", "swapper/1");
	wakeup(30, 1, 5, false);
	analyzer_feed(&an, &e);		/* idle -> 5, from a switch record */
	on_cpu[1] = 5;
	ck_assert_uint_eq(an.counts.missed_switch, 0);
	ck_assert_uint_eq(only_hist(&an.off)->sum_ns, 30);
	/* named as its wakeup named it (the fake kernel calls everyone "task") */
	ck_assert_str_eq(an.off.groups.v[0]->comm, "task");
	ck_assert_uint_eq(only_hist(&an.runq)->sum_ns, 10);
	ck_assert_str_eq(an.runq.groups.v[0]->comm, "task");
	/* a switch-out of unknown state: off-CPU, not run-queue, not --state S */
	e.ts = 50;
	e.pid = e.common_pid = 5;
	e.next_pid = 0;
	analyzer_feed(&an, &e);
	on_cpu[1] = 0;
	sw(80, 1, 0, 0, 5);
	ck_assert_uint_eq(only_hist(&an.off)->count, 2);
	/* back from a CPU idle since it left, no wakeup: that switch, 0 */
	ck_assert_uint_eq(only_hist(&an.runq)->count, 2);
	ck_assert_uint_eq(an.counts.idle_woken, 1);
	ck_assert_uint_eq(only_hist(&an.runq)->sum_ns, 10);
	analyzer_fini(&an);
}
END_TEST

/* a recording with stacks, read by an analysis that asked for none */
/* --late-stacks: the reader is asked only for long, still-blocked, wanted intervals */
static int late_asked[8], nlate_asked;

static unsigned late_reader(int32_t tid, uint64_t *frames, void *arg)
{
	(void)arg;
	late_asked[nlate_asked++ & 7] = tid;
	if (tid == 9)
		return 0;	/* "running again": no stack, asked again later */
	frames[0] = 0x1000 + (uint64_t)tid;
	frames[1] = 0x2000;
	return 2;
}

START_TEST(test_late_kstacks)
{
	struct an_cfg c = base_cfg(AN_OFFCPU);
	const struct stackagg_ent *e;
	uint32_t i, depth;
	const uint64_t *fr;

	c.stacks = AN_KSTACK;
	c.max_stacks = 64;
	init(&c);
	nlate_asked = 0;
	sw(100, 0, 7, S_SLEEP, 0);	/* blocked since 100 */
	sw(150, 1, 8, S_DISK, 0);	/* since 150 */
	sw(300, 0, 0, 0, 11);
	sw(310, 0, 11, PREEMPT, 0);	/* runnable: never asked */
	sw(320, 1, 0, 0, 9);
	sw(330, 1, 9, S_SLEEP, 0);	/* since 330 */
	wakeup(340, 1, 8, false);	/* 8 woken: its switch-in not seen yet */
	/* blocked since 200 or earlier: only 7 (8 was woken) */
	ck_assert_uint_eq(analyzer_late_kstacks(&an, 200, late_reader, NULL), 1);
	ck_assert_int_eq(nlate_asked, 1);
	ck_assert_int_eq(late_asked[0], 7);
	/* asked once per interval: 7 has its stack; 9 says none (and is not asked again) */
	ck_assert_uint_eq(analyzer_late_kstacks(&an, 400, late_reader, NULL), 0);
	ck_assert_int_eq(nlate_asked, 2);
	ck_assert_int_eq(late_asked[1], 9);
	sw(500, 0, 0, 0, 7);		/* 7's interval ends with its late stack */
	sw(510, 1, 0, 0, 8);		/* 8's without one */
	ck_assert_uint_eq(an.counts.late_kstacks, 1);
	ck_assert_uint_eq(an.counts.no_stack, 1);
	ck_assert_uint_eq(an.agg.n, 2);
	for (i = 0; i < an.agg.n; i++) {
		e = &an.agg.v[i];
		if (e->id == 7) {
			fr = stacktab_get(&an.kstacks, e->kstack, &depth);
			ck_assert_ptr_nonnull(fr);
			ck_assert_uint_eq(depth, 2);
			ck_assert_uint_eq(fr[0], 0x1007);
			ck_assert_uint_eq(e->total_ns, 400);
		} else {
			ck_assert_int_eq(e->id, 8);
			ck_assert_uint_eq(e->kstack, 0);
		}
	}
	/* a new interval of 7 starts without a stack and is asked; 9 had its try */
	sw(600, 0, 7, S_SLEEP, 0);
	nlate_asked = 0;
	ck_assert_uint_eq(analyzer_late_kstacks(&an, 700, late_reader, NULL), 1);
	ck_assert_int_eq(nlate_asked, 1);
	ck_assert_int_eq(late_asked[0], 7);
	/* its interval ends: the entry goes, no flag keeps it */
	sw(800, 0, 0, 0, 7);
	ck_assert_ptr_null(tasktab_find(&an.tasks, 7));
	analyzer_fini(&an);

	/* without -K it does nothing */
	c = base_cfg(AN_OFFCPU);
	init(&c);
	sw(100, 0, 7, S_SLEEP, 0);
	ck_assert_uint_eq(analyzer_late_kstacks(&an, 200, late_reader, NULL), 0);
	analyzer_fini(&an);
}
END_TEST

START_TEST(test_stack_records_ignored)
{
	struct an_cfg c = base_cfg(AN_OFFCPU);
	uint64_t frames[2] = { 0xffffffff81000010ull, 0xffffffff81000020ull };
	struct sched_event k = { .ts = 11, .cpu = 1, .type = SEV_KSTACK, .pid = 5,
				 .common_pid = 5, .stack = frames, .stack_depth = 2 };

	init(&c);
	sw(5, 1, 0, 0, 5);
	sw(10, 1, 5, S_SLEEP, 0);
	analyzer_feed(&an, &k);
	k.type = SEV_USTACK;
	analyzer_feed(&an, &k);
	sw(40, 1, 0, 0, 5);
	ck_assert_uint_eq(only_hist(&an.off)->count, 1);
	ck_assert_uint_eq(only_hist(&an.off)->sum_ns, 30);
	ck_assert_uint_eq(an.counts.events[SEV_KSTACK], 1);
	analyzer_fini(&an);
}
END_TEST

START_TEST(test_compat)
{
	struct an_cfg c = base_cfg(AN_RUNQ);
	struct sched_event e = { .type = SEV_WAKING, .comm = "task" };

	/* runqlat.bt: a thread preempted in the kernel (R+) starts nothing */
	c.compat = COMPAT_BPFTRACE;
	init(&c);
	sw(10, 0, 0, 0, 7);
	sw(20, 0, 7, PREEMPT, 8);
	sw(30, 0, 8, 0, 7);		/* 7 back: no start seen for it */
	sw(40, 0, 7, S_SLEEP, 8);	/* 8 was preempted with R: 10 */
	ck_assert_uint_eq(only_hist(&an.runq)->count, 1);
	ck_assert_uint_eq(only_hist(&an.runq)->sum_ns, 10);
	ck_assert_uint_eq(an.runq.inc.open_at_start, 3);
	/* like runqlat.bt, the idle task is timed too: out at 10, in at 50 */
	sw(50, 0, 8, S_SLEEP, 0);
	ck_assert_uint_eq(only_hist(&an.runq)->count, 2);
	ck_assert_uint_eq(only_hist(&an.runq)->max, 40);
	analyzer_fini(&an);

	/* perf sched: from the first sched_waking; sched_wakeup ignored */
	c.compat = COMPAT_PERF;
	init(&c);
	e.ts = 10, e.pid = 7, e.common_pid = 0;
	analyzer_feed(&an, &e);
	e.ts = 12;
	analyzer_feed(&an, &e);		/* a second waking does not move it */
	wakeup(15, 0, 7, false);
	sw(20, 0, 0, 0, 7);
	ck_assert_uint_eq(only_hist(&an.runq)->sum_ns, 10);
	/*
	 * preempted at 30, back at 45: perf 6.1's timehist puts the 15 in
	 * "wait time", the run's "sch delay" 0
	 */
	sw(30, 0, 7, PREEMPT, 8);
	sw(45, 0, 8, S_SLEEP, 7);
	ck_assert_uint_eq(only_hist(&an.runq)->count, 2);
	ck_assert_uint_eq(only_hist(&an.runq)->sum_ns, 10);
	ck_assert_uint_eq(an.counts.perf_preempted, 1);
	analyzer_fini(&an);

	/* bcc (default): wakeup, last wins; waking is not a start */
	c.compat = COMPAT_BCC;
	init(&c);
	e.ts = 10;
	analyzer_feed(&an, &e);
	wakeup(15, 0, 7, false);
	wakeup(16, 0, 7, false);
	sw(20, 0, 0, 0, 7);
	ck_assert_uint_eq(only_hist(&an.runq)->sum_ns, 4);
	analyzer_fini(&an);
}
END_TEST

/*
 * oncpu --compat=libbpf-tools: cpudist of libbpf-tools 0.26 counts a slice
 * only where its task leaves runnable (R, R+), and the idle task's slices
 * with one start for all CPUs (its map keys pid 0)
 */
START_TEST(test_oncpu_libbpf)
{
	struct an_cfg c = base_cfg(AN_ONCPU);
	const struct hist *h;

	c.compat = COMPAT_LIBBPF;
	init(&c);
	sw(10, 0, 0, 0, 7);		/* CPU 0: idle -> 7 (idle's start unknown) */
	sw(30, 0, 7, S_SLEEP, 8);	/* 7 blocks: not counted */
	sw(50, 0, 8, PREEMPT, 9);	/* 8 preempted (R+): 20 */
	sw(60, 1, 0, 0, 5);		/* CPU 1 */
	sw(65, 1, 5, 0, 0);		/* 5 leaves R (a yield): 5; CPU 1 idle from 65 */
	sw(70, 0, 9, S_SLEEP, 0);	/* 9 blocks: not counted; CPU 0 idle from 70 */
	sw(100, 1, 0, 0, 6);		/* idle leaves CPU 1: from 70 (CPU 0's), 30 */
	h = only_hist(&an.on);
	ck_assert_uint_eq(h->count, 3);
	ck_assert_uint_eq(h->sum_ns, 20 + 5 + 30);
	ck_assert_uint_eq(h->max, 30);
	analyzer_fini(&an);

	/* the default, as BCC's python cpudist: every slice, no idle */
	c.compat = COMPAT_BCC;
	init(&c);
	sw(10, 0, 0, 0, 7);
	sw(30, 0, 7, S_SLEEP, 8);
	sw(50, 0, 8, PREEMPT, 9);
	sw(70, 0, 9, S_SLEEP, 0);
	sw(100, 0, 0, 0, 6);
	h = only_hist(&an.on);
	ck_assert_uint_eq(h->count, 3);
	ck_assert_uint_eq(h->sum_ns, 20 + 20 + 20);
	analyzer_fini(&an);
}
END_TEST

START_TEST(test_tasktab)
{
	struct tasktab t;
	int i;

	/* churn through deletions: probe chains must stay intact */
	ck_assert_int_eq(tasktab_init(&t, 1000), 0);
	for (i = 1; i <= 1000; i++)
		ck_assert_ptr_nonnull(tasktab_get(&t, i * 7));
	ck_assert_ptr_null(tasktab_get(&t, 99999));
	for (i = 1; i <= 1000; i += 2)
		tasktab_del(&t, tasktab_find(&t, i * 7));
	for (i = 1; i <= 1000; i++) {
		if (i % 2)
			ck_assert_ptr_null(tasktab_find(&t, i * 7));
		else
			ck_assert_ptr_nonnull(tasktab_find(&t, i * 7));
	}
	ck_assert_uint_eq(t.used, 500);
	tasktab_fini(&t);
}
END_TEST

/* The task table grows from 1024 slots, keeps every entry, stops at its cap */
START_TEST(test_tasktab_grows)
{
	struct tasktab t;
	int32_t tid;

	ck_assert_int_eq(tasktab_init(&t, 5000), 0);
	ck_assert_uint_eq(t.mask + 1, 1024);
	for (tid = 1; tid <= 5000; tid++) {
		struct task *e = tasktab_get(&t, tid * 7);

		ck_assert_ptr_nonnull(e);
		e->runq_ts = (uint64_t)tid;
	}
	ck_assert_uint_ge(t.mask + 1, 10000);
	ck_assert_uint_le(t.mask + 1, 16384);
	ck_assert_ptr_null(tasktab_get(&t, 999999));	/* at the cap */
	for (tid = 1; tid <= 5000; tid += 2)
		tasktab_del(&t, tasktab_find(&t, tid * 7));
	for (tid = 1; tid <= 5000; tid++) {
		struct task *e = tasktab_find(&t, tid * 7);

		if (tid % 2) {
			ck_assert_ptr_null(e);
		} else {
			ck_assert_ptr_nonnull(e);
			ck_assert_uint_eq(e->runq_ts, (uint64_t)tid);
		}
	}
	ck_assert_uint_eq(t.used, 2500);
	ck_assert_ptr_nonnull(tasktab_get(&t, 999999));
	tasktab_fini(&t);
}
END_TEST

/* what a subscriber hears: the last of each, and how many */
static struct {
	struct an_wait wait;
	struct an_off off;
	char waker_comm[COMM_LEN];	/* off's, copied: it is borrowed */
	struct an_slice slice[8];
	struct an_wake wake;
	unsigned nwait, noff, nslice, nwake, nboundary, nfinish;
	uint64_t finish_ns;
	struct { int32_t cpu; uint64_t ts; int delta; } q[8];
	unsigned nq;
	struct { int32_t cpu; uint64_t from, to; } ql;	/* queue_lost */
	unsigned nql;
	struct cs_change cs[64];	/* the CPU-state model's stream */
	unsigned ncs;
} heard;

static void on_queue_lost(void *arg, int32_t cpu, uint64_t from, uint64_t to)
{
	(void)arg;
	heard.ql.cpu = cpu;
	heard.ql.from = from;
	heard.ql.to = to;
	heard.nql++;
}

static void on_cpu_state(void *arg, const struct cs_change *c)
{
	(void)arg;
	if (heard.ncs < 64)
		heard.cs[heard.ncs] = *c;
	heard.ncs++;
}

static void on_queue(void *arg, int32_t cpu, uint64_t ts, int delta)
{
	(void)arg;
	if (heard.nq < 8)
		heard.q[heard.nq] = (typeof(heard.q[0])){ cpu, ts, delta };
	heard.nq++;
}

static void on_wait(void *arg, const struct an_wait *w)
{
	ck_assert_ptr_eq(arg, &heard);
	heard.wait = *w;
	heard.nwait++;
}

static void on_off(void *arg, const struct an_off *o)
{
	(void)arg;
	heard.off = *o;
	snprintf(heard.waker_comm, sizeof(heard.waker_comm), "%s",
		 o->waker_comm ? o->waker_comm : "");
	heard.noff++;
}

static void on_slice(void *arg, const struct an_slice *sl)
{
	(void)arg;
	if (heard.nslice < 8)
		heard.slice[heard.nslice] = *sl;
	heard.nslice++;
}

static void on_wake(void *arg, const struct an_wake *w)
{
	(void)arg;
	heard.wake = *w;
	heard.nwake++;
}

static void on_boundary(void *arg)
{
	(void)arg;
	heard.nboundary++;
}

static void on_finish(void *arg, uint64_t end_ns)
{
	(void)arg;
	heard.nfinish++;
	heard.finish_ns = end_ns;
}

/* analyzer_subscribe: waits, off-CPU intervals, slices, wakeups, boundaries, the end */
START_TEST(test_subscribers)
{
	struct an_cfg c = base_cfg(AN_RUNQ | AN_OFFCPU);
	struct an_sink sink = { .arg = &heard, .wait = on_wait, .off = on_off,
				.slice = on_slice, .wake = on_wake, .boundary = on_boundary,
				.finish = on_finish, .queue = on_queue };
	unsigned i;

	memset(&heard, 0, sizeof(heard));
	c.tid = 7;		/* only 7 is selected */
	init(&c);
	ck_assert_int_eq(analyzer_subscribe(&an, &sink), 0);
	sw(10, 0, 0, 0, 7);			/* 7 goes on CPU 0 */
	sw(40, 0, 7, S_SLEEP, 8);		/* 7 ran 30, sleeps; 8 on */
	wakeup(100, 1, 7, false);		/* woken from CPU 1 (current: 0) */
	ck_assert_uint_eq(heard.nwake, 1);
	ck_assert_int_eq(heard.wake.tid, 7);
	ck_assert(heard.wake.selected);
	ck_assert_int_eq(heard.wake.type, SEV_WAKEUP);
	sw(130, 0, 8, PREEMPT, 7);		/* 8 preempted for 7: 7 waited 30 */
	ck_assert_uint_eq(heard.nwait, 1);
	ck_assert_uint_eq(heard.wait.start_ns, 100);
	ck_assert_uint_eq(heard.wait.end_ns, 130);
	ck_assert_int_eq(heard.wait.tid, 7);
	ck_assert_int_eq(heard.wait.cpu, 0);
	ck_assert_int_eq(heard.wait.prev_tid, 8);
	ck_assert(!heard.wait.preempted);
	ck_assert_uint_eq(heard.noff, 1);
	ck_assert_uint_eq(heard.off.start_ns, 40);
	ck_assert_uint_eq(heard.off.end_ns, 130);
	ck_assert_uint_eq(heard.off.wake_ns, 100);
	ck_assert_int_eq(heard.off.state, S_SLEEP);
	ck_assert_int_eq(heard.off.tid, 7);
	/* 8's wait (it was preempted) is not 7's: not heard */
	sw(150, 0, 7, S_SLEEP, 8);
	ck_assert_uint_eq(heard.nwait, 1);
	/* slices: every task's, selected or not; the first has no known start */
	ck_assert_uint_eq(heard.nslice, 4);
	ck_assert_int_eq(heard.slice[0].tid, 0);
	ck_assert_uint_eq(heard.slice[0].start_ns, 0);
	ck_assert_int_eq(heard.slice[0].next_tid, 7);
	ck_assert_int_eq(heard.slice[1].tid, 7);
	ck_assert_uint_eq(heard.slice[1].start_ns, 10);
	ck_assert_uint_eq(heard.slice[1].end_ns, 40);
	ck_assert_int_eq(heard.slice[1].next_tid, 8);
	ck_assert(heard.slice[1].selected);
	ck_assert_int_eq(heard.slice[2].tid, 8);
	ck_assert(!heard.slice[2].selected);
	ck_assert_uint_eq(heard.slice[2].end_ns - heard.slice[2].start_ns, 90);
	ck_assert_int_eq(heard.slice[2].state, PREEMPT);
	ck_assert_uint_eq(heard.slice[3].end_ns - heard.slice[3].start_ns, 20);
	/* the run queues, of the selected 7 only: woken (no target_cpu: the
	 * event's CPU 1), run on 0 (8's preemption is not 7's) */
	ck_assert_uint_eq(heard.nq, 2);
	ck_assert(heard.q[0].cpu == 1 && heard.q[0].ts == 100 && heard.q[0].delta == 1);
	ck_assert(heard.q[1].cpu == 1 && heard.q[1].ts == 130 && heard.q[1].delta == -1);
	/* a switch the trace lost: the slice it ends has no known start */
	{
		struct sched_event e = { .ts = 200, .cpu = 0, .type = SEV_WAKEUP, .pid = 9,
					 .comm = "task", .common_pid = 5, .has_target = true,
					 .target_cpu = 0 };

		analyzer_feed(&an, &e);	/* 5 runs on CPU 0, not 8; 9 queued on 0 */
	}
	sw(210, 0, 5, S_SLEEP, 8);
	ck_assert_uint_eq(heard.nslice, 5);
	ck_assert_int_eq(heard.slice[4].tid, 5);
	ck_assert_uint_eq(heard.slice[4].start_ns, 0);
	ck_assert_uint_eq(heard.nq, 2);
	wakeup(220, 1, 8, false);
	analyzer_next_interval(&an);
	ck_assert_uint_eq(heard.nboundary, 1);
	analyzer_finish(&an);
	ck_assert_uint_eq(heard.nfinish, 1);
	ck_assert_uint_eq(heard.finish_ns, 220);
	/* at most AN_MAX_SINKS */
	for (i = 1; i < AN_MAX_SINKS; i++)
		ck_assert_int_eq(analyzer_subscribe(&an, &sink), 0);
	ck_assert_int_eq(analyzer_subscribe(&an, &sink), -ENOSPC);
	analyzer_fini(&an);
}
END_TEST

/* what a fork subscriber hears */
static struct an_fork forks[4];
static unsigned nforks;

static void on_fork(void *arg, const struct an_fork *f)
{
	(void)arg;
	if (nforks < 4)
		forks[nforks] = *f;
	nforks++;
}

static void fork_ev(uint64_t ts, int parent, int child)
{
	struct sched_event e = { .ts = ts, .cpu = 0, .type = SEV_FORK, .pid = parent,
				 .next_pid = child, .comm = "task", .common_pid = parent };

	analyzer_feed(&an, &e);
}

static void waking(uint64_t ts, int cpu, int pid)
{
	struct sched_event e = { .ts = ts, .cpu = cpu, .pid = pid, .comm = "task",
				 .common_pid = on_cpu[cpu], .type = SEV_WAKING };

	analyzer_feed(&an, &e);
}

/*
 * What analyses subscribe to instead of configuring the core: forks of
 * the selected threads, the wakers (AN_NEED_WAKERS), and groups of their
 * own under the run's key (analyzer_group)
 */
START_TEST(test_fork_wakers_own_groups)
{
	struct an_cfg c = base_cfg(AN_OFFCPU);
	struct an_sink fs = { .fork = on_fork };
	struct an_sink ws = { .arg = &heard, .off = on_off, .needs = AN_NEED_WAKERS };
	struct an_sink plain = { .arg = &heard, .off = on_off };
	struct an_mode_state own;
	struct group *g;
	int need;

	/* forks: only a selected parent's (process 100: threads 100 and up) */
	c.pid = 100;
	c.tgid_of = fake_tgid;
	c.comm_of = fake_comm;
	c.key = KEY_PID;
	nforks = 0;
	init(&c);
	ck_assert_int_eq(analyzer_subscribe(&an, &fs), 0);
	fork_ev(10, 101, 7);	/* a new process (7 leads its own) */
	fork_ev(20, 101, 102);	/* a thread of 100 */
	fork_ev(30, 8, 9);	/* not selected */
	fork_ev(40, 101, 0);	/* no child */
	ck_assert_uint_eq(nforks, 2);
	ck_assert(forks[0].ts == 10 && forks[0].tid == 101 && forks[0].child == 7);
	ck_assert_int_eq(forks[0].tgid, 100);
	ck_assert(forks[0].process);
	ck_assert(forks[1].child == 102 && !forks[1].process);
	/* groups of an analysis's own: the run's key (process), named as the analyzer's */
	ck_assert_int_eq(analyzer_groups_init(&an, &own), 0);
	g = analyzer_group(&an, &own, 101, -2, 0, NULL);
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->id, 100);
	ck_assert_str_eq(g->comm, "server");
	ck_assert_ptr_eq(analyzer_group(&an, &own, 103, 100, 1, "worker"), g);
	ck_assert_int_eq(analyzer_group(&an, &own, 50, -2, 0, "gone")->id, 50);	/* tgid unknown */
	ck_assert_uint_eq(own.groups.n, 2);
	analyzer_groups_clear(&own);
	ck_assert_uint_eq(own.groups.n, 0);
	analyzer_groups_fini(&own);
	analyzer_fini(&an);

	/* the wakers: followed only for a subscriber that needs them */
	for (need = 0; need < 2; need++) {
		memset(&heard, 0, sizeof(heard));
		c = base_cfg(AN_OFFCPU);
		init(&c);
		ck_assert_int_eq(analyzer_subscribe(&an, need ? &ws : &plain), 0);
		ck_assert(an.want_wakers == (need == 1));
		sw_named(10, 0, 0, 0, 7, "swapper", "t7");
		sw_named(15, 1, 0, 0, 8, "swapper", "wk");	/* 8 runs on CPU 1 */
		sw(40, 0, 7, S_SLEEP, 0);			/* 7 sleeps */
		waking(100, 1, 7);				/* 8 wakes it */
		wakeup(101, 1, 7, false);
		sw(130, 0, 0, 0, 7);
		ck_assert_uint_eq(heard.noff, 1);
		ck_assert_uint_eq(heard.off.start_ns, 40);
		ck_assert_int_eq(heard.off.waker, need ? 8 : 0);
		ck_assert_uint_eq(heard.off.waking_ns, need ? 100 : 0);
		ck_assert_str_eq(heard.waker_comm, need ? "wk" : "");
		analyzer_fini(&an);
	}
}
END_TEST

/* run-queue joins and leaves: preempted, woken onto target_cpu, not while running */
START_TEST(test_queue_changes)
{
	struct an_cfg c = base_cfg(AN_RUNQ);
	struct an_sink sink = { .arg = &heard, .queue = on_queue };
	struct sched_event e = { .ts = 30, .cpu = 1, .type = SEV_WAKEUP, .pid = 7,
				 .comm = "task", .has_target = true, .target_cpu = 0 };

	memset(&heard, 0, sizeof(heard));
	init(&c);
	ck_assert_int_eq(analyzer_subscribe(&an, &sink), 0);
	sw(10, 0, 0, 0, 7);		/* 7 runs on 0 */
	e.common_pid = on_cpu[1];
	analyzer_feed(&an, &e);		/* woken while it runs: not queued */
	ck_assert_uint_eq(heard.nq, 0);
	sw(40, 0, 7, S_SLEEP, 8);	/* 7 sleeps; its stale start goes */
	e.ts = 50;
	analyzer_feed(&an, &e);		/* woken from CPU 1 onto CPU 0 */
	ck_assert_uint_eq(heard.nq, 1);
	ck_assert(heard.q[0].cpu == 0 && heard.q[0].ts == 50 && heard.q[0].delta == 1);
	e.ts = 55;
	analyzer_feed(&an, &e);		/* woken again: already queued */
	ck_assert_uint_eq(heard.nq, 1);
	sw(60, 1, 0, 0, 7);		/* ... runs on CPU 1: leaves CPU 0's queue */
	ck_assert_uint_eq(heard.nq, 2);
	ck_assert(heard.q[1].cpu == 0 && heard.q[1].ts == 60 && heard.q[1].delta == -1);
	sw(70, 1, 7, PREEMPT, 9);	/* preempted on 1: joins 1's queue */
	ck_assert(heard.q[2].cpu == 1 && heard.q[2].ts == 70 && heard.q[2].delta == 1);
	sw(80, 1, 9, S_DEAD, 7);
	ck_assert(heard.q[3].cpu == 1 && heard.q[3].ts == 80 && heard.q[3].delta == -1);
	ck_assert_uint_eq(heard.nq, 4);
	analyzer_fini(&an);
}
END_TEST

/*
 * A task queued on busy CPU 0 is seen running on idle CPU 1, its switch
 * in lost: it left CPU 0's queue between its wakeup and that sight (the
 * model's stream: certain up to its bound, unsure after); the slice it
 * then ends ran from that sight at the latest; runq's onto_idle needs the
 * model to say the CPU was idle since before the waking
 */
START_TEST(test_lost_switch_in)
{
	struct an_cfg c = base_cfg(AN_RUNQ);
	struct an_sink sink = { .arg = &heard, .queue = on_queue, .queue_lost = on_queue_lost,
				.slice = on_slice, .cpu = on_cpu_state };
	struct sched_event w = { .ts = 20, .cpu = 0, .type = SEV_WAKEUP, .pid = 9,
				 .comm = "task", .common_pid = 6, .has_target = true,
				 .target_cpu = 0 };
	struct sched_event k = { .ts = 60, .cpu = 1, .type = SEV_WAKING, .pid = 12,
				 .comm = "task", .common_pid = 9 };
	int sure = 0, unsure = 0;
	unsigned i;

	memset(&heard, 0, sizeof(heard));
	c.ncpu = 2;
	init(&c);
	ck_assert_int_eq(analyzer_subscribe(&an, &sink), 0);
	sw(10, 1, 5, S_SLEEP, 0);	/* CPU 1 idles */
	sw(10, 0, 0, 0, 6);		/* CPU 0 runs 6 */
	ck_assert_uint_eq(cpustate_idle_since(&an.cs, 1), 10);
	analyzer_feed(&an, &w);		/* 9 queued on CPU 0 */
	analyzer_feed(&an, &k);		/* 9 runs on CPU 1 */
	ck_assert_uint_eq(cpustate_idle_since(&an.cs, 1), 0);
	ck_assert_uint_eq(heard.nql, 1);
	ck_assert_int_eq(heard.ql.cpu, 0);
	ck_assert_uint_eq(heard.ql.from, 20);
	ck_assert_uint_eq(heard.ql.to, 60);
	ck_assert(heard.q[heard.nq - 1].cpu == 0 && heard.q[heard.nq - 1].delta == -1);
	/* the idle stretch it ended: known idle to 9's wakeup, then lost */
	{
		bool found = false;

		for (i = 0; i < heard.nslice && i < 8; i++)
			if (heard.slice[i].tid == 0 && heard.slice[i].lost) {
				ck_assert_uint_eq(heard.slice[i].start_ns, 10);
				ck_assert_uint_eq(heard.slice[i].end_ns, 20);
				ck_assert(!heard.slice[i].selected);
				found = true;
			}
		ck_assert(found);
	}
	on_cpu[1] = 9;
	sw(70, 1, 9, S_SLEEP, 0);
	ck_assert_int_eq(heard.slice[heard.nslice - 1].tid, 9);
	ck_assert_uint_eq(heard.slice[heard.nslice - 1].start_ns, 0);
	ck_assert_uint_eq(heard.slice[heard.nslice - 1].in_by, 60);
	analyzer_close_cpus(&an, 100, NULL, NULL, 0, 0);
	for (i = 0; i < heard.ncs && i < 64; i++) {
		if (i)
			ck_assert_uint_le(heard.cs[i - 1].ts, heard.cs[i].ts);
		if (heard.cs[i].kind == CS_CH_QUEUE)
			sure += heard.cs[i].val;
		if (heard.cs[i].kind == CS_CH_UNSURE) {
			ck_assert_uint_eq(heard.cs[i].ts, heard.cs[i].val > 0 ? 20 : 60);
			unsure += heard.cs[i].val;
		}
	}
	ck_assert_int_eq(sure, 0);
	ck_assert_int_eq(unsure, 0);
	/* CPU 1: idle to 9's wakeup, unknown to its sight, busy, idle again */
	ck_assert_uint_eq(an.cs.cpu[1].ns[CS_IDLE], 10 + 30);
	ck_assert_uint_eq(an.cs.cpu[1].ns[CS_UNKNOWN], 40);
	ck_assert_uint_eq(an.cs.cpu[1].ns[CS_BUSY], 10);
	/* a wait that depends on that idle state: partial where the analysis says so */
	ck_assert(!an.cfg.cpu_state && analyzer_cpu_unknown_ns(&an) == 0);
	an.cfg.cpu_state = true;
	ck_assert_uint_eq(analyzer_cpu_unknown_ns(&an), 40);
	ck_assert(analyzer_partial(&an));
	analyzer_fini(&an);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analyzer");
	TCase *tc = tcase_create("analyzer");

	tcase_add_test(tc, test_wakeup_to_run);
	tcase_add_test(tc, test_preempted);
	tcase_add_test(tc, test_wakeup_while_running);
	tcase_add_test(tc, test_wakeup_new_and_idle);
	tcase_add_test(tc, test_migration_per_cpu);
	tcase_add_test(tc, test_window_edges);
	tcase_add_test(tc, test_negative_and_late);
	tcase_add_test(tc, test_state_overflow);
	tcase_add_test(tc, test_offcpu);
	tcase_add_test(tc, test_by_comm_nameless);
	tcase_add_test(tc, test_filters_and_keys);
	tcase_add_test(tc, test_filter_matched_nothing);
	tcase_add_test(tc, test_intervals_and_groups_cap);
	tcase_add_test(tc, test_missed_switch);
	tcase_add_test(tc, test_inferred_switch);
	tcase_add_test(tc, test_new_tasks);
	tcase_add_test(tc, test_compat);
	tcase_add_test(tc, test_stack_records_ignored);
	tcase_add_test(tc, test_late_kstacks);
	tcase_add_test(tc, test_switch_without_state_or_comm);
	tcase_add_test(tc, test_tasktab);
	tcase_add_test(tc, test_tasktab_grows);
	tcase_add_test(tc, test_subscribers);
	tcase_add_test(tc, test_oncpu_libbpf);
	tcase_add_test(tc, test_queue_changes);
	tcase_add_test(tc, test_lost_switch_in);
	tcase_add_test(tc, test_follow_cap);
	tcase_add_test(tc, test_fork_wakers_own_groups);
	suite_add_tcase(s, tc);
	return check_run(s);
}
