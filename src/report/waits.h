/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * waits: a snapshot of who waits on whom (src/host/waitscan.h) as text (a
 * tree per waiting thread that nobody waits on, then the chains and the
 * cycles) or as one JSON object; with --watch, one per round, marked
 * against the round before.
 */
#ifndef OFFCPU_REPORT_WAITS_H
#define OFFCPU_REPORT_WAITS_H

#include <stdbool.h>
#include <stdio.h>

#include "waitscan.h"

struct waits_view {
	const struct wsnap *s;
	const struct wsnap *prev;	/* --watch: the round before (NULL: none) */
	unsigned round;			/* --watch: 1, 2, ...; 0 without */
	const char *scope;		/* "every process of user 1000", ... */
	bool all;			/* text: every thread, not only those that wait on something */
};

/* Does @w say more than "asleep" (a holder, a disk, a lock, a child, ...)? */
bool waits_wait_shown(const struct wwait *w);

void waits_print_text(FILE *f, const struct waits_view *v);
/* one object, on one line */
void waits_print_json(FILE *f, const struct waits_view *v);

#endif
