// SPDX-License-Identifier: GPL-2.0-or-later
/* overhead's statistics and verdict on made-up runs, and its text and JSON. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "jsonread.h"
#include "overhead.h"

#define EPS 1e-9

START_TEST(test_median)
{
	double v[] = { 3, 1, 2 }, w[] = { 4, 1, 3, 2 }, one[] = { 7 }, scratch[4];

	ck_assert_double_eq_tol(ovh_median(v, 3, scratch), 2, EPS);
	/* even: the mean of the middle two, as Python's statistics.median */
	ck_assert_double_eq_tol(ovh_median(w, 4, scratch), 2.5, EPS);
	ck_assert_double_eq_tol(ovh_median(one, 1, scratch), 7, EPS);
	/* the input is left as it was */
	ck_assert_double_eq(v[0], 3);
	ck_assert_double_eq(w[0], 4);
}
END_TEST

START_TEST(test_noise)
{
	double even[] = { 10, 11, 12, 13, 14 }, outlier[] = { 10, 11, 12, 13, 1000 };
	double same[] = { 1, 1.1, 0.9, 1, 1 }, scratch[10];

	/* MAD 1 around 12: 1.4826 / 12 */
	ck_assert_double_eq_tol(ovh_noise(even, 5, scratch), 1.4826 / 12, EPS);
	/* one wild run does not move it */
	ck_assert_double_eq_tol(ovh_noise(outlier, 5, scratch), 1.4826 / 12, EPS);
	/* three equal runs of five: no spread by the median's measure */
	ck_assert_double_eq_tol(ovh_noise(same, 5, scratch), 0, EPS);
	ck_assert_double_eq_tol(ovh_noise(even, 1, scratch), 0, EPS);
}
END_TEST

START_TEST(test_cover)
{
	/* 1 - 2 P(Bin(n, 1/2) < k) */
	ck_assert_double_eq_tol(ovh_cover(5, 1), 1 - 2.0 / 32, EPS);
	ck_assert_double_eq_tol(ovh_cover(5, 2), 1 - 2.0 * 6 / 32, EPS);
	ck_assert_double_eq_tol(ovh_cover(9, 2), 1 - 2.0 * 10 / 512, EPS);
	ck_assert_double_eq_tol(ovh_cover(1, 1), 0, EPS);
	ck_assert_double_eq_tol(ovh_cover(5, 4), 0, EPS);	/* lo would pass hi */
	ck_assert_double_eq_tol(ovh_cover(5, 0), 0, EPS);
	/* large n: no overflow, and the middle grows certain */
	ck_assert(ovh_cover(1000, 400) > 0.99999);
	ck_assert(ovh_cover(1000, 500) < 0.1);
}
END_TEST

START_TEST(test_band)
{
	double r5[] = { 0.05, -0.01, 0.03, 0.02, 0.04 };
	double r10[] = { 10, 1, 9, 2, 8, 3, 7, 4, 6, 5 };
	double scratch[30], r30[30];
	struct ovh_band b;
	unsigned i;

	/* five pairs: the lowest and the highest, 94% */
	ovh_band(r5, 5, scratch, &b);
	ck_assert_uint_eq(b.k, 1);
	ck_assert_double_eq_tol(b.lo, -0.01, EPS);
	ck_assert_double_eq_tol(b.hi, 0.05, EPS);
	ck_assert_double_eq_tol(b.cover, 0.9375, EPS);
	/* ten: the second from each end (97.9%; the third would be 89%) */
	ovh_band(r10, 10, scratch, &b);
	ck_assert_uint_eq(b.k, 2);
	ck_assert_double_eq_tol(b.lo, 2, EPS);
	ck_assert_double_eq_tol(b.hi, 9, EPS);
	ck_assert(b.cover >= OVH_COVER);
	/* thirty: the eleventh (90.1%) */
	for (i = 0; i < 30; i++)
		r30[i] = i;
	ovh_band(r30, 30, scratch, &b);
	ck_assert_uint_eq(b.k, 11);
	ck_assert_double_eq_tol(b.lo, 10, EPS);
	ck_assert_double_eq_tol(b.hi, 19, EPS);
	/* three: still the extremes, and it says how little they cover */
	ovh_band(r5, 3, scratch, &b);
	ck_assert_uint_eq(b.k, 1);
	ck_assert_double_eq_tol(b.cover, 0.75, EPS);
	ovh_band(r5, 0, scratch, &b);
	ck_assert_double_eq(b.cover, 0);
}
END_TEST

