// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The analyses of src/analyses/ as units: each parsed from a command line
 * as the tool parses it, configured, set up on an analyzer, fed synthetic
 * events, and printed to memory through its descriptor.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cli.h"
#include "decode.h"
#include "fixture.h"

#define S_SLEEP 0x1
#define S_DISK 0x2
#define PREEMPT 0x100
#define US 1000ULL

static struct trace_opts o;
static struct analyzer an;
static enum cs_trust start_trust;	/* the CPU-state model's trust in the next start() */
static void *state;
static int32_t on_cpu[8];

static struct sched_states states(void)
{
	struct sched_states st = { .preempt_mask = PREEMPT, .nletters = 2 };

	st.letter[0].bit = S_SLEEP;
	st.letter[0].letter = 'S';
	st.letter[1].bit = 0x2;
	st.letter[1].letter = 'D';
	return st;
}

/* "runq --slower 1000 -P": parsed, configured and set up as a run does */
static void start(const char *cmd, const char *line)
{
	static char copy[512];
	char *argv[32], *save = NULL, *tok;
	int argc = 0, fd, saved, ret;
	struct an_cfg cfg;

	snprintf(copy, sizeof(copy), "%s", line);
	argv[argc++] = (char *)cmd;
	for (tok = strtok_r(copy, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	fflush(stderr);
	saved = dup(2);
	fd = open("/dev/null", O_WRONLY);
	dup2(fd, 2);
	ret = trace_opts_parse(&o, cmd, argc, argv);
	dup2(saved, 2);
	close(fd);
	close(saved);
	ck_assert_int_eq(ret, -1);
	memset(&cfg, 0, sizeof(cfg));
	cfg.modes = o.modes;
	cfg.unit_ns = 1000;
	cfg.pid = cfg.tid = -1;
	cfg.off_state_all = true;
	cfg.off_max_ns = UINT64_MAX;
	cfg.max_tasks = 4096;	/* the fixture kernels run hundreds of short processes */
	cfg.max_groups = 16;
	cfg.max_stacks = 64;
	cfg.states = states();
	cfg.stacks = (o.kstack ? AN_KSTACK : 0) | (o.ustack ? AN_USTACK : 0);
	cfg.compat = o.compat;
	cfg.cpu_state = an_cpu_state(&o);	/* as a run sets it */
	cfg.ncpu = 2;				/* the backend's CPUs */
	cfg.cpu_trust = start_trust;
	if (o.an->configure)
		o.an->configure(&o, &cfg);
	ck_assert_int_eq(analyzer_init(&an, &cfg), 0);
	state = NULL;
	if (o.an->setup)
		ck_assert_int_eq(o.an->setup(&o, &an, &state), 0);
	memset(on_cpu, 0, sizeof(on_cpu));
}

static void stop(void)
{
	if (o.an->free)
		o.an->free(state);
	analyzer_fini(&an);
}

static void wakeup(uint64_t ts, int cpu, int pid, const char *comm)
{
	struct sched_event e = { .ts = ts, .cpu = cpu, .pid = pid, .comm = comm,
				 .common_pid = on_cpu[cpu], .type = SEV_WAKEUP };

	analyzer_feed(&an, &e);
}

static void sw(uint64_t ts, int cpu, int prev, const char *pc, int64_t state_, int next,
	       const char *nc)
{
	char p[COMM_LEN] = "", n[COMM_LEN] = "";
	struct sched_event e = { .ts = ts, .cpu = cpu, .type = SEV_SWITCH, .pid = prev,
				 .prev_state = state_, .next_pid = next, .comm = p,
				 .next_comm = n, .common_pid = prev };

	strncpy(p, pc, COMM_LEN - 1);
	strncpy(n, nc, COMM_LEN - 1);
	on_cpu[cpu] = next;
	analyzer_feed(&an, &e);
}

/* the interval printed in @fmt, as a string the caller frees */
static char *print(enum out_format fmt)
{
	struct an_view v = { .o = &o, .an = &an, .backend = "test", .clock = "mono",
			     .duration_s = 1, .interval = 1, .final = true, .start_ns = 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	analyzer_finish(&an);
	analyzer_close_cpus(&an, 0, NULL, NULL, 0, 0);
	ck_assert_int_eq(o.an->print(state, &v, fmt, f), 0);
	fclose(f);
	return buf;
}

/* runqslower: strictly over US in whole microseconds; its header and columns */
START_TEST(test_slower_threshold_and_layout)
{
	char *out;

	start("runq", "--slower 1000 -P");
	ck_assert_str_eq(o.an->name, "slower");
	sw(0, 0, 0, "swapper/0", 0, 5, "hog");
	wakeup(1000 * US, 0, 7, "a");		/* waits 1000 us: not over 1000 */
	sw(2000 * US, 0, 5, "hog", PREEMPT, 7, "a");
	wakeup(2100 * US, 0, 8, "b");		/* 1000.999 us: 1000 whole us */
	sw(3100 * US + 999, 0, 7, "a", S_SLEEP, 8, "b");
	wakeup(3200 * US, 0, 9, "c");		/* 1001 us: listed */
	sw(4201 * US, 0, 8, "b", S_SLEEP, 9, "c");
	out = print(FMT_BCC);
	ck_assert_str_eq(out,
		"Tracing run queue latency higher than 1000 us\n"
		"TIME     COMM             TID           LAT(us) PREV COMM        PREV TID\n"
		"   0.004 c                9                1001 b                8     \n"
		"\n"
		"# 1 of 3 run-queue waits over 1000 us\n"
		"# runq: 1.000 s traced, backend test, clock mono\n"
		"# not counted: 1 started before the window, 1 still open at its end, 0 negative, "
		"0 dropped at --max-tasks\n");
	free(out);
	stop();
}
END_TEST

/* --ran-instead: who had the CPU during the wait, longest first, and whether it was all seen */
START_TEST(test_slower_ran_instead)
{
	char *out;

	start("runq", "--slower 100 --ran-instead");
	sw(1, 1, 0, "swapper/1", 0, 20, "make");	/* make on CPU 1 (trace times are never 0) */
	wakeup(50 * US, 1, 7, "cc1");			/* cc1 waits from 50 us */
	sw(100 * US, 1, 20, "make", PREEMPT, 21, "ld");
	sw(400 * US, 1, 21, "ld", S_SLEEP, 7, "cc1");	/* waited 350: ld 300, make 50 */
	/* JSON (it keeps the waits for the interval), then the text */
	out = print(FMT_JSON);
	ck_assert_ptr_nonnull(strstr(out, "\"slower_us\":100,\"waits\":1,\"waits_over\":1,"
					  "\"slow_waits\":[{\"ts_ns\":400000,\"cpu\":1,\"tid\":7,"
					  "\"pid\":null,\"comm\":\"cc1\",\"lat_ns\":350000,"
					  "\"prev_tid\":21,\"prev_comm\":\"ld\",\"ran_instead\":["
					  "{\"tid\":21,\"comm\":\"ld\",\"ns\":300000},"
					  "{\"tid\":20,\"comm\":\"make\",\"ns\":50000}],"
					  "\"ran_instead_seen_ns\":350000,\"ran_instead_complete\":true}]"));
	free(out);
	out = print(FMT_BCC);
	ck_assert_ptr_nonnull(strstr(out, "   0.000 cc1              7                 350\n"
					  "    ran instead: ld (21) 300 us, make (20) 50 us\n"));
	free(out);
	stop();
}
END_TEST

/* a switch the trace lost inside the wait: the occupants are partly seen, and said so */
START_TEST(test_slower_ran_instead_hole)
{
	struct sched_event e = { .ts = 150 * US, .cpu = 1, .type = SEV_WAKEUP, .pid = 30,
				 .comm = "x", .common_pid = 22 };
	char *out;

	start("runq", "--slower 100 --ran-instead");
	sw(1, 1, 0, "swapper/1", 0, 20, "make");
	wakeup(50 * US, 1, 7, "cc1");
	sw(100 * US, 1, 20, "make", PREEMPT, 21, "ld");
	analyzer_feed(&an, &e);			/* 22 runs: ld's switch-out was lost */
	sw(400 * US, 1, 22, "as", S_SLEEP, 7, "cc1");
	out = print(FMT_BCC);
	ck_assert_ptr_nonnull(strstr(out, "    ran instead: make (20) 50 us (50 of 350 us seen)\n"));
	free(out);
	stop();
}
END_TEST

/* the options --slower refuses, and --ran-instead alone */
START_TEST(test_slower_options)
{
	static const char *const bad[] = { "--slower 10 -L", "--slower 10 --format=bpftrace",
					   "--slower 10 -m", "--ran-instead 10",
					   "--slower 10 --format=svg", "-P --by cgroup",
					   "--by cgroup -P 5", "--slower 10 -L --by cgroup", NULL };
	unsigned i;

	for (i = 0; bad[i]; i++) {
		char copy[128], *argv[16], *save = NULL, *t;
		int argc = 0, fd = open("/dev/null", O_WRONLY), saved = dup(2);

		snprintf(copy, sizeof(copy), "%s", bad[i]);
		argv[argc++] = (char *)"runq";
		for (t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
			argv[argc++] = t;
		argv[argc] = NULL;
		dup2(fd, 2);
		ck_assert_msg(trace_opts_parse(&o, "runq", argc, argv) == EXIT_USAGE, "%s", bad[i]);
		dup2(saved, 2);
		close(fd);
		close(saved);
	}
	/* its hist refusal: single events are not the kernel's sums */
	start("runq", "--slower 10");
	ck_assert_int_eq(an_hist(&o), HIST_NO_EVENTS);
	ck_assert(o.an->flags & AN_F_TRACED);
	stop();
}
END_TEST

/* oncpu (cpudist): every slice, switch-in to switch-out, whatever state it ends in */
START_TEST(test_oncpu_slices)
{
	struct sched_event gap = { .ts = 900 * US, .cpu = 0, .type = SEV_WAKEUP, .pid = 30,
				   .comm = "x", .common_pid = 9 };
	const struct group *g;
	char *out;
	uint32_t i;

	start("oncpu", "-L");
	ck_assert_str_eq(o.an->name, "oncpu");
	sw(1 * US, 0, 0, "swapper/0", 0, 7, "a");	/* 7 on: the first switch on CPU 0 */
	sw(101 * US, 0, 7, "a", PREEMPT, 8, "b");	/* 7: 100 us (its first seen slice) */
	sw(301 * US, 0, 8, "b", S_SLEEP, 7, "a");	/* 8: 200 us */
	sw(351 * US, 0, 7, "a", S_SLEEP, 0, "swapper/0");	/* 7: 50 us */
	sw(400 * US, 0, 0, "swapper/0", 0, 8, "b");	/* idle: not a task's slice */
	analyzer_feed(&an, &gap);			/* 9 runs: 8's switch-out lost */
	sw(1000 * US, 0, 9, "c", S_SLEEP, 0, "swapper/0");	/* 9's start unknown */
	ck_assert_uint_eq(an.on.groups.n, 2);
	for (i = 0; i < an.on.groups.n; i++) {
		g = an.on.groups.v[i];
		if (g->id == 7) {
			ck_assert_uint_eq(g->h.count, 2);
			ck_assert_uint_eq(g->h.sum_ns, 150 * US);
		} else {
			ck_assert_int_eq(g->id, 8);
			ck_assert_uint_eq(g->h.count, 1);
			ck_assert_uint_eq(g->h.sum_ns, 200 * US);
		}
	}
	ck_assert_uint_eq(an.counts.slice_unmeasured, 1);	/* 9's */
	ck_assert(analyzer_partial(&an));
	out = print(FMT_BCC);
	/* cpudist's banner, a blank line, then its sections */
	ck_assert_ptr_nonnull(strstr(out, "Tracing on-CPU time... Hit Ctrl-C to end.\n\n\ntid = "));
	ck_assert_ptr_nonnull(strstr(out, "# partial: 1 on-CPU slice not measured: the switch that "
					  "began it is not in the trace\n"));
	free(out);
	out = print(FMT_JSON);
	ck_assert_ptr_nonnull(strstr(out, "{\"command\":\"oncpu\""));
	ck_assert_ptr_nonnull(strstr(out, "\"slice_unmeasured\":1"));
	free(out);
	out = print(FMT_OPENMETRICS);
	ck_assert_ptr_nonnull(strstr(out, "# TYPE offcpu_ftrace_oncpu_time_seconds histogram\n"));
	free(out);
	stop();
}
END_TEST

/* oncpu -O: cpudist -O, off-CPU time (offcpu's intervals) */
START_TEST(test_oncpu_off)
{
	char *out;

	start("oncpu", "-O");
	ck_assert_uint_eq(an.cfg.modes, AN_OFFCPU);
	sw(1, 0, 0, "swapper/0", 0, 7, "a");
	sw(100 * US, 0, 7, "a", S_SLEEP, 8, "b");
	wakeup(300 * US, 0, 7, "a");
	sw(400 * US, 0, 8, "b", S_SLEEP, 7, "a");	/* 7 off for 300 us */
	ck_assert_uint_eq(an.off.groups.v[0]->h.count, 1);
	ck_assert_uint_eq(an.off.groups.v[0]->h.sum_ns, 300 * US);
	out = print(FMT_BCC);
	ck_assert_ptr_nonnull(strstr(out, "Tracing off-CPU time... Hit Ctrl-C to end.\n\n"
					  "     usecs               : count     distribution\n"));
	free(out);
	stop();
}
END_TEST

/* losses per CPU in the text footer: "(cpu1 5)", no space where cpu0 lost none */
START_TEST(test_lost_per_cpu_footer)
{
	static const uint64_t lost[2] = { 0, 5 };
	struct an_view v = { .o = &o, .an = &an, .backend = "test", .clock = "mono",
			     .duration_s = 1, .interval = 1, .final = true, .lost = 5,
			     .ncpu = 2, .lost_cpu = lost };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	start("runq", "-L");
	sw(1, 0, 0, "swapper/0", 0, 7, "a");
	sw(100 * US, 0, 7, "a", 0, 8, "b");	/* 7 preempted: waits */
	sw(300 * US, 0, 8, "b", S_SLEEP, 7, "a");
	f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	analyzer_finish(&an);
	analyzer_close_cpus(&an, 0, NULL, NULL, 0, 0);
	ck_assert_int_eq(o.an->print(state, &v, FMT_BCC, f), 0);
	fclose(f);
	ck_assert_msg(strstr(buf, "\n# lost events: 5 (cpu1 5): histogram is partial\n"), "%s", buf);
	free(buf);
	stop();
}
END_TEST

/*
 * What cannot be true makes a result partial, and says so in the text
 * ("# partial:", which --strict's exit 3 goes with) and the JSON: an event
 * out of time order, an interval ending before it began, a recording's
 * records skipped as impossible.
 */
static void partial_expect(uint64_t rejected, const char *line)
{
	static const uint64_t lost[2];
	struct an_view v = { .o = &o, .an = &an, .backend = "file", .clock = "mono",
			     .duration_s = 1, .interval = 1, .final = true, .ncpu = 2,
			     .lost_cpu = lost, .rejected = rejected };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	analyzer_finish(&an);
	f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(o.an->print(state, &v, FMT_BCC, f), 0);
	fclose(f);
	ck_assert_msg(strstr(buf, line), "no '%s' in: %s", line, buf);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(o.an->print(state, &v, FMT_JSON, f), 0);
	fclose(f);
	ck_assert_msg(strstr(buf, "\"partial\":true"), "%s", buf);
	ck_assert(!rejected || strstr(buf, "\"rejected\":3}"));
	free(buf);
}

START_TEST(test_impossible_is_partial)
{
	start("runq", "-L");
	wakeup(100 * US, 0, 7, "a");
	sw(90 * US, 1, 0, "swapper/1", 0, 7, "a");	/* before its wakeup: late, negative */
	partial_expect(0, "\n# partial: 1 event arrived out of time order\n");
	stop();
	start("runq", "-L");
	wakeup(100 * US, 0, 7, "a");
	sw(90 * US, 1, 0, "swapper/1", 0, 7, "a");
	partial_expect(0, "\n# partial: 1 interval ended before it began (not counted)\n");
	stop();
	start("runq", "-L");
	sw(1, 0, 0, "swapper/0", 0, 7, "a");
	partial_expect(3, "\n# partial: 3 records of the recording cannot be true");
	stop();
}
END_TEST

/* the hypervisor's steal a live run read over the interval; 0: none known
 * unless view_steal_zero (read, and none taken) */
static uint64_t view_steal_ns;
static bool view_steal_zero;

/* the interval printed, with its bounds in the trace clock */
static char *print_iv(enum out_format fmt, uint64_t start_ns, uint64_t end_ns, unsigned ncpu)
{
	static const uint64_t lost[8];
	struct an_view v = { .o = &o, .an = &an, .backend = "test", .clock = "mono",
			     .duration_s = (double)(end_ns - start_ns) / 1e9, .interval = 1,
			     .final = true, .iv_start_ns = start_ns, .iv_end_ns = end_ns,
			     .ncpu = ncpu, .lost_cpu = lost, .steal_known = view_steal_ns != 0 || view_steal_zero,
			     .steal_ns = view_steal_ns };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	analyzer_finish(&an);
	analyzer_close_cpus(&an, end_ns, NULL, NULL, 0, 0);
	ck_assert_int_eq(o.an->print(state, &v, fmt, f), 0);
	fclose(f);
	return buf;
}

/*
 * runqlen: CPU 0 runs 5 from 0; 7 woken onto it at 100 us (length 1), 8
 * at 300 (2), 7 runs at 600 (1: 8 waits), 8 runs at 800 (0; 7 preempted
 * joins: 1), to 1000: CPU 0 spent 100+300 us at 0 (before 100, and
 * nothing after...), the rest as listed; CPU 1 idled all along (0).
 */
#define B (1000 * US)	/* the interval's start: a trace time is never 0 */

/* one contended CPU: 7 waits 100 us behind 8, runs, sleeps (an interval for each analysis) */
static void steal_schedule(void)
{
	wakeup(B + 10 * US, 0, 7, "a");
	sw(B + 110 * US, 0, 8, "b", PREEMPT, 7, "a");
	sw(B + 400 * US, 0, 7, "a", S_SLEEP, 8, "b");
	wakeup(B + 500 * US, 1, 7, "a");
	sw(B + 600 * US, 0, 8, "b", PREEMPT, 7, "a");
	sw(B + 900 * US, 0, 7, "a", S_SLEEP, 8, "b");
}

/* @cmd's interval in @fmt holds @want (or, !@present, does not) */
static void steal_expect(const char *cmd, enum out_format fmt, const char *want, bool present)
{
	char *out = print_iv(fmt, B, B + 1000 * US, 2);

	ck_assert_msg(!strstr(out, want) == !present, "%s: %s %s in: %s", cmd,
		      present ? "no" : "unwanted", want, out);
	free(out);
}

/*
 * Every report carries the window's steal: JSON's window.steal_ns (null
 * where not read: a recording), a trailer line that says what it does to
 * what the command measured; triage its share of the CPUs' time, and a
 * note from 5%
 */
START_TEST(test_steal_every_report)
{
	static const struct {
		const char *cmd, *args, *json, *text;
	} c[] = {
		{ "runq", "", ",\"stopped_by\":null,\"steal_ns\":",
		  "from the CPUs in the window (steal, all CPUs added): a wait for a CPU holds "
		  "what it took from that CPU, as the kernel's run_delay does\n" },
		{ "offcpu", "", ",\"stopped_by\":null,\"steal_ns\":",
		  "(steal, all CPUs added): an off-CPU interval holds what it took while the "
		  "woken thread waited for its CPU\n" },
		{ "oncpu", "", ",\"stopped_by\":null,\"steal_ns\":",
		  "(steal, all CPUs added): an on-CPU slice timed between switches holds what it "
		  "took while the thread ran; the kernel's CPU time (schedstat, top) leaves it out\n" },
		{ "runq", "--slower 10", ",\"stopped_by\":null,\"steal_ns\":",
		  "a wait for a CPU holds" },
		{ "runqlen", "", ",\"stopped_by\":null,\"steal_ns\":",
		  "a wait for a CPU holds" },
		{ "offcpu", "--wakers", ",\"stopped_by\":null,\"steal_ns\":",
		  "an off-CPU interval holds" },
		{ "triage", "", "\"window\":{\"duration_s\":0.001000,\"steal_ns\":",
		  NULL /* its share of the online CPUs' time: below */ },
	};
	/* triage: of the online CPUs' time (here, as the tool reads it) */
	double cpus = (double)sysconf(_SC_NPROCESSORS_ONLN);
	char want[256], share[256];
	size_t i;
	char *out;

	snprintf(share, sizeof(share), "\nsteal: the hypervisor took 90 ms of the CPUs, %.1f%% of "
		 "their time in the window\n# note: the host ran something else on this VM's CPUs "
		 "(%.1f%% >= 5%%)", 9000 / cpus, 9000 / cpus);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		start(c[i].cmd, c[i].args);
		steal_schedule();
		view_steal_ns = 0;
		snprintf(want, sizeof(want), "%s%s}", c[i].json, "null");
		steal_expect(c[i].cmd, FMT_JSON, want, true);
		steal_expect(c[i].cmd, FMT_BCC, "hypervisor", false);
		view_steal_ns = 90000000;
		snprintf(want, sizeof(want), "%s%s}", c[i].json, "90000000");
		steal_expect(c[i].cmd, FMT_JSON, want, true);
		steal_expect(c[i].cmd, FMT_BCC, c[i].text ? c[i].text : share, true);
		if (strcmp(c[i].cmd, "triage"))
			steal_expect(c[i].cmd, FMT_BCC, "\n# the hypervisor took 90 ms from the CPUs",
				     true);
		view_steal_ns = 0;
		stop();
	}
	/* read, and nothing taken: 0 in JSON, no line */
	start("runq", "");
	steal_schedule();
	view_steal_zero = true;
	steal_expect("runq", FMT_JSON, ",\"stopped_by\":null,\"steal_ns\":0}", true);
	steal_expect("runq", FMT_BCC, "hypervisor", false);
	view_steal_zero = false;
	stop();
	/* triage under the note's 5%: the share alone (1 s: 40 ms of the online CPUs) */
	start("triage", "");
	steal_schedule();
	view_steal_ns = (uint64_t)(20000000 * cpus);	/* 2% of the online CPUs' second */
	out = print_iv(FMT_BCC, B, B + 1000000 * US, 2);
	snprintf(share, sizeof(share), "\nsteal: the hypervisor took %.0f ms of the CPUs, 2.0%% of "
		 "their time in the window\n", 20 * cpus);
	ck_assert_msg(strstr(out, share), "%s", out);
	ck_assert_ptr_null(strstr(out, "# note: the host ran"));
	free(out);
	view_steal_ns = 0;
	stop();
}
END_TEST

START_TEST(test_runqlen_time_weighted)
{
	struct sched_event w = { .cpu = 1, .type = SEV_WAKEUP, .comm = "w", .has_target = true,
				 .target_cpu = 0 };
	char *out;

	start("runqlen", "-C");
	sw(B + 1 * US, 0, 0, "swapper/0", 0, 5, "five");
	w.ts = B + 100 * US; w.pid = 7;
	analyzer_feed(&an, &w);
	w.ts = B + 300 * US; w.pid = 8;
	analyzer_feed(&an, &w);
	sw(B + 600 * US, 0, 5, "five", S_SLEEP, 7, "seven");
	sw(B + 800 * US, 0, 7, "seven", PREEMPT, 8, "eight");
	/* CPU 0 from 0 to 1000 us: 0 for 100, 1 for 200, 2 for 300, 1 for 200, 1 for 200 */
	out = print_iv(FMT_JSON, B, B + 1000 * US, 2);
	ck_assert_ptr_nonnull(strstr(out, "\"groups\":[{\"cpu\":0,\"time_ns\":1000000,"
					  "\"runqocc\":0.900000,\"runqocc_min\":0.900000,"
					  "\"unsure_ns\":0,\"mean\":1.200000,\"buckets\":["
					  "{\"low\":0,\"high\":0,\"count\":100,\"ns\":100000},"
					  "{\"low\":1,\"high\":1,\"count\":600,\"ns\":600000},"
					  "{\"low\":2,\"high\":2,\"count\":300,\"ns\":300000}]},"
					  "{\"cpu\":1,\"time_ns\":1000000,\"runqocc\":0.000000,"
					  "\"runqocc_min\":0.000000,\"unsure_ns\":0,"
					  "\"mean\":0.000000,\"buckets\":[{\"low\":0,\"high\":0,"
					  "\"count\":1000,\"ns\":1000000}]}]"));
	ck_assert_ptr_nonnull(strstr(out, "\"time_weighted\":true,\"hz\":null"));
	free(out);
	out = print_iv(FMT_BCC, B, B + 1000 * US, 2);
	ck_assert_ptr_nonnull(strstr(out, "Tracing run queue length... Hit Ctrl-C to end.\n\n"
					  "\ncpu = 0\n     runqlen       : usecs     distribution\n"
					  "        0          : 100      |******                                  |\n"
					  "        1          : 600      |****************************************|\n"
					  "        2          : 300      |********************                    |\n"
					  "\ncpu = 1\n     runqlen       : usecs     distribution\n"
					  "        0          : 1000     |****************************************|\n"));
	free(out);
	stop();
}
END_TEST

/* --compat=bcc: as 99 Hz samples would count; -O: occupancy and unclaimed */
START_TEST(test_runqlen_bcc_and_occupancy)
{
	struct sched_event w = { .cpu = 0, .type = SEV_WAKEUP, .comm = "w", .has_target = true,
				 .target_cpu = 0, .common_pid = 5 };
	char *out;

	start("runqlen", "--compat=bcc");
	sw(1, 0, 0, "swapper/0", 0, 5, "five");
	w.ts = 1000000000ULL; w.pid = 7;	/* queued from 1 s to 2 s: 99 samples */
	analyzer_feed(&an, &w);
	sw(2000000000ULL, 0, 5, "five", S_SLEEP, 7, "seven");
	out = print_iv(FMT_BCC, 1, 3000000001ULL, 1);
	ck_assert_ptr_nonnull(strstr(out, "Sampling run queue length... Hit Ctrl-C to end.\n\n"
					  "     runqlen       : count     distribution\n"
					  "        0          : 198      |****************************************|\n"
					  "        1          : 99       |********************                    |\n"));
	free(out);
	stop();

	/* -O -C: CPU 1 idles while 7 waits on busy CPU 0 for 1 s of 3 (2 CPUs): 1/6 */
	start("runqlen", "-O -C");
	sw(1, 1, 5, "five", S_SLEEP, 0, "swapper/1");	/* CPU 1 idle from the start */
	sw(1, 0, 0, "swapper/0", 0, 6, "six");		/* CPU 0 busy */
	w.ts = 1000000000ULL; w.pid = 7; w.common_pid = 6;
	analyzer_feed(&an, &w);
	sw(2000000000ULL, 0, 6, "six", PREEMPT, 7, "seven");	/* 6 waits from 2 s */
	sw(2000000000ULL + 1, 1, 0, "swapper/1", 0, 6, "six");	/* ... claimed by CPU 1 */
	out = print_iv(FMT_BCC, 1, 3000000001ULL, 2);
	ck_assert_ptr_nonnull(strstr(out, "runqocc, CPU 0    33.33%\nrunqocc, CPU 1     0.00%\n"
					  "# unclaimed: 16.67% of CPU time idle while tasks waited "
					  "on another CPU (cpuunclaimed)\n"));
	free(out);
	stop();
}
END_TEST

static void waking(uint64_t ts, int cpu, int pid, int waker);

/* the interval printed, the CPU-state model closed with /proc/stat's idle time as a run does */
static char *print_proc(enum out_format fmt, uint64_t start_ns, uint64_t end_ns,
			const uint64_t *proc, const bool *listed, uint64_t tol)
{
	static const uint64_t lost[8];
	struct an_view v = { .o = &o, .an = &an, .backend = "test", .clock = "mono",
			     .duration_s = (double)(end_ns - start_ns) / 1e9, .interval = 1,
			     .final = true, .iv_start_ns = start_ns, .iv_end_ns = end_ns,
			     .ncpu = 2, .lost_cpu = lost, .proc_idle = proc, .proc_listed = listed,
			     .nproc = proc ? 2 : 0, .proc_tol_ns = tol };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	analyzer_finish(&an);
	analyzer_close_cpus(&an, end_ns, proc, listed, proc ? 2 : 0, tol);
	ck_assert_int_eq(o.an->print(state, &v, fmt, f), 0);
	fclose(f);
	return buf;
}

/*
 * runqlen -O where this kernel lost a switch out of idle: CPU 1 idles,
 * 9 (woken at 400 us) is first seen running there at 600, goes idle at
 * 700, while 7 waits on busy CPU 0 all along. The trace does not show
 * CPU 1 from 400 to 600: the share is a range, which /proc/stat's idle
 * time of CPU 1 (idle to 550 really: 850 us in all) closes.
 */
static void lost_idle_exit(void)
{
	struct sched_event w = { .cpu = 0, .type = SEV_WAKEUP, .comm = "seven",
				 .has_target = true, .target_cpu = 0, .common_pid = 6, .pid = 7 };
	struct sched_event k = { .cpu = 1, .type = SEV_WAKING, .comm = "twelve",
				 .common_pid = 9, .pid = 12 };

	sw(B, 0, 0, "swapper/0", 0, 6, "six");
	sw(B, 1, 5, "five", S_SLEEP, 0, "swapper/1");
	w.ts = B + 1 * US;
	analyzer_feed(&an, &w);
	waking(B + 400 * US, 0, 9, 6);
	k.ts = B + 600 * US;
	analyzer_feed(&an, &k);		/* 9 runs on CPU 1: its switch in is not in the trace */
	sw(B + 700 * US, 1, 9, "nine", S_SLEEP, 0, "swapper/1");
}

START_TEST(test_runqlen_unclaimed_bounds)
{
	uint64_t proc[2] = { 0, 850 * US };
	bool listed[2] = { true, true };
	char *out;

	start("runqlen", "-O -C");
	lost_idle_exit();
	out = print_proc(FMT_BCC, B, B + 1000 * US, proc, listed, 0);
	/* 7 waited while CPU 1 idled 549 + 300 us of 2 CPUs' 1000 */
	ck_assert_msg(strstr(out, "# unclaimed: 42.45% of CPU time idle while tasks waited on "
			      "another CPU (cpuunclaimed)\n# partial: the unclaimed share lies between "
			      "42.45% and 42.45%: the trace did not show the state of 0.000 CPU-s "
			      "(CPU 1 0.000 s), which /proc/stat's idle time bounds\n"
			      "# CPU state: this kernel may not record switches out of idle (1 switch "
			      "out of idle missing in the run); idle 0.001 CPU-s known from the trace, "
			      "0.000 CPU-s unknown; /proc/stat: idle 0.001 CPU-s (+0.000 beside the "
			      "trace's)\n"), "%s", out);
	free(out);
	out = print_proc(FMT_JSON, B, B + 1000 * US, proc, listed, 0);
	ck_assert_msg(strstr(out, "\"partial\":true"), "%s", out);
	ck_assert_msg(strstr(out, "\"cpu_state_unknown_ns\":200000}"), "%s", out);
	ck_assert_msg(strstr(out, "\"unclaimed\":{\"share\":0.424500,\"ns\":849000,"
			      "\"unknown_ns\":200000,\"share_min\":0.424500,\"share_max\":0.424500,"
			      "\"exact\":false,\"cpu_state\":{\"switches\":\"lossy\",\"found_lossy\":false,"
			      "\"lost_idle_exits\":1,\"idle_ns\":700000,\"busy_ns\":1100000,"
			      "\"unknown_ns\":200000,\"proc_idle_ns\":850000,\"cpus\":[{\"cpu\":0,"
			      "\"idle_ns\":0,\"busy_ns\":1000000,\"unknown_ns\":0,\"proc_idle_ns\":0,"
			      "\"by_proc\":false,\"offline\":false},{\"cpu\":1,\"idle_ns\":700000,"
			      "\"busy_ns\":100000,\"unknown_ns\":200000,\"proc_idle_ns\":850000,"
			      "\"by_proc\":false,\"offline\":false}]}}"), "%s", out);
	free(out);
	stop();

	/* without /proc/stat: the unknown 200 us either way, the estimate between */
	start("runqlen", "-O -C");
	lost_idle_exit();
	out = print_proc(FMT_BCC, B, B + 1000 * US, NULL, NULL, 0);
	ck_assert_msg(strstr(out, "# unclaimed: 39.95% of CPU time idle while tasks waited on "
			      "another CPU (cpuunclaimed)\n# partial: the unclaimed share lies between "
			      "34.95% and 44.95%: the trace did not show the state of 0.000 CPU-s "
			      "(CPU 1 0.000 s); /proc/stat's idle time, which would bound it, is not "
			      "known here\n"), "%s", out);
	free(out);
	stop();
}
END_TEST

/* a CPU with no event at all: /proc/stat says it idled throughout, and the share is exact */
START_TEST(test_runqlen_unclaimed_no_event)
{
	struct sched_event w = { .cpu = 0, .type = SEV_WAKEUP, .comm = "seven",
				 .has_target = true, .target_cpu = 0, .common_pid = 6, .pid = 7 };
	uint64_t proc[2] = { 0, 1000 * US - 3 * US };
	bool listed[2] = { true, true };
	char *out;

	start("runqlen", "-O -C");
	sw(B, 0, 0, "swapper/0", 0, 6, "six");
	w.ts = B + 1 * US;
	analyzer_feed(&an, &w);
	out = print_proc(FMT_JSON, B, B + 1000 * US, proc, listed, 10 * US);
	ck_assert_msg(strstr(out, "\"partial\":false"), "%s", out);
	ck_assert_msg(strstr(out, "\"unclaimed\":{\"share\":0.499500,\"ns\":999000,"
			      "\"unknown_ns\":0,\"share_min\":0.499500,\"share_max\":0.499500,"
			      "\"exact\":true"), "%s", out);
	ck_assert_msg(strstr(out, "{\"cpu\":1,\"idle_ns\":1000000,\"busy_ns\":0,\"unknown_ns\":0,"
			      "\"proc_idle_ns\":997000,\"by_proc\":true"), "%s", out);
	free(out);
	stop();
	/* the same without /proc/stat: not known at all, 0 to 50% */
	start("runqlen", "-O -C");
	sw(B, 0, 0, "swapper/0", 0, 6, "six");
	w.ts = B + 1 * US;
	analyzer_feed(&an, &w);
	out = print_proc(FMT_JSON, B, B + 1000 * US, NULL, NULL, 0);
	ck_assert_msg(strstr(out, "\"share_min\":0.000000,\"share_max\":0.499500,"), "%s", out);
	free(out);
	stop();
}
END_TEST

/* triage: the same range, said on its unclaimed line's partial note, and in its JSON */
START_TEST(test_triage_unclaimed_bounds)
{
	char *out;

	start("triage", "");
	lost_idle_exit();
	out = print_proc(FMT_BCC, B, B + 1000 * US, NULL, NULL, 0);
	ck_assert_msg(strstr(out, "unclaimed CPU: 40.0% of CPU time idle while these threads "
			      "waited on another CPU's run queue\n"), "%s", out);
	ck_assert_msg(strstr(out, "\n# partial: the unclaimed share lies between 34.9% and 45.0%: "
			      "the trace did not show the state of 0.000 CPU-s; /proc/stat's idle "
			      "time"), "%s", out);
	free(out);
	out = print_proc(FMT_JSON, B, B + 1000 * US, NULL, NULL, 0);
	ck_assert_msg(strstr(out, "\"unclaimed_share\":0.399500,\"unclaimed_min\":0.349500,"
			      "\"unclaimed_max\":0.449500,\"cpu_state_unknown_ns\":200000"), "%s",
		      out);
	free(out);
	stop();
}
END_TEST

/* kernel frames for the stacks below: names from a table, as kallsyms would */
static int fake_ksym(void *arg, uint64_t addr, char *buf, size_t len)
{
	static const char *const names[] = { "?", "__schedule", "pipe_read", "try_to_wake_up",
					     "pipe_write", "schedule" };

	(void)arg;
	snprintf(buf, len, "%s", addr < 6 ? names[addr] : "?");
	return 0;
}

static char *print_sym(enum out_format fmt)
{
	static const uint64_t lost[8];
	static const struct symbolizer sym = { .kernel = fake_ksym };
	struct an_view v = { .o = &o, .an = &an, .backend = "test", .clock = "mono",
			     .duration_s = 1, .interval = 1, .final = true, .sym = &sym,
			     .lost_cpu = lost, .ncpu = 2 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	analyzer_finish(&an);
	analyzer_close_cpus(&an, 0, NULL, NULL, 0, 0);
	ck_assert_int_eq(o.an->print(state, &v, fmt, f), 0);
	fclose(f);
	return buf;
}

/* one blocked read of 7, woken by "writer" (9) from CPU 1, with both stacks */
static void reader_woken(bool stacks_)
{
	static const uint64_t tstack[] = { 1, 2 }, wstack[] = { 3, 4 };
	struct sched_event st = { .cpu = 0, .type = SEV_KSTACK, .stack = tstack, .stack_depth = 2 };
	struct sched_event wk = { .ts = 30 * US, .cpu = 1, .type = SEV_WAKING, .pid = 7,
				  .comm = "reader", .common_pid = 9 };

	sw(1 * US, 1, 0, "swapper/1", 0, 9, "writer");	/* the writer runs on CPU 1 */
	sw(2 * US, 0, 0, "swapper/0", 0, 7, "reader");
	sw(10 * US, 0, 7, "reader", S_SLEEP, 0, "swapper/0");	/* 7 blocks */
	if (stacks_) {
		st.ts = 10 * US;
		st.pid = st.common_pid = 7;
		analyzer_feed(&an, &st);
	}
	analyzer_feed(&an, &wk);			/* 9 wakes 7 */
	if (stacks_) {
		st.ts = 30 * US;
		st.cpu = 1;
		st.pid = st.common_pid = 9;
		st.stack = wstack;
		analyzer_feed(&an, &st);
	}
	wakeup(31 * US, 1, 7, "reader");
	sw(50 * US, 0, 0, "swapper/0", 0, 7, "reader");	/* 7 runs: off 40 us, woken at 20 */
}

/* wakeuptime: switch-out to the waking, by waker and target */
START_TEST(test_wakers_wakeuptime)
{
	char *out;

	start("offcpu", "--wakers");
	ck_assert_str_eq(o.an->name, "wakers");
	ck_assert_uint_eq(an_events(&o) & (1u << SEV_WAKING), 1u << SEV_WAKING);
	reader_woken(false);
	out = print_sym(FMT_BCC);
	ck_assert_ptr_nonnull(strstr(out, "WAKER                 PID TARGET                TID"
					  "      COUNT      TOTAL(us)\n"
					  "writer                  9 reader                  7"
					  "          1             20\n"));
	free(out);
	out = print_sym(FMT_JSON);
	ck_assert_ptr_nonnull(strstr(out, "\"wakers\":{\"mode\":\"wakeuptime\","));
	ck_assert_ptr_nonnull(strstr(out, "{\"tid\":7,\"comm\":\"reader\",\"waker_tid\":9,"
					  "\"waker_comm\":\"writer\",\"count\":1,"
					  "\"total_ns\":20000}"));
	free(out);
	stop();
}
END_TEST

/* offwaketime -f: the target's stack root to leaf, --, the waker's leaf to root */
START_TEST(test_wakers_offwaketime)
{
	char *out;

	start("offcpu", "-K --wakers -f");
	reader_woken(true);
	/* 7 preempted, then runs again: no waker, the line ends ";--; N" */
	sw(60 * US, 0, 7, "reader", PREEMPT, 8, "other");
	sw(65 * US, 0, 8, "other", S_SLEEP, 7, "reader");
	out = print_sym(FMT_BCC);
	ck_assert_str_eq(out, "reader;--; 5\n"
			      "reader;pipe_read;__schedule;--;pipe_write;writer 40\n");
	free(out);
	stop();
	/* --wakers=wakeup -K -f: wakeuptime's waker;frames;target */
	start("offcpu", "-K --wakers=wakeup -f");
	reader_woken(true);
	out = print_sym(FMT_BCC);
	ck_assert_str_eq(out, "writer;pipe_write;reader 20\n");
	free(out);
	stop();
}
END_TEST

/* a waking in the waker's context, its sched_wakeup lost */
static void waking(uint64_t ts, int cpu, int pid, int waker)
{
	struct sched_event e = { .ts = ts, .cpu = cpu, .pid = pid, .comm = "a",
				 .common_pid = waker, .type = SEV_WAKING };

	analyzer_feed(&an, &e);
}

/*
 * runq where the kernel lost the sched_wakeup: from the waking, unless the
 * thread was woken onto a CPU idle since before it (the wait is its switch
 * from idle: 0, as schedstat's run_delay counts it)
 */
START_TEST(test_runq_onto_idle)
{
	char *out;

	start("runq", "-L");
	sw(1 * US, 1, 7, "a", S_SLEEP, 5, "w");		/* 7 blocks on CPU 1 */
	sw(10 * US, 1, 5, "w", S_SLEEP, 0, "swapper/1");	/* CPU 1 idles */
	waking(20 * US, 0, 7, 9);			/* 9 wakes 7 from CPU 0 */
	sw(30 * US, 1, 0, "swapper/1", 0, 7, "a");	/* 7 runs as CPU 1 leaves idle */
	ck_assert_uint_eq(an.counts.from_waking, 1);
	ck_assert_uint_eq(an.counts.onto_idle, 1);
	ck_assert_uint_eq(an.runq.groups.v[0]->h.count, 1);
	ck_assert_uint_eq(an.runq.groups.v[0]->h.sum_ns, 0);
	/* woken onto a busy CPU: from the waking */
	sw(40 * US, 1, 7, "a", S_SLEEP, 5, "w");
	waking(50 * US, 0, 7, 9);
	sw(70 * US, 1, 5, "w", S_SLEEP, 7, "a");
	ck_assert_uint_eq(an.counts.from_waking, 2);
	ck_assert_uint_eq(an.counts.onto_idle, 1);
	ck_assert_uint_eq(an.runq.groups.v[0]->h.sum_ns, 20 * US);
	out = print(FMT_BCC);
	ck_assert_ptr_nonnull(strstr(out, "# 1 run-queue wait timed from sched_waking: its "
					  "sched_wakeup is not in the trace"));
	ck_assert_ptr_nonnull(strstr(out, "# 1 run-queue wait woken onto an idle CPU, its "
					  "sched_wakeup not in the trace: 0"));
	free(out);
	out = print(FMT_JSON);
	ck_assert_ptr_nonnull(strstr(out, "\"from_waking\":2,\"onto_idle\":1"));
	free(out);
	stop();
}
END_TEST

/*
 * the same behind an in-kernel pid filter: the switches of other tasks are
 * not in the trace, so a CPU the selected threads left idle may have run
 * anything since: the wait counts from the waking
 */
START_TEST(test_runq_onto_idle_selected)
{
	start_trust = CS_SELECTED;
	start("runq", "-L");
	start_trust = CS_LOSSY;
	sw(1 * US, 1, 7, "a", S_SLEEP, 5, "w");
	sw(10 * US, 1, 5, "w", S_SLEEP, 0, "swapper/1");
	waking(20 * US, 0, 7, 9);
	sw(30 * US, 1, 0, "swapper/1", 0, 7, "a");
	ck_assert_uint_eq(an.counts.from_waking, 1);
	ck_assert_uint_eq(an.counts.onto_idle, 0);
	ck_assert_uint_eq(an.runq.groups.v[0]->h.sum_ns, 10 * US);
	stop();
}
END_TEST

/*
 * runq where the kernel lost both the waking and the wakeup (an interrupt
 * on an idle CPU woke the thread): 0 where the CPU it runs on was idle
 * all the time it was blocked; otherwise not measured
 */
START_TEST(test_runq_woken_in_idle)
{
	char *out;

	start("runq", "-L");
	sw(1 * US, 1, 5, "w", S_SLEEP, 0, "swapper/1");	/* CPU 1 idles */
	sw(2 * US, 0, 7, "a", S_DISK, 0, "swapper/0");	/* 7 blocks on CPU 0 */
	sw(90 * US, 1, 0, "swapper/1", 0, 7, "a");	/* runs as CPU 1 leaves idle */
	ck_assert_uint_eq(an.counts.idle_woken, 1);
	ck_assert_uint_eq(an.counts.from_waking, 0);
	ck_assert_uint_eq(an.counts.unmeasured, 0);
	ck_assert_uint_eq(an.runq.groups.v[0]->h.count, 1);
	ck_assert_uint_eq(an.runq.groups.v[0]->h.sum_ns, 0);
	/* CPU 0 went idle after 7 blocked: someone else ran there, not measured */
	sw(100 * US, 1, 7, "a", S_DISK, 5, "w");
	sw(110 * US, 0, 0, "swapper/0", 0, 9, "b");
	sw(120 * US, 0, 9, "b", S_SLEEP, 0, "swapper/0");
	sw(200 * US, 0, 0, "swapper/0", 0, 7, "a");
	ck_assert_uint_eq(an.counts.idle_woken, 1);
	/* and w's, switched in at 100 by a busy CPU with no waking seen */
	ck_assert_uint_eq(an.counts.unmeasured, 2);
	out = print(FMT_BCC);
	ck_assert_ptr_nonnull(strstr(out, "# 1 run-queue wait woken in an idle CPU's interrupt"));
	free(out);
	out = print(FMT_JSON);
	ck_assert_ptr_nonnull(strstr(out, "\"onto_idle\":0,\"woken_in_idle\":1"));
	free(out);
	stop();
}
END_TEST

/* --by cgroup: 7 in cgroup 2 (/ci), 8 and 9 in 3 (a docker container) */
static int fake_cgroup_of(int32_t tid, void *arg)
{
	(void)arg;
	return tid == 7 ? 2 : tid == 8 || tid == 9 ? 3 : 0;
}

static void fake_cgroup_names(int id, const char **label, const char **path, void *arg)
{
	(void)arg;
	*label = id == 2 ? "/ci" : id == 3 ? "0123456789ab" : "(unknown)";
	*path = id == 2 ? "/ci" : id == 3 ? "/docker/0123456789abcdef" : NULL;
}

static void by_cgroup(void)
{
	an.cfg.cgroup_of = fake_cgroup_of;
	an.cfg.cgroup_names = fake_cgroup_names;
}

START_TEST(test_by_cgroup)
{
	static const uint64_t ks[] = { 1, 2 };	/* __schedule, from pipe_read */
	struct sched_event st = { .cpu = 0, .type = SEV_KSTACK, .stack = ks, .stack_depth = 2 };
	char *out;

	start("runq", "--by cgroup");
	ck_assert_int_eq(o.key, KEY_CGROUP);
	by_cgroup();
	wakeup(10 * US, 0, 7, "a");
	wakeup(10 * US, 0, 8, "b");
	wakeup(10 * US, 0, 9, "c");
	sw(20 * US, 0, 0, "swapper/0", 0, 7, "a");	/* 7 waited 10 us */
	sw(50 * US, 0, 7, "a", S_SLEEP, 8, "b");	/* 8: 40 */
	sw(60 * US, 0, 8, "b", S_SLEEP, 9, "c");	/* 9: 50 */
	ck_assert_uint_eq(an.runq.groups.n, 2);
	out = print(FMT_BCC);
	ck_assert_ptr_nonnull(strstr(out, "\ncgroup = 0123456789ab\n"));
	ck_assert_ptr_nonnull(strstr(out, "\ncgroup = /ci\n"));
	free(out);
	out = print(FMT_JSON);
	ck_assert_ptr_nonnull(strstr(out, "{\"cgroup\":\"0123456789ab\",\"cgroup_path\":"
					  "\"/docker/0123456789abcdef\",\"count\":2,\"sum\":90,"));
	ck_assert_ptr_nonnull(strstr(out, "{\"cgroup\":\"/ci\",\"cgroup_path\":\"/ci\",\"count\":1,"));
	free(out);
	out = print(FMT_OPENMETRICS);
	ck_assert_ptr_nonnull(strstr(out, "offcpu_ftrace_runq_latency_seconds_count{command=\"runq\","
					  "cgroup=\"0123456789ab\"} 2\n"));
	free(out);
	stop();
	/* offcpu -K -f: a stack line begins with the cgroup, then the thread */
	start("offcpu", "-K -f --by cgroup");
	by_cgroup();
	sw(1 * US, 0, 0, "swapper/0", 0, 8, "b");
	sw(10 * US, 0, 8, "b", S_SLEEP, 0, "swapper/0");
	st.ts = 10 * US;
	st.pid = st.common_pid = 8;
	analyzer_feed(&an, &st);
	wakeup(30 * US, 0, 8, "b");
	sw(40 * US, 0, 0, "swapper/0", 0, 8, "b");
	out = print_sym(FMT_BCC);
	ck_assert_str_eq(out, "0123456789ab;b;pipe_read;__schedule 30\n");
	free(out);
	out = print_sym(FMT_JSON);
	ck_assert_ptr_nonnull(strstr(out, "{\"cgroup\":\"0123456789ab\",\"cgroup_path\":"
					  "\"/docker/0123456789abcdef\",\"tid\":8,\"comm\":\"b\","));
	free(out);
	stop();
}
END_TEST

/* an on-CPU sample of @tid (process @tgid) on @cpu at @ts, standing for @period ns */
static void sample(uint64_t ts, int cpu, int tid, int tgid, uint64_t period,
		   const uint64_t *kframes, uint32_t kdepth)
{
	struct sched_event e = { .ts = ts, .cpu = cpu, .type = SEV_SAMPLE, .pid = tid,
				 .next_pid = tgid, .common_pid = tid, .period = period,
				 .stack = kframes, .stack_depth = kdepth };

	analyzer_feed(&an, &e);
}

/*
 * A window of 1000 us on CPU 0: 7 runs 100, blocks 200 (S), waits 100
 * for the CPU, runs 200 and blocks to the end (400, S: no wakeup); 8 is
 * off (state unknown) until it runs at 100 for 300, is preempted and
 * waits 200, and runs the last 400. Every microsecond of each is one kind.
 */
static void profile_schedule(bool samples)
{
	/* in __schedule, from pipe_write: a sample's frames are all kept */
	static const uint64_t ks[] = { 1, 4 };

	sw(B, 0, 0, "swapper/0", 0, 7, "a");
	if (samples)
		sample(B + 50 * US, 0, 7, 7, 50 * US, ks, 2);
	sw(B + 100 * US, 0, 7, "a", S_SLEEP, 8, "b");
	wakeup(B + 300 * US, 0, 7, "a");
	if (samples)
		sample(B + 350 * US, 0, 8, 7, 300 * US, NULL, 0);
	sw(B + 400 * US, 0, 8, "b", PREEMPT, 7, "a");
	sw(B + 600 * US, 0, 7, "a", S_SLEEP, 8, "b");
	/* the window's last event: an unrelated wakeup at its end */
	wakeup(B + 1000 * US, 1, 30, "x");
}

START_TEST(test_profile_accounts)
{
	char *out;

	start("profile", "");
	ck_assert_str_eq(o.an->name, "profile");
	ck_assert(o.an->flags & AN_F_SAMPLES);
	ck_assert_uint_eq(an_events(&o) & (1u << SEV_SAMPLE), 1u << SEV_SAMPLE);
	profile_schedule(false);
	out = print_iv(FMT_JSON, B, B + 1000 * US, 2);
	ck_assert_ptr_nonnull(strstr(out, "\"profile\":{\"hz\":99,\"sampled\":false,"
					  "\"source\":\"switches\",\"threads\":["));
	ck_assert_ptr_nonnull(strstr(out, "{\"tid\":7,\"pid\":-1,\"comm\":\"a\",\"wall_ns\":1000000,"
					  "\"on_cpu_ns\":300000,\"on_cpu_sampled_ns\":0,\"samples\":0,"
					  "\"runq_ns\":100000,\"off_cpu_ns\":600000,"
					  "\"off_cpu_s_ns\":600000,\"off_cpu_d_ns\":0,"
					  "\"off_cpu_other_ns\":0,\"children_ns\":0,"
					  "\"unplaced_ns\":0}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"tid\":8,\"pid\":-1,\"comm\":\"b\",\"wall_ns\":1000000,"
					  "\"on_cpu_ns\":700000,\"on_cpu_sampled_ns\":0,\"samples\":0,"
					  "\"runq_ns\":200000,\"off_cpu_ns\":100000,"
					  "\"off_cpu_s_ns\":0,\"off_cpu_d_ns\":0,"
					  "\"off_cpu_other_ns\":100000,\"children_ns\":0,"
					  "\"unplaced_ns\":0}"));
	/* the totals: the rows added up, each kind's share of their wall time */
	ck_assert_ptr_nonnull(strstr(out, "],\"totals\":{\"rows\":2,\"threads\":2,"
					  "\"wall_ns\":2000000,\"on_cpu_ns\":1000000,"
					  "\"on_cpu_sampled_ns\":0,\"samples\":0,\"runq_ns\":300000,"
					  "\"off_cpu_ns\":700000,\"off_cpu_s_ns\":600000,"
					  "\"off_cpu_d_ns\":0,\"off_cpu_other_ns\":100000,"
					  "\"children_ns\":0,\"unplaced_ns\":0,\"share\":{"
					  "\"on_cpu\":0.5000,\"runq\":0.1500,\"off_cpu_s\":0.3000,"
					  "\"off_cpu_d\":0.0000,\"off_cpu_other\":0.0500,"
					  "\"children\":0.0000,\"unplaced\":0.0000}}"));
	/* not read (a report): null, in the envelope's window only */
	ck_assert_ptr_nonnull(strstr(out, ",\"stopped_by\":null,\"steal_ns\":null}"));
	ck_assert_ptr_null(strstr(strstr(out, "\"steal_ns\":") + 1, "\"steal_ns\":"));
	free(out);
	/* a live run's steal: in JSON, and a trailer line saying what it does */
	view_steal_ns = 90000000;
	out = print_iv(FMT_JSON, B, B + 1000 * US, 2);
	ck_assert_ptr_nonnull(strstr(out, ",\"stopped_by\":null,\"steal_ns\":90000000}"));
	free(out);
	out = print_iv(FMT_BCC, B, B + 1000 * US, 2);
	ck_assert_msg(strstr(out, "\n# the hypervisor took 90 ms from the CPUs in the window (steal, "
				  "all CPUs added): an on-CPU slice timed between switches holds "
				  "what it took while the thread ran;"), "%s", out);
	/* said once */
	ck_assert_msg(!strstr(strstr(out, "# the hypervisor took") + 21, "hypervisor took"), "%s",
		      out);
	free(out);
	view_steal_ns = 0;
	stop();
	/* the table: the totals first, then the rows and their sum */
	start("profile", "");
	profile_schedule(false);
	out = print_iv(FMT_BCC, B, B + 1000 * US, 2);
	ck_assert_msg(strstr(out, "All 2 threads: 2.0 ms of thread time (their lives in the 1.0 ms "
				  "window, added)\n"
				  "  on a CPU                     1.0 ms   50.0%\n"
				  "  waiting for a CPU            0.3 ms   15.0%\n"
				  "  blocked (S)                  0.6 ms   30.0%\n"
				  "  blocked (D)                  0.0 ms    0.0%\n"
				  "  blocked (other)              0.1 ms    5.0%\n"
				  "  waiting for children         0.0 ms    0.0%\n\n"), "%s", out);
	ck_assert_msg(strstr(out, "\n     all 2 threads               2.0        1.0        0.3"
				  "        0.6        0.0        0.1        0.0        0\n"), "%s", out);
	free(out);
	stop();
	/* -f: one line per kind, a tower per name (-L: per thread), microseconds */
	start("profile", "-f");
	profile_schedule(false);
	out = print_iv(FMT_BCC, B, B + 1000 * US, 2);
	ck_assert_ptr_nonnull(strstr(out, "b;[on-cpu, no samples] 700\n"));
	ck_assert_ptr_nonnull(strstr(out, "a;[off-cpu S] 600\n"));
	free(out);
	stop();
	start("profile", "-f -L");
	profile_schedule(false);
	out = print_iv(FMT_BCC, B, B + 1000 * US, 2);
	ck_assert_ptr_nonnull(strstr(out, "b-8;[on-cpu, no samples] 700\n"));
	ck_assert_ptr_nonnull(strstr(out, "a-7;[off-cpu S] 600\n"));
	ck_assert_ptr_nonnull(strstr(out, "a-7;[on-cpu, no samples] 300\n"));
	ck_assert_ptr_nonnull(strstr(out, "b-8;[runq] 200\n"));
	ck_assert_ptr_nonnull(strstr(out, "a-7;[runq] 100\n"));
	ck_assert_ptr_nonnull(strstr(out, "b-8;[off-cpu] 100\n"));
	free(out);
	stop();
}
END_TEST

/* runq --slower --by cgroup: the waiting thread's cgroup on each line, a histogram per cgroup */
START_TEST(test_slower_by_cgroup)
{
	char *out;

	start("runq", "--slower 100 --by cgroup");
	ck_assert_str_eq(o.an->name, "slower");
	by_cgroup();
	sw(1, 0, 0, "swapper/0", 0, 5, "hog");
	wakeup(100 * US, 0, 8, "b");			/* 8 (the container) waits 300 us */
	sw(400 * US, 0, 5, "hog", S_SLEEP, 8, "b");
	/* JSON (it keeps the waits for the interval), then the text */
	out = print(FMT_JSON);
	ck_assert_ptr_nonnull(strstr(out, "\"prev_comm\":\"hog\",\"cgroup\":\"0123456789ab\","
					  "\"cgroup_path\":\"/docker/0123456789abcdef\""));
	ck_assert_ptr_nonnull(strstr(out, "\"groups\":[{\"cgroup\":\"0123456789ab\""));
	free(out);
	out = print(FMT_BCC);
	ck_assert_ptr_nonnull(strstr(out, "TIME     COMM             TID           LAT(us) CGROUP\n"
					  "   0.000 b                8                 300 "
					  "0123456789ab\n"));
	free(out);
	stop();
	/* -P too (either order): runqslower -P's columns, then the cgroup */
	start("runq", "--by cgroup --slower 100 -P");
	ck_assert_int_eq(o.key, KEY_CGROUP);
	by_cgroup();
	sw(1, 0, 0, "swapper/0", 0, 5, "hog");
	wakeup(100 * US, 0, 8, "b");
	sw(400 * US, 0, 5, "hog", S_SLEEP, 8, "b");
	out = print(FMT_BCC);
	ck_assert_ptr_nonnull(strstr(out, "TIME     COMM             TID           LAT(us) PREV COMM"
					  "        PREV TID CGROUP\n   0.000 b                8      "
					  "           300 hog              5      0123456789ab\n"));
	free(out);
	stop();
}
END_TEST

/* offcpu --wakers --by cgroup: the target's cgroup on each entry */
START_TEST(test_wakers_by_cgroup)
{
	char *out;

	start("offcpu", "--wakers --by cgroup");
	ck_assert_str_eq(o.an->name, "wakers");
	by_cgroup();
	reader_woken(false);
	out = print_sym(FMT_JSON);
	ck_assert_ptr_nonnull(strstr(out, "\"total_ns\":20000,\"cgroup\":\"/ci\","
					  "\"cgroup_path\":\"/ci\"}"));
	free(out);
	out = print_sym(FMT_BCC);
	ck_assert_ptr_nonnull(strstr(out, "      COUNT      TOTAL(us) CGROUP\n"
					  "writer                  9 reader                  7"
					  "          1             20 /ci\n"));
	free(out);
	stop();
	start("offcpu", "-K --wakers -f --by cgroup");
	by_cgroup();
	reader_woken(true);
	out = print_sym(FMT_BCC);
	ck_assert_str_eq(out, "/ci;reader;pipe_read;__schedule;--;pipe_write;writer 40\n");
	free(out);
	stop();
}
END_TEST

/* triage --by cgroup: each cgroup's time and its own verdict */
START_TEST(test_triage_by_cgroup)
{
	char *out;

	start("triage", "--by cgroup");
	ck_assert_int_eq(o.key, KEY_CGROUP);
	by_cgroup();
	wakeup(10 * US, 0, 7, "a");
	sw(110 * US, 0, 0, "swapper/0", 0, 7, "a");	/* 7 (/ci) waited 100 us */
	sw(310 * US, 0, 7, "a", S_DISK, 8, "b");	/* ran 200, blocks in D */
	wakeup(910 * US, 1, 7, "a");			/* blocked 600 */
	sw(1000 * US, 0, 8, "b", PREEMPT, 7, "a");	/* waited 90; 8 ran 690 */
	sw(1010 * US, 0, 7, "a", S_SLEEP, 8, "b");	/* ran 10; 8 waited 10 */
	out = print_iv(FMT_JSON, 0, 1010 * US, 1);
	ck_assert_ptr_nonnull(strstr(out, "\"cgroups\":[{\"cgroup\":\"/ci\",\"path\":\"/ci\","
					  "\"time_ns\":{\"running\":210000,\"waiting\":190000,"
					  "\"blocked\":600000},"));
	ck_assert_ptr_nonnull(strstr(out, "\"blocked_ns\":{\"uninterruptible\":600000,"
					  "\"asleep\":0,\"parents_waiting\":0},\"runq\":{\"count\":2,"));
	ck_assert_ptr_nonnull(strstr(out, "{\"cgroup\":\"0123456789ab\",\"path\":"
					  "\"/docker/0123456789abcdef\",\"time_ns\":{\"running\":690000,"
					  "\"waiting\":10000,\"blocked\":0}"));
	ck_assert_ptr_nonnull(strstr(out, "\"verdict\":{\"kind\":\"cpu_contention\""));
	ck_assert_ptr_nonnull(strstr(out, "\"verdict\":{\"kind\":\"on_cpu\""));
	free(out);
	out = print_iv(FMT_BCC, 0, 1010 * US, 1);
	ck_assert_ptr_nonnull(strstr(out, "\nby cgroup:                 running  waiting  blocked"));
	ck_assert_ptr_nonnull(strstr(out, "\n/ci                            21%      19%      60%"));
	ck_assert_ptr_nonnull(strstr(out, "\n0123456789ab                   99%       1%       0%"));
	free(out);
	out = print_iv(FMT_OPENMETRICS, 0, 1010 * US, 1);
	ck_assert_ptr_nonnull(strstr(out, "offcpu_ftrace_verdict{command=\"triage\",cgroup=\"/ci\","
					  "kind=\"cpu_contention\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(out, "offcpu_ftrace_time_share{command=\"triage\","
					  "cgroup=\"0123456789ab\",state=\"running\"} 0.9857\n"));
	free(out);
	/* in a 1 s window, 1 ms of thread time is under the 10 ms a verdict needs */
	out = print(FMT_JSON);
	ck_assert_ptr_nonnull(strstr(out, "\"verdict\":{\"kind\":\"idle\",\"why\":\"its threads "
					  "were in the window 1.000 ms in all, under the 10 ms"));
	ck_assert_ptr_null(strstr(out, "\"verdict\":{\"kind\":\"on_cpu\""));
	free(out);
	stop();
	/* --top 1: the rest is "other", with its own verdict */
	start("triage", "--by cgroup --top 1");
	by_cgroup();
	wakeup(10 * US, 0, 7, "a");
	sw(110 * US, 0, 0, "swapper/0", 0, 7, "a");
	sw(310 * US, 0, 7, "a", S_DISK, 8, "b");
	sw(1000 * US, 0, 8, "b", S_SLEEP, 0, "swapper/0");
	out = print(FMT_BCC);
	ck_assert_ptr_nonnull(strstr(out, "\n0123456789ab "));
	ck_assert_ptr_nonnull(strstr(out, "\nother "));
	ck_assert_ptr_null(strstr(out, "\n/ci "));
	free(out);
	stop();
}
END_TEST

/* --by cgroup: a row per cgroup, the folded lines begin with its name */
START_TEST(test_profile_by_cgroup)
{
	char *out;

	start("profile", "--by cgroup");
	ck_assert_int_eq(o.key, KEY_CGROUP);
	by_cgroup();
	profile_schedule(false);
	out = print_iv(FMT_JSON, B, B + 1000 * US, 2);
	ck_assert_ptr_nonnull(strstr(out, "\"cgroups\":[{\"cgroup\":\"0123456789ab\",\"path\":"
					  "\"/docker/0123456789abcdef\",\"threads\":1,"
					  "\"wall_ns\":1000000,\"on_cpu_ns\":700000,"));
	ck_assert_ptr_nonnull(strstr(out, "{\"cgroup\":\"/ci\",\"path\":\"/ci\",\"threads\":1,"
					  "\"wall_ns\":1000000,\"on_cpu_ns\":300000,"));
	free(out);
	out = print_iv(FMT_BCC, B, B + 1000 * US, 2);
	ck_assert_ptr_nonnull(strstr(out, "CGROUP                    THREADS   WALL(ms)"));
	ck_assert_ptr_nonnull(strstr(out, "\n0123456789ab                    1        1.0        0.7"));
	ck_assert_ptr_nonnull(strstr(out, "\n/ci                             1        1.0        0.3"));
	ck_assert_ptr_nonnull(strstr(out, "# --by cgroup: a cgroup's wall time"));
	free(out);
	stop();
	start("profile", "-f --by cgroup");
	by_cgroup();
	profile_schedule(false);
	out = print_iv(FMT_BCC, B, B + 1000 * US, 2);
	ck_assert_ptr_nonnull(strstr(out, "0123456789ab;b;[on-cpu, no samples] 700\n"));
	ck_assert_ptr_nonnull(strstr(out, "/ci;a;[off-cpu S] 600\n"));
	free(out);
	stop();
}
END_TEST

/*
 * a switch-out the trace lost: the thread ran to its CPU's last event at
 * least, then was off (state unknown), never on CPU to the window's end
 */
START_TEST(test_profile_lost_switch)
{
	struct sched_event e = { .ts = B + 900 * US, .cpu = 0, .pid = 30, .comm = "x",
				 .common_pid = 9, .type = SEV_WAKEUP };
	char *out;

	start("profile", "");
	sw(B, 0, 0, "swapper/0", 0, 7, "a");
	wakeup(B + 100 * US, 0, 8, "b");	/* 7 wakes 8 */
	analyzer_feed(&an, &e);			/* 9 runs: 7's switch-out lost */
	ck_assert_uint_eq(an.counts.missed_switch, 1);
	wakeup(B + 1000 * US, 1, 31, "y");
	out = print_iv(FMT_JSON, B, B + 1000 * US, 2);
	ck_assert_ptr_nonnull(strstr(out, "{\"tid\":7,\"pid\":-1,\"comm\":\"[unknown]\",\"wall_ns\":1000000,"
					  "\"on_cpu_ns\":100000,"));
	ck_assert_ptr_nonnull(strstr(out, "\"off_cpu_other_ns\":900000,\"children_ns\":0,"
					  "\"unplaced_ns\":0}"));
	free(out);
	stop();
}
END_TEST

/* samples: on-CPU time by stack, weighted by period; -P adds up a process's threads */
START_TEST(test_profile_samples)
{
	char *out;

	start("profile", "-f");
	profile_schedule(true);
	out = print_sym(FMT_BCC);
	ck_assert_ptr_nonnull(strstr(out, "a;pipe_write;__schedule;[on-cpu] 50\n"));
	ck_assert_ptr_nonnull(strstr(out, "b;[on-cpu] 300\n"));
	ck_assert_ptr_null(strstr(out, "no samples"));
	free(out);
	stop();
	start("profile", "-P");
	profile_schedule(true);
	out = print_iv(FMT_JSON, B, B + 1000 * US, 2);
	ck_assert_ptr_nonnull(strstr(out, "\"source\":\"samples\",\"processes\":[{\"pid\":7,"
					  "\"threads\":2,\"comm\":\"a\",\"wall_ns\":2000000,"
					  "\"on_cpu_ns\":1000000,\"on_cpu_sampled_ns\":350000,"
					  "\"samples\":2,\"runq_ns\":300000,"));
	free(out);
	out = print_iv(FMT_BCC, B, B + 1000 * US, 2);
	ck_assert_ptr_nonnull(strstr(out, "     PID COMM "));
	ck_assert_ptr_nonnull(strstr(out, "# on-CPU samples weighted by their period: 0.3 ms "
					  "against 1.0 ms from the switches"));
	free(out);
	stop();
}
END_TEST

/* the proc backend's totals: per thread, as schedstat and the sampled states say */
START_TEST(test_profile_totals)
{
	struct an_thread t = { .tid = 7, .comm = "a", .runq_n = 3, .runq_ns = 100 * US,
			       .off_n = 4, .off_ns = 700 * US, .blk_n = 2, .blk_ns = 600 * US,
			       .oncpu_ns = 300 * US, .blk = { .s_ns = 450 * US, .d_ns = 150 * US } };
	char *out;

	start("profile", "");
	analyzer_add_thread(&an, &t);
	out = print_iv(FMT_JSON, B, B + 1000 * US, 2);
	ck_assert_ptr_nonnull(strstr(out, "\"source\":\"proc\""));
	ck_assert_ptr_nonnull(strstr(out, "{\"tid\":7,\"pid\":-1,\"comm\":\"a\",\"wall_ns\":1000000,"
					  "\"on_cpu_ns\":300000,\"on_cpu_sampled_ns\":0,\"samples\":0,"
					  "\"runq_ns\":100000,\"off_cpu_ns\":600000,"
					  "\"off_cpu_s_ns\":450000,\"off_cpu_d_ns\":150000,"));
	free(out);
	out = print_iv(FMT_BCC, B, B + 1000 * US, 2);
	ck_assert_ptr_nonnull(strstr(out, "Profiling wall-clock time from /proc"));
	free(out);
	stop();
}
END_TEST

/* A kernel's captured pages, both CPUs merged in time order, into the analyzer */
static void feed_kernel(const char *k, const struct sched_layout *l)
{
	struct page_cursor c[2];
	char *raw[2];
	size_t len[2], off[2] = { 0, 0 };
	int cpu;

	for (cpu = 0; cpu < 2; cpu++) {
		raw[cpu] = fixture_read(fixture_path("kernels/%s/raw/cpu%d.trace_pipe_raw", k, cpu),
					&len[cpu]);
		ck_assert_int_eq(page_cursor_init(&c[cpu], l), 0);
		ck_assert_int_eq(page_cursor_load(&c[cpu], l, raw[cpu], l->page_size), 0);
		off[cpu] = l->page_size;
	}
	for (;;) {
		struct sched_event ev;
		int pick = -1;

		for (cpu = 0; cpu < 2; cpu++) {
			while (!c[cpu].rec && off[cpu] < len[cpu]) {
				ck_assert_int_eq(page_cursor_load(&c[cpu], l, raw[cpu] + off[cpu],
								  l->page_size), 0);
				off[cpu] += l->page_size;
			}
			if (c[cpu].rec && (pick < 0 || c[cpu].ts < c[pick].ts))
				pick = cpu;
		}
		if (pick < 0)
			break;
		if (decode_record(l, c[pick].rec, page_cursor_size(&c[pick]), c[pick].ts, pick, &ev))
			analyzer_feed(&an, &ev);
		page_cursor_next(&c[pick]);
	}
	for (cpu = 0; cpu < 2; cpu++) {
		page_cursor_fini(&c[cpu]);
		free(raw[cpu]);
	}
}

/*
 * Every analysis over the pages captured from 5.10, 6.1, 6.12 and 6.18:
 * runq --slower 0 lists exactly the waits of 1 us or more that runq's
 * histogram counts; oncpu's slices on a CPU never add up to more than
 * the capture; runqlen's queue integral is at least the waits measured
 * (a wait is time on a queue); wakers credit only intervals that ended.
 */
START_TEST(test_kernel_pages)
{
	const char *k = fixture_kernels[_i];
	struct sched_layout l;
	char *out;
	uint64_t waits, first = 0, last = 0;

	ck_assert_int_eq(fixture_layout(&l, k), 0);
	/* slower against the histogram of the same run */
	start("runq", "--slower 0");
	an.cfg.states = l.states;
	feed_kernel(k, &l);
	out = print(FMT_JSON);
	waits = an.runq.groups.n ? an.runq.groups.v[0]->h.count : 0;
	ck_assert_ptr_nonnull(strstr(out, "\"slower_us\":0,"));
	{
		const char *p = strstr(out, "\"waits_over\":");
		uint64_t over = p ? strtoull(p + 13, NULL, 10) : 0;
		uint64_t sub_us = an.runq.groups.n ? an.runq.groups.v[0]->h.slot[0] : 0;

		ck_assert_uint_gt(waits, 10);
		ck_assert_uint_eq(over + sub_us, waits);
	}
	free(out);
	stop();
	/* oncpu: no CPU has more slices than time */
	start("oncpu", "-C");
	an.cfg.states = l.states;
	feed_kernel(k, &l);
	{
		uint32_t i;

		for (i = 0; i < an.on.groups.n; i++)
			ck_assert_uint_le(an.on.groups.v[i]->h.sum_ns, an.last_ts);
		ck_assert_uint_gt(an.on.groups.n, 0);
	}
	out = print(FMT_BCC);
	ck_assert_ptr_nonnull(strstr(out, "Tracing on-CPU time... Hit Ctrl-C to end.\n"));
	free(out);
	stop();
	/* runqlen over the whole capture */
	start("runqlen", "-C");
	an.cfg.states = l.states;
	feed_kernel(k, &l);
	first = 1;
	last = an.last_ts;
	out = print_iv(FMT_JSON, first, last, 2);
	ck_assert_ptr_nonnull(strstr(out, "\"command\":\"runqlen\""));
	ck_assert_ptr_nonnull(strstr(out, "{\"cpu\":1,"));
	free(out);
	stop();
	/*
	 * profile: no thread has more time than its life in the capture, and
	 * where the trace lost nothing of it, every nanosecond is one kind
	 */
	start("profile", "");
	an.cfg.states = l.states;
	feed_kernel(k, &l);
	out = print(FMT_JSON);
	{
		const char *p = out;
		unsigned n = 0, exact = 0;
		unsigned long long w, on, sns, smp, rq, off;

		while ((p = strstr(p, "\"wall_ns\":"))) {
			ck_assert_int_eq(sscanf(p, "\"wall_ns\":%llu,\"on_cpu_ns\":%llu,"
						"\"on_cpu_sampled_ns\":%llu,\"samples\":%llu,"
						"\"runq_ns\":%llu,\"off_cpu_ns\":%llu", &w, &on, &sns,
						&smp, &rq, &off), 6);
			ck_assert_uint_le(on + rq + off, w);
			exact += on + rq + off == w;
			n++;
			p++;
		}
		ck_assert_uint_gt(n, 2);
		/* 6.18 loses the switches from idle: visibly partial there */
		if (an.counts.missed_switch) {
			ck_assert_uint_lt(exact, n);
			ck_assert_ptr_nonnull(strstr(out, "\"partial\":true"));
			ck_assert_ptr_nonnull(strstr(out, "\"unplaced_threads\":"));
		} else {
			ck_assert_uint_eq(exact, n);
		}
	}
	free(out);
	stop();
	/* wakers: each entry's time within the capture */
	start("offcpu", "--wakers");
	an.cfg.states = l.states;
	feed_kernel(k, &l);
	out = print_sym(FMT_JSON);
	ck_assert_ptr_nonnull(strstr(out, "\"wakers\":{\"mode\":\"wakeuptime\""));
	free(out);
	stop();
	fmt_fini(&l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analyses");
	TCase *tc = tcase_create("analyses");

	tcase_add_test(tc, test_slower_threshold_and_layout);
	tcase_add_test(tc, test_slower_ran_instead);
	tcase_add_test(tc, test_slower_ran_instead_hole);
	tcase_add_test(tc, test_slower_options);
	tcase_add_test(tc, test_oncpu_slices);
	tcase_add_test(tc, test_by_cgroup);
	tcase_add_test(tc, test_runq_onto_idle);
	tcase_add_test(tc, test_runq_woken_in_idle);
	tcase_add_test(tc, test_runq_onto_idle_selected);
	tcase_add_test(tc, test_profile_accounts);
	tcase_add_test(tc, test_steal_every_report);
	tcase_add_test(tc, test_impossible_is_partial);
	tcase_add_test(tc, test_profile_samples);
	tcase_add_test(tc, test_profile_by_cgroup);
	tcase_add_test(tc, test_triage_by_cgroup);
	tcase_add_test(tc, test_slower_by_cgroup);
	tcase_add_test(tc, test_wakers_by_cgroup);
	tcase_add_test(tc, test_profile_lost_switch);
	tcase_add_test(tc, test_profile_totals);
	tcase_add_test(tc, test_oncpu_off);
	tcase_add_test(tc, test_runqlen_time_weighted);
	tcase_add_test(tc, test_lost_per_cpu_footer);
	tcase_add_test(tc, test_runqlen_bcc_and_occupancy);
	tcase_add_test(tc, test_runqlen_unclaimed_bounds);
	tcase_add_test(tc, test_runqlen_unclaimed_no_event);
	tcase_add_test(tc, test_triage_unclaimed_bounds);
	tcase_add_test(tc, test_wakers_wakeuptime);
	tcase_add_test(tc, test_wakers_offwaketime);
	tcase_add_loop_test(tc, test_kernel_pages, 0, 4);
	suite_add_tcase(s, tc);
	return check_run(s);
}
