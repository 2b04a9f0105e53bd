// SPDX-License-Identifier: GPL-2.0-or-later
/* Waits a trace could not time, sized from every thread's schedstat run_delay. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "groups.h"
#include "hash.h"
#include "procfs.h"
#include "unsized.h"

/* threads followed at most (a snapshot of a busy host fits) */
#define UNSIZED_MAX 65536

static struct unsized_thread *find(struct unsized *u, int32_t tid, bool add)
{
	uint32_t i;

	for (i = posindex_first(&u->index, tid_hash32(tid)); u->index.slot[i] >= 0;
	     i = posindex_next(&u->index, i))
		if (u->v[u->index.slot[i]].tid == tid)
			return &u->v[u->index.slot[i]];
	if (!add || u->n >= u->cap)
		return NULL;
	u->v[u->n] = (struct unsized_thread){ .tid = tid };
	u->index.slot[i] = (int32_t)u->n;
	return &u->v[u->n++];
}

static void on_wait(void *arg, const struct an_wait *w)
{
	struct unsized_thread *t = find(arg, w->tid, true);

	if (t)
		t->measured_ns += w->end_ns - w->start_ns;
}

static void on_unmeasured(void *arg, int32_t tid, struct group *g)
{
	struct unsized_thread *t = find(arg, tid, true);
	unsigned i;

	if (!t)
		return;
	t->unmeasured++;
	if (!g)
		return;
	for (i = 0; i < UNSIZED_GROUPS - 1 && t->g[i] && t->g[i] != g; i++)
		;
	t->g[i] = g;	/* the last slot takes the rest */
	t->gn[i]++;
}

/* every thread's run_delay now: tids and values (n of them), malloc'd */
static int snapshot(int32_t **tids_out, uint64_t **rd_out)
{
	int32_t *pids = NULL, *tids, *all = NULL;
	uint64_t *rd = NULL;
	int np = proc_pids(&pids), nt, i, j, n = 0, cap = 0;

	for (i = 0; i < np; i++) {
		nt = proc_threads(pids[i], &tids);
		for (j = 0; j < nt && n < UNSIZED_MAX; j++) {
			uint64_t v;

			if (proc_run_delay(tids[j], &v))
				continue;
			if (n == cap) {
				int32_t *a;
				uint64_t *r;

				cap = cap ? cap * 2 : 1024;
				a = realloc(all, (size_t)cap * sizeof(*all));
				if (a)
					all = a;
				r = a ? realloc(rd, (size_t)cap * sizeof(*rd)) : NULL;
				if (r)
					rd = r;
				if (!a || !r) {
					free(tids);
					n = -ENOMEM;
					goto out;
				}
			}
			all[n] = tids[j];
			rd[n++] = v;
		}
		if (nt > 0)
			free(tids);
	}
out:
	free(pids);
	if (n < 0) {
		free(all);
		free(rd);
		return n;
	}
	*tids_out = all;
	*rd_out = rd;
	return n;
}

/* the table emptied, then holding @n threads as the interval's start */
static void restart(struct unsized *u, const int32_t *tids, const uint64_t *rd, int n)
{
	int i;

	u->n = 0;
	posindex_clear(&u->index);
	for (i = 0; i < n; i++) {
		struct unsized_thread *t = find(u, tids[i], true);

		if (t) {
			t->seen = true;
			t->rd0 = rd[i];
		}
	}
}

/*
 * a thread exited: its run_delay then, for the interval's end (kept for any
 * thread: its events may not have been read yet; one not in the table was
 * born in the window, from 0)
 */
static void on_exit_stats(void *arg, const struct ts_exit *e)
{
	struct unsized_thread *t = find(arg, e->tid, true);

	if (t) {
		t->exited = true;
		t->rd_exit = e->run_delay_ns;
	}
}

void unsized_tick(struct unsized *u)
{
	if (u->on && u->ts_on)
		ts_drain(&u->ts, on_exit_stats, u);
}

