/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether this process may open system-wide tracepoint perf events, and why. */
#ifndef OFFCPU_PERFCAPS_H
#define OFFCPU_PERFCAPS_H

#include <stdbool.h>

struct perf_caps {
	int paranoid;		/* kernel.perf_event_paranoid, -99 unknown */
	bool root;		/* effective uid 0 */
	bool cap_perfmon;	/* CAP_PERFMON in the effective set */
	bool cap_sys_admin;
	bool cap_ipc_lock;	/* mmap beyond perf_event_mlock_kb */
	long mlock_kb;		/* kernel.perf_event_mlock_kb, -1 unknown */
	bool allowed;		/* system-wide tracepoint samples should open */
	char why[192];		/* the reason and the fix, one line */
};

void perf_caps_probe(struct perf_caps *pc);

#endif
