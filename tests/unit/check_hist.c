// SPDX-License-Identifier: GPL-2.0-or-later
/* Bucketing, percentiles and the text layouts, against hand-checked output. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdint.h>

#include "fmt.h"
#include "grow.h"
#include "report.h"
#include "fixture.h"

/* Run a printer into a string; caller frees. */
#define CAPTURE(buf, call)                                      \
	do {                                                    \
		size_t _len;                                    \
		FILE *f = open_memstream(&(buf), &_len);        \
		ck_assert_ptr_nonnull(f);                       \
		call;                                           \
		fclose(f);                                      \
	} while (0)

static void sample(struct hist *h)
{
	/* unit_ns = 1: values are recorded as given */
	static const uint64_t v[] = { 0, 0, 1, 3, 3, 3, 3, 5, 100, 1500, 1500, 1500 };
	unsigned i;

	hist_reset(h);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		hist_add(h, v[i], 1);
}

START_TEST(test_slots)
{
	ck_assert_uint_eq(hist_slot_of(0), 0);
	ck_assert_uint_eq(hist_slot_of(1), 1);
	ck_assert_uint_eq(hist_slot_of(2), 2);
	ck_assert_uint_eq(hist_slot_of(3), 2);
	ck_assert_uint_eq(hist_slot_of(4), 3);
	ck_assert_uint_eq(hist_slot_of(1023), 10);
	ck_assert_uint_eq(hist_slot_of(1024), 11);
	ck_assert_uint_eq(hist_slot_of(UINT64_MAX), 64);
	ck_assert_uint_eq(hist_slot_low(11), 1024);
	ck_assert_uint_eq(hist_slot_high(11), 2047);
	ck_assert_uint_eq(hist_slot_high(64), UINT64_MAX);
	ck_assert_uint_eq(hist_slot_low(0), 0);
	ck_assert_uint_eq(hist_slot_high(0), 0);
}
END_TEST

START_TEST(test_units)
{
	struct hist h;

	hist_reset(&h);
	/* floor division like runqlat's delta / 1000 */
	hist_add(&h, 999, 1000);	/* 0 us */
	hist_add(&h, 1999, 1000);	/* 1 us */
	hist_add(&h, 16000000, 1000000);	/* 16 ms */
	ck_assert_uint_eq(h.slot[0], 1);
	ck_assert_uint_eq(h.slot[1], 1);
	ck_assert_uint_eq(h.slot[5], 1);	/* [16, 32) */
	ck_assert_uint_eq(h.count, 3);
	ck_assert_uint_eq(h.sum_ns, 999 + 1999 + 16000000);
	ck_assert_uint_eq(h.min, 0);
	ck_assert_uint_eq(h.max, 16);
}
END_TEST

START_TEST(test_percentiles)
{
	struct hist h;
	uint64_t v;

	hist_reset(&h);
	ck_assert_uint_eq(hist_percentile(&h, 50), 0);
	for (v = 1; v <= 1000; v++)
		hist_add(&h, v, 1);
	/* within the sketch's 1/8 relative error */
	ck_assert_uint_ge(hist_percentile(&h, 50), 500 - 63);
	ck_assert_uint_le(hist_percentile(&h, 50), 500 + 63);
	ck_assert_uint_ge(hist_percentile(&h, 99), 990 - 124);
	ck_assert_uint_le(hist_percentile(&h, 99), 1000);
	ck_assert_uint_eq(hist_percentile(&h, 100), 1000);
	/* small values are exact */
	hist_reset(&h);
	hist_add(&h, 3, 1);
	hist_add(&h, 3, 1);
	hist_add(&h, 7, 1);
	ck_assert_uint_eq(hist_percentile(&h, 50), 3);
	ck_assert_uint_eq(hist_percentile(&h, 99), 7);
}
END_TEST

