/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Signals end a window; they never exit the process. The handler only
 * counts: the first SIGINT/SIGTERM/SIGHUP stops tracing and prints what
 * was measured, a second one skips the output. Restore always runs.
 */
#ifndef OFFCPU_SIG_H
#define OFFCPU_SIG_H

#include <signal.h>

extern volatile sig_atomic_t sig_count;
extern volatile sig_atomic_t sig_last;

/* --flight: SIGUSR1s received (save the window now), counted by their handler */
extern volatile sig_atomic_t sig_usr1;

/* Install the handlers; SIGPIPE is ignored so writes fail with EPIPE. */
void sig_setup(void);
const char *sig_name(int sig);
/* --flight: SIGUSR1 is counted in sig_usr1 (and cuts poll() short) */
void sig_flight_setup(void);

#endif
