// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The perf backend's record parsing (perf/perfrec.c) on crafted records:
 * sched_switch and sched_wakeup samples whose raw data is laid out by the
 * field offsets in each fixture kernel's format files (read here with a
 * few lines of our own, not by fmt.c), with and without callchains;
 * context-switch records out (preempted or not) and in; a lost record;
 * and every truncation of each. Every record is parsed where it ends at a
 * PROT_NONE page, so a read past it faults the test.
 */
#include <check.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dropprobe.h"
#include "fixture.h"
#include "perfrec.h"
#include "pnames.h"

/* --- the format files, read by the test itself */

/* The offset and size of @field in a format file's text. */
static void fmtfile_field(const char *text, const char *field, unsigned *off, unsigned *size)
{
	size_t n = strlen(field);
	const char *p;

	for (p = strstr(text, field); p; p = strstr(p + 1, field))
		if (p[-1] == ' ' && (p[n] == ';' || p[n] == '['))
			break;
	ck_assert_msg(p != NULL, "no field %s", field);
	p = strstr(p, "offset:");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(p, "offset:%u;\tsize:%u;", off, size), 2);
}

/* The bytes the kernel writes for the event: its last field's end. */
static unsigned fmtfile_len(const char *text)
{
	unsigned off, size, len = 0;
	const char *p;

	for (p = strstr(text, "offset:"); p; p = strstr(p + 1, "offset:"))
		if (sscanf(p, "offset:%u;\tsize:%u;", &off, &size) == 2 && off + size > len)
			len = off + size;
	return len;
}

static unsigned fmtfile_id(const char *text)
{
	const char *p = strstr(text, "\nID: ");
	unsigned id;

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(p, "\nID: %u", &id), 1);
	return id;
}

/* Store @v in @field of a raw payload, in the field's size (little-endian host). */
static void raw_put(uint8_t *raw, const char *text, const char *field, uint64_t v)
{
	unsigned off, size;

	fmtfile_field(text, field, &off, &size);
	ck_assert_uint_le(size, 8);
	memcpy(raw + off, &v, size);
}

static void raw_put_str(uint8_t *raw, const char *text, const char *field, const char *s)
{
	unsigned off, size;

	fmtfile_field(text, field, &off, &size);
	ck_assert_uint_lt(strlen(s), size);
	memset(raw + off, 0, size);
	memcpy(raw + off, s, strlen(s));
}

/* --- building records */

struct rec {
	uint8_t b[4096];
	size_t n;
};

static void rec_start(struct rec *r)
{
	memset(r, 0, sizeof(*r));
	r->n = sizeof(struct perf_event_header);
}

static void rec_put(struct rec *r, const void *p, size_t len)
{
	ck_assert_uint_le(r->n + len, sizeof(r->b));
	memcpy(r->b + r->n, p, len);
	r->n += len;
}

static void rec_u32(struct rec *r, uint32_t v)
{
	rec_put(r, &v, 4);
}

static void rec_u64(struct rec *r, uint64_t v)
{
	rec_put(r, &v, 8);
}

/* Write the header: @type, @misc and the size so far. */
static void rec_end(struct rec *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = (uint16_t)r->n };

	memcpy(r->b, &h, sizeof(h));
}

/* The sample fields perf.c asks for, before the callchain. */
struct sample {
	uint64_t id;
	uint32_t pid, tid;	/* PERF_SAMPLE_TID: the tgid, the thread */
	uint64_t time;
	uint32_t cpu;
	const uint64_t *chain;	/* with nchain entries, or NULL */
	uint64_t nchain;
};

