// SPDX-License-Identifier: GPL-2.0-or-later
/* Idle CPU time while tasks waited on other CPUs' run queues, from every switch and enqueue. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unclaimed.h"

int unclaimed_new(struct unclaimed **out)
{
	struct unclaimed *u = calloc(1, sizeof(*u));

	*out = u;
	if (!u)
		return -ENOMEM;
	memset(u->idle, -1, sizeof(u->idle));
	return 0;
}

void unclaimed_advance(struct unclaimed *u, uint64_t ts)
{
	uint64_t d;

	if (!u->last_ns || ts <= u->last_ns) {
		if (!u->last_ns)
			u->last_ns = ts;
		return;
	}
	d = ts - u->last_ns;
	if (u->q_busy > 0) {
		u->queued_ns += d;
		u->unclaimed_ns += d * (uint64_t)(u->nidle < u->q_busy ? u->nidle : u->q_busy);
	}
	u->unknown_ns += d * (uint64_t)u->nunknown;
	u->last_ns = ts;
}

/* CPU @cpu first seen: its state unknown until a switch says */
static void seen(struct unclaimed *u, int32_t cpu)
{
	while (u->ncpu <= cpu)
		u->nunknown += u->idle[u->ncpu++] < 0;
}

void unclaimed_queue(struct unclaimed *u, int32_t cpu, uint64_t ts, int delta)
{
	if (cpu < 0 || cpu >= AN_MAX_CPUS)
		return;
	unclaimed_advance(u, ts);
	seen(u, cpu);
	u->queued[cpu] += delta;
	if (u->idle[cpu] != 1)
		u->q_busy += delta;
}

void unclaimed_slice(struct unclaimed *u, const struct an_slice *s)
{
	int8_t now;

	if (s->cpu < 0 || s->cpu >= AN_MAX_CPUS || s->lost)
		return;		/* a lost switch: what ran next is not known */
	unclaimed_advance(u, s->end_ns);
	seen(u, s->cpu);
	now = s->next_tid == 0;
	if (u->idle[s->cpu] == now)
		return;
	if (u->idle[s->cpu] < 0)
		u->nunknown--;
	/* its own queue leaves the count of work waiting on busy CPUs, or joins it */
	if (u->idle[s->cpu] == 1) {
		u->nidle--;
		u->q_busy += u->queued[s->cpu];
	}
	if (now) {
		u->nidle++;
		u->q_busy -= u->queued[s->cpu];
	}
	u->idle[s->cpu] = now;
}

void unclaimed_clear(struct unclaimed *u)
{
	u->unclaimed_ns = u->unknown_ns = u->queued_ns = 0;
}

double unclaimed_share(const struct unclaimed *u, unsigned ncpu, uint64_t dur_ns)
{
	if (!ncpu || !dur_ns)
		return 0;
	return (double)u->unclaimed_ns / ((double)ncpu * (double)dur_ns);
}
