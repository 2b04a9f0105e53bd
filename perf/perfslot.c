// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The perf backend's per-CPU slots and CPU hotplug (see struct backend in
 * perf_local.h): the per-slot arrays grown, a slot made, enabled, retired,
 * closed and freed, and the CPUs followed as they go offline and come
 * back, whose events are then opened again in a new slot.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"
#include "grow.h"
#include "timeutil.h"
#include "perf_local.h"


/* Room for slot @i in every per-slot array (one per CPU at first); 0 or -ENOMEM. */
static int grow_slots(struct backend *b, size_t i)
{
	size_t cap = b->slotcap, ncap = cap, k;
	struct pcpu **cpus;
	struct pollfd *pfd;
	unsigned *hv;
	uint64_t *ts;

	/* the four grow alike: each from cap to the same ncap */
	if ((cpus = mem_grow_from(b->cpus, &ncap, i, sizeof(*cpus), b->ncpu)))
		b->cpus = cpus;
	ncap = cap;
	if ((pfd = mem_grow_from(b->pfd, &ncap, i, sizeof(*pfd), b->ncpu)))
		b->pfd = pfd;
	ncap = cap;
	if ((hv = mem_grow_from(b->heap.v, &ncap, i, sizeof(*hv), b->ncpu)))
		b->heap.v = hv;
	ncap = cap;
	if ((ts = mem_grow_from(b->next_ts, &ncap, i, sizeof(*ts), b->ncpu)))
		b->next_ts = ts;
	b->heap.key = b->next_ts;
	if (!cpus || !pfd || !hv || !ts)
		return -ENOMEM;
	for (k = cap; k < ncap; k++) {
		b->cpus[k] = NULL;
		b->pfd[k].fd = -1;
		b->pfd[k].events = POLLIN;
	}
	b->slotcap = ncap;
	return 0;
}

/* A new, unopened slot for @cpu, or NULL. */
struct pcpu *pf_new_slot(struct backend *b, int cpu)
{
	struct pcpu *c;
	unsigned t;

	if (grow_slots(b, b->nslot))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cpu = cpu;
	for (t = 0; t < NTYPES; t++)
		c->fd[t] = -1;
	c->lay.sched = &b->layout;
	c->lay.kstack = b->kstack;
	c->lay.ustack = b->ustack;
	b->cpus[b->nslot++] = c;
	return c;
}

/* Which CPUs are online now, from /sys/devices/system/cpu/online ("0-3,5"). */
void pf_online_cpus(struct backend *b, uint8_t *on)
{
	char buf[4096], *p, *end;
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	size_t n;

	memset(on, 1, b->ncpu);		/* unknown: assume all */
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	memset(on, 0, b->ncpu);
	for (p = buf; *p >= '0' && *p <= '9'; p = end + 1) {
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		for (; lo <= hi && lo < b->ncpu; lo++)
			on[lo] = 1;
		if (*end != ',')
			break;
	}
}

static void slot_enable(struct pcpu *c, unsigned long req)
{
	unsigned t;

	for (t = 0; t < NTYPES; t++)
		if (c->fd[t] >= 0)
			ioctl(c->fd[t], req, 0);
}

/* Unmap, close and free one CPU's slot. */
void pf_pcpu_free(struct pcpu *c)
{
	unsigned t;

	if (c->map)
		munmap(c->map, c->map_len);
	for (t = 0; t < NTYPES; t++)
		if (c->fd[t] >= 0)
			close(c->fd[t]);
	free(c);
}

/* Follow CPUs going offline and online (see struct backend). */
/* Drop the newest slot, which failed to open (its fds and map, if any). */
static void slot_discard(struct backend *b)
{
	pf_pcpu_free(b->cpus[b->nslot - 1]);
	b->cpus[--b->nslot] = NULL;
	b->pfd[b->nslot].fd = -1;
}

/*
 * Give @cpu working events: opened in place when it has none, else a new
 * slot, the old one retired (disabled, read to its end, closed). false
 * when the CPU cannot take events now (offline).
 */
static bool reopen_cpu(struct backend *b, unsigned cpu)
{
	struct pcpu *c = b->cpus[b->active[cpu]], *n = c;
	char err[BACKEND_ERRLEN];

	if (c->fd[0] >= 0 && !(n = pf_new_slot(b, (int)cpu)))
		return false;
	if (pf_open_cpu(b, n, err, sizeof(err)) || n->fd[0] < 0 || !n->map) {
		if (n != c)
			slot_discard(b);
		return false;
	}
	if (n != c) {
		slot_enable(c, PERF_EVENT_IOC_DISABLE);
		c->retired = true;
		b->active[cpu] = (int)(b->nslot - 1);
	}
	b->pfd[b->active[cpu]].fd = n->fd[0];
	if (b->started)
		slot_enable(n, PERF_EVENT_IOC_ENABLE);
	return true;
}

/* An enabled event whose enabled time stopped is off its CPU for good. */
static bool stalled(struct pcpu *c)
{
	struct {
		uint64_t value, enabled;
	} r;
	bool st;

	if (read(c->fd[0], &r, sizeof(r)) != (ssize_t)sizeof(r))
		return false;
	st = r.enabled == c->enabled_ns;
	c->enabled_ns = r.enabled;
	return st;
}

/* Follow CPUs going offline and online (see struct backend). */
void pf_track_hotplug(struct backend *b)
{
	uint8_t on[1024];
	uint64_t now = mono_ns();
	bool check = now >= b->next_check_ns;
	unsigned cpu;

	if (b->ncpu > sizeof(on))
		return;
	pf_online_cpus(b, on);
	if (check)
		b->next_check_ns = now + 200000000ULL;	/* 200 ms */
	for (cpu = 0; cpu < b->ncpu; cpu++) {
		struct pcpu *c = b->cpus[b->active[cpu]];
		bool was = b->online[cpu];

		b->online[cpu] = on[cpu];
		if (!on[cpu])
			continue;
		/* no events yet, or back online: their old events are dead */
		if (c->fd[0] < 0 || !was) {
			if (!reopen_cpu(b, cpu))
				b->online[cpu] = 0;	/* not ready yet: again next read */
			continue;
		}
		/* an offline-online cycle quicker than one read */
		if (check && stalled(c))
			reopen_cpu(b, cpu);
	}
}

/* A retired slot read to its end: close it. */
void pf_slot_close(struct backend *b, unsigned i)
{
	struct pcpu *c = b->cpus[i];
	unsigned t;

	if (c->map)
		munmap(c->map, c->map_len);
	c->map = NULL;
	c->meta = NULL;
	for (t = 0; t < NTYPES; t++) {
		if (c->fd[t] >= 0)
			close(c->fd[t]);
		c->fd[t] = -1;
	}
	b->pfd[i].fd = -1;
}
