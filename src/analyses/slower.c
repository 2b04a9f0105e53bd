// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * runq --slower US: one line per run-queue wait strictly longer than US
 * microseconds, as it ends, in BCC runqslower's layout (-P: the task
 * switched out for it, as runqslower -P); --ran-instead adds who had that
 * CPU during the wait, from a ring of the last occupants of each CPU
 * (bounded memory at any event rate); --by cgroup adds the waiting
 * thread's cgroup. JSON: runq's, with slow_waits.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "escape.h"
#include "grow.h"
#include "histan.h"
#include "runq.h"
#include "svg.h"

/* occupants kept per CPU for --ran-instead: a wait longer than the last
 * OCC_RING of them is covered only from the oldest (said) */
#define OCC_RING 64
#define RAN_TOP 3
/* waits kept per interval when they are not streamed (JSON, -o FILE) */
#define SLOW_MAX 65536

struct occupant {
	uint64_t start_ns, end_ns;
	int32_t tid;			/* 0: idle */
	char comm[COMM_LEN];
};

struct occ_ring {
	struct occupant o[OCC_RING];
	uint32_t next, n;
};

struct ran {
	int32_t tid;
	char comm[COMM_LEN];
	uint64_t ns;
};

struct slow_wait {
	uint64_t end_ns, lat_ns;
	int32_t cpu, tid, pid, prev_tid;
	int cg;				/* --by cgroup: its cgroup's id then */
	char comm[COMM_LEN], prev_comm[COMM_LEN];
	struct ran ran[RAN_TOP];
	unsigned nran;
	uint64_t ran_ns;		/* the part of the wait the ring covered */
	bool ran_complete;		/* ... all of it */
};

struct slower {
	struct histan h;		/* runq's histograms, for JSON */
	const struct trace_opts *o;
	struct analyzer *an;
	struct occ_ring *ring[AN_MAX_CPUS];	/* allocated at a CPU's first slice */
	struct slow_wait *v;		/* this interval's, not yet printed */
	size_t n, cap;
	uint64_t listed, over, not_listed;	/* this interval: printed, over US, dropped */
	uint64_t unnamed;		/* ... of them named "[unknown]": no source had
					 * the thread's name (or the one run instead) */
	uint64_t waits;			/* waits measured this interval */
	bool streaming;			/* lines go out as they come (stdout text) */
	bool header_done;
};

static const char *slower_what(const struct trace_opts *o)
{
	return runq_own(o)->ran_instead ? "run-queue waits over the threshold, and who ran instead" :
	       "run-queue waits over the threshold";
}

static const char *slower_check(const struct trace_opts *o)
{
	if (o->key != KEY_NONE && o->key != KEY_PID && o->key != KEY_CGROUP)
		return "--slower lists waits: -L, -C and --by other than cgroup do not apply (-P "
		       "adds the task switched out for each, as runqslower -P; --by cgroup the "
		       "waiting thread's cgroup; the two together add both)";
	if (o->fmt != FMT_BCC && o->fmt != FMT_JSON)
		return "--slower prints runqslower's lines (the default) or --format=json";
	if (o->timestamp || o->msecs || o->top)
		return "--slower's lines have their time and microseconds: no -T, -m or --top";
	if (o->xval)
		return "--xval compares histograms: not with --slower";
	return NULL;
}

static enum hist_refusal slower_hist(const struct trace_opts *o)
{
	(void)o;
	return HIST_NO_EVENTS;
}

/* one histogram of all waits (JSON's groups; one per cgroup with --by cgroup); -P only adds the columns */
static void slower_configure(const struct trace_opts *o, struct an_cfg *cfg)
{
	cfg->key = o->key == KEY_CGROUP ? KEY_CGROUP : KEY_NONE;
}


static void occ_add(struct slower *s, const struct an_slice *sl)
{
	struct occ_ring *r;
	struct occupant *e;

	if (sl->cpu < 0 || sl->cpu >= AN_MAX_CPUS || !sl->start_ns || sl->lost)
		return;		/* not knowing when it began (or ended), the ring keeps a hole */
	r = s->ring[sl->cpu];
	if (!r) {
		r = s->ring[sl->cpu] = calloc(1, sizeof(*r));
		if (!r)
			return;		/* --ran-instead: this CPU's wait says "not covered" */
	}
	e = &r->o[r->next];
	e->start_ns = sl->start_ns;
	e->end_ns = sl->end_ns;
	e->tid = sl->tid;
	comm_copy(e->comm, sl->tid ? sl->comm : "[idle]");
	r->next = (r->next + 1) % OCC_RING;
	if (r->n < OCC_RING)
		r->n++;
}

