// SPDX-License-Identifier: GPL-2.0-or-later
/* Options of the tracing commands: one table, parsed strictly. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cli.h"
#include "numparse.h"
#include "tmount.h"

bool cli_quiet;

void err_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("offcpu-ftrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void note_msg(const char *fmt, ...)
{
	va_list ap;

	if (cli_quiet)
		return;
	fputs("offcpu-ftrace: note: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

bool cli_tracefs_ready(const char *tracefs)
{
	char dir[4096], err[512];
	int ret = tmount_ensure(tracefs, dir, sizeof(dir), err, sizeof(err));

	if (ret < 0) {
		err_msg("%s", err);
		return false;
	}
	if (ret > 0)
		note_msg("tracefs was not mounted: mounted it at %s for this run "
			"(unmounted at exit)", dir);
	return true;
}

void cli_tracefs_done(void)
{
	const char *at = tmount_mounted();
	char dir[4096];
	int ret;

	if (!at)
		return;
	snprintf(dir, sizeof(dir), "%s", at);
	ret = tmount_release();
	if (ret == -EBUSY)
		note_msg("left tracefs mounted at %s: another process uses it now", dir);
	else if (ret)
		err_msg("cannot unmount tracefs at %s: %s", dir, strerror(-ret));
}

int cli_getopt(const char *cmd, int argc, char **argv, const char *so,
	       const struct option *lo, bool first)
{
	int c;

	if (first) {
		optind = 0;	/* glibc: full reset, also of its internal state */
		opterr = 0;
	}
	c = getopt_long(argc, argv, so, lo, NULL);
	if (c == ':') {
		usage_err(cmd, "%s needs a value", argv[optind - 1]);
		return CLI_OPT_BAD;
	}
	if (c == '?') {
		usage_err(cmd, "unknown option '%s'", argv[optind - 1]);
		return CLI_OPT_BAD;
	}
	return c;
}

void usage_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "offcpu-ftrace %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'offcpu-ftrace %s --help'.\n", cmd);
}

enum {
	OPT_FORMAT = 256,
	OPT_BACKEND,
	OPT_TRACEFS,
	OPT_BUFFER,
	OPT_MAX_TASKS,
	OPT_MAX_GROUPS,
	OPT_STATE,
	OPT_MIN,
	OPT_MAX,
	OPT_DRY_RUN,
	OPT_STRICT,
	OPT_CGROUP,
	OPT_TH_TAIL,
	OPT_TH_WAIT,
	OPT_TH_BLOCKED,
	OPT_TH_ONCPU,
	OPT_TH_THROTTLE,
	OPT_TH_DEMAND,
	OPT_TH_UNCLAIMED,
	OPT_COMPAT,
	OPT_XVAL,
	OPT_STACK_DEPTH,
	OPT_LATE_STACKS,
	OPT_TOP,
	OPT_BY,
	OPT_ALL,
	OPT_MAX_STACKS,
	OPT_RECORD,
	OPT_RATE,
	OPT_SLOWER,
	OPT_RAN_INSTEAD,
	OPT_OFFCPU,
	OPT_OCCUPANCY,
	OPT_WAKERS,
	OPT_CGROUP_DEPTH,
	OPT_CGROUP_CONTROLLER,
	OPT_FLIGHT,
	OPT_AFTER,
	OPT_RUNQ_OVER,
	OPT_OFFCPU_OVER,
	OPT_MAX_FILES,
	OPT_KEEP_GOING,
};

/* the analyses an option belongs to: their bits (enum an_bit) */
#define C_RUNQ ANB_RUNQ
#define C_OFFCPU ANB_OFFCPU
#define C_TRIAGE ANB_TRIAGE
#define C_RECORD ANB_RECORD
#define C_ONCPU ANB_ONCPU
#define C_RUNQLEN ANB_RUNQLEN
#define C_PROFILE ANB_PROFILE
/* the histogram analyses (runqlen and profile refuse what they have no use for) */
#define C_HISTS (C_RUNQ | C_OFFCPU | C_ONCPU | C_RUNQLEN | C_PROFILE)
#define C_TRACE ANB_TRACE
#define C_ALL ANB_ALL

struct optdef;
/* Apply one option; -1 to go on, else an exit status (the error printed). */
typedef int (*opt_set)(struct trace_opts *o, const struct optdef *d, const char *arg);