static struct ovh_band band(double lo, double hi)
{
	struct ovh_band b = { .lo = lo, .hi = hi, .k = 1, .cover = 0.9375 };

	return b;
}

START_TEST(test_verdict)
{
	struct ovh_band b;

	/* every pair slower, by more than the noise */
	b = band(0.05, 0.11);
	ck_assert_int_eq(ovh_verdict(0.08, 0.02, &b, 5), OVH_AFFECTED);
	/* ... but 3 or 4 pairs (a band of 75%, 88%) all go one way by chance too often */
	b.cover = ovh_cover(3, 1);
	ck_assert_int_eq(ovh_verdict(0.08, 0.02, &b, 3), OVH_LOW_COVER);
	b.cover = ovh_cover(4, 1);
	ck_assert_int_eq(ovh_verdict(0.08, 0.02, &b, 4), OVH_LOW_COVER);
	ck_assert_uint_eq(ovh_pairs_for_cover(), 5);
	/* ... faster: a trace adds work, so it is the host's noise, never "not admissible" */
	b = band(-0.11, -0.05);
	ck_assert_int_eq(ovh_verdict(-0.08, 0.02, &b, 5), OVH_SPED_UP);
	ck_assert_str_eq(ovh_verdict_json(OVH_SPED_UP), "inconclusive");
	ck_assert_str_eq(ovh_verdict_json(OVH_LOW_COVER), "inconclusive");
	/* every pair slower, but by less than the floor: admissible */
	b = band(0.002, 0.018);
	ck_assert_int_eq(ovh_verdict(0.015, 0.001, &b, 5), OVH_ADMISSIBLE);
	/* ... faster too (a trace that keeps a VM's CPUs out of idle) */
	b = band(-0.013, -0.004);
	ck_assert_int_eq(ovh_verdict(-0.011, 0.003, &b, 21), OVH_ADMISSIBLE);
	/* past the floor, every pair: not admissible */
	b = band(0.022, 0.03);
	ck_assert_int_eq(ovh_verdict(0.025, 0.003, &b, 5), OVH_AFFECTED);
	/* every pair slower, within the noise */
	b = band(0.01, 0.06);
	ck_assert_int_eq(ovh_verdict(0.03, 0.05, &b, 5), OVH_ADMISSIBLE);
	/* at the noise exactly: within */
	ck_assert_int_eq(ovh_verdict(0.05, 0.05, &b, 5), OVH_ADMISSIBLE);
	/* larger than the noise, but the pairs disagree on the sign */
	b = band(-0.01, 0.09);
	ck_assert_int_eq(ovh_verdict(0.05, 0.02, &b, 5), OVH_INCONCLUSIVE);
	/* the noise above OVH_NOISE_MAX: within it says nothing */
	b = band(-0.1, 0.2);
	ck_assert_int_eq(ovh_verdict(0.05, 0.15, &b, 5), OVH_INCONCLUSIVE);
	b = band(-0.01, 0.01);
	ck_assert_int_eq(ovh_verdict(0.0, 0.15, &b, 5), OVH_INCONCLUSIVE);
	/* ... but an effect well beyond it, in every pair, is still one */
	b = band(0.2, 0.4);
	ck_assert_int_eq(ovh_verdict(0.3, 0.15, &b, 5), OVH_AFFECTED);
	/* too few pairs for anything */
	b = band(0.2, 0.4);
	ck_assert_int_eq(ovh_verdict(0.3, 0.01, &b, 2), OVH_TOO_FEW);
}
END_TEST

/* five pairs: untraced 1.00..1.04 s, traced 10% slower; the tracer 0.05..0.09 s */
static void five_pairs(struct ovh_run *u, struct ovh_run *t)
{
	static const double wall[] = { 1.02, 1.00, 1.04, 1.01, 1.03 };
	unsigned i;

	for (i = 0; i < 5; i++) {
		u[i] = (struct ovh_run){ .wall_s = wall[i], .cpu_s = 0.9 };
		t[i] = (struct ovh_run){ .wall_s = wall[i] * (1.09 + 0.005 * i), .cpu_s = 1.0,
					 .tracer_cpu_s = 0.05 + 0.01 * i,
					 .tracer_wall_s = wall[i] + 0.2 };
	}
}

