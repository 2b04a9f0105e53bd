// SPDX-License-Identifier: GPL-2.0-or-later
/* Stack interning, time by stack, and the offcputime/folded/JSON layouts. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "stackout.h"

#define CAPTURE(buf, call)                                      \
	do {                                                    \
		size_t _len;                                    \
		FILE *f = open_memstream(&(buf), &_len);        \
		ck_assert_ptr_nonnull(f);                       \
		call;                                           \
		fclose(f);                                      \
	} while (0)

/* frame 0x1000+n names "kN"; 0x2000+n "uN"; __schedule is 0x1000 */
static int kname(void *arg, uint64_t a, char *buf, size_t len)
{
	(void)arg;
	if (a == 0x1000)
		snprintf(buf, len, "__schedule");
	else if (a == 0x1fff)
		snprintf(buf, len, "trace_event_raw_event_sched_switch");
	else
		snprintf(buf, len, "k%u", (unsigned)(a - 0x1000));
	return 0;
}

static int uname_(void *arg, int32_t tgid, uint64_t a, char *buf, size_t len)
{
	(void)arg;
	snprintf(buf, len, "u%u;x", (unsigned)(a - 0x2000));	/* ';' must not split */
	(void)tgid;
	return 0;
}

static const struct symbolizer sym = { kname, uname_, NULL, NULL };

START_TEST(test_intern)
{
	struct stacktab t;
	uint64_t a[3] = { 1, 2, 3 }, b[3] = { 1, 2, 4 };
	const uint64_t *f;
	uint32_t d, i;

	ck_assert_int_eq(stacktab_init(&t, 4), 0);
	ck_assert_uint_eq(stacktab_intern(&t, a, 3), 1);
	ck_assert_uint_eq(stacktab_intern(&t, b, 3), 2);
	ck_assert_uint_eq(stacktab_intern(&t, a, 3), 1);	/* same id */
	ck_assert_uint_eq(stacktab_intern(&t, a, 2), 3);	/* a prefix is another stack */
	f = stacktab_get(&t, 2, &d);
	ck_assert_uint_eq(d, 3);
	ck_assert_uint_eq(f[2], 4);
	ck_assert_ptr_null(stacktab_get(&t, 0, &d));
	for (i = 10; i < 20; i++) {
		uint64_t x = i;

		stacktab_intern(&t, &x, 1);
	}
	ck_assert_uint_eq(t.n, 4);			/* capped */
	ck_assert_uint_eq(t.overflow, 9);
	stacktab_fini(&t);
}
END_TEST

/* An empty stack (a stacktrace event with no frames) interned first, into a
 * table whose frame array does not exist yet: an id, no frames, no pointer
 * arithmetic on the missing array (fuzz_tdat found it under UBSan) */
START_TEST(test_intern_empty_first)
{
	struct stacktab t;
	uint64_t a[2] = { 5, 6 };
	const uint64_t *f;
	uint32_t d = 9;

	ck_assert_int_eq(stacktab_init(&t, 4), 0);
	ck_assert_ptr_null(t.frames);
	ck_assert_uint_eq(stacktab_intern(&t, NULL, 0), 1);
	ck_assert_uint_eq(stacktab_intern(&t, a, 0), 1);	/* the same empty stack */
	ck_assert_ptr_null(stacktab_get(&t, 1, &d));
	ck_assert_uint_eq(d, 0);
	ck_assert_uint_eq(stacktab_intern(&t, a, 2), 2);
	f = stacktab_get(&t, 2, &d);
	ck_assert_uint_eq(d, 2);
	ck_assert_uint_eq(f[1], 6);
	ck_assert_uint_eq(stacktab_intern(&t, NULL, 0), 1);
	stacktab_fini(&t);
}
END_TEST

static void fill(struct stacktab *k, struct stacktab *u, struct stackagg *a)
{
	uint64_t k1[] = { 0x1fff, 0x1000, 0x1001, 0x1002 };	/* tracer frame first */
	uint64_t k2[] = { 0x1000, 0x1003 };
	uint64_t u1[] = { 0x2001, 0x2002 };
	uint32_t s1, s2, us;

	ck_assert_int_eq(stacktab_init(k, 16), 0);
	ck_assert_int_eq(stacktab_init(u, 16), 0);
	ck_assert_int_eq(stackagg_init(a, 16), 0);
	s1 = stacktab_intern(k, k1, 4);
	s2 = stacktab_intern(k, k2, 2);
	us = stacktab_intern(u, u1, 2);
	stackagg_add(a, 7, 7, "big", s1, us, 3000000);
	stackagg_add(a, 7, 7, "big", s1, us, 2000000);		/* summed */
	stackagg_add(a, 8, 8, "sm all", s2, 0, 1500);		/* no user stack */
	stackagg_add(a, 9, 9, "mid", s2, us, 40000);
}

