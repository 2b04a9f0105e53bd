// SPDX-License-Identifier: GPL-2.0-or-later
/* The CPU-state model on synthetic event sequences: what it knows, and when it says so. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cpustate.h"
#include "fixture.h"

static struct cpustate cs;

/* what the stream said, in order */
static struct cs_change got[4096];
static unsigned ngot;
static uint64_t late_lo, late_hi;
static unsigned nlate;

static void on_change(void *arg, const struct cs_change *c)
{
	(void)arg;
	if (ngot < sizeof(got) / sizeof(got[0]))
		got[ngot] = *c;
	ngot++;
}

static void on_late(void *arg, int32_t cpu, uint64_t lo_ns, uint64_t hi_ns)
{
	(void)arg;
	(void)cpu;
	late_lo += lo_ns;
	late_hi += hi_ns;
	nlate++;
}

static void start(enum cs_trust trust, unsigned ncpu, bool stream)
{
	struct cs_sink s = { .change = on_change, .late = on_late };

	ck_assert_int_eq(cpustate_init(&cs, trust, ncpu), 0);
	ngot = nlate = 0;
	late_lo = late_hi = 0;
	if (stream)
		cpustate_stream(&cs, &s);
	cpustate_begin(&cs, 1000);
}

/* an event in @who's context, then (next >= 0) its switch to @next */
static void ev(int cpu, uint64_t ts, int who, uint64_t after)
{
	cpustate_event(&cs, cpu, ts, who, after);
}

static void sw(int cpu, uint64_t ts, int prev, int next)
{
	cpustate_event(&cs, cpu, ts, prev, 0);
	cpustate_switch(&cs, cpu, ts, next, true);
}

#define NS(c, st) (cs.cpu[c].ns[st])

/* the states the stream gave @cpu, in order, and where the last change was */
static unsigned states_of(int cpu, int8_t *st, uint64_t *ts, unsigned max)
{
	unsigned i, n = 0;

	for (i = 0; i < ngot && i < sizeof(got) / sizeof(got[0]); i++)
		if (got[i].cpu == cpu && got[i].kind == CS_CH_STATE && n < max) {
			st[n] = got[i].val;
			ts[n++] = got[i].ts;
		}
	return n;
}

START_TEST(test_complete_switches)
{
	int8_t st[8];
	uint64_t ts[8];

	start(CS_COMPLETE, 1, true);
	sw(0, 1010, 7, 0);		/* 7 ran since the start, then idle */
	ck_assert_uint_eq(cpustate_idle_since(&cs, 0), 1010);
	sw(0, 1050, 0, 8);		/* idle -> 8, recorded */
	ck_assert_uint_eq(cpustate_idle_since(&cs, 0), 0);
	sw(0, 1080, 8, 0);
	cpustate_close(&cs, 1100, NULL, NULL, 0, 0);
	ck_assert_uint_eq(NS(0, CS_BUSY), 10 + 30);
	ck_assert_uint_eq(NS(0, CS_IDLE), 40 + 20);
	ck_assert_uint_eq(cpustate_unknown_ns(&cs), 0);
	/* the stream: unknown at the start (told), then busy from the start */
	ck_assert_uint_eq(states_of(0, st, ts, 8), 5);
	ck_assert_int_eq(st[0], CS_UNKNOWN);
	ck_assert_int_eq(st[1], CS_BUSY);
	ck_assert_uint_eq(ts[1], 1000);
	ck_assert_int_eq(st[2], CS_IDLE);
	ck_assert_uint_eq(ts[2], 1010);
	ck_assert_int_eq(st[3], CS_BUSY);
	ck_assert_int_eq(st[4], CS_IDLE);
	ck_assert_uint_eq(ts[4], 1080);
	cpustate_fini(&cs);
}
END_TEST

