// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The timeline of the switches (tline.h). The analyzer tells a switch in
 * this order: the slice of the task leaving (an_slice, with the task
 * arriving), then the arriving task's wait for a CPU (an_wait, or
 * unmeasured) and its off-CPU interval (an_off), both ending at the
 * switch-in on that CPU. So the state is one run per CPU: the task there,
 * since when, and what came before its run, completed by the wait and the
 * off-CPU interval and told at its switch-out.
 *
 * Where the trace lost a switch, the analyzer first ends the stretch of
 * the task it had on the CPU at the CPU's last event (a lost slice), then
 * closes the off-CPU interval of the task found running at a bound (an
 * an_off that ends at no switch-in); both are marked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tline.h"

struct tl_cpu {
	int32_t tid;			/* the task there per the trace, -1 unknown */
	int32_t tgid;
	uint64_t in_ns;			/* its switch-in, 0 unknown */
	bool selected;
	bool have_off, have_wait, preempted;
	uint64_t off_ns, off_end_ns, wait_ns, waking_ns;
	int64_t off_state;
	int32_t waker;
	unsigned marks;
	char comm[COMM_LEN], waker_comm[COMM_LEN];
};

static void cpu_reset(struct tl_cpu *p, int32_t tid, uint64_t in_ns, bool selected)
{
	memset(p, 0, sizeof(*p));
	p->tid = tid;
	p->tgid = -1;
	p->in_ns = in_ns;
	p->selected = selected;
	p->off_state = SCHED_STATE_UNKNOWN;
}

/* CPU @cpu's run, allocated at its first event; NULL when out of memory (counted) */
static struct tl_cpu *cpu_at(struct tline *t, int32_t cpu)
{
	struct tl_cpu *nv;
	uint32_t n, i;

	if (cpu < 0 || cpu >= AN_MAX_CPUS)
		return NULL;
	if ((uint32_t)cpu < t->ncpu)
		return &t->cpu[cpu];
	n = (uint32_t)cpu + 1 > 2 * t->ncpu ? (uint32_t)cpu + 1 : 2 * t->ncpu;
	if (n > AN_MAX_CPUS)
		n = AN_MAX_CPUS;
	nv = realloc(t->cpu, n * sizeof(*nv));
	if (!nv) {
		t->oom++;
		return NULL;
	}
	for (i = t->ncpu; i < n; i++)
		cpu_reset(&nv[i], -1, 0, false);
	t->cpu = nv;
	t->ncpu = n;
	return &t->cpu[cpu];
}

/* what the CPU's state says came before @p's run */
static void fill_before(struct tl_run *r, const struct tl_cpu *p)
{
	r->tgid = p->tgid;
	r->have_off = p->have_off;
	r->off_ns = p->off_ns;
	r->off_end_ns = p->off_end_ns;
	r->off_state = p->off_state;
	r->have_wait = p->have_wait;
	r->wait_ns = p->wait_ns;
	r->preempted = p->preempted;
	r->waker = p->waker;
	r->waker_comm = p->waker_comm;
	r->waking_ns = p->waking_ns;
	r->marks = p->marks;
}

static void on_slice(void *arg, const struct an_slice *sl)
{
	struct tline *t = arg;
	struct tl_cpu *p = cpu_at(t, sl->cpu);
	struct tl_run r;

	t->last_cpu = sl->cpu;
	if (!p)
		return;
	memset(&r, 0, sizeof(r));
	r.cpu = sl->cpu;
	r.tid = sl->tid;
	r.tgid = -1;
	r.off_state = SCHED_STATE_UNKNOWN;
	r.waker_comm = "";
	/* the run the CPU's state holds is this one: what came before it */
	if (p->tid == sl->tid && (!sl->start_ns || !p->in_ns || p->in_ns == sl->start_ns))
		fill_before(&r, p);
	r.comm = sl->comm[0] ? sl->comm : p->tid == sl->tid ? p->comm : "";
	r.selected = sl->selected;
	r.in_ns = sl->start_ns;
	r.out_ns = sl->end_ns;
	r.state = sl->lost ? SCHED_STATE_UNKNOWN : sl->state;
	r.next_tid = sl->lost ? -1 : sl->next_tid;
	if (!r.in_ns)
		r.marks |= TL_IN_UNSEEN;
	if (sl->lost)
		r.marks |= TL_LOST_OUT;
	t->run(t->arg, &r);
	if (sl->lost) {
		cpu_reset(p, -1, 0, false);	/* who runs next is not known */
		return;
	}
	cpu_reset(p, sl->next_tid, sl->end_ns, sl->next_selected);
	if (sl->next_comm)
		comm_copy(p->comm, sl->next_comm);
	if (t->in && sl->next_tid > 0)
		t->in(t->arg, sl->cpu, sl->next_tid, sl->next_comm ? sl->next_comm : "", sl->end_ns,
		      sl->next_selected);
}

/*
 * The CPU state for @tid switched in at @end_ns on @cpu: the run the
 * switch opened, or (a switch the trace lost) a run whose start is unknown
 */
static struct tl_cpu *arriving(struct tline *t, int32_t cpu, int32_t tid, uint64_t end_ns,
			       bool *bound)
{
	struct tl_cpu *p = cpu_at(t, cpu);

	*bound = false;
	if (!p)
		return NULL;
	if (p->tid == tid && p->in_ns == end_ns)
		return p;
	if (p->tid == tid && !p->in_ns) {
		*bound = true;	/* a lost switch-in, seen first as its unmeasured wait */
		return p;
	}
	cpu_reset(p, tid, 0, true);
	*bound = true;
	return p;
}

