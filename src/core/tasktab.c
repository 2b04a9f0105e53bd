// SPDX-License-Identifier: GPL-2.0-or-later
/* Per-thread pending starts: a bounded open-addressing table that grows. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "tasktab.h"

#define START_SLOTS 1024u

int tasktab_init(struct tasktab *t, uint32_t max_tasks)
{
	uint32_t n = 16;

	/* load factor at most 1/2 at the cap */
	while (n < 2ULL * max_tasks && n < (1u << 30))
		n <<= 1;
	memset(t, 0, sizeof(*t));
	t->max_mask = n - 1;
	/* start small: a busy host's threads fit in the cache, not 7 MiB */
	if (n > START_SLOTS)
		n = START_SLOTS;
	t->slot = calloc(n, sizeof(*t->slot));
	if (!t->slot)
		return -ENOMEM;
	t->mask = n - 1;
	t->cap = max_tasks;
	return 0;
}

/* Double the slots (pointers into the table become invalid). */
static int grow(struct tasktab *t)
{
	uint32_t n = 2 * (t->mask + 1), i;
	struct task *slot = calloc(n, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (i = 0; i <= t->mask; i++) {
		uint32_t j;

		if (!t->slot[i].tid)
			continue;
		for (j = tid_hash32(t->slot[i].tid) & (n - 1); slot[j].tid; j = (j + 1) & (n - 1))
			;
		slot[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = slot;
	t->mask = n - 1;
	return 0;
}

void tasktab_fini(struct tasktab *t)
{
	free(t->slot);
	t->slot = NULL;
}

struct task *tasktab_find(struct tasktab *t, int32_t tid)
{
	uint32_t i = tid_hash32(tid) & t->mask;

	for (;;) {
		struct task *e = &t->slot[i];

		if (e->tid == tid)
			return e;
		if (e->tid == 0)
			return NULL;
		i = (i + 1) & t->mask;
	}
}

struct task *tasktab_get(struct tasktab *t, int32_t tid)
{
	uint32_t i;

	/* keep the load at most 1/2 while the table may grow, 3/4 if it cannot */
	if (2ULL * (t->used + 1) > t->mask + 1 && !tasktab_find(t, tid)) {
		if (t->mask < t->max_mask ? grow(t) : 0) {
			if (4ULL * (t->used + 1) > 3ULL * (t->mask + 1))
				return NULL;
		}
	}
	i = tid_hash32(tid) & t->mask;
	for (;;) {
		struct task *e = &t->slot[i];

		if (e->tid == tid)
			return e;
		if (e->tid == 0) {
			if (t->used >= t->cap)
				return NULL;
			memset(e, 0, sizeof(*e));
			e->tid = tid;
			t->used++;
			return e;
		}
		i = (i + 1) & t->mask;
	}
}

void tasktab_del(struct tasktab *t, struct task *e)
{
	uint32_t i = (uint32_t)(e - t->slot), j = i;

	/* backward-shift deletion keeps probe chains intact without tombstones */
	for (;;) {
		uint32_t home;

		j = (j + 1) & t->mask;
		if (t->slot[j].tid == 0)
			break;
		home = tid_hash32(t->slot[j].tid) & t->mask;
		/* move j into the hole at i unless its home lies in (i, j] */
		if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
			t->slot[i] = t->slot[j];
			i = j;
		}
	}
	t->slot[i].tid = 0;
	t->used--;
}
