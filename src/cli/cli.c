// SPDX-License-Identifier: GPL-2.0-or-later
/* Options shared by the tracing commands, parsed strictly. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "numparse.h"

void err_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("offcpu-ftrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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

static const char runq_help[] =
"Usage: offcpu-ftrace runq [OPTIONS] [DURATION [COUNT]]\n"
"       offcpu-ftrace runq [OPTIONS] -- COMMAND [ARGS]\n"
"\n"
"Run-queue latency: how long threads wait for a CPU after they become\n"
"runnable (woken, newly created, or preempted) until they run, as a\n"
"histogram. DURATION is in seconds (0.5, 10, 2m); COUNT prints that many\n"
"DURATION-long intervals (default 1). Without DURATION: until Ctrl-C.\n"
"With -- COMMAND: run COMMAND, trace it and every process and thread it\n"
"starts for its whole life, and exit with its exit status.\n";

static const char offcpu_help[] =
"Usage: offcpu-ftrace offcpu [OPTIONS] [DURATION [COUNT]]\n"
"       offcpu-ftrace offcpu [OPTIONS] -- COMMAND [ARGS]\n"
"\n"
"Off-CPU time: how long threads stay off a CPU, from the context switch\n"
"that takes them off to the one that puts them back (blocked on I/O,\n"
"locks, sleeps, and waiting on the run queue after preemption), as a\n"
"histogram. DURATION, COUNT and -- COMMAND as for runq.\n";

static const char common_help[] =
"\n"
"Options:\n"
"  -p, --pid PID          only this process (all its threads)\n"
"  -t, --tid TID          only this thread\n"
"  -c, --comm COMM        only threads named COMM (exact, at most 15 bytes)\n"
"  -P, --pids             one histogram per process\n"
"  -L, --tids             one histogram per thread\n"
"  -C, --cpus             one histogram per CPU (where the interval ended)\n"
"  -m, --milliseconds     histogram in milliseconds (default microseconds)\n"
"  -T, --timestamp        print the time before each interval's output\n"
"      --format FMT       bcc (default), bpftrace, json or openmetrics\n"
"      --backend NAME     auto (default), hist, ring or perf\n"
"      --tracefs DIR      tracefs mount point (default: found in /proc/mounts)\n"
"      --buffer-size KB   ring buffer per CPU (default 32 MiB / online CPUs,\n"
"                         1024..8192 KiB)\n"
"      --max-tasks N      threads with a pending start (default 65536)\n"
"      --max-groups N     histograms with -P/-L/-C (default 4096)\n"
"      --cgroup PATH      only threads in this cgroup and below (v2 or v1)\n"
"  -i, --interval SECS    print every SECS seconds (COUNT times, or until\n"
"                         Ctrl-C or the COMMAND ends)\n"
"      --strict           exit 3 when events were lost (results partial)\n"
"      --record FILE      also write the window's events to FILE (trace.dat,\n"
"                         ring backend; see offcpu-ftrace-record(8))\n"
"      --dry-run          check the command line and exit\n"
"  -h, --help             this help\n";

static const char offcpu_only_help[] =
"      --state LETTERS    only intervals that began in these states, e.g.\n"
"                         S, D, S,D, R (preempted); default all\n"
"      --min US           only intervals of at least US microseconds\n"
"      --max US           only intervals of at most US microseconds\n"
"  -K, --kernel-stacks    total off-CPU time by kernel stack (offcputime)\n"
"  -U, --user-stacks      ... and by user stack (needs frame pointers;\n"
"                         the ring backend keeps 8 user frames)\n"
"  -f, --folded           folded stacks for flame graphs (with -K/-U)\n"
"  -d, --delimited        '-' between user and kernel frames in -f output\n"
"      --stack-depth N    print at most N frames per stack (default 127)\n"
"      --top N            only the N stacks with the most time\n"
"      --max-stacks N     distinct stacks and stack totals kept (65536)\n";

static const char runq_only_help[] =
"      --compat PEER      count what PEER counts: bcc (default: wakeup,\n"
"                         wakeup_new, preempted R or R+), bpftrace\n"
"                         (runqlat.bt: preempted R only), perf (perf sched\n"
"                         timehist: from the first sched_waking)\n";

static const char xval_help[] =
"      --xval             run the equivalent bpftrace program over the same\n"
"                         window and compare its histogram with ours\n";

static const char runq_examples[] =
"\n"
"Examples:\n"
"  offcpu-ftrace runq 10              # one histogram of 10 seconds\n"
"  offcpu-ftrace runq 1 5             # five 1-second histograms\n"
"  offcpu-ftrace runq -P -m 5         # per process, milliseconds\n"
"  offcpu-ftrace runq -L -p 1234 10   # per thread of process 1234\n"
"  offcpu-ftrace runq --format=json 10 > runq.json\n"
"  offcpu-ftrace runq --format=bpftrace 10   # diff against runqlat.bt\n"
"  offcpu-ftrace runq --compat=bpftrace --xval 10   # and check it live\n"
"  offcpu-ftrace runq -L -- make -j8  # every thread of a build\n"
"  offcpu-ftrace runq --format=openmetrics 60 > runq.prom.new && mv runq.prom.new runq.prom\n";

static const char offcpu_examples[] =
"\n"
"Examples:\n"
"  offcpu-ftrace offcpu 10            # off-CPU time histogram, 10 seconds\n"
"  offcpu-ftrace offcpu -K 10         # where threads block: time by stack\n"
"  offcpu-ftrace offcpu -K -f -p 1234 10 > out.folded   # flame graph input\n"
"  offcpu-ftrace offcpu -KU --state D --top 20 10\n"
"  offcpu-ftrace offcpu --state D 10  # uninterruptible waits only (I/O)\n"
"  offcpu-ftrace offcpu -P --min 1000 10   # per process, >= 1 ms only\n"
"  offcpu-ftrace offcpu -t 4321 -m 30 # one thread, milliseconds\n";

static const char triage_help[] =
"Usage: offcpu-ftrace triage [OPTIONS] [DURATION]\n"
"       offcpu-ftrace triage [OPTIONS] -- COMMAND [ARGS]\n"
"\n"
"Running, or waiting -- and waiting for what? One capture of the selected\n"
"threads (all, -p, -t, -c, --cgroup, or a COMMAND and its descendants):\n"
"time running, waiting for a CPU and blocked, the tails, pressure stall\n"
"information and cgroup CPU throttling, and a verdict with the numbers\n"
"behind it and the next command to run.\n"
"\n"
"Options:\n"
"  -p, -t, -c, --cgroup PATH, --backend, --tracefs, --buffer-size, --strict,\n"
"  --record FILE, --max-tasks as for runq; --format bcc (text, default), json\n"
"  or openmetrics\n"
"      --wait-p99 MS      p99 wait for a CPU meaning contention (default 5)\n"
"      --wait-share PCT   share of time waiting meaning contention (10)\n"
"      --blocked-share PCT  share of time blocked meaning blocked (50)\n"
"      --oncpu-share PCT  share of time running meaning on-CPU (50)\n"
"      --throttle-share PCT  share of the window throttled by cpu.max (5)\n"
"  -h, --help             this help\n"
"\n"
"Examples:\n"
"  offcpu-ftrace triage 10                   # the whole host, 10 seconds\n"
"  offcpu-ftrace triage -- make -j8          # one build, start to end\n"
"  offcpu-ftrace triage --cgroup /sys/fs/cgroup/ci.slice 30\n"
"  offcpu-ftrace triage --format=json -p 1234 10\n"
"\n"
"Exit status: 0 done (with -- COMMAND: its exit status), 1 tracing failed,\n"
"2 bad usage, 3 events lost with --strict. See offcpu-ftrace-triage(8).\n";

static const char record_help[] =
"Usage: offcpu-ftrace record [-o FILE] [OPTIONS] [DURATION]\n"
"       offcpu-ftrace record [-o FILE] [OPTIONS] -- COMMAND [ARGS]\n"
"\n"
"Capture the sched events of a window into a trace.dat file, to analyse\n"
"later, elsewhere, with 'offcpu-ftrace report' (or trace-cmd report,\n"
"KernelShark). The file holds the raw per-CPU pages and what decoding\n"
"them needs: event formats, clock, task names, kernel version, CPU count,\n"
"window, lost-event counts, and the kernel symbols of captured stacks.\n"
"It is created mode 0600 and renamed into place when complete.\n"
"\n"
"Options:\n"
"  -o, --output FILE      where to write (default: offcpu-ftrace.dat)\n"
"  -p, --pid PID          only this process (filtered in the kernel)\n"
"  -t, --tid TID          only this thread\n"
"  -K, --kernel-stacks    also a kernel stack at each switch-out\n"
"  -U, --user-stacks      also a user stack at each switch-out\n"
"      --state LETTERS    stacks only for switch-outs in these states\n"
"      --backend ring     the only backend that records\n"
"      --tracefs DIR, --buffer-size KB, --max-tasks N, --strict  as for runq\n"
"  -h, --help             this help\n"
"\n"
"Without DURATION, until Ctrl-C; with -- COMMAND, the command's life.\n"
"\n"
"Examples:\n"
"  offcpu-ftrace record -o ci.dat 10              # ten seconds of the host\n"
"  offcpu-ftrace record -K -o build.dat -- make -j8\n"
"  offcpu-ftrace report ci.dat runq -P            # later, anywhere\n"
"\n"
"Exit status: 0 recorded (with -- COMMAND: its exit status), 1 failed,\n"
"2 bad usage, 3 events lost with --strict. See offcpu-ftrace-record(8).\n";

static void print_help(const char *cmd)
{
	bool runq = !strcmp(cmd, "runq");

	if (!strcmp(cmd, "triage")) {
		fputs(triage_help, stdout);
		return;
	}
	if (!strcmp(cmd, "record")) {
		fputs(record_help, stdout);
		return;
	}
	fputs(runq ? runq_help : offcpu_help, stdout);
	fputs(common_help, stdout);
	fputs(xval_help, stdout);
	fputs(runq ? runq_only_help : offcpu_only_help, stdout);
	fputs(runq ? runq_examples : offcpu_examples, stdout);
	fputs("\nExit status: 0 done, 1 tracing failed (message says why), "
	      "2 bad usage,\n3 events were lost and --strict was given.\nSee offcpu-ftrace-",
	      stdout);
	fputs(cmd, stdout);
	fputs("(8).\n", stdout);
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
	OPT_COMPAT,
	OPT_XVAL,
	OPT_STACK_DEPTH,
	OPT_TOP,
	OPT_MAX_STACKS,
	OPT_RECORD,
};

static const struct option long_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "comm", required_argument, NULL, 'c' },
	{ "pids", no_argument, NULL, 'P' },
	{ "tids", no_argument, NULL, 'L' },
	{ "cpus", no_argument, NULL, 'C' },
	{ "milliseconds", no_argument, NULL, 'm' },
	{ "timestamp", no_argument, NULL, 'T' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "tracefs", required_argument, NULL, OPT_TRACEFS },
	{ "buffer-size", required_argument, NULL, OPT_BUFFER },
	{ "max-tasks", required_argument, NULL, OPT_MAX_TASKS },
	{ "max-groups", required_argument, NULL, OPT_MAX_GROUPS },
	{ "state", required_argument, NULL, OPT_STATE },
	{ "min", required_argument, NULL, OPT_MIN },
	{ "max", required_argument, NULL, OPT_MAX },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "wait-p99", required_argument, NULL, OPT_TH_TAIL },
	{ "wait-share", required_argument, NULL, OPT_TH_WAIT },
	{ "blocked-share", required_argument, NULL, OPT_TH_BLOCKED },
	{ "oncpu-share", required_argument, NULL, OPT_TH_ONCPU },
	{ "throttle-share", required_argument, NULL, OPT_TH_THROTTLE },
	{ "interval", required_argument, NULL, 'i' },
	{ "compat", required_argument, NULL, OPT_COMPAT },
	{ "xval", no_argument, NULL, OPT_XVAL },
	{ "kernel-stacks", no_argument, NULL, 'K' },
	{ "user-stacks", no_argument, NULL, 'U' },
	{ "folded", no_argument, NULL, 'f' },
	{ "delimited", no_argument, NULL, 'd' },
	{ "stack-depth", required_argument, NULL, OPT_STACK_DEPTH },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "max-stacks", required_argument, NULL, OPT_MAX_STACKS },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
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

static int set_key(struct trace_opts *o, enum an_key k, char c)
{
	if (o->key != KEY_NONE && o->key != k) {
		usage_err(o->cmd, "-P, -L and -C exclude each other (-%c given too)", c);
		return EXIT_USAGE;
	}
	o->key = k;
	return -1;
}

int trace_opts_parse(struct trace_opts *o, const char *cmd, int argc, char **argv)
{
	bool triage = !strcmp(cmd, "triage");
	bool record = !strcmp(cmd, "record");
	bool offcpu = !strcmp(cmd, "offcpu") || record;	/* record takes -K/-U */
	char **command = NULL;
	uint64_t v;
	int c, ret, i;

	/* "-- COMMAND ARGS": everything after it belongs to the command */
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			if (i + 1 < argc)
				command = argv + i + 1;
			argc = i;
			break;
		}

	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->modes = triage ? AN_RUNQ | AN_OFFCPU : offcpu ? AN_OFFCPU : AN_RUNQ;
	o->triage = triage;
	o->th.runq_tail_us = 5000;
	o->th.runq_share = 10;
	o->th.blocked_share = 50;
	o->th.oncpu_share = 50;
	o->th.throttle_share = 5;
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
	if (record) {
		o->record_only = true;
		o->record_path = "offcpu-ftrace.dat";
		o->modes = AN_RUNQ | AN_OFFCPU;
	}

	optind = 0;	/* glibc: full reset, also of its internal state */
	opterr = 0;
	while ((c = getopt_long(argc, argv, record ? ":p:t:o:hKU" : ":p:t:c:i:PLCmThKUfd",
				long_opts, NULL)) != -1) {
		if (record && c >= OPT_FORMAT && c != OPT_BACKEND && c != OPT_TRACEFS &&
		    c != OPT_BUFFER && c != OPT_STRICT && c != OPT_DRY_RUN &&
		    c != OPT_MAX_TASKS && c != OPT_STATE) {
			usage_err(cmd, "%s is an option of the analysis: give it to "
				  "'offcpu-ftrace report'", argv[optind - 1]);
			return EXIT_USAGE;
		}
		switch (c) {
		case 'o':
		case OPT_RECORD:
			if (!*optarg) {
				usage_err(cmd, "%s needs a file name", c == 'o' ? "-o" : "--record");
				return EXIT_USAGE;
			}
			if (c == 'o' ? !record : record) {
				usage_err(cmd, "unknown option '%s'", argv[optind - 1]);
				return EXIT_USAGE;
			}
			o->record_path = optarg;
			break;
		case 'p':
		case 't':
			if (parse_pid(optarg, c == 'p' ? &o->pid : &o->tid)) {
				usage_err(cmd, "-%c: '%s' is not a process id (1..4194304)",
					  c, optarg);
				return EXIT_USAGE;
			}
			break;
		case 'c':
			if (!*optarg || strlen(optarg) >= COMM_LEN) {
				usage_err(cmd, "-c: COMM must be 1 to %d bytes (the kernel "
					  "truncates task names to %d)", COMM_LEN - 1,
					  COMM_LEN - 1);
				return EXIT_USAGE;
			}
			memcpy(o->comm, optarg, strlen(optarg));
			break;
		case 'P':
			if ((ret = set_key(o, KEY_PID, 'P')) >= 0)
				return ret;
			break;
		case 'L':
			if ((ret = set_key(o, KEY_TID, 'L')) >= 0)
				return ret;
			break;
		case 'C':
			if ((ret = set_key(o, KEY_CPU, 'C')) >= 0)
				return ret;
			break;
		case 'm':
			o->msecs = true;
			break;
		case 'T':
			o->timestamp = true;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "bcc"))
				o->fmt = FMT_BCC;
			else if (!strcmp(optarg, "bpftrace"))
				o->fmt = FMT_BPFTRACE;
			else if (!strcmp(optarg, "json"))
				o->fmt = FMT_JSON;
			else if (!strcmp(optarg, "openmetrics"))
				o->fmt = FMT_OPENMETRICS;
			else {
				usage_err(cmd, "--format: '%s' is not one of bcc, bpftrace, json, "
					  "openmetrics", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_BACKEND:
			if (strcmp(optarg, "auto") && strcmp(optarg, "ring") &&
			    strcmp(optarg, "perf") && strcmp(optarg, "hist")) {
				usage_err(cmd, "--backend: '%s' is not one of auto, hist, ring, perf",
					  optarg);
				return EXIT_USAGE;
			}
			o->backend = optarg;
			break;
		case OPT_TRACEFS:
			o->tracefs = optarg;
			break;
		case OPT_BUFFER:
			if (parse_u64(optarg, 64, 1024 * 1024, &v)) {
				usage_err(cmd, "--buffer-size: '%s' is not a size in KiB "
					  "(64..1048576)", optarg);
				return EXIT_USAGE;
			}
			o->buffer_kb = (uint32_t)v;
			break;
		case OPT_MAX_TASKS:
		case OPT_MAX_GROUPS:
			if (parse_u64(optarg, 1, 1u << 24, &v)) {
				usage_err(cmd, "--%s: '%s' is not a count (1..16777216)",
					  c == OPT_MAX_TASKS ? "max-tasks" : "max-groups", optarg);
				return EXIT_USAGE;
			}
			if (c == OPT_MAX_TASKS)
				o->max_tasks = (uint32_t)v;
			else
				o->max_groups = (uint32_t)v;
			break;
		case OPT_STATE:
		case OPT_MIN:
		case OPT_MAX:
			if (!offcpu) {
				usage_err(cmd, "--%s is an option of offcpu",
					  c == OPT_STATE ? "state" : c == OPT_MIN ? "min" : "max");
				return EXIT_USAGE;
			}
			if (c == OPT_STATE) {
				if (check_state(optarg)) {
					usage_err(cmd, "--state: '%s' is not a list of state "
						  "letters such as S, D or S,D", optarg);
					return EXIT_USAGE;
				}
				o->state = optarg;
			} else if (parse_u64(optarg, 0, UINT64_MAX / 1000, &v)) {
				usage_err(cmd, "--%s: '%s' is not a number of microseconds",
					  c == OPT_MIN ? "min" : "max", optarg);
				return EXIT_USAGE;
			} else if (c == OPT_MIN) {
				o->min_us = v;
			} else {
				o->max_us = v;
			}
			break;
		case OPT_DRY_RUN:
			o->dry_run = true;
			break;
		case OPT_STRICT:
			o->strict = true;
			break;
		case OPT_CGROUP:
			o->cgroup = optarg;
			break;
		case OPT_TH_TAIL:
		case OPT_TH_WAIT:
		case OPT_TH_BLOCKED:
		case OPT_TH_ONCPU:
		case OPT_TH_THROTTLE:
			if (!triage) {
				usage_err(cmd, "the --*-share and --wait-p99 thresholds are "
					  "options of triage");
				return EXIT_USAGE;
			}
			if (parse_u64(optarg, c == OPT_TH_TAIL ? 1 : 0, c == OPT_TH_TAIL ?
				      3600000 : 100, &v)) {
				usage_err(cmd, "'%s' is not %s", optarg, c == OPT_TH_TAIL ?
					  "a number of milliseconds" : "a percentage (0..100)");
				return EXIT_USAGE;
			}
			if (c == OPT_TH_TAIL)
				o->th.runq_tail_us = v * 1000;
			else if (c == OPT_TH_WAIT)
				o->th.runq_share = (unsigned)v;
			else if (c == OPT_TH_BLOCKED)
				o->th.blocked_share = (unsigned)v;
			else if (c == OPT_TH_ONCPU)
				o->th.oncpu_share = (unsigned)v;
			else
				o->th.throttle_share = (unsigned)v;
			break;
		case 'i':
			if (parse_duration(optarg, &o->duration_ns)) {
				usage_err(cmd, "-i: '%s' is not a positive number of seconds", optarg);
				return EXIT_USAGE;
			}
			o->interval_mode = true;
			o->count = UINT64_MAX;
			break;
		case OPT_COMPAT:
			if (offcpu) {
				usage_err(cmd, "--compat is an option of runq");
				return EXIT_USAGE;
			}
			if (!strcmp(optarg, "bcc"))
				o->compat = COMPAT_BCC;
			else if (!strcmp(optarg, "bpftrace"))
				o->compat = COMPAT_BPFTRACE;
			else if (!strcmp(optarg, "perf"))
				o->compat = COMPAT_PERF;
			else {
				usage_err(cmd, "--compat: '%s' is not one of bcc, bpftrace, perf",
					  optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_XVAL:
			o->xval = true;
			break;
		case 'K':
		case 'U':
		case 'f':
		case 'd':
			if (!offcpu) {
				usage_err(cmd, "-%c is an option of offcpu", c);
				return EXIT_USAGE;
			}
			if (c == 'K')
				o->kstack = true;
			else if (c == 'U')
				o->ustack = true;
			else if (c == 'f')
				o->folded = true;
			else
				o->delimited = true;
			break;
		case OPT_STACK_DEPTH:
		case OPT_TOP:
		case OPT_MAX_STACKS:
			if (!offcpu) {
				usage_err(cmd, "%s is an option of offcpu", c == OPT_TOP ? "--top" :
					  c == OPT_STACK_DEPTH ? "--stack-depth" : "--max-stacks");
				return EXIT_USAGE;
			}
			if (parse_u64(optarg, 1, c == OPT_STACK_DEPTH ? STACK_MAX_DEPTH : 1u << 24, &v)) {
				usage_err(cmd, "%s: '%s' is not a count (1..%u)",
					  c == OPT_TOP ? "--top" : c == OPT_STACK_DEPTH ?
					  "--stack-depth" : "--max-stacks", optarg,
					  c == OPT_STACK_DEPTH ? STACK_MAX_DEPTH : 1u << 24);
				return EXIT_USAGE;
			}
			if (c == OPT_STACK_DEPTH)
				o->stack_depth = (uint32_t)v;
			else if (c == OPT_TOP)
				o->top = (uint32_t)v;
			else
				o->max_stacks = (uint32_t)v;
			break;
		case 'h':
			print_help(cmd);
			return EXIT_OK;
		case ':':
			usage_err(cmd, "%s needs a value", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			usage_err(cmd, "unknown option '%s'", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (o->pid >= 0 && o->tid >= 0) {
		usage_err(cmd, "-p and -t cannot be combined");
		return EXIT_USAGE;
	}
	if ((o->folded || o->delimited || o->top) && !o->kstack && !o->ustack) {
		usage_err(cmd, "-f, -d and --top need stacks: add -K and/or -U");
		return EXIT_USAGE;
	}
	if (triage && (o->key != KEY_NONE || o->fmt == FMT_BPFTRACE || o->xval)) {
		usage_err(cmd, "triage has no -P/-L/-C, --format=bpftrace or --xval");
		return EXIT_USAGE;
	}
	if ((o->kstack || o->ustack) && o->fmt == FMT_OPENMETRICS) {
		usage_err(cmd, "stacks have no openmetrics layout: use the default, -f or "
			  "--format=json");
		return EXIT_USAGE;
	}
	if ((o->kstack || o->ustack) && o->fmt == FMT_BPFTRACE) {
		usage_err(cmd, "stacks have no bpftrace layout: use the default, -f or "
			  "--format=json");
		return EXIT_USAGE;
	}
	if ((o->kstack || o->ustack) && o->key == KEY_CPU) {
		usage_err(cmd, "stacks are summed per thread (default) or process (-P), not per CPU");
		return EXIT_USAGE;
	}
	if (o->xval && (o->pid >= 0 || o->key == KEY_PID || o->kstack || o->ustack)) {
		usage_err(cmd, "--xval supports -t, -c, -L, -C and -m; not -p, -P or stacks");
		return EXIT_USAGE;
	}
	if (o->folded && o->fmt == FMT_JSON) {
		usage_err(cmd, "-f and --format=json exclude each other");
		return EXIT_USAGE;
	}
	if (o->min_us > o->max_us) {
		usage_err(cmd, "--min is larger than --max");
		return EXIT_USAGE;
	}
	if (optind < argc && o->interval_mode) {
		/* -i gave the interval: a lone number is the COUNT */
		if (parse_u64(argv[optind], 1, 1000000000, &o->count)) {
			usage_err(cmd, "COUNT: '%s' is not a count of intervals (1..1000000000)",
				  argv[optind]);
			return EXIT_USAGE;
		}
		optind++;
	}
	if (optind < argc) {
		if (parse_duration(argv[optind], &o->duration_ns)) {
			usage_err(cmd, "DURATION: '%s' is not a positive number of seconds "
				  "(at most a year; units s, m, h allowed)", argv[optind]);
			return EXIT_USAGE;
		}
		optind++;
	}
	if (optind < argc) {
		if (parse_u64(argv[optind], 1, 1000000000, &o->count)) {
			usage_err(cmd, "COUNT: '%s' is not a count of intervals (1..1000000000)",
				  argv[optind]);
			return EXIT_USAGE;
		}
		optind++;
	}
	if (optind < argc) {
		usage_err(cmd, "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (o->record_path && strcmp(o->backend, "auto") && strcmp(o->backend, "ring")) {
		usage_err(cmd, "%s: recordings are made by the ring backend, not %s",
			  record ? "record" : "--record", o->backend);
		return EXIT_USAGE;
	}
	if (o->record_path && (o->interval_mode || o->count > 1)) {
		usage_err(cmd, "a recording is one window: no -i or COUNT");
		return EXIT_USAGE;
	}
	if (o->record_path)
		o->backend = "ring";
	if (o->command && !o->interval_mode && o->duration_ns) {
		usage_err(cmd, "with -- COMMAND the window is the command's life: no "
			  "DURATION (use -i for periodic output)");
		return EXIT_USAGE;
	}
	if (o->command && (o->pid >= 0 || o->tid >= 0)) {
		usage_err(cmd, "-- COMMAND traces the command and its descendants: no -p/-t");
		return EXIT_USAGE;
	}
	if (o->command && o->xval) {
		usage_err(cmd, "--xval needs a timed window, not -- COMMAND");
		return EXIT_USAGE;
	}
	if (o->xval && (o->count > 1 || !o->duration_ns)) {
		usage_err(cmd, "--xval needs one timed window: DURATION without COUNT");
		return EXIT_USAGE;
	}
	return -1;
}
