// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Decoding real raw pages captured from four kernels: per-CPU record
 * counts must equal the kernel's cpuN.stats entries, and every record must
 * match the kernel's own text decode (trace.txt): timestamp, pids, state.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "fixture.h"

struct txt_ev {
	int cpu;
	uint64_t ts_us;
	unsigned type;
	int pid, next_pid, common_pid;
	char state[8];
};

/* The kernel's text decode of one CPU, in order. */
static struct txt_ev *parse_trace_txt(const char *kernel, int cpu, size_t *n)
{
	char *s = fixture_read(fixture_path("kernels/%s/raw/trace.txt", kernel), NULL);
	struct txt_ev *v = calloc(200000, sizeof(*v));
	char *line, *save = NULL;

	*n = 0;
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct txt_ev e = { 0 };
		unsigned long sec, usec;
		char *p, *q;

		if (line[0] == '#')
			continue;
		p = strstr(line, " [");
		ck_assert_ptr_nonnull(p);
		/* "  comm-pid  [cpu]": the pid is after the comm's last '-' */
		for (q = p; q > line && q[-1] == ' '; q--)
			;
		while (q > line && q[-1] != '-')
			q--;
		e.common_pid = atoi(q);
		p++;
		e.cpu = atoi(p + 1);
		if (e.cpu != cpu)
			continue;
		/* "... d..2.  2011.386334: sched_switch: ..." */
		q = strstr(p, ": sched_");
		ck_assert_ptr_nonnull(q);
		while (q > p && q[-1] != ' ')
			q--;
		ck_assert_int_eq(sscanf(q, "%lu.%lu:", &sec, &usec), 2);
		e.ts_us = (uint64_t)sec * 1000000 + usec;
		if ((q = strstr(p, ": sched_switch: "))) {
			e.type = SEV_SWITCH;
			ck_assert_ptr_nonnull(strstr(q, "prev_pid="));
			e.pid = atoi(strstr(q, "prev_pid=") + 9);
			e.next_pid = atoi(strstr(q, "next_pid=") + 9);
			sscanf(strstr(q, "prev_state=") + 11, "%7s", e.state);
		} else if ((q = strstr(p, ": sched_wakeup_new: "))) {
			e.type = SEV_WAKEUP_NEW;
			e.pid = atoi(strstr(q, " pid=") + 5);
		} else if ((q = strstr(p, ": sched_wakeup: "))) {
			e.type = SEV_WAKEUP;
			e.pid = atoi(strstr(q, " pid=") + 5);
		} else {
			ck_abort_msg("unexpected event in trace.txt: %s", line);
		}
		v[(*n)++] = e;
	}
	free(s);
	return v;
}

static uint64_t stats_entries(const char *kernel, int cpu)
{
	char *s = fixture_read(fixture_path("kernels/%s/raw/cpu%d.stats", kernel, cpu), NULL);
	unsigned long long n = 0;

	ck_assert_int_eq(sscanf(s, "entries: %llu", &n), 1);
	free(s);
	return n;
}

START_TEST(test_formats)
{
	const char *k = fixture_kernels[_i];
	struct sched_layout l;

	ck_assert_int_eq(fixture_layout(&l, k), 0);
	/* TASK_REPORT_MAX, read from the print fmt on all four kernels */
	ck_assert(l.preempt_from_fmt);
	ck_assert_uint_eq(l.states.preempt_mask, 0x100);
	ck_assert_uint_eq(l.states.nletters, 8);
	ck_assert_uint_eq(sched_states_mask(&l.states, "S"), 0x1);
	ck_assert_uint_eq(sched_states_mask(&l.states, "D"), 0x2);
	ck_assert_uint_eq(sched_states_mask(&l.states, "XZ"), 0x30);
	ck_assert_uint_eq(sched_states_mask(&l.states, "I"), 0x80);
	ck_assert_uint_eq(l.page_data_off, 16);
	ck_assert_uint_eq(l.page_size, 4096);
	/* 5.10's sched_wakeup has "int success" before target_cpu */
	ck_assert_uint_eq(l.pid[SEV_WAKEUP].off, 24);
	ck_assert_uint_eq(l.prev_state.size, 8);
	ck_assert_int_ge(l.id[SEV_SWITCH], 1);
	ck_assert_int_ge(l.id[SEV_WAKEUP], 1);
	ck_assert_int_eq(l.id[SEV_WAKEUP_NEW], -1);	/* not in raw/ */
	fmt_fini(&l);
}
END_TEST