/* A PERF_RECORD_SAMPLE of @s carrying @raw (@len bytes), padded as perf pads it. */
static void rec_sample(struct rec *r, const struct sample *s, const uint8_t *raw, unsigned len)
{
	/* the u32 size and the data end on a u64 boundary; the size counts the padding */
	uint32_t raw_size = ((len + 4 + 7) & ~7u) - 4;
	static const uint8_t zero[8];

	rec_start(r);
	rec_u64(r, s->id);
	rec_u32(r, s->pid);
	rec_u32(r, s->tid);
	rec_u64(r, s->time);
	rec_u32(r, s->cpu);
	rec_u32(r, 0);
	if (s->chain) {
		rec_u64(r, s->nchain);
		rec_put(r, s->chain, 8 * s->nchain);
	}
	rec_u32(r, raw_size);
	rec_put(r, raw, len);
	rec_put(r, zero, raw_size - len);
	rec_end(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
}

/* A PERF_RECORD_SWITCH_CPU_WIDE with sample_id_all's TID, TIME, CPU. */
static void rec_switch(struct rec *r, uint16_t misc, uint32_t other_pid, uint32_t other_tid,
		       uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu)
{
	rec_start(r);
	rec_u32(r, other_pid);
	rec_u32(r, other_tid);
	rec_u32(r, pid);
	rec_u32(r, tid);
	rec_u64(r, time);
	rec_u32(r, cpu);
	rec_u32(r, 0);
	rec_end(r, PERF_RECORD_SWITCH_CPU_WIDE, misc);
}

static void rec_lost(struct rec *r, uint64_t id, uint64_t lost)
{
	rec_start(r);
	rec_u64(r, id);
	rec_u64(r, lost);
	rec_end(r, PERF_RECORD_LOST, 0);
}

/* --- parsing where a read past the record faults */

#define AREA_PAGES 4
static uint8_t *guard;	/* the PROT_NONE page after the area */

/* Copy @len bytes of @rec to end at the guard page; returns the copy. */
static const uint8_t *at_guard(const void *rec, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	if (!guard) {
		uint8_t *a = mmap(NULL, (AREA_PAGES + 1) * pg, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ck_assert_ptr_ne(a, MAP_FAILED);
		guard = a + AREA_PAGES * pg;
		ck_assert_int_eq(mprotect(guard, pg, PROT_NONE), 0);
	}
	ck_assert_uint_le(len, AREA_PAGES * pg);
	memcpy(guard - len, rec, len);
	return guard - len;
}

static int parse(const struct perfrec_layout *l, const void *rec, size_t len, struct perfrec *r)
{
	memset(r, 0xa5, sizeof(*r));	/* nothing left over from before */
	return perfrec_parse(l, at_guard(rec, len), len, r);
}

static int parse_rec(const struct perfrec_layout *l, const struct rec *rec, struct perfrec *r)
{
	return parse(l, rec->b, rec->n, r);
}

/* Every truncation of @rec is refused: cut short by @len or by its header. */
static void check_truncations(const struct perfrec_layout *l, const struct rec *rec)
{
	struct perfrec r;
	struct rec cut;
	size_t k;

	for (k = 0; k < rec->n; k++) {
		/* the header says more than the buffer holds */
		ck_assert_int_eq(parse(l, rec->b, k, &r), -EINVAL);
		ck_assert_uint_eq(r.kind, PERFREC_NONE);
		ck_assert_uint_eq(r.nev, 0);
		/* the header says k bytes: a field runs past the record's end */
		cut = *rec;
		cut.n = k;
		if (k >= sizeof(struct perf_event_header)) {
			struct perf_event_header h;

			memcpy(&h, cut.b, sizeof(h));
			h.size = (uint16_t)k;
			memcpy(cut.b, &h, sizeof(h));
		}
		ck_assert_msg(parse_rec(l, &cut, &r) == -EINVAL,
			      "a record of %zu bytes cut to %zu was accepted", rec->n, k);
		ck_assert_uint_eq(r.nev, 0);
	}
	ck_assert_int_eq(parse_rec(l, rec, &r), 0);
}

/* --- fixtures: a kernel's layout and formats */

struct kfix {
	struct sched_layout l;
	char *sw, *wk;		/* sched_switch, sched_wakeup format text */
	unsigned sw_id, wk_id;
};

static void kfix_load(struct kfix *f, const char *k)
{
	ck_assert_int_eq(fixture_layout(&f->l, k), 0);
	f->sw = fixture_read(fixture_path("kernels/%s/formats/sched_switch.format", k), NULL);
	f->wk = fixture_read(fixture_path("kernels/%s/formats/sched_wakeup.format", k), NULL);
	f->sw_id = fmtfile_id(f->sw);
	f->wk_id = fmtfile_id(f->wk);
	/* the layout reads raw/'s copies of the same files */
	ck_assert_int_eq(f->l.id[SEV_SWITCH], (int)f->sw_id);
	ck_assert_int_eq(f->l.id[SEV_WAKEUP], (int)f->wk_id);
}

static void kfix_free(struct kfix *f)
{
	fmt_fini(&f->l);
	free(f->sw);
	free(f->wk);
}

/* worker/1234 (D) -> kworker/1:2/77, recorded by 1234 */
static unsigned switch_raw(const struct kfix *f, uint8_t *raw, int64_t prev_state)
{
	unsigned len = fmtfile_len(f->sw);

	ck_assert_uint_le(len, 256);
	memset(raw, 0xee, len);	/* fields we do not set are noise */
	raw_put(raw, f->sw, "common_type", f->sw_id);
	raw_put(raw, f->sw, "common_pid", 1234);
	raw_put_str(raw, f->sw, "prev_comm", "worker");
	raw_put(raw, f->sw, "prev_pid", 1234);
	raw_put(raw, f->sw, "prev_state", (uint64_t)prev_state);
	raw_put_str(raw, f->sw, "next_comm", "kworker/1:2");
	raw_put(raw, f->sw, "next_pid", 77);
	return len;
}

static const struct sample switch_sample = {
	.id = 0x51, .pid = 1200, .tid = 1234, .time = 123456789012ULL, .cpu = 1,
};

/* @p lies inside the @len bytes that end at the guard page */
static void assert_in_record(const void *p, size_t size, size_t len)
{
	const uint8_t *q = p;

	ck_assert(q >= guard - len && q + size <= guard);
}

/* @ev is a @type event at @ts on @cpu, recorded by @common_pid, of @pid/@next_pid/@prev_state */
static void assert_ev(const struct sched_event *ev, unsigned type, uint64_t ts, int32_t cpu,
		      int32_t common_pid, int32_t pid, int32_t next_pid, int64_t prev_state)
{
	ck_assert_uint_eq(ev->type, type);
	ck_assert_uint_eq(ev->ts, ts);
	ck_assert_int_eq(ev->cpu, cpu);
	ck_assert_int_eq(ev->common_pid, common_pid);
	ck_assert_int_eq(ev->pid, pid);
	ck_assert_int_eq(ev->next_pid, next_pid);
	ck_assert_int_eq(ev->prev_state, prev_state);
}

START_TEST(test_switch_sample)
{
	struct perfrec_layout pl = { 0 };
	struct kfix f;
	uint8_t raw[256];
	struct perfrec r;
	struct rec rec;
	unsigned len;

	kfix_load(&f, fixture_kernels[_i]);
	pl.sched = &f.l;
	len = switch_raw(&f, raw, 2);
	rec_sample(&rec, &switch_sample, raw, len);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.kind, PERFREC_SAMPLE);
	ck_assert_uint_eq(r.nev, 1);
	assert_ev(&r.ev[0], SEV_SWITCH, 123456789012ULL, 1, 1234, 1234, 77, 2);
	ck_assert_str_eq(r.ev[0].comm, "worker");
	ck_assert_str_eq(r.ev[0].next_comm, "kworker/1:2");
	/* the names are borrowed from the record */
	assert_in_record(r.ev[0].comm, COMM_LEN, rec.n);
	assert_in_record(r.ev[0].next_comm, COMM_LEN, rec.n);
	ck_assert_ptr_null(r.ev[0].stack);
	ck_assert_uint_eq(r.ev[0].stack_depth, 0);
	check_truncations(&pl, &rec);

	/* preempted: R+ as the kernel writes it, passed through raw */
	len = switch_raw(&f, raw, (int64_t)f.l.states.preempt_mask);
	rec_sample(&rec, &switch_sample, raw, len);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_int_eq(r.ev[0].prev_state, (int64_t)f.l.states.preempt_mask);

	/* a payload too short for sched_switch's fields is not ours */
	rec_sample(&rec, &switch_sample, raw, f.l.min_size[SEV_SWITCH] - 12);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.kind, PERFREC_NONE);
	ck_assert_uint_eq(r.nev, 0);
	/* nor is another event's */
	len = switch_raw(&f, raw, 2);
	raw_put(raw, f.sw, "common_type", f.sw_id + 1000);
	rec_sample(&rec, &switch_sample, raw, len);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.kind, PERFREC_NONE);
	ck_assert_uint_eq(r.nev, 0);
	kfix_free(&f);
}
END_TEST