struct optdef {
	const char *name;	/* long name */
	int has_arg;
	int key;		/* short letter or OPT_* */
	unsigned cmds;		/* the analyses that take it (enum an_bit) */
	opt_set set;
	const char *owner;	/* "offcpu", "triage"...: whose option it is */
};

/* --state: letters the kernel prints for prev_state, comma-separated */
static int check_state(const char *s)
{
	const char *p;

	if (!*s)
		return -EINVAL;
	for (p = s; *p; p++) {
		if (*p == ',' && p != s && p[1] && p[1] != ',')
			continue;
		if (!strchr("RSDTtXZPIKWN", *p))
			return -EINVAL;
	}
	return 0;
}

static int set_flag(struct trace_opts *o, const struct optdef *d, const char *arg)
{
	(void)arg;
	switch (d->key) {
	case 'm': o->msecs = true; break;
	case 'T': o->timestamp = true; break;
	case 'K': o->kstack = true; break;
	case 'O':
	case OPT_OFFCPU:
	case OPT_OCCUPANCY: o->flag_O = true; break;
	case 'U': o->ustack = true; break;
	case 'f': o->folded = true; break;
	case 'd': o->delimited = true; break;
	case OPT_DRY_RUN: o->dry_run = true; break;
	case OPT_STRICT: o->strict = true; break;
	case OPT_XVAL: o->xval = true; break;
	case OPT_ALL: o->all = true; break;
	case OPT_LATE_STACKS: o->late_stacks = true; break;
	case OPT_RAN_INSTEAD: o->ran_instead = true; break;
	case OPT_KEEP_GOING: o->flight.keep_going = true; break;
	case 'q': o->quiet = cli_quiet = true; break;
	}
	return -1;
}

static int pick(struct trace_opts *o, const struct optdef *d, const char *arg,
		const char *const *names, int *out);

static int set_key(struct trace_opts *o, const struct optdef *d, const char *arg)
{
	static const char *const names[] = { "pid", "tid", "cpu", "comm", "cgroup", NULL };
	static const enum an_key keys[] = { KEY_PID, KEY_TID, KEY_CPU, KEY_COMM, KEY_CGROUP };
	enum an_key k = d->key == 'P' ? KEY_PID : d->key == 'L' ? KEY_TID : KEY_CPU;
	int i, ret;

	if (d->key == OPT_BY) {
		ret = pick(o, d, arg, names, &i);
		if (ret >= 0)
			return ret;
		k = keys[i];
	}
	if ((o->key == KEY_PID && k == KEY_CGROUP) || (o->key == KEY_CGROUP && k == KEY_PID)) {
		/* runq --slower -P --by cgroup: each wait's PREV and CGROUP
		 * columns (opts_check refuses the pair without --slower) */
		o->key = KEY_CGROUP;
		o->prev_too = true;
		return -1;
	}
	if (o->key != KEY_NONE && o->key != k) {
		usage_err(o->cmd, "-P, -L, -C and --by exclude each other (%s given too)",
			  d->key == OPT_BY ? "--by" : d->key == 'P' ? "-P" : d->key == 'L' ? "-L" : "-C");
		return EXIT_USAGE;
	}
	o->key = k;
	return -1;
}

static int set_pid(struct trace_opts *o, const struct optdef *d, const char *arg)
{
	if (parse_pid(arg, d->key == 'p' ? &o->pid : &o->tid)) {
		usage_err(o->cmd, "-%c: '%s' is not a process id (1..4194304)", d->key, arg);
		return EXIT_USAGE;
	}
	return -1;
}

static int set_comm(struct trace_opts *o, const struct optdef *d, const char *arg)
{
	(void)d;
	if (!*arg || strlen(arg) >= COMM_LEN) {
		usage_err(o->cmd, "-c: COMM must be 1 to %d bytes (the kernel truncates task "
			  "names to %d)", COMM_LEN - 1, COMM_LEN - 1);
		return EXIT_USAGE;
	}
	memcpy(o->comm, arg, strlen(arg));
	return -1;
}

/* --NAME VALUE among @names (NULL-terminated): its index, or usage error */
static int pick(struct trace_opts *o, const struct optdef *d, const char *arg,
		const char *const *names, int *out)
{
	char list[128] = "";
	int i;

	for (i = 0; names[i]; i++) {
		if (!strcmp(arg, names[i])) {
			*out = i;
			return -1;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? ", " : "", names[i]);
	}
	usage_err(o->cmd, "--%s: '%s' is not one of %s", d->name, arg, list);
	return EXIT_USAGE;
}

