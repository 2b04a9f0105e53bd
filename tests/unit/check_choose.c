// SPDX-License-Identifier: GPL-2.0-or-later
/* The backend rule: capabilities in, a backend and a reason out. */
#include <check.h>
#include <string.h>

#include "choose.h"
#include "fixture.h"

/* a root shell on a kernel with tracefs but no hist triggers (the 6.18 host) */
static struct host_caps base(void)
{
	struct host_caps c;

	memset(&c, 0, sizeof(c));
	c.tfs_found = c.tfs_writable = true;
	strcpy(c.tfs_dir, "/sys/kernel/tracing");
	c.ev_switch = c.ev_wakeup = true;
	c.perf_allowed = true;
	strcpy(c.perf_why, "CAP_PERFMON held");
	c.proc_ok = true;
	return c;
}

START_TEST(test_auto_order)
{
	struct host_caps c = base();
	struct choice ch;

	/* no hist, no drops: ring */
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_RING);
	ck_assert_int_eq(ch.reason, CHOSEN_RING);
	ck_assert_int_eq(ch.hist_refused, HIST_CAN);
	ck_assert(strstr(ch.why, "no hist triggers"));
	/* hist triggers with .buckets: the kernel aggregates */
	c.hist = c.synth = c.buckets = true;
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_HIST);
	ck_assert_int_eq(ch.reason, CHOSEN_HIST);
	/* a command hist cannot run: ring, and the refusal is kept (a note) */
	backend_choose(&c, "auto", HIST_NO_TRIAGE, &ch);
	ck_assert_int_eq(ch.kind, BK_RING);
	ck_assert_int_eq(ch.hist_refused, HIST_NO_TRIAGE);
	ck_assert(strstr(ch.why, hist_refusal_text(HIST_NO_TRIAGE)));
	/* offcpu -K: hist where synthetic events carry stacks */
	backend_choose(&c, "auto", HIST_NO_KSTACK, &ch);
	ck_assert_int_eq(ch.kind, BK_RING);
	c.synth_stack = true;
	backend_choose(&c, "auto", HIST_NO_KSTACK, &ch);
	ck_assert_int_eq(ch.kind, BK_HIST);
	/* 5.10: hist triggers without .buckets cannot key the result */
	c.buckets = false;
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_RING);
	ck_assert_int_eq(ch.hist_refused, HIST_CAN);
}
END_TEST

/* profile samples on-CPU stacks: auto takes perf wherever perf can run */
START_TEST(test_sampling)
{
	struct host_caps c = base();
	struct choice ch;

	backend_choose_sampling(&c, "auto", HIST_NO_EVENTS, &ch);
	ck_assert_int_eq(ch.kind, BK_PERF);
	ck_assert_int_eq(ch.reason, CHOSEN_SAMPLES);
	ck_assert(strstr(ch.why, "sampled with perf events"));
	/* asked for ring: ring, without samples */
	backend_choose_sampling(&c, "ring", HIST_NO_EVENTS, &ch);
	ck_assert_int_eq(ch.kind, BK_RING);
	ck_assert_int_eq(ch.reason, CHOSEN_ASKED);
	/* no perf permission: ring, as for any analysis */
	c.perf_allowed = false;
	strcpy(c.perf_why, "perf_event_paranoid=2 and no CAP_PERFMON");
	backend_choose_sampling(&c, "auto", HIST_NO_EVENTS, &ch);
	ck_assert_int_eq(ch.kind, BK_RING);
	ck_assert_int_eq(ch.reason, CHOSEN_RING);
	/* nothing traces: proc, as backend_choose says */
	c.tfs_writable = false;
	backend_choose_sampling(&c, "auto", HIST_NO_EVENTS, &ch);
	ck_assert_int_eq(ch.kind, BK_PROC);
}
END_TEST

START_TEST(test_drops)
{
	struct host_caps c = base();
	struct choice ch;

	ck_assert(choose_needs_drop_probe(&c, "auto"));
	ck_assert(!choose_needs_drop_probe(&c, "ring"));
	c.drops = DROPS_SEEN;
	strcpy(c.drop_cpus, "1");
	c.drop_switches = 30;
	c.drop_recorded = 24;
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_PERF);
	ck_assert_int_eq(ch.reason, CHOSEN_DROPS);
	ck_assert(strstr(ch.why, "CPU 1 (probe: 24 of 30"));
	/* also over hist: its triggers see the same lost hits */
	c.hist = c.synth = c.buckets = true;
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_PERF);
	/* asked for ring: ring, whatever the probe said */
	backend_choose(&c, "ring", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_RING);
	ck_assert_int_eq(ch.reason, CHOSEN_ASKED);
	/* no perf permission: ring (the run reports what it misses) */
	c.perf_allowed = false;
	ck_assert(!choose_needs_drop_probe(&c, "auto"));
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_HIST);
	c.drops = DROPS_NONE;
	c.perf_allowed = true;
	c.hist = false;
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_RING);
	/* a busy host: the probe could not tell, perf is exact either way */
	c.drops = DROPS_BUSY;
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_PERF);
	ck_assert_int_eq(ch.reason, CHOSEN_DROPS);
	ck_assert_msg(strstr(ch.why, "not known (a CPU did not idle during the probe: a busy "
				    "host)"), "%s", ch.why);
	/* ... but where the kernel aggregates, that: its cost is the lowest */
	c.hist = true;
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_HIST);
	/* ... and without perf, the ring */
	c.hist = false;
	c.perf_allowed = false;
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_RING);
}
END_TEST

