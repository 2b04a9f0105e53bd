// SPDX-License-Identifier: GPL-2.0-or-later
/* triage's verdict: the decision matrix on made-up windows. */
#include <check.h>
#include <string.h>

#include "fixture.h"
#include "triage.h"

static struct hist runq, blk;

/* a 1 s window of one process; times in ms */
static struct triage_in window(double run_ms, double wait_ms, double blocked_ms)
{
	struct triage_in in;

	memset(&in, 0, sizeof(in));
	hist_reset(&runq);
	hist_reset(&blk);
	in.scope = "process 42";
	in.next_scope = "-p 42 10";
	in.window_s = 1;
	in.backend = "ring";
	in.clock = "mono";
	in.running_ns = (uint64_t)(run_ms * 1e6);
	in.runq_ns = (uint64_t)(wait_ms * 1e6);
	in.blocked_ns = (uint64_t)(blocked_ms * 1e6);
	in.runq = &runq;
	in.blocked = &blk;
	in.top_blocked_pid = in.top_runq_pid = -1;
	in.th.runq_tail_us = 5000;
	in.th.runq_share = 10;
	in.th.blocked_share = 50;
	in.th.oncpu_share = 50;
	in.th.throttle_share = 5;
	return in;
}

START_TEST(test_verdicts)
{
	struct triage_in in;
	struct verdict v;

	in = window(900, 20, 80);
	triage_verdict(&in, &v);
	ck_assert_str_eq(v.name, "on_cpu");
	ck_assert(strstr(v.next, "perf record"));

	in = window(300, 500, 200);
	triage_verdict(&in, &v);
	ck_assert_str_eq(v.name, "cpu_contention");
	ck_assert(strstr(v.next, "runq -P -p 42 10"));

	/* a short share of waiting, but a long tail: still contention */
	in = window(800, 10, 190);
	hist_add(&runq, 20000000, 1000);	/* one 20 ms wait */
	triage_verdict(&in, &v);
	ck_assert_str_eq(v.name, "cpu_contention");

	in = window(100, 10, 890);
	in.top_blocked_pid = 77;
	strcpy(in.top_blocked_comm, "dd");
	triage_verdict(&in, &v);
	ck_assert_str_eq(v.name, "blocked");
	ck_assert(strstr(v.next, "offcpu -K -p 77"));

	in = window(400, 50, 550);
	in.have_throttle = true;
	in.nr_throttled = 20;
	in.periods = 100;
	in.throttled_ns = 300000000;	/* 30% of the window */
	triage_verdict(&in, &v);
	ck_assert_str_eq(v.name, "cpu_throttled");

	in = window(420, 60, 420);
	triage_verdict(&in, &v);
	ck_assert_str_eq(v.name, "mixed");

	in = window(0, 0, 0);
	triage_verdict(&in, &v);
	ck_assert_str_eq(v.name, "idle");
	ck_assert(v.running == 0 && v.waiting == 0 && v.blocked == 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("triage");
	TCase *tc = tcase_create("triage");

	tcase_add_test(tc, test_verdicts);
	suite_add_tcase(s, tc);
	return check_run(s);
}
