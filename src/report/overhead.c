// SPDX-License-Identifier: GPL-2.0-or-later
/* overhead: the statistics of untraced and traced runs, the verdict, its text and JSON. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "overhead.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double ovh_median(const double *v, unsigned n, double *scratch)
{
	if (!n)
		return 0;
	memcpy(scratch, v, n * sizeof(*v));
	qsort(scratch, n, sizeof(*scratch), cmp_double);
	return n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
}

double ovh_noise(const double *v, unsigned n, double *scratch)
{
	double med, *dev = scratch + n;
	unsigned i;

	if (n < 2)
		return 0;
	med = ovh_median(v, n, scratch);
	if (!(med > 0))
		return 0;
	for (i = 0; i < n; i++)
		dev[i] = fabs(v[i] - med);
	return OVH_MAD_SCALE * ovh_median(dev, n, scratch) / med;
}

double ovh_noise2(const double *a, const double *b, unsigned n, double *scratch)
{
	double ma, mb, *dev = scratch;
	unsigned i;

	if (n < 2)
		return 0;
	ma = ovh_median(a, n, scratch);
	mb = ovh_median(b, n, scratch);
	if (!(ma > 0) || !(mb > 0))
		return 0;
	for (i = 0; i < n; i++) {
		dev[i] = fabs(a[i] - ma) / ma;
		dev[n + i] = fabs(b[i] - mb) / mb;
	}
	/* the 2n distances, and the median's own copy of them after */
	return OVH_MAD_SCALE * ovh_median(dev, 2 * n, scratch + 2 * n);
}

double ovh_cover(unsigned n, unsigned k)
{
	double p, below = 0;
	unsigned j;

	if (!k || 2 * k > n + 1)
		return 0;
	/* P(Bin(n, 1/2) = j), j = 0..k-1, from 2^-n up */
	p = ldexp(1, -(int)n);
	for (j = 0; j < k; j++) {
		below += p;
		p = p * (double)(n - j) / (double)(j + 1);
	}
	return 1 - 2 * below;
}

void ovh_band(const double *ratios, unsigned n, double *scratch, struct ovh_band *b)
{
	unsigned k;

	memset(b, 0, sizeof(*b));
	if (!n)
		return;
	memcpy(scratch, ratios, n * sizeof(*ratios));
	qsort(scratch, n, sizeof(*scratch), cmp_double);
	/* the narrowest that still covers OVH_COVER; with too few pairs, the widest */
	b->k = 1;
	for (k = 2; 2 * k <= n + 1; k++)
		if (ovh_cover(n, k) >= OVH_COVER)
			b->k = k;
	b->lo = scratch[b->k - 1];
	b->hi = scratch[n - b->k];
	b->cover = ovh_cover(n, b->k);
}

enum ovh_verdict ovh_verdict(double effect, double noise, const struct ovh_band *b,
			     unsigned pairs)
{
	double tol = noise > OVH_FLOOR ? noise : OVH_FLOOR;

	if (pairs < OVH_MIN_PAIRS)
		return OVH_TOO_FEW;
	/* the pairs agree on the sign, and the effect is larger than the noise */
	if ((b->lo > 0 || b->hi < 0) && fabs(effect) > tol) {
		/* a trace adds work: a job that runs faster shows the host's noise */
		if (effect < 0)
			return OVH_SPED_UP;
		/* with 3 pairs all go the same way one time in four by chance alone */
		return b->cover < OVH_COVER ? OVH_LOW_COVER : OVH_AFFECTED;
	}
	/* within the noise, and the noise small enough to mean something */
	if (fabs(effect) <= tol && tol <= OVH_NOISE_MAX)
		return OVH_ADMISSIBLE;
	return OVH_INCONCLUSIVE;
}

unsigned ovh_pairs_for_cover(void)
{
	unsigned n = OVH_MIN_PAIRS;

	while (ovh_cover(n, 1) < OVH_COVER)
		n++;
	return n;
}

