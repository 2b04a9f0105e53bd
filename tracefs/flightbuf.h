/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flight recorder's store: the last SECS seconds of each CPU's raw
 * ring-buffer pages, as the ring backend read them, in a bounded ring of
 * page copies per CPU. Pure: no tracefs, no I/O; unit-tested.
 *
 * A page is known by its header's timestamp (the time of its first
 * record): a CPU's pages are in time order, so page i holds records from
 * its own timestamp up to page i+1's. A page leaves the store when the
 * next one's timestamp is older than the newest time seen minus SECS
 * (every record in it is older than the window), or when its CPU's share
 * of the store is full; then the store holds less than SECS for that CPU,
 * and complete_from() says from when it is complete.
 */
#ifndef OFFCPU_FLIGHTBUF_H
#define OFFCPU_FLIGHTBUF_H

#include <stddef.h>
#include <stdint.h>

struct flightbuf;

/*
 * A store of @ncpu CPUs' pages of @page_size bytes, keeping @keep_ns of
 * trace time, at most @cap_bytes of them per CPU (at least two whole pages,
 * at most 2 GiB), allocated now and backed by the kernel as they fill.
 * 0 or -ENOMEM.
 */
int flightbuf_new(struct flightbuf **out, unsigned ncpu, size_t page_size, size_t cap_bytes,
		  uint64_t keep_ns);
void flightbuf_free(struct flightbuf *fb);

/* The time in a raw page's header (its first record's, or earlier). */
uint64_t flightbuf_page_ts(const void *page);

/*
 * Keep a copy of @cpu's next page (its header and committed bytes: the
 * kernel's header_page layout, u64 time stamp and long commit), whose
 * first record is at @ts; drops what no longer fits, first pages older
 * than the window, then the oldest. 0, or -EINVAL for no such CPU.
 */
int flightbuf_add(struct flightbuf *fb, unsigned cpu, const void *page, uint64_t ts);

/* Drop the pages wholly older than @now_ns minus the window. */
void flightbuf_trim(struct flightbuf *fb, uint64_t now_ns);

/*
 * The earliest time from which every CPU's records are all in the store
 * (0: nothing dropped yet). A window saved from before it starts here.
 */
uint64_t flightbuf_complete_from(const struct flightbuf *fb);

/*
 * Pages dropped for room while their records were still inside the
 * window (the store holds less than SECS at this event rate), cumulative.
 */
uint64_t flightbuf_short_drops(const struct flightbuf *fb);

/* Bytes of pages held now (their committed parts), and the most ever held. */
size_t flightbuf_bytes(const struct flightbuf *fb);
size_t flightbuf_peak_bytes(const struct flightbuf *fb);

/*
 * Call @cb for each page of each CPU that may hold records in [@from_ns,
 * @to_ns], CPU by CPU, oldest first, whole (zero after its committed
 * bytes; the buffer is the store's, valid for the call). Stops at the first non-zero return
 * and returns it; 0 when all were visited.
 */
int flightbuf_each(const struct flightbuf *fb, uint64_t from_ns, uint64_t to_ns,
		   int (*cb)(void *arg, unsigned cpu, const void *page), void *arg);

#endif
