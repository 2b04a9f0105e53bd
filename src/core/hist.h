/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one histogram type: floor-log2 buckets in the output unit (what
 * runqlat, runqlat.bt and offcputime print) plus a finer log-linear sketch
 * used only for percentile estimates.
 */
#ifndef OFFCPU_HIST_H
#define OFFCPU_HIST_H

#include <stdint.h>
#include <stdbool.h>

/* slot 0 holds the value 0; slot k (1..64) holds [2^(k-1), 2^k). */
#define HIST_SLOTS 65
/* 8 exact values, then 8 sub-buckets per power of two up to 2^64. */
#define HIST_FINE_SUB 8
#define HIST_FINE_SLOTS (HIST_FINE_SUB + 61 * HIST_FINE_SUB)

struct hist {
	uint64_t slot[HIST_SLOTS];
	uint64_t count;
	uint64_t sum;		/* in the output unit, sum of floored values */
	uint64_t sum_ns;	/* exact sum before unit conversion */
	uint64_t min, max;	/* in the output unit; min valid when count>0 */
	uint64_t untimed;	/* of count: known only as a total (sampled from
				 * /proc), in no bucket and no percentile */
	uint32_t fine[HIST_FINE_SLOTS];
};

void hist_reset(struct hist *h);
/* Add one interval: @ns exact, @unit_ns the output unit (1000 = usecs). */
void hist_add(struct hist *h, uint64_t ns, uint64_t unit_ns);
/*
 * Add @n intervals whose values floor to @v units and sum to @sum_ns
 * (an in-kernel histogram's bucket).
 */
void hist_add_n(struct hist *h, uint64_t v, uint64_t n, uint64_t sum_ns);
/*
 * Add @n intervals known only by their total @sum_ns (the kernel's own
 * counters, sampled): counted and summed, never bucketed.
 */
void hist_add_total(struct hist *h, uint64_t n, uint64_t sum_ns, uint64_t unit_ns);
/* Every interval counted is in a bucket (none is untimed). */
static inline bool hist_timed(const struct hist *h)
{
	return h->untimed == 0;
}
/* Add the contents of @src into @dst. */
void hist_merge(struct hist *dst, const struct hist *src);

unsigned hist_slot_of(uint64_t v);
/* Inclusive value range of slot @k. */
uint64_t hist_slot_low(unsigned k);
uint64_t hist_slot_high(unsigned k);
/* Index of the highest non-empty slot, or -1 when empty. */
int hist_max_slot(const struct hist *h);
int hist_min_slot(const struct hist *h);

/*
 * Estimated percentile @p (0 < p <= 100) in the output unit, from the fine
 * sketch (relative error below 1/HIST_FINE_SUB), clamped to [min, max].
 * Returns 0 for an empty histogram.
 */
uint64_t hist_percentile(const struct hist *h, double p);

#endif