const char *ovh_verdict_json(enum ovh_verdict v)
{
	return v == OVH_ADMISSIBLE ? "admissible" : v == OVH_AFFECTED ? "not_admissible" :
	       "inconclusive";
}

/* One field (at @offset) of run @i. */
static double field_at(const struct ovh_run *runs, unsigned i, size_t offset)
{
	return *(const double *)(const void *)((const char *)&runs[i] + offset);
}

/* The median of one field of n runs; @v holds 3n. */
static double median_of(const struct ovh_run *runs, unsigned n, size_t offset, double *v)
{
	unsigned i;

	for (i = 0; i < n; i++)
		v[i] = field_at(runs, i, offset);
	return ovh_median(v, n, v + n);
}

int ovh_stats(const struct ovh_in *in, struct ovh_stats *st)
{
	unsigned n = in->pairs, i;
	double *v, *w, *scratch;

	memset(st, 0, sizeof(*st));
	st->verdict = OVH_TOO_FEW;
	st->tolerance = OVH_FLOOR;
	if (!n)
		return 0;
	/* v and w: n each; scratch: 4n */
	v = calloc(6 * (size_t)n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	w = v + n;
	scratch = w + n;
	st->untraced_s = median_of(in->untraced, n, offsetof(struct ovh_run, wall_s), v);
	st->traced_s = median_of(in->traced, n, offsetof(struct ovh_run, wall_s), v);
	st->untraced_cpu_s = median_of(in->untraced, n, offsetof(struct ovh_run, cpu_s), v);
	st->traced_cpu_s = median_of(in->traced, n, offsetof(struct ovh_run, cpu_s), v);
	st->tracer_cpu_s = median_of(in->traced, n, offsetof(struct ovh_run, tracer_cpu_s), v);
	st->tracer_wall_s = median_of(in->traced, n, offsetof(struct ovh_run, tracer_wall_s), v);
	for (i = 0; i < n; i++) {
		v[i] = in->untraced[i].wall_s;
		w[i] = in->traced[i].wall_s;
	}
	st->noise_untraced = ovh_noise(v, n, scratch);
	st->noise_traced = ovh_noise(w, n, scratch);
	st->noise = ovh_noise2(v, w, n, scratch);
	st->effect = st->untraced_s > 0 ? st->traced_s / st->untraced_s - 1 : 0;
	st->cpu_effect = st->untraced_cpu_s > 0 ? st->traced_cpu_s / st->untraced_cpu_s - 1 : 0;
	for (i = 0; i < n; i++)
		v[i] = in->untraced[i].wall_s > 0 ?
		       in->traced[i].wall_s / in->untraced[i].wall_s - 1 : 0;
	ovh_band(v, n, scratch, &st->band);
	st->tolerance = st->noise > OVH_FLOOR ? st->noise : OVH_FLOOR;
	st->verdict = ovh_verdict(st->effect, st->noise, &st->band, n);
	free(v);
	return 0;
}

/* Is @word one of the space-separated words of @s? */
static bool has_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (; s && *s; s += strcspn(s, " ")) {
		s += strspn(s, " ");
		if (!strncmp(s, word, n) && (s[n] == ' ' || s[n] == '\0'))
			return true;
	}
	return false;
}

/* ... or a cluster of short options with @letter in it ("-PK") */
static bool has_short(const char *s, char letter, const char *longname)
{
	char one[3] = { '-', letter, '\0' };

	if (has_word(s, one) || has_word(s, longname))
		return true;
	for (; s && *s; s += strcspn(s, " ")) {
		size_t len;

		s += strspn(s, " ");
		len = strcspn(s, " ");
		if (len > 2 && s[0] == '-' && s[1] != '-' && memchr(s + 1, letter, len - 1))
			return true;
	}
	return false;
}

