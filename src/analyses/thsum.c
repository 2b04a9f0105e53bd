// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timehist's summary (-s, -S): per thread (or --by key) the runs, run
 * time (min, average, max, the relative spread of the average, as perf
 * sched timehist -s), migrations, and the waits for a CPU with perf sched
 * latency's columns: average, worst and when it ended; --state splits the
 * wait time by how it began (sleep, iowait, preempt), -I charges each
 * idle stretch to the task the CPU idled after. The threads are a table
 * bounded by --max-tasks; the proc backend's totals fill the same rows.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "grow.h"
#include "hash.h"
#include "timehist.h"

static void stats_add(struct th_stats *s, uint64_t v)
{
	double d;

	if (!s->n || v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	s->n++;
	s->sum += v;
	d = (double)v - s->mean;
	s->mean += d / (double)s->n;
	s->m2 += d * ((double)v - s->mean);
}

/* @b into @a (Chan's parallel update) */
static void stats_merge(struct th_stats *a, const struct th_stats *b)
{
	double d, n;

	if (!b->n)
		return;
	if (!a->n) {
		*a = *b;
		return;
	}
	n = (double)(a->n + b->n);
	d = b->mean - a->mean;
	a->m2 += b->m2 + d * d * (double)a->n * (double)b->n / n;
	a->mean += d * (double)b->n / n;
	a->min = b->min < a->min ? b->min : a->min;
	a->max = b->max > a->max ? b->max : a->max;
	a->n += b->n;
	a->sum += b->sum;
}

/* perf's "stddev": the standard error of the mean, in percent of it */
static double stats_rel_stddev(const struct th_stats *s)
{
	double var;

	if (s->n < 2 || s->mean <= 0)
		return 0;
	var = s->m2 / (double)(s->n - 1);
	return 100.0 * sqrt(var / (double)s->n) / s->mean;
}

struct th_row *th_row_find(struct timehist *t, int32_t tid)
{
	uint32_t i;

	for (i = posindex_first(&t->index, tid_hash32(tid)); t->index.slot[i] >= 0;
	     i = posindex_next(&t->index, i))
		if (t->rows[t->index.slot[i]].tid == tid)
			return &t->rows[t->index.slot[i]];
	return NULL;
}

struct th_row *th_row_of(struct timehist *t, int32_t tid)
{
	struct th_row *nv;
	uint32_t i;

	for (i = posindex_first(&t->index, tid_hash32(tid)); t->index.slot[i] >= 0;
	     i = posindex_next(&t->index, i))
		if (t->rows[t->index.slot[i]].tid == tid)
			return &t->rows[t->index.slot[i]];
	if (t->nrows >= t->maxrows ||
	    !(nv = mem_grow_from(t->rows, &t->caprows, t->nrows, sizeof(*t->rows), 64)))
		return NULL;
	t->rows = nv;
	memset(&t->rows[t->nrows], 0, sizeof(*t->rows));
	t->rows[t->nrows].tid = tid;
	t->rows[t->nrows].tgid = -1;
	t->rows[t->nrows].last_cpu = -1;
	t->index.slot[i] = (int32_t)t->nrows;
	return &t->rows[t->nrows++];
}

static struct th_cpu *cpu_of(struct timehist *t, int32_t cpu)
{
	struct th_cpu *nv;
	uint32_t n;

	if (cpu < 0 || cpu >= AN_MAX_CPUS)
		return NULL;
	if ((uint32_t)cpu < t->ncpus)
		return &t->cpus[cpu];
	n = (uint32_t)cpu + 1;
	nv = realloc(t->cpus, n * sizeof(*nv));
	if (!nv)
		return NULL;
	memset(nv + t->ncpus, 0, (n - t->ncpus) * sizeof(*nv));
	t->cpus = nv;
	t->ncpus = n;
	return &t->cpus[cpu];
}

/* an idle stretch of @c: the CPU's, and -I's for the task it idled after */
static void sum_idle(struct timehist *t, const struct tl_run *r, struct th_cpu *c)
{
	struct th_row *row;

	if (r->in_ns && r->out_ns >= r->in_ns) {
		c->idle_ns += r->out_ns - r->in_ns;
		c->idle_n++;
		if (c->went_idle > 0 && (row = th_row_of(t, c->went_idle)))
			stats_add(&row->idle, r->out_ns - r->in_ns);
	}
	c->went_idle = 0;
}

void th_sum_run(struct timehist *t, const struct tl_run *r)
{
	struct th_cpu *c = cpu_of(t, r->cpu);
	uint64_t in = r->in_ns ? r->in_ns : r->off_end_ns;
	struct th_row *row;

	if (r->marks & TL_WINDOW_END)
		return;
	if (!t->first_ns || (r->in_ns && r->in_ns < t->first_ns))
		t->first_ns = r->in_ns ? r->in_ns : r->out_ns;
	if (r->out_ns > t->last_ns)
		t->last_ns = r->out_ns;
	if (r->tid == 0) {
		if (c)
			sum_idle(t, r, c);
		return;
	}
	if (c)
		c->went_idle = r->selected && r->next_tid == 0 ? r->tid : 0;
	if (!r->selected)
		return;
	if (!(row = th_row_of(t, r->tid))) {
		t->rows_over++;
		return;
	}
	if (r->comm[0])
		comm_copy(row->comm, r->comm);
	if (r->tgid >= 0)
		row->tgid = r->tgid;
	if (r->in_ns && r->out_ns >= r->in_ns)
		stats_add(&row->run, r->out_ns - r->in_ns);
	if (r->have_wait && in >= r->wait_ns) {
		uint64_t d = r->preempted && timehist_own(t->o)->perf61 ? 0 : in - r->wait_ns;

		row->delay_n++;
		row->delay_ns += d;
		if (d > row->delay_max || row->delay_n == 1) {
			row->delay_max = d;
			row->delay_max_at = in;
		}
	}
	if (r->have_off && r->off_end_ns >= r->off_ns) {
		uint64_t w = r->off_end_ns - r->off_ns;

		if (r->off_state != SCHED_STATE_UNKNOWN &&
		    sched_state_runnable(&t->an->cfg.states, r->off_state))
			row->preempt_ns += w;
		else if (r->off_state != SCHED_STATE_UNKNOWN &&
			 ((uint64_t)r->off_state & t->an->d_bits))
			row->iowait_ns += w;
		else
			row->sleep_ns += w;
	}
}

void th_sum_totals(struct timehist *t, const struct an_thread *a, int32_t tgid)
{
	struct th_row *row = th_row_of(t, a->tid);

	if (!row) {
		t->rows_over++;
		return;
	}
	row->totals = true;
	if (a->comm && a->comm[0])
		comm_copy(row->comm, a->comm);
	if (tgid >= 0)
		row->tgid = tgid;
	/* schedstat: pcount runs, sum_exec_runtime, run_delay; no single run */
	row->run.n += a->runq_n;
	row->run.sum += a->oncpu_ns;
	row->delay_n += a->runq_n;
	row->delay_ns += a->runq_ns;
}

void th_sum_clear(struct timehist *t)
{
	size_t i;

	for (i = 0; i < t->nrows; i++) {
		struct th_row *r = &t->rows[i];
		struct th_row keep = { .tid = r->tid, .tgid = r->tgid, .last_cpu = r->last_cpu };

		memcpy(keep.comm, r->comm, COMM_LEN);
		*r = keep;
	}
	if (t->ncpus)
		memset(t->cpus, 0, t->ncpus * sizeof(*t->cpus));
	t->first_ns = t->last_ns = 0;
	t->rows_over = 0;
	memset(t->marks, 0, sizeof(t->marks));
	t->wakeups = t->migrations = 0;
}

/* --- the rows, merged per --by key ------------------------------------------------ */

struct srow {
	struct th_row r;		/* the merged account */
	int64_t key;
	uint32_t threads;
};

static int64_t key_of(struct timehist *t, const struct th_row *r)
{
	switch (t->o->key) {
	case KEY_PID:
		return r->tgid >= 0 ? r->tgid : r->tid;
	case KEY_COMM:
		return (int64_t)(fnv1a64(FNV1A64_INIT, r->comm, strnlen(r->comm, COMM_LEN)) >> 1);
	case KEY_CGROUP:
		return an_cgroup_id(t->an, r->tid);
	default:
		return r->tid;
	}
}

static void row_merge(struct th_row *a, const struct th_row *b)
{
	stats_merge(&a->run, &b->run);
	stats_merge(&a->idle, &b->idle);
	if (b->delay_n && (!a->delay_n || b->delay_max > a->delay_max)) {
		a->delay_max = b->delay_max;
		a->delay_max_at = b->delay_max_at;
	}
	a->delay_n += b->delay_n;
	a->delay_ns += b->delay_ns;
	a->sleep_ns += b->sleep_ns;
	a->iowait_ns += b->iowait_ns;
	a->preempt_ns += b->preempt_ns;
	a->migrations += b->migrations;
	a->totals |= b->totals;
}

static int by_run(const void *x, const void *y)
{
	const struct srow *a = x, *b = y;

	if (a->r.run.sum != b->r.run.sum)
		return a->r.run.sum > b->r.run.sum ? -1 : 1;
	return (a->key > b->key) - (a->key < b->key);
}

/* -I: the most idle time after them first */
static int by_idle(const void *x, const void *y)
{
	const struct srow *a = x, *b = y;

	if (a->r.idle.sum != b->r.idle.sum)
		return a->r.idle.sum > b->r.idle.sum ? -1 : 1;
	return (a->key > b->key) - (a->key < b->key);
}

/* the rows with something in the interval, merged per key, most run time first */
static struct srow *rows_merged(struct timehist *t, size_t *n)
{
	struct srow *v = calloc(t->nrows ? t->nrows : 1, sizeof(*v));
	size_t i, j;

	*n = 0;
	for (i = 0; v && i < t->nrows; i++) {
		const struct th_row *r = &t->rows[i];
		int64_t k;

		if (!r->run.n && !r->delay_n && !r->idle.n && !r->totals)
			continue;	/* only named (a waker), or nothing in this interval */
		if (timehist_own(t->o)->idle_hist && !r->idle.n)
			continue;	/* -I: the tasks CPUs idled after */
		k = key_of(t, r);
		for (j = 0; j < *n && v[j].key != k; j++)
			;
		if (j == *n) {
			v[j].key = k;
			v[j].r.tid = r->tid;
			v[j].r.tgid = r->tgid;
			memcpy(v[j].r.comm, r->comm, COMM_LEN);
			(*n)++;
		} else if (t->o->key == KEY_PID && r->tid == r->tgid) {
			memcpy(v[j].r.comm, r->comm, COMM_LEN);	/* a process: its leader's name */
		}
		v[j].threads++;
		row_merge(&v[j].r, r);
	}
	if (v)
		qsort(v, *n, sizeof(*v), timehist_own(t->o)->idle_hist ? by_idle : by_run);
	return v;
}

/* the row's name: comm[tid/pid], the process, the name, or the cgroup */
static void row_name(struct timehist *t, const struct srow *s, char *buf, size_t len)
{
	const char *path;

	switch (t->o->key) {
	case KEY_PID:
		snprintf(buf, len, "%.16s[%" PRId64 "] (%u)", s->r.comm, s->key, s->threads);
		break;
	case KEY_COMM:
		snprintf(buf, len, "%.16s (%u)", s->r.comm, s->threads);
		break;
	case KEY_CGROUP:
		snprintf(buf, len, "%s (%u)", an_cgroup_name(t->an, (int)s->key, &path), s->threads);
		break;
	default:
		th_task_name(buf, len, s->r.comm, s->r.tid, s->r.tgid);
	}
}

static void dash_or_msec(FILE *f, bool ok, uint64_t ns, int width)
{
	if (ok)
		th_msec(f, ns, width);
	else
		fprintf(f, "%*s ", width + 4, "-");
}

static void text_row(FILE *f, struct timehist *t, const struct srow *s)
{
	const struct th_row *r = &s->r;
	bool single = !r->totals;
	char name[300];

	row_name(t, s, name, sizeof(name));
	fprintf(f, "%30s ", name);
	if (timehist_own(t->o)->idle_hist) {
		fprintf(f, " %9" PRIu64 " ", r->idle.n);
		th_msec(f, r->idle.sum, 8);
		th_msec(f, r->idle.n ? r->idle.min : 0, 6);
		th_msec(f, (uint64_t)r->idle.mean, 7);
		th_msec(f, r->idle.max, 7);
		fprintf(f, " %5.2f   %9" PRIu64 "\n", stats_rel_stddev(&r->idle), r->migrations);
		return;
	}
	fprintf(f, " %9" PRIu64 " ", r->run.n);
	th_msec(f, r->run.sum, 8);
	if (timehist_own(t->o)->state) {
		th_msec(f, r->sleep_ns, 6);
		th_msec(f, r->iowait_ns, 7);
		th_msec(f, r->preempt_ns, 7);
		th_msec(f, r->delay_ns, 7);
		fputc('\n', f);
		return;
	}
	dash_or_msec(f, single && r->run.n, r->run.min, 6);
	dash_or_msec(f, r->run.n, r->run.n ? r->run.sum / r->run.n : 0, 7);
	dash_or_msec(f, single && r->run.n, r->run.max, 7);
	if (single)
		fprintf(f, " %5.2f   %9" PRIu64 " ", stats_rel_stddev(&r->run), r->migrations);
	else
		fprintf(f, " %5s   %9s ", "-", "-");
	dash_or_msec(f, r->delay_n, r->delay_n ? r->delay_ns / r->delay_n : 0, 7);
	dash_or_msec(f, single && r->delay_n, r->delay_max, 7);
	if (single && r->delay_n)
		fprintf(f, " %8" PRIu64 ".%06" PRIu64, r->delay_max_at / 1000000000,
			r->delay_max_at / 1000 % 1000000);
	fputc('\n', f);
}

static void text_head(FILE *f, struct timehist *t)
{
	if (timehist_own(t->o)->idle_hist) {
		fprintf(f, "\nIdle-time summary\n%30s  %9s  %11s %10s %11s %11s  %6s  %10s\n",
			"comm", "sched-out", "idle-time", "min-idle", "avg-idle", "max-idle",
			"stddev", "migrations");
		fprintf(f, "%30s  %9s  %11s %10s %11s %11s  %6s\n", "", "(count)", "(msec)",
			"(msec)", "(msec)", "(msec)", "%");
	} else if (timehist_own(t->o)->state) {
		fprintf(f, "\nWait-time summary\n%30s  %9s  %11s %10s %11s %11s %11s\n", "comm",
			"sched-in", "run-time", "sleep", "iowait", "preempt", "delay");
		fprintf(f, "%30s  %9s  %11s %10s %11s %11s %11s\n", "", "(count)", "(msec)",
			"(msec)", "(msec)", "(msec)", "(msec)");
	} else {
		fprintf(f, "\nRuntime summary\n%30s  %9s  %11s %10s %11s %11s  %6s  %10s %11s "
			"%11s  %15s\n", "comm", "sched-in", "run-time", "min-run", "avg-run",
			"max-run", "stddev", "migrations", "avg-delay", "max-delay", "max-delay at");
		fprintf(f, "%30s  %9s  %11s %10s %11s %11s  %6s  %10s %11s %11s  %15s\n", "",
			"(count)", "(msec)", "(msec)", "(msec)", "(msec)", "%", "", "(msec)",
			"(msec)", "(s)");
	}
	fprintf(f, "%.*s\n", timehist_own(t->o)->state ? 98 : timehist_own(t->o)->idle_hist ? 112 : 151,
		"---------------------------------------------------------------------------------"
		"----------------------------------------------------------------------");
}

/* perf's idle stats and totals */
static void text_totals(FILE *f, struct timehist *t, const struct an_view *v,
			const struct srow *rows, size_t n)
{
	uint64_t span = t->last_ns > t->first_ns ? t->last_ns - t->first_ns : 0, runs = 0, run = 0;
	unsigned ncpu = v->ncpu > t->ncpus ? v->ncpu : t->ncpus;
	size_t i;

	for (i = 0; i < n; i++) {
		runs += rows[i].r.run.n;
		run += rows[i].r.run.sum;
	}
	if (!t->filtered && !timehist_own(t->o)->idle_hist && ncpu && span) {
		fputs("\nIdle stats:\n", f);
		for (i = 0; i < ncpu; i++) {
			const struct th_cpu *c = i < t->ncpus ? &t->cpus[i] : NULL;

			if (c && c->idle_n) {
				fprintf(f, "    CPU %2zu idle for ", i);
				th_msec(f, c->idle_ns, 6);
				fprintf(f, " msec  (%6.2f%%)\n", 100.0 * (double)c->idle_ns / (double)span);
			} else {
				fprintf(f, "    CPU %2zu no idle stretch ended in the window\n", i);
			}
		}
	}
	fprintf(f, "\n    Total number of unique tasks: %zu\nTotal number of context switches: %"
		PRIu64 "\n           Total run time (msec): ", n, runs);
	th_msec(f, run, 2);
	fputs("\n    Total scheduling time (msec): ", f);
	th_msec(f, span, 2);
	fprintf(f, "(x %u)\n", ncpu);
}

void th_sum_text(FILE *f, struct timehist *t, const struct an_view *v)
{
	size_t n, i, shown;
	struct srow *rows = rows_merged(t, &n);
	bool totals = false;

	if (!rows) {
		fputs("# the summary: out of memory\n", f);
		return;
	}
	shown = t->o->top && t->o->top < n ? t->o->top : n;
	text_head(f, t);
	for (i = 0; i < shown; i++) {
		text_row(f, t, &rows[i]);
		totals |= rows[i].r.totals;
	}
	if (!n)
		fputs("<no task ran in the window>\n", f);
	if (shown < n)
		fprintf(f, "# and %zu more (--top %u)\n", n - shown, t->o->top);
	if (totals)
		fputs("# from /proc (schedstat): each thread's totals over the interval: runs, run "
		      "time and delay exact; no single switch, so no min, max, spread or "
		      "migrations\n", f);
	text_totals(f, t, v, rows, n);
	free(rows);
}

static void json_stats(FILE *f, const char *name, const struct th_stats *s, bool single)
{
	fprintf(f, ",\"%s\":{\"count\":%" PRIu64 ",\"total_ns\":%" PRIu64, name, s->n, s->sum);
	if (single && s->n)
		fprintf(f, ",\"min_ns\":%" PRIu64 ",\"avg_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64
			",\"stddev_pct\":%.2f}", s->min, s->sum / s->n, s->max, stats_rel_stddev(s));
	else
		fputs(",\"min_ns\":null,\"avg_ns\":null,\"max_ns\":null,\"stddev_pct\":null}", f);
}

static void json_row(FILE *f, struct timehist *t, const struct srow *s)
{
	const struct th_row *r = &s->r;
	const char *path;

	if (t->o->key == KEY_CGROUP) {
		fputs("{\"cgroup\":", f);
		json_str(f, an_cgroup_name(t->an, (int)s->key, &path), 256);
	} else if (t->o->key == KEY_PID) {
		fprintf(f, "{\"pid\":%" PRId64, s->key);
	} else if (t->o->key == KEY_COMM) {
		fputs("{\"comm_key\":true", f);
	} else {
		fprintf(f, "{\"tid\":%d,\"pid\":", r->tid);
		if (r->tgid >= 0)
			fprintf(f, "%d", r->tgid);
		else
			fputs("null", f);
	}
	fputs(",\"comm\":", f);
	json_str(f, r->comm, COMM_LEN);
	fprintf(f, ",\"threads\":%u,\"source\":\"%s\"", s->threads, r->totals ? "proc" : "switches");
	json_stats(f, "run", &r->run, !r->totals);
	fprintf(f, ",\"migrations\":%" PRIu64 ",\"delay\":{\"count\":%" PRIu64 ",\"total_ns\":%"
		PRIu64, r->migrations, r->delay_n, r->delay_ns);
	if (r->delay_n && !r->totals)
		fprintf(f, ",\"max_ns\":%" PRIu64 ",\"max_at_ns\":%" PRIu64 "}", r->delay_max,
			r->delay_max_at);
	else
		fputs(",\"max_ns\":null,\"max_at_ns\":null}", f);
	fprintf(f, ",\"wait\":{\"sleep_ns\":%" PRIu64 ",\"iowait_ns\":%" PRIu64 ",\"preempt_ns\":%"
		PRIu64 "}", r->sleep_ns, r->iowait_ns, r->preempt_ns);
	json_stats(f, "idle_after", &r->idle, true);
	fputc('}', f);
}

void th_sum_json(FILE *f, struct timehist *t, const struct an_view *v)
{
	static const char *const by[] = { [KEY_NONE] = "tid", [KEY_PID] = "pid", [KEY_TID] = "tid",
					  [KEY_CPU] = "cpu", [KEY_COMM] = "comm",
					  [KEY_CGROUP] = "cgroup" };
	size_t n, i, shown;
	struct srow *rows = rows_merged(t, &n);

	(void)v;
	if (!rows) {
		fputs(",\"summary\":null", f);
		return;
	}
	shown = t->o->top && t->o->top < n ? t->o->top : n;
	fprintf(f, ",\"summary\":{\"by\":\"%s\",\"rows\":[", by[t->o->key]);
	for (i = 0; i < shown; i++) {
		if (i)
			fputc(',', f);
		json_row(f, t, &rows[i]);
	}
	fprintf(f, "],\"rows_not_shown\":%zu,\"cpus\":[", n - shown);
	for (i = 0; i < t->ncpus; i++)
		fprintf(f, "%s{\"cpu\":%zu,\"idle_ns\":%" PRIu64 ",\"idle_stretches\":%" PRIu64 "}",
			i ? "," : "", i, t->cpus[i].idle_ns, t->cpus[i].idle_n);
	fprintf(f, "],\"first_ns\":%" PRIu64 ",\"last_ns\":%" PRIu64 ",\"threads_over\":%" PRIu64
		"}", t->first_ns, t->last_ns, t->rows_over);
	free(rows);
}
