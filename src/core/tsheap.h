/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Merging per-CPU streams in time order: a binary min-heap of source
 * indexes keyed by each source's next timestamp (key[src]), shared by the
 * backends. The caller updates key[top] and calls tsheap_fix_top().
 */
#ifndef OFFCPU_TSHEAP_H
#define OFFCPU_TSHEAP_H

#include <stdint.h>

struct tsheap {
	unsigned *v;		/* source indexes; caller allocates */
	unsigned n;
	const uint64_t *key;	/* key[source]: its next timestamp */
};

static inline int tsheap_less(const struct tsheap *h, unsigned a, unsigned b)
{
	return h->key[h->v[a]] < h->key[h->v[b]];
}

static inline void tsheap_swap(struct tsheap *h, unsigned a, unsigned b)
{
	unsigned t = h->v[a];

	h->v[a] = h->v[b];
	h->v[b] = t;
}

static inline void tsheap_down(struct tsheap *h, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->n && tsheap_less(h, l, m))
			m = l;
		if (r < h->n && tsheap_less(h, r, m))
			m = r;
		if (m == i)
			return;
		tsheap_swap(h, i, m);
		i = m;
	}
}

static inline void tsheap_push(struct tsheap *h, unsigned src)
{
	unsigned i = h->n++;

	h->v[i] = src;
	while (i && tsheap_less(h, i, (i - 1) / 2)) {
		tsheap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

/* The top source's key changed (it advanced). */
static inline void tsheap_fix_top(struct tsheap *h)
{
	tsheap_down(h, 0);
}

/* The top source ran dry. */
static inline void tsheap_pop(struct tsheap *h)
{
	h->v[0] = h->v[--h->n];
	if (h->n)
		tsheap_down(h, 0);
}

#endif
