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
#include "escape.h"
#include "numparse.h"
#include "tmount.h"

bool cli_quiet;

/*
 * One message on stderr after @prefix. What it quotes (a file's contents,
 * a recording's command line, a peer's output, a name) is untrusted: its
 * control characters are shown as '?', as report shows task names, so no
 * escape sequence reaches the terminal and the message stays one line.
 */
static void say(const char *prefix, const char *fmt, va_list ap)
{
	char buf[8192];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	fputs(prefix, stderr);
	text_field(stderr, buf, sizeof(buf), 0);
	fputc('\n', stderr);
}

void err_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("offcpu-ftrace: ", fmt, ap);
	va_end(ap);
}

void note_msg(const char *fmt, ...)
{
	va_list ap;

	if (cli_quiet)
		return;
	va_start(ap, fmt);
	say("offcpu-ftrace: note: ", fmt, ap);
	va_end(ap);
}

void cli_tracefs_ready(const char *tracefs)
{
	char dir[4096], err[512];

	if (tmount_ensure(tracefs, dir, sizeof(dir), err, sizeof(err)) > 0)
		note_msg("tracefs was not mounted: mounted it at %s for this run "
			"(unmounted at exit)", dir);
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
	const char *word;
	int c, before;

	if (first) {
		optind = 0;	/* glibc: full reset, also of its internal state */
		opterr = 0;
	}
	before = optind ? optind : 1;
	c = getopt_long(argc, argv, so, lo, NULL);
	if (c != ':' && c != '?')
		return c;
	/*
	 * The word getopt was in: still argv[optind] when it stopped inside a
	 * group of short options ("-5s" after "--dry-run": argv[optind - 1]
	 * would blame "--dry-run"), the one before otherwise. A short option
	 * is named by optopt, a long one by its word up to any '='.
	 */
	word = optind == before && optind < argc ? argv[optind] :
	       optind >= 1 && optind - 1 < argc ? argv[optind - 1] : "";
	if (c == ':' && word[0] == '-' && word[1] == '-')
		usage_err(cmd, "%.*s needs a value", (int)strcspn(word, "="), word);
	else if (c == ':')
		usage_err(cmd, "-%c needs a value", optopt);
	else if (word[0] == '-' && word[1] == '-' && strchr(word, '=') && optopt)
		usage_err(cmd, "%.*s takes no value", (int)strcspn(word, "="), word);
	else if (word[0] == '-' && word[1] == '-')
		usage_err(cmd, "unknown option '%.*s'", (int)strcspn(word, "="), word);
	else if (strlen(word) > 2)
		usage_err(cmd, "unknown option '-%c' (in '%s')", optopt, word);
	else
		usage_err(cmd, "unknown option '-%c'", optopt);
	return CLI_OPT_BAD;
}

void usage_err(const char *cmd, const char *fmt, ...)
{
	char prefix[64];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "offcpu-ftrace %s: ", cmd);
	va_start(ap, fmt);
	say(prefix, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'offcpu-ftrace %s --help'.\n", cmd);
}

/*
 * The common table: what every tracing command takes (scope, window,
 * output, backend); AO_RESULTS rows only the commands that print
 * results. Each analysis brings its own tables (its descriptor's
 * options); a row of its own with a common row's name or letter
 * replaces it (record's -o is the recording).
 */
enum {
	COM_PID = 1, COM_TID, COM_COMM, COM_CGROUP, COM_OUTPUT, COM_FORMAT, COM_BACKEND,
	COM_RATE, COM_TRACEFS, COM_BUFFER, COM_MAX_TASKS, COM_STRICT, COM_RECORD, COM_ALL,
	COM_DRY_RUN, COM_QUIET,
};

