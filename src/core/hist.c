// SPDX-License-Identifier: GPL-2.0-or-later
/* The one histogram type: floor-log2 slots, exact sums, a sketch for percentiles. */
#include <string.h>

#include "hist.h"

static unsigned ilog2_u64(uint64_t v)
{
	return 63 - (unsigned)__builtin_clzll(v);
}

void hist_reset(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

unsigned hist_slot_of(uint64_t v)
{
	return v ? ilog2_u64(v) + 1 : 0;
}

uint64_t hist_slot_low(unsigned k)
{
	return k ? 1ULL << (k - 1) : 0;
}

uint64_t hist_slot_high(unsigned k)
{
	if (k == 0)
		return 0;
	if (k >= 64)
		return UINT64_MAX;
	return (1ULL << k) - 1;
}

static unsigned fine_index(uint64_t v)
{
	unsigned e, sub;

	if (v < HIST_FINE_SUB)
		return (unsigned)v;
	e = ilog2_u64(v);			/* >= 3 */
	sub = (unsigned)(v >> (e - 3)) & (HIST_FINE_SUB - 1);
	return HIST_FINE_SUB + (e - 3) * HIST_FINE_SUB + sub;
}

static void fine_range(unsigned idx, uint64_t *lo, uint64_t *hi)
{
	unsigned e, sub;

	if (idx < HIST_FINE_SUB) {
		*lo = *hi = idx;
		return;
	}
	e = (idx - HIST_FINE_SUB) / HIST_FINE_SUB + 3;
	sub = (idx - HIST_FINE_SUB) % HIST_FINE_SUB;
	*lo = (uint64_t)(HIST_FINE_SUB + sub) << (e - 3);
	*hi = *lo + ((1ULL << (e - 3)) - 1);
}

void hist_add(struct hist *h, uint64_t ns, uint64_t unit_ns)
{
	uint64_t v = ns / unit_ns;
	unsigned fi = fine_index(v);

	h->slot[hist_slot_of(v)]++;
	if (h->count == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	h->sum_ns += ns;
	if (h->fine[fi] != UINT32_MAX)
		h->fine[fi]++;
}

void hist_add_n(struct hist *h, uint64_t v, uint64_t n, uint64_t sum_ns)
{
	unsigned fi = fine_index(v);
	uint64_t f;

	if (!n)
		return;
	h->slot[hist_slot_of(v)] += n;
	if (h->count == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count += n;
	h->sum += v * n;
	h->sum_ns += sum_ns;
	f = (uint64_t)h->fine[fi] + n;
	h->fine[fi] = f > UINT32_MAX ? UINT32_MAX : (uint32_t)f;
}

void hist_add_total(struct hist *h, uint64_t n, uint64_t sum_ns, uint64_t unit_ns)
{
	h->count += n;
	h->untimed += n;
	h->sum_ns += sum_ns;
	h->sum = h->sum_ns / (unit_ns ? unit_ns : 1);
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned i;

	if (!src->count)
		return;
	for (i = 0; i < HIST_SLOTS; i++)
		dst->slot[i] += src->slot[i];
	for (i = 0; i < HIST_FINE_SLOTS; i++) {
		uint64_t n = (uint64_t)dst->fine[i] + src->fine[i];
		dst->fine[i] = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	}
	if (dst->count == 0 || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->untimed += src->untimed;
	dst->sum += src->sum;
	dst->sum_ns += src->sum_ns;
}

int hist_max_slot(const struct hist *h)
{
	int i;

	for (i = HIST_SLOTS - 1; i >= 0; i--)
		if (h->slot[i])
			return i;
	return -1;
}

int hist_min_slot(const struct hist *h)
{
	int i;

	for (i = 0; i < HIST_SLOTS; i++)
		if (h->slot[i])
			return i;
	return -1;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0, lo, hi, mid;
	unsigned i;

	if (!h->count || h->untimed)
		return 0;	/* untimed intervals have no place in the order */
	/* rank of the p-th percentile sample, 1-based (nearest-rank method) */
	rank = (uint64_t)((p / 100.0) * (double)h->count);
	if ((double)rank < (p / 100.0) * (double)h->count)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank >= h->count)
		return h->max;	/* the top sample is known exactly */
	for (i = 0; i < HIST_FINE_SLOTS; i++) {
		seen += h->fine[i];
		if (seen >= rank)
			break;
	}
	if (i == HIST_FINE_SLOTS)
		return h->max;
	fine_range(i, &lo, &hi);
	mid = lo + (hi - lo) / 2;
	if (mid < h->min)
		mid = h->min;
	if (mid > h->max)
		mid = h->max;
	return mid;
}
