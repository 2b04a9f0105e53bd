// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timehist as a unit: parsed from a command line as the tool parses it,
 * set up on an analyzer, fed synthetic events, printed (and streamed)
 * to memory through its descriptor: perf sched timehist's columns, the
 * three --compat rules, the marks of what the trace lacked, -w, -M, the
 * summary, JSON and the Perfetto trace.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cli.h"

#define S_SLEEP 0x1
#define PREEMPT 0x100
#define US 1000ULL

static struct trace_opts o;
static struct analyzer an;
static void *state;
static int32_t on_cpu[4];

/* a recording's lookups: every thread of process 100 */
static int32_t tgid_of(int32_t tid, void *arg)
{
	(void)arg;
	return tid >= 5 ? 100 : -1;
}

static void start(const char *line)
{
	static char copy[512];
	char *argv[32], *save = NULL, *tok;
	int argc = 0, fd, saved, ret;
	struct an_cfg cfg;

	snprintf(copy, sizeof(copy), "%s", line);
	argv[argc++] = (char *)"timehist";
	for (tok = strtok_r(copy, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	fflush(stderr);
	saved = dup(2);
	fd = open("/dev/null", O_WRONLY);
	dup2(fd, 2);
	ret = trace_opts_parse(&o, "timehist", argc, argv);
	dup2(saved, 2);
	close(fd);
	close(saved);
	ck_assert_int_eq(ret, -1);
	memset(&cfg, 0, sizeof(cfg));
	cfg.modes = o.modes;
	cfg.compat = o.compat;
	cfg.unit_ns = 1000;
	cfg.pid = o.pid;
	cfg.tid = o.tid;
	cfg.off_state_all = true;
	cfg.off_max_ns = UINT64_MAX;
	cfg.max_tasks = 64;
	cfg.max_groups = 16;
	cfg.max_stacks = 16;
	cfg.states.preempt_mask = PREEMPT;
	cfg.states.nletters = 2;
	cfg.states.letter[0].bit = S_SLEEP;
	cfg.states.letter[0].letter = 'S';
	cfg.states.letter[1].bit = 0x2;
	cfg.states.letter[1].letter = 'D';
	cfg.tgid_of = tgid_of;
	o.an->configure(&o, &cfg);
	ck_assert_int_eq(analyzer_init(&an, &cfg), 0);
	ck_assert_int_eq(o.an->setup(&o, &an, &state), 0);
	memset(on_cpu, 0, sizeof(on_cpu));
}

static void stop(void)
{
	o.an->free(state);
	analyzer_fini(&an);
}

static void wake(uint64_t ts, int cpu, int type, int pid)
{
	struct sched_event e = { .ts = ts, .cpu = cpu, .pid = pid, .comm = "a",
				 .common_pid = on_cpu[cpu], .type = (uint8_t)type };

	analyzer_feed(&an, &e);
}

static void sw(uint64_t ts, int cpu, int prev, const char *pc, int64_t st, int next, const char *nc)
{
	struct sched_event e = { .ts = ts, .cpu = cpu, .type = SEV_SWITCH, .pid = prev,
				 .prev_state = st, .next_pid = next, .comm = pc, .next_comm = nc,
				 .common_pid = prev };

	on_cpu[cpu] = next;
	analyzer_feed(&an, &e);
}

static struct an_view view(void)
{
	struct an_view v = { .o = &o, .an = &an, .backend = "test", .clock = "mono",
			     .duration_s = 1, .interval = 1, .final = true };

	return v;
}

/* the interval printed in @fmt (after @streamed, when not NULL, took what streamed) */
static char *print(enum out_format fmt, char **streamed)
{
	struct an_view v = view();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	if (streamed) {
		o.an->stream(state, &v, f);
		fflush(f);
		*streamed = strndup(buf, len);
	}
	analyzer_finish(&an);
	ck_assert_int_eq(o.an->print(state, &v, fmt, f), 0);
	fclose(f);
	if (getenv("CHECK_TIMEHIST_SHOW"))
		fprintf(stderr, "%s\n", buf);
	return buf;
}

/*
 * a (7) runs, sleeps, is woken by hog (5) at 50 us (sched_waking; its
 * sched_wakeup at 60 us), runs at 200 us preempting hog, sleeps at 300
 * us; hog runs again from 300 to 400 us and idles
 */
static void scenario(void)
{
	sw(1, 0, 0, "swapper/0", 0, 7, "a");
	sw(10 * US, 0, 7, "a", S_SLEEP, 5, "hog");
	wake(50 * US, 0, SEV_WAKING, 7);
	wake(60 * US, 0, SEV_WAKEUP, 7);
	sw(200 * US, 0, 5, "hog", PREEMPT, 7, "a");
	sw(300 * US, 0, 7, "a", S_SLEEP, 5, "hog");
	sw(400 * US, 0, 5, "hog", S_SLEEP, 0, "swapper/0");
	sw(500 * US, 0, 0, "swapper/0", 0, 5, "hog");
}

/* perf's header and columns: wait time, sch delay from the first waking, run time */
START_TEST(test_columns_perf)
{
	char *out;

	start("--state");
	ck_assert_str_eq(o.an->name, "timehist");
	scenario();
	out = print(FMT_BCC, NULL);
	ck_assert_ptr_nonnull(strstr(out,
		"           time    cpu  task name                       wait time  sch delay   run time  state\n"
		"                        [tid/pid]                          (msec)     (msec)     (msec)\n"
		"--------------- ------  ------------------------------  ---------  ---------  ---------  -----\n"));
	/* a's first run: its switch-in was the window's first event, its off-CPU before unknown */
	ck_assert_ptr_nonnull(strstr(out, "       0.000010 [0000]  a[7/100]                                -          -      0.009      S \n"));
	/* hog: on since a left; its wait before that not in the window */
	ck_assert_ptr_nonnull(strstr(out, "       0.000200 [0000]  hog[5/100]                              -          -      0.190     R+ \n"));
	/* a: off 10..200 us, runnable from the waking at 50 us */
	ck_assert_ptr_nonnull(strstr(out, "       0.000300 [0000]  a[7/100]                            0.190      0.150      0.100      S \n"));
	/* hog, preempted at 200 us: its wait from there is sch delay (current perf) */
	ck_assert_ptr_nonnull(strstr(out, "       0.000400 [0000]  hog[5/100]                          0.100      0.100      0.100      S \n"));
	/* the CPU's idle stretch, as perf's <idle> */
	ck_assert_ptr_nonnull(strstr(out, "       0.000500 [0000]  <idle>                              0.000      0.000      0.100      I \n"));
	ck_assert_ptr_nonnull(strstr(out, "# timehist: 1.000 s traced, backend test, clock mono\n"));
	free(out);
	stop();
}
END_TEST

/* perf 6.1 files a preempted task's wait under wait time only; bcc counts from sched_wakeup */
START_TEST(test_compat)
{
	char *out;

	start("--compat=perf6.1");
	scenario();
	out = print(FMT_BCC, NULL);
	ck_assert_ptr_nonnull(strstr(out, "hog[5/100]                          0.100      0.000      0.100 \n"));
	ck_assert_ptr_nonnull(strstr(out, "a[7/100]                            0.190      0.150      0.100 \n"));
	ck_assert_ptr_nonnull(strstr(out, "# --compat=perf6.1: a preempted task's wait"));
	free(out);
	stop();
	start("--compat=bcc");
	ck_assert_int_eq(an_events(&o), 0);
	scenario();
	out = print(FMT_BCC, NULL);
	ck_assert_ptr_nonnull(strstr(out, "a[7/100]                            0.190      0.140      0.100 \n"));
	free(out);
	stop();
	start("");
	ck_assert_int_eq(an_events(&o), 1u << SEV_WAKING);
	ck_assert_int_eq(an_hist(&o), HIST_NO_EVENTS);
	ck_assert(o.an->flags & AN_F_TRACED);
	stop();
}
END_TEST

/* JSON: the events under timehist, streamed first, then the envelope */
START_TEST(test_json_streamed)
{
	char *out, *streamed;

	start("--format=json -w");
	scenario();
	out = print(FMT_JSON, &streamed);
	ck_assert_ptr_nonnull(strstr(streamed, "{\"timehist\":{\"events\":[\n"));
	ck_assert_ptr_nonnull(strstr(out,
		"{\"type\":\"switch\",\"time_ns\":300000,\"cpu\":0,\"tid\":7,\"pid\":100,\"comm\":\"a\","
		"\"wait_ns\":190000,\"sch_delay_ns\":150000,\"run_ns\":100000,\"switch_in_ns\":200000,"
		"\"prev_state\":\"S\",\"preempted\":false,\"waker\":{\"tid\":5,\"comm\":\"hog\","
		"\"time_ns\":50000},\"marks\":[]}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"type\":\"wakeup\",\"time_ns\":50000,\"cpu\":0,\"tid\":7,"
					  "\"comm\":\"a\",\"event\":\"sched_waking\",\"waker\":{\"tid\":5,"
					  "\"comm\":\"hog\"}}"));
	/* sched_waking traced: its sched_wakeup is no line, as in perf */
	ck_assert_ptr_null(strstr(out, "\"event\":\"sched_wakeup\""));
	ck_assert_ptr_nonnull(strstr(out, "],\"compat\":\"perf\",\"events_listed\":7,\"wakeups\":1,"));
	ck_assert_ptr_nonnull(strstr(out, "},\"command\":\"timehist\","));
	ck_assert(out[strlen(out) - 2] == '}');
	free(streamed);
	free(out);
	stop();
}
END_TEST

/* a switch the trace lost: the line says so, and its value is '-' */
START_TEST(test_marks)
{
	struct sched_event gap = { .ts = 250 * US, .cpu = 0, .type = SEV_WAKEUP, .pid = 9,
				   .comm = "x", .common_pid = 8 };
	char *out;

	start("--format=json");
	sw(1, 0, 0, "swapper/0", 0, 7, "a");
	sw(100 * US, 0, 7, "a", PREEMPT, 5, "hog");
	analyzer_feed(&an, &gap);		/* 8 runs: hog's switch-out was lost */
	sw(300 * US, 0, 8, "b", S_SLEEP, 7, "a");
	out = print(FMT_JSON, NULL);
	ck_assert_ptr_nonnull(strstr(out, "\"tid\":5,\"pid\":100,\"comm\":\"hog\",\"wait_ns\":null,"
					  "\"sch_delay_ns\":null,\"run_ns\":0,\"switch_in_ns\":100000,"
					  "\"prev_state\":null,\"preempted\":false,\"marks\":[\"lost_switch_out\"]}"));
	ck_assert_ptr_nonnull(strstr(out, "\"tid\":8,\"pid\":100,\"comm\":\"b\",\"wait_ns\":null,"
					  "\"sch_delay_ns\":null,\"run_ns\":null,\"switch_in_ns\":null,"
					  "\"prev_state\":\"S\",\"preempted\":false,\"marks\":[\"switch_in_unseen\"]}"));
	ck_assert_ptr_nonnull(strstr(out, "\"marks\":{\"lost_switch_out\":1,\"switch_in_unseen\":2,"));
	free(out);
	stop();
}
END_TEST

/*
 * -I where the switch out of idle was lost (this kernel's tracepoint): the
 * idle stretch is listed, to where the CPU-state model last knew the CPU
 * idle (7's waking at 150 us, after the CPU's last event), marked
 */
START_TEST(test_idle_lost_exit)
{
	struct sched_event seen = { .ts = 260 * US, .cpu = 0, .type = SEV_WAKEUP, .pid = 9,
				    .comm = "x", .common_pid = 7 };
	char *out;

	start("-I --format=json");
	sw(1, 0, 0, "swapper/0", 0, 7, "a");
	sw(100 * US, 0, 7, "a", S_SLEEP, 0, "swapper/0");	/* 7 sleeps: idle */
	wake(150 * US, 1, SEV_WAKING, 7);			/* woken from CPU 1 */
	analyzer_feed(&an, &seen);		/* 7 runs on CPU 0: idle's switch-out lost */
	sw(300 * US, 0, 7, "a", S_SLEEP, 0, "swapper/0");
	out = print(FMT_JSON, NULL);
	ck_assert_msg(strstr(out, "\"tid\":0,\"pid\":0,\"comm\":\"<idle>\",\"wait_ns\":0,"
			      "\"sch_delay_ns\":0,\"run_ns\":50000,\"switch_in_ns\":100000,"), "%s", out);
	ck_assert_msg(strstr(out, "\"marks\":[\"lost_switch_out\"]"), "%s", out);
	free(out);
	stop();
}
END_TEST

/* -M from the switches, and the summary: runs, delays, the worst and when */
START_TEST(test_migration_summary)
{
	char *out;

	start("-M -S");
	scenario();
	sw(600 * US, 1, 0, "swapper/1", 0, 7, "a");	/* a, last on CPU 0 */
	sw(700 * US, 1, 7, "a", S_SLEEP, 0, "swapper/1");
	out = print(FMT_BCC, NULL);
	ck_assert_ptr_nonnull(strstr(out, "       0.000600 [0001]  a[7/100]                                                         migrated: a[7/100] cpu 0 => 1\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nRuntime summary\n"));
	/* a: 3 runs (9.999 + 100 + 100 us), one measured wait of 150 us, at 200 us; 1 migration */
	ck_assert_ptr_nonnull(strstr(out, "                      a[7/100]          3        0.209      0.009       0.069       0.100 "));
	ck_assert_ptr_nonnull(strstr(out, "      1       0.150       0.150         0.000200\n"));
	ck_assert_ptr_nonnull(strstr(out, "Total number of context switches: 5\n"));
	free(out);
	stop();
}
END_TEST

/* the trace: thread states, a CPU track, the waker's flow, named threads */
START_TEST(test_perfetto)
{
	char *out;

	start("--format=perfetto");
	ck_assert(o.an->flags & AN_F_PERFETTO);
	scenario();
	out = print(FMT_PERFETTO, NULL);
	ck_assert(!strncmp(out, "{\"traceEvents\":[\n", 17));
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":100,\"tid\":7,"
					  "\"args\":{\"name\":\"a\"}}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"X\",\"pid\":100,\"tid\":7,\"ts\":10,\"name\":"
					  "\"Sleeping (S)\",\"cat\":\"sched\",\"dur\":40}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"X\",\"pid\":100,\"tid\":7,\"ts\":50,\"name\":"
					  "\"Runnable\",\"cat\":\"sched\",\"dur\":150}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"X\",\"pid\":100,\"tid\":7,\"ts\":200,\"name\":"
					  "\"Running\",\"cat\":\"sched\",\"dur\":100,\"args\":{\"cpu\":0}}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"X\",\"pid\":100,\"tid\":5,\"ts\":200,\"name\":"
					  "\"Runnable (Preempted)\",\"cat\":\"sched\",\"dur\":100}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"s\",\"pid\":100,\"tid\":5,\"ts\":50,\"name\":"
					  "\"wakeup\",\"cat\":\"flow\",\"id\":1}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"f\",\"pid\":100,\"tid\":7,\"ts\":50,\"name\":"
					  "\"wakeup\",\"cat\":\"flow\",\"bp\":\"e\",\"id\":1}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":2000000000,"
					  "\"tid\":2000000001,\"args\":{\"name\":\"CPU 0\"}}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"X\",\"pid\":2000000000,\"tid\":2000000001,"
					  "\"ts\":200,\"name\":\"a [7]\",\"cat\":\"cpu\",\"dur\":100}"));
	ck_assert_ptr_nonnull(strstr(out, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":"
					  "\"offcpu-ftrace timehist\",\"backend\":\"test\""));
	free(out);
	stop();
}
END_TEST