static int set_format(struct trace_opts *o, const struct optdef *d, const char *arg)
{
	static const char *const names[] = { "bcc", "bpftrace", "json", "openmetrics", "svg",
					     NULL };
	static const enum out_format fmts[] = { FMT_BCC, FMT_BPFTRACE, FMT_JSON, FMT_OPENMETRICS,
						FMT_SVG };
	int i, ret = pick(o, d, arg, names, &i);

	if (ret < 0)
		o->fmt = fmts[i];
	return ret;
}

static int set_backend(struct trace_opts *o, const struct optdef *d, const char *arg)
{
	static const char *const names[] = { "auto", "hist", "ring", "perf", "proc", NULL };
	int i, ret = pick(o, d, arg, names, &i);

	if (ret < 0)
		o->backend = names[i];
	return ret;
}

static int set_compat(struct trace_opts *o, const struct optdef *d, const char *arg)
{
	static const char *const names[] = { "bcc", "bpftrace", "perf", NULL };
	static const enum an_compat c[] = { COMPAT_BCC, COMPAT_BPFTRACE, COMPAT_PERF };
	int i, ret = pick(o, d, arg, names, &i);

	if (ret < 0) {
		o->compat = c[i];
		o->compat_given = true;
	}
	return ret;
}

static int set_string(struct trace_opts *o, const struct optdef *d, const char *arg)
{
	switch (d->key) {
	case OPT_TRACEFS: o->tracefs = arg; break;
	case OPT_CGROUP: o->cgroup = arg; break;
	case OPT_CGROUP_CONTROLLER: o->cgroup_controller = arg; break;
	case OPT_STATE:
		if (check_state(arg)) {
			usage_err(o->cmd, "--state: '%s' is not a list of state letters such as "
				  "S, D or S,D", arg);
			return EXIT_USAGE;
		}
		o->state = arg;
		break;
	case 'o':
	case OPT_RECORD:
		if (!*arg) {
			usage_err(o->cmd, "%s needs a file name", d->key == 'o' ? "-o" : "--record");
			return EXIT_USAGE;
		}
		/* record -o: the recording; elsewhere -o: where results go */
		if (d->key == 'o' && !o->record_only)
			o->output_path = arg;
		else
			o->record_path = arg;
		break;
	}
	return -1;
}

