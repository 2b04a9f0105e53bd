// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * overhead: is the trace admissible? COMMAND runs untraced and traced in
 * turn (a warm-up of each, then N pairs), traced by this same binary as
 * 'offcpu-ftrace ANALYSIS -q -o FILE -- COMMAND'; each run's wall and CPU
 * time and the tracer's own CPU are measured here, the statistics and the
 * verdict are src/report/overhead.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis.h"
#include "child.h"
#include "cli.h"
#include "escape.h"
#include "numparse.h"
#include "output.h"
#include "overhead.h"
#include "sig.h"

#define OVH_MAX_WORDS 64
#define OVH_MAX_RUNS 1000
#define OVH_DEFAULT_RUNS 5
/*
 * The traced run's tracer writes the command's exit status, CPU and wall
 * time, and the backend it traced with, to the pipe whose descriptor this
 * names (overhead_link_tell), once it has reaped the command: the
 * tracer's own exit status cannot say whether the command or the tracer
 * failed, and its rusage holds both; and --backend auto picks by what the
 * host and the user allow (as an ordinary user: proc).
 */
#define LINK_ENV "OFFCPU_FTRACE_OVERHEAD_FD"

static const char overhead_help[] =
"Usage: offcpu-ftrace overhead [OPTIONS] -- COMMAND [ARGS]\n"
"\n"
"Is the trace admissible? Runs COMMAND untraced and traced in turn (one\n"
"warm-up of each, then RUNS pairs: untraced, traced, untraced, traced, ...),\n"
"traced as 'offcpu-ftrace ANALYSIS -- COMMAND' would trace it, and compares\n"
"the command's wall time (its exec to its exit): the medians, the run-to-run\n"
"noise of the untraced runs, the effect (traced / untraced median - 1) with\n"
"a band from the pairs, the command's CPU time and the tracer's own, and a\n"
"verdict: admissible (the effect is within the noise), not admissible (with\n"
"what to try), or inconclusive (with what to do).\n"
"\n"
"Options:\n"
"  -n, --runs N           pairs of runs, 3 to 1000 (default 5)\n"
"      --analysis WORDS   the tracing command and its options, split on spaces\n"
"                         (no shell quoting); default runq. Example:\n"
"                         --analysis 'offcpu -K'\n"
"      --keep DIR         keep each traced run's results in DIR (made if missing):\n"
"                         traced-warmup.out, traced-1.out, ...\n"
"      --format FMT       text (default) or json\n"
"  -o, --output FILE      write it to FILE (atomically: complete or not at all)\n"
"  -q, --quiet            no line per run on standard error\n"
"      --dry-run          check the command line and the analysis, print the plan\n"
"  -h, --help             this help\n"
"\n"
"COMMAND's own output goes to standard error, in every run.\n"
"\n"
"Tracing commands for --analysis: %s.\n"
"\n"
"Examples:\n"
"  offcpu-ftrace overhead -- ./run-tests.sh\n"
"  offcpu-ftrace overhead -n 9 --analysis 'offcpu -K' -- sh -c 'make clean && make -j4'\n"
"  offcpu-ftrace overhead --format=json --keep runs -- ./ci-step.sh\n"
"\n"
"Exit status: 0 measured, whatever the verdict; 1 the tracer cannot run here\n"
"(its own message says why); 2 bad usage; 5 the output could not be written;\n"
"127 COMMAND cannot be run (not found, not executable); COMMAND's own\n"
"status when a run of it fails (the message names the run); 128+N when\n"
"signal N stopped it.\n";

struct ovh_opts {
	unsigned runs;
	const char *analysis;		/* as given */
	char buf[4096];			/* ... split in place */
	char *words[OVH_MAX_WORDS + 1];	/* into buf, NULL-terminated */
	unsigned nwords;
	char joined[4096];		/* the words, one space apart */
	const char *keep, *out_path;
	bool json, dry, quiet;
	char **command;			/* NULL-terminated */
};

struct ovh_ctx {
	const struct ovh_opts *o;
	char job[4096];			/* the command, shell-quoted */
	char dir[4096];			/* the traced runs' results: --keep DIR, or a
					 * temporary */
	bool tmp_dir;			/* ... made here, removed at the end */
	char result[4200];		/* the traced run's -o */
	char exe[4096];			/* this binary */
	char **targv;			/* the traced run: exe words -q -o result -- command */
	struct ovh_run *untraced, *traced;	/* [runs] */
	unsigned pairs;
	char backend[32];		/* what the first traced run said it traced with */
	bool backend_differs;		/* ... and a later one said another */
	int forwarded;			/* the sig_count last passed on to a run */
	int stopped;			/* the signal that stopped it, 0 none */
};