/* Not admissible: what costs less, from the analysis's own words. */
/* The backends that trace, but @used (NULL: not known), as "ring, perf or hist" */
static void other_backends(const char *used, char *buf, size_t len)
{
	static const char *const all[] = { "ring", "perf", "hist" };
	const char *left[3];
	unsigned i, n = 0;

	for (i = 0; i < 3; i++)
		if (!used || strcmp(used, all[i]))
			left[n++] = all[i];
	if (n == 3)
		snprintf(buf, len, "%s, %s or %s", left[0], left[1], left[2]);
	else
		snprintf(buf, len, "%s or %s", left[0], left[1]);
}

static void next_cheaper(const struct ovh_in *in, char *buf, size_t len)
{
	const char *a = in->analysis, *be = in->backend;
	char others[64];
	size_t n = 0;

#define ADD(...) (n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, \
					__VA_ARGS__))
	bool offcpu = !strncmp(a, "offcpu", 6) && (a[6] == ' ' || !a[6]);
	bool kstack = has_short(a, 'K', "--kernel-stacks");
	/* --late-stacks is the ring and perf backends' (and root's) */
	bool late_ok = !be || !strcmp(be, "ring") || !strcmp(be, "perf");

	/*
	 * the proc backend traces nothing: its cost is its own reads of every
	 * thread's /proc files at each sample, and it takes no stacks
	 */
	if (be && !strcmp(be, "proc")) {
		ADD("read less: the proc backend samples /proc (no tracing: the traced runs "
		    "had no tracing privileges); sample less often (--rate 5; default 20); a "
		    "narrower scope (-p PID) or a shorter window (one step of the job as -- "
		    "COMMAND); a tracing backend (root: ring, perf or hist) counts every switch "
		    "instead of sampling");
		return;
	}
	other_backends(be, others, sizeof(others));
	ADD("trace less: ");
	if (kstack && !has_word(a, "--late-stacks")) {
		if (offcpu && late_ok)
			ADD("read stacks only of long blocks, not at every switch: --analysis "
			    "'%s --late-stacks%s'; ", a, strstr(a, "--min") ? "" : " --min 1000");
		else
			ADD("drop -K (a kernel stack at every switch-out); ");
	}
	/* the stack trigger is filtered on the state in the kernel */
	if (kstack && !strstr(a, "--state") && !has_word(a, "--late-stacks"))
		ADD("stacks only of the blocks you look at (--state D: uninterruptible); ");
	if (has_short(a, 'U', "--user-stacks"))
		ADD("drop -U (a user stack at every switch-out); ");
	if (!strncmp(a, "profile", 7))
		ADD("sample less often (-F 49); ");
	ADD("a shorter window (one step of the job as -- COMMAND, or a timed window "
	    "while it runs); another backend (--backend %s%s: 'offcpu-ftrace info' says which "
	    "this host has, docs/performance.md what each costs)", others,
	    be ? "" : strstr(a, "--backend") ? ", other than the one given" : "");
#undef ADD
}

/* An effect and the tolerance it is held to, as percentages told apart: 0.1% apart, else 0.01% */
static int pct_digits(double effect, double tol)
{
	char a[32], b[32];

	snprintf(a, sizeof(a), "%.1f", 100 * fabs(effect));
	snprintf(b, sizeof(b), "%.1f", 100 * tol);
	return strcmp(a, b) ? 1 : 2;
}

