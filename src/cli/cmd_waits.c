// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * waits: who waits on whom right now, from /proc, without tracing
 * (src/host/waitscan.h reads, src/report/waits.h prints), and a few bytes
 * of the processes' memory (process_vm_readv: ptrace's permission). Once, or every
 * --watch SECS with what changed; a process, a tree, a command run here,
 * or every process of the user (root: of the host).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "cli.h"
#include "escape.h"
#include "numparse.h"
#include "procfs.h"
#include "sig.h"
#include "timeutil.h"
#include "waits.h"
#include "waitscan.h"

#define WAITS_MAX_PIDS 256
#define WAITS_COMMAND_WATCH_NS (10 * 1000000000ULL)	/* -- COMMAND without --watch */

struct waits_opts {
	int32_t pids[WAITS_MAX_PIDS];
	size_t npids;
	int32_t tree;
	char **command;
	uint64_t watch_ns;	/* 0: once */
	uint64_t count;		/* rounds; 0: until stopped */
	bool json, all, dry_run;
};

static const char waits_help[] =
"Usage: offcpu-ftrace waits [OPTIONS] [PID...]\n"
"       offcpu-ftrace waits [OPTIONS] --tree PID\n"
"       offcpu-ftrace waits [OPTIONS] -- COMMAND [ARGS]\n"
"\n"
"Who waits on whom right now, from /proc: no tracing, no ptrace attach, no\n"
"signal. For each thread its state (R S D T t Z I), how long it has been in\n"
"it (at least), wchan, kernel stack (root), and what it waits on, resolved\n"
"to the processes that hold it where /proc can say: a pipe's or FIFO's\n"
"other end, a unix socket's peer, a TCP socket's state, queues and local\n"
"peer or listener, children (wait4), a file lock's holder (/proc/locks),\n"
"a futex's owner (PI futexes, glibc mutexes, pthread_join), a disk, NFS\n"
"or page-fault wait (D). Then the chains of waits and the cycles among\n"
"threads that cannot move (deadlocks).\n"
"\n"
"It does read a few bytes of processes' memory (a futex word, poll's\n"
"descriptors, a path) with process_vm_readv, which needs the same\n"
"permission as ptrace: this user's processes (under Yama's ptrace_scope 1,\n"
"its descendants only); as root, every process's.\n"
"\n"
"Without PID: every process of this user (as root: of the host).\n"
"\n"
"Options:\n"
"      --tree PID         the process and its descendants\n"
"  -w, --watch SECS       every SECS seconds, marking what is new, still\n"
"                         there, or over (-- COMMAND: every 10 s by default)\n"
"  -n, --count N          with --watch: N rounds, then stop (-- COMMAND: then\n"
"                         wait for the command, without looking, for its status)\n"
"  -a, --all              text: every thread, not only those that wait on\n"
"                         something a holder, a disk or a lock explains\n"
"      --format FMT       text (default) or json (one object per round)\n"
"      --dry-run          say what would be read, read nothing\n"
"  -h, --help             this help\n"
"\n"
"Examples:\n"
"  offcpu-ftrace waits                     # this user's processes\n"
"  offcpu-ftrace waits --tree 4242         # a build and its children\n"
"  offcpu-ftrace waits --watch 5 --count 3 4242\n"
"  offcpu-ftrace waits --format=json 4242\n"
"  offcpu-ftrace waits --watch 30 -- make -j8\n"
"\n"
"Exit status: 0 done (no process in the scope of a user is an empty\n"
"answer), 1 the environment refused (no /proc, no such process), 2 bad\n"
"usage, 4 a cycle of waits was found, 5 the output could not be written;\n"
"with -- COMMAND and no cycle, the command's own status (127: it cannot\n"
"be run).\n";

/* PID must be a live process (a thread id is refused, naming its process) */
static int check_pid(const char *what, int32_t pid)
{
	int32_t tgid = proc_tgid(pid, NULL);

	if (tgid < 0) {
		err_msg("%s%d: no such process", what, pid);
		return EXIT_FAIL;
	}
	if (tgid != pid) {
		err_msg("%s%d: %d is a thread of process %d: give %d (waits shows every thread "
			"of a process)", what, pid, pid, tgid, tgid);
		return EXIT_FAIL;
	}
	return -1;
}

enum { O_TREE = 256, O_FORMAT, O_DRY };