static void on_wait(void *arg, const struct an_wait *w)
{
	struct tline *t = arg;
	bool bound;
	struct tl_cpu *p = arriving(t, w->cpu, w->tid, w->end_ns, &bound);

	if (!p)
		return;
	p->have_wait = true;
	p->wait_ns = w->start_ns;
	p->preempted = w->preempted;
	if (w->via == AN_VIA_WAKING)
		p->marks |= TL_WAIT_WAKING;
	else if (w->via == AN_VIA_ONTO_IDLE || w->via == AN_VIA_IDLE_WOKEN)
		p->marks |= TL_WAIT_IDLE;
	if (w->tgid >= 0)
		p->tgid = w->tgid;
	if (w->comm && w->comm[0])
		comm_copy(p->comm, w->comm);
}

static void on_off(void *arg, const struct an_off *o)
{
	struct tline *t = arg;
	bool bound;
	struct tl_cpu *p = arriving(t, o->cpu, o->tid, o->end_ns, &bound);

	if (!p)
		return;
	p->have_off = true;
	p->off_ns = o->start_ns;
	p->off_end_ns = o->end_ns;
	p->off_state = o->state;
	if (bound)
		p->marks |= TL_OFF_INFERRED;
	p->waker = o->waker;
	p->waking_ns = o->waker ? o->waking_ns : 0;
	comm_copy(p->waker_comm, o->waker && o->waker_comm ? o->waker_comm : "");
	if (o->tgid >= 0)
		p->tgid = o->tgid;
	if (o->comm && o->comm[0])
		comm_copy(p->comm, o->comm);
}

/*
 * A wait the trace could not measure: told at the switch-in on the CPU
 * of the slice just fed, or (a switch-in the trace lost, where no slice
 * came first) before that thread's off-CPU interval on its CPU
 */
static void on_unmeasured(void *arg, int32_t tid, struct group *g)
{
	struct tline *t = arg;
	struct tl_cpu *p = cpu_at(t, t->last_cpu);
	unsigned i;

	if (p && p->tid == tid && p->in_ns && !p->have_off && !p->have_wait) {
		p->marks |= TL_WAIT_UNMEASURED;
		return;
	}
	/* the CPU it runs on is not known yet: the one whose run is unknown */
	for (i = 0; i < t->ncpu; i++)
		if (t->cpu[i].tid == tid && !t->cpu[i].in_ns) {
			t->cpu[i].marks |= TL_WAIT_UNMEASURED;
			return;
		}
	for (i = 0; i < t->ncpu; i++)
		if (t->cpu[i].tid < 0) {
			cpu_reset(&t->cpu[i], tid, 0, true);
			t->cpu[i].marks |= TL_WAIT_UNMEASURED;
			return;
		}
}

/* the tasks on a CPU when the window closed: their runs up to its end */
static void on_finish(void *arg, uint64_t end_ns)
{
	struct tline *t = arg;
	struct tl_run r;
	uint32_t i;

	for (i = 0; i < t->ncpu; i++) {
		struct tl_cpu *p = &t->cpu[i];

		if (p->tid < 0 || (p->in_ns && p->in_ns > end_ns))
			continue;
		memset(&r, 0, sizeof(r));
		fill_before(&r, p);
		r.cpu = (int32_t)i;
		r.tid = p->tid;
		r.comm = p->comm;
		r.selected = p->selected;
		r.in_ns = p->in_ns;
		r.out_ns = end_ns;
		r.state = SCHED_STATE_UNKNOWN;
		r.next_tid = -1;
		r.marks |= TL_WINDOW_END | (p->in_ns ? 0 : TL_IN_UNSEEN);
		t->run(t->arg, &r);
		cpu_reset(p, -1, 0, false);
	}
}

static void on_open_off(void *arg, const struct an_off *o)
{
	struct tline *t = arg;

	if (t->open)
		t->open(t->arg, o, o->end_ns);
}

int tline_init(struct tline *t, struct analyzer *an, tl_run_fn run, tl_open_fn open, void *arg)
{
	struct an_sink sink = { .arg = t, .slice = on_slice, .wait = on_wait, .off = on_off,
				.unmeasured = on_unmeasured, .finish = on_finish,
				.open_off = on_open_off };

	memset(t, 0, sizeof(*t));
	t->an = an;
	t->run = run;
	t->open = open;
	t->arg = arg;
	t->last_cpu = -1;
	return analyzer_subscribe(an, &sink);
}

void tline_fini(struct tline *t)
{
	free(t->cpu);
	t->cpu = NULL;
	t->ncpu = 0;
}

static const struct {
	unsigned bit;
	const char *text, *json;
} marks[] = {
	{ TL_LOST_OUT, "switch-out lost", "lost_switch_out" },
	{ TL_IN_UNSEEN, "switch-in unseen", "switch_in_unseen" },
	{ TL_OFF_INFERRED, "off-CPU closed at a bound", "off_inferred" },
	{ TL_WAIT_UNMEASURED, "wait not measured", "wait_unmeasured" },
	{ TL_WAIT_WAKING, "wait from sched_waking", "wait_from_waking" },
	{ TL_WAIT_IDLE, "woken onto an idle CPU", "wait_onto_idle" },
	{ TL_WINDOW_END, "running at the window's end", "window_end" },
};

void tline_marks_text(unsigned m, char *buf, size_t len)
{
	size_t at = 0, i;

	buf[0] = '\0';
	for (i = 0; i < sizeof(marks) / sizeof(marks[0]) && at < len; i++)
		if (m & marks[i].bit)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
					       marks[i].text);
}

const char *tline_mark_name(unsigned bit)
{
	size_t i;

	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (marks[i].bit == bit)
			return marks[i].json;
	return NULL;
}
