// SPDX-License-Identifier: GPL-2.0-or-later
/* Thread names and priorities as the perf backend's stream has them (pnames.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "pnames.h"

int pnames_init(struct pnames *n, uint32_t slots)
{
	uint32_t s = 64;

	memset(n, 0, sizeof(*n));
	while (s < slots && s < (1u << 24))
		s *= 2;
	n->v = calloc(s, sizeof(*n->v));
	if (!n->v)
		return -ENOMEM;
	n->mask = s - 1;
	return 0;
}

void pnames_fini(struct pnames *n)
{
	if (!n)
		return;
	free(n->v);
	memset(n, 0, sizeof(*n));
}

/* @tid's slot: its own, else an empty one, else the least recently used (@add) */
static struct pname *slot(struct pnames *n, int32_t tid, bool add)
{
	struct pname *e, *lru = NULL;
	uint32_t i, h = tid_hash32(tid);

	if (!n->v || tid <= 0)
		return NULL;
	for (i = 0; i < PNAMES_PROBES; i++) {
		e = &n->v[(h + i) & n->mask];
		if (e->tid == tid)
			return e;
		if (!e->tid)
			break;
		if (!lru || (int32_t)(e->used - lru->used) < 0)
			lru = e;
	}
	if (!add)
		return NULL;
	if (i == PNAMES_PROBES) {
		/*
		 * a full neighbourhood: the entry unused the longest goes
		 * (probing stops at an empty slot, so none may be emptied)
		 */
		e = lru;
		n->evicted++;
	}
	memset(e, 0, sizeof(*e));
	e->tid = tid;
	e->prio = -1;
	return e;
}

void pnames_set(struct pnames *n, int32_t tid, const char *comm, int32_t prio)
{
	struct pname *e = slot(n, tid, true);

	if (!e)
		return;
	e->used = ++n->tick;
	if (comm && comm[0])
		comm_copy(e->comm, comm);
	if (prio >= 0)
		e->prio = prio;
}

void pnames_fork(struct pnames *n, int32_t ptid, int32_t tid)
{
	const struct pname *p = slot(n, ptid, false);
	char comm[COMM_LEN];
	int32_t prio;

	if (!p || ptid == tid)
		return;
	/* copied first: the child's slot may be the parent's, evicted */
	memcpy(comm, p->comm, COMM_LEN);
	prio = p->prio;
	pnames_set(n, tid, comm, prio);
}

const struct pname *pnames_get(struct pnames *n, int32_t tid)
{
	static const struct pname idle = { .tid = 0, .prio = 120, .comm = "swapper" };
	struct pname *e;

	if (tid == 0)
		return &idle;
	e = slot(n, tid, false);
	if (!e || !e->comm[0])
		return NULL;
	e->used = ++n->tick;
	return e;
}