int unsized_start(struct unsized *u, struct analyzer *an)
{
	struct an_sink sink = { .arg = u, .wait = on_wait, .unmeasured = on_unmeasured };
	int32_t *tids = NULL;
	uint64_t *rd = NULL;
	int ret, n;

	memset(u, 0, sizeof(*u));
	u->cap = UNSIZED_MAX;
	u->v = calloc(u->cap, sizeof(*u->v));
	if (!u->v)
		return -ENOMEM;
	ret = posindex_init(&u->index, u->cap);
	if (!ret)
		ret = analyzer_subscribe(an, &sink);
	n = ret ? 0 : snapshot(&tids, &rd);
	if (ret || n < 0) {
		unsized_free(u);
		return ret ? ret : n;
	}
	restart(u, tids, rd, n);
	free(tids);
	free(rd);
	/* threads that exit in the window: the kernel says their run_delay then */
	u->ts_on = ts_open(&u->ts) == 0;
	u->on = true;
	return 0;
}

uint64_t unsized_thread_ns(uint64_t rd0, uint64_t rd1, uint64_t measured_ns)
{
	return rd1 > rd0 && rd1 - rd0 > measured_ns ? rd1 - rd0 - measured_ns : 0;
}

void unsized_share(const struct unsized_thread *t, uint64_t ns, bool sized)
{
	uint64_t left = ns;
	unsigned i;

	for (i = 0; i < UNSIZED_GROUPS && t->g[i]; i++) {
		struct group *g = t->g[i];
		uint64_t part = i + 1 < UNSIZED_GROUPS && t->g[i + 1] ?
				ns * t->gn[i] / t->unmeasured : left;

		g->unmeasured_sized = true;
		if (!sized) {
			g->unmeasured_unsized += t->gn[i];
			continue;
		}
		g->unmeasured_ns += part;
		left -= part;
	}
}

bool unsized_interval(struct unsized *u, struct unsized_result *res)
{
	int32_t *tids = NULL;
	uint64_t *rd = NULL;
	int n, i;
	uint32_t k;

	memset(res, 0, sizeof(*res));
	if (!u->on)
		return false;
	n = snapshot(&tids, &rd);
	if (n < 0)
		return false;
	/* exits up to now: a thread not in the snapshot has told its own by then */
	unsized_tick(u);
	res->exits_heard = u->ts_on;
	res->exits_lost = u->ts_on ? u->ts.overrun : 0;
	/* the threads alive now */
	for (i = 0; i < n; i++) {
		struct unsized_thread *t = find(u, tids[i], false);
		uint64_t ns;

		if (!t)
			continue;	/* born since, no wait of it seen */
		t->alive_now = true;
		if (t->seen) {
			res->alive++;
			res->alive_rd_ns += rd[i] > t->rd0 ? rd[i] - t->rd0 : 0;
			res->alive_measured_ns += t->measured_ns;
		}
		if (!t->unmeasured)
			continue;
		ns = unsized_thread_ns(t->rd0, rd[i], t->measured_ns);
		res->ns += ns;
		res->threads++;
		unsized_share(t, ns, true);
	}
	/* the threads not alive now (their entries not marked below) */
	for (k = 0; k < u->n; k++) {
		struct unsized_thread *t = &u->v[k];

		if (t->alive_now)
			continue;
		if (t->measured_ns || t->unmeasured)
			res->gone++;
		res->gone_measured_ns += t->measured_ns;
		if (!t->unmeasured)
			continue;
		if (t->exited) {
			/* sized from its exit's run_delay (born here: from 0) */
			uint64_t ns = unsized_thread_ns(t->seen ? t->rd0 : 0, t->rd_exit,
							t->measured_ns);

			res->ns += ns;
			res->threads++;
			res->gone_sized++;
			unsized_share(t, ns, true);
			continue;
		}
		res->unsized += t->unmeasured;
		unsized_share(t, 0, false);
	}
	restart(u, tids, rd, n);
	free(tids);
	free(rd);
	return true;
}

void unsized_free(struct unsized *u)
{
	if (!u)
		return;
	if (u->ts_on)
		ts_close(&u->ts);
	u->ts_on = false;
	posindex_fini(&u->index);
	free(u->v);
	u->v = NULL;
	u->on = false;
}