START_TEST(test_switch_stacks)
{
	static const uint64_t chain[] = {
		(uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000010ULL, 0xffffffff81000020ULL,
		0xffffffff81000030ULL,
		(uint64_t)PERF_CONTEXT_USER, 0x401000, 0x402000,
	};
	struct sample s = switch_sample;
	struct perfrec_layout pl = { 0 };
	uint64_t big[1 + 200 + 2];
	struct perfrec r;
	struct kfix f;
	uint8_t raw[256];
	struct rec rec;
	unsigned len, i;

	kfix_load(&f, fixture_kernels[_i]);
	len = switch_raw(&f, raw, 1);
	s.chain = chain;
	s.nchain = sizeof(chain) / sizeof(chain[0]);
	rec_sample(&rec, &s, raw, len);
	pl = (struct perfrec_layout){ .sched = &f.l, .chain_id = s.id, .kstack = true, .ustack = true };
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.kind, PERFREC_SAMPLE);
	ck_assert_uint_eq(r.nev, 3);
	assert_ev(&r.ev[0], SEV_SWITCH, s.time, 1, 1234, 1234, 77, 1);
	/*
	 * the ring backend's shape: the switch, its kernel stack, its user
	 * stack (of the thread, common_pid; the user stack with its tgid),
	 * the rest copied from the switch
	 */
	assert_ev(&r.ev[1], SEV_KSTACK, s.time, 1, 1234, 1234, 0, 1);
	ck_assert_ptr_eq(r.ev[1].comm, r.ev[0].comm);
	ck_assert_uint_eq(r.ev[1].stack_depth, 3);
	ck_assert_ptr_eq(r.ev[1].stack, r.kfr);
	ck_assert_uint_eq(r.ev[1].stack[0], 0xffffffff81000010ULL);
	ck_assert_uint_eq(r.ev[1].stack[2], 0xffffffff81000030ULL);
	assert_ev(&r.ev[2], SEV_USTACK, s.time, 1, 1234, 1234, 1200, 1);
	ck_assert_uint_eq(r.ev[2].stack_depth, 2);
	ck_assert_ptr_eq(r.ev[2].stack, r.ufr);
	ck_assert_uint_eq(r.ev[2].stack[0], 0x401000);
	ck_assert_uint_eq(r.ev[2].stack[1], 0x402000);
	check_truncations(&pl, &rec);

	/* kernel stacks only */
	pl.ustack = false;
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.nev, 2);
	ck_assert_uint_eq(r.ev[1].type, SEV_KSTACK);
	/* user stacks only, and none in the chain: no stack event */
	pl.kstack = false;
	pl.ustack = true;
	s.nchain = 4;
	rec_sample(&rec, &s, raw, len);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.nev, 1);
	/* a kernel stack is fed even when empty */
	pl.kstack = true;
	s.nchain = 1;
	rec_sample(&rec, &s, raw, len);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.nev, 2);
	ck_assert_uint_eq(r.ev[1].stack_depth, 0);

	/* deeper than STACK_MAX_DEPTH: the innermost frames kept; hv frames dropped */
	big[0] = (uint64_t)PERF_CONTEXT_KERNEL;
	for (i = 0; i < 200; i++)
		big[1 + i] = 0xffffffff82000000ULL + i;
	big[201] = (uint64_t)PERF_CONTEXT_HV;
	big[202] = 0xdead;
	s.chain = big;
	s.nchain = sizeof(big) / sizeof(big[0]);
	rec_sample(&rec, &s, raw, len);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.nev, 2);
	ck_assert_uint_eq(r.ev[1].stack_depth, STACK_MAX_DEPTH);
	ck_assert_uint_eq(r.ev[1].stack[STACK_MAX_DEPTH - 1], 0xffffffff82000000ULL + STACK_MAX_DEPTH - 1);

	/* samples of an event other than chain_id's have no callchain */
	pl.chain_id = s.id + 1;
	s.chain = NULL;
	rec_sample(&rec, &s, raw, len);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.nev, 1);
	ck_assert_int_eq(r.ev[0].next_pid, 77);

	/* a callchain longer than any the kernel writes, or one whose byte
	 * count overflows: refused before it is read */
	pl.chain_id = s.id;
	s.chain = chain;
	s.nchain = 1;
	rec_sample(&rec, &s, raw, len);
	memcpy(rec.b + 8 + 32, &(uint64_t){ 4097 }, 8);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), -EINVAL);
	memcpy(rec.b + 8 + 32, &(uint64_t){ (UINT64_MAX >> 3) + 2 }, 8);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), -EINVAL);
	kfix_free(&f);
}
END_TEST

