// SPDX-License-Identifier: GPL-2.0-or-later
/* triage's verdict: the decision matrix on made-up windows. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
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
	in.top_d_pid = in.top_s_pid = in.top_runq_pid = -1;
	in.th.runq_tail_us = 5000;
	in.th.runq_share = 10;
	in.th.blocked_share = 50;
	in.th.oncpu_share = 50;
	in.th.throttle_share = 5;
	in.th.wait_demand = 50;
	/* blocked time began in D unless a test says otherwise */
	in.blocked_d_ns = in.blocked_ns;
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
	in.top_d_pid = 77;
	strcpy(in.top_d_comm, "dd");
	triage_verdict(&in, &v);
	ck_assert_str_eq(v.name, "blocked");
	ck_assert_msg(strstr(v.next, "offcpu -K --state D -p 77 10   (dd, blocked longest)"),
		      "%s", v.next);

	/* with -- COMMAND the next step is the command again, not a pid gone */
	in.by_command = true;
	in.next_scope = "-- dd if=/dev/zero of=f bs=1M count=64 oflag=dsync";
	triage_verdict(&in, &v);
	ck_assert_msg(strstr(v.next, "offcpu -K --state D -- dd if=/dev/zero"), "%s", v.next);
	ck_assert(!strstr(v.next, "-p 77"));

	/* a recording without kernel stacks: how to make one with them */
	in.by_command = false;
	in.restack = "offcpu-ftrace record -K -o FILE 10";
	in.next_tool = "offcpu-ftrace report s.dat";
	triage_verdict(&in, &v);
	ck_assert_msg(strstr(v.next, "recording lacks: offcpu-ftrace record -K -o FILE 10"),
		      "%s", v.next);
	ck_assert(!strstr(v.next, "report s.dat offcpu -K -p"));
	in.restack = NULL;
	in.next_tool = NULL;

	/* mostly asleep by choice: "sleeping", the step names the sleeper */
	in = window(100, 10, 890);
	in.blocked_d_ns = 90000000;
	in.blocked_s_ns = 800000000;
	in.top_s_pid = 12;
	strcpy(in.top_s_comm, "sleepy");
	triage_verdict(&in, &v);
	ck_assert_str_eq(v.name, "sleeping");
	ck_assert_msg(strstr(v.next, "if they should have been working") &&
		      strstr(v.next, "--state S -p 12 10   (sleepy, asleep longest)"), "%s", v.next);
	ck_assert(strstr(v.why, "uninterruptible (D) 9%"));

	/* a sleeper whose wakeups wait: of the time it wanted a CPU, 80%
	 * went waiting, with a p99 of 2 ms: contention, not sleeping */
	in = window(10, 40, 950);
	in.blocked_s_ns = in.blocked_ns;
	in.blocked_d_ns = 0;
	hist_add(&runq, 2000000, 1000);
	triage_verdict(&in, &v);
	ck_assert_str_eq(v.name, "cpu_contention");
	ck_assert(strstr(v.why, "of the time threads wanted a CPU, they waited 80%"));
	/* ... but never for short waits */
	hist_reset(&runq);
	hist_add(&runq, 200000, 1000);
	triage_verdict(&in, &v);
	ck_assert_str_eq(v.name, "sleeping");
	/* ... nor for long ones that add up to under a tenth of --runq-share
	 * (1%) of the threads' time: 60% of a demand of 5 ms in a second */
	in = window(2, 3, 995);
	in.blocked_s_ns = in.blocked_ns;
	in.blocked_d_ns = 0;
	hist_reset(&runq);
	hist_add(&runq, 1500000, 1000);
	hist_add(&runq, 1500000, 1000);
	triage_verdict(&in, &v);
	ck_assert_str_eq(v.name, "sleeping");
	in.runq_ns = 12000000;	/* 12 ms waiting: over 1% of their time */
	triage_verdict(&in, &v);
	ck_assert_str_eq(v.name, "cpu_contention");

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

