// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pictures on synthetic data: a flame graph's frames never wider than
 * their parent, children adding up to at most it, the root as wide as the
 * graph; narrow frames merged; names escaped; charts and heat maps drawn
 * from histograms with every count in a cell.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "svg.h"

#define CAPTURE(buf, call)                                      \
	do {                                                    \
		size_t _len;                                    \
		FILE *f = open_memstream(&(buf), &_len);        \
		ck_assert_ptr_nonnull(f);                       \
		call;                                           \
		fclose(f);                                      \
	} while (0)

/* frame 0x1000 is __schedule; 0x1000+n is "kN"; 0x1666 a C++ name to escape */
static int kname(void *arg, uint64_t a, char *buf, size_t len)
{
	(void)arg;
	if (a == 0x1000)
		snprintf(buf, len, "__schedule");
	else if (a == 0x1666)
		snprintf(buf, len, "std::vector<int, A&B>::\"at\"'s");
	else
		snprintf(buf, len, "k%u", (unsigned)(a - 0x1000));
	return 0;
}

static int uname_(void *arg, int32_t tgid, uint64_t a, char *buf, size_t len)
{
	(void)arg;
	(void)tgid;
	snprintf(buf, len, "u%u", (unsigned)(a - 0x2000));
	return 0;
}

static const struct symbolizer sym = { kname, uname_, NULL, NULL };

struct frame {
	double x, w;
	unsigned y;
	unsigned long long v;
	char name[160];
};

/* every <g class="f" ...> of @svg */
static unsigned frames(const char *svg, struct frame *out, unsigned max)
{
	const char *p = svg;
	unsigned n = 0;

	while ((p = strstr(p, "<g class=\"f\" data-n=\"")) && n < max) {
		const char *q = p + 21, *e = strchr(q, '"');

		ck_assert_ptr_nonnull(e);
		ck_assert_uint_lt((size_t)(e - q), sizeof(out[n].name));
		memcpy(out[n].name, q, (size_t)(e - q));
		out[n].name[e - q] = '\0';
		ck_assert_int_eq(sscanf(e, "\" data-v=\"%llu\" data-x=\"%lf\" data-w=\"%lf\" data-y=\"%u\"",
					&out[n].v, &out[n].x, &out[n].w, &out[n].y), 4);
		n++;
		p = e;
	}
	return n;
}

static struct report base_report(struct stack_report *sr, struct an_counts *c)
{
	struct report r;

	memset(&r, 0, sizeof(r));
	memset(c, 0, sizeof(*c));
	r.command = "offcpu";
	r.backend = "ring";
	r.clock = "mono";
	r.unit = "usecs";
	r.unit_ns = 1000;
	r.duration_s = 10;
	r.counts = c;
	r.stacks = sr;
	return r;
}