void ovh_explain(const struct ovh_in *in, const struct ovh_stats *st, struct ovh_words *w)
{
	int d = pct_digits(st->effect, st->tolerance);
	double e = 100 * st->effect, noise = 100 * st->noise;
	const char *how = st->effect >= 0 ? "slowed the job by" : "sped the job up by";
	char within[160];
	unsigned more = in->asked * 3 > 15 ? in->asked * 3 : 15;

	memset(w, 0, sizeof(*w));
	if (st->noise > OVH_FLOOR)
		snprintf(within, sizeof(within), "the run-to-run noise (%.*f%%)", d, noise);
	else
		snprintf(within, sizeof(within), "%.0f%% (the noise, %.*f%%, is smaller: below "
			 "%.0f%% counts as no effect)", 100 * OVH_FLOOR, d, noise, 100 * OVH_FLOOR);
	switch (st->verdict) {
	case OVH_ADMISSIBLE:
		w->name = "admissible";
		snprintf(w->why, sizeof(w->why), "the trace changed the job's wall time by "
			 "%+.*f%%, within %s", d, e, within);
		snprintf(w->next, sizeof(w->next), "trace it: offcpu-ftrace %s -- %s",
			 in->analysis, in->job);
		break;
	case OVH_AFFECTED:
		w->name = "not admissible";
		snprintf(w->why, sizeof(w->why), "the trace %s %.*f%%, more than %s, and the "
			 "pairs agree (%+.1f%% to %+.1f%%)", how, d, fabs(e), within,
			 100 * st->band.lo, 100 * st->band.hi);
		next_cheaper(in, w->next, sizeof(w->next));
		break;
	case OVH_LOW_COVER:
		w->name = "inconclusive";
		snprintf(w->why, sizeof(w->why), "the trace slowed the job by %.*f%%, more than "
			 "%s, and the %u pairs agree (%+.1f%% to %+.1f%%), but %u pairs all go one "
			 "way by chance alone %.0f%% of the time: their band covers %.0f%%, and "
			 "%.0f%% is needed to call it", d, fabs(e), within, in->pairs,
			 100 * st->band.lo, 100 * st->band.hi, in->pairs,
			 100 * (1 - st->band.cover), 100 * st->band.cover, 100 * OVH_COVER);
		snprintf(w->next, sizeof(w->next), "run at least %u pairs (-n %u; more narrow the "
			 "band): then every pair slower is a verdict", ovh_pairs_for_cover(),
			 ovh_pairs_for_cover());
		break;
	case OVH_SPED_UP:
		w->name = "inconclusive";
		snprintf(w->why, sizeof(w->why), "the traced runs were %.*f%% faster, more than "
			 "%s, and the pairs agree (%+.1f%% to %+.1f%%): a trace adds work, so a "
			 "speed-up that large is the host's doing (a CPU's frequency or idle "
			 "states, other work on the host), not the trace's: the runs were noisy",
			 d, fabs(e), within, 100 * st->band.lo, 100 * st->band.hi);
		snprintf(w->next, sizeof(w->next), "run more pairs (-n %u), on a quieter host "
			 "(nothing else running; a fixed CPU frequency): the faster kind of run "
			 "should not stay the traced one", more);
		break;
	case OVH_INCONCLUSIVE:
		w->name = "inconclusive";
		if (st->tolerance > OVH_NOISE_MAX && !(fabs(st->effect) > st->tolerance))
			snprintf(w->why, sizeof(w->why), "the runs vary by %.1f%% (above "
				 "%.0f%%): an effect of that size would go unseen", noise,
				 100 * OVH_NOISE_MAX);
		else
			snprintf(w->why, sizeof(w->why), "the medians differ by %+.*f%%, more "
				 "than %s, but the pairs disagree (%+.1f%% to %+.1f%%)", d, e,
				 within, 100 * st->band.lo, 100 * st->band.hi);
		snprintf(w->next, sizeof(w->next), "run more pairs (-n %u), on a quieter host: "
			 "the band narrows with more pairs, the noise does not", more);
		break;
	case OVH_TOO_FEW:
		w->name = "inconclusive";
		snprintf(w->why, sizeof(w->why), "%u pair%s measured: at least %u are needed",
			 in->pairs, in->pairs == 1 ? "" : "s", OVH_MIN_PAIRS);
		snprintf(w->next, sizeof(w->next), "let it run its %u pairs, or ask for at "
			 "least %u (-n)", in->asked, OVH_MIN_PAIRS);
		break;
	}
}

