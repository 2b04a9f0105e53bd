// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * profile --critical-path -- COMMAND: which waits decided the command's
 * wall time. Each thread of the command keeps a timeline of its states
 * (cptl.c: on a CPU, waiting for one, blocked with its kernel stack and
 * who woke it, from sched_waking in the waker's context); at the end the
 * walk goes back from the command's exit: a thread running or waiting
 * for a CPU keeps the path; a blocked one hands it to the thread of the
 * command that woke it, at the waking (a parent in wait4 to the child
 * that exited); before a thread existed, to its creator. Waits nothing in
 * the command ended (a timer, a device, a task outside) stay on the
 * blocked thread, named by state and stack. The segments tile the
 * command's traced wall time; printed through src/report/cpath.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cpath.h"
#include "cptl.h"
#include "escape.h"
#include "histan.h"
#include "perfetto.h"
#include "svg.h"

/* the thread states kept (48 bytes each) and the samples kept (32 bytes each) */
#define CP_MAX_STATES (1u << 20)
#define CP_MAX_SAMPLES (1u << 18)

struct critpath {
	const struct trace_opts *o;
	struct analyzer *an;
	struct histan h;
	struct cp_tl tl;
	int32_t root;			/* the command's first process */
	uint64_t win_start;		/* the window's start, 0 unknown */
	uint64_t last_ts;		/* its end (the analyzer's finish), 0 not yet */
	bool sampled;			/* samples arrived */
	/* the walk, once, at the first print */
	bool walked;
	int walk_err;
	struct cp_walk_out path;
	struct cpath p;
	const struct an_view *v;	/* the print's view, for in_irq */
	char cmdline[256];		/* -- COMMAND, shell-quoted */
};

static const char *critpath_what(const struct trace_opts *o)
{
	(void)o;
	return "the critical path";
}

static const char *critpath_check(const struct trace_opts *o)
{
	/* -- COMMAND (or a recording made with one): AN_F_COMMAND, the command line's */
	if (o->pid >= 0 || o->tid >= 0 || o->comm[0] || o->cgroup || o->all)
		return "--critical-path follows the command and what it starts: no -p, -t, -c, "
		       "--cgroup or --all";
	if (o->key != KEY_NONE)
		return "--critical-path is one path through the command's threads: no -P, -L or --by";
	if (o->fmt != FMT_BCC && o->fmt != FMT_JSON && o->fmt != FMT_SVG && o->fmt != FMT_PERFETTO)
		return "--critical-path prints a table and the path (the default), -f folded "
		       "lines, --format=json, svg or perfetto";
	if (o->folded && o->fmt != FMT_BCC)
		return "-f and --format exclude each other";
	if (o->interval_mode || o->count > 1 || o->msecs || o->xval || o->duration_ns)
		return "--critical-path is the command's whole run: no DURATION, -i, COUNT, -m "
		       "or --xval";
	return NULL;
}

/* who woke whom: sched_waking, in the waker's context; on-CPU stacks: samples */
static unsigned critpath_events(const struct trace_opts *o)
{
	(void)o;
	return 1u << SEV_WAKING | 1u << SEV_SAMPLE;
}

/* the waker's stack at each waking: an interrupt's wake is no thread's doing */
static void critpath_request(const struct trace_opts *o, struct trace_req *req)
{
	(void)o;
	req->waking_kstack = req->kstack && req->waking;
}

static enum hist_refusal critpath_hist(const struct trace_opts *o)
{
	(void)o;
	return HIST_NO_EVENTS;
}

static void critpath_configure(const struct trace_opts *o, struct an_cfg *cfg)
{
	(void)o;
	cfg->key = KEY_NONE;
}

static struct cp_thread *thread_of(struct critpath *c, int32_t tid, const char *comm,
				   int32_t tgid)
{
	struct cp_thread *t = cp_tl_thread(&c->tl, tid, true);

	if (!t)
		return NULL;
	/* the names a lookup gives when the event has none do not replace one */
	if (comm && comm[0] && (!t->comm[0] || strcmp(comm, "[unknown]")))
		comm_copy(t->comm, comm);
	if (tgid > 0)
		t->tgid = tgid;
	return t;
}

static void add(struct critpath *c, struct cp_thread *t, const struct cp_seg *s)
{
	cp_tl_add(&c->tl, t, s);	/* not kept: counted there, a gap in the walk */
}

/* a switch: the task leaving ran since its switch-in; the one arriving runs from now */
static void on_slice(void *arg, const struct an_slice *sl)
{
	struct critpath *c = arg;
	struct cp_thread *t;

	if (sl->tid > 0 && sl->selected &&
	    (t = thread_of(c, sl->tid, sl->lost ? NULL : sl->comm, -1))) {
		struct cp_seg s = { .kind = CP_ON, .cpu = (int16_t)sl->cpu, .end = sl->end_ns };

		/* its switch-in lost: on since its last state, as the analyzer bounds it */
		s.start = sl->start_ns ? sl->start_ns : t->in_since ? t->in_since :
			  t->n ? t->seg[t->n - 1].end : 0;
		if (s.start)
			add(c, t, &s);
		t->in_since = 0;
		if (!sl->lost && sl->state != SCHED_STATE_UNKNOWN &&
		    ((uint64_t)sl->state & c->an->dead_bits))
			t->died = sl->end_ns;
	}
	if (sl->next_tid > 0 && sl->next_selected &&
	    (t = cp_tl_thread(&c->tl, sl->next_tid, true))) {
		t->in_since = sl->end_ns;
		t->in_cpu = sl->cpu;
	}
}

static void on_wait(void *arg, const struct an_wait *w)
{
	struct critpath *c = arg;
	struct cp_thread *t = thread_of(c, w->tid, w->comm, w->tgid);
	struct cp_seg s = { .start = w->start_ns, .end = w->end_ns, .kind = CP_RUNQ,
			    .cpu = (int16_t)w->cpu, .other = w->prev_tid,
			    .flags = w->preempted ? CPF_PREEMPTED : 0 };

	cp_tl_name(&c->tl, w->prev_tid, w->prev_comm);
	if (t)
		add(c, t, &s);
}

/* an off-CPU interval: blocked up to the waking (or wakeup), then waiting for a CPU */
static void off_add(struct critpath *c, struct cp_thread *t, const struct an_off *o, bool open)
{
	const struct sched_states *st = &c->an->cfg.states;
	bool preempted = o->state != SCHED_STATE_UNKNOWN && sched_state_runnable(st, o->state);
	struct cp_seg *last = t->n ? &t->seg[t->n - 1] : NULL;
	/* the analyzer tells the wait that ended it first, with the same end */
	bool waited = !open && last && last->kind == CP_RUNQ && last->end == o->end_ns &&
		      last->start >= o->start_ns;
	struct cp_seg s = { .start = o->start_ns, .kind = CP_RUNQ, .cpu = (int16_t)o->cpu,
			    .other = -1 };
	uint64_t b = waited ? last->start : o->end_ns, woke = 0;

	if (preempted) {
		/* waiting for a CPU since the switch-out (still, if open) */
		s.end = o->end_ns;
		s.flags = CPF_PREEMPTED;
		if (!waited)
			add(c, t, &s);
		return;
	}
	if (o->waker > 0 && o->waking_ns >= o->start_ns && o->waking_ns <= o->end_ns)
		woke = o->waking_ns;
	else if (o->wake_ns >= o->start_ns && o->wake_ns <= o->end_ns)
		woke = o->wake_ns;
	else if (o->waking_ns >= o->start_ns && o->waking_ns <= o->end_ns)
		woke = o->waking_ns;
	if (woke && woke < b) {
		/* woken at the waking: from there it waits for a CPU (as perf sched's sch delay) */
		if (waited)
			last->start = woke;
		b = woke;
	}
	if (!waited && b < o->end_ns) {
		s.start = b;
		s.end = o->end_ns;
		add(c, t, &s);
	}
	s = (struct cp_seg){ .start = o->start_ns, .end = b, .state = o->state,
			     .other = o->waker > 0 ? o->waker : 0, .kstack = o->kstack,
			     .ustack = o->ustack, .wstack = o->waker_kstack, .cpu = -1,
			     .kind = CP_BLOCKED, .flags = open && !woke ? CPF_OPEN : 0 };
	add(c, t, &s);
}

static void on_off(void *arg, const struct an_off *o)
{
	struct critpath *c = arg;
	struct cp_thread *t = thread_of(c, o->tid, o->comm, o->tgid);

	cp_tl_name(&c->tl, o->waker, o->waker_comm);
	if (t)
		off_add(c, t, o, false);
}

/* an interval still open when the window closed (the command had not ended) */
static void on_open_off(void *arg, const struct an_off *o)
{
	struct critpath *c = arg;
	struct cp_thread *t = cp_tl_thread(&c->tl, o->tid, false);

	if (t)
		off_add(c, t, o, true);
}

static void on_wake(void *arg, const struct an_wake *w)
{
	struct critpath *c = arg;
	struct cp_thread *t;

	/* created: sched_wakeup_new fires in its creator's context */
	if (w->type == SEV_WAKEUP_NEW && w->selected && (t = cp_tl_thread(&c->tl, w->tid, true)) &&
	    !t->born) {
		t->born = w->ts;
		t->parent = w->waker > 0 ? w->waker : 0;
	}
	/* the command released (by us, or the recorder): it starts here */
	if (w->tid == c->root && (t = cp_tl_thread(&c->tl, w->tid, true)) && !t->n &&
	    !t->in_since && !t->first_wake)
		t->first_wake = w->ts;
}

static void on_sample(void *arg, const struct an_sample *s)
{
	struct critpath *c = arg;
	struct cpath_sample cs;

	if (!s->selected || s->tid <= 0)
		return;
	c->sampled = true;
	cs = (struct cpath_sample){ .ts = s->ts, .period_ns = s->period_ns, .tid = s->tid,
				    .tgid = s->tgid };
	cs.kstack = s->kdepth ? stacktab_intern(&c->an->kstacks, s->kframes, s->kdepth) : 0;
	cs.ustack = s->udepth ? stacktab_intern(&c->an->ustacks, s->uframes, s->udepth) : 0;
	cp_tl_sample(&c->tl, &cs);
}

/* the window's end: the threads on a CPU then ran up to it */
static void on_finish(void *arg, uint64_t end_ns)
{
	struct critpath *c = arg;
	size_t i;

	c->last_ts = end_ns;
	for (i = 0; i < c->tl.nt; i++) {
		struct cp_thread *t = &c->tl.t[i];
		struct cp_seg s = { .start = t->in_since, .end = end_ns, .kind = CP_ON,
				    .cpu = (int16_t)t->in_cpu };

		if (t->in_since && t->in_since <= end_ns)
			add(c, t, &s);
		t->in_since = 0;
	}
}

static void critpath_begin(void *state, const struct an_view *v)
{
	struct critpath *c = state;

	c->win_start = v->start_ns;
}

static int critpath_setup(const struct trace_opts *o, struct analyzer *an, void **state)
{
	struct critpath *c = calloc(1, sizeof(*c));
	/* needs: an_off carries the waker of each block */
	struct an_sink sink = { .needs = AN_NEED_WAKERS,
				.sample = on_sample, .slice = on_slice, .wait = on_wait,
				.off = on_off, .wake = on_wake, .open_off = on_open_off,
				.finish = on_finish };
	int ret;

	if (!c)
		return -ENOMEM;
	*state = c;
	c->o = o;
	c->an = an;
	/* the command's first process: -- COMMAND's, or the recording's scope */
	c->root = an->cfg.follow && an->cfg.nfollow ? an->cfg.follow[0] : 0;
	sink.arg = c;
	ret = cp_tl_init(&c->tl, o->max_tasks, CP_MAX_STATES, CP_MAX_SAMPLES);
	if (!ret)
		ret = analyzer_subscribe(an, &sink);
	return ret;
}

static void critpath_free(void *state)
{
	struct critpath *c = state;

	if (!c)
		return;
	cp_tl_fini(&c->tl);
	free(c->path.seg);
	heat_free(c->h.heat);
	free(c);
}

/*
 * A waking with this stack ran in an interrupt: its "waker" is only the
 * task the interrupt found running (x86's and arm64's entry frames).
 */
static bool in_irq(void *arg, uint32_t wstack)
{
	static const char *const entry[] = {
		"asm_sysvec_", "asm_common_interrupt", "sysvec_", "__sysvec_",
		"common_interrupt", "hrtimer_interrupt", "irq_exit", "__irq_exit_rcu",
		"el1_interrupt", "el0_interrupt", "gic_handle_irq", "handle_domain_irq",
		"generic_handle_domain_irq", NULL,
	};
	const struct critpath *c = arg;
	const struct symbolizer *sym = c->v->sym;
	uint32_t depth = 0, i, k;
	const uint64_t *fr = stacktab_get(&c->an->kstacks, wstack, &depth);
	char name[128];

	for (i = 0; fr && sym && sym->kernel && i < depth; i++) {
		sym->kernel(sym->karg, fr[i], name, sizeof(name));
		for (k = 0; entry[k]; k++)
			if (!strncmp(name, entry[k], strlen(entry[k])))
				return true;
	}
	return false;
}

static const char *comm_of(const void *arg, int32_t tid)
{
	const struct critpath *c = arg;

	return cp_tl_name_of(&c->tl, tid);
}

static int32_t tgid_of(const void *arg, int32_t tid)
{
	const struct critpath *c = arg;
	const struct cp_thread *t = cp_tl_thread((struct cp_tl *)&c->tl, tid, false);

	return t ? t->tgid : -1;
}

static int by_ts(const void *a, const void *b)
{
	const struct cpath_sample *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* The command's start and end, then the walk between them, once. */
static void walk(struct critpath *c, const struct an_view *v)
{
	const struct cp_thread *r = cp_tl_thread(&c->tl, c->root, false);
	struct cp_walk_in in = { .tl = &c->tl, .root = c->root, .in_irq = in_irq, .arg = c };
	struct cpath *p = &c->p;

	c->walked = true;
	c->v = v;
	/* from its release (its first wake), else its first state, else the window's start */
	p->start = r && r->first_wake ? r->first_wake : r && r->first_ts ? r->first_ts :
		   c->win_start ? c->win_start : v->iv_start_ns;
	p->ended = r && r->died;
	p->end = p->ended ? r->died : c->last_ts ? c->last_ts : v->iv_end_ns;
	if (p->start > p->end)
		p->start = p->end;
	in.start = p->start;
	in.end = p->end;
	/* a block no waking ended, in a trace with every thread's: an interrupt on an idle CPU */
	in.wakings_whole = (v->events & (1u << SEV_WAKING)) && !v->lost;
	c->walk_err = cp_walk(&in, &c->path);
	if (c->tl.nsmp)
		qsort(c->tl.smp, c->tl.nsmp, sizeof(*c->tl.smp), by_ts);
	if (v->recorded && v->recorded->command[0])
		snprintf(c->cmdline, sizeof(c->cmdline), "%s", v->recorded->command);
	else if (c->o->command)
		shell_quote_argv(c->cmdline, sizeof(c->cmdline), c->o->command, 200);
	p->command = c->cmdline[0] ? c->cmdline : NULL;
	p->root = c->root;
	p->seg = c->path.seg;
	p->n = c->path.n;
	p->samples = c->tl.smp;
	p->nsamples = c->tl.nsmp;
	p->sampled = c->sampled;
	p->comm_of = comm_of;
	p->tgid_of = tgid_of;
	p->name_arg = c;
	p->kstacks = &c->an->kstacks;
	p->ustacks = &c->an->ustacks;
	p->states = &c->an->cfg.states;
	p->kept_from = c->tl.kept_from;
	p->states_dropped = c->tl.dropped;
	p->states_cap = c->tl.maxseg;
	p->threads_over = c->tl.threads_over;
	p->samples_dropped = c->tl.samples_dropped;
	p->irq_unchecked = c->path.irq_unchecked;
}

static void text_body(FILE *f, void *arg)
{
	cpath_print_text(f, arg);
}

static void json_extra(FILE *f, void *arg)
{
	fputs(",\"critical_path\":", f);
	cpath_print_json(f, arg);
}

static void no_body(FILE *f, void *arg)
{
	(void)f;
	(void)arg;
}

/* -f and svg: the path alone, folded */
static int print_folded(struct critpath *c, struct report *rep, enum out_format fmt, FILE *f)
{
	struct fold_line *lines = NULL;
	uint32_t n = 0, i;
	char title[320];
	int ret = cpath_fold(&c->p, &lines, &n);

	if (ret)
		return ret;
	if (fmt == FMT_SVG) {
		snprintf(title, sizeof(title), "Critical path of %.256s",
			 c->p.command ? c->p.command : "the command");
		svg_flame_lines(f, rep, lines, n, c->o->top, title, FLAME_WALL);
	} else {
		for (i = 0; i < n; i++)
			fprintf(f, "%s %" PRIu64 "\n", lines[i].line, lines[i].ns / 1000);
	}
	stacks_fold_free(lines, n);
	return ferror(f) ? -EIO : 0;
}

/* --format=perfetto's otherData: what made it, and the path's account */
static void pf_other(FILE *f, void *arg)
{
	const struct critpath *c = arg;
	uint64_t lost = 0;
	bool partial = cpath_partial(&c->p, &lost);

	fprintf(f, "\"tool\":\"offcpu-ftrace %s --critical-path\",\"backend\":", c->o->cmd);
	json_str(f, c->v->backend, 32);
	fputs(",\"clock\":", f);
	json_str(f, c->v->clock, 32);
	fprintf(f, ",\"critical_path_ns\":%" PRIu64 ",\"lost_link_ns\":%" PRIu64
		",\"partial\":%s", c->p.end - c->p.start, lost,
		partial || c->v->lost || analyzer_partial(c->v->an) ? "true" : "false");
}

/*
 * --format=perfetto: each thread of the command's states (as profile's and
 * timehist's timelines name them), then the path marked on them
 */
static int print_perfetto(struct critpath *c, FILE *f)
{
	struct pftrace pf;
	char bn[48];
	size_t i, k;

	pf_begin(&pf, f);
	for (i = 0; i < c->tl.nt; i++) {
		const struct cp_thread *t = &c->tl.t[i];
		int32_t pid = t->tgid > 0 ? t->tgid : t->tid;

		pf_thread_name(&pf, pid, t->tid, t->comm[0] ? t->comm : "?");
		for (k = 0; k < t->n; k++) {
			const struct cp_seg *s = &t->seg[k];
			struct pf_arg a = { .key = "cpu", .i = s->cpu };
			const char *name = s->kind == CP_ON ? "Running" :
					   s->kind == CP_BLOCKED ?
					   pf_blocked_name(&c->an->cfg.states, s->state, bn, sizeof(bn)) :
					   s->flags & CPF_PREEMPTED ? "Runnable (Preempted)" : "Runnable";

			pf_slice(&pf, pid, t->tid, s->start, s->end - s->start, name, "sched", &a,
				 s->kind == CP_ON && s->cpu >= 0);
		}
	}
	cpath_print_perfetto(&pf, &c->p);
	pf_end(&pf, pf_other, c);
	return ferror(f) ? -EIO : 0;
}

static int critpath_print(void *state, const struct an_view *v, enum out_format fmt, FILE *f)
{
	struct critpath *c = state;
	struct stack_report sr;
	struct report rep;
	int ret;

	if (!c->walked)
		walk(c, v);
	if (c->walk_err)
		return c->walk_err;
	c->p.sym = v->sym;
	c->p.depth = c->o->stack_depth;
	c->p.top = c->o->top;
	histan_fill(&c->h, v, fmt, &v->an->on, MEASURE_ONCPU, &rep, &sr);
	rep.stacks = NULL;
	rep.key = KEY_NONE;
	rep.own_partial = cpath_partial(&c->p, NULL);
	rep.extra_arg = &c->p;
	if (fmt == FMT_JSON) {
		rep.json_extra = json_extra;
		return report_emit(f, fmt, &rep);
	}
	if (fmt == FMT_SVG)
		return print_folded(c, &rep, fmt, f);
	if (fmt == FMT_PERFETTO)
		return print_perfetto(c, f);
	if (c->o->folded) {
		/* folded lines stay pure for flame graph tools: the rest to stderr */
		ret = print_folded(c, &rep, fmt, f);
		rep.text_body = no_body;
		report_emit(stderr, fmt, &rep);
		cpath_print_notes(stderr, &c->p);
		return ret;
	}
	rep.text_body = text_body;
	return report_emit(f, fmt, &rep);
}

/* --strict: a link the trace lost, or a part of the path it does not hold */
static bool critpath_partial(void *state)
{
	const struct critpath *c = state;

	return c->walked && cpath_partial(&c->p, NULL);
}

const struct analysis analysis_critpath = {
	.name = "critpath",
	.summary = "the critical path of a command (profile --critical-path)",
	.flags = AN_F_MODE | AN_F_REPORT | AN_F_TRACED | AN_F_SAMPLES | AN_F_TIDS | AN_F_PERFETTO |
		 AN_F_COMMAND | AN_F_KSTACK_IF_ANY,
	.text_output = "the path by thread and state, and as a story",
	.what = critpath_what,
	.check = critpath_check,
	.events = critpath_events,
	.request = critpath_request,
	.hist = critpath_hist,
	.configure = critpath_configure,
	.setup = critpath_setup,
	.begin = critpath_begin,
	.print = critpath_print,
	.partial = critpath_partial,
	.free = critpath_free,
};