START_TEST(test_wakeup_sample)
{
	struct sample s = { .id = 0x52, .pid = 900, .tid = 901, .time = 5000000001ULL, .cpu = 3 };
	struct perfrec_layout pl = { 0 };
	unsigned len, off, size;
	uint8_t raw[256];
	struct perfrec r;
	struct kfix f;
	struct rec rec;

	kfix_load(&f, fixture_kernels[_i]);
	/* a wakeup with a callchain id of the switch's: only switches take stacks */
	pl = (struct perfrec_layout){ .sched = &f.l, .chain_id = 0x51, .kstack = true };
	len = fmtfile_len(f.wk);
	ck_assert_uint_le(len, sizeof(raw));
	memset(raw, 0xee, len);
	raw_put(raw, f.wk, "common_type", f.wk_id);
	raw_put(raw, f.wk, "common_pid", 901);
	raw_put_str(raw, f.wk, "comm", "sleeper");
	raw_put(raw, f.wk, "pid", 4321);
	rec_sample(&rec, &s, raw, len);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.kind, PERFREC_SAMPLE);
	ck_assert_uint_eq(r.nev, 1);
	assert_ev(&r.ev[0], SEV_WAKEUP, 5000000001ULL, 3, 901, 4321, 0, 0);
	ck_assert_str_eq(r.ev[0].comm, "sleeper");
	fmtfile_field(f.wk, "comm", &off, &size);
	/* the raw data ends the record; its comm is at the format's offset */
	ck_assert_ptr_eq(r.ev[0].comm, guard - (((len + 4 + 7) & ~7u) - 4) + off);
	ck_assert_ptr_null(r.ev[0].next_comm);
	ck_assert_ptr_null(r.ev[0].stack);
	check_truncations(&pl, &rec);

	/* its callchain is parsed when its id says so, and dropped */
	pl.chain_id = s.id;
	s.chain = (const uint64_t[]){ (uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000010ULL };
	s.nchain = 2;
	rec_sample(&rec, &s, raw, len);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.nev, 1);
	ck_assert_int_eq(r.ev[0].pid, 4321);
	kfix_free(&f);
}
END_TEST

