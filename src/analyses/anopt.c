// SPDX-License-Identifier: GPL-2.0-or-later
/* The analyses' option rows: their setter, the tables several share, and their rules. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "anopt.h"
#include "numparse.h"

const char *anopt_pick(const struct an_option *opt, const char *arg, const char *const *names,
		       int *out, char *buf, size_t len)
{
	char list[160] = "";
	int i;

	for (i = 0; names[i]; i++) {
		if (!strcmp(arg, names[i])) {
			*out = i;
			return NULL;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? ", " : "", names[i]);
	}
	snprintf(buf, len, "--%s: '%s' is not one of %s", opt->name, arg, list);
	return buf;
}

const char *anopt_number(const struct an_option *opt, const char *arg, unsigned long long lo,
			 unsigned long long hi, const char *what, unsigned long long *v,
			 char *buf, size_t len)
{
	uint64_t u;

	if (!parse_u64(arg, lo, hi, &u)) {
		*v = u;
		return NULL;
	}
	if (opt->name)
		snprintf(buf, len, "--%s: '%s' is not %s", opt->name, arg, what);
	else
		snprintf(buf, len, "-%c: '%s' is not %s", opt->letter, arg, what);
	return buf;
}

const char *anopt_ranged(const struct an_option *opt, const char *arg,
			 const struct anopt_range *r, size_t n, unsigned long long *v,
			 char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < n && r[i].id != opt->id; i++)
		;
	if (i == n)
		return "internal: an option without a range";
	return anopt_number(opt, arg, r[i].lo, r[i].hi, r[i].what, v, buf, len);
}

/* --state: letters the kernel prints for prev_state, comma-separated */
static bool state_ok(const char *s)
{
	const char *p;

	if (!*s)
		return false;
	for (p = s; *p; p++) {
		if (*p == ',' && p != s && p[1] && p[1] != ',')
			continue;
		if (!strchr("RSDTtXZPIKWN", *p))
			return false;
	}
	return true;
}

/* -P, -L, -C, --by: one key, or -P with --by cgroup for --slower's two columns */
static const char *set_key(struct trace_opts *o, const struct an_option *opt, const char *arg,
			   char *buf, size_t len)
{
	static const char *const names[] = { "pid", "tid", "cpu", "comm", "cgroup", NULL };
	static const enum an_key keys[] = { KEY_PID, KEY_TID, KEY_CPU, KEY_COMM, KEY_CGROUP };
	enum an_key k = opt->id == ANO_PIDS ? KEY_PID : opt->id == ANO_TIDS ? KEY_TID : KEY_CPU;
	const char *bad;
	int i;

	if (opt->id == ANO_BY) {
		if ((bad = anopt_pick(opt, arg, names, &i, buf, len)))
			return bad;
		k = keys[i];
	}
	if ((o->key == KEY_PID && k == KEY_CGROUP) || (o->key == KEY_CGROUP && k == KEY_PID)) {
		/* runq --slower -P --by cgroup: each wait's PREV and CGROUP
		 * columns (runq's check refuses the pair without --slower) */
		o->key = KEY_CGROUP;
		o->prev_too = true;
		return NULL;
	}
	if (o->key != KEY_NONE && o->key != k) {
		snprintf(buf, len, "-P, -L, -C and --by exclude each other (%s given too)",
			 opt->id == ANO_BY ? "--by" : opt->id == ANO_PIDS ? "-P" :
			 opt->id == ANO_TIDS ? "-L" : "-C");
		return buf;
	}
	o->key = k;
	return NULL;
}

