// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Signal handling: handlers only count (SIGCHLD's keeps its time); the main
 * loop ends the window and restores.
 */
#include <string.h>
#include <time.h>

#include "sig.h"

volatile sig_atomic_t sig_count;
volatile sig_atomic_t sig_last;
volatile sig_atomic_t sig_usr1;
_Atomic uint64_t sig_child_ns;

static void on_signal(int sig)
{
	sig_last = sig;
	if (sig_count < 100)
		sig_count++;
}

/*
 * -- COMMAND's end cuts the wait for the next read short (see sig_setup),
 * and its time is kept (clock_gettime is async-signal-safe)
 */
static void on_child(int sig)
{
	struct timespec ts;

	(void)sig;
	if (!clock_gettime(CLOCK_MONOTONIC, &ts))
		sig_child_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void sig_setup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a signal must cut poll() and sleeps short */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/*
	 * SIGCHLD: with SA_RESTART reads and writes carry on, but poll() and
	 * the sleeps between reads (never restarted) return, so a window
	 * ends when the command does, not up to a read period later
	 */
	sa.sa_handler = on_child;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_flags = 0;
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

static void on_usr1(int sig)
{
	(void)sig;
	if (sig_usr1 < 1000000)
		sig_usr1++;
}

void sig_flight_setup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

const char *sig_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	default:
		return "a signal";
	}
}
