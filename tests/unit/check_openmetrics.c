// SPDX-License-Identifier: GPL-2.0-or-later
/* OpenMetrics: every file of a metric has the same buckets, whatever the data. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "openmetrics.h"

/* the le="..." values of @text's buckets, in order, as one string */
static char *bounds(const char *text)
{
	size_t cap = strlen(text) + 1, n = 0;
	char *out = calloc(1, cap);
	const char *p;

	ck_assert_ptr_nonnull(out);
	for (p = text; (p = strstr(p, "le=\"")); p += 4) {
		const char *e = strchr(p + 4, '"');

		memcpy(out + n, p + 4, (size_t)(e - p - 4));
		n += (size_t)(e - p - 4);
		out[n++] = ' ';
	}
	return out;
}

static char *series(enum om_family fam, const struct hist *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	om_series(f, fam, "command=\"runq\"", h);
	fclose(f);
	return buf;
}

START_TEST(test_fixed_bounds)
{
	struct hist idle, busy, empty;
	char *a, *b, *c, *ba, *bb, *bc;

	hist_reset(&idle);
	hist_reset(&busy);
	hist_reset(&empty);
	hist_add(&idle, 3000, 1000);		/* 3 us */
	hist_add(&busy, 15000000, 1000);	/* 15 ms */
	hist_add(&busy, 40000000000ULL, 1000);	/* 40 s: beyond the last bound */
	a = series(OM_RUNQ, &idle);
	b = series(OM_RUNQ, &busy);
	c = series(OM_RUNQ, &empty);
	ba = bounds(a);
	bb = bounds(b);
	bc = bounds(c);
	/* the same le set: 1 us .. 2^24 us, then +Inf last */
	ck_assert_str_eq(ba, bb);
	ck_assert_str_eq(ba, bc);
	ck_assert(strstr(ba, "1e-06 2e-06 4e-06 "));
	ck_assert(strstr(ba, " 16.777216 +Inf "));
	ck_assert_uint_eq(om_max_exponent(OM_RUNQ), 24);
	/* cumulative, the 40 s wait only in +Inf; count and sum agree */
	ck_assert(strstr(a, "_bucket{command=\"runq\",le=\"4e-06\"} 1\n"));
	ck_assert(strstr(a, "_bucket{command=\"runq\",le=\"2e-06\"} 0\n"));
	ck_assert(strstr(b, "le=\"0.016384\"} 1\n"));
	ck_assert(strstr(b, "le=\"16.777216\"} 1\n"));
	ck_assert(strstr(b, "le=\"+Inf\"} 2\n"));
	ck_assert(strstr(b, "_count{command=\"runq\"} 2\n"));
	ck_assert(strstr(b, "_sum{command=\"runq\"} 40.015000000\n"));
	/* off-CPU time reaches further: 2^32 us, about 71.6 minutes */
	free(a);
	a = series(OM_OFFCPU, &busy);
	ck_assert_msg(strstr(a, "le=\"4294.967296\"} 2\n"), "%s", a);
	free(a);
	free(b);
	free(c);
	free(ba);
	free(bb);
	free(bc);
}
END_TEST

START_TEST(test_sampled_and_status)
{
	struct om_status st = { .command = "runq", .backend = "proc", .window_s = 10,
				.end = 1700000000, .partial = true, .sampled = true,
				.sample_hz = 20 };
	struct hist h;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	hist_reset(&h);
	hist_add_total(&h, 5, 5000000, 1000);
	om_family_head(f, om_sampled(OM_RUNQ));
	om_series(f, om_sampled(OM_RUNQ), "command=\"runq\"", &h);
	om_status_print(f, &st);
	fclose(f);
	/* a summary: no buckets to mislead a quantile */
	ck_assert(strstr(buf, "# TYPE offcpu_ftrace_sampled_runq_latency_seconds summary\n"));
	ck_assert(!strstr(buf, "_bucket"));
	ck_assert(strstr(buf, "offcpu_ftrace_sampled_runq_latency_seconds_count{command=\"runq\"} 5\n"));
	ck_assert(strstr(buf, "offcpu_ftrace_partial{command=\"runq\"} 1\n"));
	ck_assert(strstr(buf, "offcpu_ftrace_sampled{command=\"runq\"} 1\n"));
	ck_assert(strstr(buf, "offcpu_ftrace_sample_rate_hertz{command=\"runq\"} 20\n"));
	ck_assert(strstr(buf, "offcpu_ftrace_window_seconds{command=\"runq\",backend=\"proc\"} 10.000000\n"));
	ck_assert(strstr(buf, "offcpu_ftrace_window_end_timestamp_seconds{command=\"runq\"} 1700000000\n"));
	ck_assert(strstr(buf, "offcpu_ftrace_lost_events{command=\"runq\"} 0\n"));
	ck_assert_str_eq(buf + strlen(buf) - 6, "# EOF\n");
	free(buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("openmetrics");
	TCase *tc = tcase_create("openmetrics");

	tcase_add_test(tc, test_fixed_bounds);
	tcase_add_test(tc, test_sampled_and_status);
	suite_add_tcase(s, tc);
	return check_run(s);
}
