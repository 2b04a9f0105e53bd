// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * offcpu --wakers: who woke the threads that blocked. Without -K, BCC's
 * wakeuptime question by name: time blocked (switch-out to sched_waking,
 * the run-queue wait after it left out) per waker and target thread. With
 * -K, BCC's offwaketime: each blocked stack joined to its waker's stack
 * (taken at sched_waking, in the waker's context), switch-out to
 * switch-in; with -K --wakers=wakeup, wakeuptime's waker stack alone.
 * --by cgroup keys each entry by the target's cgroup too (a container's
 * wakers): a last column, a first frame, a JSON field.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "grow.h"
#include "hash.h"
#include "histan.h"
#include "svg.h"

#define NAME_LEN 256

struct wkey {
	int32_t tid, waker;		/* waker 0: none (preempted, or its waking lost) */
	int32_t cg;			/* --by cgroup: the target's cgroup then, else 0 */
	uint32_t kstack, waker_kstack;	/* in an->kstacks, 0 none */
	char comm[COMM_LEN], waker_comm[COMM_LEN];
};

struct went {
	struct wkey k;
	uint64_t count, ns;
};

struct wakers {
	struct histan h;		/* offcpu's histogram, for JSON's groups */
	const struct trace_opts *o;
	struct analyzer *an;
	struct went *v;
	size_t n, cap;
	struct posindex index;
	uint32_t max;
	uint64_t overflow, overflow_ns;	/* intervals beyond --max-stacks */
	uint64_t not_woken, not_woken_ns;	/* wakeup mode: no waking (preempted, lost) */
	uint64_t no_waker_stack;	/* -K: woken, but no stack after the waking */
};

static bool stacks(const struct trace_opts *o)
{
	return o->kstack;
}

static const char *wakers_what(const struct trace_opts *o)
{
	if (!stacks(o))
		return "time blocked by waker";
	return o->wakeup_only ? "time blocked by waker stack" :
	       "off-CPU time by kernel stack and waker stack";
}

static const char *wakers_check(const struct trace_opts *o)
{
	const char *bad = anopt_check_offcpu(o);

	if (bad)
		return bad;
	if (o->ustack)
		return "--wakers joins kernel stacks (-K): user stacks (-U) are not taken at "
		       "sched_waking";
	if (o->late_stacks)
		return "--wakers takes the stacks at the switch and the waking: no --late-stacks";
	if (o->key != KEY_NONE && o->key != KEY_CGROUP)
		return "--wakers keys by target and waker thread: no -P, -L, -C or --by other "
		       "than cgroup";
	if (o->fmt != FMT_BCC && o->fmt != FMT_JSON && !(o->fmt == FMT_SVG && o->kstack))
		return "--wakers prints BCC's layouts (the default, -f), --format=json, or with "
		       "-K --format=svg";
	if (o->folded && !stacks(o))
		return "-f folds stacks: add -K";
	if (o->xval || o->interval_mode || o->count > 1 || o->msecs)
		return "--wakers is one window in microseconds: no --xval, -i, COUNT or -m";
	return NULL;
}

/* -K: the waker's kernel stack at each sched_waking too */
static void wakers_request(const struct trace_opts *o, struct trace_req *req)
{
	(void)o;
	req->waking_kstack = req->kstack && req->waking;
}

static unsigned wakers_events(const struct trace_opts *o)
{
	(void)o;
	return 1u << SEV_WAKING;	/* in the waker's context, where wakeup may not be */
}

static enum hist_refusal wakers_hist(const struct trace_opts *o)
{
	(void)o;
	return HIST_NO_EVENTS;
}

static void wakers_configure(const struct trace_opts *o, struct an_cfg *cfg)
{
	cfg->key = o->key == KEY_CGROUP ? KEY_CGROUP : KEY_NONE;
}

static uint64_t key_hash(const struct wkey *k)
{
	return fnv1a64(FNV1A64_INIT, k, sizeof(*k));
}

static void add(struct wakers *s, const struct wkey *k, uint64_t ns)
{
	uint64_t h = key_hash(k);
	struct went *nv;
	uint32_t i;

	for (i = posindex_first(&s->index, h); s->index.slot[i] >= 0;
	     i = posindex_next(&s->index, i)) {
		struct went *e = &s->v[s->index.slot[i]];

		if (!memcmp(&e->k, k, sizeof(*k))) {
			e->count++;
			e->ns += ns;
			return;
		}
	}
	if (s->n >= s->max || !(nv = mem_grow_from(s->v, &s->cap, s->n, sizeof(*s->v), 256))) {
		s->overflow++;
		s->overflow_ns += ns;
		return;
	}
	s->v = nv;
	s->v[s->n] = (struct went){ *k, 1, ns };
	s->index.slot[i] = (int32_t)s->n++;
}

