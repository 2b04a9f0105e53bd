// SPDX-License-Identifier: GPL-2.0-or-later
/* Raw ring-buffer pages walked and their sched records decoded by offset. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "decode.h"

static inline int64_t get_int(const uint8_t *p, const struct field_loc *f)
{
	switch (f->size) {
	case 4: {
		uint32_t v;

		memcpy(&v, p + f->off, 4);
		return f->is_signed ? (int64_t)(int32_t)v : (int64_t)v;
	}
	case 8: {
		uint64_t v;

		memcpy(&v, p + f->off, 8);
		return (int64_t)v;
	}
	case 2: {
		uint16_t v;

		memcpy(&v, p + f->off, 2);
		return f->is_signed ? (int64_t)(int16_t)v : (int64_t)v;
	}
	case 1:
		return f->is_signed ? (int64_t)(int8_t)p[f->off] : (int64_t)p[f->off];
	default:
		return 0;
	}
}

/*
 * A cgroup event's hierarchy and path. The path is the record's own bytes:
 * it must lie inside the record and end in a NUL (the kernel writes
 * strlen + 1 bytes), else it is NULL.
 */
static void decode_cgroup(const struct cgroup_loc *c, const uint8_t *p, uint32_t size,
			  struct sched_event *ev)
{
	uint32_t loc = (uint32_t)get_int(p, &c->path), off = loc & 0xffff, len = loc >> 16;

	ev->next_pid = 0;
	ev->comm = NULL;
	ev->next_comm = NULL;
	ev->prev_state = 0;
	ev->cg_root = (int32_t)get_int(p, &c->root);
	ev->cg_level = c->level.size ? (int32_t)get_int(p, &c->level) : -1;
	ev->cg_id = c->id.size ? (uint64_t)get_int(p, &c->id) : 0;
	/* __rel_loc: from the end of the field */
	if (c->path_rel)
		off += (uint32_t)c->path.off + 4;
	ev->cg_path = len && off <= size && len <= size - off && !p[off + len - 1] ?
		      (const char *)p + off : NULL;
}

unsigned decode_record(const struct sched_layout *l, const void *data,
		       uint32_t size, uint64_t ts, int32_t cpu,
		       struct sched_event *ev)
{
	const uint8_t *p = data;
	uint16_t id;
	unsigned t;

	if (size < (uint32_t)l->common_type.off + 2)
		return 0;
	memcpy(&id, p + l->common_type.off, 2);
	for (t = SEV_SWITCH; t < SEV_NTYPES; t++)
		if (l->id[t] == id)
			break;
	if (t == SEV_NTYPES || size < l->min_size[t])
		return 0;
	ev->ts = ts;
	ev->cpu = cpu;
	ev->type = (uint8_t)t;
	ev->common_pid = (int32_t)get_int(p, &l->common_pid);
	ev->pid = (int32_t)get_int(p, &l->pid[t]);
	ev->comm = (const char *)p + l->comm[t].off;	/* fork: reset below */
	ev->stack = NULL;
	ev->stack_depth = 0;
	ev->cg_path = NULL;
	ev->has_target = l->target_cpu[t].size != 0;
	ev->has_prio = l->prio[t].size != 0;
	ev->prio = ev->has_prio ? (int32_t)get_int(p, &l->prio[t]) : -1;
	ev->next_prio = ev->has_prio && t == SEV_SWITCH ? (int32_t)get_int(p, &l->next_prio) : -1;
	ev->target_cpu = ev->has_target ? (int32_t)get_int(p, &l->target_cpu[t]) : -1;
	if (t == SEV_FORK) {
		ev->next_pid = (int32_t)get_int(p, &l->child_pid);
		ev->comm = NULL;
		ev->next_comm = NULL;
		ev->prev_state = 0;
	} else if (sched_ev_is_stack(t)) {
		ev->next_pid = t == SEV_USTACK ? ev->pid : 0;	/* tgid */
		ev->pid = ev->common_pid;
		ev->comm = NULL;
		ev->next_comm = NULL;
		ev->prev_state = 0;
	} else if (t == SEV_CGROUP_ATTACH || t == SEV_CGROUP_TRANSFER) {
		decode_cgroup(&l->cg[t - SEV_CGROUP_ATTACH], p, size, ev);
	} else if (t == SEV_SWITCH) {
		ev->next_pid = (int32_t)get_int(p, &l->next_pid);
		ev->next_comm = (const char *)p + l->next_comm.off;
		ev->prev_state = get_int(p, &l->prev_state);
	} else {
		ev->next_pid = 0;
		ev->next_comm = NULL;
		ev->prev_state = 0;
	}
	/*
	 * an empty name is no name, as a live event without one has it (a
	 * recorded switch perf had from its context-switch records): a ""
	 * would replace the name the thread's wakeup gave it
	 */
	if (ev->comm && !ev->comm[0])
		ev->comm = NULL;
	if (ev->next_comm && !ev->next_comm[0])
		ev->next_comm = NULL;
	return t;
}