/* this kernel: the switch out of idle is lost; the task's bound narrows the gap */
START_TEST(test_lossy_lost_idle_exit)
{
	start(CS_LOSSY, 1, false);
	/* first event: task 5 switches to idle; before it, idle or 5 (no bound): unknown */
	sw(0, 1010, 5, 0);
	ck_assert_uint_eq(NS(0, CS_UNKNOWN), 10);
	/* task 9 seen running at 1060, woken at 1040: idle to 1040, unknown to 1060 */
	ev(0, 1060, 9, 1040);
	ck_assert_uint_eq(cpustate_idle_since(&cs, 0), 0);
	ck_assert_uint_eq(cpustate_idle_until(&cs, 0), 1040);
	ck_assert_uint_eq(cs.lost_idle_exits, 1);
	sw(0, 1070, 9, 0);
	ck_assert_uint_eq(cpustate_idle_until(&cs, 0), 0);	/* this event found none */
	/* a bound before the CPU's last event counts from that event */
	ev(0, 1090, 4, 1001);
	cpustate_close(&cs, 1100, NULL, NULL, 0, 0);
	ck_assert_uint_eq(NS(0, CS_IDLE), 30);
	ck_assert_uint_eq(NS(0, CS_UNKNOWN), 10 + 20 + 20);
	ck_assert_uint_eq(NS(0, CS_BUSY), 10 + 10);
	ck_assert_uint_eq(cpustate_unknown_ns(&cs), 50);
	ck_assert(!cs.found_lossy);
	cpustate_fini(&cs);
}
END_TEST

/* the first event of a CPU says what it did since the start, as far as the trust allows */
START_TEST(test_first_event)
{
	/* from idle, recorded: idle since the start, whatever the trust */
	start(CS_LOSSY, 1, false);
	sw(0, 1030, 0, 3);
	ck_assert_uint_eq(cpustate_idle_since(&cs, 0), 0);
	cpustate_close(&cs, 1040, NULL, NULL, 0, 0);
	ck_assert_uint_eq(NS(0, CS_IDLE), 30);
	ck_assert_uint_eq(NS(0, CS_BUSY), 10);
	cpustate_fini(&cs);
	/* a task, lossy, woken at 1020: idle before, unknown to its first event */
	start(CS_LOSSY, 1, false);
	ev(0, 1030, 3, 1020);
	cpustate_close(&cs, 1040, NULL, NULL, 0, 0);
	ck_assert_uint_eq(NS(0, CS_IDLE), 20);
	ck_assert_uint_eq(NS(0, CS_UNKNOWN), 10);
	ck_assert_uint_eq(NS(0, CS_BUSY), 10);
	cpustate_fini(&cs);
	/* complete: it ran all along */
	start(CS_COMPLETE, 1, false);
	ev(0, 1030, 3, 1020);
	cpustate_close(&cs, 1040, NULL, NULL, 0, 0);
	ck_assert_uint_eq(NS(0, CS_BUSY), 40);
	cpustate_fini(&cs);
	/* only the selected threads' switches: nothing known before */
	start(CS_SELECTED, 1, false);
	ev(0, 1030, 3, 1020);
	cpustate_close(&cs, 1040, NULL, NULL, 0, 0);
	ck_assert_uint_eq(NS(0, CS_UNKNOWN), 30);
	ck_assert_uint_eq(NS(0, CS_BUSY), 10);
	cpustate_fini(&cs);
}
END_TEST

/* a selected thread's switch to idle: other tasks may run unrecorded after it */
START_TEST(test_selected)
{
	start(CS_SELECTED, 1, false);
	sw(0, 1010, 0, 3);
	ck_assert_uint_eq(cpustate_idle_since(&cs, 0), 0);
	sw(0, 1020, 3, 0);
	ck_assert_uint_eq(cpustate_idle_since(&cs, 0), 0);
	ev(0, 1050, 3, 0);
	cpustate_event(&cs, 0, 1060, 3, 0);
	cpustate_switch(&cs, 0, 1060, 12, false);	/* to a task not traced */
	cpustate_close(&cs, 1100, NULL, NULL, 0, 0);
	ck_assert_uint_eq(NS(0, CS_BUSY), 10 + 10);
	ck_assert_uint_eq(NS(0, CS_UNKNOWN), 10 + 30 + 40);
	ck_assert_uint_eq(NS(0, CS_IDLE), 0);
	cpustate_fini(&cs);
}
END_TEST