static void on_off(void *arg, const struct an_off *o)
{
	struct wakers *s = arg;
	struct wkey k;
	uint64_t ns;

	memset(&k, 0, sizeof(k));	/* the key is hashed whole: padding too */
	k.tid = o->tid;
	if (s->o->key == KEY_CGROUP)
		k.cg = an_cgroup_id(s->an, o->tid);
	comm_copy(k.comm, o->comm);
	if (o->waker > 0) {
		k.waker = o->waker;
		comm_copy(k.waker_comm, o->waker_comm);
	}
	if (stacks(s->o)) {
		k.kstack = s->o->wakeup_only ? 0 : o->kstack;
		k.waker_kstack = o->waker ? o->waker_kstack : 0;
		s->no_waker_stack += o->waker && !o->waker_kstack;
	}
	if (!stacks(s->o) || s->o->wakeup_only) {
		/* wakeuptime: switch-out to the waking, the wait for a CPU left out */
		if (!o->waker || o->waking_ns < o->start_ns) {
			s->not_woken++;
			s->not_woken_ns += o->end_ns - o->start_ns;
			return;
		}
		ns = o->waking_ns - o->start_ns;
	} else {
		ns = o->end_ns - o->start_ns;	/* offwaketime: switch-out to switch-in */
	}
	add(s, &k, ns);
}

static void on_boundary(void *arg)
{
	struct wakers *s = arg;

	s->n = 0;
	posindex_clear(&s->index);
	s->overflow = s->overflow_ns = s->not_woken = s->not_woken_ns = 0;
	s->no_waker_stack = 0;
}

static int wakers_setup(const struct trace_opts *o, struct analyzer *an, void **state)
{
	struct wakers *s = calloc(1, sizeof(*s));
	/* who woke each one, and from where */
	struct an_sink sink = { .needs = AN_NEED_WAKERS, .off = on_off, .boundary = on_boundary };
	int ret;

	if (!s)
		return -ENOMEM;
	s->o = o;
	s->an = an;
	s->max = o->max_stacks;
	ret = posindex_init(&s->index, s->max);
	sink.arg = s;
	if (!ret)
		ret = analyzer_subscribe(an, &sink);
	/* blocks no one woke before the window's end: shown too */
	if (!ret && !(ret = openblk_subscribe(&s->h.open, an)))
		s->h.open_on = true;
	if (ret) {
		posindex_fini(&s->index);
		free(s);
		return ret;
	}
	*state = s;
	return 0;
}

static void wakers_free(void *state)
{
	struct wakers *s = state;

	if (!s)
		return;
	heat_free(s->h.heat);
	posindex_fini(&s->index);
	free(s->v);
	free(s);
}

/* A stack's frames named, from where BCC's would begin: @from's caller, or 0 */
struct named {
	char (*name)[NAME_LEN];
	uint32_t n;
};

static void name_frames(const struct an_view *v, uint32_t id, const char *from,
			char (*buf)[NAME_LEN], struct named *out)
{
	uint32_t depth = 0, i, skip = 0;
	const uint64_t *fr = stacktab_get(&v->an->kstacks, id, &depth);

	if (depth > STACK_MAX_DEPTH)
		depth = STACK_MAX_DEPTH;
	for (i = 0; i < depth; i++)
		v->sym->kernel(v->sym->karg, fr[i], buf[i], NAME_LEN);
	/* the tracer's own frames first: the stack begins at @from (a switch's
	 * __schedule), or past it (the waking's try_to_wake_up, as a kprobe
	 * there drops itself) */
	for (i = 0; i < depth && i < 8; i++)
		if (!strcmp(buf[i], from)) {
			skip = i + (strcmp(from, "try_to_wake_up") ? 0 : 1);
			break;
		}
	out->name = buf + skip;
	out->n = depth - skip;
	if (out->n > v->o->stack_depth)
		out->n = v->o->stack_depth;
}

/* --by cgroup: the target's cgroup as a folded line's first frame */
static void cg_frame(FILE *f, const struct an_view *v, const struct went *e)
{
	const char *path;

	if (v->o->key == KEY_CGROUP)
		folded_cgroup(f, an_cgroup_name(v->an, e->k.cg, &path));
}