static const char *common_number(struct trace_opts *o, const struct an_option *opt,
				 const char *arg, char *buf, size_t len)
{
	static const struct anopt_range r[] = {
		{ COM_BUFFER, 64, 1024 * 1024, "a size in KiB (64..1048576)" },
		{ COM_MAX_TASKS, 1, 1u << 24, "a count (1..16777216)" },
		{ COM_RATE, 1, 1000, "a rate in samples per second (1..1000)" },
	};
	unsigned long long v;
	const char *bad;

	if ((bad = anopt_ranged(opt, arg, r, sizeof(r) / sizeof(r[0]), &v, buf, len)))
		return bad;
	switch (opt->id) {
	case COM_BUFFER: o->buffer_kb = (uint32_t)v; break;
	case COM_MAX_TASKS: o->max_tasks = (uint32_t)v; break;
	case COM_RATE: o->rate_hz = (unsigned)v; break;
	}
	return NULL;
}

static const char *common_set(struct trace_opts *o, const struct an_option *opt,
			      const char *arg, char *buf, size_t len)
{
	static const char *const formats[] = { "bcc", "bpftrace", "json", "openmetrics", "svg",
					       "perfetto", NULL };
	static const enum out_format fmts[] = { FMT_BCC, FMT_BPFTRACE, FMT_JSON, FMT_OPENMETRICS,
						FMT_SVG, FMT_PERFETTO };
	static const char *const backends[] = { "auto", "hist", "ring", "perf", "proc", NULL };
	const char *bad;
	int i;

	switch (opt->id) {
	case COM_PID:
	case COM_TID:
		if (parse_pid(arg, opt->id == COM_PID ? &o->pid : &o->tid)) {
			snprintf(buf, len, "-%c: '%s' is not a process id (1..4194304)", opt->letter,
				 arg);
			return buf;
		}
		return NULL;
	case COM_COMM:
		if (!*arg || strlen(arg) >= COMM_LEN) {
			snprintf(buf, len, "-c: COMM must be 1 to %d bytes (the kernel truncates "
				 "task names to %d)", COMM_LEN - 1, COMM_LEN - 1);
			return buf;
		}
		memcpy(o->comm, arg, strlen(arg));
		return NULL;
	case COM_FORMAT:
		if ((bad = anopt_pick(opt, arg, formats, &i, buf, len)))
			return bad;
		o->fmt = fmts[i];
		return NULL;
	case COM_BACKEND:
		if ((bad = anopt_pick(opt, arg, backends, &i, buf, len)))
			return bad;
		o->backend = backends[i];
		return NULL;
	case COM_TRACEFS: o->tracefs = arg; return NULL;
	case COM_CGROUP: o->cgroup = arg; return NULL;
	case COM_OUTPUT:
	case COM_RECORD:
		if (!*arg)
			return opt->id == COM_OUTPUT ? "-o needs a file name" :
						      "--record needs a file name";
		/* record -o: the recording; elsewhere -o: where results go */
		if (opt->id == COM_OUTPUT && !o->record_only)
			o->output_path = arg;
		else
			o->record_path = arg;
		return NULL;
	case COM_STRICT: o->strict = true; return NULL;
	case COM_ALL: o->all = true; return NULL;
	case COM_DRY_RUN: o->dry_run = true; return NULL;
	case COM_QUIET: o->quiet = cli_quiet = true; return NULL;
	}
	return common_number(o, opt, arg, buf, len);
}

#define A required_argument
#define N no_argument
#define ROW(name, letter, has, id, argname, help, flags) \
	{ name, letter, has, id, common_set, argname, help, flags }
/* printed before the command's own options */
static const struct an_option common_scope[] = {
	ROW("pid", 'p', A, COM_PID, "PID", "only this process (all its threads)", 0),
	ROW("tid", 't', A, COM_TID, "TID", "only this thread", 0),
	ROW("comm", 'c', A, COM_COMM, "COMM", "only threads named COMM (exact, at most 15 bytes)",
	    AO_RESULTS),
	ROW("cgroup", 0, A, COM_CGROUP, "PATH", "only threads in this cgroup and below (v2 or v1)",
	    AO_RESULTS),
	AN_OPT_END,
};