/* Numbers: the range, the unit in the error, and where it goes. */
static int set_number(struct trace_opts *o, const struct optdef *d, const char *arg)
{
	const struct {
		int key;
		uint64_t lo, hi;
		const char *what;
	} r[] = {
		{ OPT_BUFFER, 64, 1024 * 1024, "a size in KiB (64..1048576)" },
		{ OPT_MAX_TASKS, 1, 1u << 24, "a count (1..16777216)" },
		{ OPT_MAX_GROUPS, 1, 1u << 24, "a count (1..16777216)" },
		{ OPT_MIN, 0, UINT64_MAX / 1000, "a number of microseconds" },
		{ OPT_MAX, 0, UINT64_MAX / 1000, "a number of microseconds" },
		{ OPT_TH_TAIL, 1, 3600000, "a number of milliseconds" },
		{ OPT_TH_WAIT, 0, 100, "a percentage (0..100)" },
		{ OPT_TH_BLOCKED, 0, 100, "a percentage (0..100)" },
		{ OPT_TH_ONCPU, 0, 100, "a percentage (0..100)" },
		{ OPT_TH_THROTTLE, 0, 100, "a percentage (0..100)" },
		{ OPT_TH_DEMAND, 0, 100, "a percentage (0..100)" },
		{ OPT_TH_UNCLAIMED, 0, 100, "a percentage (0..100)" },
		{ OPT_STACK_DEPTH, 1, STACK_MAX_DEPTH, "a count (1..127)" },
		{ OPT_TOP, 1, 1u << 24, "a count (1..16777216)" },
		{ OPT_MAX_STACKS, 1, 1u << 24, "a count (1..16777216)" },
		{ OPT_RATE, 1, 1000, "a rate in samples per second (1..1000)" },
		{ 'F', 1, 10000, "a rate in samples per second (1..10000)" },
		{ OPT_SLOWER, 0, UINT64_MAX / 1000, "a number of microseconds" },
		{ OPT_CGROUP_DEPTH, 1, 64, "a depth in path components (1..64)" },
		{ OPT_RUNQ_OVER, 1, 3600000000, "a number of microseconds (1..3600000000)" },
		{ OPT_OFFCPU_OVER, 1, 3600000000, "a number of microseconds (1..3600000000)" },
		{ OPT_MAX_FILES, 1, 100000, "a count of files (1..100000)" },
	};
	unsigned i;
	uint64_t v;

	for (i = 0; r[i].key != d->key; i++)
		;
	if (parse_u64(arg, r[i].lo, r[i].hi, &v)) {
		usage_err(o->cmd, "--%s: '%s' is not %s", d->name, arg, r[i].what);
		return EXIT_USAGE;
	}
	switch (d->key) {
	case OPT_BUFFER: o->buffer_kb = (uint32_t)v; break;
	case OPT_MAX_TASKS: o->max_tasks = (uint32_t)v; break;
	case OPT_MAX_GROUPS: o->max_groups = (uint32_t)v; break;
	case OPT_MIN: o->min_us = v; break;
	case OPT_MAX: o->max_us = v; break;
	case OPT_TH_TAIL: o->th.runq_tail_us = v * 1000; break;
	case OPT_TH_WAIT: o->th.runq_share = (unsigned)v; break;
	case OPT_TH_BLOCKED: o->th.blocked_share = (unsigned)v; break;
	case OPT_TH_ONCPU: o->th.oncpu_share = (unsigned)v; break;
	case OPT_TH_THROTTLE: o->th.throttle_share = (unsigned)v; break;
	case OPT_TH_DEMAND: o->th.wait_demand = (unsigned)v; break;
	case OPT_TH_UNCLAIMED: o->th.unclaimed = (unsigned)v; break;
	case OPT_STACK_DEPTH: o->stack_depth = (uint32_t)v; break;
	case OPT_TOP: o->top = (uint32_t)v; break;
	case OPT_MAX_STACKS: o->max_stacks = (uint32_t)v; break;
	case OPT_RATE: o->rate_hz = (unsigned)v; break;
	case 'F': o->rate_hz = (unsigned)v; break;
	case OPT_SLOWER: o->slower = true; o->slower_us = v; break;
	case OPT_CGROUP_DEPTH: o->cgroup_depth = (unsigned)v; break;
	case OPT_RUNQ_OVER: o->flight.runq_over_ns = v * 1000; break;
	case OPT_OFFCPU_OVER: o->flight.offcpu_over_ns = v * 1000; break;
	case OPT_MAX_FILES: o->flight.max_files = (unsigned)v; break;
	}
	return -1;
}

/* --flight SECS, --after SECS: seconds (units s, m allowed), at most an hour */
static int set_flight(struct trace_opts *o, const struct optdef *d, const char *arg)
{
	uint64_t ns = 0;

	if ((d->key == OPT_AFTER && !strcmp(arg, "0")) ||
	    (!parse_duration(arg, &ns) && ns <= 3600ULL * 1000000000)) {
		if (d->key == OPT_FLIGHT) {
			o->flight.keep_ns = ns;
		} else {
			o->flight.after_ns = ns;
			o->flight.after_given = true;
		}
		return -1;
	}
	usage_err(o->cmd, "--%s: '%s' is not a %snumber of seconds up to 3600 (units s, m "
		  "allowed)", d->name, arg, d->key == OPT_FLIGHT ? "positive " : "");
	return EXIT_USAGE;
}

/* --wakers, --wakers=wakeup */
static int set_wakers(struct trace_opts *o, const struct optdef *d, const char *arg)
{
	(void)d;
	if (arg && strcmp(arg, "wakeup")) {
		usage_err(o->cmd, "--wakers=%s: the only mode is --wakers=wakeup (wakeuptime's "
			  "time and waker stack)", arg);
		return EXIT_USAGE;
	}
	o->wakers = true;
	o->wakeup_only = arg != NULL;
	return -1;
}

static int set_interval(struct trace_opts *o, const struct optdef *d, const char *arg)
{
	(void)d;
	if (parse_duration(arg, &o->duration_ns)) {
		usage_err(o->cmd, "-i: '%s' is not a positive number of seconds", arg);
		return EXIT_USAGE;
	}
	o->interval_mode = true;
	o->count = UINT64_MAX;
	return -1;
}

