// SPDX-License-Identifier: GPL-2.0-or-later
/* Idle CPU time while tasks waited on other CPUs' run queues, from the CPU-state model. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "unclaimed.h"

int unclaimed_new(struct unclaimed **out)
{
	struct unclaimed *u = calloc(1, sizeof(*u));

	*out = u;
	if (!u)
		return -ENOMEM;
	memset(u->st, -1, sizeof(u->st));
	return 0;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

void unclaimed_advance(struct unclaimed *u, uint64_t ts)
{
	uint64_t d;

	if (!u->last_ns || ts <= u->last_ns) {
		if (!u->last_ns)
			u->last_ns = ts;
		return;
	}
	d = ts - u->last_ns;
	/* at least: CPUs of unknown state busy, unsure tasks gone */
	u->lo_ns += d * (uint64_t)min64(u->nidle, u->q_busy);
	/* at most: those CPUs idle, their queues and unsure tasks waiting */
	u->hi_ns += d * (uint64_t)min64((int64_t)u->nidle + u->nunknown,
					 u->q_busy + u->q_unknown + u->q_unsure);
	u->last_ns = ts;
}

/* CPU @cpu's part in the counts, taken out (@sign -1) or put back (+1) */
static void count(struct unclaimed *u, int32_t cpu, int sign)
{
	switch (u->st[cpu]) {
	case CS_IDLE:
		u->nidle += sign;	/* its own queue waits for no busy CPU */
		break;
	case CS_BUSY:
		u->q_busy += sign * u->queued[cpu];
		u->q_unsure += sign * u->unsure[cpu];
		break;
	case CS_UNKNOWN:
		u->nunknown += sign;
		u->q_unknown += sign * u->queued[cpu];
		u->q_unsure += sign * u->unsure[cpu];
		break;
	default:
		break;		/* not told yet */
	}
}

void unclaimed_change(struct unclaimed *u, const struct cs_change *c)
{
	if (c->cpu < 0 || c->cpu >= AN_MAX_CPUS)
		return;
	unclaimed_advance(u, c->ts);
	if (c->cpu >= u->ncpu)
		u->ncpu = c->cpu + 1;
	count(u, c->cpu, -1);
	if (c->kind == CS_CH_STATE)
		u->st[c->cpu] = c->val;
	else if (c->kind == CS_CH_QUEUE)
		u->queued[c->cpu] += c->val;
	else
		u->unsure[c->cpu] += c->val;
	count(u, c->cpu, 1);
}

void unclaimed_late(struct unclaimed *u, uint64_t lo_ns, uint64_t hi_ns)
{
	u->late_lo_ns += lo_ns;
	u->late_hi_ns += hi_ns;
}

void unclaimed_clear(struct unclaimed *u)
{
	u->lo_ns = u->hi_ns = u->late_lo_ns = u->late_hi_ns = 0;
}

/*
 * The unknown CPU time's idle part, at least and at most, from /proc/stat:
 * each CPU's idle time there less what the model knows idle, within the
 * CPU's unknown time, to /proc/stat's accuracy
 */
static void proc_idle_unknown(const struct cpustate *cs, const struct an_view *v, int64_t *imin,
			      int64_t *imax, uint64_t *proc_all)
{
	uint32_t i;

	*imin = *imax = 0;
	*proc_all = 0;
	for (i = 0; i < cs->ncpu; i++) {
		const struct cs_cpu *c = &cs->cpu[i];
		int64_t unk = (int64_t)c->ns[CS_UNKNOWN], p, lo, hi;

		if (v->proc_idle && i < v->nproc && v->proc_listed[i])
			*proc_all += v->proc_idle[i];
		if (!unk)
			continue;
		if (!v->proc_idle || i >= v->nproc || !v->proc_listed[i]) {
			*imax += unk;		/* anything */
			continue;
		}
		p = (int64_t)v->proc_idle[i] - (int64_t)c->ns[CS_IDLE];
		lo = p - (int64_t)v->proc_tol_ns;
		hi = p + (int64_t)v->proc_tol_ns;
		*imin += lo < 0 ? 0 : lo > unk ? unk : lo;
		*imax += hi < 0 ? 0 : hi > unk ? unk : hi;
	}
}

