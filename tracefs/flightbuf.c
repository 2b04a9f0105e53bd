// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder's bounded store of raw pages (flightbuf.h).
 *
 * Each CPU has a byte ring of its bound and a ring of slots; a page is
 * kept as its header and committed bytes only (a reader that keeps up
 * gets pages the kernel swapped out partly filled: whole, they took ten
 * times the memory and the copying), and given back whole, zero-padded.
 * Pages leave in the order they came, so the bytes in use are one run
 * from the oldest slot's to past the newest's, wrapping at the end.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "flightbuf.h"

/* the kernel's page header (header_page): u64 time stamp, long commit */
#define PAGE_HDR 16
#define COMMIT_MASK ((1ULL << 27) - 1)
#define MISSED_STORED (1ULL << 30)	/* a count of lost events follows the data */
#define ALIGN8(n) (((n) + 7) & ~(size_t)7)
/* slots per CPU: one per this many bytes of its bound (pages of a few records) */
#define BYTES_PER_SLOT 256
#define CAP_MAX (1ULL << 31)	/* per CPU: slot offsets are 32 bits */

struct fb_slot {
	uint32_t off;		/* in the CPU's bytes */
	uint32_t len;		/* bytes kept */
	uint64_t ts;
};

struct fb_cpu {
	struct fb_slot *s;	/* circular: head is the oldest */
	unsigned head, n;
	uint8_t *bytes;		/* cap bytes, touched as used */
	uint64_t complete;	/* every record from here on is held */
	bool gap;		/* a page was not kept: complete from the next one */
};

struct flightbuf {
	struct fb_cpu *cpu;
	unsigned ncpu, nslot;	/* slots per CPU */
	size_t page_size, cap;	/* bytes per CPU */
	uint64_t keep_ns, newest;
	uint64_t short_drops;
	size_t bytes, peak;
	uint8_t *scratch;	/* a page given back whole */
};

int flightbuf_new(struct flightbuf **out, unsigned ncpu, size_t page_size, size_t cap_bytes,
		  uint64_t keep_ns)
{
	struct flightbuf *fb = calloc(1, sizeof(*fb));
	unsigned i;

	*out = NULL;
	if (!fb || !ncpu || page_size <= PAGE_HDR)
		goto fail;
	fb->ncpu = ncpu;
	fb->page_size = page_size;
	fb->keep_ns = keep_ns;
	/* at least two whole pages */
	if (cap_bytes > CAP_MAX)
		cap_bytes = CAP_MAX;
	fb->cap = cap_bytes < 2 * ALIGN8(page_size) ? 2 * ALIGN8(page_size) : ALIGN8(cap_bytes);
	/* enough for whole pages, and for partial ones of a few records */
	fb->nslot = (unsigned)(fb->cap / BYTES_PER_SLOT);
	if (fb->nslot < 2 * fb->cap / page_size + 2)
		fb->nslot = (unsigned)(2 * fb->cap / page_size + 2);
	fb->cpu = calloc(ncpu, sizeof(*fb->cpu));
	fb->scratch = malloc(page_size);
	if (!fb->cpu || !fb->scratch)
		goto fail;
	for (i = 0; i < ncpu; i++) {
		/* malloc'd, not written: the kernel backs it as it fills */
		fb->cpu[i].s = calloc(fb->nslot, sizeof(struct fb_slot));
		fb->cpu[i].bytes = malloc(fb->cap);
		if (!fb->cpu[i].s || !fb->cpu[i].bytes)
			goto fail;
	}
	*out = fb;
	return 0;
fail:
	flightbuf_free(fb);
	return -ENOMEM;
}

void flightbuf_free(struct flightbuf *fb)
{
	unsigned i;

	if (!fb)
		return;
	for (i = 0; fb->cpu && i < fb->ncpu; i++) {
		free(fb->cpu[i].s);
		free(fb->cpu[i].bytes);
	}
	free(fb->cpu);
	free(fb->scratch);
	free(fb);
}

uint64_t flightbuf_page_ts(const void *page)
{
	uint64_t ts;

	memcpy(&ts, page, sizeof(ts));
	return ts;
}

/* The bytes of @page worth keeping: header, committed data, a stored count. */
static size_t page_used(const struct flightbuf *fb, const void *page)
{
	uint64_t commit;
	size_t n;

	memcpy(&commit, (const uint8_t *)page + 8, sizeof(commit));
	n = PAGE_HDR + (size_t)(commit & COMMIT_MASK) + (commit & MISSED_STORED ? 8 : 0);
	return n > fb->page_size ? fb->page_size : n;	/* not a header we know: all */
}

static struct fb_slot *slot(const struct flightbuf *fb, const struct fb_cpu *c, unsigned k)
{
	return &c->s[(c->head + k) % fb->nslot];
}

