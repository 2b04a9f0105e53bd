// SPDX-License-Identifier: GPL-2.0-or-later
/* Stacks interned once, and off-CPU time summed per (id, kernel stack, user stack). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "stacks.h"
#include "hash.h"

static uint64_t hash_frames(const uint64_t *f, uint32_t n)
{
	uint64_t h = FNV1A64_INIT ^ n;
	uint32_t i;

	for (i = 0; i < n; i++)
		h = fnv1a64_word(h, f[i]);
	return h;
}

int stacktab_init(struct stacktab *s, uint32_t max_stacks)
{
	memset(s, 0, sizeof(*s));
	s->v = calloc(max_stacks, sizeof(*s->v));
	/* frames grow on demand, bounded by max_stacks * STACK_MAX_DEPTH */
	if (!s->v || posindex_init(&s->index, max_stacks)) {
		stacktab_fini(s);
		return -ENOMEM;
	}
	s->cap = max_stacks;
	return 0;
}

void stacktab_fini(struct stacktab *s)
{
	free(s->frames);
	free(s->v);
	posindex_fini(&s->index);
	memset(s, 0, sizeof(*s));
}

uint32_t stacktab_intern(struct stacktab *s, const uint64_t *frames, uint32_t depth)
{
	uint64_t h;
	uint32_t i;

	if (depth > STACK_MAX_DEPTH)
		depth = STACK_MAX_DEPTH;
	h = hash_frames(frames, depth);
	for (i = posindex_first(&s->index, h); s->index.slot[i] >= 0;
	     i = posindex_next(&s->index, i)) {
		int32_t pos = s->index.slot[i];
		const struct stack_ent *e = &s->v[pos];

		if (e->hash == h && e->depth == depth &&
		    (!depth || !memcmp(s->frames + e->off, frames,
				       depth * sizeof(*frames))))
			return (uint32_t)pos + 1;
	}
	if (s->n == s->cap) {
		s->overflow++;
		return 0;
	}
	if (depth) {	/* room for the last frame */
		size_t cap = s->cap_frames;
		uint64_t *nf = mem_grow_from(s->frames, &cap, s->nframes + depth - 1,
					     sizeof(*nf), 4096);

		if (!nf) {
			s->overflow++;
			return 0;
		}
		s->frames = nf;
		s->cap_frames = cap;
	}
	if (depth)	/* an empty stack has no frames (and maybe no array yet) */
		memcpy(s->frames + s->nframes, frames, depth * sizeof(*frames));
	s->v[s->n].hash = h;
	s->v[s->n].off = (uint32_t)s->nframes;
	s->v[s->n].depth = depth;
	s->index.slot[i] = (int32_t)s->n;
	s->nframes += depth;
	return ++s->n;
}

const uint64_t *stacktab_get(const struct stacktab *s, uint32_t id, uint32_t *depth)
{
	if (id == 0 || id > s->n) {
		*depth = 0;
		return NULL;
	}
	*depth = s->v[id - 1].depth;
	if (!*depth)
		return NULL;
	return s->frames + s->v[id - 1].off;
}

static uint64_t agg_hash(int64_t id, uint32_t k, uint32_t u)
{
	return posindex_mix((uint64_t)id ^ posindex_mix((uint64_t)k << 32 | u));
}

int stackagg_init(struct stackagg *a, uint32_t max_entries)
{
	memset(a, 0, sizeof(*a));
	a->v = calloc(max_entries, sizeof(*a->v));
	if (!a->v || posindex_init(&a->index, max_entries)) {
		stackagg_fini(a);
		return -ENOMEM;
	}
	a->cap = max_entries;
	return 0;
}

void stackagg_fini(struct stackagg *a)
{
	free(a->v);
	posindex_fini(&a->index);
	memset(a, 0, sizeof(*a));
}

void stackagg_clear(struct stackagg *a)
{
	a->n = 0;
	a->overflow = a->overflow_ns = 0;
	posindex_clear(&a->index);
}

void stackagg_add(struct stackagg *a, int64_t id, int32_t tgid, const char *comm,
		  uint32_t kstack, uint32_t ustack, uint64_t ns)
{
	stackagg_add_n(a, id, tgid, comm, kstack, ustack, 1, ns);
}

void stackagg_add_n(struct stackagg *a, int64_t id, int32_t tgid, const char *comm,
		    uint32_t kstack, uint32_t ustack, uint64_t n, uint64_t ns)
{
	uint32_t i;
	struct stackagg_ent *e;

	for (i = posindex_first(&a->index, agg_hash(id, kstack, ustack)); a->index.slot[i] >= 0;
	     i = posindex_next(&a->index, i)) {
		e = &a->v[a->index.slot[i]];
		if (e->id == id && e->kstack == kstack && e->ustack == ustack)
			goto found;
	}
	if (a->n == a->cap) {
		a->overflow += n;
		a->overflow_ns += ns;
		return;
	}
	e = &a->v[a->n];
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->tgid = tgid;
	e->kstack = kstack;
	e->ustack = ustack;
	a->index.slot[i] = (int32_t)a->n++;
found:
	if (comm)
		comm_copy(e->comm, comm);
	if (tgid >= 0)
		e->tgid = tgid;
	e->count += n;
	e->total_ns += ns;
}

static int cmp_total(const void *x, const void *y)
{
	const struct stackagg_ent *a = x, *b = y;

	if (a->total_ns != b->total_ns)
		return a->total_ns < b->total_ns ? 1 : -1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->kstack > b->kstack) - (a->kstack < b->kstack);
}

void stackagg_sort(struct stackagg *a)
{
	uint32_t i;

	if (a->n)
		qsort(a->v, a->n, sizeof(*a->v), cmp_total);
	posindex_clear(&a->index);
	for (i = 0; i < a->n; i++)
		posindex_put(&a->index, agg_hash(a->v[i].id, a->v[i].kstack, a->v[i].ustack),
			     (int32_t)i);
}
