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
#include "encode.h"
#include "fixture.h"

struct txt_ev {
	int cpu;
	uint64_t ts_us;
	unsigned type;
	int pid, next_pid, common_pid;
	int target_cpu;		/* wakeups */
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
			e.target_cpu = strstr(q, "target_cpu=") ? atoi(strstr(q, "target_cpu=") + 11) : -1;
		} else if ((q = strstr(p, ": sched_wakeup: "))) {
			e.type = SEV_WAKEUP;
			e.pid = atoi(strstr(q, " pid=") + 5);
			e.target_cpu = strstr(q, "target_cpu=") ? atoi(strstr(q, "target_cpu=") + 11) : -1;
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
				/* what a kernel writes is never taken for corruption */
				ck_assert(decode_plausible(&ev, 8192));
				ck_assert_int_eq(ev.pid, txt[n].pid);
				ck_assert_int_eq(ev.common_pid, txt[n].common_pid);
				/* the CPU a wakeup queued the task on, as the kernel prints it */
				if (t == SEV_WAKEUP || t == SEV_WAKEUP_NEW) {
					ck_assert(ev.has_target);
					ck_assert_int_eq(ev.target_cpu, txt[n].target_cpu);
				}
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

/* ---- encode.c: events written back as pages decode to the same events ---- */

struct encoded {
	uint8_t *pages;
	size_t n, cap, page_size;
};

static int collect_page(void *arg, unsigned cpu, const void *page)
{
	struct encoded *o = arg;

	(void)cpu;
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 64;
		o->pages = realloc(o->pages, o->cap * o->page_size);
		ck_assert_ptr_nonnull(o->pages);
	}
	memcpy(o->pages + o->n * o->page_size, page, o->page_size);
	o->n++;
	return 0;
}

struct kept_ev {
	struct sched_event ev;
	char comm[COMM_LEN + 1], next_comm[COMM_LEN + 1];
	uint64_t frames[STACK_MAX_DEPTH];
};

static void keep(struct kept_ev *k, const struct sched_event *ev)
{
	memset(k, 0, sizeof(*k));
	k->ev = *ev;
	if (ev->comm)
		memcpy(k->comm, ev->comm, COMM_LEN);
	if (ev->next_comm)
		memcpy(k->next_comm, ev->next_comm, COMM_LEN);
	if (ev->stack)
		memcpy(k->frames, ev->stack, 8 * ev->stack_depth);
}

/* every record of @len bytes of pages, decoded */
static size_t decode_all(const struct sched_layout *l, uint8_t *raw, size_t len, int cpu,
			 struct kept_ev **out)
{
	struct page_cursor c;
	uint64_t frames[STACK_MAX_DEPTH];
	size_t off, n = 0, cap = 0;

	*out = NULL;
	ck_assert_int_eq(page_cursor_init(&c, l), 0);
	for (off = 0; off < len; off += l->page_size) {
		ck_assert_int_ge(page_cursor_load(&c, l, raw + off, l->page_size), 0);
		for (; c.rec; page_cursor_next(&c)) {
			struct sched_event ev;
			unsigned t = decode_record(l, c.rec, page_cursor_size(&c), c.ts, cpu, &ev);

			ck_assert_uint_ne(t, 0);
			if (t >= SEV_KSTACK)
				decode_stack(l, c.rec, page_cursor_size(&c), &ev, frames);
			if (n == cap) {	/* doubling: ASan's realloc copies */
				cap = cap ? 2 * cap : 256;
				*out = realloc(*out, cap * sizeof(**out));
				ck_assert_ptr_nonnull(*out);
			}
			keep(&(*out)[n++], &ev);
		}
	}
	page_cursor_fini(&c);
	return n;
}

