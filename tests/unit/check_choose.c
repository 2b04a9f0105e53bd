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
	/*
	 * run-queue waits alone (runq's histograms, sized from schedstat):
	 * perf cannot make them exact here either, the ring is cheaper
	 */
	{
		struct choose_req rq = { .want = "auto", .no_hist = HIST_CAN, .sized = true };

		c.proc_ok = true;
		backend_choose_req(&c, &rq, &ch);
		ck_assert_int_eq(ch.kind, BK_RING);
		ck_assert_int_eq(ch.reason, CHOSEN_SIZED);
		ck_assert_msg(strstr(ch.why, "sized from the threads' schedstat"), "%s", ch.why);
		/* ... not where schedstat cannot be read, nor in a foreign pid namespace */
		c.proc_ok = false;
		backend_choose_req(&c, &rq, &ch);
		ck_assert_int_eq(ch.kind, BK_PERF);
		c.proc_ok = true;
		c.pidns_foreign = 1;
		backend_choose_req(&c, &rq, &ch);
		ck_assert_int_ne(ch.reason, CHOSEN_SIZED);
		c.pidns_foreign = 0;
		/* ... and on a host that loses nothing, the usual rule */
		c.drops = DROPS_NONE;
		backend_choose_req(&c, &rq, &ch);
		ck_assert_int_eq(ch.reason, CHOSEN_RING);
		c.drops = DROPS_SEEN;
	}
	/* known from earlier this boot: says what saw it */
	c.drops_from = DROPS_FROM_STATE;
	strcpy(c.drops_seen, "seen this boot by a run at 2026-12-04 16:01:01: runq on the ring");
	backend_choose(&c, "auto", HIST_CAN, &ch);
	ck_assert_int_eq(ch.kind, BK_PERF);
	ck_assert_int_eq(ch.reason, CHOSEN_DROPS);
	ck_assert_msg(strstr(ch.why, "idle CPUs (seen this boot by a run at"), "%s", ch.why);
	c.drops_from = DROPS_FROM_PROBE;
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

/* root in a default container: no tracefs (the mount refused), perf refused, /proc readable */
static struct host_caps container_default(void)
{
	struct host_caps c = base();

	c.tfs_found = c.tfs_writable = false;
	c.ev_switch = c.ev_wakeup = false;
	strcpy(c.tfs_why, "tracefs is not mounted and cannot be mounted here (mount at "
	       "/sys/kernel/tracing: Operation not permitted: no CAP_SYS_ADMIN, as in a "
	       "container; mount it on the host and bind it in, or run the container with "
	       "--privileged)");
	c.perf_allowed = c.perf_records = false;
	strcpy(c.perf_why, "perf_event_paranoid=2 and no CAP_PERFMON: run as root or grant "
	       "CAP_PERFMON (or sysctl kernel.perf_event_paranoid=-1)");
	c.pidns_foreign = 1;
	c.container = true;
	return c;
}

static struct choose_req req_of(const char *want, const char *no_records, bool pid_keyed)
{
	struct choose_req r = { .want = want, .no_hist = HIST_CAN, .no_records = no_records,
				.pid_keyed = pid_keyed };

	return r;
}