/* a CPU's changes wait for every CPU to be known that far, queue changes too */
START_TEST(test_held_back)
{
	unsigned i;

	start(CS_LOSSY, 2, true);
	ev(1, 1005, 0, 0);		/* CPU 1 idle since the start (idle context) */
	ev(1, 1010, 0, 0);
	sw(0, 1012, 0, 4);		/* CPU 0: idle, then 4 */
	cpustate_queue(&cs, 0, 1020, 1);
	sw(0, 1030, 4, 5);
	cpustate_queue(&cs, 0, 1030, -1);
	/* CPU 1 is idle since 1010 as far as known: nothing after it went out */
	for (i = 0; i < ngot; i++)
		ck_assert_uint_le(got[i].ts, 1010);
	ck_assert_uint_eq(cs.out, 1010);
	/* 6 runs on CPU 1 at 1050 (woken at 1025): CPU 1 settled to 1050 */
	ev(1, 1050, 6, 1025);
	ev(0, 1031, 5, 0);
	ck_assert_uint_eq(cs.out, 1030);	/* CPU 0's last event was the bound */
	for (i = 0; i < ngot; i++)
		if (i)
			ck_assert_uint_le(got[i - 1].ts, got[i].ts);
	cpustate_close(&cs, 1060, NULL, NULL, 0, 0);
	ck_assert_uint_eq(cs.out, 1060);
	/* CPU 1: idle to 1025, unknown to 1050, then busy */
	ck_assert_uint_eq(NS(0, CS_BUSY), 48);
	ck_assert_uint_eq(NS(1, CS_IDLE), 25);
	ck_assert_uint_eq(NS(1, CS_UNKNOWN), 25);
	ck_assert_uint_eq(NS(1, CS_BUSY), 10);
	/* every queue change went out, after CPU 1's idle and before its unknown */
	{
		int q = -1, u = -1, qo = -1;

		for (i = 0; i < ngot; i++) {
			if (got[i].kind == CS_CH_QUEUE && got[i].val == 1)
				q = (int)i;
			if (got[i].kind == CS_CH_QUEUE && got[i].val == -1)
				qo = (int)i;
			if (got[i].cpu == 1 && got[i].kind == CS_CH_STATE && got[i].val == CS_UNKNOWN &&
			    got[i].ts == 1025)
				u = (int)i;
		}
		ck_assert_int_ge(q, 0);
		ck_assert_int_ge(u, 0);
		ck_assert_int_lt(q, u);
		ck_assert_int_gt(qo, u);
	}
	cpustate_fini(&cs);
}
END_TEST

/* no event at all: /proc/stat's idle time says where the single idle stretch ends */
START_TEST(test_no_event_proc)
{
	uint64_t proc[2] = { 0, 97 };

	/* idle throughout, within /proc/stat's accuracy */
	start(CS_LOSSY, 2, false);
	sw(0, 1010, 0, 3);
	cpustate_close(&cs, 1100, proc, NULL, 2, 5);
	ck_assert_uint_eq(NS(1, CS_IDLE), 100);
	ck_assert(cs.cpu[1].by_proc);
	ck_assert_uint_eq(NS(0, CS_UNKNOWN), 0);
	ck_assert_uint_eq(cpustate_unknown_ns(&cs), 0);
	/* without /proc/stat: not known */
	cpustate_next_interval(&cs);
	cpustate_close(&cs, 1200, NULL, NULL, 0, 5);
	ck_assert_uint_eq(NS(1, CS_IDLE), 100);	/* idle at the last end, the trace says so on */
	cpustate_fini(&cs);

	start(CS_LOSSY, 2, false);
	cpustate_close(&cs, 1100, NULL, NULL, 0, 5);
	ck_assert_uint_eq(NS(1, CS_UNKNOWN), 100);
	cpustate_fini(&cs);

	/* lossy, half idle: idle first, then a task with no event since */
	proc[1] = 50;
	start(CS_LOSSY, 2, false);
	cpustate_close(&cs, 1100, proc, NULL, 2, 5);
	ck_assert_uint_eq(NS(1, CS_IDLE), 45);
	ck_assert_uint_eq(NS(1, CS_UNKNOWN), 10);
	ck_assert_uint_eq(NS(1, CS_BUSY), 45);
	/* busy with a task not known: the next event names it, not a gap */
	cpustate_next_interval(&cs);
	ev(1, 1150, 8, 0);
	cpustate_close(&cs, 1200, NULL, NULL, 0, 5);
	ck_assert_uint_eq(NS(1, CS_BUSY), 100);
	ck_assert_uint_eq(cs.gaps, 0);
	cpustate_fini(&cs);

	/* complete: one state throughout, and half idle fits neither */
	start(CS_COMPLETE, 2, false);
	cpustate_close(&cs, 1100, proc, NULL, 2, 5);
	ck_assert_uint_eq(NS(1, CS_UNKNOWN), 100);
	cpustate_fini(&cs);
	/* not in /proc/stat, no event: offline, busy with nothing */
	{
		bool listed[2] = { true, false };

		start(CS_LOSSY, 2, false);
		cpustate_close(&cs, 1100, proc, listed, 2, 5);
		ck_assert(cs.cpu[1].offline);
		ck_assert_uint_eq(NS(1, CS_BUSY), 100);
		ck_assert_uint_eq(NS(0, CS_BUSY), 100);	/* no event, no idle in /proc/stat */
		ck_assert_uint_eq(cpustate_unknown_ns(&cs), 0);
		cpustate_fini(&cs);
	}
	/* busy throughout */
	proc[1] = 2;
	start(CS_COMPLETE, 2, false);
	cpustate_close(&cs, 1100, proc, NULL, 2, 5);
	ck_assert_uint_eq(NS(1, CS_BUSY), 100);
	cpustate_fini(&cs);
}
END_TEST

