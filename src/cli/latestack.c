// SPDX-License-Identifier: GPL-2.0-or-later
/* --late-stacks: kernel stacks of long blocks read from /proc while blocked. */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "event.h"
#include "fileread.h"
#include "latestack.h"

uint64_t late_stacks_period_ns(uint64_t min_us)
{
	uint64_t p = min_us * 1000 / 2;

	return p < 5000000 ? 5000000 : p > 100000000 ? 100000000 : p;
}

int late_stacks_setup(struct late_stacks *ls, uint64_t min_us, struct ksyms *k, bool mono)
{
	memset(ls, 0, sizeof(*ls));
	if (!mono) {
		err_msg("--late-stacks compares the trace's times with the clock: this kernel's "
			"tracefs has no mono trace clock; drop --late-stacks");
		return -1;
	}
	if (!k || ksyms_restricted(k)) {
		err_msg("--late-stacks maps /proc stacks to addresses through /proc/kallsyms, "
			"which hides them here (kptr_restrict): drop --late-stacks");
		return -1;
	}
	if (access("/proc/self/stack", R_OK)) {
		err_msg("--late-stacks reads /proc/TID/stack, which this kernel does not offer "
			"(CONFIG_STACKTRACE) or lets no one read: drop --late-stacks");
		return -1;
	}
	ls->on = true;
	ls->min_ns = min_us * 1000;
	ls->period_ns = late_stacks_period_ns(min_us);
	ls->ksyms = k;
	return 0;
}

int late_stacks_wait_ms(const struct late_stacks *ls, uint64_t now, int ms)
{
	uint64_t left;

	if (!ls->on)
		return ms;
	/* rounded up: a wait of 0 would spin until the scan is due */
	left = ls->next_ns > now ? (ls->next_ns - now + 999999) / 1000000 : 1;
	return left < (uint64_t)ms ? (int)left : ms;
}

/* The stack of @tid if it is still blocked (not R, not gone). */
static unsigned read_stack(int32_t tid, uint64_t *frames, void *arg)
{
	struct late_stacks *ls = arg;
	char path[64], *text;
	const char *st;
	unsigned unknown = 0, n = 0;
	bool blocked;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	text = file_read_max(path, 4096, NULL);
	/* running or runnable: woken, its switch-in not read yet */
	blocked = text && (st = strrchr(text, ')')) && st[1] == ' ' && st[2] &&
		  !strchr("RXZx", st[2]);
	free(text);
	if (!blocked)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stack", (int)tid);
	text = file_read_max(path, 65536, NULL);
	if (text) {
		n = ksyms_proc_stack(ls->ksyms, text, frames, STACK_MAX_DEPTH, &unknown);
		ls->unknown_frames += unknown;
		free(text);
	} else if (errno != ENOENT && errno != ESRCH) {	/* gone meanwhile: not a failure */
		if (!ls->unreadable++)
			ls->unreadable_errno = errno;
	}
	return n;
}

/*
 * How far behind the clock the trace the analyzer has seen may be complete:
 * the backends feed up to a horizon a millisecond or so before the read.
 */
#define TRACE_LAG_NS (10 * 1000000ULL)

void late_stacks_tick(struct late_stacks *ls, struct analyzer *an, uint64_t now)
{
	uint64_t seen;

	if (!ls->on || now < ls->next_ns)
		return;
	ls->next_ns = now + ls->period_ns;
	/*
	 * Blocked for --min as far as the trace goes: up to its newest event
	 * (a thread that switched out just before it is not a long block
	 * yet, whatever the clock says), or to the lag bound on a quiet host.
	 */
	seen = an->last_ts > now - TRACE_LAG_NS ? an->last_ts : now - TRACE_LAG_NS;
	if (seen > ls->min_ns)
		analyzer_late_kstacks(an, seen - ls->min_ns, read_stack, ls);
}
