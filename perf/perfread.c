// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The perf backend's reading: each CPU's ring read record by record (a
 * record that wraps copied), records made events (the context-switch
 * records' switches fed only where the tracepoint lost them: perf.c's
 * top comment), the CPUs merged in time order, the ring given back; and
 * the names the merge applies at each event's time (the names table,
 * /proc's snapshot, a recording's saved_cmdlines).
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "encode.h"
#include "fileread.h"
#include "hash.h"
#include "procfs.h"
#include "perfrec.h"
#include "pnames.h"
#include "timeutil.h"
#include "tsheap.h"
#include "perf_local.h"


/* Copy @len bytes at ring offset @off, unwrapping. */
static const uint8_t *ring_bytes(struct pcpu *c, uint64_t off, uint32_t len)
{
	uint64_t o = off & (c->size - 1);

	if (o + len <= c->size)
		return c->data + o;
	memcpy(c->scratch, c->data + o, c->size - o);
	memcpy(c->scratch + (c->size - o), c->data, len - (c->size - o));
	return c->scratch;
}

/*
 * A PERF_RECORD_SWITCH_CPU_WIDE record: a switch neither the tracepoint
 * nor an earlier record of it fed becomes c->rec.ev[0] (see the top of
 * perf.c). Returns 1 or 0.
 */
static unsigned switch_feed(const struct backend *b, struct pcpu *c,
			    const struct perfrec_switch *sw)
{
	struct sched_event *ev = c->rec.ev;
	int32_t prev = sw->prev, next = sw->next;
	bool dead = false;

	/*
	 * An exiting task's last switch names it -1 (its pid is gone by
	 * then): it is the task the CPU ran, and it leaves for good.
	 */
	if (prev == -1) {
		/* the switch being completed (tracepoint or switch-out record), else the CPU's */
		prev = c->sw_fed ? c->sw_prev : c->cur;
		dead = true;
	}
	/*
	 * ... and a switch-out record names an exiting task coming in -1 too:
	 * the switch being completed, if it left this one; else not known
	 * (fed as -1: the analyzer and the CPU-state model take it as busy
	 * with a task they will learn)
	 */
	if (next == -1 && c->sw_fed && c->sw_prev == prev)
		next = c->sw_next;

	if (c->sw_fed && c->sw_prev == prev && c->sw_next == next) {
		if (!sw->out)
			c->sw_fed = false;	/* the switch's last record */
		return 0;
	}
	if (sw->out) {
		c->out_prev = prev;	/* for the switch-in, if fed from it */
		c->out_next = next;
		c->out_preempt = sw->preempt;
	}
	/* -t: the kernel filters the tracepoint, so other switches are absent */
	if (b->filter_tid >= 0 && prev != b->filter_tid && next != b->filter_tid)
		return 0;
	c->sw_fed = sw->out;
	c->sw_prev = prev;
	c->sw_next = next;
	c->cur = next;
	c->recovered += !b->records_only;
	memset(ev, 0, sizeof(*ev));
	ev->ts = sw->ts;
	ev->cpu = sw->cpu;
	ev->type = SEV_SWITCH;
	ev->common_pid = prev;	/* as the tracepoint has it: prev runs */
	ev->pid = prev;
	ev->next_pid = next;
	ev->prev_state = SCHED_STATE_UNKNOWN;
	if (dead)
		ev->prev_state = (int64_t)sched_states_mask(&b->layout.states, "X");
	else if (sw->out ? c->out_preempt : c->out_prev == prev && c->out_next == next &&
		 c->out_preempt)
		ev->prev_state = 0;	/* preempted: R */
	return 1;
}

/*
 * Parse one record into c->rec. Returns the number of events to feed: 0
 * for records that are not samples of ours or are malformed (skipped),
 * and for lost counts (added up) and switches already fed.
 */
static void note_comm(struct backend *b, int32_t tid, const char *comm);

static unsigned cpu_record(struct backend *b, struct pcpu *c, const uint8_t *rec,
			   uint32_t size)
{
	struct perfrec *r = &c->rec;

	if (perfrec_parse(&c->lay, rec, size, r))
		return 0;
	switch (r->kind) {
	case PERFREC_LOST:
		c->lost += r->lost;
		return 0;
	case PERFREC_SWITCH:
		return switch_feed(b, c, &r->sw);
	case PERFREC_FORK:
		/*
		 * the records' forks follow -- COMMAND where no tracepoint is
		 * open (switches only); elsewhere the sched_process_fork
		 * tracepoint has them already, and a record only names the new
		 * thread (the backend's own, applied by the merge)
		 */
		if (!(b->switches_only && b->forks))
			r->ev[0].type = EV_FORKNAME;
		return r->nev;
	case PERFREC_COMM:
		/* applied in time order, by the merge (perf_read) */
		memset(&r->ev[0], 0, sizeof(r->ev[0]));
		r->ev[0].ts = r->comm.ts;
		r->ev[0].cpu = r->comm.cpu;
		r->ev[0].type = EV_RENAME;
		r->ev[0].pid = r->comm.tid;
		r->ev[0].comm = r->comm.comm;
		return 1;
	case PERFREC_SAMPLE:
		if (r->ev[0].type == SEV_SWITCH) {
			c->sw_fed = true;	/* its records repeat it */
			c->sw_prev = r->ev[0].pid;
			c->sw_next = c->cur = r->ev[0].next_pid;
		}
		return r->nev;
	}
	return 0;
}