/* Numbers: the range, the unit in the error, and where it goes. */
static const char *set_number(struct trace_opts *o, const struct an_option *opt,
			      const char *arg, char *buf, size_t len)
{
	static const struct anopt_range r[] = {
		{ ANO_MAX_GROUPS, 1, 1u << 24, "a count (1..16777216)" },
		{ ANO_MIN, 0, UINT64_MAX / 1000, "a number of microseconds" },
		{ ANO_MAX, 0, UINT64_MAX / 1000, "a number of microseconds" },
		{ ANO_STACK_DEPTH, 1, STACK_MAX_DEPTH, "a count (1..127)" },
		{ ANO_TOP, 1, 1u << 24, "a count (1..16777216)" },
		{ ANO_MAX_STACKS, 1, 1u << 24, "a count (1..16777216)" },
		{ ANO_FREQUENCY, 1, 10000, "a rate in samples per second (1..10000)" },
		{ ANO_CGROUP_DEPTH, 1, 64, "a depth in path components (1..64)" },
		{ ANO_RUNQ_OVER, 1, 3600000000, "a number of microseconds (1..3600000000)" },
		{ ANO_OFFCPU_OVER, 1, 3600000000, "a number of microseconds (1..3600000000)" },
		{ ANO_MAX_FILES, 1, 100000, "a count of files (1..100000)" },
	};
	unsigned long long v;
	const char *bad;

	if ((bad = anopt_ranged(opt, arg, r, sizeof(r) / sizeof(r[0]), &v, buf, len)))
		return bad;
	switch (opt->id) {
	case ANO_MAX_GROUPS: o->max_groups = (uint32_t)v; break;
	case ANO_MIN: o->min_us = v; break;
	case ANO_MAX: o->max_us = v; break;
	case ANO_STACK_DEPTH: o->stack_depth = (uint32_t)v; break;
	case ANO_TOP: o->top = (uint32_t)v; break;
	case ANO_MAX_STACKS: o->max_stacks = (uint32_t)v; break;
	case ANO_FREQUENCY: o->rate_hz = (unsigned)v; break;
	case ANO_CGROUP_DEPTH: o->cgroup_depth = (unsigned)v; break;
	case ANO_RUNQ_OVER: o->flight.runq_over_ns = v * 1000; break;
	case ANO_OFFCPU_OVER: o->flight.offcpu_over_ns = v * 1000; break;
	case ANO_MAX_FILES: o->flight.max_files = (unsigned)v; break;
	}
	return NULL;
}

/* The rows that take a value of some other shape. */
static const char *set_other(struct trace_opts *o, const struct an_option *opt,
			     const char *arg, char *buf, size_t len)
{
	static const char *const compat[] = { "bcc", "bpftrace", "perf", "libbpf-tools", NULL };
	static const enum an_compat compat_v[] = { COMPAT_BCC, COMPAT_BPFTRACE, COMPAT_PERF,
						   COMPAT_LIBBPF };
	const char *bad;
	int i;

	switch (opt->id) {
	case ANO_COMPAT:
		if ((bad = anopt_pick(opt, arg, compat, &i, buf, len)))
			return bad;
		o->compat = compat_v[i];
		o->compat_given = true;
		return NULL;
	case ANO_STATE:
		if (!state_ok(arg)) {
			snprintf(buf, len, "--state: '%s' is not a list of state letters such as "
				 "S, D or S,D", arg);
			return buf;
		}
		o->state = arg;
		return NULL;
	case ANO_CGROUP_CONTROLLER:
		o->cgroup_controller = arg;
		return NULL;
	case ANO_WAKERS:
		if (arg && strcmp(arg, "wakeup"))
			return "--wakers: the only mode is --wakers=wakeup (wakeuptime's time and "
			       "waker stack)";
		o->wakers = true;
		o->wakeup_only = arg != NULL;
		return NULL;
	case ANO_FLIGHT:
	case ANO_AFTER: {
		uint64_t ns = 0;

		/* seconds (units s, m allowed), at most an hour */
		if ((opt->id == ANO_AFTER && !strcmp(arg, "0")) ||
		    (!parse_duration(arg, &ns) && ns <= 3600ULL * 1000000000)) {
			if (opt->id == ANO_FLIGHT) {
				o->flight.keep_ns = ns;
			} else {
				o->flight.after_ns = ns;
				o->flight.after_given = true;
			}
			return NULL;
		}
		snprintf(buf, len, "--%s: '%s' is not a %snumber of seconds up to 3600 (units s, m "
			 "allowed)", opt->name, arg, opt->id == ANO_FLIGHT ? "positive " : "");
		return buf;
	}
	case ANO_RECORD_FILE:
		if (!*arg)
			return "-o needs a file name";
		o->record_path = arg;
		return NULL;
	case ANO_INTERVAL:
		if (parse_duration(arg, &o->duration_ns)) {
			snprintf(buf, len, "-i: '%s' is not a positive number of seconds", arg);
			return buf;
		}
		o->interval_mode = true;
		o->count = UINT64_MAX;
		return NULL;
	}
	return "internal: an option without a setter";
}

