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

/* Install the handlers; SIGPIPE is ignored so writes fail with EPIPE. */
void sig_setup(void);
const char *sig_name(int sig);

#endif