START_TEST(test_agg_order)
{
	struct stacktab k, u;
	struct stackagg a;

	fill(&k, &u, &a);
	ck_assert_uint_eq(a.n, 3);
	stackagg_sort(&a);
	ck_assert_int_eq(a.v[0].id, 7);
	ck_assert_uint_eq(a.v[0].count, 2);
	ck_assert_uint_eq(a.v[0].total_ns, 5000000);
	ck_assert_int_eq(a.v[2].id, 8);
	/* the index still finds entries after sorting */
	stackagg_add(&a, 8, 8, "sm all", a.v[2].kstack, 0, 500);
	ck_assert_uint_eq(a.n, 3);
	ck_assert_uint_eq(a.v[2].total_ns, 2000);
	stacktab_fini(&k);
	stacktab_fini(&u);
	stackagg_fini(&a);
}
END_TEST

static struct stack_report report(struct stacktab *k, struct stacktab *u, struct stackagg *a)
{
	struct stack_report r;

	memset(&r, 0, sizeof(r));
	r.agg = a;
	r.kstacks = k;
	r.ustacks = u;
	r.kstack = r.ustack = true;
	r.depth = STACK_MAX_DEPTH;
	r.key = KEY_TID;
	r.unit_ns = 1000;
	r.sym = &sym;
	return r;
}

START_TEST(test_folded)
{
	struct stacktab k, u;
	struct stackagg a;
	struct stack_report r;
	char *out;

	fill(&k, &u, &a);
	r = report(&k, &u, &a);
	r.folded = true;
	r.delimited = true;
	CAPTURE(out, stacks_print_text(f, &r));
	/* comm; user outer..inner; -; kernel outer..inner; largest first */
	ck_assert_str_eq(out,
		"big;u2:x;u1:x;-;k2;k1;__schedule 5000\n"
		"mid;u2:x;u1:x;-;k3;__schedule 40\n"
		"sm_all;[Missed User Stack];-;k3;__schedule 1\n");
	free(out);
	/* another thread named "mid" with the same stacks: one line, summed;
	 * --top counts lines, not threads */
	stackagg_fini(&a);
	stacktab_fini(&k);
	stacktab_fini(&u);
	fill(&k, &u, &a);
	stackagg_add(&a, 10, 10, "mid", 2, 1, 70000);
	r = report(&k, &u, &a);
	r.folded = true;
	r.delimited = true;
	r.top = 2;
	CAPTURE(out, stacks_print_text(f, &r));
	ck_assert_str_eq(out,
		"big;u2:x;u1:x;-;k2;k1;__schedule 5000\n"
		"mid;u2:x;u1:x;-;k3;__schedule 110\n");
	free(out);
	r.top = 1;
	r.delimited = false;
	r.ustack = false;
	CAPTURE(out, stacks_print_text(f, &r));
	ck_assert_str_eq(out, "big;k2;k1;__schedule 5000\n");
	free(out);
	stacktab_fini(&k);
	stacktab_fini(&u);
	stackagg_fini(&a);
}
END_TEST

START_TEST(test_multiline_json)
{
	struct stacktab k, u;
	struct stackagg a;
	struct stack_report r;
	char *out;

	fill(&k, &u, &a);
	r = report(&k, &u, &a);
	r.top = 1;
	r.depth = 2;
	CAPTURE(out, stacks_print_text(f, &r));
	ck_assert_str_eq(out,
		"# and 2 more stacks (--top 1): 2 intervals, 0.042 ms in all, not shown\n\n"
		"    __schedule\n"
		"    k1\n"
		"    --\n"
		"    u1;x\n"
		"    u2;x\n"
		"    -                big (7)\n"
		"        5000\n\n");
	free(out);
	{
		uint64_t c, ns;

		ck_assert_uint_eq(stacks_not_shown(&r, &c, &ns), 2);
		ck_assert_uint_eq(c, 2);
		ck_assert_uint_eq(ns, 41500);
	}
	r.depth = STACK_MAX_DEPTH;
	r.top = 0;
	CAPTURE(out, stacks_print_json(f, &r));
	ck_assert(!strncmp(out, "[{\"tid\":7,\"comm\":\"big\",\"count\":2,\"total\":5000,"
			   "\"total_ns\":5000000,\"kernel_frames\":3,\"frames\":[\"__schedule\","
			   "\"k1\",\"k2\",\"u1;x\",\"u2;x\"]", 120));
	ck_assert_ptr_nonnull(strstr(out, "\"comm\":\"sm all\""));
	ck_assert_ptr_nonnull(strstr(out, "\"missed_user_stack\":true"));
	free(out);
	stacktab_fini(&k);
	stacktab_fini(&u);
	stackagg_fini(&a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stacks");
	TCase *tc = tcase_create("stacks");

	tcase_add_test(tc, test_intern);
	tcase_add_test(tc, test_intern_empty_first);
	tcase_add_test(tc, test_agg_order);
	tcase_add_test(tc, test_folded);
	tcase_add_test(tc, test_multiline_json);
	suite_add_tcase(s, tc);
	return check_run(s);
}
