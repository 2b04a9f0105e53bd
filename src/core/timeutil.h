/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef OFFCPU_TIMEUTIL_H
#define OFFCPU_TIMEUTIL_H

#include <stdint.h>
#include <errno.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns: the same clock as the "mono" trace clock. */
static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * Sleep until CLOCK_MONOTONIC reaches @ns, the few milliseconds callers
 * ask for, whatever signal comes (a SIGCHLD must not cut a boundary's
 * slack short; a SIGINT is seen right after).
 */
static inline void sleep_until_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

#endif