/* Move to the next event of @c; false when its ring holds no more now. */
static bool cpu_next(struct backend *b, struct pcpu *c)
{
	if (c->iev < c->nev && ++c->iev < c->nev)
		return true;
	while (c->pos + sizeof(struct perf_event_header) <= c->head) {
		struct perf_event_header h;
		const uint8_t *rec;

		memcpy(&h, ring_bytes(c, c->pos, sizeof(h)), sizeof(h));
		if (h.size < sizeof(h) || c->pos + h.size > c->head) {
			/* corrupt or torn: skip what is there */
			c->pos = c->head;
			break;
		}
		rec = ring_bytes(c, c->pos, h.size);
		c->rec_start = c->pos;
		c->nev = cpu_record(b, c, rec, h.size);
		c->pos += h.size;
		if (c->nev) {
			c->iev = 0;
			return true;
		}
	}
	c->nev = c->iev = 0;
	return false;
}

/*
 * A thread's name for the recording's saved_cmdlines: the event's, or,
 * where it carries none (a switch only the context-switch records had),
 * /proc's at first sight, as tracefs's own table would have it.
 */
static void note_comm(struct backend *b, int32_t tid, const char *comm)
{
	struct rec_comm *e = NULL;
	char buf[64];
	unsigned i;

	if (tid <= 0)
		return;
	/*
	 * linear probing, never evicting: replacing a thread whose slot
	 * another one hashes to would read /proc for each of their events in
	 * turn; a full neighbourhood leaves the thread out (unnamed in report)
	 */
	for (i = 0; i < REC_PROBES; i++) {
		e = &b->comms[(tid_hash32(tid) + i) & (REC_COMMS - 1)];
		if (e->tid == tid || !e->tid)
			break;
	}
	if (i == REC_PROBES)
		return;
	if (!e->tid) {
		/* first sight: its process from /proc, as the live run asks it */
		e->tid = tid;
		e->tgid = proc_tgid(tid, NULL);
	}
	if (comm && comm[0])
		comm_copy(e->comm, comm);
	else if (!e->comm[0] && proc_comm(tid, buf, sizeof(buf)) == 0)
		comm_copy(e->comm, buf);
}

/* A recording: @ev into its CPU's page, its names into the table. */
static void record_event(struct backend *b, const struct sched_event *ev)
{
	page_enc_add(&b->enc[ev->cpu], ev, b->sink, b->sink_arg);
	if (ev->type == SEV_SWITCH)
		note_comm(b, ev->next_pid, ev->next_comm);
	if (ev->type <= SEV_WAKING)
		note_comm(b, ev->pid, ev->comm);
}

/*
 * @tid's name: the stream's, else (a thread neither the snapshot nor any
 * event named: one whose fork this kernel did not record) /proc's while
 * it lives, kept from then on (no rename of it came before: a COMM record
 * would have named it); NULL when no source has it
 */
static const struct pname *name_of(struct backend *b, int32_t tid)
{
	const struct pname *p = pnames_get(&b->names, tid);
	char buf[64];

	if (p || tid <= 0 || !b->names_from_proc || proc_comm(tid, buf, sizeof(buf)) || !buf[0])
		return p;
	pnames_set(&b->names, tid, buf, -1);
	return pnames_get(&b->names, tid);
}

/*
 * @ev as the merge reaches it, in time order: a tracepoint's names and
 * priorities kept, a switch from the records named from them (name_of;
 * "[unknown]" where no source had the thread), the backend's own events
 * applied. false for those: not for the analyzer.
 */