static void same_events(const struct kept_ev *a, const struct kept_ev *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct sched_event *x = &a[i].ev, *y = &b[i].ev;

		ck_assert_uint_eq(x->ts, y->ts);
		ck_assert_uint_eq(x->type, y->type);
		ck_assert_int_eq(x->pid, y->pid);
		ck_assert_int_eq(x->common_pid, y->common_pid);
		ck_assert_int_eq(x->next_pid, y->next_pid);
		ck_assert_int_eq(x->prev_state, y->prev_state);
		ck_assert_int_eq(x->target_cpu, y->target_cpu);
		/* priorities: trace-cmd shows them; a recording keeps them */
		ck_assert_int_eq(x->has_prio, y->has_prio);
		ck_assert_int_eq(x->prio, y->prio);
		ck_assert_int_eq(x->next_prio, y->next_prio);
		ck_assert_str_eq(a[i].comm, b[i].comm);
		ck_assert_str_eq(a[i].next_comm, b[i].next_comm);
		ck_assert_uint_eq(x->stack_depth, y->stack_depth);
		ck_assert_mem_eq(a[i].frames, b[i].frames, 8 * x->stack_depth);
	}
}

START_TEST(test_encode_roundtrip)
{
	const char *k = fixture_kernels[_i];
	struct sched_layout l;
	int cpu;

	ck_assert_int_eq(fixture_layout(&l, k), 0);
	for (cpu = 0; cpu < 2; cpu++) {
		struct encoded o = { .page_size = l.page_size };
		struct kept_ev *orig, *again;
		struct page_enc e;
		size_t len, n, m, i;
		char *raw = fixture_read(fixture_path("kernels/%s/raw/cpu%d.trace_pipe_raw", k, cpu), &len);

		n = decode_all(&l, (uint8_t *)raw, len, cpu, &orig);
		ck_assert_uint_gt(n, 0);
		ck_assert_int_eq(page_enc_init(&e, &l, (unsigned)cpu), 0);
		for (i = 0; i < n; i++) {
			struct sched_event ev = orig[i].ev;

			ev.comm = orig[i].ev.comm ? orig[i].comm : NULL;
			ev.next_comm = orig[i].ev.next_comm ? orig[i].next_comm : NULL;
			ev.stack = orig[i].frames;
			ck_assert_int_eq(page_enc_add(&e, &ev, collect_page, &o), 0);
		}
		ck_assert_int_eq(page_enc_flush(&e, collect_page, &o), 0);
		ck_assert_uint_eq(e.skipped, 0);
		page_enc_fini(&e);
		m = decode_all(&l, o.pages, o.n * l.page_size, cpu, &again);
		ck_assert_uint_eq(m, n);
		same_events(orig, again, n);
		free(orig);
		free(again);
		free(o.pages);
		free(raw);
	}
	fmt_fini(&l);
}
END_TEST

