// SPDX-License-Identifier: GPL-2.0-or-later
/* runq's and offcpu's shared part: the report of a histogram analysis. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "histan.h"
#include "svg.h"

int histan_setup(const struct trace_opts *o, struct analyzer *an, void **state)
{
	struct histan *h = calloc(1, sizeof(*h));
	int ret = 0;

	*state = h;
	if (!h)
		return -ENOMEM;
	/* off-CPU views show the blocks still open at the window's end */
	if (o->modes & AN_OFFCPU) {
		ret = openblk_subscribe(&h->open, an);
		h->open_on = ret == 0;
	}
	return ret;
}

void histan_free(void *state)
{
	struct histan *h = state;

	if (!h)
		return;
	heat_free(h->heat);
	free(h);
}

void histan_configure(const struct trace_opts *o, struct an_cfg *cfg)
{
	cfg->key = o->key;
}

const char *histan_check(const struct trace_opts *o)
{
	if ((o->kstack || o->ustack) && o->fmt == FMT_OPENMETRICS)
		return "stacks have no openmetrics layout: use the default, -f or --format=json";
	if ((o->kstack || o->ustack) && o->fmt == FMT_BPFTRACE)
		return "stacks have no bpftrace layout: use the default, -f or --format=json";
	if ((o->kstack || o->ustack) && (o->key == KEY_CPU || o->key == KEY_COMM))
		return "stacks are summed per thread (default), process (-P) or cgroup (--by "
		       "cgroup), not per CPU or name (the folded lines end with the thread's name)";
	return NULL;
}

const char *histan_no_records(const struct trace_opts *o)
{
	if ((o->kstack && !o->late_stacks) || o->ustack)
		return "stacks are taken at the sched_switch tracepoint (--late-stacks reads "
		       "kernel stacks from /proc instead)";
	if (o->state)
		return "--state reads prev_state, which only the sched_switch tracepoint carries";
	if (o->comm[0])
		return "-c matches the names the tracepoints carry";
	if (o->compat == COMPAT_BPFTRACE)
		return "--compat=bpftrace tells R from R+ by the tracepoint's prev_state";
	if (o->compat == COMPAT_PERF)
		return "--compat=perf starts a wait at sched_waking";
	if (o->record_path)
		return "a recording keeps the tracepoints' events";
	return NULL;
}

/* -K/-U: the stack table and how to print it */
static void stack_report_of(struct stack_report *sr, const struct an_view *v)
{
	const struct trace_opts *o = v->o;

	memset(sr, 0, sizeof(*sr));
	sr->agg = &v->an->agg;
	sr->kstacks = &v->an->kstacks;
	sr->ustacks = &v->an->ustacks;
	sr->kstack = o->kstack;
	sr->ustack = o->ustack;
	sr->folded = o->folded;
	sr->delimited = o->delimited;
	sr->depth = o->stack_depth;
	sr->top = o->top;
	sr->key = o->key;
	sr->unit_ns = o->msecs ? 1000000 : 1000;
	sr->sym = v->sym;
	sr->cgroup_names = v->an->cfg.cgroup_names;
	sr->cgroup_arg = v->an->cfg.group_arg;
}

void report_from_view(struct report *rep, const struct an_view *v,
		      enum rep_measure measure)
{
	const struct trace_opts *o = v->o;