/* ... and after them */
static const struct an_option common_rest[] = {
	ROW("output", 'o', A, COM_OUTPUT, "FILE", "write the results to FILE, atomically (with -i,\n"
	    "each interval replaces the last); keeps them apart\nfrom a COMMAND's own output", 0),
	ROW("format", 0, A, COM_FORMAT, "FMT", "bcc (default), bpftrace, json, openmetrics, svg (a\n"
	    "picture: a bucket chart; with -i a heat map; with\n-K/-U an off-CPU flame graph), or "
	    "perfetto (a\ntimeline for Perfetto's UI and speedscope: timehist,\nprofile)",
	    AO_RESULTS),
	ROW("backend", 0, A, COM_BACKEND, "NAME", "auto (default), hist, ring, perf or proc (no\n"
	    "privileges: sampled from /proc)", 0),
	ROW("rate", 0, A, COM_RATE, "HZ", "proc backend: samples per second (default 20)",
	    AO_RESULTS),
	ROW("tracefs", 0, A, COM_TRACEFS, "DIR", "tracefs mount point (default: found in /proc/mounts)",
	    0),
	ROW("buffer-size", 0, A, COM_BUFFER, "KB", "ring buffer per CPU, 64..1048576 KiB (default\n"
	    "32 MiB / online CPUs, kept within 1024..8192)", 0),
	ROW("max-tasks", 0, A, COM_MAX_TASKS, "N", "threads with a pending start (default 65536)", 0),
	ROW("strict", 0, N, COM_STRICT, NULL, "exit 3 when events were lost (results partial)", 0),
	ROW("record", 0, A, COM_RECORD, "FILE", "also write the window's events to FILE (trace.dat,\n"
	    "ring or perf backend; offcpu-ftrace-record(8))", AO_RESULTS),
	AN_OPT_END,
};

/* ... after the flight recorder's (anopt_flight) */
static const struct an_option common_tail[] = {
	ROW("all", 0, N, COM_ALL, NULL, "report: every thread in the recording, not only the\n"
	    "scope it was made with", AO_RESULTS),
	ROW("dry-run", 0, N, COM_DRY_RUN, NULL, "check what can be checked without tracing (the\n"
	    "command, -p/-t, the output, the backend) and print\n"
	    "the plan: backend, events, scope, window, output", 0),
	ROW("quiet", 'q', N, COM_QUIET, NULL, "no banner, notes or progress line on stderr (on a\n"
	    "terminal a long window shows time traced and left)", 0),
	AN_OPT_END,
};
#undef ROW
#undef A
#undef N

/* Does @t (a table) hold an option named @name or lettered @letter (0: none)? */
static const struct an_option *table_find(const struct an_option *t, const char *name, int letter)
{
	for (; !an_opt_is_end(t); t++) {
		if (t->flags & AO_HEADING)
			continue;
		if ((name && t->name && !strcmp(t->name, name)) || (letter && t->letter == letter))
			return t;
	}
	return NULL;
}

/* The analysis's own row of @name/@letter, or NULL */
static const struct an_option *own_find(const struct analysis *an, const char *name, int letter)
{
	const struct an_option *r;
	unsigned i;

	for (i = 0; an->options && an->options[i]; i++)
		if ((r = table_find(an->options[i], name, letter)))
			return r;
	return NULL;
}

/* A common row @an takes and has not replaced with its own */
static bool common_applies(const struct analysis *an, const struct an_option *r)
{
	if (r->flags & AO_HEADING)
		return false;
	if ((r->flags & AO_RESULTS) && (an->flags & AN_F_RECORD_ONLY))
		return false;
	return !own_find(an, r->name, r->letter);
}

#define MAX_ROWS 128

