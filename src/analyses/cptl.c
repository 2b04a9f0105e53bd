// SPDX-License-Identifier: GPL-2.0-or-later
/* The critical path: the followed threads' timelines, in bounded memory, and the walk over them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cptl.h"
#include "grow.h"
#include "hash.h"

/* zero-time hops in a row (a wake, a creation) before the walk stays put */
#define CP_MAX_HOPS 16

int cp_tl_init(struct cp_tl *tl, uint32_t maxt, uint64_t maxseg, size_t maxsmp)
{
	memset(tl, 0, sizeof(*tl));
	tl->maxt = maxt;
	tl->maxseg = maxseg;
	tl->maxsmp = maxsmp;
	return posindex_init(&tl->index, maxt);
}

void cp_tl_fini(struct cp_tl *tl)
{
	size_t i;

	for (i = 0; i < tl->nt; i++)
		free(tl->t[i].seg);
	free(tl->t);
	free(tl->smp);
	posindex_fini(&tl->index);
	memset(tl, 0, sizeof(*tl));
}

struct cp_thread *cp_tl_thread(struct cp_tl *tl, int32_t tid, bool add)
{
	struct cp_thread *nt;
	uint32_t i;

	if (tid <= 0 || !tl->index.slot)
		return NULL;
	for (i = posindex_first(&tl->index, tid_hash32(tid)); tl->index.slot[i] >= 0;
	     i = posindex_next(&tl->index, i))
		if (tl->t[tl->index.slot[i]].tid == tid)
			return &tl->t[tl->index.slot[i]];
	if (!add)
		return NULL;
	if (tl->nt >= tl->maxt ||
	    !(nt = mem_grow_from(tl->t, &tl->capt, tl->nt, sizeof(*tl->t), 64))) {
		tl->threads_over++;
		return NULL;
	}
	tl->t = nt;
	memset(&tl->t[tl->nt], 0, sizeof(tl->t[0]));
	tl->t[tl->nt].tid = tid;
	tl->t[tl->nt].tgid = -1;
	tl->t[tl->nt].in_cpu = -1;
	tl->index.slot[i] = (int32_t)tl->nt;
	return &tl->t[tl->nt++];
}

/* states that ended at or before @t, in all threads */
static uint64_t count_ended(const struct cp_tl *tl, uint64_t t)
{
	uint64_t n = 0;
	size_t i, k;

	for (i = 0; i < tl->nt; i++)
		for (k = 0; k < tl->t[i].n && tl->t[i].seg[k].start <= t; k++)
			n += tl->t[i].seg[k].end <= t;
	return n;
}

/*
 * The cap is reached: the oldest states go, about half of them, so that
 * the newest (where the walk from the command's end begins) stay. The
 * cut is a time: what ended before it is dropped in every thread, and
 * the walk says the path before it is not known.
 */
static void compact(struct cp_tl *tl)
{
	uint64_t lo = UINT64_MAX, hi = 0, cut, n;
	size_t i, k;
	int round;

	for (i = 0; i < tl->nt; i++) {
		if (!tl->t[i].n)
			continue;
		if (tl->t[i].seg[0].start < lo)
			lo = tl->t[i].seg[0].start;
		if (tl->t[i].seg[tl->t[i].n - 1].end > hi)
			hi = tl->t[i].seg[tl->t[i].n - 1].end;
	}
	if (lo >= hi)
		return;
	/* the earliest time by which half the states had ended: bisected */
	for (round = 0, cut = hi; round < 40 && lo < hi; round++) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (count_ended(tl, mid) >= tl->nseg / 2) {
			cut = mid;
			hi = mid;
		} else {
			lo = mid + 1;
		}
	}
	for (i = 0; i < tl->nt; i++) {
		struct cp_thread *t = &tl->t[i];

		for (k = 0; k < t->n && t->seg[k].end <= cut; k++)
			;
		if (!k)
			continue;
		memmove(t->seg, t->seg + k, (t->n - k) * sizeof(*t->seg));
		t->n -= k;
		n = k;
		tl->nseg -= n;
		tl->dropped += n;
	}
	if (cut > tl->kept_from)
		tl->kept_from = cut;
}

