// SPDX-License-Identifier: GPL-2.0-or-later
/* Whether perf events may be opened system-wide here, and why not. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "perfcaps.h"

#define CAP_DAC_READ_SEARCH_BIT 2
#define CAP_IPC_LOCK_BIT 14
#define CAP_SYS_ADMIN_BIT 21
#define CAP_SYSLOG_BIT 34
#define CAP_PERFMON_BIT 38

/* CapEff from /proc/self/status; 0 when unreadable */
static unsigned long long cap_eff(void)
{
	unsigned long long v = 0;
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			break;
	fclose(f);
	return v;
}

void perf_caps_probe(struct perf_caps *pc)
{
	unsigned long long caps = cap_eff();
	FILE *f;

	memset(pc, 0, sizeof(*pc));
	pc->paranoid = -99;
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	if (f) {
		if (fscanf(f, "%d", &pc->paranoid) != 1)
			pc->paranoid = -99;
		fclose(f);
	}
	pc->root = geteuid() == 0;
	pc->cap_perfmon = (caps >> CAP_PERFMON_BIT) & 1;
	pc->cap_sys_admin = (caps >> CAP_SYS_ADMIN_BIT) & 1;
	pc->cap_ipc_lock = (caps >> CAP_IPC_LOCK_BIT) & 1;
	pc->cap_syslog = (caps >> CAP_SYSLOG_BIT) & 1;
	pc->cap_dac_read_search = (caps >> CAP_DAC_READ_SEARCH_BIT) & 1;
	pc->mlock_kb = -1;
	f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "re");
	if (f) {
		if (fscanf(f, "%ld", &pc->mlock_kb) != 1)
			pc->mlock_kb = -1;
		fclose(f);
	}
	/*
	 * Raw tracepoint samples on every CPU need CAP_PERFMON (or
	 * CAP_SYS_ADMIN), or perf_event_paranoid <= -1.
	 */
	pc->allowed = pc->cap_perfmon || pc->cap_sys_admin ||
		      (pc->paranoid != -99 && pc->paranoid <= -1);
	if (pc->allowed)
		snprintf(pc->why, sizeof(pc->why), "%s",
			 pc->cap_perfmon || pc->cap_sys_admin ? "CAP_PERFMON held"
							      : "perf_event_paranoid <= -1");
	else if (pc->paranoid == -99)
		snprintf(pc->why, sizeof(pc->why), "perf_event_paranoid unreadable and "
			 "no CAP_PERFMON: run as root or grant CAP_PERFMON");
	else
		snprintf(pc->why, sizeof(pc->why), "perf_event_paranoid=%d and no "
			 "CAP_PERFMON: run as root or grant CAP_PERFMON "
			 "(or sysctl kernel.perf_event_paranoid=-1)", pc->paranoid);
}

void ksym_caps_probe(struct ksym_caps *kc)
{
	unsigned long long addr;
	char line[512], type;
	unsigned n;
	FILE *f;

	memset(kc, 0, sizeof(*kc));
	kc->kptr_restrict = -1;
	f = fopen("/proc/sys/kernel/kptr_restrict", "re");
	if (f) {
		if (fscanf(f, "%d", &kc->kptr_restrict) != 1)
			kc->kptr_restrict = -1;
		fclose(f);
	}
	/*
	 * The kernel decides per opener (kallsyms_show_value): every address
	 * reads 0 unless kptr_restrict is 0 and perf_event_paranoid <= 1, or
	 * kptr_restrict <= 1 and the opener has CAP_SYSLOG. The first text
	 * symbol says which (per-CPU symbols, listed first on some kernels,
	 * are at 0 anyway).
	 */
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return;
	kc->readable = true;
	for (n = 0; n < 100000 && fgets(line, sizeof(line), f); n++)
		if (sscanf(line, "%llx %c", &addr, &type) == 2 && (type == 't' || type == 'T')) {
			kc->visible = addr != 0;
			break;
		}
	fclose(f);
}