static void on_slice(void *arg, const struct an_slice *sl)
{
	occ_add(arg, sl);
}

/*
 * The occupants of w->cpu during the wait, the RAN_TOP longest. The ring
 * covers the wait when it reaches back past its start without a hole (a
 * stretch the trace did not see begin, after a lost switch).
 */
static void ran_instead(const struct slower *s, struct slow_wait *w, uint64_t start_ns)
{
	const struct occ_ring *r = w->cpu >= 0 && w->cpu < AN_MAX_CPUS ? s->ring[w->cpu] : NULL;
	uint64_t next_start = w->end_ns;	/* where the newer stretch began */
	struct ran all[OCC_RING];
	unsigned n = 0, i, k, j;
	bool holes = false;

	w->ran_complete = false;
	for (i = 0; r && i < r->n; i++) {
		const struct occupant *e = &r->o[(r->next + OCC_RING - 1 - i) % OCC_RING];
		uint64_t a = e->start_ns > start_ns ? e->start_ns : start_ns;
		uint64_t b = e->end_ns < w->end_ns ? e->end_ns : w->end_ns;

		if (e->end_ns <= start_ns)
			break;
		if (e->end_ns < next_start && next_start > start_ns)
			holes = true;
		next_start = e->start_ns;
		if (b <= a)
			continue;
		for (k = 0; k < n && all[k].tid != e->tid; k++)
			;
		if (k == n) {
			all[n].tid = e->tid;
			memcpy(all[n].comm, e->comm, COMM_LEN);
			all[n++].ns = 0;
		}
		all[k].ns += b - a;
		w->ran_ns += b - a;
	}
	w->ran_complete = !holes && next_start <= start_ns;
	/* the longest first: a selection of RAN_TOP from at most OCC_RING */
	for (j = 0; j < RAN_TOP && j < n; j++) {
		for (k = j + 1, i = j; k < n; k++)
			if (all[k].ns > all[i].ns)
				i = k;
		w->ran[j] = all[i];
		all[i] = all[j];
		w->nran++;
	}
}

/* runqslower -P's columns: the task switched out for the waiter */
static bool prev_cols(const struct trace_opts *o)
{
	return o->key == KEY_PID || o->prev_too;
}

static void on_wait(void *arg, const struct an_wait *aw)
{
	struct slower *s = arg;
	struct slow_wait *w, *nv;

	s->waits++;
	/* --compat=perf: a wait after a preemption is perf's "wait time", its sch delay 0 */
	if (s->o->compat == COMPAT_PERF && aw->preempted)
		return;
	if ((aw->end_ns - aw->start_ns) / 1000 <= runq_own(s->o)->slower_us)
		return;		/* strictly over US, in whole microseconds, as runqslower */
	s->over++;
	if (!s->streaming && s->n >= SLOW_MAX) {
		s->not_listed++;
		return;
	}
	nv = mem_grow_from(s->v, &s->cap, s->n, sizeof(*s->v), 64);
	if (!nv) {
		s->not_listed++;
		return;
	}
	s->v = nv;
	w = &s->v[s->n++];
	memset(w, 0, sizeof(*w));
	w->end_ns = aw->end_ns;
	w->lat_ns = aw->end_ns - aw->start_ns;
	w->cpu = aw->cpu;
	w->tid = aw->tid;
	w->pid = aw->tgid;
	comm_copy(w->comm, aw->comm);
	w->prev_tid = aw->prev_tid;
	comm_copy(w->prev_comm, aw->prev_tid ? aw->prev_comm : "swapper");
	if (s->o->key == KEY_CGROUP)
		w->cg = an_cgroup_id(s->an, aw->tid);
	if (runq_own(s->o)->ran_instead)
		ran_instead(s, w, aw->start_ns);
	if (!strcmp(w->comm, "[unknown]") || (prev_cols(s->o) && !strcmp(w->prev_comm, "[unknown]")))
		s->unnamed++;
}

static void on_boundary(void *arg)
{
	struct slower *s = arg;

	s->n = 0;
	s->listed = s->over = s->not_listed = s->waits = s->unnamed = 0;
}