const char *anopt_apply(struct trace_opts *o, const struct an_option *opt, const char *arg,
			char *buf, size_t len)
{
	switch (opt->id) {
	case ANO_PIDS:
	case ANO_TIDS:
	case ANO_CPUS:
	case ANO_BY:
		return set_key(o, opt, arg, buf, len);
	case ANO_MSECS: o->msecs = true; return NULL;
	case ANO_TIMESTAMP: o->timestamp = true; return NULL;
	case ANO_XVAL: o->xval = true; return NULL;
	case ANO_KSTACK: o->kstack = true; return NULL;
	case ANO_USTACK: o->ustack = true; return NULL;
	case ANO_FOLDED: o->folded = true; return NULL;
	case ANO_DELIMITED: o->delimited = true; return NULL;
	case ANO_LATE_STACKS: o->late_stacks = true; return NULL;
	case ANO_KEEP_GOING: o->flight.keep_going = true; return NULL;
	case ANO_FLIGHT:
	case ANO_AFTER:
	case ANO_RECORD_FILE:
	case ANO_COMPAT:
	case ANO_STATE:
	case ANO_CGROUP_CONTROLLER:
	case ANO_WAKERS:
	case ANO_INTERVAL:
		return set_other(o, opt, arg, buf, len);
	}
	return set_number(o, opt, arg, buf, len);
}

#define A required_argument
#define N no_argument
#define ROW(name, letter, has, id, argname, help) { name, letter, has, id, anopt_apply, argname, help, 0 }

const struct an_option anopt_keys_threads[] = {
	ROW("pids", 'P', N, ANO_PIDS, NULL, "one histogram per process (largest total first)"),
	ROW("tids", 'L', N, ANO_TIDS, NULL, "one histogram per thread"),
	AN_OPT_END,
};

const struct an_option anopt_keys_cpus[] = {
	ROW("cpus", 'C', N, ANO_CPUS, NULL, "one histogram per CPU (where the interval ended)"),
	AN_OPT_END,
};

const struct an_option anopt_units[] = {
	ROW("milliseconds", 'm', N, ANO_MSECS, NULL,
	    "histogram in milliseconds (default microseconds)"),
	ROW("max-groups", 0, A, ANO_MAX_GROUPS, "N", "histograms with -P/-L/-C (default 4096)"),
	AN_OPT_END,
};

const struct an_option anopt_intervals[] = {
	ROW("timestamp", 'T', N, ANO_TIMESTAMP, NULL, "print the time before each interval's output"),
	ROW("interval", 'i', A, ANO_INTERVAL, "SECS", "print every SECS seconds (COUNT times, or until\n"
	    "Ctrl-C or the COMMAND ends)"),
	AN_OPT_END,
};

const struct an_option anopt_by[] = {
	ROW("by", 0, A, ANO_BY, "KEY", "per pid, tid, cpu (as -P, -L, -C), comm (per thread\n"
	    "name: a build's processes rolled up by tool) or\n"
	    "cgroup (per container: its id, or the cgroup's path)"),
	ROW("cgroup-depth", 0, A, ANO_CGROUP_DEPTH, "N", "--by cgroup: cgroups below depth N added to their\n"
	    "ancestor at N (a systemd slice tree stays readable)"),
	ROW("cgroup-controller", 0, A, ANO_CGROUP_CONTROLLER, "NAME", "--by cgroup: the v1 hierarchy of controller\n"
	    "NAME (default cpu; v2 has one tree)"),
	ROW("top", 0, A, ANO_TOP, "N", "only the N histograms with the most time (with\n"
	    "-K/-U: the N stacks); the rest summed in one line"),
	AN_OPT_END,
};

