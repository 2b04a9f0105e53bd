// SPDX-License-Identifier: GPL-2.0-or-later
/* waits: the wait-for graph, its stuck threads, cycles and chains (waitgraph.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "waitgraph.h"

struct wg_node {
	int32_t pid, tid;
	bool blocked, stuck, waited;
	bool wakes;		/* may wake with no holder it waits on moving */
	size_t e0, ne;		/* its edges, after solving */
};

struct wg_edge {
	size_t from, seq;	/* seq: the order it was added in, within @from */
	int32_t pid, tid;	/* tid 0: the process */
	long to;		/* the node it leads to (a process: its representative); -1 */
};

struct wg_proc {
	int32_t pid;
	long rep;		/* the node that stands for it */
	size_t first, n;	/* its nodes in by_pid[] */
	bool stuck;		/* every thread of it is */
};

struct wgraph {
	struct wg_node *nodes;
	size_t n, ncap;
	struct wg_edge *edges;
	size_t ne, ecap;
	size_t *by_tid, *by_pid;	/* node indices sorted by tid, by pid then tid */
	struct wg_proc *procs;
	size_t np;
	size_t *cyc, *cyc_off;	/* cycle k: cyc[cyc_off[k] .. cyc_off[k + 1]) */
	size_t ncyc;
};

struct wgraph *wgraph_new(void)
{
	return calloc(1, sizeof(struct wgraph));
}

void wgraph_free(struct wgraph *g)
{
	if (!g)
		return;
	free(g->nodes);
	free(g->edges);
	free(g->by_tid);
	free(g->by_pid);
	free(g->procs);
	free(g->cyc);
	free(g->cyc_off);
	free(g);
}