/* Gaps past 2^27 ns (time extends), long stacks (length words), time going back. */
START_TEST(test_encode_edges)
{
	const char *missing;
	struct sched_layout l;
	struct encoded o;
	struct kept_ev *got;
	struct page_enc e;
	uint64_t frames[STACK_MAX_DEPTH];
	struct sched_event ev;
	unsigned i;
	size_t n;

	ck_assert_int_eq(fixture_layout(&l, "6.18.44-host"), 0);
	ck_assert_int_eq(fmt_add_event(&l, fixture_kstack_format, strlen(fixture_kstack_format)), 0);
	ck_assert_int_eq(fmt_resolve(&l, &missing), 0);
	o = (struct encoded){ .page_size = l.page_size };
	for (i = 0; i < STACK_MAX_DEPTH; i++)
		frames[i] = 0xffffffff81000000ULL + i;
	ck_assert_int_eq(page_enc_init(&e, &l, 1), 0);
	for (i = 0; i < 300; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.cpu = 1;
		ev.ts = 1000000000ULL + (uint64_t)i * (i % 3 ? 1000 : 5000000000ULL);
		if (i == 150)
			ev.ts -= 10;	/* out of order: a page of its own */
		ev.common_pid = 7;
		if (i % 2) {
			ev.type = SEV_SWITCH;
			ev.pid = 7;
			ev.next_pid = 8;
			ev.prev_state = i % 4 == 1 ? SCHED_STATE_UNKNOWN : 1;
			ev.comm = "a-very-long-comm-name";
			ev.next_comm = "";
		} else {
			ev.type = SEV_KSTACK;
			ev.pid = 7;
			ev.stack = frames;
			ev.stack_depth = i % STACK_MAX_DEPTH;
		}
		ck_assert_int_eq(page_enc_add(&e, &ev, collect_page, &o), 0);
	}
	/*
	 * a kernel stack's record is its frames, no more (a page of its
	 * own: the event header, size and three frames), as the kernel's
	 */
	ck_assert_int_eq(page_enc_flush(&e, collect_page, &o), 0);
	memset(&ev, 0, sizeof(ev));
	ev.cpu = 1;
	ev.ts = 9000000000000ULL;
	ev.type = SEV_KSTACK;
	ev.pid = ev.common_pid = 7;
	ev.stack = frames;
	ev.stack_depth = 3;
	ck_assert_int_eq(page_enc_add(&e, &ev, collect_page, &o), 0);
	ck_assert_uint_eq(e.used, 4 + l.caller[0].off + 3 * 8);
	ev.type = SEV_SAMPLE;	/* no format: skipped */
	ck_assert_int_eq(page_enc_add(&e, &ev, collect_page, &o), 0);
	ck_assert_uint_eq(e.skipped, 1);
	ck_assert_int_eq(page_enc_flush(&e, collect_page, &o), 0);
	ck_assert_int_eq(page_enc_flush(&e, collect_page, &o), 0);	/* nothing begun: no page */
	page_enc_fini(&e);
	ck_assert_uint_gt(o.n, 5);
	n = decode_all(&l, o.pages, o.n * l.page_size, 1, &got);
	ck_assert_uint_eq(n, 301);
	ck_assert_uint_eq(got[300].ev.type, SEV_KSTACK);
	ck_assert_uint_eq(got[300].ev.stack_depth, 3);
	for (i = 0; i < 300; i++) {
		uint64_t ts = 1000000000ULL + (uint64_t)i * (i % 3 ? 1000 : 5000000000ULL);

		ck_assert_uint_eq(got[i].ev.ts, i == 150 ? ts - 10 : ts);
		if (i % 2) {
			ck_assert_uint_eq(got[i].ev.type, SEV_SWITCH);
			ck_assert_str_eq(got[i].comm, "a-very-long-com");
			/* "" (perf's switch records name no one) reads as no name */
			ck_assert_ptr_null(got[i].ev.next_comm);
			ck_assert_int_eq(got[i].ev.prev_state, i % 4 == 1 ? SCHED_STATE_UNKNOWN : 1);
		} else {
			ck_assert_uint_eq(got[i].ev.type, SEV_KSTACK);
			ck_assert_uint_eq(got[i].ev.stack_depth, i % STACK_MAX_DEPTH);
			ck_assert_mem_eq(got[i].frames, frames, 8 * got[i].ev.stack_depth);
		}
	}
	free(got);
	free(o.pages);
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
	/* fields no kernel writes: a recording's record that cannot be true */
	ck_assert(decode_plausible(&ev, 2));
	ev.next_pid = 0x7fffffff;
	ck_assert(!decode_plausible(&ev, 2));
	ev.next_pid = 4194304;
	ck_assert(decode_plausible(&ev, 2));
	ev.common_pid = -1;	/* perf's "gone", our perf recordings' "unknown" */
	ck_assert(decode_plausible(&ev, 2));
	ev.common_pid = -2;
	ck_assert(!decode_plausible(&ev, 2));
	ev.common_pid = 0;
	ev.has_target = true;
	ev.target_cpu = 2;
	ck_assert(!decode_plausible(&ev, 2));
	ev.target_cpu = 1;
	ck_assert(decode_plausible(&ev, 2));
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

/* cgroup_attach_task records as the 6.18 host wrote them: the kernel's text decode, field by field */
START_TEST(test_cgroup_attach_page)
{
	static const struct {
		uint64_t ts_us;
		int32_t root;
		uint64_t id;
		const char *path;
	} want[] = {
		{ 835458169, 1, 17, "/offcpu-fixture-21254-a" },
		{ 835458390, 1, 31, "/offcpu-fixture-21254-b" },
		{ 835458454, 2, 16, "/offcpu-fixture-21254-x" },
		{ 835458487, 1, 17, "/offcpu-fixture-21254-a" },
	};
	struct sched_layout l;
	struct page_cursor c;
	size_t len, n = 0;
	char *raw;

	fixture_cgroup_layout(&l);
	ck_assert_int_eq(l.id[SEV_CGROUP_ATTACH], 538);
	ck_assert_int_eq(l.id[SEV_CGROUP_TRANSFER], 537);
	/* dst_id a u64 after dst_level (5.17+) */
	ck_assert_uint_eq(l.cg[0].id.off, 16);
	ck_assert_uint_eq(l.cg[0].id.size, 8);
	ck_assert_uint_eq(l.pid[SEV_CGROUP_ATTACH].off, 24);
	ck_assert(!l.cg[0].path_rel);
	raw = fixture_read(fixture_path("kernels/6.18.44-host/cgroup/cpu1.trace_pipe_raw"), &len);
	ck_assert_int_eq(page_cursor_init(&c, &l), 0);
	ck_assert_int_eq(page_cursor_load(&c, &l, raw, len), 0);
	for (; c.rec; page_cursor_next(&c), n++) {
		struct sched_event ev;

		ck_assert_uint_lt(n, 4);
		ck_assert_uint_eq(decode_record(&l, c.rec, page_cursor_size(&c), c.ts, 1, &ev),
				  SEV_CGROUP_ATTACH);
		ck_assert_uint_eq((ev.ts + 500) / 1000, want[n].ts_us);
		ck_assert_int_eq(ev.common_pid, 21254);		/* the writer */
		ck_assert_int_eq(ev.pid, 21268);		/* the task moved */
		ck_assert_int_eq(ev.cg_root, want[n].root);
		ck_assert_int_eq(ev.cg_level, 1);
		ck_assert_uint_eq(ev.cg_id, want[n].id);
		ck_assert_ptr_nonnull(ev.cg_path);
		ck_assert_str_eq(ev.cg_path, want[n].path);
		/* borrowed from the page: no copy */
		ck_assert((const char *)ev.cg_path > raw && ev.cg_path < raw + len);
	}
	ck_assert_uint_eq(n, 4);
	page_cursor_fini(&c);
	free(raw);
	fmt_fini(&l);
}
END_TEST

/* an earlier layout (dst_id an int, dst_path before pid: 4.x), and strings that do not fit */
static const char old_cgroup_fmt[] =
	"name: cgroup_attach_task\n"
	"ID: 300\n"
	"format:\n"
	FIXTURE_COMMON_FIELDS
	"\n"
	"\tfield:int dst_root;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int dst_id;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:int dst_level;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] dst_path;\toffset:20;\tsize:4;\tsigned:1;\n"
	"\tfield:int pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] comm;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"dst_root=%d dst_id=%d dst_level=%d dst_path=%s pid=%d comm=%s\", "
	"REC->dst_root, REC->dst_id, REC->dst_level, __get_str(dst_path), REC->pid, "
	"__get_str(comm)\n";

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* 6.18's header_page and sched_switch, for a format added to them */
static void base_layout(struct sched_layout *l)
{
	size_t len;
	char *s;

	ck_assert_int_eq(fmt_init(l), 0);
	s = fixture_read(fixture_path("kernels/6.18.44-host/raw/header_page"), &len);
	ck_assert_int_eq(fmt_header_page(l, s, len), 0);
	free(s);
	s = fixture_read(fixture_path("kernels/6.18.44-host/raw/sched_switch.format"), &len);
	ck_assert_int_eq(fmt_add_event(l, s, len), 0);
	free(s);
}

START_TEST(test_cgroup_old_layout)
{
	struct sched_layout l;
	struct sched_event ev;
	uint8_t rec[64];
	const char *missing;

	base_layout(&l);
	ck_assert_int_eq(fmt_add_event(&l, old_cgroup_fmt, sizeof(old_cgroup_fmt) - 1), 0);
	ck_assert_int_eq(fmt_resolve(&l, &missing), 0);
	ck_assert_int_eq(l.id[SEV_CGROUP_ATTACH], 300);
	ck_assert_uint_eq(l.cg[0].id.size, 4);
	ck_assert_uint_eq(l.pid[SEV_CGROUP_ATTACH].off, 24);

	memset(rec, 0, sizeof(rec));
	memcpy(rec, &(uint16_t){ 300 }, 2);
	put32(rec + 4, 77);		/* common_pid: the writer */
	put32(rec + 8, 0);		/* v2 */
	put32(rec + 12, 4242);
	put32(rec + 16, 2);
	put32(rec + 20, (6u << 16) | 32);	/* "/a/bc" at 32, 6 bytes */
	put32(rec + 24, 1234);
	put32(rec + 28, (4u << 16) | 38);
	memcpy(rec + 32, "/a/bc\0sh\0", 9);
	ck_assert_uint_eq(decode_record(&l, rec, 44, 5, 0, &ev), SEV_CGROUP_ATTACH);
	ck_assert_int_eq(ev.pid, 1234);
	ck_assert_int_eq(ev.common_pid, 77);
	ck_assert_int_eq(ev.cg_root, 0);
	ck_assert_int_eq(ev.cg_level, 2);
	ck_assert_uint_eq(ev.cg_id, 4242);
	ck_assert_str_eq(ev.cg_path, "/a/bc");
	/* past the record's end: no path, the event still decoded */
	put32(rec + 20, (16u << 16) | 32);
	ck_assert_uint_eq(decode_record(&l, rec, 44, 5, 0, &ev), SEV_CGROUP_ATTACH);
	ck_assert_ptr_null(ev.cg_path);
	/* not ending in its NUL */
	put32(rec + 20, (5u << 16) | 32);
	ck_assert_uint_eq(decode_record(&l, rec, 44, 5, 0, &ev), SEV_CGROUP_ATTACH);
	ck_assert_ptr_null(ev.cg_path);
	/* empty */
	put32(rec + 20, 32);
	ck_assert_uint_eq(decode_record(&l, rec, 44, 5, 0, &ev), SEV_CGROUP_ATTACH);
	ck_assert_ptr_null(ev.cg_path);
	/* too short for the fixed fields: not decoded */
	ck_assert_uint_eq(decode_record(&l, rec, 24, 5, 0, &ev), 0);
	fmt_fini(&l);
}
END_TEST

/* a cgroup format without the fields we read is dropped, not an error */
START_TEST(test_cgroup_unusable)
{
	static const char fmt[] =
		"name: cgroup_attach_task\n"
		"ID: 301\n"
		"format:\n"
		FIXTURE_COMMON_FIELDS
		"\n"
		"\tfield:int dst_root;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:int pid;\toffset:12;\tsize:4;\tsigned:1;\n"
		"\tfield:char dst_path[16];\toffset:16;\tsize:16;\tsigned:1;\n"
		"\n"
		"print fmt: \"%d\", REC->pid\n";
	struct sched_layout l;
	const char *missing;

	base_layout(&l);
	ck_assert_int_eq(fmt_add_event(&l, fmt, sizeof(fmt) - 1), 0);
	ck_assert_int_eq(fmt_resolve(&l, &missing), 0);
	ck_assert_int_eq(l.id[SEV_CGROUP_ATTACH], -1);
	ck_assert_int_ge(l.id[SEV_SWITCH], 1);
	fmt_fini(&l);
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
	tcase_add_loop_test(tc, test_encode_roundtrip, 0, nkern);
	tcase_add_test(tc, test_encode_edges);
	tcase_add_test(tc, test_const_expr);
	tcase_add_test(tc, test_states_fallback);
	tcase_add_test(tc, test_cgroup_attach_page);
	tcase_add_test(tc, test_cgroup_old_layout);
	tcase_add_test(tc, test_cgroup_unusable);
	suite_add_tcase(s, tc);
	return check_run(s);
}
