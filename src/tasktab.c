// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tasktab.h"

static uint32_t tid_hash(int32_t tid)
{
	return (uint32_t)tid * 2654435761u;
}

int tasktab_init(struct tasktab *t, uint32_t max_tasks)
{
	uint32_t n = 16;

	/* load factor at most 1/2 */
	while (n < 2ULL * max_tasks && n < (1u << 30))
		n <<= 1;
	memset(t, 0, sizeof(*t));
	t->slot = calloc(n, sizeof(*t->slot));
	if (!t->slot)
		return -ENOMEM;
	t->mask = n - 1;
	t->cap = max_tasks;
	return 0;
}

void tasktab_fini(struct tasktab *t)
{
	free(t->slot);
	t->slot = NULL;
}

struct task *tasktab_find(struct tasktab *t, int32_t tid)
{
	uint32_t i = tid_hash(tid) & t->mask;

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
	uint32_t i = tid_hash(tid) & t->mask;

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
		home = tid_hash(t->slot[j].tid) & t->mask;
		/* move j into the hole at i unless its home lies in (i, j] */
		if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
			t->slot[i] = t->slot[j];
			i = j;
		}
	}
	t->slot[i].tid = 0;
	t->used--;
}