START_TEST(test_stats)
{
	struct ovh_run u[5], t[5];
	struct ovh_in in = { .job = "make -j4", .analysis = "runq", .untraced = u,
			     .traced = t, .pairs = 5, .asked = 5 };
	struct ovh_stats st;

	five_pairs(u, t);
	ck_assert_int_eq(ovh_stats(&in, &st), 0);
	ck_assert_double_eq_tol(st.untraced_s, 1.02, EPS);
	/* traced: 1.02*1.09, 1.00*1.095, 1.04*1.10, 1.01*1.105, 1.03*1.11 */
	ck_assert_double_eq_tol(st.traced_s, 1.1160500, 1e-7);
	ck_assert_double_eq_tol(st.effect, 1.11605 / 1.02 - 1, 1e-7);
	/* the untraced runs alone, and both kinds (each run against its kind's median) */
	ck_assert_double_eq_tol(st.noise_untraced, 1.4826 * 0.01 / 1.02, 1e-7);
	ck_assert_double_eq_tol(st.noise, 1.4826 * (0.01 / 1.02 + 0.02105 / 1.11605) / 2, 1e-7);
	ck_assert_double_eq_tol(st.band.lo, 0.09, 1e-7);
	ck_assert_double_eq_tol(st.band.hi, 0.11, 1e-7);
	ck_assert_double_eq_tol(st.tracer_cpu_s, 0.07, EPS);
	ck_assert_double_eq_tol(st.tracer_wall_s, 1.22, EPS);
	ck_assert_double_eq_tol(st.cpu_effect, 1.0 / 0.9 - 1, EPS);
	ck_assert_double_eq_tol(st.tolerance, st.noise, EPS);	/* just over the floor */
	ck_assert_int_eq(st.verdict, OVH_AFFECTED);

	/* the same job, untraced twice over: admissible */
	in.traced = u;
	ck_assert_int_eq(ovh_stats(&in, &st), 0);
	ck_assert_double_eq_tol(st.effect, 0, EPS);
	ck_assert_int_eq(st.verdict, OVH_ADMISSIBLE);

	/* nothing measured: nothing said */
	in.pairs = 0;
	ck_assert_int_eq(ovh_stats(&in, &st), 0);
	ck_assert_int_eq(st.verdict, OVH_TOO_FEW);
}
END_TEST

/*
 * The verdict's next step for @analysis traced with @backend (NULL: not
 * known), the runs made to say "not admissible".
 */
static void next_for_backend(const char *analysis, const char *backend, char *next, size_t len)
{
	struct ovh_run u[5], t[5];
	struct ovh_in in = { .job = "make -j4", .analysis = analysis, .backend = backend,
			     .untraced = u, .traced = t, .pairs = 5, .asked = 5 };
	struct ovh_stats st;
	struct ovh_words w;

	five_pairs(u, t);
	ck_assert_int_eq(ovh_stats(&in, &st), 0);
	ck_assert_int_eq(st.verdict, OVH_AFFECTED);
	ovh_explain(&in, &st, &w);
	ck_assert_str_eq(w.name, "not admissible");
	ck_assert_ptr_nonnull(strstr(w.why, "slowed the job by 9.4%"));
	snprintf(next, len, "%s", w.next);
}

static void next_for(const char *analysis, char *next, size_t len)
{
	next_for_backend(analysis, NULL, next, len);
}

