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
	bool cap_syslog;	/* kernel addresses in /proc/kallsyms (kptr_restrict <= 1) */
	bool cap_dac_read_search; /* read any file: tracefs's formats when it is 0700 */
	long mlock_kb;		/* kernel.perf_event_mlock_kb, -1 unknown */
	bool allowed;		/* system-wide tracepoint samples should open */
	char why[192];		/* the reason and the fix, one line */
};

void perf_caps_probe(struct perf_caps *pc);

/* Whether this process sees kernel symbol addresses, and why not. */
struct ksym_caps {
	int kptr_restrict;	/* kernel.kptr_restrict, -1 unknown */
	bool readable;		/* /proc/kallsyms could be opened */
	bool visible;		/* its addresses are not all 0 */
};

/* Reads the first line of /proc/kallsyms (cheap; for info, not every run). */
void ksym_caps_probe(struct ksym_caps *kc);

#endif