static bool name_event(struct backend *b, struct sched_event *ev)
{
	const struct pname *p, *n;

	switch (ev->type) {
	case EV_RENAME:
		pnames_set(&b->names, ev->pid, ev->comm, -1);
		if (b->comms)
			note_comm(b, ev->pid, ev->comm);	/* a recording's names */
		return false;
	case EV_FORKNAME:
		pnames_fork(&b->names, ev->pid, ev->next_pid);
		return false;
	case SEV_FORK:
		pnames_fork(&b->names, ev->pid, ev->next_pid);
		return true;
	case SEV_SWITCH:
		if (ev->comm || ev->next_comm) {	/* the tracepoint's */
			pnames_set(&b->names, ev->pid, ev->comm, ev->has_prio ? ev->prio : -1);
			pnames_set(&b->names, ev->next_pid, ev->next_comm,
				   ev->has_prio ? ev->next_prio : -1);
			return true;
		}
		p = name_of(b, ev->pid);
		n = name_of(b, ev->next_pid);
		/* an exiting task's last switch names it -1: the analyzer knows it */
		ev->comm = p ? p->comm : ev->pid > 0 ? "[unknown]" : NULL;
		ev->next_comm = n ? n->comm : ev->next_pid > 0 ? "[unknown]" : NULL;
		ev->has_prio = p && n && p->prio >= 0 && n->prio >= 0;
		ev->prio = ev->has_prio ? p->prio : -1;
		ev->next_prio = ev->has_prio ? n->prio : -1;
		return true;
	case SEV_WAKEUP:
	case SEV_WAKEUP_NEW:
	case SEV_WAKING:
		pnames_set(&b->names, ev->pid, ev->comm, ev->has_prio ? ev->prio : -1);
		return true;
	default:
		return true;
	}
}

/*
 * Every thread's name and priority from /proc, once the events are on:
 * from here the stream keeps them (renames, forks), so none is named by
 * what /proc says later.
 */
void pf_names_snapshot(struct backend *b)
{
	int32_t *pids = NULL, *tids;
	int np, nt, i, j;

	if (!b->names_from_proc)
		return;
	np = proc_pids(&pids);
	for (i = 0; i < np; i++) {
		nt = proc_threads(pids[i], &tids);
		for (j = 0; j < nt; j++) {
			char path[64], buf[1024], comm[COMM_LEN];
			unsigned long long v[PROC_STAT_NFIELDS];

			snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pids[i], tids[j]);
			if (file_read_buf(path, buf, sizeof(buf)) <= 0 ||
			    proc_stat_split(buf, comm, sizeof(comm), NULL, v))
				continue;
			/* field 18, priority: the kernel's prio less 100 (MAX_RT_PRIO) */
			pnames_set(&b->names, tids[j], comm, (int32_t)(long long)v[14] + 100);
		}
		if (nt > 0)
			free(tids);
	}
	free(pids);
}

int perf_read(struct backend *b, uint64_t limit, bool drain,
		     sched_ev_cb cb, void *arg)
{
	uint64_t start = mono_ns(), upto;
	unsigned i;

	if (b->started)
		pf_track_hotplug(b);	/* may add slots: before any pointer is taken */
	b->heap.n = 0;
	for (i = 0; i < b->nslot; i++) {
		struct pcpu *c = b->cpus[i];

		if (!c->meta)
			continue;
		/* pairs with the kernel's store of data_head */
		c->head = __atomic_load_n(&c->meta->data_head, __ATOMIC_ACQUIRE);
		if (c->iev < c->nev || cpu_next(b, c)) {
			b->next_ts[i] = c->rec.ev[c->iev].ts;
			tsheap_push(&b->heap, i);
		}
	}
	/* a CPU's ring holds its events in order; the newest need a moment */
	upto = drain ? UINT64_MAX : b->mono ? start - ORDER_SLACK_NS : UINT64_MAX;
	if (upto > limit)
		upto = limit;
	while (b->heap.n) {
		unsigned ci = b->heap.v[0];
		struct pcpu *c = b->cpus[ci];

		if (c->rec.ev[c->iev].ts > upto)
			break;
		if (!name_event(b, &c->rec.ev[c->iev]))
			goto next;
		/* a recording's pages: errors are sticky in it, said at its close */
		if (b->enc && (unsigned)c->rec.ev[c->iev].cpu < b->ncpu)
			record_event(b, &c->rec.ev[c->iev]);
		cb(&c->rec.ev[c->iev], arg);
next:
		if (cpu_next(b, c)) {
			b->next_ts[ci] = c->rec.ev[c->iev].ts;
			tsheap_fix_top(&b->heap);
		} else {
			tsheap_pop(&b->heap);
		}
	}
	/*
	 * Give the kernel back what was consumed: up to the record being held
	 * (its start), or everything read.
	 */
	for (i = 0; i < b->nslot; i++) {
		struct pcpu *c = b->cpus[i];
		uint64_t tail = c->pos;

		if (!c->meta)
			continue;
		/* a record still held (beyond the horizon) stays readable: its
		 * events point into the ring */
		if (c->iev < c->nev)
			tail = c->rec_start;
		__atomic_store_n(&c->meta->data_tail, tail, __ATOMIC_RELEASE);
		/* a retired slot read to its end (lost counts stay with it) */
		if (c->retired && c->iev >= c->nev && c->pos >= c->head &&
		    __atomic_load_n(&c->meta->data_head, __ATOMIC_ACQUIRE) == c->pos)
			pf_slot_close(b, i);
	}
	return 0;
}