static int parse_opt(struct waits_opts *o, int c)
{
	uint64_t v;

	switch (c) {
	case O_TREE:
		if (parse_pid(optarg, &o->tree)) {
			usage_err("waits", "--tree needs a process id, not '%s'", optarg);
			return EXIT_USAGE;
		}
		return -1;
	case 'w':
		if (parse_duration(optarg, &o->watch_ns)) {
			usage_err("waits", "--watch needs seconds (\"5\", \"0.5\", \"2m\"), not '%s'",
				  optarg);
			return EXIT_USAGE;
		}
		return -1;
	case 'n':
		if (parse_u64(optarg, 1, UINT32_MAX, &v)) {
			usage_err("waits", "--count needs a number of rounds (1 or more), not '%s'",
				  optarg);
			return EXIT_USAGE;
		}
		o->count = v;
		return -1;
	case 'a':
		o->all = true;
		return -1;
	case O_FORMAT:
		if (strcmp(optarg, "json") && strcmp(optarg, "text")) {
			usage_err("waits", "--format is text or json, not '%s'", optarg);
			return EXIT_USAGE;
		}
		o->json = !strcmp(optarg, "json");
		return -1;
	case O_DRY:
		o->dry_run = true;
		return -1;
	case 'h':
		fputs(waits_help, stdout);
		return EXIT_OK;
	}
	return EXIT_USAGE;
}

/* the positional PIDs, and the rules between the scopes */
static int parse_scope(struct waits_opts *o, int argc, char **argv)
{
	int i;

	for (i = optind; i < argc; i++) {
		if (o->npids == WAITS_MAX_PIDS) {
			usage_err("waits", "at most %d PIDs (--tree PID takes a whole tree)",
				  WAITS_MAX_PIDS);
			return EXIT_USAGE;
		}
		if (parse_pid(argv[i], &o->pids[o->npids++])) {
			usage_err("waits", "'%s' is not a process id", argv[i]);
			return EXIT_USAGE;
		}
	}
	if ((o->npids > 0) + (o->tree > 0) + (o->command != NULL) > 1) {
		usage_err("waits", "give PIDs, --tree PID or -- COMMAND, one of them");
		return EXIT_USAGE;
	}
	if (o->count && !o->watch_ns && !o->command) {
		usage_err("waits", "--count is the number of --watch rounds: add --watch SECS");
		return EXIT_USAGE;
	}
	if (o->command && !o->watch_ns)
		o->watch_ns = WAITS_COMMAND_WATCH_NS;
	return -1;
}

static int waits_parse(struct waits_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "tree", required_argument, NULL, O_TREE },
		{ "watch", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ "all", no_argument, NULL, 'a' },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "dry-run", no_argument, NULL, O_DRY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool first;
	int c, i, ret;

	memset(o, 0, sizeof(*o));
	/* "-- COMMAND ARGS": everything after it belongs to the command */
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			if (i + 1 == argc) {
				usage_err("waits", "-- needs a command after it");
				return EXIT_USAGE;
			}
			o->command = argv + i + 1;
			argc = i;
			break;
		}
	for (first = true; (c = cli_getopt("waits", argc, argv, ":w:n:ah", lo, first)) != -1;
	     first = false) {
		if (c == CLI_OPT_BAD)
			return EXIT_USAGE;
		ret = parse_opt(o, c);
		if (ret >= 0)
			return ret;
	}
	return parse_scope(o, argc, argv);
}

