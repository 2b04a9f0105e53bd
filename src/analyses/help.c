// SPDX-License-Identifier: GPL-2.0-or-later
/* What the tracing commands' --help texts share: the common options, the exit status. */
#include <stdio.h>

#include "analysis.h"

static const char common_help[] =
"\n"
"Options:\n"
"  -p, --pid PID          only this process (all its threads)\n"
"  -t, --tid TID          only this thread\n"
"  -c, --comm COMM        only threads named COMM (exact, at most 15 bytes)\n"
"  -P, --pids             one histogram per process (largest total first)\n"
"  -L, --tids             one histogram per thread\n"
"  -C, --cpus             one histogram per CPU (where the interval ended)\n"
"      --by KEY           per pid, tid, cpu (as -P, -L, -C), comm (per thread\n"
"                         name: a build's processes rolled up by tool) or\n"
"                         cgroup (per container: its id, or the cgroup's path)\n"
"      --cgroup-depth N   --by cgroup: cgroups below depth N added to their\n"
"                         ancestor at N (a systemd slice tree stays readable)\n"
"      --cgroup-controller NAME  --by cgroup: the v1 hierarchy of controller\n"
"                         NAME (default cpu; v2 has one tree)\n"
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
"                         ring or perf backend; offcpu-ftrace-record(8))\n"
"      --flight SECS      with --record: keep only the last SECS in memory and\n"
"                         save them when --runq-over US, --offcpu-over US or\n"
"                         SIGUSR1 fires (offcpu-ftrace-record(8), FLIGHT RECORDER)\n"
"      --dry-run          check what can be checked without tracing (the\n"
"                         command, -p/-t, the output, the backend) and print\n"
"                         the plan: backend, events, scope, window, output\n"
"  -q, --quiet            no banner, notes or progress line on stderr (on a\n"
"                         terminal a long window shows time traced and left)\n"
"  -h, --help             this help\n";

static const char xval_help[] =
"      --xval             run the equivalent bpftrace program over the same\n"
"                         window and compare its histogram with ours\n";

void an_help_common(FILE *f)
{
	fputs(common_help, f);
	fputs(xval_help, f);
}

void an_help_exit(FILE *f, const char *name)
{
	fputs("\nExit status: 0 done, 1 tracing failed (message says why), "
	      "2 bad usage,\n3 events were lost and --strict was given.\nSee offcpu-ftrace-", f);
	fputs(name, f);
	fputs("(8).\n", f);
}