int cp_tl_add(struct cp_tl *tl, struct cp_thread *t, const struct cp_seg *s)
{
	struct cp_seg *nv;
	size_t k;

	if (s->end < s->start)
		return 0;
	if (tl->nseg >= tl->maxseg)
		compact(tl);
	if (s->end <= tl->kept_from && tl->kept_from)
		return 0;	/* older than what is kept */
	nv = mem_grow_from(t->seg, &t->cap, t->n, sizeof(*t->seg), 16);
	if (!nv) {
		tl->dropped++;
		return -ENOMEM;
	}
	t->seg = nv;
	/* in its place by start: a blocked part comes after the wait that follows it */
	for (k = t->n; k > 0 && t->seg[k - 1].start > s->start; k--)
		;
	memmove(t->seg + k + 1, t->seg + k, (t->n - k) * sizeof(*t->seg));
	t->seg[k] = *s;
	t->n++;
	if (!t->first_ts || s->start < t->first_ts)
		t->first_ts = s->start;
	tl->nseg++;
	return 0;
}

void cp_tl_sample(struct cp_tl *tl, const struct cpath_sample *s)
{
	struct cpath_sample *nv;

	if (tl->nsmp >= tl->maxsmp && tl->nsmp) {
		/* the older half goes: the walk begins at the end */
		size_t half = tl->nsmp / 2;

		memmove(tl->smp, tl->smp + half, (tl->nsmp - half) * sizeof(*tl->smp));
		tl->nsmp -= half;
		tl->samples_dropped += half;
	}
	nv = mem_grow_from(tl->smp, &tl->capsmp, tl->nsmp, sizeof(*tl->smp), 256);
	if (!nv) {
		tl->samples_dropped++;
		return;
	}
	tl->smp = nv;
	tl->smp[tl->nsmp++] = *s;
}

void cp_tl_name(struct cp_tl *tl, int32_t tid, const char *comm)
{
	struct cp_name *e;

	if (tid <= 0 || !comm || !comm[0] || !strcmp(comm, "[unknown]"))
		return;
	e = &tl->names[tid_hash32(tid) % CP_NAMES];
	e->tid = tid;
	comm_copy(e->comm, comm);
}

const char *cp_tl_name_of(const struct cp_tl *tl, int32_t tid)
{
	const struct cp_thread *t = cp_tl_thread((struct cp_tl *)tl, tid, false);
	const struct cp_name *e = &tl->names[tid_hash32(tid) % CP_NAMES];

	if (t && t->comm[0])
		return t->comm;
	return tid > 0 && e->tid == tid ? e->comm : "";
}

/* --- the walk */

struct walk {
	const struct cp_walk_in *in;
	struct cp_walk_out *out;
	size_t cap;
	int err;
	const struct cp_thread *th;	/* where the path is */
	const struct cp_thread *from;	/* ... and was, before a hop at this time */
	unsigned hops;			/* zero-time hops in a row */
};

/* [a, b) of @th as @kind, from state @s (NULL: none), added before what is there */
static void emit(struct walk *w, const struct cp_seg *s, uint8_t kind, uint8_t why, uint64_t a,
		 uint64_t b)
{
	struct cpath_seg *nv, *o;

	if (a >= b || w->err)
		return;
	nv = mem_grow_from(w->out->seg, &w->cap, w->out->n, sizeof(*nv), 64);
	if (!nv) {
		w->err = -ENOMEM;
		return;
	}
	w->out->seg = nv;
	o = &nv[w->out->n++];
	memset(o, 0, sizeof(*o));
	o->start = a;
	o->end = b;
	o->tid = w->th->tid;
	o->kind = kind;
	o->why = why;
	o->cpu = s ? s->cpu : -1;
	o->other = s ? s->other : kind == CP_RUNQ ? -1 : 0;
	o->state = s ? s->state : 0;
	o->kstack = s ? s->kstack : 0;
	o->ustack = s ? s->ustack : 0;
	o->wstack = s ? s->wstack : 0;
	o->preempted = s && (s->flags & CPF_PREEMPTED);
}

/* the path goes to @to at this time: the segment after (in time) came from it */
static void hop(struct walk *w, const struct cp_thread *to, uint8_t via)
{
	/* a chain of hops at one instant: the first says where the path came from */
	if (w->out->n && !w->hops) {
		w->out->seg[w->out->n - 1].via = via;
		w->out->seg[w->out->n - 1].via_tid = to->tid;
	}
	w->from = w->th;
	w->th = to;
	w->hops++;
}

/* The last state of @t that began before @ts, -1 none. */
static long state_before(const struct cp_thread *t, uint64_t ts)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->seg[mid].start < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