START_TEST(test_merge)
{
	struct hist a, b;

	sample(&a);
	sample(&b);
	hist_merge(&a, &b);
	ck_assert_uint_eq(a.count, 24);
	ck_assert_uint_eq(a.slot[2], 8);
	ck_assert_uint_eq(a.max, 1500);
	ck_assert_uint_eq(a.min, 0);
}
END_TEST

static const char bcc_expected[] =
"     usecs               : count     distribution\n"
"         0 -> 1          : 3        |******************************          |\n"
"         2 -> 3          : 4        |****************************************|\n"
"         4 -> 7          : 1        |**********                              |\n"
"         8 -> 15         : 0        |                                        |\n"
"        16 -> 31         : 0        |                                        |\n"
"        32 -> 63         : 0        |                                        |\n"
"        64 -> 127        : 1        |**********                              |\n"
"       128 -> 255        : 0        |                                        |\n"
"       256 -> 511        : 0        |                                        |\n"
"       512 -> 1023       : 0        |                                        |\n"
"      1024 -> 2047       : 3        |******************************          |\n";

static const char bt_expected[] =
"[0]                    2 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
"[1]                    1 |@@@@@@@@@@@@@                                       |\n"
"[2, 4)                 4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
"[4, 8)                 1 |@@@@@@@@@@@@@                                       |\n"
"[8, 16)                0 |                                                    |\n"
"[16, 32)               0 |                                                    |\n"
"[32, 64)               0 |                                                    |\n"
"[64, 128)              1 |@@@@@@@@@@@@@                                       |\n"
"[128, 256)             0 |                                                    |\n"
"[256, 512)             0 |                                                    |\n"
"[512, 1K)              0 |                                                    |\n"
"[1K, 2K)               3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@             |\n";

START_TEST(test_bcc_layout)
{
	struct hist h;
	char *out;

	sample(&h);
	CAPTURE(out, out_hist_bcc(f, &h, "usecs"));
	ck_assert_str_eq(out, bcc_expected);
	free(out);

	/* empty: nothing, like BCC */
	hist_reset(&h);
	CAPTURE(out, out_hist_bcc(f, &h, "usecs"));
	ck_assert_str_eq(out, "");
	free(out);

	/* only zeros: the single "0 -> 1" row */
	hist_add(&h, 0, 1);
	CAPTURE(out, out_hist_bcc(f, &h, "msecs"));
	ck_assert_str_eq(out,
		"     msecs               : count     distribution\n"
		"         0 -> 1          : 1        |****************************************|\n");
	free(out);
}
END_TEST

START_TEST(test_bcc_wide)
{
	struct hist h;
	char *out, *second;

	hist_reset(&h);
	hist_add(&h, 1ULL << 40, 1);
	{
	CAPTURE(out, out_hist_bcc(f, &h, "usecs"));
	/* past BCC index 32 the columns widen and bars halve */
	static const char head[] = "               usecs                         : count     distribution\n";
	static const char row0[] = "                   0 -> 1                    : 0        |                    |\n";

	ck_assert(!strncmp(out, head, strlen(head)));
	second = out + strlen(head);
	ck_assert(!strncmp(second, row0, strlen(row0)));
	}
	free(out);
}
END_TEST

START_TEST(test_bpftrace_layout)
{
	struct hist h;
	char *out;

	sample(&h);
	CAPTURE(out, out_hist_bpftrace(f, &h));
	ck_assert_str_eq(out, bt_expected);
	free(out);

	/* only the span between the lowest and highest non-empty bucket */
	hist_reset(&h);
	hist_add(&h, 2048, 1);
	hist_add(&h, 5 << 20, 1);
	CAPTURE(out, out_hist_bpftrace(f, &h));
	ck_assert(!strncmp(out, "[2K, 4K)               1 |@@@@", 30));
	ck_assert_ptr_nonnull(strstr(out, "\n[4M, 8M)               1 |"));
	ck_assert_ptr_null(strstr(out, "[1K, 2K)"));
	free(out);
}
END_TEST

/*
 * Real bpftrace 0.17 output captured on the development host: rebuilding
 * each @usecs block from its counts must print it byte for byte.
 */
