// SPDX-License-Identifier: GPL-2.0-or-later
/* The flight recorder's page store (tracefs/flightbuf.c). */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "flightbuf.h"

#define PAGE 64
#define MS 1000000ULL

/* a full page whose header says @ts, its body marked with @tag */
static void *page(uint64_t ts, unsigned tag)
{
	static unsigned char p[PAGE];
	uint64_t commit = PAGE - 16;

	memset(p, (int)tag, sizeof(p));
	memcpy(p, &ts, sizeof(ts));
	memcpy(p + 8, &commit, sizeof(commit));
	return p;
}

/* the last page visited, whole */
static int grab(void *arg, unsigned cpu, const void *p)
{
	(void)cpu;
	memcpy(arg, p, PAGE);
	return 0;
}

struct seen {
	unsigned n, cpu[64], tag[64];
};

static int note(void *arg, unsigned cpu, const void *p)
{
	struct seen *s = arg;

	ck_assert_uint_lt(s->n, 64);
	s->cpu[s->n] = cpu;
	s->tag[s->n] = ((const unsigned char *)p)[PAGE - 1];
	s->n++;
	return 0;
}

static struct seen each(struct flightbuf *fb, uint64_t from, uint64_t to)
{
	struct seen s = { 0 };

	ck_assert_int_eq(flightbuf_each(fb, from, to, note, &s), 0);
	return s;
}

/* Pages older than the window leave; the one that holds its start stays. */
START_TEST(test_keeps_window)
{
	struct flightbuf *fb;
	struct seen s;
	unsigned i;

	ck_assert_int_eq(flightbuf_new(&fb, 2, PAGE, 100 * PAGE, 100 * MS), 0);
	/* CPU 0: a page every 10 ms from 0 to 300 ms */
	for (i = 0; i <= 30; i++)
		ck_assert_int_eq(flightbuf_add(fb, 0, page(i * 10 * MS, i), i * 10 * MS), 0);
	/* newest 300 ms: the window is 200..300 ms; page 19's records are before it */
	s = each(fb, 0, UINT64_MAX);
	ck_assert_uint_eq(s.n, 11);
	ck_assert_uint_eq(s.tag[0], 20);
	ck_assert_uint_eq(s.tag[10], 30);
	ck_assert_uint_eq(flightbuf_bytes(fb), 11 * PAGE);
	ck_assert_uint_eq(flightbuf_complete_from(fb), 200 * MS);
	ck_assert_uint_eq(flightbuf_short_drops(fb), 0);
	/* a window inside: the pages that may hold 245..262 ms */
	s = each(fb, 245 * MS, 262 * MS);
	ck_assert_uint_eq(s.n, 3);
	ck_assert_uint_eq(s.tag[0], 24);
	ck_assert_uint_eq(s.tag[2], 26);
	/* time passes with CPU 0 idle: its last page stays, it may hold now */
	flightbuf_trim(fb, 1000 * MS);
	s = each(fb, 0, UINT64_MAX);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(s.tag[0], 30);
	flightbuf_free(fb);
}
END_TEST

/* A store too small for the window drops pages inside it, and says from when it is whole. */
START_TEST(test_short_store)
{
	struct flightbuf *fb;
	struct seen s;
	unsigned i;

	ck_assert_int_eq(flightbuf_new(&fb, 2, PAGE, 4 * PAGE, 1000 * MS), 0);
	for (i = 0; i < 10; i++) {
		ck_assert_int_eq(flightbuf_add(fb, 1, page(i * MS, i), i * MS), 0);
		ck_assert_int_eq(flightbuf_add(fb, 0, page(i * MS + 1, 100 + i), i * MS + 1), 0);
	}
	ck_assert_uint_eq(flightbuf_bytes(fb), 8 * PAGE);
	ck_assert_uint_eq(flightbuf_peak_bytes(fb), 8 * PAGE);
	ck_assert_uint_eq(flightbuf_short_drops(fb), 12);
	/* each CPU holds its pages 6..9: whole from CPU 0's page 6 */
	ck_assert_uint_eq(flightbuf_complete_from(fb), 6 * MS + 1);
	s = each(fb, 0, UINT64_MAX);
	ck_assert_uint_eq(s.n, 8);
	/* CPU by CPU, oldest first */
	ck_assert_uint_eq(s.cpu[0], 0);
	ck_assert_uint_eq(s.tag[0], 106);
	ck_assert_uint_eq(s.cpu[4], 1);
	ck_assert_uint_eq(s.tag[4], 6);
	ck_assert_int_eq(flightbuf_add(fb, 2, page(0, 0), 0), -EINVAL);
	flightbuf_free(fb);
}
END_TEST