/* PID_MAX_LIMIT on 64-bit kernels: no task id is larger */
#define SCHED_PID_MAX 4194304

/*
 * A task id a recording can hold: 0 .. PID_MAX_LIMIT, or -1, which perf
 * gives for a task gone (or not in its pid namespace) and our perf
 * backend writes for the side of a switch its records did not name.
 */
static bool pid_ok(int32_t pid)
{
	return pid >= -1 && pid <= SCHED_PID_MAX;
}

bool decode_plausible(const struct sched_event *ev, unsigned ncpu_max)
{
	if (!pid_ok(ev->pid) || !pid_ok(ev->common_pid))
		return false;
	/* a switch's next task, a fork's child, a user stack's process */
	if ((ev->type == SEV_SWITCH || ev->type == SEV_FORK || ev->type == SEV_USTACK) &&
	    !pid_ok(ev->next_pid))
		return false;
	return !ev->has_target || (ev->target_cpu >= 0 && (unsigned)ev->target_cpu < ncpu_max);
}

void decode_stack(const struct sched_layout *l, const void *data, uint32_t size,
		  struct sched_event *ev, uint64_t frames[STACK_MAX_DEPTH])
{
	const struct field_loc *f = &l->caller[ev->type - SEV_KSTACK];
	const uint8_t *p = data;
	uint32_t room, n, i;

	/* what the record really holds bounds what its header claims */
	room = size > f->off ? (size - f->off) / 8 : 0;
	n = room;
	if (ev->type == SEV_KSTACK) {
		int64_t claimed = get_int(p, &l->pid[SEV_KSTACK]);

		if (claimed >= 0 && (uint64_t)claimed < n)
			n = (uint32_t)claimed;
	}
	if (n > STACK_MAX_DEPTH)
		n = STACK_MAX_DEPTH;
	for (i = 0; i < n; i++) {
		memcpy(&frames[i], p + f->off + 8 * i, 8);
		/* user stacks end at the first empty slot */
		if (ev->type == SEV_USTACK && (frames[i] == 0 || frames[i] == UINT64_MAX))
			break;
	}
	ev->stack = frames;
	ev->stack_depth = i;
}

/* commit word flags in the page header (kernel ring_buffer.c) */
#define RB_MISSED_EVENTS (1UL << 31)
#define RB_MISSED_STORED (1UL << 30)
#define RB_MISSED_MASK (RB_MISSED_EVENTS | RB_MISSED_STORED)
/* record header type_len values (ring_buffer.h); 1-28: data of 4 * N bytes */
#define RB_TYPE_PADDING 29
#define RB_TYPE_TIME_EXTEND 30
#define RB_TYPE_TIME_STAMP 31

/*
 * Before walk() trusts the record headers, follow them as it will and
 * refuse a page where it would read past the @room bytes after the page
 * header, hand out a record running past the @size committed bytes, or
 * not move forward (a padding of length -4 loops for ever).
 */
static bool page_records_ok(const uint8_t *data, uint32_t size, size_t room)
{
	uint32_t off = 0, hdr, type, len = 0, next;
	uint64_t end;

	while (off < size) {
		/* the header word, and the word after it but for data */
		if (room - off < 4)
			return false;
		memcpy(&hdr, data + off, 4);
		type = hdr & 0x1f;
		if (type == 0 || type >= RB_TYPE_PADDING) {
			if (room - off < 8)
				return false;
			memcpy(&len, data + off + 4, 4);
		}
		switch (type) {
		case RB_TYPE_PADDING:
			next = off + 4 + len;	/* walk()'s unsigned sum */
			if (next >= size)
				return true;	/* the rest of the page */
			if (next <= off)
				return false;
			break;
		case RB_TYPE_TIME_EXTEND:
		case RB_TYPE_TIME_STAMP:
			next = off + 8;
			break;
		case 0:
			/* the length word counts itself; rounded up */
			end = (uint64_t)off + 8 + (((uint64_t)len + 3 - 4) & ~(uint64_t)3);
			if (len < 4 || end > size)
				return false;
			next = (uint32_t)end;
			break;
		default:
			end = (uint64_t)off + 4 + 4 * type;
			if (end > size)
				return false;
			next = (uint32_t)end;
			break;
		}
		off = next;
	}
	return true;
}