/* idle since its last event: as the trace says, unless /proc/stat finds less idle */
START_TEST(test_idle_tail_proc)
{
	uint64_t proc[1] = { 78 };

	start(CS_LOSSY, 1, false);
	ev(0, 1000, 0, 0);
	sw(0, 1020, 0, 3);
	sw(0, 1040, 3, 0);		/* idle 20 + idle since 1040 */
	cpustate_close(&cs, 1100, proc, NULL, 1, 5);
	ck_assert_uint_eq(NS(0, CS_IDLE), 80);	/* 78 + 5 >= 80: as the trace says */
	cpustate_fini(&cs);

	proc[0] = 50;
	start(CS_LOSSY, 1, false);
	ev(0, 1000, 0, 0);
	sw(0, 1020, 0, 3);
	sw(0, 1040, 3, 0);
	cpustate_close(&cs, 1100, proc, NULL, 1, 5);
	/* idle to 1040 + 30 = 1070 (+-5), then busy with a task that showed nothing */
	ck_assert_uint_eq(NS(0, CS_IDLE), 20 + 25);
	ck_assert_uint_eq(NS(0, CS_UNKNOWN), 10);
	ck_assert_uint_eq(NS(0, CS_BUSY), 20 + 25);
	cpustate_fini(&cs);
}
END_TEST

/* lost events: a task runs where another was, no switch in between */
START_TEST(test_mismatch)
{
	/* a trace of the selected threads: one shows idle context where another ran, unknown */
	start(CS_SELECTED, 1, false);
	sw(0, 1010, 0, 3);
	ev(0, 1030, 0, 0);
	ck_assert_uint_eq(cpustate_idle_since(&cs, 0), 0);
	cpustate_close(&cs, 1040, NULL, NULL, 0, 0);
	ck_assert_uint_eq(NS(0, CS_IDLE), 0);
	ck_assert_uint_eq(NS(0, CS_UNKNOWN), 10 + 30);	/* from its last event */
	cpustate_fini(&cs);

	start(CS_COMPLETE, 1, false);
	sw(0, 1010, 0, 3);
	ev(0, 1030, 3, 0);
	ev(0, 1050, 4, 0);
	/* a switch to a task not known (an exiting one, in perf's records): busy, it names itself */
	cpustate_event(&cs, 0, 1055, 4, 0);
	cpustate_switch(&cs, 0, 1055, -1, true);
	ck_assert_uint_eq(cpustate_idle_since(&cs, 0), 0);
	ev(0, 1058, 11, 0);
	cpustate_close(&cs, 1060, NULL, NULL, 0, 0);
	ck_assert_uint_eq(cs.gaps, 1);
	ck_assert_uint_eq(NS(0, CS_UNKNOWN), 20);
	ck_assert_uint_eq(NS(0, CS_BUSY), 20 + 10);
	cpustate_fini(&cs);
}
END_TEST

