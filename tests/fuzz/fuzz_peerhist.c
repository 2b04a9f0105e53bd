// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: peerhist_detect(), peerhist_parse() (detected and each
 * explicit format) and peerhist_merge() on arbitrary text.
 *
 * The input is the text itself, not NUL-terminated (the parser takes a
 * length). For the detected format, a parse that succeeds is repeated
 * with the options its result suggests (bpftrace: the last map by name,
 * with and without '@', and a unit; BCC: a unit; kernel: a key name and
 * a unit; JSON: the second value) and merged, whole and per map.
 *
 * Invariants checked (abort): results are 0, -EINVAL (with a "line N: "
 * message, or "it is empty" for blank text) or -ENOMEM; a detected
 * UNKNOWN never parses; every group's
 * buckets ascend without overlap, low <= high, and total is the
 * saturating sum of counts and the negative row; a merge holds one group.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peerhist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

/* Only spaces, tabs and line ends (or nothing). */
static int blank(const char *text, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!text[i] || !strchr(" \t\r\n", text[i]))
			return 0;
	return 1;
}

static void die(const char *what)
{
	fprintf(stderr, "fuzz_peerhist: %s\n", what);
	abort();
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static void check_result(const struct peerhist *h, bool merged)
{
	size_t i, j;

	if (!h->unit)
		die("unit NULL");
	sink += strlen(h->unit);
	if (peerhist_unit_name(h->unit))
		sink++;
	if (h->unit_ns != 0 && h->unit_ns != 1 && h->unit_ns != 1000 &&
	    h->unit_ns != 1000000)
		die("unit_ns out of range");
	if (h->ng && !h->g)
		die("groups NULL");
	if (merged && (h->ng != 1 || strcmp(h->g[0].label, "")))
		die("merge did not give one unlabelled group");
	for (i = 0; i < h->ng; i++) {
		const struct peerhist_group *g = &h->g[i];
		uint64_t total = g->negative;

		if (!g->map || !g->label)
			die("group map or label NULL");
		if (strlen(g->label) >= PEERHIST_MAX_LABEL)
			die("label longer than PEERHIST_MAX_LABEL");
		if (g->nb && !g->b)
			die("buckets NULL");
		for (j = 0; j < g->nb; j++) {
			if (g->b[j].low > g->b[j].high)
				die("bucket low > high");
			if (j && g->b[j].low <= g->b[j - 1].high)
				die("buckets overlap or descend");
			total = sat_add(total, g->b[j].count);
		}
		if (total != g->total)
			die("group total is not the sum of its counts");
	}
}

static void try_merge(const struct peerhist *h, const char *map)
{
	struct peerhist *m = NULL;
	char err[256];
	int ret;

	ret = peerhist_merge(h, map, &m, err, sizeof(err));
	if (ret == 0) {
		check_result(m, true);
		peerhist_free(m);
	} else if (ret == -EINVAL) {
		if (m || strncmp(err, "line ", 5))
			die("merge: -EINVAL without a message");
	} else if (ret != -ENOMEM) {
		die("merge: unexpected result");
	}
}

/* Parse with @o; 0 and the result in *@out (when not NULL), or the error. */
static int try_parse(const char *text, size_t len, const struct peerhist_opts *o,
		     struct peerhist **out)
{
	struct peerhist *h = NULL;
	char err[256];
	int ret;

	memset(err, 'x', sizeof(err));
	ret = peerhist_parse(text, len, o, &h, err, sizeof(err));
	if (!memchr(err, '\0', sizeof(err)))
		die("error message not terminated");
	if (ret == 0) {
		if (!h || err[0])
			die("success without a result, or with a message");
		if (o->format && h->format != o->format)
			die("result format differs from the one asked for");
		check_result(h, false);
		try_merge(h, NULL);
	} else if (ret == -EINVAL) {
		/* blank text has no line to name: it says it is empty */
		if (h || (strncmp(err, "line ", 5) &&
			  !(blank(text, len) && strstr(err, "it is empty"))))
			die("-EINVAL without a 'line N:' message (or 'it is empty' for blank text)");
	} else if (ret != -ENOMEM) {
		die("unexpected result");
	}
	if (out)
		*out = h;
	else
		peerhist_free(h);
	return ret;
}

/* Parses suggested by a successful parse @h of the detected format. */
static void variations(const char *text, size_t len, const struct peerhist *h)
{
	struct peerhist_opts o;
	char at[300];

	memset(&o, 0, sizeof(o));
	o.format = h->format;
	switch (h->format) {
	case PEERHIST_BPFTRACE:
		if (!h->ng)
			break;
		o.map = h->g[h->ng - 1].map;
		if (try_parse(text, len, &o, NULL))
			die("bpftrace: the map just read is not found again");
		snprintf(at, sizeof(at), "@%s", o.map);
		o.map = at;
		o.unit = "nsecs";
		if (try_parse(text, len, &o, NULL))
			die("bpftrace: '@map' is not found again");
		try_merge(h, h->g[0].map);
		try_merge(h, at);
		try_merge(h, "no such map");
		break;
	case PEERHIST_KERNEL:
		o.key = "lat";
		o.unit = "ms";
		try_parse(text, len, &o, NULL);
		break;
	case PEERHIST_BCC:
		o.unit = "weird unit";
		if (try_parse(text, len, &o, NULL))
			die("bcc: a unit override made it fail");
		break;
	case PEERHIST_JSON:
		o.json_index = 1;
		o.unit = "usecs";
		try_parse(text, len, &o, NULL);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum peerhist_format fmts[] = {
		PEERHIST_UNKNOWN, PEERHIST_BPFTRACE, PEERHIST_BCC,
		PEERHIST_KERNEL, PEERHIST_JSON,
	};
	const char *text = (const char *)data;
	enum peerhist_format det;
	struct peerhist_opts o;
	struct peerhist *h;
	unsigned i;
	int ret;

	det = peerhist_detect(text, size);
	if (det > PEERHIST_JSON)
		die("peerhist_detect: out of range");
	sink += strlen(peerhist_format_name(det));
	memset(&o, 0, sizeof(o));
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		o.format = fmts[i];
		h = NULL;
		ret = try_parse(text, size, &o, &h);
		if (o.format == PEERHIST_UNKNOWN) {
			if (!ret && det == PEERHIST_UNKNOWN)
				die("parsed what detect called unknown");
			if (!ret && h->format != det)
				die("parsed as another format than detected");
			if (!ret)
				variations(text, size, h);
		}
		peerhist_free(h);
	}
	peerhist_free(NULL);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "standalone.h"
#endif
