/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recordings as the command line makes them: a recorder takes every page
 * of raw events a backend hands its page_sink (the ring backend's pages as
 * read, the perf backend's as it writes them) and either writes them all
 * to a trace.dat at the end (record, --record) or keeps the last SECS of
 * them in memory and saves a window on demand (--flight).
 */
#ifndef OFFCPU_TRACEFS_REC_H
#define OFFCPU_TRACEFS_REC_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

struct recorder;

/*
 * A recorder of @src's pages: with @flight_ns 0, a recording at @path
 * (created now: mode 0600, renamed into place by recorder_close()); else
 * a flight store of the last @flight_ns, at most @flight_kb KiB per CPU,
 * @path unused. 0, or a negative errno with a one-line reason in @err.
 */
int recorder_open(struct recorder **out, const char *path, const struct backend_rec_src *src,
		  uint64_t flight_ns, uint32_t flight_kb, char *err, size_t errlen);
/* A backend's page_sink: @rec is the recorder. 0 or a negative errno. */
int recorder_page(void *rec, unsigned cpu, const void *page);
/* Write the recording with @m's metadata and free @r (NULL: nothing to do). */
int recorder_close(struct recorder *r, const struct backend_window *m, char *err, size_t errlen);
/* Free @r; a recording not closed leaves no file. Accepts NULL. */
void recorder_abort(struct recorder *r);

/* --flight: drop what is older than the window at trace time @now_ns. */
void recorder_trim(struct recorder *r, uint64_t now_ns);
/*
 * --flight: write the pages held for @w->start_ns..@w->end_ns to a new
 * recording at @path (atomically, mode 0600) with @w's metadata; first
 * @w->start_ns is raised to where every CPU's pages are held.
 */
int recorder_save(struct recorder *r, const char *path, struct backend_window *w, char *err,
		  size_t errlen);
/* --flight: the store's account. */
void recorder_stat(const struct recorder *r, struct backend_flight *st);

#endif