START_TEST(test_switch_records)
{
	struct perfrec_layout pl = { 0 };
	struct perfrec r;
	struct rec rec;

	/* out, preempted: 601 (of 600) leaves CPU 3 for 501 (of 500) */
	rec_switch(&rec, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT,
		   500, 501, 600, 601, 777000000123ULL, 3);
	ck_assert_uint_eq(rec.n, 40);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.kind, PERFREC_SWITCH);
	ck_assert_uint_eq(r.nev, 0);
	ck_assert(r.sw.out);
	ck_assert(r.sw.preempt);
	ck_assert_int_eq(r.sw.prev, 601);
	ck_assert_int_eq(r.sw.next, 501);
	ck_assert_uint_eq(r.sw.ts, 777000000123ULL);
	ck_assert_int_eq(r.sw.cpu, 3);
	check_truncations(&pl, &rec);

	/* out, blocked */
	rec_switch(&rec, PERF_RECORD_MISC_SWITCH_OUT, 500, 501, 600, 601, 10, 0);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert(r.sw.out);
	ck_assert(!r.sw.preempt);
	ck_assert_int_eq(r.sw.prev, 601);
	ck_assert_int_eq(r.sw.next, 501);

	/* in: 501 arrived on CPU 2 from 601; a preempt bit means nothing here */
	rec_switch(&rec, PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, 600, 601, 500, 501, 20, 2);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.kind, PERFREC_SWITCH);
	ck_assert(!r.sw.out);
	ck_assert(!r.sw.preempt);
	ck_assert_int_eq(r.sw.prev, 601);
	ck_assert_int_eq(r.sw.next, 501);
	ck_assert_uint_eq(r.sw.ts, 20);
	ck_assert_int_eq(r.sw.cpu, 2);
	check_truncations(&pl, &rec);

	/* from or to the idle task (tid 0) */
	rec_switch(&rec, 0, 0, 0, 500, 501, 30, 1);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_int_eq(r.sw.prev, 0);
	ck_assert_int_eq(r.sw.next, 501);
}
END_TEST

