/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Signals end a window; they never exit the process. The handler only
 * counts: the first SIGINT/SIGTERM/SIGHUP stops tracing and prints what
 * was measured, a second one skips the output. Restore always runs.
 */
#ifndef OFFCPU_SIG_H
#define OFFCPU_SIG_H

#include <signal.h>
#include <stdint.h>

extern volatile sig_atomic_t sig_count;
extern volatile sig_atomic_t sig_last;

/*
 * The CLOCK_MONOTONIC time (ns) of the last SIGCHLD, 0 before the first:
 * when -- COMMAND exited, to the microsecond, however late the loop
 * notices (child.c; overhead measures the command's wall time by it)
 */
extern _Atomic uint64_t sig_child_ns;

/* --flight: SIGUSR1s received (save the window now), counted by their handler */
extern volatile sig_atomic_t sig_usr1;

/* Install the handlers; SIGPIPE is ignored so writes fail with EPIPE. */
void sig_setup(void);
const char *sig_name(int sig);
/* --flight: SIGUSR1 is counted in sig_usr1 (and cuts poll() short) */
void sig_flight_setup(void);

#endif