/* Every row @an takes, in --help's order: common scope, its own, the common rest. */
static unsigned rows_of(const struct analysis *an, const struct an_option **v, bool headings)
{
	const struct an_option *const commons[] = { common_scope, common_rest, anopt_flight,
						    common_tail };
	const struct an_option *r;
	unsigned n = 0, i, c;

	for (c = 0; c < 4; c++) {
		for (r = commons[c]; !an_opt_is_end(r) && n < MAX_ROWS; r++)
			if (common_applies(an, r))
				v[n++] = r;
		for (i = 0; c == 0 && an->options && an->options[i]; i++)
			for (r = an->options[i]; !an_opt_is_end(r) && n < MAX_ROWS; r++)
				if (headings || !(r->flags & AO_HEADING))
					v[n++] = r;
	}
	return n;
}

/* One row of --help: the option and its argument, then its text at column 25. */
static void help_row(FILE *f, const struct an_option *r)
{
	char col[96];
	const char *p, *nl;
	int w;

	if (r->flags & AO_HEADING) {
		fprintf(f, "\n%s\n", r->help);
		return;
	}
	if (r->flags & AO_NOHELP)
		return;
	if (r->letter && r->name)
		w = snprintf(col, sizeof(col), "  -%c, --%s", r->letter, r->name);
	else if (r->letter)
		w = snprintf(col, sizeof(col), "  -%c", r->letter);
	else
		w = snprintf(col, sizeof(col), "      --%s", r->name);
	if (r->argname && (size_t)w < sizeof(col))
		w += snprintf(col + w, sizeof(col) - (size_t)w, "%s%s",
			      r->has_arg == optional_argument ? "" : " ", r->argname);
	fputs(col, f);
	fprintf(f, "%*s", w < 25 ? 25 - w : 2, "");
	for (p = r->help; p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		fprintf(f, "%s%.*s\n", p == r->help ? "" : "                         ",
			nl ? (int)(nl - p) : (int)strlen(p), p);
	}
}

void cli_trace_help(const struct analysis *an, FILE *f)
{
	const struct an_option *v[MAX_ROWS];
	unsigned i, n = rows_of(an, v, true);

	fputs(an->usage, f);
	fputs("\nOptions:\n", f);
	for (i = 0; i < n; i++)
		help_row(f, v[i]);
	fputs("  -h, --help             this help\n", f);
	if (an->examples)
		fputs(an->examples, f);
	if (an->exit_help) {
		fputs(an->exit_help, f);
	} else {
		fputs("\nExit status: 0 done, 1 tracing failed (message says why), "
		      "2 bad usage,\n3 events were lost and --strict was given, 5 the output "
		      "could not be written.\nSee offcpu-ftrace-", f);
		fprintf(f, "%s(8).\n", an->name);
	}
}

/* "runq, offcpu and oncpu": the commands whose own tables hold @name/@letter */
static bool owners_of(const char *name, int letter, char *buf, size_t len, bool *reportable)
{
	const struct analysis *a, *hit[16];
	unsigned i, n = 0;
	size_t at = 0;

	*reportable = false;
	for (i = 0; (a = analysis_at(i)); i++)
		if (!(a->flags & AN_F_MODE) && own_find(a, name, letter) && n < 16) {
			hit[n++] = a;
			*reportable |= (a->flags & AN_F_REPORT) != 0;
		}
	buf[0] = '\0';
	for (i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", !i ? "" : i + 1 == n ? " and " :
				       ", ", hit[i]->name);
	return n > 0;
}

/*
 * An option @an does not take: whose it is, or that none has it. @word:
 * the argument it was found in when that is more than @given ("-5s"), or NULL.
 */