#define A required_argument
#define N no_argument
static const struct optdef optdefs[] = {
	{ "pid", A, 'p', C_ALL, set_pid, NULL },
	{ "tid", A, 't', C_ALL, set_pid, NULL },
	{ "comm", A, 'c', C_TRACE, set_comm, NULL },
	{ "pids", N, 'P', C_HISTS, set_key, "runq, offcpu and oncpu" },
	{ "tids", N, 'L', C_HISTS, set_key, "runq, offcpu and oncpu" },
	{ "cpus", N, 'C', C_HISTS, set_key, "runq, offcpu and oncpu" },
	{ "milliseconds", N, 'm', C_HISTS, set_flag, "runq, offcpu and oncpu" },
	{ "timestamp", N, 'T', C_HISTS, set_flag, "runq, offcpu and oncpu" },
	{ "format", A, OPT_FORMAT, C_TRACE, set_format, NULL },
	{ "backend", A, OPT_BACKEND, C_ALL, set_backend, NULL },
	{ "tracefs", A, OPT_TRACEFS, C_ALL, set_string, NULL },
	{ "buffer-size", A, OPT_BUFFER, C_ALL, set_number, NULL },
	{ "max-tasks", A, OPT_MAX_TASKS, C_ALL, set_number, NULL },
	{ "max-groups", A, OPT_MAX_GROUPS, C_HISTS, set_number, "runq, offcpu and oncpu" },
	{ "state", A, OPT_STATE, C_OFFCPU | C_RECORD, set_string, "offcpu" },
	{ "min", A, OPT_MIN, C_OFFCPU, set_number, "offcpu" },
	{ "max", A, OPT_MAX, C_OFFCPU, set_number, "offcpu" },
	{ "dry-run", N, OPT_DRY_RUN, C_ALL, set_flag, NULL },
	{ "strict", N, OPT_STRICT, C_ALL, set_flag, NULL },
	{ "all", N, OPT_ALL, C_TRACE, set_flag, NULL },
	{ "quiet", N, 'q', C_ALL, set_flag, NULL },
	{ "cgroup", A, OPT_CGROUP, C_TRACE, set_string, NULL },
	{ "wait-p99", A, OPT_TH_TAIL, C_TRIAGE, set_number, "triage" },
	{ "wait-share", A, OPT_TH_WAIT, C_TRIAGE, set_number, "triage" },
	{ "blocked-share", A, OPT_TH_BLOCKED, C_TRIAGE, set_number, "triage" },
	{ "oncpu-share", A, OPT_TH_ONCPU, C_TRIAGE, set_number, "triage" },
	{ "throttle-share", A, OPT_TH_THROTTLE, C_TRIAGE, set_number, "triage" },
	{ "wait-demand", A, OPT_TH_DEMAND, C_TRIAGE, set_number, "triage" },
	{ "unclaimed-share", A, OPT_TH_UNCLAIMED, C_TRIAGE, set_number, "triage" },
	{ "interval", A, 'i', C_HISTS, set_interval, "runq, offcpu and oncpu" },
	{ "compat", A, OPT_COMPAT, C_RUNQ | C_RUNQLEN, set_compat, "runq and runqlen" },
	{ "xval", N, OPT_XVAL, C_RUNQ | C_OFFCPU, set_flag, "runq and offcpu" },
	{ "kernel-stacks", N, 'K', C_OFFCPU | C_RECORD, set_flag, "offcpu" },
	{ "user-stacks", N, 'U', C_OFFCPU | C_RECORD | C_PROFILE, set_flag, "offcpu and profile" },
	{ "folded", N, 'f', C_OFFCPU | C_PROFILE, set_flag, "offcpu and profile" },
	{ "delimited", N, 'd', C_OFFCPU, set_flag, "offcpu" },
	{ "stack-depth", A, OPT_STACK_DEPTH, C_OFFCPU | C_PROFILE, set_number, "offcpu and profile" },
	{ "late-stacks", N, OPT_LATE_STACKS, C_OFFCPU, set_flag, "offcpu" },
	{ "top", A, OPT_TOP, C_HISTS | C_TRIAGE, set_number,
	  "runq, offcpu, oncpu, profile and triage" },
	{ "by", A, OPT_BY, C_HISTS | C_TRIAGE, set_key, "runq, offcpu, oncpu, profile and triage" },
	{ "cgroup-depth", A, OPT_CGROUP_DEPTH, C_HISTS | C_TRIAGE, set_number,
	  "runq, offcpu, oncpu, profile and triage" },
	{ "cgroup-controller", A, OPT_CGROUP_CONTROLLER, C_HISTS | C_TRIAGE, set_string,
	  "runq, offcpu, oncpu, profile and triage" },
	{ "max-stacks", A, OPT_MAX_STACKS, C_OFFCPU | C_PROFILE, set_number, "offcpu and profile" },
	{ "record", A, OPT_RECORD, C_TRACE, set_string, NULL },
	{ "output", A, 'o', C_ALL, set_string, NULL },
	{ "rate", A, OPT_RATE, C_TRACE, set_number, NULL },
	{ "slower", A, OPT_SLOWER, C_RUNQ, set_number, "runq" },
	/* -O: cpudist's off-CPU time (oncpu), runqlen's occupancy (runqlen) */
	{ "", N, 'O', C_ONCPU | C_RUNQLEN, set_flag, "oncpu and runqlen" },
	{ "offcpu", N, OPT_OFFCPU, C_ONCPU, set_flag, "oncpu" },
	{ "occupancy", N, OPT_OCCUPANCY, C_RUNQLEN, set_flag, "runqlen" },
	{ "frequency", A, 'F', C_PROFILE, set_number, "profile" },
	{ "wakers", optional_argument, OPT_WAKERS, C_OFFCPU | C_RECORD, set_wakers, "offcpu" },
	{ "ran-instead", N, OPT_RAN_INSTEAD, C_RUNQ, set_flag, "runq" },
	/* the flight recorder: record, and --record of the tracing commands */
	{ "flight", A, OPT_FLIGHT, C_ALL, set_flight, NULL },
	{ "after", A, OPT_AFTER, C_ALL, set_flight, NULL },
	{ "runq-over", A, OPT_RUNQ_OVER, C_ALL, set_number, NULL },
	{ "offcpu-over", A, OPT_OFFCPU_OVER, C_ALL, set_number, NULL },
	{ "max-files", A, OPT_MAX_FILES, C_ALL, set_number, NULL },
	{ "keep-going", N, OPT_KEEP_GOING, C_ALL, set_flag, NULL },
};
#undef A
#undef N
#define NOPTS (sizeof(optdefs) / sizeof(optdefs[0]))

