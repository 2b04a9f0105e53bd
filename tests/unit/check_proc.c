// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The proc backend's parsers on /proc files recorded on the development
 * host (tests/fixtures/proc): a pipe reader named "pipe (rd) x", asleep
 * in anon_pipe_read, and a spinner on a CPU; and the followed-process set.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "procread.h"
#include "proctasks.h"

static char *fx(const char *name)
{
	return fixture_read(fixture_path("proc/%s", name), NULL);
}

START_TEST(test_schedstat_stat_status)
{
	struct proc_sample s;
	char *t;

	memset(&s, 0, sizeof(s));
	t = fx("spinner.schedstat");
	ck_assert_int_eq(proc_parse_schedstat(t, &s), 0);
	ck_assert_uint_eq(s.exec_ns, 300470686);
	ck_assert_uint_eq(s.run_delay_ns, 447417);
	ck_assert_uint_eq(s.pcount, 3);
	free(t);
	t = fx("spinner.stat");
	ck_assert_int_eq(proc_parse_stat(t, &s), 0);
	ck_assert_str_eq(s.comm, "python3");
	ck_assert_int_eq(s.state, 'R');
	ck_assert_int_eq(s.ppid, 17099);
	ck_assert_uint_eq(s.utime, 29);
	ck_assert_uint_eq(s.stime, 1);
	ck_assert_uint_eq(s.start_ticks, 454623);
	free(t);
	/* a name with spaces and both parentheses */
	t = fx("pipe_reader.stat");
	ck_assert_int_eq(proc_parse_stat(t, &s), 0);
	ck_assert_str_eq(s.comm, "pipe (rd) x");
	ck_assert_int_eq(s.state, 'S');
	ck_assert_uint_eq(s.start_ticks, 454592);
	free(t);
	t = fx("pipe_reader.status");
	ck_assert_int_eq(proc_parse_status(t, &s), 0);
	ck_assert_uint_ge(s.vol, 1);
	free(t);
	/* what is not theirs is refused, never half-read */
	ck_assert_int_ne(proc_parse_schedstat("12 34\n", &s), 0);
	ck_assert_int_ne(proc_parse_stat("17140 (unterminated S 1 2", &s), 0);
	ck_assert_int_ne(proc_parse_stat("17140 (x) S", &s), 0);
	ck_assert_int_ne(proc_parse_status("Name:\tx\n", &s), 0);
}
END_TEST

START_TEST(test_wchan_stack)
{
	char fn[PROC_FRAME_LEN], frames[PROC_FRAMES][PROC_FRAME_LEN];
	char *t;

	t = fx("pipe_reader.wchan");
	ck_assert(proc_parse_wchan(t, fn));
	ck_assert_str_eq(fn, "anon_pipe_read");
	free(t);
	t = fx("spinner.wchan");
	ck_assert(!proc_parse_wchan(t, fn));	/* "0": running, or not ours */
	free(t);
	t = fx("pipe_reader.stack");
	ck_assert_uint_eq(proc_parse_stack(t, frames), 5);
	ck_assert_str_eq(frames[0], "anon_pipe_read");
	ck_assert_str_eq(frames[2], "ksys_read");
	ck_assert_str_eq(frames[4], "entry_SYSCALL_64_after_hwframe");
	free(t);
	ck_assert_uint_eq(proc_parse_stack("[<0>] nfs_wait+0x10/0x20 [nfs]\n", frames), 1);
	ck_assert_str_eq(frames[0], "nfs_wait [nfs]");
	ck_assert_uint_eq(proc_parse_stack("", frames), 0);
}
END_TEST

START_TEST(test_tidset)
{
	struct tidset s = { 0 };
	int32_t i;

	ck_assert(!tidset_has(&s, 5));
	for (i = 1; i <= 1000; i++)
		ck_assert_int_eq(tidset_add(&s, i * 7), 0);
	ck_assert_int_eq(tidset_add(&s, 7), 0);	/* once only */
	ck_assert_uint_eq(s.n, 1000);
	for (i = 1; i <= 1000; i++)
		ck_assert(tidset_has(&s, i * 7));
	ck_assert(!tidset_has(&s, 8));
	tidset_fini(&s);
	ck_assert(!tidset_has(&s, 7));
	/* a bounded set refuses new members at max, not ones it has */
	s.max = 2;
	ck_assert_int_eq(tidset_add(&s, 1), 0);
	ck_assert_int_eq(tidset_add(&s, 2), 0);
	ck_assert_int_eq(tidset_add(&s, 2), 0);
	ck_assert_int_eq(tidset_add(&s, 3), -ENOSPC);
	ck_assert(!tidset_has(&s, 3));
	tidset_fini(&s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("proc");

	tcase_add_test(tc, test_schedstat_stat_status);
	tcase_add_test(tc, test_wchan_stack);
	tcase_add_test(tc, test_tidset);
	suite_add_tcase(s, tc);
	return check_run(s);
}
