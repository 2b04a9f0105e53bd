// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Waits a trace could not time, sized from the threads' schedstat: the
 * arithmetic, the share of a thread's time among its groups, and a whole
 * interval against this process's own threads (a live one, and one that
 * exited: counted, not sized).
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "analyzer.h"
#include "fixture.h"
#include "groups.h"
#include "procfs.h"
#include "unsized.h"

#define S_SLEEP 0x1

START_TEST(test_thread_ns)
{
	/* run_delay grew by 500, 200 of it measured: 300 in the waits not measured */
	ck_assert_uint_eq(unsized_thread_ns(1000, 1500, 200), 300);
	/* measured more than it grew (a wait timed from its waking): nothing */
	ck_assert_uint_eq(unsized_thread_ns(1000, 1100, 200), 0);
	ck_assert_uint_eq(unsized_thread_ns(1000, 1000, 0), 0);
	/* born in the interval: from 0 */
	ck_assert_uint_eq(unsized_thread_ns(0, 70, 0), 70);
}
END_TEST

START_TEST(test_share)
{
	struct group a, b, c;
	struct unsized_thread t;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	memset(&t, 0, sizeof(t));
	/* 3 waits in a, 1 in b: 400 ns shared 300 and 100 */
	t.unmeasured = 4;
	t.g[0] = &a;
	t.gn[0] = 3;
	t.g[1] = &b;
	t.gn[1] = 1;
	unsized_share(&t, 400, true);
	ck_assert_uint_eq(a.unmeasured_ns, 300);
	ck_assert_uint_eq(b.unmeasured_ns, 100);
	ck_assert(a.unmeasured_sized && b.unmeasured_sized && !c.unmeasured_sized);
	/* a remainder goes to the last group, nothing is lost to rounding */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	t.g[2] = &c;
	t.gn[2] = 2;
	t.unmeasured = 6;
	unsized_share(&t, 100, true);
	ck_assert_uint_eq(a.unmeasured_ns + b.unmeasured_ns + c.unmeasured_ns, 100);
	ck_assert_uint_eq(a.unmeasured_ns, 50);
	ck_assert_uint_eq(b.unmeasured_ns, 16);
	/* a thread gone: its waits counted in each group as not sized */
	unsized_share(&t, 0, false);
	ck_assert_uint_eq(a.unmeasured_unsized, 3);
	ck_assert_uint_eq(b.unmeasured_unsized, 1);
	ck_assert_uint_eq(c.unmeasured_unsized, 2);
}
END_TEST

static struct analyzer an;

static struct an_cfg cfg(void)
{
	struct an_cfg c;

	memset(&c, 0, sizeof(c));
	c.modes = AN_RUNQ;
	c.unit_ns = 1;
	c.pid = c.tid = -1;
	c.off_state_all = true;
	c.off_max_ns = UINT64_MAX;
	c.max_tasks = 64;
	c.max_groups = 16;
	c.states.preempt_mask = 0x100;
	c.states.nletters = 1;
	c.states.letter[0].bit = S_SLEEP;
	c.states.letter[0].letter = 'S';
	return c;
}

static void feed(uint64_t ts, int cpu, int type, int pid, int64_t state, int next, int current)
{
	struct sched_event e = { .ts = ts, .cpu = cpu, .type = type, .pid = pid,
				 .prev_state = state, .next_pid = next, .comm = "task",
				 .next_comm = "task", .common_pid = current };

	analyzer_feed(&an, &e);
}

/* a wait of @tid the trace cannot time: woken on an idle CPU, its switch-in lost */
static void unmeasured_wait(uint64_t t0, int cpu, int tid)
{
	feed(t0, cpu, SEV_SWITCH, 0, 0, tid, 0);
	feed(t0 + 10, cpu, SEV_SWITCH, tid, S_SLEEP, 0, tid);
	feed(t0 + 30, cpu, SEV_WAKEUP, tid, 0, 0, 0);
	/* idle -> tid not in the trace: the next event says tid runs */
	feed(t0 + 90, cpu, SEV_SWITCH, tid, S_SLEEP, 0, tid);
}

static void *quit(void *arg)
{
	*(int32_t *)arg = (int32_t)syscall(SYS_gettid);
	return NULL;
}

START_TEST(test_interval)
{
	struct an_cfg c = cfg();
	struct unsized u;
	struct unsized_result res;
	int32_t me = (int32_t)syscall(SYS_gettid), gone = 0;
	uint64_t before, after;
	pthread_t th;

	if (proc_run_delay(me, &before))
		return;	/* no schedstat (CONFIG_SCHED_INFO) */
	ck_assert_int_eq(analyzer_init(&an, &c), 0);
	ck_assert_int_eq(unsized_start(&u, &an), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, quit, &gone), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	unmeasured_wait(100, 0, me);
	unmeasured_wait(1000, 1, gone);
	ck_assert_uint_eq(an.counts.unmeasured, 2);
	ck_assert(unsized_interval(&u, &res));
	ck_assert_int_eq(proc_run_delay(me, &after), 0);
	/*
	 * this thread: sized from its own run_delay; the exited one from the
	 * run_delay its exit told (taskstats, as root), else counted unsized
	 */
	ck_assert_uint_eq(an.runq.groups.n, 1);
	ck_assert(an.runq.groups.v[0]->unmeasured_sized);
	if (res.exits_heard) {
		ck_assert_uint_eq(res.threads, 2);
		ck_assert_uint_eq(res.gone_sized, 1);
		ck_assert_uint_eq(res.unsized, 0);
		ck_assert_uint_eq(an.runq.groups.v[0]->unmeasured_unsized, 0);
	} else {
		ck_assert_uint_eq(res.threads, 1);
		ck_assert_uint_eq(res.unsized, 1);
		ck_assert_uint_le(res.ns, after - before);
		ck_assert_uint_eq(an.runq.groups.v[0]->unmeasured_unsized, 1);
	}
	ck_assert_uint_ge(res.alive, 1);
	ck_assert_uint_eq(an.runq.groups.v[0]->unmeasured_ns, res.ns);
	/* the next interval starts afresh: nothing left to size */
	analyzer_next_interval(&an);
	ck_assert(unsized_interval(&u, &res));
	ck_assert_uint_eq(res.threads + res.unsized + res.ns, 0);
	unsized_free(&u);
	analyzer_fini(&an);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("unsized");
	TCase *tc = tcase_create("unsized");

	tcase_add_test(tc, test_thread_ns);
	tcase_add_test(tc, test_share);
	tcase_add_test(tc, test_interval);
	suite_add_tcase(s, tc);
	return check_run(s);
}
