// SPDX-License-Identifier: GPL-2.0-or-later
/* Sched events written as ring-buffer records, page by page (encode.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"

#define RB_TYPE_TIME_EXTEND 30
#define RB_MAX_SMALL_DATA (28 * 4)	/* larger records: type_len 0 and a length */
#define DELTA_MAX ((1u << 27) - 1)
#define MAX_RECORD 4096

int page_enc_init(struct page_enc *e, const struct sched_layout *l, unsigned cpu)
{
	memset(e, 0, sizeof(*e));
	if (!l->page_size || l->page_data_off != 8 + sizeof(long) || l->page_commit_off != 8 ||
	    l->page_commit_size != sizeof(long) || l->page_size <= l->page_data_off + 64)
		return -EINVAL;
	e->l = l;
	e->cpu = cpu;
	e->page = calloc(1, l->page_size);
	return e->page ? 0 : -ENOMEM;
}

void page_enc_fini(struct page_enc *e)
{
	free(e->page);
	memset(e, 0, sizeof(*e));
}

static void put_int(uint8_t *p, const struct field_loc *f, int64_t v)
{
	uint64_t u = (uint64_t)v;
	uint32_t u32 = (uint32_t)u;
	uint16_t u16 = (uint16_t)u;

	switch (f->size) {
	case 8: memcpy(p + f->off, &u, 8); break;
	case 4: memcpy(p + f->off, &u32, 4); break;
	case 2: memcpy(p + f->off, &u16, 2); break;
	case 1: p[f->off] = (uint8_t)u; break;
	default: break;
	}
}

static void put_comm(uint8_t *p, const struct field_loc *f, const char *comm)
{
	/* as the kernel's: at most TASK_COMM_LEN - 1 bytes and a NUL */
	size_t n = (f->size < COMM_LEN ? f->size : COMM_LEN) - 1;

	if (f->size && comm)
		memcpy(p + f->off, comm, strnlen(comm, n));
}

/* The record's payload in @rec; its size, or 0 when it has no format here. */
static uint32_t payload(const struct sched_layout *l, const struct sched_event *ev,
			uint8_t rec[MAX_RECORD])
{
	unsigned t = ev->type;
	uint32_t size, i, n;

	if (t < SEV_SWITCH || t > SEV_USTACK || l->id[t] < 0)
		return 0;
	size = l->full_size[t] > l->min_size[t] ? l->full_size[t] : l->min_size[t];
	if (t >= SEV_KSTACK) {
		/*
		 * a kernel stack: exactly its frames, as the kernel writes one
		 * (the format's caller[8] is no minimum since 6.x: zeros past the
		 * stack's end would read as frames, trace-cmd's "=> 0"); a user
		 * stack's record is the format's whole, zero-terminated
		 */
		n = ev->stack_depth < STACK_MAX_DEPTH ? ev->stack_depth : STACK_MAX_DEPTH;
		if (t == SEV_KSTACK)
			size = l->caller[0].off + 8 * n;
		else if (l->caller[1].off + 8 * n > size)
			size = l->caller[1].off + 8 * n;	/* user stacks: at least [8] */
	}
	size = (size + 3) & ~3u;
	if (size > MAX_RECORD)
		return 0;
	memset(rec, 0, size);
	put_int(rec, &l->common_type, l->id[t]);
	put_int(rec, &l->common_pid, ev->common_pid);
	switch (t) {
	case SEV_SWITCH:
		put_comm(rec, &l->comm[t], ev->comm);
		put_int(rec, &l->pid[t], ev->pid);
		put_int(rec, &l->prev_state, ev->prev_state);
		put_comm(rec, &l->next_comm, ev->next_comm);
		put_int(rec, &l->next_pid, ev->next_pid);
		if (ev->has_prio) {
			put_int(rec, &l->prio[t], ev->prio);
			put_int(rec, &l->next_prio, ev->next_prio);
		}
		break;
	case SEV_FORK:
		put_int(rec, &l->pid[t], ev->pid);
		put_int(rec, &l->child_pid, ev->next_pid);
		break;
	case SEV_KSTACK:
	case SEV_USTACK:
		/* kernel_stack: its frame count; user_stack: the tgid */
		put_int(rec, &l->pid[t], t == SEV_KSTACK ? (int64_t)ev->stack_depth : ev->next_pid);
		n = (size - l->caller[t - SEV_KSTACK].off) / 8;
		for (i = 0; i < n && i < ev->stack_depth; i++)
			memcpy(rec + l->caller[t - SEV_KSTACK].off + 8 * i, &ev->stack[i], 8);
		break;
	default:	/* the wakeups */
		put_comm(rec, &l->comm[t], ev->comm);
		put_int(rec, &l->pid[t], ev->pid);
		if (ev->has_target)
			put_int(rec, &l->target_cpu[t], ev->target_cpu);
		if (ev->has_prio)
			put_int(rec, &l->prio[t], ev->prio);
		break;
	}
	return size;
}

int page_enc_flush(struct page_enc *e, page_emit_fn emit, void *arg)
{
	uint64_t commit = e->used;
	int ret;

	if (!e->open)
		return 0;
	memcpy(e->page + e->l->page_commit_off, &commit, sizeof(long));
	ret = emit(arg, e->cpu, e->page);
	memset(e->page, 0, e->l->page_size);
	e->used = 0;
	e->open = false;
	return ret;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

int page_enc_add(struct page_enc *e, const struct sched_event *ev, page_emit_fn emit, void *arg)
{
	const struct sched_layout *l = e->l;
	uint32_t room = l->page_size - l->page_data_off, size, need, hdr;
	uint8_t rec[MAX_RECORD], *p;
	uint64_t delta;
	bool extend;
	int ret;

	size = payload(l, ev, rec);
	if (!size) {
		e->skipped++;
		return 0;
	}
	/* a CPU's events in time order: one out of it begins a page of its own */
	if (e->open && ev->ts < e->last_ts && (ret = page_enc_flush(e, emit, arg)))
		return ret;
	delta = e->open ? ev->ts - e->last_ts : 0;
	extend = delta > DELTA_MAX;
	need = (extend ? 8 : 0) + (size > RB_MAX_SMALL_DATA ? 8 : 4) + size;
	if (need > room) {
		e->skipped++;	/* larger than a page: not a record the kernel writes */
		return 0;
	}
	if (e->open && e->used + need > room) {
		ret = page_enc_flush(e, emit, arg);
		if (ret)
			return ret;
		delta = 0;
		extend = false;
		need = (size > RB_MAX_SMALL_DATA ? 8 : 4) + size;
	}
	if (!e->open) {
		memcpy(e->page, &ev->ts, 8);	/* the page's time: its first record's */
		e->open = true;
	}
	p = e->page + l->page_data_off + e->used;
	if (extend) {
		put32(p, RB_TYPE_TIME_EXTEND | (uint32_t)(delta & DELTA_MAX) << 5);
		put32(p + 4, (uint32_t)(delta >> 27));
		p += 8;
		e->used += 8;
		delta = 0;
	}
	if (size > RB_MAX_SMALL_DATA) {
		hdr = (uint32_t)delta << 5;	/* type_len 0: the length word follows */
		put32(p, hdr);
		put32(p + 4, size + 4);
		memcpy(p + 8, rec, size);
		e->used += 8 + size;
	} else {
		hdr = (size / 4) | (uint32_t)delta << 5;
		put32(p, hdr);
		memcpy(p + 4, rec, size);
		e->used += 4 + size;
	}
	e->last_ts = ev->ts;
	return 0;
}