/* getopt_long's tables from optdefs[] (and -h), built once. */
static void build_getopt(struct option *lo, char *so)
{
	unsigned i, n = 0;

	*so++ = ':';
	for (i = 0; i < NOPTS; i++) {
		/* a name of "" is a short option only (-O: a letter two analyses share) */
		if (optdefs[i].name[0])
			lo[n++] = (struct option){ optdefs[i].name, optdefs[i].has_arg, NULL,
						   optdefs[i].key };
		if (optdefs[i].key < 256) {
			*so++ = (char)optdefs[i].key;
			if (optdefs[i].has_arg)
				*so++ = ':';
		}
	}
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	*so++ = 'h';
	*so = '\0';
}

/* An option given to a command it does not belong to. */
static int not_here(const struct trace_opts *o, const struct optdef *d, const char *given)
{
	if ((o->an->flags & AN_F_RECORD_ONLY) && d->key == OPT_BY)
		usage_err(o->cmd, "--by is an option of the analysis: give it to 'offcpu-ftrace "
			  "report' (a file that keeps each thread's cgroup for report --by cgroup is "
			  "made live: 'offcpu-ftrace runq --by cgroup --record FILE')");
	else if ((o->an->flags & AN_F_RECORD_ONLY) && (d->cmds & C_TRACE))
		usage_err(o->cmd, "%s is an option of the analysis: give it to 'offcpu-ftrace "
			  "report'", given);
	else if (d->cmds == C_TRIAGE)
		usage_err(o->cmd, "the --*-share and --wait-p99 thresholds are options of triage");
	else if (d->owner)
		usage_err(o->cmd, "%s is an option of %s", given, d->owner);
	else
		usage_err(o->cmd, "unknown option '%s'", given);
	return EXIT_USAGE;
}

static void opts_defaults(struct trace_opts *o, const struct analysis *an, char **command)
{
	memset(o, 0, sizeof(*o));
	o->cmd = an->name;
	o->an = an;
	o->pid = o->tid = -1;
	o->fmt = FMT_BCC;
	o->backend = "auto";
	o->max_tasks = 65536;
	o->max_groups = 4096;
	o->max_us = UINT64_MAX;
	o->count = 1;
	o->stack_depth = STACK_MAX_DEPTH;
	o->max_stacks = 65536;
	o->command = command;
	o->flight.after_ns = 1000000000;
	o->flight.max_files = 1;
	an->defaults(o);
}