	memset(rep, 0, sizeof(*rep));
	rep->command = o->cmd;
	rep->compat = o->compat_given ? an_compat_name(o->compat) : NULL;
	rep->measure = measure;
	rep->backend = v->backend;
	rep->backend_why = v->backend_why;
	rep->clock = v->clock;
	rep->unit = o->msecs ? "msecs" : "usecs";
	rep->unit_ns = o->msecs ? 1000000 : 1000;
	rep->key = o->key;
	rep->duration_s = v->duration_s;
	rep->interval = v->interval;
	rep->final = v->final;
	rep->timestamp = o->timestamp;
	rep->wall = v->wall;
	rep->stopped_by = v->stopped_by;
	rep->counts = &v->an->counts;
	rep->replaces = v->replaces;
	rep->lost = v->lost;
	rep->dropped = v->dropped;
	rep->rejected = v->rejected;
	rep->unmeasured_sized = v->unmeasured_sized;
	rep->filtered = v->an->cfg.pid >= 0 || v->an->cfg.tid >= 0 || v->an->cfg.comm[0] ||
			v->an->cfg.follow || v->an->cfg.in_cgroup;
	/* threads blocked the whole window are what the filter matched */
	rep->nomatch = analyzer_matched_nothing(v->an) && !v->nwhole;
	rep->seen = v->an->seen;
	rep->no_wakeups = (v->events & (1u << SEV_SWITCH)) && !(v->events & (1u << SEV_WAKEUP));
	rep->unmeasured_ns = v->unmeasured_ns;
	rep->unmeasured_unsized = v->unmeasured_unsized;
	rep->sched_threads = v->sched_threads;
	rep->sched_run_delay_ns = v->sched_run_delay_ns;
	rep->sched_measured_ns = v->sched_measured_ns;
	rep->sched_gone = v->sched_gone;
	rep->sched_gone_measured_ns = v->sched_gone_measured_ns;
	rep->sched_gone_sized = v->sched_gone_sized;
	rep->recovered = v->recovered;
	if (v->sampling) {
		rep->sampling = v->sampling;
		rep->command_cpu_ns = v->child_cpu_ns;
	}
	rep->lost_cpu = v->lost_cpu;
	rep->ncpu = v->ncpu;
	rep->steal_known = v->steal_known;
	rep->steal_ns = v->steal_ns;
	rep->cpu_state = v->an->cfg.cpu_state;
	rep->cpu_unknown_ns = analyzer_cpu_unknown_ns(v->an);
}

void histan_fill(struct histan *h, const struct an_view *v, enum out_format fmt,
		 struct an_mode_state *m, enum rep_measure measure, struct report *rep,
		 struct stack_report *sr)
{
	const struct trace_opts *o = v->o;

	report_from_view(rep, v, measure);
	if (measure == MEASURE_OFFCPU && h->open_on)
		rep->open = openblk_fill(&h->open, v);
	rep->inc = &m->inc;
	rep->groups = &m->groups;
	/* --top ranks the stacks when there are any, else the histograms */
	rep->top = o->kstack || o->ustack ? 0 : o->top;
	if (fmt == FMT_SVG && o->interval_mode && !o->kstack && !o->ustack) {
		if (!h->heat)
			h->heat = heat_new();
		rep->heat = h->heat;
	}
	if (o->kstack || o->ustack) {
		stack_report_of(sr, v);
		rep->stacks = sr;
		rep->stack_overflow = v->an->kstacks.overflow + v->an->ustacks.overflow;
		rep->late_stacks = v->late.on;
		rep->late_unknown_frames = v->late.unknown_frames;
		rep->late_unreadable = v->late.unreadable;
		rep->late_unreadable_errno = v->late.unreadable_errno;
	}
}

int histan_print(struct histan *h, const struct an_view *v, enum out_format fmt, FILE *f,
		 struct an_mode_state *m, enum rep_measure measure)
{
	struct stack_report sr;
	struct report rep;

	histan_fill(h, v, fmt, m, measure, &rep, &sr);
	return report_emit(f, fmt, &rep);
}

int an_cgroup_id(const struct analyzer *an, int32_t tid)
{
	int id = an->cfg.cgroup_of ? an->cfg.cgroup_of(tid, an->cfg.group_arg) : 0;

	return id > 0 ? id : 0;
}

const char *an_cgroup_name(const struct analyzer *an, int id, const char **path)
{
	const char *label = NULL;

	*path = NULL;
	if (an->cfg.cgroup_names)
		an->cfg.cgroup_names(id, &label, path, an->cfg.group_arg);
	return label ? label : "(unknown)";
}