START_TEST(test_lost_and_others)
{
	struct perfrec_layout pl = { 0 };
	struct perfrec r;
	struct rec rec;
	uint8_t buf[64];

	rec_lost(&rec, 7, 42);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.kind, PERFREC_LOST);
	ck_assert_uint_eq(r.lost, 42);
	ck_assert_uint_eq(r.nev, 0);
	check_truncations(&pl, &rec);

	/* the header's size ends the record, not the buffer */
	memset(buf, 0xff, sizeof(buf));
	memcpy(buf, rec.b, rec.n);
	ck_assert_int_eq(parse(&pl, buf, sizeof(buf), &r), 0);
	ck_assert_uint_eq(r.lost, 42);

	/* a record type not ours, e.g. PERF_RECORD_MMAP */
	rec_start(&rec);
	rec_u64(&rec, 0);
	rec_end(&rec, PERF_RECORD_MMAP, 0);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.kind, PERFREC_NONE);
	ck_assert_uint_eq(r.nev, 0);

	/* a header whose size cannot hold the header itself */
	rec_lost(&rec, 7, 42);
	rec.b[6] = 4;
	rec.b[7] = 0;
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), -EINVAL);
	rec.b[6] = 0;
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), -EINVAL);
	ck_assert_int_eq(parse(&pl, rec.b, 0, &r), -EINVAL);
}
END_TEST

/* A PERF_RECORD_COMM: pid, tid, the name padded to 8 bytes, then sample_id_all's fields. */
static void rec_comm(struct rec *r, uint16_t misc, uint32_t pid, uint32_t tid, const char *comm)
{
	static const uint8_t zero[8];
	size_t n = strlen(comm) + 1;

	rec_start(r);
	rec_u32(r, pid);
	rec_u32(r, tid);
	rec_put(r, comm, n);
	rec_put(r, zero, (8 - n % 8) % 8);
	rec_u32(r, pid);
	rec_u32(r, tid);
	rec_u64(r, 123);
	rec_u32(r, 1);
	rec_u32(r, 0);
	rec_end(r, PERF_RECORD_COMM, misc);
}

/* an exec's new name: what a recording names a short-lived command by */
START_TEST(test_comm_record)
{
	struct perfrec_layout pl = { 0 };
	struct perfrec r;
	struct rec rec;

	rec_comm(&rec, PERF_RECORD_MISC_COMM_EXEC, 40, 41, "dd");
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.kind, PERFREC_COMM);
	ck_assert_int_eq(r.comm.pid, 40);
	ck_assert_int_eq(r.comm.tid, 41);
	ck_assert_str_eq(r.comm.comm, "dd");
	ck_assert(r.comm.exec);
	/* when and where: the merge applies it in time order */
	ck_assert_uint_eq(r.comm.ts, 123);
	ck_assert_int_eq(r.comm.cpu, 1);
	ck_assert_uint_eq(r.nev, 0);
	check_truncations(&pl, &rec);
	/* a name of 16 bytes and more is cut to COMM_LEN - 1 */
	rec_comm(&rec, 0, 40, 42, "a-very-long-thread-name");
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_str_eq(r.comm.comm, "a-very-long-thr");
	ck_assert(!r.comm.exec);
	/* no NUL before the record's end: malformed */
	rec_start(&rec);
	rec_u32(&rec, 40);
	rec_u32(&rec, 41);
	rec_put(&rec, "abcdefgh", 8);
	rec_end(&rec, PERF_RECORD_COMM, 0);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), -EINVAL);
}
END_TEST