/* Options that exclude each other, or need another. -1 or EXIT_USAGE. */
static int opts_check(struct trace_opts *o)
{
	const char *cmd = o->cmd;
	const char *bad = NULL;

	if (o->pid >= 0 && o->tid >= 0)
		bad = "-p and -t cannot be combined";
	else if (o->prev_too && !o->slower)
		bad = "-P, -L, -C and --by exclude each other (-P with --by cgroup is for "
		      "--slower: both columns)";
	else if ((o->folded || o->delimited) && !o->kstack && !o->ustack)
		bad = "-f and -d need stacks: add -K and/or -U";
	else if (o->top && !o->kstack && !o->ustack && o->key == KEY_NONE)
		bad = "--top ranks stacks (-K, -U) or histograms (-P, -L, -C, --by): add one";
	else if ((bad = an_check(o)))
		;
	else if (o->xval && (o->pid >= 0 || o->key == KEY_PID || o->key == KEY_COMM ||
			     o->key == KEY_CGROUP || o->kstack || o->ustack))
		bad = "--xval supports -t, -c, -L, -C and -m; not -p, -P, --by comm or cgroup, or "
		      "stacks";
	else if ((o->cgroup_depth || o->cgroup_controller) && o->key != KEY_CGROUP)
		bad = "--cgroup-depth and --cgroup-controller go with --by cgroup";
	else if (o->folded && o->fmt == FMT_JSON)
		bad = "-f and --format=json exclude each other";
	else if (o->fmt == FMT_SVG && (o->folded || o->xval))
		bad = "--format=svg draws the picture itself: no -f or --xval";
	else if (o->fmt == FMT_SVG && (o->kstack || o->ustack) && o->interval_mode)
		bad = "a flame graph is one window: no -i (with -i, histograms make a heat map)";
	else if (o->msecs && o->fmt == FMT_OPENMETRICS)
		bad = "-m: OpenMetrics values are seconds, in fixed buckets from 1 us: -m does not "
		      "apply";
	else if (o->min_us > o->max_us)
		bad = "--min is larger than --max";
	else if (o->late_stacks && !o->kstack)
		bad = "--late-stacks is how -K stacks are taken: add -K";
	else if (o->late_stacks && o->ustack)
		bad = "--late-stacks reads kernel stacks from /proc; user stacks (-U) are taken "
		      "at the switch-out: drop one of them";
	else if (o->late_stacks && o->min_us < LATE_STACKS_MIN_US)
		bad = "--late-stacks needs --min of at least 1000 (microseconds): a shorter "
		      "block ends before its stack can be read";
	else if (o->late_stacks && o->record_path)
		bad = "--record keeps the events and their stacks: --late-stacks takes none "
		      "from the trace";
	else if (o->ran_instead && !o->slower)
		bad = "--ran-instead says who ran during each wait --slower lists: add --slower US";
	if (bad) {
		usage_err(cmd, "%s", bad);
		return EXIT_USAGE;
	}
	return -1;
}

/* [DURATION [COUNT]], or with -i [COUNT]. -1 or EXIT_USAGE. */
static int opts_positional(struct trace_opts *o, int argc, char **argv, int i)
{
	const char *cmd = o->cmd;

	if (i < argc && o->interval_mode) {
		/* -i gave the interval: a lone number is the COUNT */
		if (parse_u64(argv[i], 1, 1000000000, &o->count)) {
			usage_err(cmd, "COUNT: '%s' is not a count of intervals (1..1000000000)",
				  argv[i]);
			return EXIT_USAGE;
		}
		i++;
		if (i < argc) {
			usage_err(cmd, "with -i the interval is given: the only argument is COUNT "
				  "('%s -i 1 3' prints three 1-second intervals), not '%s'",
				  cmd, argv[i]);
			return EXIT_USAGE;
		}
	}
	if (i < argc) {
		if (parse_duration(argv[i], &o->duration_ns)) {
			usage_err(cmd, "DURATION: '%s' is not a positive number of seconds "
				  "(at most a year; units s, m, h allowed)", argv[i]);
			return EXIT_USAGE;
		}
		i++;
	}
	if (i < argc) {
		if (parse_u64(argv[i], 1, 1000000000, &o->count)) {
			usage_err(cmd, "COUNT: '%s' is not a count of intervals (1..1000000000)",
				  argv[i]);
			return EXIT_USAGE;
		}
		i++;
	}
	if (i < argc) {
		usage_err(cmd, "unexpected argument '%s'", argv[i]);
		return EXIT_USAGE;
	}
	return -1;
}

