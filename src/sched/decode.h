/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Raw ring-buffer pages -> sched events. A page's headers are checked
 * against its size, then walked here as the kernel's reader walks them;
 * each record is decoded by the offsets in struct sched_layout, without
 * allocation or name lookups.
 */
#ifndef OFFCPU_DECODE_H
#define OFFCPU_DECODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "event.h"
#include "fmt.h"

/*
 * Decode one record of @size bytes. Returns its enum sched_ev_type, or 0
 * when the record is not one of ours (another event id, or too short).
 */
unsigned decode_record(const struct sched_layout *l, const void *data,
		       uint32_t size, uint64_t ts, int32_t cpu,
		       struct sched_event *ev);

/*
 * Whether a decoded event can be true of a kernel: its pids within
 * PID_MAX_LIMIT (0 .. 4194304, or -1: perf's task gone, our perf
 * backend's side of a switch unknown), a target CPU below @ncpu_max. A
 * record from a file failing it is corrupt (no kernel writes such).
 */
bool decode_plausible(const struct sched_event *ev, unsigned ncpu_max);

/*
 * Stack records: frames are copied into @frames (records are only 4-byte
 * aligned) and ev->stack points there. Call after decode_record() said
 * SEV_KSTACK or SEV_USTACK.
 */
void decode_stack(const struct sched_layout *l, const void *data, uint32_t size,
		  struct sched_event *ev, uint64_t frames[STACK_MAX_DEPTH]);

/* One page being walked. */
struct page_cursor {
	const uint8_t *data;	/* the page's data, after its header */
	uint32_t off, size;	/* next header; committed bytes */
	void *rec;		/* current record, NULL when exhausted */
	uint32_t rec_size;	/* its payload's size */
	uint64_t ts;		/* its timestamp */
};

/* Returns 0 or a negative errno. */
int page_cursor_init(struct page_cursor *c, const struct sched_layout *l);
void page_cursor_fini(struct page_cursor *c);
/*
 * Load a page of @len bytes (validated against the header first). Returns
 * the events the kernel reports missing before it (0 none, -1 unknown
 * count), or -EINVAL for a malformed page.
 */
int page_cursor_load(struct page_cursor *c, const struct sched_layout *l,
		     void *page, size_t len);
/* Advance to the next record; c->rec NULL at the end of the page. */
void page_cursor_next(struct page_cursor *c);
/* Size of the current record's payload. */
uint32_t page_cursor_size(const struct page_cursor *c);

#endif