/* a queued task seen running, its switch-in lost: certain up to its bound, then unsure */
START_TEST(test_queue_lost)
{
	int sure = 0, unsure = 0;
	unsigned i;

	start(CS_LOSSY, 1, true);
	ev(0, 1010, 0, 0);
	cpustate_queue(&cs, 0, 1020, 1);
	ev(0, 1060, 9, 1030);
	cpustate_queue_lost(&cs, 0, 1030, 1060);
	cpustate_close(&cs, 1100, NULL, NULL, 0, 0);
	for (i = 0; i < ngot; i++) {
		if (got[i].kind == CS_CH_QUEUE)
			sure += got[i].val;
		if (got[i].kind == CS_CH_UNSURE) {
			ck_assert_uint_eq(got[i].ts, got[i].val > 0 ? 1030 : 1060);
			unsure += got[i].val;
		}
		if (got[i].kind == CS_CH_QUEUE && got[i].val < 0)
			ck_assert_uint_eq(got[i].ts, 1030);
	}
	ck_assert_int_eq(sure, 0);
	ck_assert_int_eq(unsure, 0);
	cpustate_fini(&cs);
}
END_TEST

/* too much held: the oldest go out as known then; a gap found behind them is late */
START_TEST(test_forced_then_late)
{
	uint64_t t = 1010;
	unsigned i;

	start(CS_LOSSY, 2, true);
	ev(1, 1005, 0, 0);		/* CPU 1 idle, and nothing more of it for a long time */
	sw(0, 1006, 0, 3);
	for (i = 0; i < CS_MAX_PENDING + 10; i++, t++)
		cpustate_queue(&cs, 0, t, (i & 1) ? -1 : 1);
	ck_assert_uint_gt(cs.out, 1005);
	ck_assert_uint_lt(cs.n, CS_MAX_PENDING);
	/* a task on CPU 1, bound early: what went out as idle was not known */
	ev(1, t, 7, 1006);
	ck_assert_uint_ge(nlate, 1);
	ck_assert_uint_gt(late_lo, 0);
	ck_assert_uint_eq(late_lo, late_hi);
	cpustate_close(&cs, t + 10, NULL, NULL, 0, 0);
	/* the sums are the timeline's, exact: unknown from the bound */
	ck_assert_uint_eq(NS(1, CS_UNKNOWN), t - 1006);
	ck_assert_uint_eq(NS(1, CS_IDLE), 1006 - 1000);
	ck_assert_uint_eq(cs.cpu[1].late_ns, late_lo);
	for (i = 1; i < ngot && i < sizeof(got) / sizeof(got[0]); i++)
		ck_assert_uint_le(got[i - 1].ts, got[i].ts);
	cpustate_fini(&cs);
}
END_TEST

/* intervals: sums start again, states go on; a CPU idle across the boundary stays idle */
START_TEST(test_intervals)
{
	start(CS_LOSSY, 1, false);
	ev(0, 1000, 0, 0);
	cpustate_close(&cs, 1100, NULL, NULL, 0, 0);
	ck_assert_uint_eq(NS(0, CS_IDLE), 100);
	cpustate_next_interval(&cs);
	ck_assert_uint_eq(NS(0, CS_IDLE), 0);
	ck_assert_uint_eq(cpustate_idle_since(&cs, 0), 1000);
	/* the lost exit's gap is clipped to this interval */
	ev(0, 1150, 5, 0);
	cpustate_close(&cs, 1200, NULL, NULL, 0, 0);
	ck_assert_uint_eq(NS(0, CS_IDLE), 0);
	ck_assert_uint_eq(NS(0, CS_UNKNOWN), 50);
	ck_assert_uint_eq(NS(0, CS_BUSY), 50);
	cpustate_fini(&cs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cpustate");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_complete_switches);
	tcase_add_test(tc, test_lossy_lost_idle_exit);
	tcase_add_test(tc, test_first_event);
	tcase_add_test(tc, test_selected);
	tcase_add_test(tc, test_held_back);
	tcase_add_test(tc, test_no_event_proc);
	tcase_add_test(tc, test_idle_tail_proc);
	tcase_add_test(tc, test_mismatch);
	tcase_add_test(tc, test_queue_lost);
	tcase_add_test(tc, test_forced_then_late);
	tcase_add_test(tc, test_intervals);
	suite_add_tcase(s, tc);
	return check_run(s);
}
