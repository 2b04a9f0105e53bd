// SPDX-License-Identifier: GPL-2.0-or-later
/* -- COMMAND: the child held before exec until tracing is on, then waited for. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "sig.h"
#include "timeutil.h"

int child_can_exec(const char *name, char *err, size_t errlen)
{
	const char *path = getenv("PATH"), *p, *end;
	char full[4096];
	int e = ENOENT;

	if (!*name) {
		snprintf(err, errlen, "cannot run '': empty command");
		return -ENOENT;
	}
	if (strchr(name, '/')) {
		if (access(name, X_OK) == 0)
			return 0;
		e = errno;
		snprintf(err, errlen, "cannot run '%s': %s", name, strerror(e));
		return -e;
	}
	for (p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin"; ; p = end + 1) {
		size_t n;

		end = strchrnul(p, ':');
		n = (size_t)(end - p);
		if (snprintf(full, sizeof(full), "%.*s/%s", (int)n, n ? p : ".", name) <
		    (int)sizeof(full)) {
			if (access(full, X_OK) == 0)
				return 0;
			if (errno == EACCES)
				e = EACCES;
		}
		if (!*end)
			break;
	}
	snprintf(err, errlen, "cannot run '%s': %s", name, e == ENOENT ?
		 "command not found in $PATH" : strerror(e));
	return -e;
}

int child_spawn(struct child *c, char *const argv[], int stdout_fd, char *err, size_t errlen)
{
	int go[2], ex[2];
	char b;

	memset(c, 0, sizeof(*c));
	c->go_fd = c->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -errno;
	}
	c->pid = fork();
	if (c->pid < 0) {
		int e = errno;

		snprintf(err, errlen, "fork: %s", strerror(e));
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return -e;
	}
	if (c->pid == 0) {
		struct sigaction sa;
		sigset_t none;
		int e;

		close(go[1]);
		close(ex[0]);
		/*
		 * It keeps our name until exec: a BPF tool keying on the
		 * command's name would count our set-up as the command's
		 * off-CPU time (bpf_agree.sh saw dd's total 3% high).
		 */
		/* the command gets the signal dispositions a shell would give it */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sigaction(SIGPIPE, &sa, NULL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* wait until tracing is on; EOF means the parent gave up */
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		/* the parent reads why, when the dup or the exec fails */
		if (stdout_fd < 0 || dup2(stdout_fd, STDOUT_FILENO) >= 0)
			execvp(argv[0], argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	c->go_fd = go[1];
	c->err_fd = ex[0];
	return 0;
}

int child_release(struct child *c, const char *name, char *err, size_t errlen)
{
	ssize_t n;
	int e = 0;

	c->start_ns = mono_ns();
	if (write(c->go_fd, "g", 1) != 1) {
		snprintf(err, errlen, "cannot start %s: %s", name, strerror(errno));
		return -EIO;
	}
	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		snprintf(err, errlen, "cannot run %s: %s", name, strerror(e));
		return -e;
	}
	return 0;
}

/* It has exited: when, from the SIGCHLD it sent if that came after its start. */
static void mark_done(struct child *c)
{
	uint64_t at = sig_child_ns;

	if (c->done)
		return;
	c->done = true;
	c->end_ns = at >= c->start_ns && c->start_ns ? at : mono_ns();
}

bool child_exited(struct child *c)
{
	siginfo_t si;

	if (!c->done && c->pid > 0) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == c->pid)
			mark_done(c);
	}
	return c->done;
}

bool child_wait_exit(struct child *c)
{
	siginfo_t si;

	if (c->done || c->pid <= 0)
		return true;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOWAIT) == 0) {
		mark_done(c);
		return true;
	}
	if (errno == EINTR)
		return false;
	/* not ours to wait for (cannot happen): as a shell's "cannot run" */
	c->done = c->reaped = true;
	c->end_ns = mono_ns();
	c->status = 127 << 8;
	return true;
}

/* wait4() for the child, blocking or not; true when it was reaped. */
static bool reap(struct child *c, int flags)
{
	struct rusage ru;

	if (c->reaped || c->pid <= 0)
		return c->reaped;
	if (wait4(c->pid, &c->status, flags, &ru) != c->pid)
		return false;
	mark_done(c);
	c->reaped = true;
	c->cpu_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ULL +
		    ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ULL;
	return true;
}

void child_reap(struct child *c)
{
	if (c->done)
		reap(c, 0);
}

int child_exit_status(const struct child *c)
{
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return 127;
}

int child_wait(struct child *c)
{
	while (!reap(c, 0) && c->pid > 0)
		if (errno != EINTR)
			return 127;
	return child_exit_status(c);
}

void child_abort(struct child *c)
{
	if (c->go_fd >= 0)
		close(c->go_fd);	/* the child reads EOF and exits */
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	if (c->pid > 0 && !c->reaped) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, &c->status, 0);
		c->done = c->reaped = true;
	}
}

void child_await_passing(struct child *c, int from, int *passed)
{
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	while (!child_exited(c)) {
		if (sig_count >= from && sig_count > *passed) {
			kill(c->pid, sig_last);
			*passed = sig_count;
			continue;	/* look again: it may have ended at once */
		}
		ppoll(NULL, 0, NULL, &old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}