/* root is a set of rights: each container configuration gets what it can */
START_TEST(test_container_rights)
{
	struct host_caps c = container_default();
	struct choose_req r = req_of("auto", NULL, false);
	struct choice ch;

	/* default: proc, and the line naming what would trace */
	backend_choose_req(&c, &r, &ch);
	ck_assert_int_eq(ch.kind, BK_PROC);
	ck_assert_msg(strstr(ch.better, "--privileged"), "%s", ch.better);
	/* --backend=proc never needs tracefs */
	r.want = "proc";
	backend_choose_req(&c, &r, &ch);
	ck_assert_int_eq(ch.kind, BK_PROC);
	/* --cap-add=PERFMON under a seccomp profile that refuses perf_event_open */
	c.perf_refused = true;
	strcpy(c.perf_why, "perf_event_open of a CPU-wide event refused: Operation not "
	       "permitted although CAP_PERFMON held: a seccomp profile refuses it");
	r.want = "auto";
	backend_choose_req(&c, &r, &ch);
	ck_assert_int_eq(ch.kind, BK_PROC);
	/* tracefs comes first in the advice; the seccomp advice once tracefs is there */
	ck_assert_msg(strstr(ch.better, "tracefs"), "%s", ch.better);
	/* ... and with seccomp=unconfined: perf's records alone, by this namespace's pids */
	c.perf_refused = false;
	c.perf_records = true;
	strcpy(c.perf_why, "CAP_PERFMON held");
	backend_choose_req(&c, &r, &ch);
	ck_assert_int_eq(ch.kind, BK_PERF);
	ck_assert(ch.switches_only);
	ck_assert_int_eq(ch.reason, CHOSEN_RECORDS);
	/* a request the records cannot serve (offcpu -K): proc, saying why */
	r.no_records = "stacks are taken at the sched_switch tracepoint";
	backend_choose_req(&c, &r, &ch);
	ck_assert_int_eq(ch.kind, BK_PROC);
	ck_assert_msg(strstr(ch.why, "stacks are taken"), "%s", ch.why);
	/* asked for perf: its records, or why not */
	r.want = "perf";
	backend_choose_req(&c, &r, &ch);
	ck_assert_int_eq(ch.kind, BK_NONE);
	ck_assert_msg(strstr(ch.why, "records alone cannot serve it") &&
		      strstr(ch.why, "stacks"), "%s", ch.why);
	r.no_records = NULL;
	backend_choose_req(&c, &r, &ch);
	ck_assert_int_eq(ch.kind, BK_PERF);
	ck_assert(ch.switches_only);
}
END_TEST

/* --privileged: tracefs and perf, but the tracepoints carry the host's pids */
START_TEST(test_pidns)
{
	struct host_caps c = base();
	struct choose_req r = req_of("auto", NULL, true);
	struct choice ch;

	c.pidns_foreign = 1;
	c.container = true;
	c.perf_records = true;
	/* -p, -t, -- COMMAND: perf's records name this namespace's threads */
	backend_choose_req(&c, &r, &ch);
	ck_assert_int_eq(ch.kind, BK_PERF);
	ck_assert(ch.switches_only);
	ck_assert_int_eq(ch.reason, CHOSEN_PIDNS);
	ck_assert_msg(strstr(ch.better, "--pid=host"), "%s", ch.better);
	/* a whole-host histogram names no thread: the tracepoints serve it */
	r.pid_keyed = false;
	backend_choose_req(&c, &r, &ch);
	ck_assert_int_eq(ch.kind, BK_RING);
	ck_assert(!ch.switches_only);
	/* the ring asked for with a thread filter: refused, saying what to do */
	r.pid_keyed = true;
	r.want = "ring";
	backend_choose_req(&c, &r, &ch);
	ck_assert_int_eq(ch.kind, BK_NONE);
	ck_assert_msg(strstr(ch.why, "--pid=host") && strstr(ch.why, "host's pids"), "%s", ch.why);
	/* what the records cannot serve goes to proc (names by this namespace's pids) */
	r.want = "auto";
	r.no_records = "queue lengths need the wakeups";
	backend_choose_req(&c, &r, &ch);
	ck_assert_int_eq(ch.kind, BK_PROC);
	/* ... unless it needs single events: refused in one line */
	r.traced = true;
	backend_choose_req(&c, &r, &ch);
	ck_assert_int_eq(ch.kind, BK_NONE);
	ck_assert_msg(strstr(ch.why, "--pid=host") && strstr(ch.why, "wakeups"), "%s", ch.why);
	/* the kernel's own pid namespace: as ever */
	c.pidns_foreign = 0;
	r.traced = false;
	backend_choose_req(&c, &r, &ch);
	ck_assert_int_eq(ch.kind, BK_RING);
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
	tcase_add_test(tc, test_container_rights);
	tcase_add_test(tc, test_pidns);
	suite_add_tcase(s, tc);
	return check_run(s);
}
