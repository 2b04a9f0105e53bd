/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * overhead: is the trace admissible? The same job run untraced and traced
 * in turn (src/cli/cmd_overhead.c measures the runs); here, from those
 * runs alone: the medians, the run-to-run noise of the untraced runs, the
 * effect and its band from the pairs, the verdict with what to try next,
 * and their text and JSON. Pure: nothing here runs or reads anything.
 */
#ifndef OFFCPU_OVERHEAD_H
#define OFFCPU_OVERHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * an effect this small (a fraction) is admissible whatever the noise: the
 * tool's own cross-checks allow 2%, and on the 2-CPU development VM the
 * trace made `sleep 0.3` 1.1% faster (21 pairs: -1.3% to -0.4%, noise
 * 0.3%), a real effect no conclusion hinges on
 */
#define OVH_FLOOR 0.02
/* untraced runs spread wider than this (a fraction) tell no effect under it apart */
#define OVH_NOISE_MAX 0.10
/*
 * the band: the narrowest interval of pair ratios whose coverage is at
 * least this; a band that covers less (3 or 4 pairs: 75%, 88%) never
 * makes a trace "not admissible"
 */
#define OVH_COVER 0.90
/* fewer pairs than this: no verdict */
#define OVH_MIN_PAIRS 3
/* 1 / the standard normal's 3rd quartile: MAD x this estimates a standard deviation */
#define OVH_MAD_SCALE 1.4826

/* One run of the job, as measured (seconds). */
struct ovh_run {
	double wall_s;		/* the job's wall time: its exec to its exit */
	double cpu_s;		/* user + system of the job and its waited-for descendants */
	double tracer_cpu_s;	/* traced: the tracer's own user + system; 0 untraced */
	double tracer_wall_s;	/* traced: the tracer's whole run, start to exit; 0 untraced */
};

struct ovh_in {
	const char *job;		/* the command, shell-quoted */
	const char *analysis;		/* the analysis and its options, space-separated */
	const char *backend;		/* the backend the traced runs used ("ring"), NULL
					 * when the tracer did not say */
	/* [pairs]: pair i ran untraced, then traced */
	const struct ovh_run *untraced, *traced;
	unsigned pairs;			/* pairs measured (the warm-ups not counted) */
	unsigned asked;			/* pairs asked for (-n) */
	const char *stopped;		/* the signal that stopped it ("SIGINT"), or NULL */
	const char *keep;		/* --keep DIR, or NULL */
};

enum ovh_verdict {
	OVH_ADMISSIBLE,
	OVH_AFFECTED,		/* not admissible: the trace slowed the job down */
	OVH_INCONCLUSIVE,	/* the noise is too large, or the pairs disagree */
	OVH_TOO_FEW,		/* fewer than OVH_MIN_PAIRS pairs */
	/* inconclusive too: */
	OVH_LOW_COVER,		/* slower in every pair, but too few pairs for a band of
				 * OVH_COVER (an effect of chance, 1 in 4 with 3 pairs) */
	OVH_SPED_UP,		/* faster beyond the noise: the host's noise, not the trace */
};

/* The effect's band from the pairs' ratios r = traced / untraced - 1. */
struct ovh_band {
	double lo, hi;		/* r_(k) and r_(n+1-k), the order statistics */
	unsigned k;		/* 1: the lowest and highest pair */
	double cover;		/* the chance that [lo, hi] holds the pairs' median ratio */
};

struct ovh_stats {
	double untraced_s, traced_s;		/* medians of the job's wall times */
	double untraced_cpu_s, traced_cpu_s;	/* ... of its CPU times */
	double tracer_cpu_s, tracer_wall_s;	/* ... of the tracer's own CPU, its whole run */
	/*
	 * the run-to-run spread of both kinds of run: OVH_MAD_SCALE x the
	 * median of every run's distance from its kind's median, over that
	 * median (2n runs: steadier than the n untraced alone)
	 */
	double noise;
	double noise_untraced, noise_traced;	/* ... of each kind alone */
	double effect;		/* traced_s / untraced_s - 1 */
	double cpu_effect;	/* traced_cpu_s / untraced_cpu_s - 1; 0 without CPU time */
	struct ovh_band band;
	double tolerance;	/* the larger of the noise and OVH_FLOOR */
	enum ovh_verdict verdict;
};

/* What the verdict says, in words. */
struct ovh_words {
	const char *name;	/* "admissible", "not admissible", "inconclusive" */
	char why[512];
	char next[1200];
};

/* The median of v[0..n), n >= 1 (the mean of the middle two when n is even); @scratch holds n. */
double ovh_median(const double *v, unsigned n, double *scratch);
/*
 * The robust relative spread of v[0..n): OVH_MAD_SCALE x the median
 * absolute deviation from the median, over the median; 0 when n < 2 or
 * the median is not positive. @scratch holds 2n.
 */
double ovh_noise(const double *v, unsigned n, double *scratch);
/*
 * The chance that [r_(k), r_(n+1-k)] of n independent pair ratios holds
 * their distribution's median: 1 - 2 P(Bin(n, 1/2) < k). 0 when k > (n+1)/2.
 */
double ovh_cover(unsigned n, unsigned k);
/* The band of n pair ratios (sorted into @scratch, which holds n); n = 0: all 0. */
void ovh_band(const double *ratios, unsigned n, double *scratch, struct ovh_band *b);
/*
 * The spread of two kinds of runs together (@a and @b, @n each), each run
 * against its own kind's median: as ovh_noise() over the 2n distances.
 * @scratch holds 4n.
 */
double ovh_noise2(const double *a, const double *b, unsigned n, double *scratch);
/* The verdict from the numbers: see offcpu-ftrace-overhead(8), VERDICT. */
enum ovh_verdict ovh_verdict(double effect, double noise, const struct ovh_band *b,
			     unsigned pairs);
/* the fewest pairs whose band covers OVH_COVER (5) */
unsigned ovh_pairs_for_cover(void);
/* "admissible", "not_admissible", "inconclusive": the verdict as JSON names it */
const char *ovh_verdict_json(enum ovh_verdict v);
/* Everything from the runs. 0, or -ENOMEM. */
int ovh_stats(const struct ovh_in *in, struct ovh_stats *st);
/* The verdict's words and what to try next, for @in's analysis and job. */
void ovh_explain(const struct ovh_in *in, const struct ovh_stats *st, struct ovh_words *w);
void ovh_print_text(FILE *f, const struct ovh_in *in, const struct ovh_stats *st);
void ovh_print_json(FILE *f, const struct ovh_in *in, const struct ovh_stats *st);

#endif