static int not_here(const struct trace_opts *o, const char *name, int letter, const char *given,
		    const char *word)
{
	const struct analysis *an = o->an;
	bool reportable, common = table_find(common_scope, name, letter) ||
				  table_find(common_rest, name, letter) ||
				  table_find(anopt_flight, name, letter) ||
				  table_find(common_tail, name, letter);
	char owners[160];

	if ((an->flags & AN_F_RECORD_ONLY) && name && !strcmp(name, "by"))
		usage_err(o->cmd, "--by is an option of the analysis: give it to 'offcpu-ftrace "
			  "report' (a file that keeps each thread's cgroup for report --by cgroup is "
			  "made live: 'offcpu-ftrace runq --by cgroup --record FILE')");
	else if (owners_of(name, letter, owners, sizeof(owners), &reportable) &&
		 (an->flags & AN_F_RECORD_ONLY) && reportable)
		usage_err(o->cmd, "%s is an option of the analysis: give it to 'offcpu-ftrace "
			  "report'", given);
	else if (owners[0])
		usage_err(o->cmd, "%s is an option of %s", given, owners);
	else if (common && (an->flags & AN_F_RECORD_ONLY))
		usage_err(o->cmd, "%s is an option of the analysis: give it to 'offcpu-ftrace "
			  "report'", given);
	else if (word && strcmp(word, given))
		usage_err(o->cmd, "unknown option '%s' (in '%s')", given, word);
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

/*
 * Options that exclude each other, or need another: the scope's here,
 * the shared tables' in anopt.c, the analysis's own in its check. -1 or
 * EXIT_USAGE.
 */
static int opts_check(struct trace_opts *o)
{
	const char *bad = NULL;

	if (o->pid >= 0 && o->tid >= 0)
		bad = "-p and -t cannot be combined";
	else if (o->fmt == FMT_PERFETTO && !(o->an->flags & AN_F_PERFETTO))
		bad = "--format=perfetto draws a timeline of every switch: timehist and profile "
		      "write it (report FILE timehist --format=perfetto for a recording)";
	else if ((bad = anopt_check_shared(o)))
		;
	else
		bad = an_check(o);
	if (bad) {
		usage_err(o->cmd, "%s", bad);
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

/* getopt_long's arrays from @an's rows; the row of each returned value in @rows */
static void build_getopt(const struct analysis *an, const struct an_option **rows, unsigned *n,
			 struct option *lo, char *so)
{
	unsigned i, k = 0;

	*n = rows_of(an, rows, false);
	*so++ = ':';
	for (i = 0; i < *n; i++) {
		if (rows[i]->name)
			lo[k++] = (struct option){ rows[i]->name, rows[i]->has_arg, NULL,
						   (int)(256 + i) };
		if (rows[i]->letter) {
			*so++ = (char)rows[i]->letter;
			if (rows[i]->has_arg != no_argument)
				*so++ = ':';
			if (rows[i]->has_arg == optional_argument)
				*so++ = ':';
		}
	}
	lo[k++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[k] = (struct option){ NULL, 0, NULL, 0 };
	*so++ = 'h';
	*so = '\0';
}

/* The row getopt returned @c for (a letter, or 256 + its index) */
static const struct an_option *row_of(const struct an_option **rows, unsigned n, int c)
{
	unsigned i;

	if (c >= 256)
		return (unsigned)(c - 256) < n ? rows[c - 256] : NULL;
	for (i = 0; i < n; i++)
		if (rows[i]->letter == c)
			return rows[i];
	return NULL;
}

/*
 * The word a long option @name just parsed came from: argv[optind - 1]
 * ("--name" or "--name=VALUE"), or argv[optind - 2] when its value was
 * the next word. Is it the whole name?
 */
static const char *long_word(char **argv, int optind_now, const char *name)
{
	int k;

	for (k = optind_now - 1; k >= 1 && k >= optind_now - 2; k--) {
		const char *w = argv[k];
		size_t len;

		if (strncmp(w, "--", 2))
			continue;
		len = strcspn(w + 2, "=");
		if (len && !strncmp(w + 2, name, len))
			return w + 2;
	}
	return NULL;
}

static bool long_whole(char **argv, int optind_now, const char *name)
{
	const char *w = long_word(argv, optind_now, name);

	return !w || strcspn(w, "=") == strlen(name);
}

/* --PREFIX of one of this command's options: refused as the name it is */
static int abbreviated(const struct trace_opts *o, char **argv, int optind_now,
		       const char *name)
{
	const char *w = long_word(argv, optind_now, name);
	char part[64], given[72];
	size_t len = strcspn(w, "=");

	snprintf(part, sizeof(part), "%.*s", (int)(len < sizeof(part) ? len : sizeof(part) - 1), w);
	snprintf(given, sizeof(given), "--%s", part);
	return not_here(o, part, 0, given, NULL);
}

/*
 * getopt refused argv[optind - 1]: unknown to @o's command, or without
 * its value (@r: the row it took it for, a long one)
 */
static int opt_refused(const struct trace_opts *o, int c, char **argv,
		       const struct an_option *r, const char *word)
{
	char name[64], given[72];
	size_t len;

	if (c == ':' && optopt >= 256 && r && !long_whole(argv, optind, r->name))
		return abbreviated(o, argv, optind, r->name);	/* not this option's name */
	if (c == ':') {
		usage_err(o->cmd, "%s needs a value", optopt && optopt < 256 ?
			  (snprintf(given, sizeof(given), "-%c", optopt), given) : word);
		return EXIT_USAGE;
	}
	if (optopt >= 256 && r) {	/* a long option without a value, given one */
		usage_err(o->cmd, "--%s takes no value", r->name);
		return EXIT_USAGE;
	}
	if (optopt) {	/* a short option: the letter, not the word it was in */
		snprintf(given, sizeof(given), "-%c", optopt);
		return not_here(o, NULL, optopt, given, word);
	}
	/* a long one: its name, without "=VALUE" */
	word += strspn(word, "-");
	len = strcspn(word, "=");
	snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1),
		 word);
	snprintf(given, sizeof(given), "--%s", name);
	return not_here(o, name, 0, given, NULL);
}

int trace_opts_parse(struct trace_opts *o, const char *cmd, int argc, char **argv)
{
	const struct analysis *an = analysis_find(cmd);
	const struct an_option *rows[MAX_ROWS];
	struct option lo[MAX_ROWS + 2];
	char so[3 * MAX_ROWS + 3];
	char **command = NULL;
	unsigned nrows;
	int c, i, li = 0;

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
	build_getopt(an, rows, &nrows, lo, so);
	optind = 0;	/* glibc: full reset, also of its internal state */
	opterr = 0;
	for (;;) {
		const struct an_option *r;
		const char *bad, *word;
		int before = optind;
		char buf[256];

		if ((c = getopt_long(argc, argv, so, lo, &li)) == -1)
			break;
		/*
		 * the word getopt was in: the one at optind while it is still
		 * inside a group of short options ("-5s"), else the one before
		 */
		word = optind == before && optind < argc ? argv[optind] :
		       optind >= 1 ? argv[optind - 1] : "";
		if (c == 'h') {
			cli_trace_help(an, stdout);
			return EXIT_OK;
		}
		if (c == '?' || c == ':')
			return opt_refused(o, c, argv, optopt >= 256 ? row_of(rows, nrows, optopt) :
					   NULL, word);
		r = row_of(rows, nrows, c);
		/*
		 * long names whole: getopt_long takes a unique prefix, and what is
		 * unique differs per command (runq --offcpu would be --offcpu-over)
		 */
		if (r && c >= 256 && !long_whole(argv, optind, r->name))
			return abbreviated(o, argv, optind, r->name);
		if (!r) {
			usage_err(cmd, "unknown option '%s'", argv[optind - 1]);
			return EXIT_USAGE;
		}
		if ((bad = r->set(o, r, optarg, buf, sizeof(buf)))) {
			usage_err(cmd, "%s", bad);
			return EXIT_USAGE;
		}
	}
	/* what runs, now that the options are known (runq --slower) */
	if (an->refine && an->refine(o))
		o->an = an->refine(o);
	/* DURATION and COUNT first: the checks read them (profile is one window) */
	if ((c = opts_positional(o, argc, argv, optind)) >= 0 || (c = opts_check(o)) >= 0)
		return c;
	return opts_check_window(o);
}