/* ------------------------------------------------------------------ */
/* The tracer's side of the pipe (a traced run: run_trace() calls these). */

static int link_fd = -1;

void overhead_link_take(void)
{
	const char *s = getenv(LINK_ENV);
	struct stat st;
	uint64_t fd;

	if (!s)
		return;
	/* only a pipe: a stray variable must not make us write into a file */
	if (!parse_u64(s, 3, INT_MAX, &fd) && !fstat((int)fd, &st) && S_ISFIFO(st.st_mode) &&
	    !fcntl((int)fd, F_SETFD, FD_CLOEXEC))
		link_fd = (int)fd;
	/* neither the command nor anything it runs sees it */
	unsetenv(LINK_ENV);
}

void overhead_link_tell(const struct child *c, int exit_status, const char *backend)
{
	char line[160];
	int n;

	if (link_fd < 0)
		return;
	if (c->reaped && c->start_ns) {
		n = snprintf(line, sizeof(line), "exit=%d cpu_ns=%llu wall_ns=%llu backend=%.31s\n",
			     exit_status, (unsigned long long)c->cpu_ns,
			     (unsigned long long)(c->end_ns - c->start_ns),
			     backend && *backend ? backend : "-");
		/* a parent that is gone has nothing to read it: EPIPE is fine */
		if (write(link_fd, line, (size_t)n) != n)
			n = 0;
	}
	close(link_fd);
	link_fd = -1;
}

/* a backend's name as the tracer says it: a short word of [a-z0-9_-], "-" for none */
static bool backend_word(const char *s)
{
	size_t n = strlen(s);

	return n && n < 32 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

/*
 * What the tracer said: 0, or -EINVAL when nothing (the command never ran)
 * or garbage. @backend (32 bytes): its backend's name, "" when it named none.
 */
static int link_read(int fd, int *exit_status, uint64_t *cpu_ns, uint64_t *wall_ns,
		     char *backend)
{
	char line[160], *tok, *save = NULL;
	uint64_t v[3];
	unsigned i = 0;
	ssize_t n;

	n = read(fd, line, sizeof(line) - 1);
	if (n <= 0 || line[n - 1] != '\n')
		return -EINVAL;
	line[n - 1] = '\0';
	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save), i++) {
		static const char *const keys[] = { "exit=", "cpu_ns=", "wall_ns=", "backend=" };
		size_t k;

		if (i >= 4 || strncmp(tok, keys[i], (k = strlen(keys[i]))))
			return -EINVAL;
		if (i == 3) {
			if (!backend_word(tok + k))
				return -EINVAL;
			snprintf(backend, 32, "%s", strcmp(tok + k, "-") ? tok + k : "");
		} else if (parse_u64(tok + k, 0, i ? UINT64_MAX : 255, &v[i])) {
			return -EINVAL;
		}
	}
	if (i != 4)
		return -EINVAL;
	*exit_status = (int)v[0];
	*cpu_ns = v[1];
	*wall_ns = v[2];
	return 0;
}

/* ------------------------------------------------------------------ */
/* The command line */

/*
 * A word overhead gives the traced run itself, or that would stop it
 * tracing: -o (-oFILE, --output, --output=FILE), --dry-run, -h, --help
 * and --, long ones also as getopt_long takes them, abbreviated.
 */
static bool word_is_ours(const char *w)
{
	static const char *const longs[] = { "output", "dry-run", "help" };
	size_t n;
	unsigned i;

	if (!strcmp(w, "--") || !strcmp(w, "-h") || !strncmp(w, "-o", 2))
		return true;
	if (strncmp(w, "--", 2))
		return false;
	n = strcspn(w + 2, "=");
	for (i = 0; i < sizeof(longs) / sizeof(longs[0]); i++)
		if (n && n <= strlen(longs[i]) && !strncmp(w + 2, longs[i], n))
			return true;
	return false;
}

