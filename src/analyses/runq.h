/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * runq's room: the options runq takes for itself, which its --slower mode
 * (slower.c) reads.
 */
#ifndef OFFCPU_RUNQ_H
#define OFFCPU_RUNQ_H

#include <stdbool.h>
#include <stdint.h>

#include "opts.h"

/* runq's own options (trace_opts.own) */
struct runq_opts {
	bool slower;		/* --slower US: list the waits over US (slower.c) */
	uint64_t slower_us;
	bool ran_instead;	/* ... with who ran on the CPU meanwhile */
};
AN_OWN_OPTS(runq_own, struct runq_opts)

#endif
