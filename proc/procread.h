/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsing what /proc says about one thread, without privileges: schedstat
 * (the kernel's own run-queue accounting), stat (state, name, start
 * time), status (context-switch counts), wchan and stack (where it
 * sleeps). Pure functions of the file's text, so recorded snapshots test
 * them.
 */
#ifndef OFFCPU_PROCREAD_H
#define OFFCPU_PROCREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROC_FRAMES 32		/* kernel frames kept from /proc/<tid>/stack */
#define PROC_FRAME_LEN 64

struct proc_sample {
	uint64_t exec_ns;	/* schedstat: time on a CPU */
	uint64_t run_delay_ns;	/* schedstat: time runnable, waiting for one */
	uint64_t pcount;	/* schedstat: times switched in */
	uint64_t vol, invol;	/* status: voluntary / involuntary switches */
	char state;		/* stat: R, S, D, T, t, X, Z, P, I */
	char comm[16];		/* stat: the name */
	int32_t ppid;		/* stat */
	uint64_t start_ticks;	/* stat: start time, clock ticks after boot */
	uint64_t utime, stime;	/* stat: clock ticks */
	uint64_t cutime, cstime;	/* stat: waited-for children's ticks */
};

/* "exec run_delay pcount". 0, or -EINVAL (CONFIG_SCHED_INFO off gives zeros, not an error). */
int proc_parse_schedstat(const char *text, struct proc_sample *s);
/* "pid (comm) S ppid ...": the comm may hold spaces and parentheses. 0 or -EINVAL. */
int proc_parse_stat(const char *text, struct proc_sample *s);
/*
 * voluntary_ctxt_switches / nonvoluntary_ctxt_switches lines, and the
 * Name and State lines when present. 0 or -EINVAL.
 */
int proc_parse_status(const char *text, struct proc_sample *s);
/*
 * wchan: a function name, or "0" when not blocked or not ours to see.
 * Copies it into @fn and returns true when there is one.
 */
bool proc_parse_wchan(const char *text, char fn[PROC_FRAME_LEN]);
/*
 * stack (root): "[<0>] func+0x1b/0x80" lines, innermost first. Fills up
 * to PROC_FRAMES names ("func", or "func [mod]") and returns how many.
 */
unsigned proc_parse_stack(const char *text, char frames[PROC_FRAMES][PROC_FRAME_LEN]);

#endif