START_TEST(test_pages)
{
	const char *k = fixture_kernels[_i];
	struct sched_layout l;
	struct page_cursor c;
	int cpu;

	ck_assert_int_eq(fixture_layout(&l, k), 0);
	ck_assert_int_eq(page_cursor_init(&c, &l), 0);
	for (cpu = 0; cpu < 2; cpu++) {
		size_t len, off, ntxt, n = 0, nrec = 0;
		char *raw = fixture_read(fixture_path("kernels/%s/raw/cpu%d.trace_pipe_raw", k, cpu), &len);
		struct txt_ev *txt = parse_trace_txt(k, cpu, &ntxt);
		uint64_t last_ts = 0;

		ck_assert_uint_eq(len % l.page_size, 0);
		for (off = 0; off < len; off += l.page_size) {
			ck_assert_int_eq(page_cursor_load(&c, &l, raw + off, l.page_size), 0);
			for (; c.rec; page_cursor_next(&c)) {
				struct sched_event ev;
				char st[16];
				unsigned t;

				nrec++;
				t = decode_record(&l, c.rec, page_cursor_size(&c), c.ts, cpu, &ev);
				ck_assert_uint_ne(t, 0);
				ck_assert_uint_ge(ev.ts, last_ts);
				last_ts = ev.ts;
				ck_assert_uint_lt(n, ntxt);
				/* the kernel prints ns2usecs(): rounded to the nearest us */
				ck_assert_msg((ev.ts + 500) / 1000 == txt[n].ts_us,
					      "%s cpu%d event %zu: ts %" PRIu64 " vs text %" PRIu64,
					      k, cpu, n, (ev.ts + 500) / 1000, txt[n].ts_us);
				ck_assert_uint_eq(t, txt[n].type);
				ck_assert_int_eq(ev.pid, txt[n].pid);
				ck_assert_int_eq(ev.common_pid, txt[n].common_pid);
				if (t == SEV_SWITCH) {
					ck_assert_int_eq(ev.next_pid, txt[n].next_pid);
					ck_assert_str_eq(sched_state_str(&l.states, ev.prev_state,
									 st, sizeof(st)),
							 txt[n].state);
				}
				n++;
			}
		}
		ck_assert_uint_eq(n, ntxt);
		ck_assert_uint_eq(nrec, stats_entries(k, cpu));
		free(txt);
		free(raw);
	}
	page_cursor_fini(&c);
	fmt_fini(&l);
}
END_TEST

START_TEST(test_bad_page)
{
	struct sched_layout l;
	struct page_cursor c;
	static uint8_t page[4096];
	uint64_t commit = 5000;	/* larger than the page */
	struct sched_event ev;

	ck_assert_int_eq(fixture_layout(&l, "6.18.44-host"), 0);
	ck_assert_int_eq(page_cursor_init(&c, &l), 0);
	memcpy(page + 8, &commit, 8);
	ck_assert_int_eq(page_cursor_load(&c, &l, page, sizeof(page)), -22);
	ck_assert_int_eq(page_cursor_load(&c, &l, page, 8), -22);
	/* a record too short for its type is not decoded */
	memset(page, 0, 64);
	memcpy(page, &(uint16_t){ (uint16_t)l.id[SEV_SWITCH] }, 2);
	ck_assert_uint_eq(decode_record(&l, page, 40, 0, 0, &ev), 0);
	ck_assert_uint_eq(decode_record(&l, page, 64, 0, 0, &ev), SEV_SWITCH);
	page_cursor_fini(&c);
	fmt_fini(&l);
}
END_TEST

START_TEST(test_const_expr)
{
	uint64_t v;
	const char *e = "(((0x0000 | 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040) + 1) << 1)";

	ck_assert_int_eq(fmt_eval_const(e, strlen(e), &v), 0);
	ck_assert_uint_eq(v, 0x100);
	ck_assert_int_eq(fmt_eval_const("1024UL - 1", 10, &v), 0);
	ck_assert_uint_eq(v, 1023);
	ck_assert_int_ne(fmt_eval_const("(1 << 2", 7, &v), 0);
	ck_assert_int_ne(fmt_eval_const("REC->x", 6, &v), 0);
	ck_assert_int_ne(fmt_eval_const("1 << 99", 7, &v), 0);
}
END_TEST

START_TEST(test_states_fallback)
{
	/* no "+" operand: the mask is derived as the bit above the table */
	const char *fmt = "print fmt: \"%s\", REC->prev_state ? __print_flags(REC->prev_state, \"|\", "
			  "{ 0x01, \"S\" }, { 0x02, \"D\" }, { 0x400, \"N\" }) : \"R\"";
	struct sched_states st;
	bool from;
	char buf[16];

	ck_assert_int_eq(fmt_parse_states(fmt, &st, &from), 0);
	ck_assert(!from);
	ck_assert_uint_eq(st.preempt_mask, 0x800);
	ck_assert_str_eq(sched_state_str(&st, 0x3, buf, sizeof(buf)), "S|D");
	ck_assert_str_eq(sched_state_str(&st, 0x800, buf, sizeof(buf)), "R+");
	ck_assert_str_eq(sched_state_str(&st, 0, buf, sizeof(buf)), "R");
	ck_assert_int_ne(fmt_parse_states("name: x\n", &st, &from), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("decode");
	TCase *tc = tcase_create("fixtures");
	int nkern = 0;

	while (fixture_kernels[nkern])
		nkern++;
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_formats, 0, nkern);
	tcase_add_loop_test(tc, test_pages, 0, nkern);
	tcase_add_test(tc, test_bad_page);
	tcase_add_test(tc, test_const_expr);
	tcase_add_test(tc, test_states_fallback);
	suite_add_tcase(s, tc);
	return check_run(s);
}
