// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Decoding one perf ring record (see perfrec.h). Records are only as
 * aligned as the ring or the wrap-around copy leaves them: every field is
 * copied out, and each read is checked against the record's end first.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "decode.h"
#include "perfrec.h"

#define GET(p, end, v)                                   \
	do {                                             \
		if ((size_t)((end) - (p)) < sizeof(v))   \
			return -EINVAL;                  \
		memcpy(&(v), (p), sizeof(v));            \
		(p) += sizeof(v);                        \
	} while (0)

/*
 * A longer callchain is refused: we ask for STACK_MAX_DEPTH frames, to
 * which the kernel adds only its few context markers.
 */
#define CHAIN_MAX 4096

/* Split a callchain at its context markers into kernel and user frames. */
static void split_chain(struct perfrec *r, const uint8_t *p, uint64_t nr,
			uint32_t *nk, uint32_t *nu)
{
	uint64_t i, ip;
	int ctx = 0;	/* 1 kernel, 2 user */

	*nk = *nu = 0;
	for (i = 0; i < nr; i++) {
		memcpy(&ip, p + 8 * i, 8);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = ip == (uint64_t)PERF_CONTEXT_KERNEL ? 1 :
			      ip == (uint64_t)PERF_CONTEXT_USER ? 2 : 0;
			continue;
		}
		if (ctx == 1 && *nk < STACK_MAX_DEPTH)
			r->kfr[(*nk)++] = ip;
		else if (ctx == 2 && *nu < STACK_MAX_DEPTH)
			r->ufr[(*nu)++] = ip;
	}
}

/* PERF_SAMPLE_TID | TIME | CPU: in a sample, and in a record's sample_id */
struct rec_ids {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
};

/* Read them at *@pp and move past; 0 or -EINVAL. */
static int get_ids(const uint8_t **pp, const uint8_t *end, struct rec_ids *ids)
{
	const uint8_t *p = *pp;
	uint32_t res;

	GET(p, end, ids->pid);
	GET(p, end, ids->tid);
	GET(p, end, ids->time);
	GET(p, end, ids->cpu);
	GET(p, end, res);
	(void)res;
	*pp = p;
	return 0;
}

/* A PERF_RECORD_SWITCH_CPU_WIDE record's body, after its header. */
static int parse_switch(uint16_t misc, const uint8_t *p, const uint8_t *end,
			struct perfrec *r)
{
	bool out = misc & PERF_RECORD_MISC_SWITCH_OUT;
	uint32_t other_pid, other_tid;
	struct rec_ids ids;

	GET(p, end, other_pid);
	GET(p, end, other_tid);
	(void)other_pid;
	if (get_ids(&p, end, &ids))	/* sample_id */
		return -EINVAL;
	r->kind = PERFREC_SWITCH;
	r->sw.ts = ids.time;
	r->sw.cpu = (int32_t)ids.cpu;
	r->sw.prev = (int32_t)(out ? ids.tid : other_tid);
	r->sw.next = (int32_t)(out ? other_tid : ids.tid);
	r->sw.out = out;
	r->sw.preempt = out && (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	return 0;
}

/* A switch's stack: a copy of the switch, as the ring backend feeds it. */
static void add_stack(struct perfrec *r, unsigned type, int32_t next_pid,
		      const uint64_t *frames, uint32_t depth)
{
	struct sched_event *ev = &r->ev[r->nev++];

	*ev = r->ev[0];
	ev->type = (uint8_t)type;
	ev->pid = r->ev[0].common_pid;
	ev->next_pid = next_pid;
	ev->stack = frames;
	ev->stack_depth = depth;
}

/*
 * An on-CPU sample (profile): the task the CPU clock found running, the
 * time since the CPU's last sample, and where it was (kernel frames in
 * ev.stack, user frames in ev.ustack).
 */
static int parse_cpu_sample(const uint8_t *p, const uint8_t *end, const struct rec_ids *ids,
			    struct perfrec *r)
{
	struct sched_event *ev = &r->ev[0];
	uint32_t nk = 0, nu = 0;
	uint64_t period, nr;

