/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading the sched layout from a tracefs's format files: what ring, hist and perf share. */
#ifndef OFFCPU_FMTLOAD_H
#define OFFCPU_FMTLOAD_H

#include <stddef.h>

#include "fmt.h"

/* What to load besides sched_switch, sched_wakeup and (if present) _new. */
enum {
	FMTLOAD_HEADER_PAGE = 0x1,	/* ring pages: header_page */
	FMTLOAD_WAKING = 0x2,		/* sched_waking */
	FMTLOAD_FORK = 0x4,		/* sched_process_fork */
	FMTLOAD_KSTACK = 0x8,		/* ftrace's kernel_stack */
	FMTLOAD_USTACK = 0x10,		/* ftrace's user_stack */
	FMTLOAD_CGROUP = 0x20,		/* cgroup_attach_task and _transfer_tasks,
					 * where the kernel has them (--by cgroup) */
};

/*
 * fmt_init() @l and load the formats under @root/events/, then resolve
 * them. Returns 0, or a negative errno with a one-line reason and fix in
 * @err; @l is initialised (fmt_fini() it) whenever *inited is set.
 */
int sched_layout_load(struct sched_layout *l, bool *inited, const char *root, unsigned what,
		      char *err, size_t errlen);
/*
 * The events op every layout-based backend shares: bit (1 << SEV_x) per
 * sched and cgroup event loaded, and the stack records @kstack/@ustack
 * asked for.
 */
unsigned sched_layout_events(const struct sched_layout *l, bool inited, bool kstack,
			     bool ustack);

#endif