static int by_ns(const void *a, const void *b)
{
	const struct went *x = a, *y = b;

	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

/* the blocked thread's frames into @t, its waker's into @w */
static void name_both(const struct an_view *v, const struct went *e, char (*tb)[NAME_LEN],
		      char (*wb)[NAME_LEN], struct named *t, struct named *w)
{
	if (e->k.kstack)
		name_frames(v, e->k.kstack, "__schedule", tb, t);
	if (e->k.waker_kstack)
		name_frames(v, e->k.waker_kstack, "try_to_wake_up", wb, w);
}

/*
 * offwaketime -f: target;frames root->leaf;--;waker frames leaf->root;waker
 * N (wakeuptime -f: waker;frames root->leaf;target N); without the value
 * for a flame graph's lines
 */
static void print_folded(FILE *f, const struct an_view *v, const struct went *e,
			 char (*tb)[NAME_LEN], char (*wb)[NAME_LEN], bool value)
{
	struct named t = { 0 }, w = { 0 };
	uint32_t i;

	name_both(v, e, tb, wb, &t, &w);
	cg_frame(f, v, e);
	if (v->o->wakeup_only) {
		/* wakeuptime -f: waker;frames root->leaf;target N */
		stack_fold_frame(f, e->k.waker_comm);
		for (i = w.n; i-- > 0;) {
			fputc(';', f);
			stack_fold_frame(f, w.name[i]);
		}
		fputc(';', f);
		stack_fold_frame(f, e->k.comm);
		if (value)
			fprintf(f, " %" PRIu64 "\n", e->ns / 1000);
		return;
	}
	stack_fold_frame(f, e->k.comm);
	if (e->k.kstack && !t.n)
		fputs(";[Missed Kernel Stack]", f);
	for (i = t.n; i-- > 0;) {
		fputc(';', f);
		stack_fold_frame(f, t.name[i]);
	}
	fputs(";--", f);
	if (e->k.waker && !e->k.waker_kstack)
		fputs(";[Missed Kernel Stack]", f);
	for (i = 0; i < w.n; i++) {
		fputc(';', f);
		stack_fold_frame(f, w.name[i]);
	}
	fputc(';', f);
	stack_fold_frame(f, e->k.waker_comm);
	if (value)
		fprintf(f, " %" PRIu64 "\n", e->ns / 1000);
}

/* offwaketime's and wakeuptime's multi-line layouts */
static void print_stacked(FILE *f, const struct an_view *v, const struct went *e,
			  char (*tb)[NAME_LEN], char (*wb)[NAME_LEN])
{
	struct named t = { 0 }, w = { 0 };
	uint32_t i;

	name_both(v, e, tb, wb, &t, &w);
	if (v->o->wakeup_only) {
		fprintf(f, "    %-16s ", "target:");
		text_field(f, e->k.comm, COMM_LEN, 0);
		fputc('\n', f);
		for (i = 0; i < w.n; i++)
			fprintf(f, "    %s\n", w.name[i]);
		fprintf(f, "    %-16s ", "waker:");
		text_field(f, e->k.waker_comm, COMM_LEN, 0);
		fprintf(f, "\n        %" PRIu64 "\n\n", e->ns / 1000);
		return;
	}
	fprintf(f, "    %-16s ", "waker:");
	text_field(f, e->k.waker_comm, COMM_LEN, 0);
	fprintf(f, " %d\n", e->k.waker);
	if (e->k.waker && !e->k.waker_kstack)
		fputs("    [Missed Kernel Stack]\n", f);
	for (i = w.n; i-- > 0;)
		fprintf(f, "    %s\n", w.name[i]);
	fprintf(f, "    %-16s %s\n", "--", "--");
	if (e->k.kstack && !t.n)
		fputs("    [Missed Kernel Stack]\n", f);
	for (i = 0; i < t.n; i++)
		fprintf(f, "    %s\n", t.name[i]);
	fprintf(f, "    %-16s ", "target:");
	text_field(f, e->k.comm, COMM_LEN, 0);
	fprintf(f, " %d\n", e->k.tid);
	if (v->o->key == KEY_CGROUP) {
		const char *path;

		fprintf(f, "    %-16s ", "cgroup:");
		text_field(f, an_cgroup_name(v->an, e->k.cg, &path), NAME_LEN, 0);
		fputc('\n', f);
	}
	fprintf(f, "        %" PRIu64 "\n\n", e->ns / 1000);
}

/* without -K: a table per waker and target, the most time first */
static void print_table(FILE *f, struct wakers *s, const struct an_view *v)
{
	size_t i, n = s->o->top && s->o->top < s->n ? s->o->top : s->n;
	bool cg = s->o->key == KEY_CGROUP;
	const char *path;

	fprintf(f, "%-16s %8s %-16s %8s %10s %14s%s\n", "WAKER", "PID", "TARGET", "TID", "COUNT",
		"TOTAL(us)", cg ? " CGROUP" : "");
	for (i = 0; i < n; i++) {
		const struct went *e = &s->v[s->n - 1 - i];

		text_field(f, e->k.waker_comm, COMM_LEN, 16);
		fprintf(f, " %8d ", e->k.waker);
		text_field(f, e->k.comm, COMM_LEN, 16);
		fprintf(f, " %8d %10" PRIu64 " %14" PRIu64, e->k.tid, e->count, e->ns / 1000);
		if (cg) {
			fputc(' ', f);
			text_field(f, an_cgroup_name(v->an, e->k.cg, &path), NAME_LEN, 0);
		}
		fputc('\n', f);
	}
	if (n < s->n)
		fprintf(f, "# and %zu more (--top %u)\n", s->n - n, s->o->top);
}

struct out_arg {
	struct wakers *s;
	const struct an_view *v;
};

static void text_body(FILE *f, void *arg)
{
	const struct out_arg *a = arg;
	struct wakers *s = a->s;
	const struct trace_opts *o = a->v->o;
	char (*tb)[NAME_LEN] = NULL, (*wb)[NAME_LEN] = NULL;
	size_t i;

	if (!o->folded) {
		fprintf(f, "Tracing blocked time (us) by %s", !stacks(o) ? "waker" :
			o->wakeup_only ? "kernel stack" : "kernel off-CPU and waker stack");
		if (a->v->replay_path)
			fputs(" in the recording.\n\n", f);	/* nothing to interrupt */
		else if (o->duration_ns)
			fprintf(f, " for %g secs.\n\n", (double)o->duration_ns / 1e9);
		else
			fputs("... Hit Ctrl-C to end.\n\n", f);
	}
	if (!stacks(o)) {
		print_table(f, s, a->v);
	} else {
		tb = malloc(STACK_MAX_DEPTH * sizeof(*tb));
		wb = malloc(STACK_MAX_DEPTH * sizeof(*wb));
		if (!tb || !wb) {
			fputs("offcpu-ftrace: out of memory naming stacks\n", stderr);
			goto out;
		}
		/* as BCC prints them: the least time first */
		for (i = 0; i < s->n; i++) {
			if (o->folded)
				print_folded(f, a->v, &s->v[i], tb, wb, true);
			else
				print_stacked(f, a->v, &s->v[i], tb, wb);
		}
	}
out:
	free(tb);
	free(wb);
}

/* the footer: what the numbers are, and what is not in them (@arg: a struct out_arg) */
static void footer(FILE *f, void *arg)
{
	const struct wakers *s = ((const struct out_arg *)arg)->s;
	const struct trace_opts *o = s->o;

	fprintf(f, "# %s: %s, microseconds; the waker is the task that ran sched_waking "
		"(its stack there)\n", o->cmd, stacks(o) && !o->wakeup_only ?
		"switch-out to switch-in (offwaketime)" :
		"switch-out to the waking, the wait for a CPU left out (wakeuptime)");
	if (s->not_woken)
		fprintf(f, "# %" PRIu64 " interval%s (%.3f ms) with no waking: preempted, or the "
			"waking is not in the trace\n", s->not_woken, s->not_woken == 1 ? "" : "s",
			(double)s->not_woken_ns / 1e6);
	if (s->no_waker_stack)
		fprintf(f, "# %" PRIu64 " woken interval%s without the waker's stack ([Missed Kernel "
			"Stack]): a recording needs 'offcpu-ftrace record -K --wakers'\n",
			s->no_waker_stack, s->no_waker_stack == 1 ? "" : "s");
	if (s->overflow)
		fprintf(f, "# %" PRIu64 " interval%s (%.3f ms) beyond --max-stacks %u, not shown\n",
			s->overflow, s->overflow == 1 ? "" : "s", (double)s->overflow_ns / 1e6, s->max);
}

static void json_frames(FILE *f, const struct an_view *v, uint32_t id, const char *from,
			char (*buf)[NAME_LEN])
{
	struct named nm = { 0 };
	uint32_t i;

	fputc('[', f);
	if (id)
		name_frames(v, id, from, buf, &nm);
	for (i = 0; i < nm.n; i++) {
		if (i)
			fputc(',', f);
		json_str(f, nm.name[i], NAME_LEN);
	}
	fputc(']', f);
}

static void json_extra(FILE *f, void *arg)
{
	const struct out_arg *a = arg;
	struct wakers *s = a->s;
	char (*buf)[NAME_LEN] = malloc(STACK_MAX_DEPTH * sizeof(*buf));
	size_t i;

	fprintf(f, ",\"wakers\":{\"mode\":\"%s\",\"not_woken\":%" PRIu64 ",\"not_woken_ns\":%"
		PRIu64 ",\"no_waker_stack\":%" PRIu64 ",\"overflow\":%" PRIu64 ",\"entries\":[",
		!stacks(s->o) ? "wakeuptime" : s->o->wakeup_only ? "wakeuptime_stacks" :
		"offwaketime", s->not_woken, s->not_woken_ns, s->no_waker_stack, s->overflow);
	for (i = 0; buf && i < s->n; i++) {
		const struct went *e = &s->v[s->n - 1 - i];

		fprintf(f, "%s{\"tid\":%d,\"comm\":", i ? "," : "", e->k.tid);
		json_str(f, e->k.comm, COMM_LEN);
		fprintf(f, ",\"waker_tid\":%d,\"waker_comm\":", e->k.waker);
		json_str(f, e->k.waker_comm, COMM_LEN);
		fprintf(f, ",\"count\":%" PRIu64 ",\"total_ns\":%" PRIu64, e->count, e->ns);
		if (s->o->key == KEY_CGROUP) {
			const char *path, *name = an_cgroup_name(a->v->an, e->k.cg, &path);

			fputs(",\"cgroup\":", f);
			json_str(f, name, NAME_LEN);
			fputs(",\"cgroup_path\":", f);
			json_str_or_null(f, path, 4096);
		}
		if (stacks(s->o)) {
			fputs(",\"frames\":", f);
			json_frames(f, a->v, e->k.kstack, "__schedule", buf);
			fputs(",\"waker_frames\":", f);
			json_frames(f, a->v, e->k.waker_kstack, "try_to_wake_up", buf);
		}
		fputc('}', f);
	}
	fputs("]}", f);
	free(buf);
}

/* a flame graph's entry @i: the largest first (--top keeps them) */
static bool flame_entry(FILE *f, void *arg, size_t i, char (*tb)[NAME_LEN], char (*wb)[NAME_LEN],
			uint64_t *ns)
{
	const struct out_arg *a = arg;
	const struct went *e = &a->s->v[a->s->n - 1 - i];

	*ns = e->ns;
	print_folded(f, a->v, e, tb, wb, false);
	return true;
}

/* -K --format=svg: the joined stacks as a flame graph, the waker's part in aqua */
static int print_svg(struct wakers *s, const struct an_view *v, struct report *rep, FILE *f)
{
	struct out_arg a = { s, v };
	struct fold_line *lines = NULL;
	uint32_t n = 0;

	if (flame_fold(s->n, flame_entry, &a, false, &lines, &n))
		return -ENOMEM;
	svg_flame_lines(f, rep, lines, n, s->o->top, s->o->wakeup_only ?
			"Time blocked by waker stack" :
			"Off-CPU time by kernel stack and waker stack", FLAME_OFFCPU);
	stacks_fold_free(lines, n);
	return ferror(f) ? -EIO : 0;
}

static int wakers_print(void *state, const struct an_view *v, enum out_format fmt, FILE *f)
{
	struct wakers *s = state;
	struct out_arg a = { s, v };
	struct stack_report sr;
	struct report rep;

	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), by_ns);
	histan_fill(&s->h, v, fmt, &v->an->off, MEASURE_OFFCPU, &rep, &sr);
	rep.stacks = NULL;	/* the stacks are ours, joined */
	rep.key = s->o->key == KEY_CGROUP ? KEY_CGROUP : KEY_NONE;
	rep.extra_arg = &a;
	if (fmt == FMT_JSON) {
		rep.json_extra = json_extra;
		return report_emit(f, fmt, &rep);
	}
	if (fmt == FMT_SVG)
		return print_svg(s, v, &rep, f);
	return report_emit_text(f, fmt, &rep, v->o->folded, text_body, footer);
}

const struct analysis analysis_wakers = {
	.name = "wakers",
	.summary = "who woke blocked threads, and from where (offcpu --wakers)",
	.flags = AN_F_MODE | AN_F_REPORT | AN_F_TRACED | AN_F_TIDS,
	.what = wakers_what,
	.check = wakers_check,
	.events = wakers_events,
	.request = wakers_request,
	.hist = wakers_hist,
	.configure = wakers_configure,
	.setup = wakers_setup,
	.print = wakers_print,
	.free = wakers_free,
};