/* --analysis: split on spaces, tabs and newlines, no quoting; checked as far as ours. */
static int split_analysis(struct ovh_opts *o)
{
	char *save = NULL, *w;
	size_t at = 0;

	if (strlen(o->analysis) >= sizeof(o->buf)) {
		usage_err("overhead", "--analysis: longer than %zu characters", sizeof(o->buf) - 1);
		return EXIT_USAGE;
	}
	snprintf(o->buf, sizeof(o->buf), "%s", o->analysis);
	for (w = strtok_r(o->buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (o->nwords == OVH_MAX_WORDS) {
			usage_err("overhead", "--analysis: more than %d words", OVH_MAX_WORDS);
			return EXIT_USAGE;
		}
		if (word_is_ours(w)) {
			usage_err("overhead", "--analysis '%s': %s is not for the traced runs "
				  "(overhead gives them -q, -o FILE and -- COMMAND; --keep DIR "
				  "keeps their results)", o->analysis, w);
			return EXIT_USAGE;
		}
		o->words[o->nwords++] = w;
		at += (size_t)snprintf(o->joined + at, sizeof(o->joined) - at, "%s%s",
				       at ? " " : "", w);
	}
	o->words[o->nwords] = NULL;
	if (!o->nwords || !analysis_find(o->words[0])) {
		char names[256];

		analysis_names(names, sizeof(names), 0);
		usage_err("overhead", "--analysis '%s': the first word must be a tracing command "
			  "(%s)", o->analysis, names);
		return EXIT_USAGE;
	}
	return -1;
}

/* Options and COMMAND. -1 to go on, else an exit status (said). */
static int parse_args(struct ovh_opts *o, int argc, char **argv)
{
	enum { O_ANALYSIS = 256, O_KEEP, O_JSON, O_DRY, O_FORMAT };
	static const struct option opts[] = {
		{ "runs", required_argument, NULL, 'n' },
		{ "analysis", required_argument, NULL, O_ANALYSIS },
		{ "keep", required_argument, NULL, O_KEEP },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "json", no_argument, NULL, O_JSON },	/* before --format: kept working */
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "dry-run", no_argument, NULL, O_DRY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t n;
	bool first;
	int c, i;

	memset(o, 0, sizeof(*o));
	o->runs = OVH_DEFAULT_RUNS;
	o->analysis = "runq";
	/* everything after "--" is the command's */
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			o->command = i + 1 < argc ? argv + i + 1 : NULL;
			argc = i;
			break;
		}
	for (first = true; (c = cli_getopt("overhead", argc, argv, ":hn:o:q", opts, first)) != -1;
	     first = false) {
		switch (c) {
		case CLI_OPT_BAD:
			return EXIT_USAGE;
		case 'h': {
			char names[256];

			analysis_names(names, sizeof(names), 0);
			printf(overhead_help, names);
			return EXIT_OK;
		}
		case 'n':
			if (parse_u64(optarg, OVH_MIN_PAIRS, OVH_MAX_RUNS, &n)) {
				usage_err("overhead", "-n: '%s' is not a number of runs from %d "
					  "to %d", optarg, OVH_MIN_PAIRS, OVH_MAX_RUNS);
				return EXIT_USAGE;
			}
			o->runs = (unsigned)n;
			break;
		case O_ANALYSIS:
			o->analysis = optarg;
			break;
		case O_KEEP:
			o->keep = optarg;
			break;
		case O_FORMAT:
			if (strcmp(optarg, "json") && strcmp(optarg, "text")) {
				usage_err("overhead", "--format: '%s' is not one of text, json", optarg);
				return EXIT_USAGE;
			}
			o->json = !strcmp(optarg, "json");
			break;
		case O_JSON:
			o->json = true;
			break;
		case 'o':
			o->out_path = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case O_DRY:
			o->dry = true;
			break;
		}
	}
	if (optind < argc) {
		usage_err("overhead", "unexpected argument '%s': the job goes after --",
			  argv[optind]);
		return EXIT_USAGE;
	}
	if (!o->command) {
		usage_err("overhead", "give the job to run after --: offcpu-ftrace overhead -- "
			  "COMMAND [ARGS]");
		return EXIT_USAGE;
	}
	if (o->keep && !*o->keep) {
		usage_err("overhead", "--keep needs a directory");
		return EXIT_USAGE;
	}
	return split_analysis(o);
}

/* ------------------------------------------------------------------ */
/* Where the traced runs write, and what runs */