START_TEST(test_next)
{
	char next[1200];

	next_for("offcpu -K", next, sizeof(next));
	ck_assert_ptr_nonnull(strstr(next, "--analysis 'offcpu -K --late-stacks --min 1000'"));
	ck_assert_ptr_nonnull(strstr(next, "(--state D: uninterruptible)"));
	next_for("offcpu -K --state S", next, sizeof(next));
	ck_assert_ptr_null(strstr(next, "--state D"));
	ck_assert_ptr_nonnull(strstr(next, "a shorter window"));
	ck_assert_ptr_nonnull(strstr(next, "another backend"));
	next_for("offcpu -PK --min 5000", next, sizeof(next));
	ck_assert_ptr_nonnull(strstr(next, "'offcpu -PK --min 5000 --late-stacks'"));
	next_for("offcpu -K --late-stacks --min 1000", next, sizeof(next));
	ck_assert_ptr_null(strstr(next, "--late-stacks'"));
	next_for("record -K", next, sizeof(next));
	ck_assert_ptr_nonnull(strstr(next, "drop -K"));
	next_for("offcpu -U", next, sizeof(next));
	ck_assert_ptr_nonnull(strstr(next, "drop -U"));
	next_for("profile", next, sizeof(next));
	ck_assert_ptr_nonnull(strstr(next, "-F 49"));
	next_for("runq", next, sizeof(next));
	ck_assert_ptr_null(strstr(next, "-K"));
	ck_assert_ptr_null(strstr(next, "--state"));
	ck_assert_ptr_null(strstr(next, "other than the one given"));
	next_for("runq --backend perf", next, sizeof(next));
	ck_assert_ptr_nonnull(strstr(next, "other than the one given"));
	/* the backend the runs used: named out of "another backend" */
	next_for_backend("offcpu -K", "ring", next, sizeof(next));
	ck_assert_ptr_nonnull(strstr(next, "--late-stacks"));
	ck_assert_ptr_nonnull(strstr(next, "--backend perf or hist"));
	/* hist takes its stacks in the kernel: no --late-stacks for it */
	next_for_backend("offcpu -K", "hist", next, sizeof(next));
	ck_assert_ptr_null(strstr(next, "--late-stacks"));
	ck_assert_ptr_nonnull(strstr(next, "drop -K"));
	ck_assert_ptr_nonnull(strstr(next, "--backend ring or perf"));
	/* proc (an ordinary user's auto): it samples, takes no stacks, and reads less */
	next_for_backend("offcpu -K", "proc", next, sizeof(next));
	ck_assert_ptr_null(strstr(next, "--late-stacks"));
	ck_assert_ptr_null(strstr(next, "-K"));
	ck_assert_ptr_nonnull(strstr(next, "--rate 5"));
}
END_TEST