/* The flight recorder's options: what goes with what, or NULL. */
static const char *flight_check(const struct trace_opts *o)
{
	const struct flight_opts *f = &o->flight;

	if (!f->keep_ns) {
		if (f->runq_over_ns || f->offcpu_over_ns || f->after_given || f->max_files != 1 ||
		    f->keep_going)
			return "--runq-over, --offcpu-over, --after, --max-files and --keep-going "
			       "are the flight recorder's: add --flight SECS";
		return NULL;
	}
	if (!o->record_path)
		return "--flight keeps a window to save as a recording: add --record FILE";
	if (o->replay_path)
		return "--flight records a live window: not in report";
	if (f->offcpu_over_ns && !(o->modes & AN_OFFCPU) && !o->record_only)
		return "--offcpu-over needs off-CPU intervals: use it with record or offcpu";
	if (f->runq_over_ns && !(o->modes & AN_RUNQ) && !o->record_only)
		return "--runq-over needs run-queue waits: use it with record or runq";
	if (o->state && !f->offcpu_over_ns && !o->kstack && !o->ustack && o->record_only)
		return "--state picks the off-CPU states --offcpu-over (or -K/-U) applies to: add one";
	return NULL;
}

/* Recordings, -- COMMAND and --xval: what the window can be. -1 or EXIT_USAGE. */
static int opts_check_window(struct trace_opts *o)
{
	const char *cmd = o->cmd;
	const char *bad = NULL;

	if (o->record_path && strcmp(o->backend, "auto") && strcmp(o->backend, "ring") &&
	    strcmp(o->backend, "perf")) {
		usage_err(cmd, "%s: recordings are made by the ring or perf backend, not %s",
			  o->record_only ? "record" : "--record", o->backend);
		return EXIT_USAGE;
	}
	if (o->record_path && (o->interval_mode || o->count > 1))
		bad = "a recording is one window: no -i or COUNT";
	else if ((bad = flight_check(o)))
		;
	else if (o->command && !o->interval_mode && o->duration_ns)
		bad = "with -- COMMAND the window is the command's life: no DURATION (use -i for "
		      "periodic output)";
	else if (o->command && (o->pid >= 0 || o->tid >= 0))
		bad = "-- COMMAND traces the command and its descendants: no -p/-t";
	else if (o->command && o->xval)
		bad = "--xval needs a timed window, not -- COMMAND";
	else if (o->xval && (o->count > 1 || !o->duration_ns))
		bad = "--xval needs one timed window: DURATION without COUNT";
	if (bad) {
		usage_err(cmd, "%s", bad);
		return EXIT_USAGE;
	}
	return -1;
}

int trace_opts_parse(struct trace_opts *o, const char *cmd, int argc, char **argv)
{
	const struct analysis *an = analysis_find(cmd);
	static struct option lo[NOPTS + 2];
	static char so[2 * NOPTS + 3];
	char **command = NULL;
	bool first;
	int c, ret, i;

	if (!so[0])
		build_getopt(lo, so);
	/* "-- COMMAND ARGS": everything after it belongs to the command */
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			if (i + 1 < argc)
				command = argv + i + 1;
			argc = i;
			break;
		}
	if (!an) {
		/* a caller's mistake: the command table names only analyses */
		usage_err(cmd, "'%s' is not an analysis", cmd);
		return EXIT_USAGE;
	}
	opts_defaults(o, an, command);
	for (first = true; (c = cli_getopt(cmd, argc, argv, so, lo, first)) != -1; first = false) {
		const struct optdef *d = NULL;
		unsigned k;

		if (c == CLI_OPT_BAD)
			return EXIT_USAGE;
		if (c == 'h') {
			an->help(stdout);
			return EXIT_OK;
		}
		for (k = 0; k < NOPTS && !d; k++)
			if (optdefs[k].key == c)
				d = &optdefs[k];
		if (!d) {
			usage_err(cmd, "unknown option '%s'", argv[optind - 1]);
			return EXIT_USAGE;
		}
		if (!(d->cmds & an->bit)) {
			char given[48];

			if (d->key < 256)
				snprintf(given, sizeof(given), "-%c", d->key);
			else
				snprintf(given, sizeof(given), "--%s", d->name);
			return not_here(o, d, given);
		}
		ret = d->set(o, d, optarg);
		if (ret >= 0)
			return ret;
	}
	/* what runs, now that the options are known (runq --slower) */
	if (an->refine && an->refine(o))
		o->an = an->refine(o);
	if ((ret = opts_check(o)) >= 0 || (ret = opts_positional(o, argc, argv, optind)) >= 0)
		return ret;
	return opts_check_window(o);
}
