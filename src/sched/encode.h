/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sched events -> raw ring-buffer pages, the inverse of decode.c: a
 * backend that does not read ftrace's pages (perf) writes its events into
 * pages of the kernel's layout (header_page, the events' format offsets),
 * so that a recording made from them is read as any other (report,
 * trace-cmd). What the events do not carry is zero: prio, 5.10's
 * sched_wakeup success, sched_process_fork's comms; a comm the backend
 * did not see is empty. Pure, no allocation but at init.
 */
#ifndef OFFCPU_ENCODE_H
#define OFFCPU_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "fmt.h"

/* A full (or flushed) page of @cpu: @page holds layout page_size bytes. */
typedef int (*page_emit_fn)(void *arg, unsigned cpu, const void *page);

struct page_enc {
	const struct sched_layout *l;
	unsigned cpu;
	uint8_t *page;		/* page_size bytes */
	uint32_t used;		/* data bytes written after the header */
	uint64_t last_ts;
	bool open;		/* a page is begun */
	uint64_t skipped;	/* events with no format here (not encoded) */
};

/* For @cpu's events, pages of @l (whose header_page is loaded). 0 or -errno. */
int page_enc_init(struct page_enc *e, const struct sched_layout *l, unsigned cpu);
void page_enc_fini(struct page_enc *e);
/*
 * Append @ev (the next event of this CPU, in time order; SEV_SAMPLE and
 * types without a format are skipped and counted); a full page goes to
 * @emit first. 0, or what @emit returned.
 */
int page_enc_add(struct page_enc *e, const struct sched_event *ev, page_emit_fn emit, void *arg);
/* Hand the page begun (if any) to @emit, partly filled; the next event begins another. */
int page_enc_flush(struct page_enc *e, page_emit_fn emit, void *arg);

#endif