static int slower_setup(const struct trace_opts *o, struct analyzer *an, void **state)
{
	struct slower *s = calloc(1, sizeof(*s));
	struct an_sink sink = { .wait = on_wait, .boundary = on_boundary };
	int ret;

	if (!s)
		return -ENOMEM;
	s->o = o;
	s->an = an;
	sink.arg = s;
	if (runq_own(o)->ran_instead)
		sink.slice = on_slice;
	ret = analyzer_subscribe(an, &sink);
	if (ret) {
		free(s);
		return ret;
	}
	*state = s;
	return 0;
}

static void slower_free(void *state)
{
	struct slower *s = state;
	unsigned i;

	if (!s)
		return;
	for (i = 0; i < AN_MAX_CPUS; i++)
		free(s->ring[i]);
	heat_free(s->h.heat);
	free(s->v);
	free(s);
}

/* TIME: the wall clock where the trace clock maps to it, else seconds into the window */
static void print_time(FILE *f, const struct an_view *v, uint64_t ts)
{
	char buf[16];
	struct tm tm;
	time_t t;

	if (v->wall_known) {
		t = (time_t)(((int64_t)ts + v->wall_off_ns) / 1000000000LL);
		localtime_r(&t, &tm);
		strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
		fprintf(f, "%-8s", buf);
	} else {
		fprintf(f, "%8.3f", ts > v->start_ns ? (double)(ts - v->start_ns) / 1e9 : 0.0);
	}
}

static void print_header(struct slower *s, FILE *f)
{
	if (s->header_done)
		return;
	fprintf(f, "Tracing run queue latency higher than %" PRIu64 " us\n", runq_own(s->o)->slower_us);
	fprintf(f, "%-8s %-16s %-6s %14s", "TIME", "COMM", "TID", "LAT(us)");
	if (prev_cols(s->o))
		fprintf(f, " %-16s %-6s", "PREV COMM", "PREV TID");
	if (s->o->key == KEY_CGROUP)
		fputs(" CGROUP", f);
	fputc('\n', f);
	s->header_done = true;
}

static void print_line(const struct slower *s, const struct an_view *v, FILE *f,
		       const struct slow_wait *w)
{
	unsigned i;

	print_time(f, v, w->end_ns);
	fputc(' ', f);
	text_field(f, w->comm, COMM_LEN, 16);
	fprintf(f, " %-6d %14" PRIu64, w->tid, w->lat_ns / 1000);
	if (prev_cols(s->o)) {
		fputc(' ', f);
		text_field(f, w->prev_comm, COMM_LEN, 16);
		fprintf(f, " %-6d", w->prev_tid);
	}
	if (s->o->key == KEY_CGROUP) {
		const char *path;

		fputc(' ', f);
		text_field(f, an_cgroup_name(s->an, w->cg, &path), 256, 0);
	}
	fputc('\n', f);
	if (!runq_own(s->o)->ran_instead)
		return;
	fputs("    ran instead:", f);
	for (i = 0; i < w->nran; i++) {
		fprintf(f, "%s ", i ? "," : "");
		text_field(f, w->ran[i].comm, COMM_LEN, 0);
		fprintf(f, " (%d) %" PRIu64 " us", w->ran[i].tid, w->ran[i].ns / 1000);
	}
	if (!w->nran)
		fputs(" nothing recorded on the CPU", f);
	if (!w->ran_complete)
		fprintf(f, " (%" PRIu64 " of %" PRIu64 " us seen)", w->ran_ns / 1000,
			w->lat_ns / 1000);
	fputc('\n', f);
}

static void print_pending(struct slower *s, const struct an_view *v, FILE *f)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		print_line(s, v, f, &s->v[i]);
	s->listed += s->n;
	s->n = 0;
}

static void slower_stream(void *state, const struct an_view *v, FILE *f)
{
	struct slower *s = state;

	if (v->o->fmt != FMT_BCC)
		return;
	s->streaming = true;
	print_header(s, f);
	print_pending(s, v, f);
	fflush(f);
}

struct text_arg {
	struct slower *s;
	const struct an_view *v;
};

