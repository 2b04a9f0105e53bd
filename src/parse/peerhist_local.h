/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files behind peerhist.h share (not for its callers): the
 * state one reader fills and the building of a struct peerhist
 * (histbuild.c). The readers: peerhist.c (bpftrace and BCC text, and the
 * entry point), khistpeer.c (a kernel hist file), ourjson.c (our JSON);
 * histmerge.c sums a result's groups.
 */
#ifndef OFFCPU_PEERHIST_LOCAL_H
#define OFFCPU_PEERHIST_LOCAL_H

#include <stdint.h>

#include "linescan.h"
#include "peerhist.h"

/* One reading of a text into h. */
struct ph_parser {
	struct reader r;	/* r.line: the line bucket errors name */
	struct peerhist *h;	/* being filled; the caller's to free */
	size_t cap_g, cap_b;	/* of h->g, of the last group's buckets */
	char *err;
	size_t errlen;
};

/* "line N: <fmt>" into ps->err; returns -EINVAL. */
int ph_fail(struct ph_parser *ps, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Newly allocated copy of @s, or NULL; caller frees. */
char *ph_str_dup(const char *s);

static inline uint64_t ph_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* h->unit and h->unit_ns from a unit or map name ("usecs", "@ms", "bytid"). */
int ph_unit_set(struct peerhist *h, const char *name);
/* Append a group to ps->h; @map and @label are copied. */
int ph_group_add(struct ph_parser *ps, const char *map, const char *label);
/* Free what @g holds (not @g). */
void ph_group_fini(struct peerhist_group *g);
/* Append a bucket to the last group; rows must ascend without overlap. */
int ph_bucket_add(struct ph_parser *ps, uint64_t low, uint64_t high,
		  uint64_t count);

/* The end of a reading: ps->h is *@out when @ret is 0, else freed; returns @ret. */
int ph_finish(struct ph_parser *ps, int ret, struct peerhist **out);

/* ourjson.c: ps->h from our --format=json text (value o->json_index). */
int ph_parse_json(struct ph_parser *ps, const char *text, size_t len,
		  const struct peerhist_opts *o);

#endif