/* Drop @c's oldest page: what it held is before the next page's time. */
static void drop_oldest(struct flightbuf *fb, struct fb_cpu *c)
{
	fb->bytes -= ALIGN8(slot(fb, c, 0)->len);
	c->head = (c->head + 1) % fb->nslot;
	c->n--;
	if (c->n)
		c->complete = slot(fb, c, 0)->ts;
}

static uint64_t cutoff(const struct flightbuf *fb)
{
	return fb->newest > fb->keep_ns ? fb->newest - fb->keep_ns : 0;
}

static void trim_cpu(struct flightbuf *fb, struct fb_cpu *c, uint64_t before)
{
	while (c->n >= 2 && slot(fb, c, 1)->ts <= before)
		drop_oldest(fb, c);
}

/* Where @len bytes fit after the newest page without reaching the oldest, or -1. */
static long room_at(const struct flightbuf *fb, const struct fb_cpu *c, size_t len)
{
	const struct fb_slot *old, *new;
	size_t tail, head;

	if (!c->n)
		return len <= fb->cap ? 0 : -1;
	if (c->n == fb->nslot)
		return -1;
	old = slot(fb, c, 0);
	new = slot(fb, c, c->n - 1);
	tail = old->off;
	head = new->off + ALIGN8(new->len);
	if (head > tail) {
		/*
		 * as much room before the oldest page as the window now holds:
		 * wrap now, so the memory in use (and backed by the kernel)
		 * stays about twice what the window holds rather than creeping
		 * through the whole bound; the pages after the oldest expire
		 * while the start fills. (Wrapping into any gap would drop
		 * pages still in the window when the start is full.)
		 */
		if (len + (head - tail) <= tail)
			return 0;
		if (len <= fb->cap - head)
			return (long)head;
		return len <= tail ? 0 : -1;	/* at the end: wrap as any ring */
	}
	return len <= tail - head ? (long)head : -1;
}

int flightbuf_add(struct flightbuf *fb, unsigned cpu, const void *page, uint64_t ts)
{
	struct fb_cpu *c;
	struct fb_slot *s;
	size_t len;
	long at;

	if (cpu >= fb->ncpu)
		return -EINVAL;
	c = &fb->cpu[cpu];
	if (ts > fb->newest)
		fb->newest = ts;
	trim_cpu(fb, c, cutoff(fb));
	len = page_used(fb, page);
	while ((at = room_at(fb, c, ALIGN8(len))) < 0) {
		/* full: the oldest page goes though its records are in the window */
		if (c->n >= 2 && slot(fb, c, 1)->ts > cutoff(fb))
			fb->short_drops++;
		else if (c->n < 2)
			fb->short_drops++;
		drop_oldest(fb, c);
		if (!c->n)
			c->gap = true;	/* nothing left of this CPU: whole from this page */
	}
	s = slot(fb, c, c->n);
	s->off = (uint32_t)at;
	s->len = (uint32_t)len;
	s->ts = ts;
	memcpy(c->bytes + s->off, page, len);
	c->n++;
	if (c->gap) {
		c->gap = false;
		c->complete = ts;
	}
	fb->bytes += ALIGN8(len);
	if (fb->bytes > fb->peak)
		fb->peak = fb->bytes;
	return 0;
}

void flightbuf_trim(struct flightbuf *fb, uint64_t now_ns)
{
	unsigned i;

	if (now_ns > fb->newest)
		fb->newest = now_ns;
	for (i = 0; i < fb->ncpu; i++)
		trim_cpu(fb, &fb->cpu[i], cutoff(fb));
}

uint64_t flightbuf_complete_from(const struct flightbuf *fb)
{
	uint64_t t = 0;
	unsigned i;

	for (i = 0; i < fb->ncpu; i++)
		if (fb->cpu[i].complete > t)
			t = fb->cpu[i].complete;
	return t;
}

uint64_t flightbuf_short_drops(const struct flightbuf *fb)
{
	return fb->short_drops;
}

size_t flightbuf_bytes(const struct flightbuf *fb)
{
	return fb->bytes;
}

size_t flightbuf_peak_bytes(const struct flightbuf *fb)
{
	return fb->peak;
}

int flightbuf_each(const struct flightbuf *fb, uint64_t from_ns, uint64_t to_ns,
		   int (*cb)(void *arg, unsigned cpu, const void *page), void *arg)
{
	unsigned i, k;
	int ret;

	for (i = 0; i < fb->ncpu; i++) {
		const struct fb_cpu *c = &fb->cpu[i];

		for (k = 0; k < c->n; k++) {
			const struct fb_slot *s = slot(fb, c, k);

			if (s->ts > to_ns)
				break;
			/* page k's records end where page k+1 begins */
			if (k + 1 < c->n && slot(fb, c, k + 1)->ts < from_ns)
				continue;
			memcpy(fb->scratch, c->bytes + s->off, s->len);
			memset(fb->scratch + s->len, 0, fb->page_size - s->len);
			ret = cb(arg, i, fb->scratch);
			if (ret)
				return ret;
		}
	}
	return 0;
}
