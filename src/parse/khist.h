/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parser for the text of a kernel hist trigger's `hist` file
 * (kernel/trace/trace_events_hist.c, hist_show()). Pure: text in, a tree
 * out; no I/O and no printing. One file can hold several histograms, one
 * per hist trigger on the event.
 */
#ifndef OFFCPU_KHIST_H
#define OFFCPU_KHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds: the kernel's are smaller (3 keys, 16 frames). */
#define KHIST_MAX_INPUT	(64u << 20)	/* bytes */
#define KHIST_MAX_KEYS	8
#define KHIST_MAX_VALS	32
#define KHIST_MAX_FRAMES	64
#define KHIST_MAX_NAME	128

enum khist_key_kind {
	KHIST_KEY_NUMBER,	/* "pid:       1234" (or .hex "ffff"); value */
	KHIST_KEY_LOG2,	/* "lat: ~ 2^4"; value = 4, [low, high] held */
	KHIST_KEY_BUCKETS,	/* "lat: ~ 100-199"; [low, high] */
	KHIST_KEY_STACK,	/* "common_stacktrace:" + frames */
	KHIST_KEY_COMM,	/* .execname "bash [  1234]": value = pid, str */
	KHIST_KEY_SYM,	/* .sym "[ffffffff8100] func": value = addr, str */
	KHIST_KEY_SYSCALL,	/* .syscall "sys_read [  0]": value = nr, str */
	KHIST_KEY_STRING,	/* anything else: str, padding removed */
};

struct khist_key {
	char *name;		/* as printed: "lat", "common_stacktrace",
				 * "stack.stacktrace" */
	enum khist_key_kind kind;
	uint64_t value;		/* see the kinds; 0 for STACK and STRING */
	/*
	 * Inclusive range of the latency values this key stands for: value
	 * itself for NUMBER; for LOG2 the values the kernel's ceiling puts
	 * there (ilog2(roundup_pow_of_two(v)) == N: 2^(N-1)+1 .. 2^N, with
	 * 0 and 1 in 2^0); the printed range for BUCKETS.
	 */
	uint64_t low, high;
	char *str;		/* COMM, SYM, SYSCALL, STRING; else NULL */
	char **frames;		/* STACK: innermost first */
	size_t nframes;
};

struct khist_val {
	char *name;		/* "hitcount", "delta"; percent: "hitcount (%)" */
	uint64_t value;		/* percent values in hundredths (12.34 -> 1234) */
};

struct khist_entry {
	struct khist_key *keys;
	size_t nkeys;
	struct khist_val *vals;	/* in printed order: hitcount first
					 * unless the trigger has nohitcount */
	size_t nvals;
	unsigned line;			/* 1-based line of its '{' */
};

struct khist_hist {
	char *trigger;		/* text after "# trigger info: " ("hist:keys=...
				 * [active]"); NULL when the header is missing */
	struct khist_entry *entries;
	size_t nentries;
	bool truncated;		/* no complete Totals block: totals are 0 */
	uint64_t hits, entries_total, dropped;	/* the Totals block */
	unsigned line;		/* 1-based line where it starts */
};

struct khist {
	struct khist_hist *hists;
	size_t nhists;		/* 0 for an empty file */
};

/*
 * Parse @len bytes of @text (need not be NUL-terminated). On success
 * *@out is a newly allocated tree, free with khist_free(). Returns 0,
 * -EINVAL with "line N: what is wrong" in @err (when @errlen > 0), or
 * -ENOMEM.
 */
int khist_parse(const char *text, size_t len, struct khist **out,
		   char *err, size_t errlen);
void khist_free(struct khist *hf);

/* The key printed as @name in @e, or NULL. */
const struct khist_key *khist_entry_key(const struct khist_entry *e,
					      const char *name);
/* Value @name ("hitcount") of @e: 0 or -ENOENT. */
int khist_entry_val(const struct khist_entry *e, const char *name,
		       uint64_t *value);
/* Sum of value @name over the entries of @h (saturating). */
uint64_t khist_hist_sum(const struct khist_hist *h, const char *name);

const char *khist_key_kind_name(enum khist_key_kind k);

#endif