/* "0.712 0.715 ..." for up to 10 runs, else "min 0.702, max 0.730" */
static void print_runs(FILE *f, const struct ovh_run *runs, unsigned n, bool tracer_cpu)
{
	double lo = 0, hi = 0, x;
	unsigned i;

	for (i = 0; i < n; i++) {
		x = tracer_cpu ? runs[i].tracer_cpu_s : runs[i].wall_s;
		if (n <= 10)
			fprintf(f, " %.3f", x);
		if (!i || x < lo)
			lo = x;
		if (!i || x > hi)
			hi = x;
	}
	if (n > 10)
		fprintf(f, " min %.3f, max %.3f", lo, hi);
	fputc('\n', f);
}

void ovh_print_text(FILE *f, const struct ovh_in *in, const struct ovh_stats *st)
{
	const struct ovh_band *b = &st->band;
	struct ovh_words w;

	fprintf(f, "overhead: %s, untraced and traced with '%s' in turn: %u pair%s of runs "
		"after a warm-up of each\n", in->job, in->analysis, in->pairs,
		in->pairs == 1 ? "" : "s");
	if (in->backend)
		fprintf(f, "backend: %s (the one the traced runs used)\n", in->backend);
	else if (in->pairs)
		fputs("backend: not known (the tracer did not say)\n", f);
	if (in->stopped)
		fprintf(f, "# stopped by %s after %u of %u pairs (the pair it came in is not "
			"counted)\n", in->stopped, in->pairs, in->asked);
	if (!in->pairs) {
		fputs("\nnothing measured\n", f);
		return;
	}
	fprintf(f, "\n%-18s %9s   %s\n", "", "median", "runs (s)");
	fprintf(f, "%-18s %7.3f s  ", "untraced", st->untraced_s);
	print_runs(f, in->untraced, in->pairs, false);
	fprintf(f, "%-18s %7.3f s  ", "traced", st->traced_s);
	print_runs(f, in->traced, in->pairs, false);
	fprintf(f, "%-18s %7.3f s  ", "tracer's own CPU", st->tracer_cpu_s);
	print_runs(f, in->traced, in->pairs, true);
	fprintf(f, "\njob's CPU: %.3f s untraced, %.3f s traced", st->untraced_cpu_s,
		st->traced_cpu_s);
	/* where a tracer's cost goes: `time offcpu-ftrace ...` does not show it */
	if (st->untraced_cpu_s >= 0.01)
		fprintf(f, " (%+.1f%%)%s", 100 * st->cpu_effect, st->cpu_effect > st->tolerance ?
			": the trace's cost lands in the traced tasks, not in the tracer" : "");
	fprintf(f, "\ntracer's whole run: %.3f s (its start and stop are not in the job's "
		"times)\n", st->tracer_wall_s);
	fprintf(f, "noise: %.1f%% (run-to-run spread of both kinds of run: 1.4826 x the median "
		"distance of a run from its kind's median, over it; untraced %.1f%%, traced "
		"%.1f%%)\n", 100 * st->noise, 100 * st->noise_untraced, 100 * st->noise_traced);
	fprintf(f, "effect: %+.1f%% (traced / untraced median - 1); pairs: %+.1f%% to "
		"%+.1f%% (%.0f%% band from %u pair%s)\n", 100 * st->effect, 100 * b->lo,
		100 * b->hi, 100 * b->cover, in->pairs, in->pairs == 1 ? "" : "s");
	if (in->keep)
		fprintf(f, "# the traced runs' results: %s\n", in->keep);
	ovh_explain(in, st, &w);
	fprintf(f, "\nverdict: %s: %s\nnext: %s\n", w.name, w.why, w.next);
}

/* "[1.000000,2.000000]" of one field of the runs */
static void json_runs(FILE *f, const char *key, const struct ovh_run *runs, unsigned n,
		      size_t offset)
{
	unsigned i;

	fprintf(f, ",\"%s\":[", key);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%.6f", i ? "," : "", field_at(runs, i, offset));
	fputc(']', f);
}