/* the next step's command line, as a shell reads it back */
START_TEST(test_shell_quote)
{
	char *const plain[] = { "dd", "if=/dev/zero", "of=f", "bs=1M", NULL };
	char *const odd[] = { "sh", "-c", "sleep 0.2; dd if=x of=y", "it's", "", NULL };
	char *const long_[] = { "make", "-j8", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
				"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", NULL };
	char buf[256];

	shell_quote_argv(buf, sizeof(buf), plain, 160);
	ck_assert_str_eq(buf, "dd if=/dev/zero of=f bs=1M");
	shell_quote_argv(buf, sizeof(buf), odd, 160);
	ck_assert_str_eq(buf, "sh -c 'sleep 0.2; dd if=x of=y' 'it'\\''s' ''");
	shell_quote_argv(buf, sizeof(buf), long_, 60);
	ck_assert_str_eq(buf, "make -j8 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa ...");
	shell_quote_argv(buf, 12, plain, 160);
	ck_assert(strlen(buf) < 12);
}
END_TEST

/* the unclaimed share: a line always, a note past the threshold, unknown: neither */
START_TEST(test_unclaimed)
{
	struct triage_in in = window(100, 10, 500);
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	in.unclaimed = 0.123;
	in.th.unclaimed = 5;
	f = open_memstream(&out, &len);
	triage_print(f, FMT_BCC, &in);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(out, "unclaimed CPU: 12.3% of CPU time idle while these "
					  "threads waited on another CPU's run queue\n"));
	ck_assert_ptr_nonnull(strstr(out, "# note: work waited while CPUs idled (12.3% >= 5%)"));
	free(out);
	in.unclaimed = 0.01;
	f = open_memstream(&out, &len);
	triage_print(f, FMT_JSON, &in);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(out, "\"unclaimed_share\":0.010000"));
	free(out);
	/* some CPU's state not known: the range; the note only for what it is at least */
	in.unclaimed = 0.2;
	in.unclaimed_min = 0.08;
	in.unclaimed_max = 0.32;
	in.unclaimed_partial = true;
	in.cpu_unknown_ns = 1500000000;
	f = open_memstream(&out, &len);
	triage_print(f, FMT_BCC, &in);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(out, "unclaimed CPU: 20.0% of CPU time idle"));
	ck_assert_ptr_nonnull(strstr(out, "# note: work waited while CPUs idled (at least 8.0% >= "
					  "5%)"));
	ck_assert_ptr_nonnull(strstr(out, "\n# partial: the unclaimed share lies between 8.0% and "
					  "32.0%: the trace did not show the state of 1.500 CPU-s; "
					  "/proc/stat's idle time, which would bound it, is not known "
					  "here\n"));
	free(out);
	in.unclaimed_min = 0.04;
	in.cpu_proc = true;
	f = open_memstream(&out, &len);
	triage_print(f, FMT_BCC, &in);
	fclose(f);
	ck_assert_ptr_null(strstr(out, "# note: work waited"));
	ck_assert_ptr_nonnull(strstr(out, "1.500 CPU-s, which /proc/stat's idle time bounds"));
	free(out);
	f = open_memstream(&out, &len);
	triage_print(f, FMT_JSON, &in);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(out, "\"unclaimed_share\":0.200000,\"unclaimed_min\":0.040000,"
					  "\"unclaimed_max\":0.320000,\"cpu_state_unknown_ns\":1500000000"));
	free(out);
	in.unclaimed_partial = false;
	in.unclaimed = -1;	/* sampled: no queues */
	f = open_memstream(&out, &len);
	triage_print(f, FMT_BCC, &in);
	fclose(f);
	ck_assert_ptr_null(strstr(out, "unclaimed"));
	free(out);
	f = open_memstream(&out, &len);
	triage_print(f, FMT_JSON, &in);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(out, "\"unclaimed_share\":null,\"unclaimed_min\":null"));
	free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("triage");
	TCase *tc = tcase_create("triage");

	tcase_add_test(tc, test_verdicts);
	tcase_add_test(tc, test_unclaimed);
	tcase_add_test(tc, test_shell_quote);
	suite_add_tcase(s, tc);
	return check_run(s);
}
