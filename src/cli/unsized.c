// SPDX-License-Identifier: GPL-2.0-or-later
/* Waits a trace could not time, sized from the threads' schedstat run_delay. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

static void on_unmeasured(void *arg, int32_t tid)
{
	struct unsized_thread *t = find(arg, tid, true);

	if (t)
		t->unmeasured++;
}

/* every thread's run_delay (threads not seen here are born later: 0) */
static void snapshot(struct unsized *u)
{
	int32_t *pids = NULL, *tids;
	int np = proc_pids(&pids), nt, i, j;

	for (i = 0; i < np; i++) {
		nt = proc_threads(pids[i], &tids);
		for (j = 0; j < nt; j++) {
			struct unsized_thread *t = find(u, tids[j], true);
			uint64_t rd;

			if (t && !proc_run_delay(tids[j], &rd))
				t->rd0 = rd;
		}
		if (nt > 0)
			free(tids);
	}
	free(pids);
}

int unsized_start(struct unsized *u, struct analyzer *an)
{
	struct an_sink sink = { .arg = u, .wait = on_wait, .unmeasured = on_unmeasured };
	int ret;

	memset(u, 0, sizeof(*u));
	u->cap = UNSIZED_MAX;
	u->v = calloc(u->cap, sizeof(*u->v));
	if (!u->v)
		return -ENOMEM;
	ret = posindex_init(&u->index, u->cap);
	if (!ret)
		ret = analyzer_subscribe(an, &sink);
	if (ret) {
		unsized_free(u);
		return ret;
	}
	snapshot(u);
	u->on = true;
	return 0;
}

bool unsized_result(struct unsized *u, uint64_t *ns, uint64_t *unsized)
{
	uint32_t i;

	*ns = *unsized = 0;
	if (!u->on)
		return false;
	for (i = 0; i < u->n; i++) {
		const struct unsized_thread *t = &u->v[i];
		uint64_t rd;

		if (!t->unmeasured)
			continue;
		if (proc_run_delay(t->tid, &rd) || rd < t->rd0) {
			*unsized += t->unmeasured;
			continue;
		}
		if (rd - t->rd0 > t->measured_ns)
			*ns += rd - t->rd0 - t->measured_ns;
	}
	return true;
}

void unsized_free(struct unsized *u)
{
	if (!u)
		return;
	posindex_fini(&u->index);
	free(u->v);
	u->v = NULL;
	u->on = false;
}
