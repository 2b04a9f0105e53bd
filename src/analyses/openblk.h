/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Blocks still open at the window's end, for every off-CPU view (offcpu,
 * -K, --wakers, triage): the analyzer's open intervals of the selected
 * threads that began blocked and were not woken, and the threads the
 * command line found blocked the whole window (no event at all: -p, -t),
 * counted, the longest named with the function they sleep in.
 */
#ifndef OFFCPU_OPENBLK_H
#define OFFCPU_OPENBLK_H

#include "analysis.h"

struct openblk {
	struct open_blocks ob;
	const struct analyzer *an;
	bool whole_added;	/* the view's whole-window threads are in ob */
};

/* Hear of @an's open intervals at the window's end. 0 or -errno. */
int openblk_subscribe(struct openblk *b, struct analyzer *an);
/*
 * The blocks for @v's report: the whole-window threads of the view
 * added once, the shown ones' stacks named. NULL before the window's end.
 */
const struct open_blocks *openblk_fill(struct openblk *b, const struct an_view *v);

#endif
