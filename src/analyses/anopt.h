/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Options as tables: each analysis's descriptor lists the tables of the
 * options it takes (its own, and the sets it shares with others: the
 * histogram keys, stacks), each row with its setter and its help; the
 * command line merges them with its common table (scope, window, output,
 * backend), builds getopt's arrays from the rows, prints --help from
 * them, and asks the registry whose an option is when a command does not
 * take it. Nothing outside the tables knows which command takes what.
 */
#ifndef OFFCPU_ANOPT_H
#define OFFCPU_ANOPT_H

#include <getopt.h>
#include <stddef.h>

struct trace_opts;
struct an_option;

/*
 * Apply @opt (with @arg, NULL when it takes none or none was given) to
 * @o. NULL, or a usage error in one line (written into @buf, @len bytes,
 * or a constant).
 */
typedef const char *(*an_opt_set)(struct trace_opts *o, const struct an_option *opt,
				   const char *arg, char *buf, size_t len);

/* a row's flags */
#define AO_RESULTS 0x1	/* common: only commands that print results (not record) */
#define AO_HEADING 0x2	/* no option: a heading in the help ("Flight recorder ...") */
#define AO_NOHELP 0x4	/* parsed, left out of --help (a long alias listed with its letter) */

struct an_option {
	const char *name;	/* long name, or NULL: the letter only */
	int letter;		/* short option letter, or 0 */
	int has_arg;		/* getopt's no_argument, required_argument, optional_argument */
	int id;			/* what @set sets (its switch) */
	an_opt_set set;
	const char *argname;	/* "PID", "US": the argument in --help */
	/* --help: its text, lines separated by '\n' (each printed indented) */
	const char *help;
	unsigned flags;		/* AO_* */
};

/* The end of a table of rows. */
#define AN_OPT_END { NULL, 0, 0, 0, NULL, NULL, NULL, 0 }

static inline int an_opt_is_end(const struct an_option *r)
{
	return !r->name && !r->letter && !(r->flags & AO_HEADING);
}

/*
 * What the shared rows set (anopt_apply's switch). A row only one
 * command takes has its analysis's own setter and ids, and sets its own
 * options (AN_OWN_OPTS in opts.h): timehist, triage, profile, runq,
 * oncpu, runqlen.
 */
enum an_opt_id {
	ANO_PIDS = 1, ANO_TIDS, ANO_CPUS, ANO_BY, ANO_TOP, ANO_CGROUP_DEPTH,
	ANO_CGROUP_CONTROLLER, ANO_MSECS, ANO_TIMESTAMP, ANO_INTERVAL, ANO_MAX_GROUPS,
	ANO_STATE, ANO_MIN, ANO_MAX, ANO_XVAL, ANO_KSTACK, ANO_USTACK, ANO_FOLDED,
	ANO_DELIMITED, ANO_STACK_DEPTH, ANO_LATE_STACKS, ANO_MAX_STACKS, ANO_WAKERS,
	ANO_COMPAT, ANO_FREQUENCY,
	/* the flight recorder's (common rows, and record's under their heading) */
	ANO_FLIGHT, ANO_AFTER, ANO_RUNQ_OVER, ANO_OFFCPU_OVER, ANO_MAX_FILES, ANO_KEEP_GOING,
	ANO_RECORD_FILE,	/* record -o FILE: the recording */
};

/* The setter of every analysis row (anopt.c). */
const char *anopt_apply(struct trace_opts *o, const struct an_option *opt, const char *arg,
			char *buf, size_t len);

/*
 * Shared helpers of setters (the command line's common table uses them
 * too): @arg among the NULL-terminated @names (its index in *@out), a
 * number in [lo, hi]; NULL or the usage error.
 */
const char *anopt_pick(const struct an_option *opt, const char *arg, const char *const *names,
		       int *out, char *buf, size_t len);
const char *anopt_number(const struct an_option *opt, const char *arg, unsigned long long lo,
			 unsigned long long hi, const char *what, unsigned long long *v,
			 char *buf, size_t len);
/* The numbers a table of setters takes: the range and its unit in words, by row id */
struct anopt_range {
	int id;
	unsigned long long lo, hi;
	const char *what;		/* "a count (1..16777216)" */
};
/* anopt_number() with @opt's range from @r (@n rows); NULL or the usage error */
const char *anopt_ranged(const struct an_option *opt, const char *arg,
			 const struct anopt_range *r, size_t n, unsigned long long *v,
			 char *buf, size_t len);

/*
 * The tables several analyses share: keys_threads -P, -L; keys_cpus -C;
 * units -m, --max-groups; intervals -T, -i; by --by, --top,
 * --cgroup-depth, --cgroup-controller; stacks_fold -f, --stack-depth,
 * --max-stacks; xval --xval. The histograms (runq, offcpu, oncpu) take
 * them all but the stacks; the others what they use.
 */
extern const struct an_option anopt_keys_threads[], anopt_keys_cpus[], anopt_units[],
	anopt_intervals[], anopt_by[], anopt_stacks_fold[], anopt_xval[];
/* keys_threads, keys_cpus, units, intervals, by: the histogram analyses' */
#define ANOPT_HISTS anopt_keys_threads, anopt_keys_cpus, anopt_units, anopt_intervals, anopt_by
/* The flight recorder's rows: common to every tracing command (the command line's table) */
extern const struct an_option anopt_flight[];

/*
 * Rules between options of the shared tables, whatever the command (each
 * is vacuous where the command does not take the options it names):
 * NULL or the usage error.
 */
const char *anopt_check_shared(const struct trace_opts *o);
/* offcpu's own rules (--min, --max, --late-stacks), which its modes keep: NULL or the error */
const char *anopt_check_offcpu(const struct trace_opts *o);

#endif