void unclaimed_result(const struct unclaimed *u, const struct an_view *v, unsigned ncpu,
		      uint64_t dur_ns, struct unclaimed_result *r)
{
	const struct cpustate *cs = &v->an->cs;
	double all = (double)ncpu * (double)dur_ns;
	int64_t lo, hi, imin, imax, unk = 0, a, b, est;
	bool late = u->late_lo_ns || u->late_hi_ns;
	uint32_t i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < cs->ncpu; i++) {
		unk += (int64_t)cs->cpu[i].ns[CS_UNKNOWN];
		r->idle_ns += cs->cpu[i].ns[CS_IDLE];
	}
	r->unknown_ns = (uint64_t)unk;
	lo = (int64_t)u->lo_ns - (int64_t)u->late_lo_ns;
	lo = lo < 0 ? 0 : lo;
	hi = (int64_t)(u->hi_ns + u->late_hi_ns);
	proc_idle_unknown(cs, v, &imin, &imax, &r->proc_idle_ns);
	r->proc = v->proc_idle != NULL;
	a = lo;
	b = hi;
	/*
	 * Where I of the unknown time U was idle, the answer is at most
	 * lo + I (each idle CPU adds one at most) and at least hi - (U - I)
	 * (each CPU busy instead takes one at most); nothing of the sort
	 * holds where the stream was found wrong late
	 */
	if (!late && unk) {
		a = hi - (unk - imin) > a ? hi - (unk - imin) : a;
		b = lo + imax < b ? lo + imax : b;
		if (b < a)
			b = a;	/* /proc/stat's rounding beyond its tolerance */
	}
	/* the estimate: the unknown time's idle share from /proc/stat, else half */
	est = lo + (int64_t)((double)(hi - lo) *
			     (unk && r->proc ? (double)(imin + imax) / 2 / (double)unk : 0.5));
	est = est < a ? a : est > b ? b : est;
	r->ns = (uint64_t)est;
	r->min_ns = (uint64_t)a;
	r->max_ns = (uint64_t)b;
	r->exact = !unk && !late && a == b;
	if (all > 0) {
		r->share = (double)est / all;
		r->min = (double)a / all;
		r->max = (double)b / all;
	}
}

/* "CPU 1 1.900 s, CPU 0 0.012 s": the CPUs with the most unknown time, up to four */
static void unknown_cpus(char *buf, size_t len, const struct cpustate *cs)
{
	uint32_t taken[4];
	size_t off = 0;
	int k, j;

	buf[0] = '\0';
	for (k = 0; k < 4 && off < len; k++) {
		uint64_t best = 0;
		uint32_t i, at = 0;

		for (i = 0; i < cs->ncpu; i++) {
			for (j = 0; j < k && taken[j] != i; j++)
				;
			if (j == k && cs->cpu[i].ns[CS_UNKNOWN] > best) {
				best = cs->cpu[i].ns[CS_UNKNOWN];
				at = i;
			}
		}
		if (!best)
			break;
		taken[k] = at;
		off += (size_t)snprintf(buf + off, len - off, "%sCPU %u %.3f s", k ? ", " : "", at,
					(double)best / 1e9);
	}
}

/* what the model trusted the trace to hold, in words */
static const char *trust_words(const struct cpustate *cs)
{
	if (cs->found_lossy)
		return "the trace was taken to hold every switch, but lacks switches out of idle";
	switch (cs->trust) {
	case CS_COMPLETE:
		return "every context switch is in the trace";
	case CS_SELECTED:
		return "the trace holds the selected threads' switches only (an in-kernel pid filter)";
	default:
		return "this kernel may not record switches out of idle";
	}
}