/* A PERF_RECORD_FORK: pid, ppid, tid, ptid, time, then sample_id_all's fields (the parent's). */
static void rec_fork(struct rec *r, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
		     uint64_t ts, uint32_t cpu)
{
	rec_start(r);
	rec_u32(r, pid);
	rec_u32(r, ppid);
	rec_u32(r, tid);
	rec_u32(r, ptid);
	rec_u64(r, ts);
	rec_u32(r, ppid);
	rec_u32(r, ptid);
	rec_u64(r, ts);
	rec_u32(r, cpu);
	rec_u32(r, 0);
	rec_end(r, PERF_RECORD_FORK, 0);
}

/* without the sched_process_fork tracepoint, the records follow -- COMMAND's descendants */
START_TEST(test_fork_record)
{
	struct perfrec_layout pl = { 0 };
	struct perfrec r;
	struct rec rec;

	/* thread 702 of process 700 started by thread 701, on CPU 1 */
	rec_fork(&rec, 700, 700, 702, 701, 5000, 1);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.kind, PERFREC_FORK);
	ck_assert_uint_eq(r.nev, 1);
	assert_ev(&r.ev[0], SEV_FORK, 5000, 1, 701, 701, 702, 0);
	check_truncations(&pl, &rec);
}
END_TEST

START_TEST(test_raw_size)
{
	struct perfrec_layout pl = { 0 };
	uint8_t raw[256];
	struct perfrec r;
	struct kfix f;
	struct rec rec;
	unsigned len;
	size_t at;

	kfix_load(&f, fixture_kernels[_i]);
	pl.sched = &f.l;
	len = switch_raw(&f, raw, 2);
	rec_sample(&rec, &switch_sample, raw, len);
	at = 8 + 32;	/* the header, id, pid/tid, time, cpu/res */
	/* the raw data's size beyond the record, by one byte and by far */
	memcpy(rec.b + at, &(uint32_t){ (uint32_t)(rec.n - at - 4 + 1) }, 4);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), -EINVAL);
	memcpy(rec.b + at, &(uint32_t){ UINT32_MAX }, 4);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), -EINVAL);
	/* exactly the record: accepted */
	memcpy(rec.b + at, &(uint32_t){ (uint32_t)(rec.n - at - 4) }, 4);
	ck_assert_int_eq(parse_rec(&pl, &rec, &r), 0);
	ck_assert_uint_eq(r.kind, PERFREC_SAMPLE);
	kfix_free(&f);
}
END_TEST

/* the drop probe's verdict from its per-CPU counts (since a first read of 100, 90, 7) */
static void probe_cpu(struct drop_probe *p, uint64_t sw, uint64_t rec, int64_t to_idle)
{
	const uint64_t base[3] = { 100, 90, 7 };
	uint64_t now[3] = { 100 + sw, 90 + rec, to_idle < 0 ? UINT64_MAX : 7 + (uint64_t)to_idle };

	drop_probe_add(p, (int)p->ncpu, base, now);
}

