/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sign of life during a long window: on a terminal, one line on stderr
 * rewritten about once a second with the time traced and the time left.
 * Nothing when stderr is not a terminal, or with -q.
 */
#ifndef OFFCPU_PROGRESS_H
#define OFFCPU_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct progress {
	bool on;		/* stderr is a terminal and not -q */
	bool shown;		/* a line is on the screen now */
	uint64_t start_ns, total_ns;	/* total 0: until Ctrl-C or the command ends */
	uint64_t last_s;	/* the second last shown */
};

void progress_init(struct progress *p, uint64_t start_ns, uint64_t total_ns, bool quiet);
void progress_tick(struct progress *p, uint64_t now_ns);
/* Erase the line (before results or messages go to the terminal). */
void progress_clear(struct progress *p);
/* "1 h 02 min", "4 min 05 s", "12 s" */
void progress_human(char *buf, size_t len, uint64_t s);

#endif
