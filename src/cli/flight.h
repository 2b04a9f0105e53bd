/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flight recorder (--flight SECS): the ring backend keeps the last
 * SECS of raw pages in memory (tracefs/flightbuf.c); this watches what the
 * analyzer measures for a trigger (--runq-over, --offcpu-over, SIGUSR1)
 * and, --after seconds past it, has the backend write the window from
 * SECS before the trigger to --after after it as a recording: -o FILE
 * first, then FILE.2, FILE.3 ... up to --max-files.
 */
#ifndef OFFCPU_FLIGHT_H
#define OFFCPU_FLIGHT_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"

struct run;

struct flight {
	bool on;
	bool pending;			/* a trigger waits for its --after */
	uint64_t trig_ns;		/* ... at this trace time */
	char what[192];			/* ... what it was, in words */
	const char *kind;		/* ... "runq", "offcpu" or "signal" */
	int32_t tid;			/* ... whose (0: a signal) */
	uint64_t lat_ns;		/* ... how long the outlier was */
	unsigned joined;		/* triggers that fell into the pending window */
	unsigned saved;			/* recordings written */
	uint64_t fired;			/* triggers seen, all */
	uint64_t unsaved;		/* ... after the last file (--keep-going) */
	int usr1_seen;			/* SIGUSR1s handled */
	uint64_t short_drops;		/* the store's, when last warned */
	bool done;			/* the last file is written: the run ends */
	bool failed;			/* a save failed (said) */
};

/* Subscribe to @r's analyzer when --flight is on; 0 or -errno. */
int flight_setup(struct run *r);
/*
 * After each read at trace time @now_ns: SIGUSR1, the store's fill, and a
 * save whose --after has passed (read up to @limit first with @cb, so
 * every page up to then is in the store). 0, or EXIT_FAIL (said).
 */
int flight_tick(struct run *r, uint64_t now_ns, uint64_t limit, sched_ev_cb cb);
/* The window ended at @end_ns: save a pending trigger's window up to there. */
int flight_finish(struct run *r, uint64_t end_ns);

#endif
