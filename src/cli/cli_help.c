// SPDX-License-Identifier: GPL-2.0-or-later
/* --help of the tracing commands (runq, offcpu, triage, record). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

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
"  -P, --pids             one histogram per process (largest total first)\n"
"  -L, --tids             one histogram per thread\n"
"  -C, --cpus             one histogram per CPU (where the interval ended)\n"
"      --by KEY           per pid, tid, cpu (as -P, -L, -C) or comm: per\n"
"                         thread name, a build's processes rolled up by tool\n"
"      --top N            only the N histograms with the most time (with\n"
"                         -K/-U: the N stacks); the rest summed in one line\n"
"  -m, --milliseconds     histogram in milliseconds (default microseconds)\n"
"  -T, --timestamp        print the time before each interval's output\n"
"  -o, --output FILE      write the results to FILE, atomically (with -i,\n"
"                         each interval replaces the last); keeps them apart\n"
"                         from a COMMAND's own output\n"
"      --format FMT       bcc (default), bpftrace, json, openmetrics, or svg (a\n"
"                         picture: a bucket chart; with -i a heat map; with\n"
"                         -K/-U an off-CPU flame graph)\n"
"      --backend NAME     auto (default), hist, ring, perf or proc (no\n"
"                         privileges: sampled from /proc)\n"
"      --rate HZ          proc backend: samples per second (default 20)\n"
"      --tracefs DIR      tracefs mount point (default: found in /proc/mounts)\n"
"      --buffer-size KB   ring buffer per CPU, 64..1048576 KiB (default\n"
"                         32 MiB / online CPUs, kept within 1024..8192)\n"
"      --max-tasks N      threads with a pending start (default 65536)\n"
"      --max-groups N     histograms with -P/-L/-C (default 4096)\n"
"      --cgroup PATH      only threads in this cgroup and below (v2 or v1)\n"
"  -i, --interval SECS    print every SECS seconds (COUNT times, or until\n"
"                         Ctrl-C or the COMMAND ends)\n"
"      --strict           exit 3 when events were lost (results partial)\n"
"      --record FILE      also write the window's events to FILE (trace.dat,\n"
"                         ring backend; see offcpu-ftrace-record(8))\n"
"      --dry-run          check what can be checked without tracing (the\n"
"                         command, -p/-t, the output, the backend) and print\n"
"                         the plan: backend, events, scope, window, output\n"
"  -q, --quiet            no banner, notes or progress line on stderr (on a\n"
"                         terminal a long window shows time traced and left)\n"
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
"      --max-stacks N     distinct stacks and stack totals kept (65536)\n"
"      --late-stacks      with -K and --min US (>= 1000): no stack per\n"
"                         switch-out; read each long block's stack from\n"
"                         /proc/TID/stack while it lasts (root; cheap)\n";

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
"  offcpu-ftrace runq --by comm --top 5 -- make -j8   # which tools wait\n"
"  offcpu-ftrace runq -P --top 5 -i 1 60 --format=svg -o runq.svg   # heat map\n"
"  offcpu-ftrace runq --format=openmetrics 60 > runq.prom.new && mv runq.prom.new runq.prom\n";

static const char offcpu_examples[] =
"\n"
"Examples:\n"
"  offcpu-ftrace offcpu 10            # off-CPU time histogram, 10 seconds\n"
"  offcpu-ftrace offcpu -K 10         # where threads block: time by stack\n"
"  offcpu-ftrace offcpu -K --format=svg -o offcpu.svg 10   # flame graph\n"
"  offcpu-ftrace offcpu -K -f -p 1234 10 > out.folded   # flamegraph.pl input\n"
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
"  -p, -t, -c, --cgroup PATH, --backend, --rate, --tracefs, --buffer-size,\n"
"  --strict, --record FILE, --max-tasks, -o FILE, --dry-run, -q as for runq;\n"
"  --format bcc (text, default), json or openmetrics\n"
"      --wait-p99 MS      p99 wait for a CPU meaning contention (default 5)\n"
"      --wait-share PCT   share of time waiting meaning contention (10)\n"
"      --blocked-share PCT  share of time blocked meaning blocked (50)\n"
"      --oncpu-share PCT  share of time running meaning on-CPU (50)\n"
"      --throttle-share PCT  share of the window throttled by cpu.max (5)\n"
"      --wait-demand PCT  share of the time wanting a CPU spent waiting for\n"
"                         it (p99 >= 1 ms) meaning contention (50)\n"
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
"      --tracefs DIR, --buffer-size KB, --max-tasks N, --strict, --dry-run, -q\n"
"                         as for runq\n"
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

void trace_help(const char *cmd)
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