/* "process 4242 and its descendants", "every process of user 1000", ... */
static void scope_name(const struct waits_opts *o, pid_t child, char *buf, size_t len)
{
	size_t i, n;

	if (o->command) {
		char cmd[160];

		shell_quote_argv(cmd, sizeof(cmd), o->command, 100);
		snprintf(buf, len, "%s (process %d) and its descendants", cmd, (int)child);
	} else if (o->tree) {
		snprintf(buf, len, "process %d and its descendants", o->tree);
	} else if (o->npids) {
		n = (size_t)snprintf(buf, len, "process%s", o->npids > 1 ? "es" : "");
		for (i = 0; i < o->npids && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s %d", i ? "," : "", o->pids[i]);
	} else if (geteuid() == 0) {
		snprintf(buf, len, "every process");
	} else {
		snprintf(buf, len, "every process of user %u", (unsigned)getuid());
	}
}

/* --dry-run: what would be read, and what this user may read */
static int dry_run(const struct waits_opts *o, const char *scope)
{
	bool root = geteuid() == 0;

	printf("waits: would read %s%s\n", scope, o->watch_ns ? ", every round of --watch" : "");
	printf("as %s: %s\n", root ? "root" : "an ordinary user",
	       root ? "every process's state, times, wchan, syscall, descriptors and kernel stack" :
	       "this user's processes' wchan, syscall and descriptors; others' state and "
	       "times only; no kernel stacks (they need root)");
	printf("memory: a few bytes (a futex word, poll's descriptors, a path) of %s, with "
	       "process_vm_readv, which needs ptrace's permission (PTRACE_MODE_ATTACH); "
	       "not while a thread of it is in D with its memory map lock perhaps held\n",
	       root ? "any process" : "this user's processes (Yama's ptrace_scope 1: only "
	       "its descendants)");
	printf("never: tracing, ptrace attach, signals (to anything but -- COMMAND, on "
	       "Ctrl-C)\n");
	return EXIT_OK;
}

/* sleep until @until (mono ns), or a signal, or the command's end */
static void watch_sleep(uint64_t until, struct child *c)
{
	uint64_t now;

	while (!sig_count && (!c || !child_exited(c)) && (now = mono_ns()) < until) {
		uint64_t step = until - now < 200000000ULL ? until - now : 200000000ULL;

		sleep_until_ns(now + step);
	}
}

/*
 * one round: a snapshot, printed; 4 when it holds a cycle, -1 to go on,
 * or an exit status; *@gone when the reader of the output went away (a
 * closed pipe, as under | head: no more rounds, and nothing said)
 */
static int round_print(const struct waits_opts *o, struct waits_view *v, const struct wscope *sc,
		       struct wsnap *s, const struct wsnap *prev, bool *gone)
{
	char err[256] = "";
	int ret = wscan_take(sc, prev, s, err, sizeof(err)), cyc;

	if (ret == -ESRCH && v->round > 1) {
		note_msg("no process is left in the scope: done");
		return EXIT_OK;
	}
	if (ret) {
		err_msg("waits: %s", err[0] ? err : strerror(-ret));
		return EXIT_FAIL;
	}
	v->s = s;
	v->prev = prev;
	if (o->json)
		waits_print_json(stdout, v);
	else
		waits_print_text(stdout, v);
	cyc = wgraph_ncycles(s->g) ? EXIT_CYCLE : -1;
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		int e = errno ? errno : EIO;

		wscan_free(s);
		if (e == EPIPE) {
			*gone = true;
			return cyc;
		}
		err_msg("cannot write the output: %s", strerror(e));
		return EXIT_OUTPUT;
	}
	return cyc;
}

/*
 * the rounds: once, or every --watch SECS until --count, a signal, the
 * command's end, or the output's reader's; *@rounds: how many were printed
 */
static int watch_loop(const struct waits_opts *o, const struct wscope *sc, const char *scope,
		      struct child *c, unsigned *rounds)
{
	struct waits_view v = { .scope = scope, .all = o->all };
	struct wsnap snaps[2], *cur = &snaps[0], *prev = NULL;
	uint64_t next = mono_ns();
	bool cycle = false, gone = false;
	int ret = -1;

	*rounds = 0;

	for (v.round = o->watch_ns ? 1 : 0;; v.round++) {
		if (c) {
			/* the command just started: its first round after one period */
			next = next + o->watch_ns > mono_ns() ? next + o->watch_ns :
			       mono_ns() + o->watch_ns;
			watch_sleep(next, c);
			if (sig_count || child_exited(c))
				break;
		}
		ret = round_print(o, &v, sc, cur, prev, &gone);
		if (ret >= 0 && ret != EXIT_CYCLE)
			break;
		cycle |= ret == EXIT_CYCLE;
		ret = -1;
		if (gone)
			break;	/* nothing to free: round_print did */
		++*rounds;
		if (prev)
			wscan_free(prev);
		prev = cur;
		cur = cur == &snaps[0] ? &snaps[1] : &snaps[0];
		if (!o->watch_ns || (o->count && v.round >= o->count) || sig_count)
			break;
		if (!c) {
			/* a round longer than the period: the next one starts a period on */
			next = next + o->watch_ns > mono_ns() ? next + o->watch_ns :
			       mono_ns() + o->watch_ns;
			watch_sleep(next, NULL);
			if (sig_count)
				break;
		}
	}
	if (prev)
		wscan_free(prev);
	if (ret >= 0 && ret != EXIT_OK)
		return ret;
	return cycle ? EXIT_CYCLE : EXIT_OK;
}

