/* SPDX-License-Identifier: GPL-2.0-or-later */
/* -- COMMAND: a child held before exec until tracing is on. */
#ifndef OFFCPU_CHILD_H
#define OFFCPU_CHILD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct child {
	pid_t pid;
	int go_fd;	/* write end: releases the child */
	int err_fd;	/* read end: exec's errno, or EOF when exec worked */
	bool done;	/* it has exited (perhaps not yet reaped) */
	bool reaped;
	int status;	/* wait status once reaped */
	uint64_t cpu_ns;	/* once reaped: its and its waited-for children's
			 * user + system time (rusage) */
	uint64_t start_ns;	/* CLOCK_MONOTONIC: released (to exec) */
	uint64_t end_ns;	/* ... exited: the SIGCHLD's time (sig_setup()'s
			 * handler), else when it was seen to have exited */
};

/*
 * Can @name be executed (a path, or found in $PATH as execvp() would)?
 * 0, or -errno with "cannot run ..." in @err: checked before tracing
 * starts, so a typo costs no set-up.
 */
int child_can_exec(const char *name, char *err, size_t errlen);
/*
 * Fork @argv's process, stopped before exec (its stdout onto @stdout_fd,
 * STDERR_FILENO say, unless -1). 0 or -errno (message in @err).
 */
int child_spawn(struct child *c, char *const argv[], int stdout_fd, char *err, size_t errlen);
/* Let it exec. 0, or -errno when exec failed (message in @err). */
int child_release(struct child *c, const char *name, char *err, size_t errlen);
/*
 * Has it exited? Leaves it unreaped (a zombie), so a sampler can still
 * read its final counters; child_reap() then collects it.
 */
bool child_exited(struct child *c);
/*
 * Block until it exits, leaving it unreaped: true once it has, false when
 * a signal cut the wait short (the caller looks at sig_count and waits
 * again).
 */
bool child_wait_exit(struct child *c);
/* Reap an exited child: c->status and c->cpu_ns. */
void child_reap(struct child *c);
/* A reaped child's exit status as a shell says it: the code, or 128 + the signal. */
int child_exit_status(const struct child *c);
/* Wait for it (after our window), forwarding nothing; returns its exit status
 * as a shell would: the code, or 128 + the signal. */
int child_wait(struct child *c);
/*
 * Wait until it exits (leaving it unreaped), passing on to it every
 * signal from the @from-th on (sig_count) that *@passed has not counted,
 * however late. The signals are blocked but in ppoll(), which lets them in
 * and waits at once: one that comes between the look at sig_count and the
 * wait is not left pending (SIGCHLD, its end, cuts the wait short too).
 */
void child_await_passing(struct child *c, int from, int *passed);
/* Kill and reap a child that must not run (setup failed). */
void child_abort(struct child *c);

#endif