	GET(p, end, period);
	GET(p, end, nr);
	if (nr > CHAIN_MAX || (uint64_t)(end - p) < 8 * nr)
		return -EINVAL;
	memset(ev, 0, sizeof(*ev));
	split_chain(r, p, nr, &nk, &nu);
	ev->ts = ids->time;
	ev->cpu = (int32_t)ids->cpu;
	ev->type = SEV_SAMPLE;
	ev->pid = ev->common_pid = (int32_t)ids->tid;
	ev->next_pid = (int32_t)ids->pid;	/* tgid */
	ev->target_cpu = -1;
	ev->period = period;
	ev->stack = r->kfr;
	ev->stack_depth = nk;
	ev->ustack = r->ufr;
	ev->ustack_depth = nu;
	r->kind = PERFREC_SAMPLE;
	r->nev = 1;
	return 0;
}

/*
 * A PERF_RECORD_SAMPLE's body. Samples start with their event id
 * (PERF_SAMPLE_IDENTIFIER): only the chain_id event's carry a callchain.
 */
static int parse_sample(const struct perfrec_layout *l, const uint8_t *p,
			const uint8_t *end, struct perfrec *r)
{
	uint32_t raw_size, nk = 0, nu = 0;
	const uint8_t *chain = NULL;
	uint64_t id, nr = 0;
	struct rec_ids ids;

	GET(p, end, id);
	if (get_ids(&p, end, &ids))
		return -EINVAL;
	if (l->sample_id && id == l->sample_id)
		return parse_cpu_sample(p, end, &ids, r);
	if ((l->chain_id && id == l->chain_id) || (l->wake_chain_id && id == l->wake_chain_id)) {
		GET(p, end, nr);
		if (nr > CHAIN_MAX || (uint64_t)(end - p) < 8 * nr)
			return -EINVAL;
		chain = p;
		p += 8 * nr;
	}
	GET(p, end, raw_size);
	if ((uint64_t)(end - p) < raw_size)
		return -EINVAL;
	if (!decode_record(l->sched, p, raw_size, ids.time, (int32_t)ids.cpu, &r->ev[0]))
		return 0;	/* PERFREC_NONE */
	r->kind = PERFREC_SAMPLE;
	r->nev = 1;
	if (chain && r->ev[0].type == SEV_WAKING) {
		/* the waker's kernel stack: the task current there */
		split_chain(r, chain, nr, &nk, &nu);
		add_stack(r, SEV_KSTACK, 0, r->kfr, nk);
		return 0;
	}
	if (!chain || r->ev[0].type != SEV_SWITCH)
		return 0;
	split_chain(r, chain, nr, &nk, &nu);
	if (l->kstack)
		add_stack(r, SEV_KSTACK, 0, r->kfr, nk);
	if (l->ustack && nu)
		add_stack(r, SEV_USTACK, (int32_t)ids.pid /* tgid */, r->ufr, nu);
	return 0;
}

void perfrec_switch_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a->sample_id_all = 1;
	a->context_switch = 1;
	a->disabled = 1;
}

int perfrec_parse(const struct perfrec_layout *l, const void *buf, size_t len,
		  struct perfrec *r)
{
	const uint8_t *rec = buf, *end;
	struct perf_event_header h;

	r->kind = PERFREC_NONE;
	r->nev = 0;
	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	if (h.size < sizeof(h) || h.size > len)
		return -EINVAL;
	end = rec + h.size;
	rec += sizeof(h);
	switch (h.type) {
	case PERF_RECORD_LOST: {
		uint64_t id, lost;

		GET(rec, end, id);
		GET(rec, end, lost);
		(void)id;
		r->kind = PERFREC_LOST;
		r->lost = lost;
		return 0;
	}
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return parse_switch(h.misc, rec, end, r);
	case PERF_RECORD_COMM: {
		uint32_t pid, tid;
		const uint8_t *nul;

		GET(rec, end, pid);
		GET(rec, end, tid);
		/* the name, NUL-terminated and padded to 8 bytes, then sample_id */
		nul = memchr(rec, '\0', (size_t)(end - rec));
		if (!nul || nul == rec)
			return -EINVAL;
		{
			size_t padded = ((size_t)(nul - rec) + 1 + 7) & ~(size_t)7;
			const uint8_t *ids_at = rec + padded;
			struct rec_ids ids;

			/* the name's padding and sample_id fit, as in every record of ours */
			if (padded > (size_t)(end - rec) || get_ids(&ids_at, end, &ids))
				return -EINVAL;
			r->comm.ts = ids.time;
			r->comm.cpu = (int32_t)ids.cpu;
		}
		r->kind = PERFREC_COMM;
		r->comm.pid = (int32_t)pid;
		r->comm.tid = (int32_t)tid;
		snprintf(r->comm.comm, sizeof(r->comm.comm), "%.*s", (int)(nul - rec),
			 (const char *)rec);
		r->comm.exec = h.misc & PERF_RECORD_MISC_COMM_EXEC;
		return 0;
	}
	case PERF_RECORD_SAMPLE:
		return parse_sample(l, rec, end, r);
	case PERF_RECORD_FORK: {
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
		struct rec_ids ids;

		GET(rec, end, pid);
		GET(rec, end, ppid);
		GET(rec, end, tid);
		GET(rec, end, ptid);
		GET(rec, end, time);
		if (get_ids(&rec, end, &ids))	/* sample_id: the CPU */
			return -EINVAL;
		(void)pid;
		(void)ppid;
		(void)time;
		memset(&r->ev[0], 0, sizeof(r->ev[0]));
		r->ev[0].ts = ids.time;
		r->ev[0].cpu = (int32_t)ids.cpu;
		r->ev[0].type = SEV_FORK;
		/* as sched_process_fork has them: the forking thread, the new one */
		r->ev[0].pid = r->ev[0].common_pid = (int32_t)ptid;
		r->ev[0].next_pid = (int32_t)tid;
		r->ev[0].target_cpu = -1;
		r->kind = PERFREC_FORK;
		r->nev = 1;
		return 0;
	}
	}
	return 0;
}
