/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One latency histogram read back from any of the texts the peers print
 * (bpftrace hist(), BCC print_log2_hist(), the kernel's hist file, our
 * JSON), normalized for cross-validation: inclusive [low, high] buckets in
 * one unit. Buckets keep the source's own edges: the kernel's .log2 is a
 * ceiling (~ 2^2 holds 3 and 4) and cannot be mapped onto floor buckets,
 * so comparisons must work on ranges. Pure: no I/O, no printing.
 */
#ifndef OFFCPU_PEERHIST_H
#define OFFCPU_PEERHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct khist;

#define PEERHIST_MAX_INPUT	(64u << 20)	/* bytes */
#define PEERHIST_MAX_LABEL	1024		/* bytes of a group label */
#define PEERHIST_JSON_DEPTH	64

enum peerhist_format {
	PEERHIST_UNKNOWN = 0,	/* in opts: detect */
	PEERHIST_BPFTRACE,	/* "@usecs:" and "[2, 4)   3 |@@  |" rows */
	PEERHIST_BCC,		/* "usecs : count distribution" and rows */
	PEERHIST_KERNEL,	/* a hist trigger's hist file */
	PEERHIST_JSON,		/* offcpu-ftrace --format=json */
};

struct peerhist_bucket {
	uint64_t low, high;	/* inclusive, in the histogram's unit */
	uint64_t count;
};

struct peerhist_group {
	char *map;		/* bpftrace map name without '@'; "" otherwise */
	/*
	 * "" for a lone histogram; "pid = 123 bash" (BCC sections, JSON
	 * groups, kernel keys other than the latency), "@usecs[123]"
	 * (keyed bpftrace maps), stack frames joined by ';'.
	 */
	char *label;
	struct peerhist_bucket *b;	/* ascending, disjoint */
	size_t nb;
	uint64_t negative;	/* bpftrace's "(..., 0)" row */
	uint64_t total;		/* all counts, negative included (saturating) */
};

struct peerhist {
	enum peerhist_format format;
	/* "ns", "us", "ms", or the name as given ("bytid"); "" unknown */
	char *unit;
	uint64_t unit_ns;	/* 1, 1000, 1000000; 0 when unknown */
	struct peerhist_group *g;
	size_t ng;		/* in input order (kernel: sorted by label) */
	size_t nmaps;		/* distinct bpftrace maps kept; else 1 */
	/*
	 * The source says it is incomplete: kernel Totals missing or
	 * Dropped > 0, JSON "partial": true.
	 */
	bool partial;
};

struct peerhist_opts {
	enum peerhist_format format;	/* PEERHIST_UNKNOWN: detect */
	const char *map;	/* bpftrace: keep only this map ("usecs" or
				 * "@usecs"); NULL keeps all */
	/*
	 * kernel: name of the latency key; NULL takes the first .log2 or
	 * .buckets key, else a key named lat, latency, delta or delay.
	 */
	const char *key;
	const char *unit;	/* overrides the unit found in the text */
	unsigned json_index;	/* JSON: which top-level value, 0 = first */
};

const char *peerhist_format_name(enum peerhist_format f);
/* Guess the format of @text; PEERHIST_UNKNOWN when nothing fits. */
enum peerhist_format peerhist_detect(const char *text, size_t len);

/*
 * Parse @len bytes of @text (need not be NUL-terminated); @opts may be
 * NULL. On success *@out is newly allocated, free with peerhist_free().
 * Returns 0, -EINVAL with "line N: what was expected" in @err (when
 * @errlen > 0), or -ENOMEM.
 */
int peerhist_parse(const char *text, size_t len,
		    const struct peerhist_opts *opts, struct peerhist **out,
		    char *err, size_t errlen);
/*
 * The same from an already parsed hist file (its first histogram with a
 * latency key); only opts->key and opts->unit are used.
 */
int peerhist_from_khist(const struct khist *hf,
			    const struct peerhist_opts *opts,
			    struct peerhist **out, char *err, size_t errlen);

/*
 * All groups of @h (of bpftrace map @map only, when not NULL) summed into
 * one: *@out is newly allocated with one group labelled "", free with
 * peerhist_free(). -EINVAL when @h holds several maps and @map is NULL,
 * when @map is not there, or when two buckets overlap without being equal.
 */
int peerhist_merge(const struct peerhist *h, const char *map,
		    struct peerhist **out, char *err, size_t errlen);

/* "ns", "us", "ms" for the usual names (usecs, @usecs, msecs...), else NULL. */
const char *peerhist_unit_name(const char *name);

void peerhist_free(struct peerhist *h);

#endif