/*
 * --keep DIR made if missing, or a private temporary (a dry run's too:
 * it makes nothing that stays). EXIT_FAIL said, or -1.
 */
static int dir_setup(struct ovh_ctx *x)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;

	if (x->o->keep && !x->o->dry) {
		snprintf(x->dir, sizeof(x->dir), "%s", x->o->keep);
		if (mkdir(x->dir, 0777) && errno != EEXIST) {
			err_msg("overhead: --keep %s: cannot make the directory: %s", x->dir,
				strerror(errno));
			return EXIT_FAIL;
		}
		if (stat(x->dir, &st) || !S_ISDIR(st.st_mode)) {
			err_msg("overhead: --keep %s: not a directory: give a directory for the "
				"traced runs' results", x->dir);
			return EXIT_FAIL;
		}
		return -1;
	}
	snprintf(x->dir, sizeof(x->dir), "%s/offcpu-ftrace-overhead.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(x->dir)) {
		err_msg("overhead: cannot make a temporary directory in %s for the traced runs' "
			"results: %s (set TMPDIR, or give --keep DIR)", tmp && *tmp ? tmp : "/tmp",
			strerror(errno));
		x->dir[0] = '\0';
		return EXIT_FAIL;
	}
	x->tmp_dir = true;
	return -1;
}

/* The temporary and what a traced run left in it (a tracer's own temporary, say). */
static void dir_remove(struct ovh_ctx *x)
{
	struct dirent *e;
	char path[4400];
	DIR *d;

	if (!x->tmp_dir)
		return;
	if (rmdir(x->dir) && errno == ENOTEMPTY && (d = opendir(x->dir))) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(path, sizeof(path), "%s/%s", x->dir, e->d_name);
				unlink(path);
			}
		closedir(d);
		rmdir(x->dir);
	}
	x->tmp_dir = false;
}

/* Traced run @i's -o (0: the warm-up) */
static void result_path(struct ovh_ctx *x, unsigned i)
{
	if (x->tmp_dir)
		snprintf(x->result, sizeof(x->result), "%s/traced.out", x->dir);
	else if (!i)
		snprintf(x->result, sizeof(x->result), "%s/traced-warmup.out", x->dir);
	else
		snprintf(x->result, sizeof(x->result), "%s/traced-%u.out", x->dir, i);
}

/*
 * This binary: its path, so that the tracer is named offcpu-ftrace (as
 * /proc/self/exe it would be "exe"); /proc/self/exe itself when the file
 * was replaced since it started (a rebuilt tree: "PATH (deleted)").
 */
static void exe_path(struct ovh_ctx *x)
{
	static const char gone[] = " (deleted)";
	ssize_t n = readlink("/proc/self/exe", x->exe, sizeof(x->exe) - 1);
	size_t g = sizeof(gone) - 1;

	if (n > 0 && (size_t)n < sizeof(x->exe) - 1) {
		x->exe[n] = '\0';
		if ((size_t)n < g || strcmp(x->exe + n - g, gone))
			return;
	}
	snprintf(x->exe, sizeof(x->exe), "/proc/self/exe");
}

/* exe WORDS [--dry-run] -q -o RESULT -- COMMAND: newly allocated, caller frees */
static char **traced_argv(struct ovh_ctx *x, bool dry)
{
	const struct ovh_opts *o = x->o;
	unsigned ncmd = 0, n = 0, i;
	char **v;

	while (o->command[ncmd])
		ncmd++;
	v = calloc(1 + o->nwords + 5 + ncmd + 1, sizeof(*v));
	if (!v)
		return NULL;
	v[n++] = x->exe;
	for (i = 0; i < o->nwords; i++)
		v[n++] = o->words[i];
	if (dry)
		v[n++] = "--dry-run";
	v[n++] = "-q";
	v[n++] = "-o";
	v[n++] = x->result;
	v[n++] = "--";
	for (i = 0; i < ncmd; i++)
		v[n++] = o->command[i];
	return v;
}

/* "run 3 (traced)", "the warm-up run (untraced)" */
static const char *run_name(char *buf, size_t len, unsigned i, bool traced)
{
	if (i)
		snprintf(buf, len, "run %u (%s)", i, traced ? "traced" : "untraced");
	else
		snprintf(buf, len, "the warm-up run (%s)", traced ? "traced" : "untraced");
	return buf;
}

