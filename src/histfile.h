/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parser for the text of a kernel hist trigger's `hist` file
 * (kernel/trace/trace_events_hist.c, hist_show()). Pure: text in, a tree
 * out; no I/O and no printing. One file can hold several histograms, one
 * per hist trigger on the event.
 */
#ifndef OFFCPU_HISTFILE_H
#define OFFCPU_HISTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds: the kernel's are smaller (3 keys, 16 frames). */
#define HISTFILE_MAX_INPUT	(64u << 20)	/* bytes */
#define HISTFILE_MAX_KEYS	8
#define HISTFILE_MAX_VALS	32
#define HISTFILE_MAX_FRAMES	64
#define HISTFILE_MAX_NAME	128

enum histfile_key_kind {
	HISTFILE_KEY_NUMBER,	/* "pid:       1234" (or .hex "ffff"); value */
	HISTFILE_KEY_LOG2,	/* "lat: ~ 2^4"; value = 4, [low, high] held */
	HISTFILE_KEY_BUCKETS,	/* "lat: ~ 100-199"; [low, high] */
	HISTFILE_KEY_STACK,	/* "common_stacktrace:" + frames */
	HISTFILE_KEY_COMM,	/* .execname "bash [  1234]": value = pid, str */
	HISTFILE_KEY_SYM,	/* .sym "[ffffffff8100] func": value = addr, str */
	HISTFILE_KEY_SYSCALL,	/* .syscall "sys_read [  0]": value = nr, str */
	HISTFILE_KEY_STRING,	/* anything else: str, padding removed */
};

struct histfile_key {
	char *name;		/* as printed: "lat", "common_stacktrace",
				 * "stack.stacktrace" */
	enum histfile_key_kind kind;
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

struct histfile_val {
	char *name;		/* "hitcount", "delta"; percent: "hitcount (%)" */
	uint64_t value;		/* percent values in hundredths (12.34 -> 1234) */
};

struct histfile_entry {
	struct histfile_key *keys;
	size_t nkeys;
	struct histfile_val *vals;	/* in printed order: hitcount first
					 * unless the trigger has nohitcount */
	size_t nvals;
	unsigned line;			/* 1-based line of its '{' */
};

struct histfile_hist {
	char *trigger;		/* text after "# trigger info: " ("hist:keys=...
				 * [active]"); NULL when the header is missing */
	struct histfile_entry *entries;
	size_t nentries;
	bool truncated;		/* no complete Totals block: totals are 0 */
	uint64_t hits, entries_total, dropped;	/* the Totals block */
	unsigned line;		/* 1-based line where it starts */
};

struct histfile {
	struct histfile_hist *hists;
	size_t nhists;		/* 0 for an empty file */
};

/*
 * Parse @len bytes of @text (need not be NUL-terminated). On success
 * *@out is a newly allocated tree, free with histfile_free(). Returns 0,
 * -EINVAL with "line N: what is wrong" in @err (when @errlen > 0), or
 * -ENOMEM.
 */
int histfile_parse(const char *text, size_t len, struct histfile **out,
		   char *err, size_t errlen);
void histfile_free(struct histfile *hf);

/* The key printed as @name in @e, or NULL. */
const struct histfile_key *histfile_entry_key(const struct histfile_entry *e,
					      const char *name);
/* Value @name ("hitcount") of @e: 0 or -ENOENT. */
int histfile_entry_val(const struct histfile_entry *e, const char *name,
		       uint64_t *value);
/* Sum of value @name over the entries of @h (saturating). */
uint64_t histfile_hist_sum(const struct histfile_hist *h, const char *name);

const char *histfile_key_kind_name(enum histfile_key_kind k);

#endif