void unclaimed_print_text(FILE *f, const struct unclaimed_result *r, const struct an_view *v)
{
	const struct cpustate *cs = &v->an->cs;
	char cpus[160];

	if (!r->exact) {
		unknown_cpus(cpus, sizeof(cpus), cs);
		fprintf(f, "# partial: the unclaimed share lies between %.2f%% and %.2f%%: the trace "
			"did not show the state of %.3f CPU-s (%s)%s\n", 100 * r->min, 100 * r->max,
			(double)r->unknown_ns / 1e9, cpus[0] ? cpus : "found late",
			r->proc ? ", which /proc/stat's idle time bounds" :
			"; /proc/stat's idle time, which would bound it, is not known here");
	}
	fprintf(f, "# CPU state: %s", trust_words(cs));
	if (cs->lost_idle_exits)
		fprintf(f, " (%" PRIu64 " switch%s out of idle missing in the run)",
			cs->lost_idle_exits, cs->lost_idle_exits == 1 ? "" : "es");
	fprintf(f, "; idle %.3f CPU-s known from the trace", (double)r->idle_ns / 1e9);
	if (r->unknown_ns)
		fprintf(f, ", %.3f CPU-s unknown", (double)r->unknown_ns / 1e9);
	/* the check: what the kernel counted idle beside what the trace knows idle */
	if (r->proc)
		fprintf(f, "; /proc/stat: idle %.3f CPU-s (%+.3f beside the trace's)",
			(double)r->proc_idle_ns / 1e9,
			((double)r->proc_idle_ns - (double)r->idle_ns) / 1e9);
	fputc('\n', f);
}

void unclaimed_print_json(FILE *f, const struct unclaimed_result *r, const struct an_view *v)
{
	const struct cpustate *cs = &v->an->cs;
	uint64_t busy = 0;
	uint32_t i;

	for (i = 0; i < cs->ncpu; i++)
		busy += cs->cpu[i].ns[CS_BUSY];
	fprintf(f, ",\"share_min\":%.6f,\"share_max\":%.6f,\"exact\":%s,\"cpu_state\":{"
		"\"switches\":\"%s\",\"found_lossy\":%s,\"lost_idle_exits\":%" PRIu64 ",\"idle_ns\":%"
		PRIu64 ",\"busy_ns\":%" PRIu64 ",\"unknown_ns\":%" PRIu64 ",\"proc_idle_ns\":",
		r->min, r->max, r->exact ? "true" : "false",
		cs->trust == CS_COMPLETE ? "complete" : cs->trust == CS_SELECTED ? "selected" :
		"lossy", cs->found_lossy ? "true" : "false", cs->lost_idle_exits, r->idle_ns, busy,
		r->unknown_ns);
	if (r->proc)
		fprintf(f, "%" PRIu64, r->proc_idle_ns);
	else
		fputs("null", f);
	fputs(",\"cpus\":[", f);
	for (i = 0; i < cs->ncpu; i++) {
		const struct cs_cpu *c = &cs->cpu[i];

		fprintf(f, "%s{\"cpu\":%u,\"idle_ns\":%" PRIu64 ",\"busy_ns\":%" PRIu64
			",\"unknown_ns\":%" PRIu64 ",\"proc_idle_ns\":", i ? "," : "", i,
			c->ns[CS_IDLE], c->ns[CS_BUSY], c->ns[CS_UNKNOWN]);
		if (v->proc_idle && i < v->nproc && v->proc_listed[i])
			fprintf(f, "%" PRIu64, v->proc_idle[i]);
		else
			fputs("null", f);
		fprintf(f, ",\"by_proc\":%s,\"offline\":%s}", c->by_proc ? "true" : "false",
			c->offline ? "true" : "false");
	}
	fputs("]}", f);
}