long wgraph_node(struct wgraph *g, int32_t pid, int32_t tid, bool blocked)
{
	struct wg_node *v = mem_grow(g->nodes, &g->ncap, g->n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	g->nodes = v;
	memset(&v[g->n], 0, sizeof(v[0]));
	v[g->n].pid = pid;
	v[g->n].tid = tid;
	v[g->n].blocked = blocked;
	return (long)g->n++;
}

void wgraph_wakes(struct wgraph *g, size_t i)
{
	g->nodes[i].wakes = true;
}

int wgraph_edge(struct wgraph *g, size_t from, int32_t pid, int32_t tid)
{
	struct wg_edge *v = mem_grow(g->edges, &g->ecap, g->ne, sizeof(*v));

	if (!v)
		return -ENOMEM;
	g->edges = v;
	v[g->ne].from = from;
	v[g->ne].seq = g->ne;
	v[g->ne].pid = pid;
	v[g->ne].tid = tid > 0 ? tid : 0;
	v[g->ne].to = -1;
	g->ne++;
	return 0;
}

static int cmp_tid(const void *a, const void *b, void *arg)
{
	const struct wg_node *nodes = arg;
	int32_t x = nodes[*(const size_t *)a].tid, y = nodes[*(const size_t *)b].tid;

	return (x > y) - (x < y);
}

static int cmp_pid(const void *a, const void *b, void *arg)
{
	const struct wg_node *nodes = arg, *x = &nodes[*(const size_t *)a],
			     *y = &nodes[*(const size_t *)b];

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_edge(const void *a, const void *b)
{
	const struct wg_edge *x = a, *y = b;

	if (x->from != y->from)
		return (x->from > y->from) - (x->from < y->from);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static struct wg_proc *proc_of(const struct wgraph *g, int32_t pid)
{
	size_t lo = 0, hi = g->np;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g->procs[mid].pid == pid)
			return &g->procs[mid];
		if (g->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static long node_of_tid(const struct wgraph *g, int32_t tid)
{
	size_t lo = 0, hi = g->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int32_t t = g->nodes[g->by_tid[mid]].tid;

		if (t == tid)
			return (long)g->by_tid[mid];
		if (t < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * The thread a process's chain follows: one that can run (the chain ends
 * there), else the main thread if it waits on something, else the first
 * that does, else the main thread.
 */
static long pick_rep(const struct wgraph *g, const struct wg_proc *p)
{
	long main_t = -1, waiting = -1;
	size_t k;

	for (k = 0; k < p->n; k++) {
		size_t i = g->by_pid[p->first + k];
		const struct wg_node *v = &g->nodes[i];

		if (!v->blocked)
			return (long)i;
		if (v->tid == v->pid)
			main_t = (long)i;
		if (v->ne && (waiting < 0 || v->tid == v->pid))
			waiting = (long)i;
	}
	if (waiting >= 0)
		return waiting;
	return main_t >= 0 ? main_t : (long)g->by_pid[p->first];
}

static int index_nodes(struct wgraph *g)
{
	size_t i, e;

	g->by_tid = malloc((g->n ? g->n : 1) * sizeof(size_t));
	g->by_pid = malloc((g->n ? g->n : 1) * sizeof(size_t));
	g->procs = malloc((g->n ? g->n : 1) * sizeof(*g->procs));
	if (!g->by_tid || !g->by_pid || !g->procs)
		return -ENOMEM;
	for (i = 0; i < g->n; i++)
		g->by_tid[i] = g->by_pid[i] = i;
	qsort_r(g->by_tid, g->n, sizeof(size_t), cmp_tid, g->nodes);
	qsort_r(g->by_pid, g->n, sizeof(size_t), cmp_pid, g->nodes);
	if (g->ne)	/* qsort of NULL, 0: undefined (no edge) */
		qsort(g->edges, g->ne, sizeof(*g->edges), cmp_edge);
	for (e = 0; e < g->ne; e++) {
		struct wg_node *v = &g->nodes[g->edges[e].from];

		if (!v->ne)
			v->e0 = e;
		v->ne++;
	}
	g->np = 0;
	for (i = 0; i < g->n; i++) {
		const struct wg_node *v = &g->nodes[g->by_pid[i]];

		if (!g->np || g->procs[g->np - 1].pid != v->pid) {
			g->procs[g->np].pid = v->pid;
			g->procs[g->np].first = i;
			g->procs[g->np].n = 0;
			g->np++;
		}
		g->procs[g->np - 1].n++;
	}
	for (i = 0; i < g->np; i++)
		g->procs[i].rep = pick_rep(g, &g->procs[i]);
	for (e = 0; e < g->ne; e++) {
		struct wg_edge *d = &g->edges[e];
		const struct wg_proc *p = d->tid ? NULL : proc_of(g, d->pid);

		d->to = d->tid ? node_of_tid(g, d->tid) : p ? p->rep : -1;
		if (d->to >= 0 && (size_t)d->to != d->from)
			g->nodes[d->to].waited = true;
	}
	return 0;
}

/* Is edge @d's holder stuck (a process: all of its threads)? */
static bool holder_stuck(const struct wgraph *g, const struct wg_edge *d)
{
	const struct wg_proc *p;

	if (d->tid)
		return d->to >= 0 && g->nodes[d->to].stuck;
	p = proc_of(g, d->pid);
	return p && p->stuck;
}

/*
 * Does node @i wait on its own process (not one thread of it: a pipe it
 * also writes, a self-pipe)? Its process may free it: a signal handler
 * writes a self-pipe, another thread may.
 */
static bool waits_on_self(const struct wgraph *g, size_t i)
{
	const struct wg_node *v = &g->nodes[i];
	size_t e;

	for (e = v->e0; e < v->e0 + v->ne; e++)
		if (!g->edges[e].tid && g->edges[e].pid == v->pid)
			return true;
	return false;
}

/*
 * the greatest set of stuck threads: start from every blocked waiter that
 * waits on nothing but its holders, drop until none drops
 */
static void find_stuck(struct wgraph *g)
{
	bool changed = true;
	size_t i, k, e;

	for (i = 0; i < g->n; i++) {
		struct wg_node *v = &g->nodes[i];

		v->stuck = v->blocked && v->ne && !v->wakes && !waits_on_self(g, i);
	}
	while (changed) {
		changed = false;
		for (i = 0; i < g->np; i++) {
			struct wg_proc *p = &g->procs[i];

			p->stuck = true;
			for (k = 0; k < p->n && p->stuck; k++)
				p->stuck = g->nodes[g->by_pid[p->first + k]].stuck;
		}
		for (i = 0; i < g->n; i++) {
			struct wg_node *v = &g->nodes[i];

			for (e = v->e0; v->stuck && e < v->e0 + v->ne; e++)
				if (!holder_stuck(g, &g->edges[e])) {
					v->stuck = false;
					changed = true;
				}
		}
	}
}

size_t wgraph_next(const struct wgraph *g, size_t i, size_t *out, size_t max)
{
	const struct wg_node *v = &g->nodes[i];
	size_t e, k, n = 0;

	for (e = v->e0; e < v->e0 + v->ne; e++) {
		long to = g->edges[e].to;

		if (to < 0)
			continue;
		for (k = 0; k < n && k < max; k++)
			if (out[k] == (size_t)to)
				break;
		if (k < n && k < max)
			continue;
		if (n < max)
			out[n] = (size_t)to;
		n++;
	}
	return n;
}

static int cycle_add(struct wgraph *g, const size_t *v, size_t len, size_t *cap, size_t *ccap)
{
	size_t used = g->ncyc ? g->cyc_off[g->ncyc] : 0, k;
	size_t *off = mem_grow(g->cyc_off, ccap, g->ncyc + 1, sizeof(size_t));

	if (!off)
		return -ENOMEM;
	g->cyc_off = off;
	off[0] = 0;
	for (k = 0; k < len; k++) {
		size_t *c = mem_grow(g->cyc, cap, used + k, sizeof(size_t));

		if (!c)
			return -ENOMEM;
		g->cyc = c;
		c[used + k] = v[k];
	}
	off[g->ncyc + 1] = used + len;
	g->ncyc++;
	return 0;
}

/*
 * One strongly connected component @scc (@n nodes, marked @comp[i] ==
 * @id) in wait order: from its first node along the first successor in
 * it not yet taken, then any member a ring did not reach.
 */
static int cycle_order(struct wgraph *g, size_t *scc, size_t n, const long *comp, long id,
		       size_t *cap, size_t *ccap)
{
	size_t *ord = malloc(n * sizeof(size_t)), len = 0, cur = scc[0], k, j;
	bool *taken = calloc(g->n, sizeof(bool));
	size_t nx[64];
	int ret;

	if (!ord || !taken) {
		free(ord);
		free(taken);
		return -ENOMEM;
	}
	for (;;) {
		size_t m = wgraph_next(g, cur, nx, 64), pick = SIZE_MAX;

		ord[len++] = cur;
		taken[cur] = true;
		for (k = 0; k < m && k < 64; k++)
			if (comp[nx[k]] == id && !taken[nx[k]]) {
				pick = nx[k];
				break;
			}
		if (pick == SIZE_MAX)
			break;
		cur = pick;
	}
	for (j = 0; j < n; j++)
		if (!taken[scc[j]])
			ord[len++] = scc[j];
	ret = cycle_add(g, ord, len, cap, ccap);
	free(ord);
	free(taken);
	return ret;
}

/* Tarjan's strongly connected components over the stuck threads, iteratively */
struct tarjan {
	long *index, *low, *comp;
	size_t *stack, sp, *call, *callpos, cp;
	bool *on;
	long next, ncomp;
};

static int tarjan_alloc(struct tarjan *t, size_t n)
{
	memset(t, 0, sizeof(*t));
	n = n ? n : 1;
	t->index = malloc(n * sizeof(long));
	t->low = malloc(n * sizeof(long));
	t->comp = malloc(n * sizeof(long));
	t->stack = malloc(n * sizeof(size_t));
	t->call = malloc(n * sizeof(size_t));
	t->callpos = malloc(n * sizeof(size_t));
	t->on = calloc(n, sizeof(bool));
	if (!t->index || !t->low || !t->comp || !t->stack || !t->call || !t->callpos || !t->on)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		t->index[i] = t->comp[i] = -1;
	return 0;
}

static void tarjan_free(struct tarjan *t)
{
	free(t->index);
	free(t->low);
	free(t->comp);
	free(t->stack);
	free(t->call);
	free(t->callpos);
	free(t->on);
}

/* a component closed at @root: popped, and kept as a cycle when it is one */
static int tarjan_pop(struct wgraph *g, struct tarjan *t, size_t root, size_t *cap, size_t *ccap)
{
	size_t start = t->sp, n, nx[64], m, k;
	long id = t->ncomp++;
	bool self = false;

	do {
		start--;
		t->on[t->stack[start]] = false;
		t->comp[t->stack[start]] = id;
	} while (t->stack[start] != root);
	n = t->sp - start;
	if (n == 1) {
		m = wgraph_next(g, root, nx, 64);
		for (k = 0; k < m && k < 64; k++)
			self |= nx[k] == root;
	}
	t->sp = start;
	if (n > 1 || self)
		return cycle_order(g, t->stack + start, n, t->comp, id, cap, ccap);
	return 0;
}

static int find_cycles(struct wgraph *g)
{
	size_t cap = 0, ccap = 0, s, nx[64];
	struct tarjan t;
	int ret = tarjan_alloc(&t, g->n);

	for (s = 0; !ret && s < g->n; s++) {
		if (!g->nodes[s].stuck || t.index[s] >= 0)
			continue;
		t.call[0] = s;
		t.callpos[0] = 0;
		t.cp = 1;
		t.index[s] = t.low[s] = t.next++;
		t.stack[t.sp++] = s;
		t.on[s] = true;
		while (!ret && t.cp) {
			size_t v = t.call[t.cp - 1], m = wgraph_next(g, v, nx, 64), w;

			if (m > 64)
				m = 64;
			if (t.callpos[t.cp - 1] < m) {
				w = nx[t.callpos[t.cp - 1]++];
				if (!g->nodes[w].stuck)
					continue;
				if (t.index[w] < 0) {
					t.index[w] = t.low[w] = t.next++;
					t.stack[t.sp++] = w;
					t.on[w] = true;
					t.call[t.cp] = w;
					t.callpos[t.cp++] = 0;
				} else if (t.on[w] && t.index[w] < t.low[v]) {
					t.low[v] = t.index[w];
				}
				continue;
			}
			if (t.low[v] == t.index[v])
				ret = tarjan_pop(g, &t, v, &cap, &ccap);
			t.cp--;
			if (t.cp && t.low[v] < t.low[t.call[t.cp - 1]])
				t.low[t.call[t.cp - 1]] = t.low[v];
		}
	}
	tarjan_free(&t);
	return ret;
}

int wgraph_solve(struct wgraph *g)
{
	int ret = index_nodes(g);

	if (ret)
		return ret;
	find_stuck(g);
	return find_cycles(g);
}

size_t wgraph_count(const struct wgraph *g)
{
	return g->n;
}

int32_t wgraph_tid(const struct wgraph *g, size_t i)
{
	return g->nodes[i].tid;
}

int32_t wgraph_pid(const struct wgraph *g, size_t i)
{
	return g->nodes[i].pid;
}

bool wgraph_stuck(const struct wgraph *g, size_t i)
{
	return g->nodes[i].stuck;
}

bool wgraph_waited_on(const struct wgraph *g, size_t i)
{
	return g->nodes[i].waited;
}

long wgraph_find(const struct wgraph *g, int32_t pid, int32_t tid)
{
	const struct wg_proc *p;

	if (tid > 0)
		return node_of_tid(g, tid);
	p = proc_of(g, pid);
	return p ? p->rep : -1;
}

size_t wgraph_ncycles(const struct wgraph *g)
{
	return g->ncyc;
}

const size_t *wgraph_cycle(const struct wgraph *g, size_t k, size_t *len)
{
	*len = g->cyc_off[k + 1] - g->cyc_off[k];
	return g->cyc + g->cyc_off[k];
}

struct walk {
	const struct wgraph *g;
	size_t *path, max_len, max_chains, count;
	bool *on, *seen;
	unsigned *done, gen;	/* done[v] == gen: expanded from this root already */
	void (*fn)(const size_t *path, size_t len, enum wchain_end end, void *arg);
	void *arg;
};

static void walk_emit(struct walk *w, size_t len, enum wchain_end end)
{
	if (len < 2)
		return;
	if (w->count < w->max_chains)
		w->fn(w->path, len, end, w->arg);
	w->count++;
}

/*
 * The paths on from w->path[len - 1], each node expanded once per root
 * (a node reached again ends its path there: the rest was shown), so a
 * root gives at most as many chains as there are edges; recursion
 * bounded by max_len.
 */
static void walk_from(struct walk *w, size_t len)
{
	size_t v = w->path[len - 1], nx[64], m, k, mx;

	w->on[v] = w->seen[v] = true;
	w->done[v] = w->gen;
	m = wgraph_next(w->g, v, nx, 64);
	if (m > 64)
		m = 64;
	if (!m || len >= w->max_len)
		walk_emit(w, len, WCHAIN_END);
	for (k = 0; k < m && len < w->max_len && w->count <= w->max_chains; k++) {
		w->path[len] = nx[k];
		if (w->on[nx[k]]) {
			/* the node it comes back to ends the path */
			walk_emit(w, len + 1, WCHAIN_LOOP);
		} else if (w->done[nx[k]] == w->gen) {
			mx = wgraph_next(w->g, nx[k], NULL, 0);
			walk_emit(w, len + 1, mx ? WCHAIN_JOIN : WCHAIN_END);
		} else {
			walk_from(w, len + 1);
		}
	}
	w->on[v] = false;
}

size_t wgraph_chains(const struct wgraph *g, size_t max_chains, size_t max_len,
		     void (*fn)(const size_t *path, size_t len, enum wchain_end end, void *arg),
		     void *arg)
{
	struct walk w = { .g = g, .max_len = max_len ? max_len : 1, .max_chains = max_chains,
			  .fn = fn, .arg = arg };
	size_t i, k;

	w.path = malloc(w.max_len * sizeof(size_t));
	w.on = calloc(g->n ? g->n : 1, sizeof(bool));
	w.seen = calloc(g->n ? g->n : 1, sizeof(bool));
	w.done = calloc(g->n ? g->n : 1, sizeof(unsigned));
	if (!w.path || !w.on || !w.seen || !w.done)
		goto out;
	for (i = 0; i < g->n && w.count <= max_chains; i++) {
		if (g->nodes[i].waited || !g->nodes[i].ne)
			continue;
		w.gen++;
		w.path[0] = i;
		walk_from(&w, 1);
	}
	/* rings nobody outside them waits on */
	for (k = 0; k < g->ncyc && w.count <= max_chains; k++) {
		size_t len, j;
		const size_t *c = wgraph_cycle(g, k, &len);

		if (w.seen[c[0]])
			continue;
		for (j = 0; j < len && j + 1 < w.max_len; j++) {
			w.path[j] = c[j];
			w.seen[c[j]] = true;
		}
		w.path[j] = c[0];
		walk_emit(&w, j + 1, WCHAIN_LOOP);
	}
	/* waits among threads that all wait on each other but may wake (no root, no cycle) */
	for (i = 0; i < g->n && w.count <= max_chains; i++) {
		if (w.seen[i] || !g->nodes[i].ne || !wgraph_next(g, i, NULL, 0))
			continue;
		w.gen++;
		w.path[0] = i;
		walk_from(&w, 1);
	}
out:
	free(w.path);
	free(w.on);
	free(w.seen);
	free(w.done);
	return w.count;
}
