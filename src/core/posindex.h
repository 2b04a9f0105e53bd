/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The open-addressing index the tables share (groups, stacks, stack sums,
 * the followed tasks): slots hold positions into the table's own array of
 * entries, -1 when empty, probed linearly from the key's hash. Entries are
 * never deleted one by one (a table is cleared whole), so probing stops
 * at the first empty slot.
 */
#ifndef OFFCPU_POSINDEX_H
#define OFFCPU_POSINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct posindex {
	int32_t *slot;		/* position, or -1 */
	uint32_t mask;		/* slots - 1 (a power of two) */
};

/* Room for @entries at most half full. 0 or -ENOMEM. */
int posindex_init(struct posindex *x, uint32_t entries);
void posindex_fini(struct posindex *x);
/* Every slot empty again. */
void posindex_clear(struct posindex *x);
/* Store @pos in the first empty slot of @hash's chain (rebuilding after a sort). */
void posindex_put(struct posindex *x, uint64_t hash, int32_t pos);

/* A key's chain: for (i = posindex_first(x, h); x->slot[i] >= 0; i = posindex_next(x, i)) */
static inline uint32_t posindex_first(const struct posindex *x, uint64_t hash)
{
	return (uint32_t)hash & x->mask;
}

static inline uint32_t posindex_next(const struct posindex *x, uint32_t i)
{
	return (i + 1) & x->mask;
}

/* A 64-bit key mixed so its high and low bits both spread (Fibonacci hashing). */
static inline uint64_t posindex_mix(uint64_t key)
{
	uint64_t x = key * 0x9e3779b97f4a7c15ull;

	return x ^ (x >> 32);
}

/*
 * A set of task ids (tids or pids, > 0) on a posindex: the members in
 * the order they came in v, the index over them. Zeroed, it is empty and
 * without limit; it grows as members come (the index rebuilt each time v
 * does), up to @max members when that is set.
 */
struct tidset {
	int32_t *v;
	uint32_t n;
	uint32_t max;		/* members at most; 0: no limit */
	size_t cap;		/* of v, and the index's entries */
	struct posindex index;	/* tid -> position in v */
};

bool tidset_has(const struct tidset *s, int32_t tid);
/* Add @tid once: 0 (added, or a member already), -ENOSPC with max members, or -ENOMEM. */
int tidset_add(struct tidset *s, int32_t tid);
/* Free the set; it is empty (and without limit) again. */
void tidset_fini(struct tidset *s);

#endif