START_TEST(test_fallbacks)
{
	struct host_caps c = base();
	struct choice ch;

	/* tracefs read-only (or not root): perf, with a reason to note */
	c.tfs_writable = false;
	c.tfs_not_root = true;
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_PERF);
	ck_assert_int_eq(ch.reason, CHOSEN_PERF);
	ck_assert(strstr(ch.why, "not writable (not root)"));
	/* nothing traces: /proc sampling */
	c.perf_allowed = false;
	strcpy(c.perf_why, "perf_event_paranoid is 2: need CAP_PERFMON");
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_PROC);
	ck_assert_int_eq(ch.reason, CHOSEN_PROC);
	ck_assert(strstr(ch.why, "perf_event_paranoid is 2"));
	/* --tracefs DIR asks for tracing: never /proc instead */
	c.tfs_asked = true;
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_NONE);
	c.tfs_asked = false;
	/* and without /proc's schedstat: nothing, every reason in one line */
	c.proc_ok = false;
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_NONE);
	ck_assert_int_eq(ch.reason, CHOSEN_NONE);
	ck_assert(strstr(ch.why, "ring: ") && strstr(ch.why, "perf: "));
	ck_assert_ptr_null(strchr(ch.why, '\n'));
	ck_assert_ptr_null(backend_ops_of(ch.kind));
}
END_TEST

START_TEST(test_asked)
{
	struct host_caps c = base();
	struct choice ch;

	backend_choose(&c, "hist", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_NONE);
	ck_assert_int_eq(ch.reason, CHOSEN_REFUSED);
	ck_assert(strstr(ch.why, "the hist backend cannot run: this kernel has no hist triggers"));
	c.hist = c.synth = true;
	backend_choose(&c, "hist", HIST_CAN, &ch);
	ck_assert(strstr(ch.why, ".buckets"));
	c.buckets = true;
	backend_choose(&c, "hist", HIST_NO_COMMAND, &ch);
	ck_assert(strstr(ch.why, "-- COMMAND follows forks"));
	backend_choose(&c, "hist", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_HIST);
	c.perf_allowed = false;
	backend_choose(&c, "perf", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_NONE);
	ck_assert(strstr(ch.why, "the perf backend cannot run"));
	backend_choose(&c, "file", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_FILE);
	ck_assert_ptr_nonnull(backend_ops_of(BK_FILE));
	ck_assert_str_eq(backend_ops_of(BK_RING)->name, "ring");
	ck_assert_str_eq(backend_ops_of(BK_PERF)->name, "perf");
}
END_TEST

/* as nobody: perf's permission and tracefs' mode, both in one message */
START_TEST(test_every_missing_piece)
{
	struct host_caps c = base();
	struct choice ch;

	c.tfs_found = c.tfs_writable = false;
	c.ev_switch = c.ev_wakeup = false;
	c.tfs_not_root = true;
	strcpy(c.tfs_why, "cannot read tracefs at /sys/kernel/tracing (permission denied): "
	       "run as root");
	c.perf_allowed = false;
	strcpy(c.perf_why, "perf_event_paranoid=2 and no CAP_PERFMON: run as root or grant "
	       "CAP_PERFMON (or sysctl kernel.perf_event_paranoid=-1)");
	backend_choose(&c, "perf", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_NONE);
	ck_assert_msg(strstr(ch.why, "perf_event_paranoid=2") &&
		      strstr(ch.why, "CAP_DAC_READ_SEARCH"), "%s", ch.why);
	/* the sysctl alone is not enough: the formats are still named */
	c.perf_allowed = true;
	backend_choose(&c, "perf", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_NONE);
	ck_assert_msg(strstr(ch.why, "not readable (mode 0700)") &&
		      !strstr(ch.why, "paranoid"), "%s", ch.why);
	/* auto falls back to /proc and says both too */
	c.perf_allowed = false;
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_PROC);
	ck_assert_msg(strstr(ch.why, "perf_event_paranoid=2") &&
		      strstr(ch.why, "CAP_DAC_READ_SEARCH"), "%s", ch.why);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("choose");
	TCase *tc = tcase_create("choose");

	tcase_add_test(tc, test_auto_order);
	tcase_add_test(tc, test_drops);
	tcase_add_test(tc, test_sampling);
	tcase_add_test(tc, test_fallbacks);
	tcase_add_test(tc, test_asked);
	tcase_add_test(tc, test_every_missing_piece);
	suite_add_tcase(s, tc);
	return check_run(s);
}
