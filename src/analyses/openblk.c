// SPDX-License-Identifier: GPL-2.0-or-later
/* Blocks still open at the window's end: collected from the analyzer, named for the report. */
#include <string.h>

#include "openblk.h"
#include "stacks.h"

/* an off-CPU interval open at the window's end: a block, if it began blocked and nothing woke it */
static void on_open_off(void *arg, const struct an_off *o)
{
	struct openblk *b = arg;
	const struct sched_states *st = &b->an->cfg.states;
	struct open_block ob;

	if (o->wake_ns || o->waking_ns || o->state == SCHED_STATE_UNKNOWN ||
	    sched_state_runnable(st, o->state))
		return;	/* woken and waiting for a CPU, or preempted: not blocked */
	memset(&ob, 0, sizeof(ob));
	ob.tid = o->tid;
	snprintf(ob.comm, sizeof(ob.comm), "%s", o->comm ? o->comm : "");
	sched_state_str(st, o->state, ob.state, sizeof(ob.state));
	ob.so_far_ns = o->end_ns > o->start_ns ? o->end_ns - o->start_ns : 0;
	ob.kstack = o->kstack;
	open_blocks_add(&b->ob, &ob);
}

int openblk_subscribe(struct openblk *b, struct analyzer *an)
{
	struct an_sink s = { .open_off = on_open_off, .arg = b };

	memset(b, 0, sizeof(*b));
	b->an = an;
	return analyzer_subscribe(an, &s);
}

/* where it sleeps: the first frame of its stack not of the scheduler itself */
static void where_of(const struct openblk *b, const struct an_view *v, struct open_block *ob)
{
	stack_where(&b->an->kstacks, v->sym, ob->kstack, ob->where, sizeof(ob->where));
}

const struct open_blocks *openblk_fill(struct openblk *b, const struct an_view *v)
{
	unsigned i;

	if (!v->final)
		return NULL;
	for (i = 0; !b->whole_added && i < v->nwhole; i++)
		open_blocks_add(&b->ob, &v->whole[i]);
	b->whole_added = true;
	for (i = 0; i < b->ob.shown; i++)
		if (!b->ob.b[i].where[0])
			where_of(b, v, &b->ob.b[i]);
	return &b->ob;
}
