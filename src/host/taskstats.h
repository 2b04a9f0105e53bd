/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's accounting of threads as they exit (taskstats over generic
 * netlink, CONFIG_TASKSTATS): a thread gone before a window's end cannot
 * be read from /proc, but the kernel sends its run_delay (cpu_delay_total,
 * schedstat's second number) and its CPU time (cpu_run_virtual_total) to
 * whoever listens on its CPU as it exits. Needs CAP_NET_ADMIN.
 */
#ifndef OFFCPU_TASKSTATS_H
#define OFFCPU_TASKSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ts_listener {
	int fd;			/* -1: not listening */
	uint16_t family;	/* TASKSTATS' generic netlink id */
	char cpumask[32];	/* "0-N", as registered */
	uint64_t overrun;	/* exits the socket had no room for (ENOBUFS) */
};

/* One exited thread's totals. */
struct ts_exit {
	int32_t tid, tgid;
	uint64_t run_delay_ns;	/* waiting for a CPU, its whole life */
	uint64_t exec_ns;	/* on a CPU */
};

/* Listen to every CPU's exits. 0, or -errno (-ENOENT: no TASKSTATS). */
int ts_open(struct ts_listener *l);
/*
 * Every exit received since the last call, to @cb (non-blocking).
 * Returns the number, or -errno.
 */
int ts_drain(struct ts_listener *l, void (*cb)(void *arg, const struct ts_exit *e), void *arg);
/* Stop listening (accepts a listener never opened). */
void ts_close(struct ts_listener *l);

/*
 * Pure: the exits in one netlink datagram of @len bytes at @buf, to @cb.
 * Returns the number, or -EINVAL for a malformed one (tests/unit).
 */
int ts_parse(const void *buf, size_t len, void (*cb)(void *arg, const struct ts_exit *e),
	     void *arg);

#endif