START_TEST(test_bpftrace_real)
{
	char *text = fixture_read(fixture_path("bpftrace-0.17-runq.txt"), NULL), *p;
	unsigned blocks = 0;

	ck_assert_ptr_nonnull(text);
	for (p = strstr(text, "\n@"); p; p = strstr(p, "\n@")) {
		char *start = strchr(p + 1, '\n') + 1, *end = strstr(start, "\n\n"), *line;
		size_t len = (size_t)(end - start) + 1;
		struct hist h;
		char *block = strndup(start, len), *out, *save = NULL;

		hist_reset(&h);
		for (line = strtok_r(block, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			unsigned long long lo = 0, n;
			char suffix = 0;

			if (sscanf(line, "[%llu%c", &lo, &suffix) < 1)
				ck_abort_msg("bad fixture line %s", line);
			if (suffix == 'K')
				lo <<= 10;
			else if (suffix == 'M')
				lo <<= 20;
			ck_assert_int_eq(sscanf(line + 16, "%llu", &n), 1);
			while (n--)
				hist_add(&h, lo, 1);
		}
		free(block);
		CAPTURE(out, out_hist_bpftrace(f, &h));
		ck_assert_int_eq(strncmp(out, start, len), 0);
		ck_assert_uint_eq(strlen(out), len);
		free(out);
		blocks++;
		p = end;
	}
	ck_assert_uint_ge(blocks, 10);
	free(text);
}
END_TEST

START_TEST(test_summary)
{
	struct hist h;
	char *out;

	hist_reset(&h);
	hist_add(&h, 1500, 1000);
	hist_add(&h, 2500, 1000);
	CAPTURE(out, out_hist_summary(f, &h, "usecs", 1000));
	ck_assert_str_eq(out, "count=2 avg=2.0 p50=1 p90=2 p99=2 max=2 (usecs)\n");
	free(out);
}
END_TEST

START_TEST(test_json_str)
{
	char *out;

	CAPTURE(out, json_str(f, "a\"b\\c\nd\x01\xff" "xyz", 9));
	ck_assert_str_eq(out, "\"a\\\"b\\\\c\\nd\\u0001\\u00ff\"");
	free(out);
}
END_TEST

/* the one growth helper: doubling, the first capacity, overflow refused */
START_TEST(test_mem_grow)
{
	size_t cap = 0, i;
	int *v = NULL, *nv;

	for (i = 0; i < 1000; i++) {
		nv = mem_grow(v, &cap, i, sizeof(*v));
		ck_assert_ptr_nonnull(nv);
		v = nv;
		v[i] = (int)i;
		ck_assert_uint_gt(cap, i);
	}
	ck_assert_uint_eq(cap, 1024);
	for (i = 0; i < 1000; i++)
		ck_assert_int_eq(v[i], (int)i);
	free(v);
	v = NULL;
	cap = 0;
	v = mem_grow_from(v, &cap, 0, sizeof(*v), 4096);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(cap, 4096);
	/* a jump past the doubling: at least n + 1 */
	v = mem_grow_from(v, &cap, 100000, sizeof(*v), 4096);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_gt(cap, 100000);
	/* too large: NULL, the array and its capacity untouched */
	i = cap;
	ck_assert_ptr_null(mem_grow(v, &cap, SIZE_MAX / 2, sizeof(*v)));
	ck_assert_uint_eq(cap, i);
	free(v);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hist");
	TCase *tc = tcase_create("hist");

	tcase_add_test(tc, test_slots);
	tcase_add_test(tc, test_units);
	tcase_add_test(tc, test_percentiles);
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_bcc_layout);
	tcase_add_test(tc, test_bcc_wide);
	tcase_add_test(tc, test_bpftrace_layout);
	tcase_add_test(tc, test_bpftrace_real);
	tcase_add_test(tc, test_summary);
	tcase_add_test(tc, test_json_str);
	tcase_add_test(tc, test_mem_grow);
	suite_add_tcase(s, tc);
	return check_run(s);
}