START_TEST(test_drop_verdict)
{
	struct drop_probe *p = calloc(1, sizeof(*p));

	ck_assert_ptr_nonnull(p);
	/* both CPUs idled (4 sleeps: 4 to idle, 1 more at exit), all recorded */
	probe_cpu(p, 10, 10, 5);
	probe_cpu(p, 10, 10, 5);
	ck_assert_int_eq(drop_probe_verdict(p), DROPS_NONE);
	/* CPU 1 lost its switches from idle */
	memset(p, 0, sizeof(*p));
	probe_cpu(p, 10, 10, 5);
	probe_cpu(p, 10, 6, 5);
	ck_assert_int_eq(drop_probe_verdict(p), DROPS_SEEN);
	/* CPU 1 busy all along (never idle, or only at the sleeper's exit) */
	memset(p, 0, sizeof(*p));
	probe_cpu(p, 10, 10, 5);
	probe_cpu(p, 9, 9, 1);
	ck_assert_int_eq(drop_probe_verdict(p), DROPS_BUSY);
	p->cpu[1].to_idle = 0;
	ck_assert_int_eq(drop_probe_verdict(p), DROPS_BUSY);
	/* losses seen on one CPU outweigh another's being busy */
	p->cpu[0].drops = true;
	ck_assert_int_eq(drop_probe_verdict(p), DROPS_SEEN);
	/* a kernel without the filter (to_idle -1): as before, NONE */
	memset(p, 0, sizeof(*p));
	probe_cpu(p, 10, 10, -1);
	probe_cpu(p, 10, 10, -1);
	ck_assert_int_eq(drop_probe_verdict(p), DROPS_NONE);
	/* too few switches to tell */
	memset(p, 0, sizeof(*p));
	probe_cpu(p, 2, 2, 2);
	ck_assert_int_eq(drop_probe_verdict(p), DROPS_UNKNOWN);
	/*
	 * one hit short is a loss: the counts are deltas since a first read,
	 * and a read never splits a switch's two counts
	 */
	memset(p, 0, sizeof(*p));
	probe_cpu(p, 10, 10, 5);
	probe_cpu(p, 10, 9, 5);
	ck_assert(p->cpu[1].drops && !p->cpu[0].drops);
	ck_assert_uint_eq(p->switches, 20);
	ck_assert_uint_eq(p->recorded, 19);
	ck_assert_int_eq(p->cpu[1].to_idle, 5);
	ck_assert_int_eq(drop_probe_verdict(p), DROPS_SEEN);
	free(p);
}
END_TEST

/* the names a perf switch record gets: the stream's at each moment */
START_TEST(test_pnames)
{
	struct pnames n;
	const struct pname *p;
	int32_t t;

	ck_assert_int_eq(pnames_init(&n, 64), 0);
	ck_assert_ptr_null(pnames_get(&n, 41));
	ck_assert_str_eq(pnames_get(&n, 0)->comm, "swapper");
	/* the snapshot, then a wakeup's payload: a priority, the name kept */
	pnames_set(&n, 41, "gcc", 120);
	pnames_set(&n, 41, NULL, 110);
	p = pnames_get(&n, 41);
	ck_assert_str_eq(p->comm, "gcc");
	ck_assert_int_eq(p->prio, 110);
	/* a fork: the child is named as its parent now */
	pnames_fork(&n, 41, 42);
	ck_assert_str_eq(pnames_get(&n, 42)->comm, "gcc");
	ck_assert_int_eq(pnames_get(&n, 42)->prio, 110);
	/* its exec: the new name from then on, the parent's unchanged */
	pnames_set(&n, 42, "cc1", -1);
	ck_assert_str_eq(pnames_get(&n, 42)->comm, "cc1");
	ck_assert_str_eq(pnames_get(&n, 41)->comm, "gcc");
	/* a priority alone names no one */
	pnames_set(&n, 43, "", 120);
	ck_assert_ptr_null(pnames_get(&n, 43));
	pnames_fork(&n, 99, 44);	/* an unknown parent: nothing */
	ck_assert_ptr_null(pnames_get(&n, 44));
	/* bounded: past 64 slots the least recently used go, never a wrong name */
	for (t = 1000; t < 1200; t++)
		pnames_set(&n, t, "many", 120);
	ck_assert_uint_gt(n.evicted, 0);
	for (t = 1000; t < 1200; t++) {
		p = pnames_get(&n, t);
		ck_assert(!p || !strcmp(p->comm, "many"));
	}
	ck_assert_str_eq(pnames_get(&n, 1199)->comm, "many");
	pnames_fini(&n);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("perfrec");
	TCase *tc = tcase_create("records");
	int nkern = 0;

	while (fixture_kernels[nkern])
		nkern++;
	tcase_add_loop_test(tc, test_switch_sample, 0, nkern);
	tcase_add_loop_test(tc, test_switch_stacks, 0, nkern);
	tcase_add_loop_test(tc, test_wakeup_sample, 0, nkern);
	tcase_add_loop_test(tc, test_raw_size, 0, nkern);
	tcase_add_test(tc, test_switch_records);
	tcase_add_test(tc, test_lost_and_others);
	tcase_add_test(tc, test_comm_record);
	tcase_add_test(tc, test_fork_record);
	tcase_add_test(tc, test_drop_verdict);
	tcase_add_test(tc, test_pnames);
	suite_add_tcase(s, tc);
	return check_run(s);
}