/*
 * Wait for a run's process and reap it. The first signal is not passed
 * on: a terminal's Ctrl-C reaches the whole process group, the run's
 * processes too, and a signal sent to us alone lets the run finish; a
 * second one is passed on (the tracer then restores and exits at once),
 * and each one after (child_await_passing).
 */
static void wait_run(struct ovh_ctx *x, struct child *c)
{
	child_await_passing(c, 2, &x->forwarded);
	child_reap(c);
}

/* --dry-run: what would run */
static void say_plan(const struct ovh_ctx *x)
{
	char **v;

	printf("dry run: %u pairs of runs of %s, untraced then traced, after a warm-up of "
	       "each\n  traced as:", x->o->runs, x->job);
	for (v = x->targv; *v; v++)
		printf(" %s", *v);
	if (x->o->keep)
		printf("\n  the traced runs' results: kept in %s\n", x->o->keep);
	else
		printf("\n  the traced runs' results: in a temporary directory, removed at the "
		       "end (--keep DIR keeps them)\n");
}

/*
 * Validate --analysis: the tracer's own --dry-run of the traced command
 * line (its plan onto stdout with overhead's --dry-run, else discarded).
 * -1 to go on, else an exit status (its message passed through).
 */
static int analysis_check(struct ovh_ctx *x)
{
	char **argv = traced_argv(x, true), err[512];
	struct child c;
	int devnull = -1, status;

	if (!argv) {
		err_msg("out of memory");
		return EXIT_FAIL;
	}
	if (!x->o->dry && (devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
		err_msg("cannot open /dev/null: %s", strerror(errno));
		free(argv);
		return EXIT_FAIL;
	}
	if (x->o->dry) {
		say_plan(x);
		printf("the traced runs' plan (offcpu-ftrace %s --dry-run):\n", x->o->joined);
		fflush(stdout);
	}
	if (child_spawn(&c, argv, devnull, err, sizeof(err)) ||
	    child_release(&c, "offcpu-ftrace", err, sizeof(err))) {
		err_msg("%s", err);
		child_abort(&c);
		status = EXIT_FAIL;
	} else {
		wait_run(x, &c);
		status = child_exit_status(&c);
	}
	if (devnull >= 0)
		close(devnull);
	free(argv);
	if (status == EXIT_USAGE)
		err_msg("overhead: --analysis '%s': the tracing command refuses it (above)",
			x->o->analysis);
	if (status == EXIT_OK || sig_count)
		return sig_count ? 128 + sig_last : -1;
	return status == 127 ? 127 : status == EXIT_USAGE ? EXIT_USAGE : EXIT_FAIL;
}

/* ------------------------------------------------------------------ */
/* The runs */

static void say_run(const struct ovh_ctx *x, unsigned i, bool traced, const struct ovh_run *r)
{
	char name[64];

	if (x->o->quiet)
		return;
	fprintf(stderr, "offcpu-ftrace: overhead: %s: %.3f s, CPU %.3f s", run_name(name,
		sizeof(name), i, traced), r->wall_s, r->cpu_s);
	if (traced)
		fprintf(stderr, ", the tracer's own CPU %.3f s", r->tracer_cpu_s);
	fputc('\n', stderr);
}

/*
 * Run @i (0: the warm-up) of COMMAND, untraced. 0 measured; else an exit
 * status: the command's own (said), or 128+N after a signal.
 */
static int run_untraced(struct ovh_ctx *x, unsigned i, struct ovh_run *r)
{
	int seen = sig_count, status;
	char err[512], name[64];
	struct child c;

	memset(r, 0, sizeof(*r));
	if (child_spawn(&c, x->o->command, STDERR_FILENO, err, sizeof(err))) {
		err_msg("%s", err);
		return EXIT_FAIL;
	}
	if (child_release(&c, x->o->command[0], err, sizeof(err))) {
		err_msg("%s", err);
		child_abort(&c);
		return 127;	/* as a shell says "command not found" */
	}
	wait_run(x, &c);
	status = child_exit_status(&c);
	if (sig_count != seen)
		return 128 + sig_last;	/* cut short: not counted */
	if (status) {
		err_msg("overhead: %s of %s exited with status %d",
			run_name(name, sizeof(name), i, false), x->job, status);
		return status;
	}
	r->wall_s = (double)(c.end_ns - c.start_ns) / 1e9;
	r->cpu_s = (double)c.cpu_ns / 1e9;
	return 0;
}

/*
 * The tracer's exit and what it told of the command (@told: it did) as a
 * run's outcome: 0 measured; else an exit status, said.
 */
static int traced_outcome(struct ovh_ctx *x, unsigned i, const struct child *c, bool told,
			  int cmd_status)
{
	int status = child_exit_status(c);
	char name[64];

	run_name(name, sizeof(name), i, true);
	if (told && cmd_status) {
		err_msg("overhead: %s of %s exited with status %d", name, x->job, cmd_status);
		return cmd_status;
	}
	if (WIFSIGNALED(c->status)) {
		err_msg("overhead: %s: the tracer (offcpu-ftrace %s) was killed by signal %d", name,
			x->o->joined, WTERMSIG(c->status));
		return EXIT_FAIL;
	}
	if (!told) {
		/* the command never ran: the tracer said why */
		err_msg("overhead: %s: the tracer (offcpu-ftrace %s) stopped with status %d "
			"before %s ran (its message is above)", name, x->o->joined, status, x->job);
		return status == 127 ? 127 : EXIT_FAIL;
	}
	if (status) {
		err_msg("overhead: %s: the tracer (offcpu-ftrace %s) failed with status %d "
			"after %s ran (its message is above)", name, x->o->joined, status, x->job);
		return EXIT_FAIL;
	}
	return 0;
}

/* Run @i of COMMAND traced, as run_untraced(). */
static int run_traced(struct ovh_ctx *x, unsigned i, struct ovh_run *r)
{
	int seen = sig_count, p[2], cmd_status = 0, status;
	uint64_t cpu_ns = 0, wall_ns = 0, all_ns;
	char err[512], env[16], backend[32] = "", name[64];
	struct child c;
	bool told;

	memset(r, 0, sizeof(*r));
	result_path(x, i);
	exe_path(x);
	/* the read end stays here; the write end goes to the tracer alone */
	if (pipe2(p, O_CLOEXEC)) {
		err_msg("pipe: %s", strerror(errno));
		return EXIT_FAIL;
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	fcntl(p[1], F_SETFD, 0);
	snprintf(env, sizeof(env), "%d", p[1]);
	setenv(LINK_ENV, env, 1);
	status = child_spawn(&c, x->targv, STDERR_FILENO, err, sizeof(err));
	unsetenv(LINK_ENV);
	close(p[1]);
	if (!status && child_release(&c, "offcpu-ftrace", err, sizeof(err))) {
		child_abort(&c);
		status = -1;
	}
	if (status) {
		err_msg("%s", err);
		close(p[0]);
		return EXIT_FAIL;
	}
	wait_run(x, &c);
	told = !link_read(p[0], &cmd_status, &cpu_ns, &wall_ns, backend);
	close(p[0]);
	if (x->tmp_dir)
		unlink(x->result);
	if (sig_count != seen)
		return 128 + sig_last;	/* cut short: not counted */
	status = traced_outcome(x, i, &c, told, cmd_status);
	if (status)
		return status;
	if (!x->backend[0]) {
		snprintf(x->backend, sizeof(x->backend), "%s", backend);
	} else if (strcmp(x->backend, backend) && !x->backend_differs) {
		x->backend_differs = true;
		err_msg("overhead: %s traced with the %s backend, the first one with %s: the "
			"traced runs are not alike (give --analysis '... --backend NAME')",
			run_name(name, sizeof(name), i, true), backend[0] ? backend : "no",
			x->backend);
	}
	all_ns = c.cpu_ns;	/* the tracer's and the command's it waited for */
	r->wall_s = (double)wall_ns / 1e9;
	r->cpu_s = (double)cpu_ns / 1e9;
	r->tracer_cpu_s = all_ns > cpu_ns ? (double)(all_ns - cpu_ns) / 1e9 : 0;
	r->tracer_wall_s = (double)(c.end_ns - c.start_ns) / 1e9;
	return 0;
}

/* The warm-ups, then the pairs. 0, or the exit status that stopped it (said). */
static int run_pairs(struct ovh_ctx *x)
{
	struct ovh_run u, t;
	unsigned i;
	int status;

	for (i = 0; i <= x->o->runs; i++) {
		if (sig_count)
			return 128 + sig_last;
		status = run_untraced(x, i, &u);
		if (status)
			return status;
		say_run(x, i, false, &u);
		if (sig_count)
			return 128 + sig_last;
		status = run_traced(x, i, &t);
		if (status)
			return status;
		say_run(x, i, true, &t);
		if (i) {
			x->untraced[i - 1] = u;
			x->traced[i - 1] = t;
			x->pairs = i;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */

/* The result, to -o FILE or stdout. 0, or EXIT_FAIL said. */
static int print_result(struct ovh_ctx *x)
{
	struct ovh_in in = {
		.job = x->job, .analysis = x->o->joined, .backend = x->backend[0] ? x->backend :
		NULL, .untraced = x->untraced,
		.traced = x->traced, .pairs = x->pairs, .asked = x->o->runs,
		.stopped = x->stopped ? sig_name(x->stopped) : NULL, .keep = x->o->keep,
	};
	struct ovh_stats st;
	char err[512];
	struct out out;

	if (ovh_stats(&in, &st)) {
		err_msg("out of memory");
		return EXIT_FAIL;
	}
	if (out_open(&out, x->o->out_path, NULL, 0, err, sizeof(err)) ||
	    out_begin(&out, err, sizeof(err))) {
		err_msg("%s", err);
		out_close(&out);
		return EXIT_OUTPUT;
	}
	if (x->o->json)
		ovh_print_json(out.f, &in, &st);
	else
		ovh_print_text(out.f, &in, &st);
	if (out_end(&out, true, err, sizeof(err))) {
		err_msg("%s", err);
		out_close(&out);
		return EXIT_OUTPUT;
	}
	out_close(&out);
	return 0;
}

/* Before any run: -o writable, the command there, the analysis accepted. -1 or a status. */
static int preflight(struct ovh_ctx *x)
{
	const struct ovh_opts *o = x->o;
	char err[512];
	struct out t;
	int ret;

	memset(&t, 0, sizeof(t));
	ret = out_open(&t, o->out_path, NULL, OUT_CHECK_ONLY, err, sizeof(err));
	out_close(&t);
	if (ret) {
		err_msg("%s", err);
		return ret == -EINVAL ? EXIT_USAGE : EXIT_OUTPUT;
	}
	if (child_can_exec(o->command[0], err, sizeof(err))) {
		err_msg("%s", err);
		return 127;	/* as a shell says "command not found" */
	}
	if ((ret = dir_setup(x)) >= 0)
		return ret;
	result_path(x, 1);
	exe_path(x);
	x->targv = traced_argv(x, false);
	x->untraced = calloc(o->runs, sizeof(*x->untraced));
	x->traced = calloc(o->runs, sizeof(*x->traced));
	if (!x->targv || !x->untraced || !x->traced) {
		err_msg("out of memory");
		return EXIT_FAIL;
	}
	return analysis_check(x);
}

int cmd_overhead(int argc, char **argv)
{
	struct ovh_opts o;
	struct ovh_ctx x;
	int status;

	status = parse_args(&o, argc, argv);
	if (status >= 0)
		return status;
	memset(&x, 0, sizeof(x));
	x.o = &o;
	shell_quote_argv(x.job, sizeof(x.job), o.command, sizeof(x.job) - 1);
	cli_quiet = o.quiet;
	sig_setup();
	/* the man pages' examples name commands of their own: the analysis is parsed only */
	if (o.dry && getenv("OFFCPU_FTRACE_PARSE_ONLY")) {
		exe_path(&x);
		snprintf(x.result, sizeof(x.result), "/nonexistent/traced.out");
		x.targv = traced_argv(&x, false);
		status = x.targv ? analysis_check(&x) : EXIT_FAIL;
		free(x.targv);
		return status >= 0 ? status : EXIT_OK;
	}
	status = preflight(&x);
	if (status < 0 && o.dry) {
		status = EXIT_OK;
	} else if (status < 0) {
		status = run_pairs(&x);
		if (status > 128 && sig_count) {
			x.stopped = sig_last;
			/* asked once: what was measured; twice: nothing more */
			if (sig_count == 1 && print_result(&x))
				status = EXIT_FAIL;
		} else if (!status) {
			status = print_result(&x);
		}
	}
	dir_remove(&x);
	free(x.targv);
	free(x.untraced);
	free(x.traced);
	return status;
}