static void text_body(FILE *f, void *arg)
{
	struct text_arg *t = arg;
	struct slower *s = t->s;

	if (!s->streaming)
		s->header_done = false;	/* each output a whole one */
	print_header(s, f);
	print_pending(s, t->v, f);
	fprintf(f, "\n# %" PRIu64 " of %" PRIu64 " run-queue wait%s over %" PRIu64 " us\n",
		s->over, s->waits, s->waits == 1 ? "" : "s", runq_own(s->o)->slower_us);
	if (s->not_listed)
		fprintf(f, "# %" PRIu64 " of them not listed: more than %d in the interval\n",
			s->not_listed, SLOW_MAX);
	if (s->unnamed)
		fprintf(f, "# %" PRIu64 " of them name a thread [unknown]: no event of the trace, "
			"and no /proc read when it began, had its name\n", s->unnamed);
}

static void json_wait(FILE *f, const struct slower *s, const struct slow_wait *w)
{
	unsigned i;

	fprintf(f, "{\"ts_ns\":%" PRIu64 ",\"cpu\":%d,\"tid\":%d,\"pid\":", w->end_ns, w->cpu,
		w->tid);
	if (w->pid >= 0)
		fprintf(f, "%d", w->pid);
	else
		fputs("null", f);
	fputs(",\"comm\":", f);
	json_str(f, w->comm, COMM_LEN);
	fprintf(f, ",\"lat_ns\":%" PRIu64 ",\"prev_tid\":%d,\"prev_comm\":", w->lat_ns,
		w->prev_tid);
	json_str(f, w->prev_comm, COMM_LEN);
	if (s->o->key == KEY_CGROUP) {
		const char *path, *name = an_cgroup_name(s->an, w->cg, &path);

		fputs(",\"cgroup\":", f);
		json_str(f, name, 256);
		fputs(",\"cgroup_path\":", f);
		json_str_or_null(f, path, 4096);
	}
	if (runq_own(s->o)->ran_instead) {
		fputs(",\"ran_instead\":[", f);
		for (i = 0; i < w->nran; i++) {
			fprintf(f, "%s{\"tid\":%d,\"comm\":", i ? "," : "", w->ran[i].tid);
			json_str(f, w->ran[i].comm, COMM_LEN);
			fprintf(f, ",\"ns\":%" PRIu64 "}", w->ran[i].ns);
		}
		fprintf(f, "],\"ran_instead_seen_ns\":%" PRIu64 ",\"ran_instead_complete\":%s",
			w->ran_ns, w->ran_complete ? "true" : "false");
	} else {
		fputs(",\"ran_instead\":null", f);
	}
	fputc('}', f);
}

static void json_extra(FILE *f, void *arg)
{
	struct text_arg *t = arg;
	struct slower *s = t->s;
	size_t i;

	fprintf(f, ",\"slower_us\":%" PRIu64 ",\"waits\":%" PRIu64 ",\"waits_over\":%" PRIu64
		",\"slow_waits\":[", runq_own(s->o)->slower_us, s->waits, s->over);
	for (i = 0; i < s->n; i++) {
		if (i)
			fputc(',', f);
		json_wait(f, s, &s->v[i]);
	}
	fprintf(f, "],\"slow_waits_not_listed\":%" PRIu64 ",\"slow_waits_unnamed\":%" PRIu64,
		s->not_listed, s->unnamed);
}

static int slower_print(void *state, const struct an_view *v, enum out_format fmt, FILE *f)
{
	struct slower *s = state;
	struct text_arg t = { s, v };
	struct stack_report sr;
	struct report rep;

	histan_fill(&s->h, v, fmt, &v->an->runq, MEASURE_RUNQ, &rep, &sr);
	rep.key = s->o->key == KEY_CGROUP ? KEY_CGROUP : KEY_NONE;
	rep.extra_arg = &t;
	if (fmt == FMT_JSON)
		rep.json_extra = json_extra;
	else
		rep.text_body = text_body;
	return report_emit(f, fmt, &rep);
}

const struct analysis analysis_slower = {
	.name = "slower",
	.summary = "run-queue waits over a threshold, one line each (runq --slower)",
	.flags = AN_F_MODE | AN_F_REPORT | AN_F_TRACED | AN_F_TIDS | AN_F_BOTH_KEYS,
	.no_records = histan_no_records,
	.what = slower_what,
	.check = slower_check,
	.hist = slower_hist,
	.configure = slower_configure,
	.setup = slower_setup,
	.stream = slower_stream,
	.print = slower_print,
	.free = slower_free,
};