int page_cursor_init(struct page_cursor *c, const struct sched_layout *l)
{
	(void)l;
	memset(c, 0, sizeof(*c));
	return 0;
}

void page_cursor_fini(struct page_cursor *c)
{
	memset(c, 0, sizeof(*c));
}

static inline uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* the top bits of an absolute time stamp the ring buffer does not store */
#define TS_MSB (0xf8ULL << 56)

/*
 * Walk to the next data record from c->off, as the kernel's reader does
 * (rb_update_read_stamp): data and time extends add their delta, an
 * absolute time stamp replaces the time (its top bits from the current
 * one), padding (discarded events) adds nothing. page_records_ok() has
 * checked every header and length against the page.
 */
static void walk(struct page_cursor *c)
{
	while (c->off < c->size) {
		const uint8_t *h = c->data + c->off;
		uint32_t hdr = rd32(h), type = hdr & 0x1f, delta = hdr >> 5, len;
		uint64_t abs;

		switch (type) {
		case RB_TYPE_PADDING:
			c->off += 4 + rd32(h + 4);
			continue;
		case RB_TYPE_TIME_EXTEND:
			c->ts += ((uint64_t)rd32(h + 4) << 27) + delta;
			c->off += 8;
			continue;
		case RB_TYPE_TIME_STAMP:
			abs = ((uint64_t)rd32(h + 4) << 27) | delta;
			if (c->ts & TS_MSB) {
				abs |= c->ts & TS_MSB;
				if (abs < c->ts)
					abs += 1ULL << 59;
			}
			c->ts = abs;
			c->off += 8;
			continue;
		case 0:
			/* the length word counts itself; the payload is rounded up */
			len = (rd32(h + 4) + 3 - 4) & ~3u;
			c->ts += delta;
			c->rec = (void *)(h + 8);
			c->rec_size = len;
			c->off += 8 + len;
			return;
		default:
			c->ts += delta;
			c->rec = (void *)(h + 4);
			c->rec_size = 4 * type;
			c->off += 4 + 4 * type;
			return;
		}
	}
	c->rec = NULL;
	c->rec_size = 0;
}

int page_cursor_load(struct page_cursor *c, const struct sched_layout *l,
		     void *page, size_t len)
{
	uint64_t commit = 0, stored = 0, page_ts;
	int missed = 0;

	c->rec = NULL;
	/* the page header: u64 time stamp, long commit, then the data */
	if (l->page_commit_off != 8 || l->page_commit_size != sizeof(long) ||
	    l->page_data_off != 8 + sizeof(long) || len < l->page_data_off)
		return -EINVAL;
	memcpy(&commit, (uint8_t *)page + l->page_commit_off, l->page_commit_size);
	/* the count of missed events, when stored, follows the data */
	if ((commit & RB_MISSED_STORED) &&
	    (commit & ~(uint64_t)RB_MISSED_MASK) + sizeof(long) > len - l->page_data_off)
		return -EINVAL;
	if (commit & RB_MISSED_EVENTS) {
		missed = -1;
		if (commit & RB_MISSED_STORED) {
			memcpy(&stored, (uint8_t *)page + l->page_data_off +
			       (commit & ~(uint64_t)RB_MISSED_MASK), sizeof(long));
			/* an int: a count above INT_MAX must not look like -EINVAL */
			missed = stored > INT32_MAX ? -1 : (int)stored;
		}
	}
	commit &= ~(uint64_t)RB_MISSED_MASK;
	if (commit > len - l->page_data_off || commit >= (1u << 27) ||
	    !page_records_ok((uint8_t *)page + l->page_data_off, (uint32_t)commit,
			     len - l->page_data_off))
		return -EINVAL;
	memcpy(&page_ts, page, 8);
	c->data = (const uint8_t *)page + l->page_data_off;
	c->size = (uint32_t)commit;
	c->off = 0;
	c->ts = page_ts;
	walk(c);
	return missed;
}

void page_cursor_next(struct page_cursor *c)
{
	walk(c);
}

uint32_t page_cursor_size(const struct page_cursor *c)
{
	return c->rec ? c->rec_size : 0;
}