/* Who the path follows from blocked state @s at its end, or NULL (and *why). */
static const struct cp_thread *waker(struct walk *w, const struct cp_seg *s, uint8_t *why)
{
	const struct cp_walk_in *in = w->in;
	const struct cp_thread *to;

	if (s->flags & CPF_OPEN) {
		*why = CPW_OPEN;
		return NULL;
	}
	if (s->other <= 0) {
		*why = in->wakings_whole ? CPW_IDLE : CPW_LOST;
		return NULL;
	}
	/* an interrupt's wake names the task it interrupted: not a cause */
	if (s->wstack && in->in_irq && in->in_irq(in->arg, s->wstack)) {
		*why = CPW_IRQ;
		return NULL;
	}
	to = cp_tl_thread((struct cp_tl *)in->tl, s->other, false);
	if (!to) {
		*why = CPW_OUTSIDE;
		return NULL;
	}
	if (to == w->th || to == w->from || w->hops >= CP_MAX_HOPS) {
		*why = CPW_CYCLE;
		return NULL;
	}
	*why = CPW_NONE;
	return to;
}

/* @t falls in state @s of the path's thread: the path takes it, or hops to its waker */
static uint64_t in_state(struct walk *w, const struct cp_seg *s, uint64_t t)
{
	uint64_t a = s->start > w->in->start ? s->start : w->in->start;
	const struct cp_thread *to;
	uint8_t why = CPW_NONE;

	if (s->kind == CP_BLOCKED) {
		to = waker(w, s, &why);
		if (to && t == s->end) {
			if (!s->wstack)
				w->out->irq_unchecked++;
			hop(w, to, CPV_WAKE);
			return t;
		}
		if (to)
			why = CPW_CYCLE;	/* entered mid-block: its waker came later */
	}
	emit(w, s, s->kind, why, a, t);
	return a;
}

/* @t is before the first state of the path's thread */
static uint64_t before_first(struct walk *w, uint64_t t)
{
	const struct cp_thread *th = w->th, *p;
	uint64_t from = w->in->start;
	uint8_t why;

	if (th->born && t > th->born) {
		/* created, then waiting for its first run */
		from = th->born > from ? th->born : from;
		emit(w, NULL, CP_RUNQ, CPW_NONE, from, t);
		return from;
	}
	if (th->born && th->parent && w->hops < CP_MAX_HOPS &&
	    (p = cp_tl_thread((struct cp_tl *)w->in->tl, th->parent, false)) && p != th &&
	    p != w->from) {
		hop(w, p, CPV_FORK);
		return t;
	}
	if (th->tid == w->in->root && th->first_wake && th->first_wake < t) {
		/* released by the tracer, then waiting for a CPU */
		from = th->first_wake > from ? th->first_wake : from;
		emit(w, NULL, CP_RUNQ, CPW_NONE, from, t);
		return from;
	}
	why = w->in->tl->kept_from && (!th->born || th->born < w->in->tl->kept_from) ?
	      CPW_NOT_KEPT : CPW_BEFORE;
	emit(w, NULL, CP_UNKNOWN, why, from, t);
	return from;
}

static void reverse(struct cpath_seg *v, size_t n)
{
	size_t i;

	for (i = 0; i < n / 2; i++) {
		struct cpath_seg x = v[i];

		v[i] = v[n - 1 - i];
		v[n - 1 - i] = x;
	}
}

int cp_walk(const struct cp_walk_in *in, struct cp_walk_out *out)
{
	struct walk w = { .in = in, .out = out };
	uint64_t t = in->end, was;

	memset(out, 0, sizeof(*out));
	w.th = cp_tl_thread((struct cp_tl *)in->tl, in->root, false);
	if (!w.th && in->end > in->start) {
		/* the command left nothing in the trace */
		struct cp_thread root;

		memset(&root, 0, sizeof(root));
		root.tid = in->root;
		w.th = &root;
		emit(&w, NULL, CP_UNKNOWN, CPW_BEFORE, in->start, in->end);
		return w.err;
	}
	while (t > in->start && !w.err) {
		const struct cp_thread *th = w.th;
		long i = state_before(th, t);

		was = t;
		if (i >= 0 && th->seg[i].end >= t) {
			t = in_state(&w, &th->seg[i], t);
		} else if (i < 0) {
			t = before_first(&w, t);
		} else {
			/* between two states: the trace lost what happened */
			uint64_t e = th->seg[i].end > in->start ? th->seg[i].end : in->start;

			emit(&w, NULL, CP_UNKNOWN, CPW_GAP, e, t);
			t = e;
		}
		if (t < was) {
			w.hops = 0;
			w.from = NULL;
		}
	}
	if (w.err) {
		free(out->seg);
		memset(out, 0, sizeof(*out));
		return w.err;
	}
	reverse(out->seg, out->n);
	return 0;
}
