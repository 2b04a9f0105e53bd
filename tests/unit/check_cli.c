// SPDX-License-Identifier: GPL-2.0-or-later
/* Strict number parsing, the command line, and capability detection. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cli.h"
#include "fixture.h"
#include "numparse.h"
#include "tfs_caps.h"

START_TEST(test_parse_u64)
{
	uint64_t v;

	ck_assert_int_eq(parse_u64("42", 0, 100, &v), 0);
	ck_assert_uint_eq(v, 42);
	ck_assert_int_eq(parse_u64("12abc", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("-1", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(parse_u64(" 1", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("+1", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(parse_u64("101", 0, 100, &v), -ERANGE);
	ck_assert_int_eq(parse_u64("0", 1, 100, &v), -ERANGE);
	ck_assert_int_eq(parse_u64("99999999999999999999999", 0, UINT64_MAX, &v), -ERANGE);
}
END_TEST

START_TEST(test_parse_pid_duration)
{
	int32_t pid;
	uint64_t ns;

	ck_assert_int_eq(parse_pid("1", &pid), 0);
	ck_assert_int_eq(parse_pid("0", &pid), -ERANGE);
	ck_assert_int_eq(parse_pid("4194305", &pid), -ERANGE);
	ck_assert_int_eq(parse_duration("10", &ns), 0);
	ck_assert_uint_eq(ns, 10000000000ULL);
	ck_assert_int_eq(parse_duration("0.5", &ns), 0);
	ck_assert_uint_eq(ns, 500000000ULL);
	ck_assert_int_eq(parse_duration("2m", &ns), 0);
	ck_assert_uint_eq(ns, 120000000000ULL);
	ck_assert_int_eq(parse_duration("1h", &ns), 0);
	ck_assert_int_eq(parse_duration("0", &ns), -ERANGE);
	ck_assert_int_eq(parse_duration("-1", &ns), -EINVAL);
	ck_assert_int_eq(parse_duration("1e9", &ns), -EINVAL);
	ck_assert_int_eq(parse_duration("400d", &ns), -EINVAL);
	ck_assert_int_eq(parse_duration("9000h", &ns), -ERANGE);
	ck_assert_int_eq(parse_duration("nan", &ns), -EINVAL);
	ck_assert_int_eq(parse_duration("inf", &ns), -EINVAL);
	ck_assert_int_eq(parse_duration("10x", &ns), -EINVAL);
	ck_assert_int_eq(parse_duration("10ss", &ns), -EINVAL);
	ck_assert_int_eq(parse_duration("0x10", &ns), -EINVAL);
	ck_assert_int_eq(parse_duration("", &ns), -EINVAL);
}
END_TEST

static int parse(struct trace_opts *o, const char *cmd, const char *line)
{
	/* options point into the copy: keep it alive after the call */
	static char copies[8][256];
	static unsigned next;
	char *argv[32], *copy = copies[next++ % 8], *save = NULL, *tok;
	int argc = 0, ret, fd, saved;

	snprintf(copy, sizeof(copies[0]), "%s", line);
	argv[argc++] = (char *)cmd;
	for (tok = strtok_r(copy, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	/* usage errors go to stderr: keep the test log readable */
	fflush(stderr);
	saved = dup(2);
	fd = open("/dev/null", O_WRONLY);
	dup2(fd, 2);
	ret = trace_opts_parse(o, cmd, argc, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(fd);
	close(saved);
	return ret;
}

START_TEST(test_trace_opts)
{
	struct trace_opts o;

	ck_assert_int_eq(parse(&o, "runq", "10"), -1);
	ck_assert_uint_eq(o.duration_ns, 10000000000ULL);
	ck_assert_uint_eq(o.count, 1);
	ck_assert_int_eq(o.key, KEY_NONE);
	ck_assert_int_eq(parse(&o, "runq", "-L -m -p 5 1 3"), -1);
	ck_assert_int_eq(o.key, KEY_TID);
	ck_assert(o.msecs);
	ck_assert_int_eq(o.pid, 5);
	ck_assert_uint_eq(o.count, 3);
	ck_assert_int_eq(parse(&o, "runq", "--format=json -C"), -1);
	ck_assert_int_eq(o.fmt, FMT_JSON);
	ck_assert_uint_eq(o.duration_ns, 0);
	ck_assert_int_eq(parse(&o, "offcpu", "--state S,D --min 10 --max 20 5"), -1);
	ck_assert_str_eq(o.state, "S,D");
	ck_assert_uint_eq(o.min_us, 10);
	ck_assert_uint_eq(o.max_us, 20);

	ck_assert_int_eq(parse(&o, "runq", "-P -L"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "runq", "-p 1 -t 2"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "runq", "-p abc"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "runq", "-p"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "runq", "--bogus"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "runq", "0"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "runq", "10 0"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "runq", "10 2 3"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "runq", "--format=xml"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "runq", "--state S"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "runq", "-c averyveryverylongname"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "offcpu", "--state Q"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "offcpu", "--state S,,D"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "offcpu", "--min 5 --max 4"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "runq", "--max-tasks 0"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "runq", "--buffer-size 1"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "runq", "--backend=bpf"), EXIT_USAGE);
	/* --late-stacks: -K, no -U, --min >= 1 ms, no --record; offcpu only */
	ck_assert_int_eq(parse(&o, "offcpu", "-K --late-stacks --min 1000"), -1);
	ck_assert(o.late_stacks && o.kstack);
	ck_assert_int_eq(parse(&o, "offcpu", "--late-stacks --min 1000"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "offcpu", "-K -U --late-stacks --min 1000"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "offcpu", "-K --late-stacks"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "offcpu", "-K --late-stacks --min 999"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "offcpu", "-K --late-stacks --min 1000 --record f.dat"),
			 EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "runq", "--late-stacks"), EXIT_USAGE);
}
END_TEST

/* Feature detection from each kernel's README, as the fixture table says. */
START_TEST(test_readme_caps)
{
	static const struct {
		bool hist, synth, synth_stack, buckets;
		const char *key;
	} want[] = {
		{ false, false, false, false, NULL },
		{ true, true, false, true, "stacktrace" },
		{ true, true, true, true, "common_stacktrace" },
		{ false, false, false, false, NULL },
	};
	const char *k = fixture_kernels[_i];
	char *readme = fixture_read(fixture_path("kernels/%s/README", k), NULL);
	struct tfs_caps c;

	memset(&c, 0, sizeof(c));
	tfs_caps_from_readme(readme, &c);
	ck_assert_msg(c.hist == want[_i].hist, "%s hist", k);
	ck_assert_msg(c.synth == want[_i].synth, "%s synth", k);
	ck_assert_msg(c.synth_stack == want[_i].synth_stack, "%s synth stack", k);
	ck_assert_msg(c.buckets == want[_i].buckets, "%s buckets", k);
	ck_assert_msg(c.stacktrace_trigger, "%s stacktrace trigger", k);
	if (want[_i].key)
		ck_assert_str_eq(c.stack_key, want[_i].key);
	else
		ck_assert_ptr_null(c.stack_key);
	free(readme);
}
END_TEST

/*
 * The analyses' table: unique names, every hook a run calls, no silent
 * default; each command's option tables hold every option once (a row
 * named or lettered like another of the same command would shadow it),
 * each with its setter and help
 */
static void check_tables(const struct analysis *a)
{
	const struct an_option *r, *q;
	unsigned i, j;

	for (i = 0; a->options && a->options[i]; i++)
		for (r = a->options[i]; !an_opt_is_end(r); r++) {
			if (r->flags & AO_HEADING) {
				ck_assert_ptr_nonnull(r->help);
				continue;
			}
			ck_assert(r->name || r->letter);
			ck_assert_ptr_nonnull(r->set);
			ck_assert_msg(r->help && r->help[0], "%s: --%s has no help", a->name,
				      r->name ? r->name : "");
			for (j = 0; j <= i; j++)
				for (q = a->options[j]; !an_opt_is_end(q) && q != r; q++)
					ck_assert_msg(!(q->name && r->name && !strcmp(q->name, r->name)) &&
						      !(q->letter && q->letter == r->letter),
						      "%s: --%s twice", a->name, r->name ? r->name : "");
		}
}

START_TEST(test_analyses)
{
	struct trace_opts o;
	unsigned i, j;
	char names[128];

	for (i = 0; analysis_at(i); i++) {
		const struct analysis *a = analysis_at(i);

		for (j = 0; j < i; j++)
			ck_assert_str_ne(analysis_at(j)->name, a->name);
		ck_assert(a->summary && a->what && a->print);
		if (a->flags & AN_F_MODE) {
			/* a command's options select it (runq --slower): no command, no options */
			ck_assert_ptr_null(analysis_find(a->name));
			ck_assert_ptr_null(a->options);
			continue;
		}
		ck_assert_ptr_eq(analysis_find(a->name), a);
		ck_assert(a->usage && a->examples && a->defaults);
		check_tables(a);
		ck_assert_int_eq(parse(&o, a->name, ""), -1);
		ck_assert_ptr_eq(o.an, a);
		ck_assert_str_eq(o.cmd, a->name);
		ck_assert_uint_ne(o.modes, 0);
	}
	ck_assert_ptr_null(analysis_find("bogus"));
	ck_assert_ptr_null(analysis_find(NULL));
	/* an unknown name is an error, never record (or anything else) */
	ck_assert_int_eq(parse(&o, "bogus", "10"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "slower", "10"), EXIT_USAGE);	/* a mode */
	ck_assert_int_eq(parse(&o, "runq", "--slower 10"), -1);
	ck_assert_str_eq(o.an->name, "slower");
	ck_assert_str_eq(o.cmd, "runq");
	/* the checks see DURATION and COUNT: one window analyses refuse a COUNT */
	ck_assert_int_eq(parse(&o, "profile", "1 3"), EXIT_USAGE);
	ck_assert_int_eq(parse(&o, "offcpu", "--wakers 1 2"), EXIT_USAGE);
	analysis_names(names, sizeof(names), AN_F_REPORT);
	ck_assert_str_eq(names, "runq, offcpu, triage, oncpu, runqlen, profile or timehist");
	analysis_names(names, sizeof(names), AN_F_RECORD_ONLY);
	ck_assert_str_eq(names, "record");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");

	tcase_add_test(tc, test_parse_u64);
	tcase_add_test(tc, test_parse_pid_duration);
	tcase_add_test(tc, test_trace_opts);
	tcase_add_test(tc, test_analyses);
	tcase_add_loop_test(tc, test_readme_caps, 0, 4);
	suite_add_tcase(s, tc);
	return check_run(s);
}