/*
 * The command's end, after the rounds: every signal we get is passed on
 * to it (the first, which stopped the rounds, too: it is ours to stop),
 * however late. Returns its exit status, as a shell's.
 */
static int command_wait(struct child *c)
{
	int passed = 0;

	child_await_passing(c, 1, &passed);
	return child_wait(c);
}

/* -- COMMAND: started here, watched, waited for; its status is ours unless a cycle was seen */
static int waits_command(const struct waits_opts *o, struct wscope *sc)
{
	char err[512], scope[320], cmd[160];
	struct child c;
	unsigned rounds;
	int status, cs;

	if (child_can_exec(o->command[0], err, sizeof(err))) {
		err_msg("%s", err);
		return 127;	/* as a shell says "command not found" */
	}
	sig_setup();
	/* the results are on stdout: the command's own output goes to stderr, as in a run */
	if (child_spawn(&c, o->command, STDERR_FILENO, err, sizeof(err))) {
		err_msg("%s", err);
		return EXIT_FAIL;
	}
	if (child_release(&c, o->command[0], err, sizeof(err))) {
		err_msg("%s", err);
		child_wait(&c);
		return 127;
	}
	sc->tree = c.pid;
	scope_name(o, c.pid, scope, sizeof(scope));
	status = watch_loop(o, sc, scope, &c, &rounds);
	shell_quote_argv(cmd, sizeof(cmd), o->command, 100);
	/* a command over before the first round: say so rather than nothing */
	if (!rounds && !sig_count && child_exited(&c))
		note_msg("waits: %s ended %.1f s after it started, before the first round (%.3g s "
			 "in): nothing was read; --watch SECS looks sooner", cmd,
			 (double)(c.end_ns - c.start_ns) / 1e9, (double)o->watch_ns / 1e9);
	else if (o->count && rounds >= o->count && !sig_count && !child_exited(&c))
		note_msg("waits: %u round%s done (--count): waiting for %s to end, for its exit "
			 "status (a signal to waits is passed on to it)", rounds,
			 rounds == 1 ? "" : "s", cmd);
	cs = command_wait(&c);
	if (status != EXIT_CYCLE && status != EXIT_OK)
		return status;
	return status == EXIT_CYCLE ? EXIT_CYCLE : cs;
}

int cmd_waits(int argc, char **argv)
{
	struct waits_opts o;
	struct wscope sc = { .uid = getuid(), .all = geteuid() == 0 };
	char scope[320];
	unsigned rounds;
	size_t i;
	int ret = waits_parse(&o, argc, argv);

	if (ret >= 0)
		return ret;
	/* the man pages' examples name processes of their own */
	if (o.dry_run && getenv("OFFCPU_FTRACE_PARSE_ONLY"))
		return EXIT_OK;
	if (access("/proc/self/stat", R_OK)) {
		err_msg("waits: /proc is not mounted (mount -t proc proc /proc)");
		return EXIT_FAIL;
	}
	for (i = 0; i < o.npids; i++)
		if ((ret = check_pid("", o.pids[i])) >= 0)
			return ret;
	if (o.tree && (ret = check_pid("--tree ", o.tree)) >= 0)
		return ret;
	sc.pids = o.pids;
	sc.npids = o.npids;
	sc.tree = o.tree;
	scope_name(&o, 0, scope, sizeof(scope));
	if (o.dry_run && o.command) {
		char why[512], cmd[160], what[256];

		if (child_can_exec(o.command[0], why, sizeof(why))) {
			err_msg("%s", why);
			return 127;	/* as a shell says "command not found" */
		}
		shell_quote_argv(cmd, sizeof(cmd), o.command, 100);
		snprintf(what, sizeof(what), "%s and its descendants", cmd);
		return dry_run(&o, what);
	}
	if (o.dry_run)
		return dry_run(&o, scope);
	if (o.command)
		return waits_command(&o, &sc);
	sig_setup();
	return watch_loop(&o, &sc, scope, NULL, &rounds);
}
