// SPDX-License-Identifier: GPL-2.0-or-later
/* The event model's helpers: prev_state masks and letters, event names. */
#include <stdio.h>
#include <string.h>

#include "event.h"

uint64_t sched_states_mask(const struct sched_states *st, const char *letters)
{
	uint64_t m = 0;
	unsigned i;

	for (i = 0; i < st->nletters; i++)
		if (strchr(letters, st->letter[i].letter))
			m |= st->letter[i].bit;
	return m;
}

void sched_states_default(struct sched_states *st)
{
	static const char letters[] = "SDTtXZPI";
	unsigned i;

	memset(st, 0, sizeof(*st));
	for (i = 0; letters[i]; i++) {
		st->letter[i].bit = 1ull << i;
		st->letter[i].letter = letters[i];
	}
	st->nletters = i;
	st->preempt_mask = 0x100;	/* TASK_REPORT_MAX, 4.14 and later */
}

const char *sched_ev_name(unsigned type)
{
	static const char *const names[SEV_NTYPES] = {
		[SEV_SWITCH] = "sched_switch",
		[SEV_WAKEUP] = "sched_wakeup",
		[SEV_WAKEUP_NEW] = "sched_wakeup_new",
		[SEV_WAKING] = "sched_waking",
		[SEV_FORK] = "sched_process_fork",
		[SEV_KSTACK] = "kernel_stack",
		[SEV_USTACK] = "user_stack",
		[SEV_SAMPLE] = "cpu_sample",
		[SEV_CGROUP_ATTACH] = "cgroup_attach_task",
		[SEV_CGROUP_TRANSFER] = "cgroup_transfer_tasks",
	};

	return type < SEV_NTYPES && names[type] ? names[type] : "unknown";
}

const char *sched_ev_system(unsigned type)
{
	if (type == SEV_CGROUP_ATTACH || type == SEV_CGROUP_TRANSFER)
		return "cgroup";
	return type >= SEV_KSTACK ? "ftrace" : "sched";
}

char *sched_state_str(const struct sched_states *st, int64_t state, char *buf,
		      size_t len)
{
	uint64_t s = (uint64_t)state;
	size_t n = 0;
	unsigned i;

	if (len < 2)
		return buf;
	buf[0] = '\0';
	if (state == SCHED_STATE_UNKNOWN) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (!(s & ~st->preempt_mask)) {
		buf[n++] = 'R';
	} else {
		for (i = 0; i < st->nletters && n + 2 < len; i++) {
			if (!(s & st->letter[i].bit))
				continue;
			if (n)
				buf[n++] = '|';
			buf[n++] = st->letter[i].letter;
		}
	}
	if ((s & st->preempt_mask) && n + 1 < len)
		buf[n++] = '+';
	buf[n] = '\0';
	return buf;
}