const struct an_option anopt_stacks_fold[] = {
	ROW("folded", 'f', N, ANO_FOLDED, NULL, "folded stacks for flame graphs (with -K/-U)"),
	ROW("stack-depth", 0, A, ANO_STACK_DEPTH, "N", "print at most N frames per stack (default 127)"),
	ROW("max-stacks", 0, A, ANO_MAX_STACKS, "N", "distinct stacks and stack totals kept (65536)"),
	AN_OPT_END,
};

const struct an_option anopt_xval[] = {
	ROW("xval", 0, N, ANO_XVAL, NULL, "run the equivalent bpftrace program over the same\n"
	    "window and compare its histogram with ours"),
	AN_OPT_END,
};

const struct an_option anopt_flight[] = {
	ROW("flight", 0, A, ANO_FLIGHT, "SECS", "with --record: keep only the last SECS in memory and\n"
	    "save them when --runq-over US, --offcpu-over US or\n"
	    "SIGUSR1 fires (offcpu-ftrace-record(8), FLIGHT RECORDER)"),
	ROW("runq-over", 0, A, ANO_RUNQ_OVER, "US", "--flight's trigger: a run-queue wait longer than US"),
	ROW("offcpu-over", 0, A, ANO_OFFCPU_OVER, "US", "--flight's trigger: an off-CPU interval longer\n"
	    "than US"),
	ROW("after", 0, A, ANO_AFTER, "SECS", "--flight: keep recording this long after the trigger\n"
	    "(default 1)"),
	ROW("max-files", 0, A, ANO_MAX_FILES, "N", "--flight: FILE, then FILE.2 ... FILE.N (default 1)"),
	ROW("keep-going", 0, N, ANO_KEEP_GOING, NULL, "--flight: after the last file trace on, counting\n"
	    "triggers"),
	AN_OPT_END,
};

const char *anopt_check_shared(const struct trace_opts *o)
{
	if (o->prev_too && !(o->an->flags & AN_F_BOTH_KEYS))
		return "-P, -L, -C and --by exclude each other (-P with --by cgroup is for "
		       "--slower: both columns)";
	if ((o->folded || o->delimited) && !o->kstack && !o->ustack)
		return "-f and -d need stacks: add -K and/or -U";
	if (o->top && !o->kstack && !o->ustack && o->key == KEY_NONE)
		return "--top ranks stacks (-K, -U) or histograms (-P, -L, -C, --by): add one";
	if (o->xval && (o->pid >= 0 || o->key == KEY_PID || o->key == KEY_COMM ||
			o->key == KEY_CGROUP || o->kstack || o->ustack))
		return "--xval supports -t, -c, -L, -C and -m; not -p, -P, --by comm or cgroup, or "
		       "stacks";
	if ((o->cgroup_depth || o->cgroup_controller) && o->key != KEY_CGROUP)
		return "--cgroup-depth and --cgroup-controller go with --by cgroup";
	if (o->folded && o->fmt == FMT_JSON)
		return "-f and --format=json exclude each other";
	if (o->fmt == FMT_SVG && (o->folded || o->xval))
		return "--format=svg draws the picture itself: no -f or --xval";
	if (o->fmt == FMT_SVG && (o->kstack || o->ustack) && o->interval_mode)
		return "a flame graph is one window: no -i (with -i, histograms make a heat map)";
	if (o->msecs && o->fmt == FMT_OPENMETRICS)
		return "-m: OpenMetrics values are seconds, in fixed buckets from 1 us: -m does not "
		       "apply";
	return NULL;
}

const char *anopt_check_offcpu(const struct trace_opts *o)
{
	if (o->min_us > o->max_us)
		return "--min is larger than --max";
	if (o->late_stacks && !o->kstack)
		return "--late-stacks is how -K stacks are taken: add -K";
	if (o->late_stacks && o->ustack)
		return "--late-stacks reads kernel stacks from /proc; user stacks (-U) are taken "
		       "at the switch-out: drop one of them";
	if (o->late_stacks && o->min_us < LATE_STACKS_MIN_US)
		return "--late-stacks needs --min of at least 1000 (microseconds): a shorter "
		       "block ends before its stack can be read";
	if (o->late_stacks && o->record_path)
		return "--record keeps the events and their stacks: --late-stacks takes none "
		       "from the trace";
	return NULL;
}