/* what goes together and what does not */
START_TEST(test_options)
{
	static const char *const bad[] = { "--format=svg", "--format=bpftrace", "-s -S",
					   "--format=perfetto -w", "--format=perfetto -S", "--format=perfetto -i 1",
					   "--by pid", "--by cpu -S", "--top 3", "-s -w",
					   "--format=json -V", NULL };
	unsigned i;

	for (i = 0; bad[i]; i++) {
		char copy[128], *argv[16], *save = NULL, *t;
		int argc = 0, fd = open("/dev/null", O_WRONLY), saved = dup(2);

		snprintf(copy, sizeof(copy), "%s", bad[i]);
		argv[argc++] = (char *)"timehist";
		for (t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
			argv[argc++] = t;
		argv[argc] = NULL;
		dup2(fd, 2);
		ck_assert_msg(trace_opts_parse(&o, "timehist", argc, argv) == EXIT_USAGE, "%s", bad[i]);
		dup2(saved, 2);
		close(fd);
		close(saved);
	}
	/* -s: a mode the proc backend's totals can serve (no AN_F_TRACED) */
	start("-s -i 1 3 --by pid");
	ck_assert(!(o.an->flags & AN_F_TRACED));
	stop();
	/* other analyses refuse --format=perfetto */
	{
		char *argv[] = { (char *)"runq", (char *)"--format=perfetto", NULL };
		int fd = open("/dev/null", O_WRONLY), saved = dup(2);

		dup2(fd, 2);
		ck_assert_int_eq(trace_opts_parse(&o, "runq", 2, argv), EXIT_USAGE);
		dup2(saved, 2);
		close(fd);
		close(saved);
	}
}
END_TEST

/* the proc backend's totals: the summary from schedstat, no single run */
START_TEST(test_totals)
{
	struct an_thread t = { .tid = 7, .comm = "a", .runq_n = 4, .runq_ns = 8000 * US,
			       .oncpu_ns = 2000 * US };
	char *out;

	start("-s --format=json");
	analyzer_add_thread(&an, &t);
	out = print(FMT_JSON, NULL);
	ck_assert_ptr_nonnull(strstr(out, "\"timehist\":{\"events\":[],"));
	ck_assert_ptr_nonnull(strstr(out, "\"rows\":[{\"tid\":7,\"pid\":100,\"comm\":\"a\","
					  "\"threads\":1,\"source\":\"proc\",\"run\":{\"count\":4,"
					  "\"total_ns\":2000000,\"min_ns\":null,"));
	ck_assert_ptr_nonnull(strstr(out, "\"delay\":{\"count\":4,\"total_ns\":8000000,\"max_ns\":null"));
	free(out);
	stop();
}
END_TEST

/* profile --format=perfetto: timehist's timeline, with the samples as instants */
START_TEST(test_profile_trace)
{
	static char copy[64] = "--format=perfetto";
	char *argv[] = { (char *)"profile", copy, NULL };
	uint64_t kf[2] = { 0x10, 0x20 };
	struct sched_event smp = { .ts = 250 * US, .cpu = 0, .type = SEV_SAMPLE, .pid = 7,
				   .next_pid = 100, .common_pid = 7, .period = 10 * US,
				   .stack = kf, .stack_depth = 2 };
	struct an_cfg cfg;
	char *out;

	ck_assert_int_eq(trace_opts_parse(&o, "profile", 2, argv), -1);
	ck_assert_str_eq(o.an->name, "timehist-profile");
	ck_assert_str_eq(o.cmd, "profile");
	ck_assert(o.an->flags & AN_F_SAMPLES);
	ck_assert_int_eq(an_events(&o), 1u << SEV_SAMPLE | 1u << SEV_WAKING);
	memset(&cfg, 0, sizeof(cfg));
	cfg.modes = o.modes;
	cfg.compat = o.compat;
	cfg.pid = cfg.tid = -1;
	cfg.off_state_all = true;
	cfg.off_max_ns = UINT64_MAX;
	cfg.max_tasks = cfg.max_groups = cfg.max_stacks = 16;
	cfg.states.preempt_mask = PREEMPT;
	cfg.tgid_of = tgid_of;
	o.an->configure(&o, &cfg);
	ck_assert_int_eq(analyzer_init(&an, &cfg), 0);
	ck_assert_int_eq(o.an->setup(&o, &an, &state), 0);
	memset(on_cpu, 0, sizeof(on_cpu));
	scenario();
	analyzer_feed(&an, &smp);
	out = print(FMT_PERFETTO, NULL);
	/* no symbols here (a live run has them): the stack is left empty */
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"i\",\"pid\":100,\"tid\":7,\"ts\":250,\"name\":"
					  "\"on-CPU sample\",\"cat\":\"sample\",\"s\":\"t\",\"args\":"
					  "{\"period_ns\":10000,\"stack\":\"\"}}"));
	ck_assert_ptr_nonnull(strstr(out, "\"tool\":\"offcpu-ftrace profile\""));
	ck_assert_ptr_nonnull(strstr(out, "\"samples\":1,\"sample_hz\":99"));
	free(out);
	stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("timehist");
	TCase *tc = tcase_create("timehist");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_columns_perf);
	tcase_add_test(tc, test_compat);
	tcase_add_test(tc, test_json_streamed);
	tcase_add_test(tc, test_marks);
	tcase_add_test(tc, test_idle_lost_exit);
	tcase_add_test(tc, test_migration_summary);
	tcase_add_test(tc, test_perfetto);
	tcase_add_test(tc, test_options);
	tcase_add_test(tc, test_totals);
	tcase_add_test(tc, test_profile_trace);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
