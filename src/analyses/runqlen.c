// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * runqlen: how many tasks wait on each CPU's run queue (not counting the
 * one running), BCC's runqlen question. BCC samples nr_running - 1 at
 * 99 Hz; we see every enqueue and every switch, so the distribution here
 * is the CPU time spent at each length, exact (--compat=bcc prints it as
 * 99 Hz samples would count). -O: run-queue occupancy, and the share of
 * CPU time idle while tasks waited elsewhere (BCC's cpuunclaimed).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "escape.h"
#include "histan.h"
#include "openmetrics.h"
#include "unclaimed.h"

#define RQL_SLOTS 128		/* lengths 0..126, and 127 for 127 or more */
#define BCC_HZ 99		/* runqlen's sampling rate */

struct cpuq {
	int32_t len;		/* tasks queued now */
	int32_t len0;		/* ... when the interval began */
	uint64_t first, since;	/* the interval's first change, and the last (0: none) */
	uint64_t ns[RQL_SLOTS];	/* time at each length this interval */
	/*
	 * this interval: time a task was counted waiting after it may have
	 * run (its switch-in lost): the length was one less for up to this
	 */
	uint64_t unsure_ns;
};

struct runqlen {
	const struct trace_opts *o;
	struct cpuq *cpu[AN_MAX_CPUS];	/* allocated at a CPU's first change */
	int32_t ncpu;			/* highest CPU seen + 1 */
	uint64_t first_ns, last_ns;	/* events seen this interval */
	uint64_t iv_from;		/* the interval's start, once the last one ended */
	uint64_t nomem;			/* changes of CPUs whose table could not be had */
	struct unclaimed *un;		/* -O */
};

static const char runqlen_help[] =
"Usage: offcpu-ftrace runqlen [OPTIONS] [DURATION [COUNT]]\n"
"       offcpu-ftrace runqlen [OPTIONS] -- COMMAND [ARGS]\n"
"\n"
"Run-queue length: how many tasks wait on each CPU's run queue, not\n"
"counting the one running (BCC's runqlen). We see every enqueue and\n"
"switch: the distribution is the CPU time at each length, exact, where\n"
"runqlen samples 99 times a second. DURATION, COUNT and -- COMMAND as\n"
"for runq (-- COMMAND: only its tasks are counted in the queues).\n"
"Per CPU with -C (runqlen -C); no -P, -L, -m or --by other than that.\n";

static const char runqlen_examples[] =
"\n"
"Examples:\n"
"  offcpu-ftrace runqlen 10              # the host's queues, 10 seconds\n"
"  offcpu-ftrace runqlen -C 5            # per CPU\n"
"  offcpu-ftrace runqlen -O -C 10        # occupancy per CPU, and unclaimed idle\n"
"  offcpu-ftrace runqlen --compat=bcc 10 # as runqlen's samples would count\n";

/* runqlen's own options (trace_opts.own) */
struct runqlen_opts {
	bool occupancy;		/* -O: occupancy and unclaimed idle CPU time */
};
AN_OWN_OPTS(runqlen_own, struct runqlen_opts)

static const char *runqlen_set(struct trace_opts *o, const struct an_option *opt,
			       const char *arg, char *buf, size_t len)
{
	(void)opt;
	(void)arg;
	(void)buf;
	(void)len;
	runqlen_own_set(o)->occupancy = true;	/* its one row: -O */
	return NULL;
}

static const struct an_option runqlen_opts[] = {
	{ "occupancy", 'O', no_argument, 1, runqlen_set, NULL,
	  "run-queue occupancy (runqlen -O) and the CPU time\n"
	  "left idle while tasks waited elsewhere (cpuunclaimed)", 0 },
	{ "compat", 0, required_argument, ANO_COMPAT, anopt_apply, "bcc",
	  "count as runqlen's 99 Hz samples would (the default\n"
	  "is exact)", 0 },
	AN_OPT_END,
};

static const char *runqlen_what(const struct trace_opts *o)
{
	return runqlen_own(o)->occupancy ? "run-queue occupancy and unclaimed idle CPU time" :
	       "run-queue length";
}

static void runqlen_defaults(struct trace_opts *o)
{
	o->modes = AN_RUNQ;
}

static const char *runqlen_check(const struct trace_opts *o)
{
	if (o->key != KEY_NONE && o->key != KEY_CPU)
		return "runqlen counts queues per CPU (-C) or for the host: no -P, -L or --by";
	if (o->fmt != FMT_BCC && o->fmt != FMT_JSON && o->fmt != FMT_OPENMETRICS)
		return "runqlen prints runqlen's layout (the default), json or openmetrics";
	if (o->compat_given && o->compat != COMPAT_BCC)
		return "runqlen takes --compat=bcc (counts as runqlen's 99 Hz samples); "
		       "the default is exact";
	if (o->msecs)
		return "runqlen's histogram is of lengths, not times: no -m";
	return NULL;
}

static enum hist_refusal runqlen_hist(const struct trace_opts *o)
{
	(void)o;
	return HIST_NO_EVENTS;
}

/* -O: occupancy is from the queues, the unclaimed share from idle CPUs too */
static bool runqlen_cpu_state(const struct trace_opts *o)
{
	return runqlen_own(o)->occupancy;
}

static void runqlen_configure(const struct trace_opts *o, struct an_cfg *cfg)
{
	(void)o;
	cfg->key = KEY_NONE;
	cfg->compat = COMPAT_BCC;	/* R and R+ switch-outs stay queued */
}

static struct cpuq *cpuq_of(struct runqlen *s, int32_t cpu)
{
	if (cpu < 0 || cpu >= AN_MAX_CPUS)
		return NULL;
	if (!s->cpu[cpu]) {
		s->cpu[cpu] = calloc(1, sizeof(*s->cpu[cpu]));
		if (!s->cpu[cpu]) {
			s->nomem++;
			return NULL;
		}
	}
	if (cpu >= s->ncpu)
		s->ncpu = cpu + 1;
	return s->cpu[cpu];
}

static unsigned slot(int32_t len)
{
	return len <= 0 ? 0 : len >= RQL_SLOTS - 1 ? RQL_SLOTS - 1 : (unsigned)len;
}

static void on_queue(void *arg, int32_t cpu, uint64_t ts, int delta)
{
	struct runqlen *s = arg;
	struct cpuq *q = cpuq_of(s, cpu);

	if (!s->first_ns)
		s->first_ns = ts;
	if (ts > s->last_ns)
		s->last_ns = ts;
	if (!q)
		return;
	if (!q->since)
		q->first = ts;
	else if (ts > q->since)
		q->ns[slot(q->len)] += ts - q->since;
	q->since = ts;
	q->len += delta;
	if (q->len < 0)
		q->len = 0;	/* not reached: a task leaves only the queue it joined */
}

/* a task counted waiting on @cpu may have run from @from: the length is unsure to @to */
static void on_queue_lost(void *arg, int32_t cpu, uint64_t from, uint64_t to)
{
	struct runqlen *s = arg;
	struct cpuq *q = cpuq_of(s, cpu);

	if (from < s->iv_from)
		from = s->iv_from;
	if (q && to > from)
		q->unsure_ns += to - from;
}

/* -O: the CPU-state model's resolved stream, for the unclaimed share */
static void on_cpu(void *arg, const struct cs_change *c)
{
	struct runqlen *s = arg;

	if (!s->first_ns)
		s->first_ns = c->ts;
	if (c->ts > s->last_ns)
		s->last_ns = c->ts;
	unclaimed_change(s->un, c);
}

static void on_cpu_late(void *arg, int32_t cpu, uint64_t lo_ns, uint64_t hi_ns)
{
	struct runqlen *s = arg;

	(void)cpu;
	unclaimed_late(s->un, lo_ns, hi_ns);
}

static void on_boundary(void *arg)
{
	struct runqlen *s = arg;
	int32_t c;

	for (c = 0; c < s->ncpu; c++) {
		struct cpuq *q = s->cpu[c];

		if (!q)
			continue;
		q->len0 = q->len;
		q->since = q->first = 0;
		q->unsure_ns = 0;
		memset(q->ns, 0, sizeof(q->ns));
	}
	s->first_ns = s->last_ns = 0;
	if (s->un)
		unclaimed_clear(s->un);
}

static int runqlen_setup(const struct trace_opts *o, struct analyzer *an, void **state)
{
	struct runqlen *s = calloc(1, sizeof(*s));
	struct an_sink sink = { .queue = on_queue, .queue_lost = on_queue_lost,
				.boundary = on_boundary };
	int ret;

	if (!s)
		return -ENOMEM;
	s->o = o;
	sink.arg = s;
	if (runqlen_own(o)->occupancy) {
		ret = unclaimed_new(&s->un);
		if (ret) {
			free(s);
			return ret;
		}
		sink.cpu = on_cpu;
		sink.cpu_late = on_cpu_late;
	}
	ret = analyzer_subscribe(an, &sink);
	if (ret) {
		free(s->un);
		free(s);
		return ret;
	}
	*state = s;
	return 0;
}

static void runqlen_free(void *state)
{
	struct runqlen *s = state;
	unsigned i;

	if (!s)
		return;
	for (i = 0; i < AN_MAX_CPUS; i++)
		free(s->cpu[i]);
	free(s->un);
	free(s);
}

/*
 * The interval's time per length of each CPU, from its start to its end:
 * before a CPU's first change it had the length it ended the last
 * interval with; a CPU without a change all along kept it throughout.
 */
static void close_interval(struct runqlen *s, const struct an_view *v, uint64_t *start,
			   uint64_t *end, uint64_t out[][RQL_SLOTS], unsigned ncpu)
{
	unsigned c;

	*start = v->iv_start_ns ? v->iv_start_ns : s->first_ns;
	*end = v->iv_end_ns ? v->iv_end_ns : s->last_ns;
	for (c = 0; c < ncpu; c++) {
		const struct cpuq *q = (int32_t)c < s->ncpu ? s->cpu[c] : NULL;

		memset(out[c], 0, sizeof(out[c]));
		if (!q) {
			if (*end > *start)
				out[c][0] = *end - *start;
			continue;
		}
		memcpy(out[c], q->ns, sizeof(q->ns));
		if (!q->since) {
			if (*end > *start)
				out[c][slot(q->len)] += *end - *start;
			continue;
		}
		if (q->first > *start)
			out[c][slot(q->len0)] += q->first - *start;
		if (*end > q->since)
			out[c][slot(q->len)] += *end - q->since;
	}
	if (s->un)
		unclaimed_advance(s->un, *end);
	s->iv_from = *end;
}

struct rql_out {
	const struct trace_opts *o;
	const struct an_view *v;
	struct runqlen *s;
	uint64_t (*ns)[RQL_SLOTS];
	unsigned ncpu;
	uint64_t start, end;
	struct unclaimed_result un;	/* -O */
};

/* a length's value as printed: CPU microseconds, or 99 Hz samples (--compat=bcc) */
static uint64_t shown(const struct rql_out *r, uint64_t ns)
{
	return r->o->compat_given ? (uint64_t)llround((double)ns * BCC_HZ / 1e9) : ns / 1000;
}

/* BCC's linear histogram of the lengths (out_hist_bcc_linear()), in shown() values */
static void print_linear(FILE *f, const struct rql_out *r, const uint64_t *ns)
{
	uint64_t val[RQL_SLOTS];
	int i;

	for (i = 0; i < RQL_SLOTS; i++)
		val[i] = shown(r, ns[i]);
	out_hist_bcc_linear(f, val, RQL_SLOTS, "runqlen", r->o->compat_given ? "count" : "usecs");
}

static uint64_t sum_ns(const uint64_t *ns, bool queued_only)
{
	uint64_t t = 0;
	int i;

	for (i = queued_only ? 1 : 0; i < RQL_SLOTS; i++)
		t += ns[i];
	return t;
}

/* the time-weighted mean length: waiting tasks on average */
static double mean_len(const uint64_t *ns)
{
	double w = 0, t = 0;
	int i;

	for (i = 0; i < RQL_SLOTS; i++) {
		w += (double)i * (double)ns[i];
		t += (double)ns[i];
	}
	return t ? w / t : 0;
}

/* CPU @c's time a task was counted waiting after it may have run (0: none, or out of range) */
static uint64_t unsure_of(const struct rql_out *r, unsigned c)
{
	return (int32_t)c < r->s->ncpu && r->s->cpu[c] ? r->s->cpu[c]->unsure_ns : 0;
}

/* occupancy at least: the queued time less what may have been a task already running */
static double occ_min(const uint64_t *ns, uint64_t unsure)
{
	uint64_t t = sum_ns(ns, false), q = sum_ns(ns, true);

	return t ? (double)(q > unsure ? q - unsure : 0) / (double)t : 0.0;
}

static void print_occupancy(FILE *f, const struct rql_out *r)
{
	uint64_t all[RQL_SLOTS] = { 0 }, unsure = 0;
	unsigned c, i;

	if (r->o->key == KEY_CPU) {
		for (c = 0; c < r->ncpu; c++) {
			uint64_t t = sum_ns(r->ns[c], false);

			fprintf(f, "runqocc, CPU %-3u %6.2f%%\n", c,
				t ? 100.0 * (double)sum_ns(r->ns[c], true) / (double)t : 0.0);
		}
	} else {
		for (c = 0; c < r->ncpu; c++)
			for (i = 0; i < RQL_SLOTS; i++)
				all[i] += r->ns[c][i];
		fprintf(f, "runqocc: %0.2f%%\n", sum_ns(all, false) ?
			100.0 * (double)sum_ns(all, true) / (double)sum_ns(all, false) : 0.0);
	}
	/* a task whose switch-in the trace lost counts waiting up to where it was seen running */
	for (c = 0; c < r->ncpu; c++) {
		unsure += unsure_of(r, c);
		if (r->o->key == KEY_CPU && unsure_of(r, c))
			fprintf(f, "# runqocc, CPU %u at least %.2f%%: tasks may have run %.3f ms of "
				"the time they count waiting (their switch-in is not in the trace)\n",
				c, 100 * occ_min(r->ns[c], unsure_of(r, c)),
				(double)unsure_of(r, c) / 1e6);
	}
	if (r->o->key != KEY_CPU && unsure)
		fprintf(f, "# runqocc at least %.2f%%: tasks may have run %.3f ms of the time they "
			"count waiting (their switch-in is not in the trace)\n",
			100 * occ_min(all, unsure), (double)unsure / 1e6);
	fprintf(f, "# unclaimed: %.2f%% of CPU time idle while tasks waited on another CPU "
		"(cpuunclaimed)\n", 100 * r->un.share);
	unclaimed_print_text(f, &r->un, r->v);
}

static void text_body(FILE *f, void *arg)
{
	const struct rql_out *r = arg;
	uint64_t all[RQL_SLOTS] = { 0 }, unsure = 0;
	unsigned c, i;

	if (r->v->interval == 1 || r->v->replaces)
		fprintf(f, "%s run queue length... Hit Ctrl-C to end.\n",
			r->o->compat_given ? "Sampling" : "Tracing");
	fputc('\n', f);
	if (runqlen_own(r->o)->occupancy) {
		print_occupancy(f, r);
	} else if (r->o->key == KEY_CPU) {
		for (c = 0; c < r->ncpu; c++) {
			fprintf(f, "\ncpu = %u\n", c);
			print_linear(f, r, r->ns[c]);
		}
	} else {
		for (c = 0; c < r->ncpu; c++)
			for (i = 0; i < RQL_SLOTS; i++)
				all[i] += r->ns[c][i];
		print_linear(f, r, all);
	}
	fprintf(f, "\n# %s: queued tasks, not the running one, over %u CPU%s; %s\n",
		r->o->cmd, r->ncpu, r->ncpu == 1 ? "" : "s", r->o->compat_given ?
		"counted as runqlen's 99 Hz samples would be (time at each length x 99/s)" :
		"CPU time at each length in microseconds, from every enqueue and switch "
		"(exact; --compat=bcc counts 99 Hz samples)");
	if (r->s->nomem)
		fprintf(f, "# %" PRIu64 " queue changes not counted: out of memory\n", r->s->nomem);
	for (c = 0; !runqlen_own(r->o)->occupancy && c < r->ncpu; c++)
		unsure += unsure_of(r, c);
	if (unsure)
		fprintf(f, "# lengths one too long for up to %.3f ms: tasks whose switch-in the trace "
			"lost count waiting until it shows them running\n", (double)unsure / 1e6);
}

/* one group's buckets: CPU @cpu's, or the host's (-1); @unsure: its time maybe one too long */
static void json_group(FILE *f, const struct rql_out *r, const uint64_t *ns, int cpu,
		       uint64_t unsure)
{
	uint64_t t = sum_ns(ns, false);
	int i, last = -1;

	for (i = 0; i < RQL_SLOTS; i++)
		if (ns[i])
			last = i;
	fputc('{', f);
	if (cpu >= 0)
		fprintf(f, "\"cpu\":%d,", cpu);
	fprintf(f, "\"time_ns\":%" PRIu64 ",\"runqocc\":%.6f,\"runqocc_min\":%.6f,\"unsure_ns\":%"
		PRIu64 ",\"mean\":%.6f,\"buckets\":[", t,
		t ? (double)sum_ns(ns, true) / (double)t : 0.0, occ_min(ns, unsure), unsure,
		mean_len(ns));
	for (i = 0; i <= last; i++)
		fprintf(f, "%s{\"low\":%d,\"high\":%d,\"count\":%" PRIu64 ",\"ns\":%" PRIu64 "}",
			i ? "," : "", i, i, shown(r, ns[i]), ns[i]);
	fputs("]}", f);
}

/* groups: one per CPU with -C, else one for the host */
static void json_groups(FILE *f, void *arg)
{
	const struct rql_out *r = arg;
	uint64_t all[RQL_SLOTS] = { 0 }, unsure = 0;
	unsigned c, i;

	if (r->o->key != KEY_CPU) {
		for (c = 0; c < r->ncpu; c++) {
			for (i = 0; i < RQL_SLOTS; i++)
				all[i] += r->ns[c][i];
			unsure += unsure_of(r, c);
		}
		json_group(f, r, all, -1, unsure);
		return;
	}
	for (c = 0; c < r->ncpu; c++) {
		if (c)
			fputc(',', f);
		json_group(f, r, r->ns[c], (int)c, unsure_of(r, c));
	}
}

static void json_extra(FILE *f, void *arg)
{
	const struct rql_out *r = arg;

	fprintf(f, ",\"time_weighted\":%s,\"hz\":%s", r->o->compat_given ? "false" :
		"true", r->o->compat_given ? "99" : "null");
	if (r->s->un) {
		fprintf(f, ",\"unclaimed\":{\"share\":%.6f,\"ns\":%" PRIu64 ",\"unknown_ns\":%"
			PRIu64, r->un.share, r->un.ns, r->un.unknown_ns);
		unclaimed_print_json(f, &r->un, r->v);
		fputc('}', f);
	} else {
		fputs(",\"unclaimed\":null", f);
	}
}

static void om_body(FILE *f, const struct rql_out *r)
{
	unsigned c, i;

	fputs("# TYPE offcpu_ftrace_runqlen_seconds gauge\n# UNIT offcpu_ftrace_runqlen_seconds "
	      "seconds\n# HELP offcpu_ftrace_runqlen_seconds CPU time each CPU's run queue held "
	      "this many waiting tasks in the window.\n", f);
	for (c = 0; c < r->ncpu; c++)
		for (i = 0; i < RQL_SLOTS; i++)
			if (r->ns[c][i])
				fprintf(f, "offcpu_ftrace_runqlen_seconds{command=\"runqlen\",cpu=\"%u\","
					"len=\"%u\"} %.9f\n", c, i, (double)r->ns[c][i] / 1e9);
	fputs("# TYPE offcpu_ftrace_runq_occupancy_ratio gauge\n# HELP "
	      "offcpu_ftrace_runq_occupancy_ratio Share of the window a CPU had a task waiting.\n", f);
	for (c = 0; c < r->ncpu; c++) {
		uint64_t t = sum_ns(r->ns[c], false);

		fprintf(f, "offcpu_ftrace_runq_occupancy_ratio{command=\"runqlen\",cpu=\"%u\"} %.6f\n",
			c, t ? (double)sum_ns(r->ns[c], true) / (double)t : 0.0);
	}
	if (r->s->un)
		fprintf(f, "# TYPE offcpu_ftrace_cpu_unclaimed_ratio gauge\n# HELP "
			"offcpu_ftrace_cpu_unclaimed_ratio Share of CPU time idle while tasks "
			"waited on another CPU (the estimate where CPU state is not known: "
			"bound=\"min\" and \"max\" bound it).\n"
			"offcpu_ftrace_cpu_unclaimed_ratio{command=\"runqlen\"} %.6f\n"
			"offcpu_ftrace_cpu_unclaimed_ratio{command=\"runqlen\",bound=\"min\"} %.6f\n"
			"offcpu_ftrace_cpu_unclaimed_ratio{command=\"runqlen\",bound=\"max\"} %.6f\n",
			r->un.share, r->un.min, r->un.max);
}

static int runqlen_print(void *state, const struct an_view *v, enum out_format fmt, FILE *f)
{
	struct runqlen *s = state;
	unsigned ncpu = v->ncpu > (unsigned)s->ncpu ? v->ncpu : (unsigned)s->ncpu;
	struct rql_out r = { .o = v->o, .v = v, .s = s };
	struct om_status st;
	struct report rep;
	int ret = 0;

	if (!ncpu)
		ncpu = 1;
	r.ns = calloc(ncpu, sizeof(*r.ns));
	if (!r.ns)
		return -ENOMEM;
	r.ncpu = ncpu;
	close_interval(s, v, &r.start, &r.end, r.ns, ncpu);
	if (s->un)
		unclaimed_result(s->un, v, ncpu, r.end - r.start, &r.un);
	report_from_view(&rep, v, MEASURE_RUNQ);
	rep.unit = "usecs";	/* depths and waits in microseconds, -m or not */
	rep.unit_ns = 1000;
	rep.key = fmt == FMT_JSON ? v->o->key : KEY_NONE;
	rep.inc = &v->an->runq.inc;
	rep.groups = &v->an->runq.groups;
	rep.extra_arg = &r;
	if (fmt == FMT_OPENMETRICS) {
		om_body(f, &r);
		report_om_status(&st, &rep);
		/* runqlen measures waits for a CPU: not the off-CPU intervals
		 * and on-CPU slices the trace could not measure */
		st.unmeasured = v->an->counts.unmeasured;
		om_status_print(f, &st);
	} else {
		if (fmt == FMT_JSON) {
			rep.json_extra = json_extra;
			rep.json_groups = json_groups;
		}
		else
			rep.text_body = text_body;
		errno = 0;
		report_print(f, fmt, &rep);
	}
	if (ferror(f))
		ret = errno ? -errno : -EIO;
	free(r.ns);
	return ret;
}

const struct analysis analysis_runqlen = {
	.name = "runqlen",
	.summary = "run-queue length per CPU, exact (runqlen; -O occupancy, cpuunclaimed)",
	.flags = AN_F_REPORT | AN_F_TRACED,
	.options = (const struct an_option *const[]){ anopt_keys_cpus, anopt_intervals, runqlen_opts, NULL },
	.usage = runqlen_help,
	.examples = runqlen_examples,
	.what = runqlen_what,
	.defaults = runqlen_defaults,
	.check = runqlen_check,
	.hist = runqlen_hist,
	.configure = runqlen_configure,
	.cpu_state = runqlen_cpu_state,
	.setup = runqlen_setup,
	.print = runqlen_print,
	.free = runqlen_free,
};