/* A page partly filled is kept as its committed bytes, and given back whole. */
START_TEST(test_partial_pages)
{
	unsigned char p[PAGE], got[PAGE];
	struct flightbuf *fb;
	uint64_t ts = 5, commit = 12 | (1ULL << 31);	/* 12 bytes, events were lost */
	unsigned i;

	memset(p, 0xee, sizeof(p));
	memcpy(p, &ts, 8);
	memcpy(p + 8, &commit, 8);
	ck_assert_int_eq(flightbuf_new(&fb, 1, PAGE, 4 * PAGE, 1000 * MS), 0);
	for (i = 0; i < 8; i++) {
		ts = 5 + i;
		memcpy(p, &ts, 8);
		ck_assert_int_eq(flightbuf_add(fb, 0, p, ts), 0);
	}
	/* 28 bytes each, 32 aligned: eight fit where four whole pages would */
	ck_assert_uint_eq(flightbuf_bytes(fb), 8 * 32);
	ck_assert_uint_eq(flightbuf_short_drops(fb), 0);
	ts = 13;
	memcpy(p, &ts, 8);
	ck_assert_int_eq(flightbuf_add(fb, 0, p, ts), 0);
	ck_assert_uint_eq(flightbuf_bytes(fb), 8 * 32);
	ck_assert_uint_eq(flightbuf_short_drops(fb), 1);
	ck_assert_uint_eq(flightbuf_complete_from(fb), 6);
	ck_assert_int_eq(flightbuf_each(fb, 13, 13, grab, got), 0);
	ck_assert_uint_eq(flightbuf_page_ts(got), 13);
	ck_assert_mem_eq(got + 8, p + 8, 20);
	for (i = 28; i < PAGE; i++)
		ck_assert_uint_eq(got[i], 0);
	flightbuf_free(fb);
}
END_TEST

/* At least two pages per CPU, whatever the bound. */
START_TEST(test_tiny_bound)
{
	struct flightbuf *fb;

	ck_assert_int_eq(flightbuf_new(&fb, 1, PAGE, 1, 1000 * MS), 0);
	ck_assert_int_eq(flightbuf_add(fb, 0, page(1, 1), 1), 0);
	ck_assert_int_eq(flightbuf_add(fb, 0, page(2, 2), 2), 0);
	ck_assert_uint_eq(flightbuf_bytes(fb), 2 * PAGE);
	ck_assert_int_eq(flightbuf_add(fb, 0, page(3, 3), 3), 0);
	ck_assert_uint_eq(flightbuf_bytes(fb), 2 * PAGE);
	ck_assert_uint_eq(flightbuf_complete_from(fb), 2);
	ck_assert_uint_eq(flightbuf_page_ts(page(77, 1)), 77);
	flightbuf_free(fb);
	flightbuf_free(NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("flight");
	TCase *tc = tcase_create("store");

	tcase_add_test(tc, test_keeps_window);
	tcase_add_test(tc, test_short_store);
	tcase_add_test(tc, test_tiny_bound);
	tcase_add_test(tc, test_partial_pages);
	suite_add_tcase(s, tc);
	return check_run(s);
}