static void json_num(FILE *f, const char *key, double v, bool known)
{
	if (known)
		fprintf(f, ",\"%s\":%.6f", key, v);
	else
		fprintf(f, ",\"%s\":null", key);
}

void ovh_print_json(FILE *f, const struct ovh_in *in, const struct ovh_stats *st)
{
	bool some = in->pairs > 0;
	struct ovh_words w;

	ovh_explain(in, st, &w);
	fputs("{\"command\":\"overhead\",\"overhead\":{\"job\":", f);
	json_str(f, in->job, 4096);
	fputs(",\"analysis\":", f);
	json_str(f, in->analysis, 4096);
	fputs(",\"backend\":", f);
	json_str_or_null(f, in->backend, 64);
	fprintf(f, ",\"pairs\":%u,\"pairs_asked\":%u,\"warmups\":1,\"stopped\":", in->pairs,
		in->asked);
	json_str_or_null(f, in->stopped, 64);
	json_runs(f, "untraced_s", in->untraced, in->pairs, offsetof(struct ovh_run, wall_s));
	json_runs(f, "traced_s", in->traced, in->pairs, offsetof(struct ovh_run, wall_s));
	json_runs(f, "untraced_cpu_s", in->untraced, in->pairs, offsetof(struct ovh_run, cpu_s));
	json_runs(f, "traced_cpu_s", in->traced, in->pairs, offsetof(struct ovh_run, cpu_s));
	json_runs(f, "tracer_cpu_runs_s", in->traced, in->pairs,
		  offsetof(struct ovh_run, tracer_cpu_s));
	json_runs(f, "tracer_wall_runs_s", in->traced, in->pairs,
		  offsetof(struct ovh_run, tracer_wall_s));
	json_num(f, "untraced_median_s", st->untraced_s, some);
	json_num(f, "traced_median_s", st->traced_s, some);
	json_num(f, "untraced_cpu_median_s", st->untraced_cpu_s, some);
	json_num(f, "traced_cpu_median_s", st->traced_cpu_s, some);
	json_num(f, "tracer_cpu_s", st->tracer_cpu_s, some);
	json_num(f, "tracer_wall_median_s", st->tracer_wall_s, some);
	json_num(f, "noise", st->noise, some);
	json_num(f, "noise_untraced", st->noise_untraced, some);
	json_num(f, "noise_traced", st->noise_traced, some);
	json_num(f, "effect", st->effect, some);
	json_num(f, "effect_low", st->band.lo, some);
	json_num(f, "effect_high", st->band.hi, some);
	json_num(f, "band_cover", st->band.cover, some);
	json_num(f, "cpu_effect", st->cpu_effect, some && st->untraced_cpu_s > 0);
	fprintf(f, ",\"tolerance\":%.6f,\"floor\":%.6f,\"noise_max\":%.6f", st->tolerance,
		OVH_FLOOR, OVH_NOISE_MAX);
	fprintf(f, ",\"verdict\":\"%s\",\"admissible\":%s,\"inconclusive_because\":",
		ovh_verdict_json(st->verdict), st->verdict == OVH_ADMISSIBLE ? "true" :
		st->verdict == OVH_AFFECTED ? "false" : "null");
	json_str_or_null(f, st->verdict == OVH_TOO_FEW ? "too_few_pairs" :
			 st->verdict == OVH_LOW_COVER ? "band_cover" :
			 st->verdict == OVH_SPED_UP ? "sped_up" :
			 st->verdict != OVH_INCONCLUSIVE ? NULL :
			 st->tolerance > OVH_NOISE_MAX && !(fabs(st->effect) > st->tolerance) ?
			 "noise" : "pairs_disagree", 32);
	fputs(",\"why\":", f);
	json_str(f, w.why, sizeof(w.why));
	fputs(",\"next\":", f);
	json_str(f, w.next, sizeof(w.next));
	fputs(",\"keep\":", f);
	json_str_or_null(f, in->keep, 4096);
	fputs("}}\n", f);
}