/* a reproducible normal deviate (xorshift64, Box-Muller) */
static double gauss(uint64_t *x)
{
	double u1, u2;

	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	u1 = ((double)(*x >> 11) + 1) / 9007199254740993.0;
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	u2 = (double)(*x >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* of @trials run sets of @n pairs, spread @sigma, traced @effect slower: how many not admissible */
static unsigned monte_carlo(unsigned n, double sigma, double effect, unsigned trials)
{
	struct ovh_run u[16], t[16];
	struct ovh_in in = { .job = "j", .analysis = "runq", .untraced = u, .traced = t,
			     .pairs = n, .asked = n };
	struct ovh_stats st;
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	unsigned k, i, bad = 0;

	for (k = 0; k < trials; k++) {
		for (i = 0; i < n; i++) {
			u[i] = (struct ovh_run){ .wall_s = 1 + sigma * gauss(&x) };
			t[i] = (struct ovh_run){ .wall_s = (1 + effect) * (1 + sigma * gauss(&x)) };
		}
		ck_assert_int_eq(ovh_stats(&in, &st), 0);
		bad += st.verdict == OVH_AFFECTED;
	}
	return bad;
}

START_TEST(test_no_effect)
{
	/*
	 * No true effect, the runs spread 3% or 5%: 3 or 4 pairs never say
	 * "not admissible" (they said so 16-19% and 9-10% of the time), 5
	 * pairs at most as often as 5 pairs all go one way slower by chance,
	 * 1/32 (they said so 4.6%, speed-ups counted)
	 */
	ck_assert_uint_eq(monte_carlo(3, 0.03, 0, 5000), 0);
	ck_assert_uint_eq(monte_carlo(3, 0.05, 0, 5000), 0);
	ck_assert_uint_eq(monte_carlo(4, 0.05, 0, 5000), 0);
	ck_assert_uint_le(monte_carlo(5, 0.03, 0, 10000), 10000 / 32);
	ck_assert_uint_le(monte_carlo(5, 0.10, 0, 10000), 10000 / 32);
	ck_assert_uint_le(monte_carlo(9, 0.05, 0, 10000), 10000 / 50);
	/* a real 10% cost with 1% spread is still found, nearly always, from 5 pairs on */
	ck_assert_uint_ge(monte_carlo(5, 0.01, 0.10, 2000), 1900);
	ck_assert_uint_ge(monte_carlo(9, 0.01, 0.10, 2000), 1990);
}
END_TEST

START_TEST(test_small_sets)
{
	/* -n 3 -- sleep 0.2, one untraced run slow (host noise): "the trace sped the job up" */
	static const double uw[] = { 0.35, 0.34, 0.36 }, tw[] = { 0.205, 0.203, 0.21 };
	/* 3 pairs, every traced run 10% slower: not enough pairs to call it */
	static const double u3[] = { 1.0, 1.01, 0.99 }, t3[] = { 1.1, 1.11, 1.09 };
	struct ovh_run u[3], t[3];
	struct ovh_in in = { .job = "sleep 0.2", .analysis = "offcpu -K", .untraced = u,
			     .traced = t, .pairs = 3, .asked = 3 };
	struct ovh_stats st;
	struct ovh_words w;
	unsigned i;

	for (i = 0; i < 3; i++) {
		u[i] = (struct ovh_run){ .wall_s = uw[i] };
		t[i] = (struct ovh_run){ .wall_s = tw[i] };
	}
	ck_assert_int_eq(ovh_stats(&in, &st), 0);
	ck_assert_int_eq(st.verdict, OVH_SPED_UP);
	ovh_explain(&in, &st, &w);
	ck_assert_str_eq(w.name, "inconclusive");
	ck_assert_msg(strstr(w.why, "faster") && strstr(w.why, "the runs were noisy"), "%s", w.why);
	ck_assert_msg(strstr(w.next, "quieter host") && !strstr(w.next, "trace less"), "%s",
		      w.next);
	for (i = 0; i < 3; i++) {
		u[i] = (struct ovh_run){ .wall_s = u3[i] };
		t[i] = (struct ovh_run){ .wall_s = t3[i] };
	}
	ck_assert_int_eq(ovh_stats(&in, &st), 0);
	ck_assert_int_eq(st.verdict, OVH_LOW_COVER);
	ovh_explain(&in, &st, &w);
	ck_assert_str_eq(w.name, "inconclusive");
	ck_assert_msg(strstr(w.why, "band covers 75%, and 90% is needed"), "%s", w.why);
	ck_assert_msg(strstr(w.next, "at least 5 pairs (-n 5;"), "%s", w.next);
	/* the same, five pairs: now it is a verdict */
	{
		struct ovh_run u5[5], t5[5];

		for (i = 0; i < 5; i++) {
			u5[i] = (struct ovh_run){ .wall_s = 1.0 + 0.01 * (i % 3) };
			t5[i] = (struct ovh_run){ .wall_s = 1.1 + 0.01 * (i % 3) };
		}
		in.untraced = u5;
		in.traced = t5;
		in.pairs = 5;
		ck_assert_int_eq(ovh_stats(&in, &st), 0);
		ck_assert_int_eq(st.verdict, OVH_AFFECTED);
	}
}
END_TEST

START_TEST(test_digits)
{
	struct ovh_run u[5], t[5];
	struct ovh_in in = { .job = "sleep 1", .analysis = "runq", .untraced = u,
			     .traced = t, .pairs = 5, .asked = 5 };
	static const double uw[] = { 1.0, 1.0, 1.0, 1.0, 1.0 };
	static const double tw[] = { 1.0204, 0.99, 1.0204, 1.0204, 1.0 };
	struct ovh_stats st;
	struct ovh_words w;
	unsigned i;

	for (i = 0; i < 5; i++) {
		u[i] = (struct ovh_run){ .wall_s = uw[i] };
		t[i] = (struct ovh_run){ .wall_s = tw[i] };
	}
	ck_assert_int_eq(ovh_stats(&in, &st), 0);
	/* +2.04% against 2%: one decimal would say "+2.0%, more than 2.0%" */
	ck_assert_int_eq(st.verdict, OVH_INCONCLUSIVE);
	ovh_explain(&in, &st, &w);
	ck_assert_msg(strstr(w.why, "differ by +2.04%, more than 2%"), "%s", w.why);
	ck_assert_msg(strstr(w.why, "the noise, 0.00%"), "%s", w.why);
	ck_assert_msg(strstr(w.next, "-n 15"), "%s", w.next);
}
END_TEST

START_TEST(test_text)
{
	struct ovh_run u[5], t[5];
	struct ovh_in in = { .job = "sleep 0.3", .analysis = "runq", .untraced = u,
			     .traced = u, .pairs = 5, .asked = 5 };
	struct ovh_stats st;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	five_pairs(u, t);
	ck_assert_int_eq(ovh_stats(&in, &st), 0);
	f = open_memstream(&out, &len);
	ovh_print_text(f, &in, &st);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(out, "untraced             1.020 s   1.020 1.000 1.040 "
					  "1.010 1.030\n"));
	ck_assert_ptr_nonnull(strstr(out, "noise: 1.5%"));
	ck_assert_ptr_nonnull(strstr(out, "effect: +0.0%"));
	ck_assert_ptr_nonnull(strstr(out, "(94% band from 5 pairs)"));
	/* the noise under the floor: held to the floor, and said so */
	ck_assert_ptr_nonnull(strstr(out, "\nverdict: admissible: the trace changed the job's "
					  "wall time by +0.0%, within 2% (the noise, 1.5%, is "
					  "smaller: below 2% counts as no effect)\n"));
	ck_assert_ptr_nonnull(strstr(out, "next: trace it: offcpu-ftrace runq -- sleep 0.3\n"));
	/* the job's CPU the same: nothing said of where a cost went */
	ck_assert_ptr_nonnull(strstr(out, "job's CPU: 0.900 s untraced, 0.900 s traced (+0.0%)\n"));
	free(out);

	/* traced 10% slower, its CPU 11% more: the cost is in the job's tasks */
	in.traced = t;
	ck_assert_int_eq(ovh_stats(&in, &st), 0);
	f = open_memstream(&out, &len);
	ovh_print_text(f, &in, &st);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(out, "job's CPU: 0.900 s untraced, 1.000 s traced (+11.1%): "
					  "the trace's cost lands in the traced tasks"));
	ck_assert_ptr_nonnull(strstr(out, "tracer's own CPU     0.070 s   0.050 0.060 0.070 "
					  "0.080 0.090\n"));
	ck_assert_ptr_nonnull(strstr(out, "tracer's whole run: 1.220 s"));
	ck_assert_ptr_nonnull(strstr(out, "\nverdict: not admissible: the trace slowed the job "
					  "by 9.4%, more than the run-to-run noise (2.1%)"));
	ck_assert_ptr_nonnull(strstr(out, "\nnoise: 2.1% (run-to-run spread of both kinds of "
					  "run"));
	ck_assert_ptr_nonnull(strstr(out, "untraced 1.5%, traced 2.8%)"));
	ck_assert_ptr_nonnull(strstr(out, "\nbackend: not known"));
	free(out);

	/* stopped before a pair: says so, and nothing else */
	in.pairs = 0;
	in.stopped = "SIGINT";
	ck_assert_int_eq(ovh_stats(&in, &st), 0);
	f = open_memstream(&out, &len);
	ovh_print_text(f, &in, &st);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(out, "# stopped by SIGINT after 0 of 5 pairs"));
	ck_assert_ptr_nonnull(strstr(out, "nothing measured"));
	ck_assert_ptr_null(strstr(out, "verdict"));
	free(out);
}
END_TEST