START_TEST(test_flame_geometry)
{
	struct stacktab k, u;
	struct stackagg a;
	struct stack_report sr;
	struct an_counts c;
	struct report r;
	static struct frame fr[4096];
	uint64_t s1[] = { 0x1000, 0x1001, 0x1002 }, s2[] = { 0x1000, 0x1001, 0x1003 };
	uint64_t s3[] = { 0x1000, 0x1666 }, tiny[3];
	unsigned n, i, j, root = 0, merged = 0;
	char *out;

	ck_assert_int_eq(stacktab_init(&k, 8192), 0);
	ck_assert_int_eq(stacktab_init(&u, 16), 0);
	ck_assert_int_eq(stackagg_init(&a, 8192), 0);
	stackagg_add(&a, 7, 7, "big", stacktab_intern(&k, s1, 3), 0, 600000000);
	stackagg_add(&a, 8, 8, "big", stacktab_intern(&k, s2, 3), 0, 300000000);
	stackagg_add(&a, 9, 9, "a<b&\"c\"", stacktab_intern(&k, s3, 2), 0, 99000000);
	/* 2000 distinct stacks of 500 ns each: far narrower than a pixel */
	for (i = 0; i < 2000; i++) {
		tiny[0] = 0x1000;
		tiny[1] = 0x1100 + i;
		tiny[2] = 0x1001;
		stackagg_add(&a, 10, 10, "tiny", stacktab_intern(&k, tiny, 3), 0, 500);
	}
	memset(&sr, 0, sizeof(sr));
	sr.agg = &a;
	sr.kstacks = &k;
	sr.ustacks = &u;
	sr.kstack = true;
	sr.depth = STACK_MAX_DEPTH;
	sr.key = KEY_TID;
	sr.unit_ns = 1000;
	sr.sym = &sym;
	r = base_report(&sr, &c);
	CAPTURE(out, svg_flame(f, &r));
	ck_assert(strstr(out, "<?xml version=\"1.0\""));
	ck_assert(!strstr(out, "http://") || strstr(out, "xmlns=\"http://www.w3.org/2000/svg\""));
	ck_assert(!strstr(out, "href"));
	n = frames(out, fr, 4096);
	ck_assert_uint_gt(n, 5);
	ck_assert_uint_lt(n, 200);	/* the 2000 narrow stacks are not drawn one by one */
	for (i = 0; i < n; i++) {
		double kids = 0;

		if (!strcmp(fr[i].name, "all")) {
			root = i;
			ck_assert_double_eq_tol(fr[i].w, 1180, 0.01);
		}
		if (strstr(fr[i].name, "narrow frames merged"))
			merged++;
		/* a frame lies within one frame a row below (its parent) */
		if (strcmp(fr[i].name, "all")) {
			unsigned parents = 0;

			for (j = 0; j < n; j++)
				if (fr[j].y == fr[i].y + 16 && fr[j].x <= fr[i].x + 1e-6 &&
				    fr[j].x + fr[j].w >= fr[i].x + fr[i].w - 1e-6 &&
				    fr[j].v >= fr[i].v)
					parents++;
			ck_assert_msg(parents == 1, "%s has %u parents", fr[i].name, parents);
		}
		/* and its children add up to at most its width */
		for (j = 0; j < n; j++)
			if (fr[j].y + 16 == fr[i].y && fr[j].x >= fr[i].x - 1e-6 &&
			    fr[j].x + fr[j].w <= fr[i].x + fr[i].w + 1e-6)
				kids += fr[j].w;
		ck_assert_msg(kids <= fr[i].w + 1e-3, "%s: children %.3f > %.3f", fr[i].name, kids,
			      fr[i].w);
	}
	ck_assert_uint_eq(fr[root].v, 999000000ULL + 2000 * 500);
	ck_assert_uint_ge(merged, 1);
	/* names escaped in attributes and text */
	ck_assert(strstr(out, "data-n=\"a&lt;b&amp;&quot;c&quot;\""));
	ck_assert(strstr(out, "std::vector&lt;int, A&amp;B&gt;::&quot;at&quot;&#39;s"));
	ck_assert(!strstr(out, "A&B"));
	/* the interactive parts are in the page */
	ck_assert(strstr(out, "function z(g)") && strstr(out, "function search(term)"));
	ck_assert(strstr(out, "<title>big ("));
	free(out);
	stacktab_fini(&k);
	stacktab_fini(&u);
	stackagg_fini(&a);
}
END_TEST

START_TEST(test_chart_and_heat)
{
	struct groups gs;
	struct group *g;
	struct an_counts c;
	struct report r;
	struct heat *h;
	char *out;
	unsigned i;

	ck_assert_int_eq(groups_init(&gs, 16), 0);
	g = groups_get(&gs, 42);
	strcpy(g->comm, "ma<ke");
	for (i = 0; i < 100; i++)
		hist_add(&g->h, 3000 + i * 1000, 1000);	/* 3..102 us */
	r = base_report(NULL, &c);
	r.command = "runq";
	r.stacks = NULL;
	r.key = KEY_PID;
	r.groups = &gs;
	CAPTURE(out, svg_charts(f, &r));
	ck_assert(strstr(out, "pid 42 ma&lt;ke: 100 intervals"));
	ck_assert(strstr(out, ">p50</text>") && strstr(out, ">p99</text>"));
	ck_assert(strstr(out, "<title>64-127 usecs: 39</title>"));
	free(out);
	h = heat_new();
	ck_assert_ptr_nonnull(h);
	for (i = 0; i < 3; i++) {
		r.wall = 1700000000 + i;
		ck_assert_int_eq(heat_add(h, &r), 0);
	}
	r.final = true;
	CAPTURE(out, svg_heatmap(f, h, &r));
	ck_assert(strstr(out, "over 3 intervals"));
	/* one cell per interval and bucket, for all threads and for pid 42 */
	ck_assert(strstr(out, "usecs: 39</title>"));
	{
		unsigned cells = 0;
		const char *p = out;

		while ((p = strstr(p, "<rect x=") ) && (p = strstr(p, "<title>"))) {
			cells++;
			p++;
		}
		ck_assert_uint_eq(cells, 2 * 3 * 6);	/* 2 panels x 3 intervals x 6 buckets */
	}
	free(out);
	heat_free(h);
	groups_fini(&gs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("svg");
	TCase *tc = tcase_create("svg");

	tcase_add_test(tc, test_flame_geometry);
	tcase_add_test(tc, test_chart_and_heat);
	suite_add_tcase(s, tc);
	return check_run(s);
}