/* @out parsed; member "overhead" */
static const struct json_val *parse(const char *out, struct json_val *root)
{
	struct json_reader jr;
	char err[256] = "";

	memset(root, 0, sizeof(*root));
	json_reader_init(&jr, out, strlen(out), 8, err, sizeof(err));
	ck_assert_msg(json_reader_value(&jr, root) == 0, "%s: %s", err, out);
	ck_assert_int_eq(json_reader_peek(&jr), -1);
	return json_val_get(root, "overhead");
}

START_TEST(test_json)
{
	struct ovh_run u[5], t[5];
	struct ovh_in in = { .job = "a \"quoted\" job", .analysis = "offcpu -K",
			     .backend = "perf", .untraced = u, .traced = t, .pairs = 5, .asked = 5,
			     .keep = "runs" };
	const struct json_val *o, *a;
	struct json_val root;
	struct ovh_stats st;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	five_pairs(u, t);
	ck_assert_int_eq(ovh_stats(&in, &st), 0);
	f = open_memstream(&out, &len);
	ovh_print_json(f, &in, &st);
	fclose(f);
	o = parse(out, &root);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_val_get(&root, "command")->s, "overhead");
	ck_assert_str_eq(json_val_get(o, "job")->s, "a \"quoted\" job");
	a = json_val_get(o, "untraced_s");
	ck_assert_int_eq(a->t, JSON_ARR);
	ck_assert_uint_eq(a->n, 5);
	ck_assert_uint_eq(json_val_get(o, "traced_s")->n, 5);
	ck_assert_uint_eq(json_val_get(o, "tracer_cpu_runs_s")->n, 5);
	ck_assert_int_eq(json_val_get(o, "effect")->t, JSON_NUM);
	ck_assert_int_eq(json_val_get(o, "noise")->t, JSON_NUM);
	ck_assert_int_eq(json_val_get(o, "tracer_cpu_s")->t, JSON_NUM);
	ck_assert_int_eq(json_val_get(o, "admissible")->t, JSON_FALSE);
	ck_assert_str_eq(json_val_get(o, "verdict")->s, "not_admissible");
	ck_assert_str_eq(json_val_get(o, "keep")->s, "runs");
	ck_assert_int_eq(json_val_get(o, "stopped")->t, JSON_NULL);
	ck_assert_str_eq(json_val_get(o, "backend")->s, "perf");
	ck_assert_int_eq(json_val_get(o, "noise_traced")->t, JSON_NUM);
	ck_assert_int_eq(json_val_get(o, "inconclusive_because")->t, JSON_NULL);
	ck_assert_ptr_nonnull(strstr(out, "\"untraced_s\":[1.020000,1.000000,1.040000,1.010000,"
					  "1.030000]"));
	json_val_fini(&root);
	free(out);

	/* inconclusive is neither true nor false; nothing measured is null */
	in.pairs = 2;
	in.stopped = "SIGTERM";
	ck_assert_int_eq(ovh_stats(&in, &st), 0);
	f = open_memstream(&out, &len);
	ovh_print_json(f, &in, &st);
	fclose(f);
	o = parse(out, &root);
	ck_assert_int_eq(json_val_get(o, "admissible")->t, JSON_NULL);
	ck_assert_str_eq(json_val_get(o, "verdict")->s, "inconclusive");
	ck_assert_str_eq(json_val_get(o, "inconclusive_because")->s, "too_few_pairs");
	ck_assert_str_eq(json_val_get(o, "stopped")->s, "SIGTERM");
	json_val_fini(&root);
	free(out);
	in.pairs = 0;
	ck_assert_int_eq(ovh_stats(&in, &st), 0);
	f = open_memstream(&out, &len);
	ovh_print_json(f, &in, &st);
	fclose(f);
	o = parse(out, &root);
	ck_assert_uint_eq(json_val_get(o, "untraced_s")->n, 0);
	ck_assert_int_eq(json_val_get(o, "effect")->t, JSON_NULL);
	ck_assert_int_eq(json_val_get(o, "tracer_cpu_s")->t, JSON_NULL);
	json_val_fini(&root);
	free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("overhead");
	TCase *tc = tcase_create("overhead");

	tcase_add_test(tc, test_median);
	tcase_add_test(tc, test_noise);
	tcase_add_test(tc, test_cover);
	tcase_add_test(tc, test_band);
	tcase_add_test(tc, test_verdict);
	tcase_add_test(tc, test_stats);
	tcase_add_test(tc, test_next);
	tcase_add_test(tc, test_no_effect);
	tcase_add_test(tc, test_small_sets);
	tcase_add_test(tc, test_digits);
	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_json);
	suite_add_tcase(s, tc);
	return check_run(s);
}
