// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * profile: where each thread's wall-clock time went, in one flame graph:
 * on a CPU (sampled with the CPU clock, weighted by each sample's period;
 * the exact total from the switches), waiting for a CPU (run-queue waits)
 * and blocked (off-CPU, by the state it began in), each by stack, per
 * thread (-P: per process, --by cgroup: per cgroup), so that one sleeping
 * pool does not swamp the rest. Every nanosecond of a thread's life in the
 * window is one of them.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "grow.h"
#include "hash.h"
#include "histan.h"
#include "svg.h"

#define NAME_LEN 256
#define DEFAULT_HZ 99

enum pkind {
	PK_ONCPU,		/* [on-cpu]: sampled, by stack */
	PK_ONCPU_NOSAMPLE,	/* [on-cpu, no samples]: from the switches, no stack */
	PK_RUNQ,		/* [runq]: waiting for a CPU */
	PK_OFF_S,		/* [off-cpu S]: asleep */
	PK_OFF_D,		/* [off-cpu D]: uninterruptible */
	PK_OFF_OTHER,		/* [off-cpu]: another or unknown state */
	PK_N,
};

static const char *const kind_name[PK_N] = {
	"[on-cpu]", "[on-cpu, no samples]", "[runq]", "[off-cpu S]", "[off-cpu D]", "[off-cpu]",
};

/* one thread's account (-P, --by cgroup: a row's, its threads added) */
struct pthread {
	int32_t tid, tgid;
	int32_t cg;			/* --by cgroup: its cgroup at its last event */
	char comm[COMM_LEN];
	uint64_t born, died;		/* in the window (0: before it / after it) */
	uint64_t on_since, off_since;	/* where the switches left it, 0 unknown */
	int64_t off_state;
	uint32_t open_ks, open_us;	/* the stacks of its interval open at the end */
	uint64_t open_wake;		/* ... and its wakeup there, 0 none */
	bool seen_out;			/* a switch-out of it is in the window */
	bool ran;			/* ... a switch-in */
	bool totals;			/* the proc backend's: its life is their sum */
	uint32_t nthreads;		/* -P's and --by cgroup's rows: the threads merged */
	uint64_t wall_sum;		/* ... and their lives in the window, added */
	uint64_t on_ns, samples_ns, samples;
	uint64_t ns[PK_N];		/* by kind: the traced ones exact */
};

struct pkey {
	int32_t id;			/* tid, or tgid with -P */
	int32_t tgid;			/* for user symbols */
	int32_t cg;			/* --by cgroup: the thread's then, else 0 */
	uint32_t kind, kstack, ustack;
};

struct pent {
	struct pkey k;
	uint64_t ns;
};

struct profile {
	const struct trace_opts *o;
	struct analyzer *an;
	struct histan h;
	struct pthread *t;
	size_t nt, capt;
	struct posindex tindex;
	uint32_t maxt;
	uint64_t threads_over;		/* threads beyond --max-tasks */
	struct pent *v;
	size_t n, cap;
	struct posindex index;
	uint32_t max;
	uint64_t overflow_ns;		/* beyond --max-stacks */
	uint64_t first_ts, last_ts;
	bool sampled;			/* samples arrived */
	bool totals;			/* a sampling backend's totals arrived (proc) */
	bool closed;			/* close_window() ran: a second print adds nothing */
};

static void profile_usage(FILE *f)
{
	fputs("Usage: offcpu-ftrace profile [OPTIONS] [DURATION]\n"
	      "       offcpu-ftrace profile [OPTIONS] -- COMMAND [ARGS]\n"
	      "\n"
	      "Where wall-clock time goes, per thread: on a CPU (sampled with the CPU\n"
	      "clock at -F Hz, by kernel and user stack), waiting for a CPU, and\n"
	      "blocked (by the state it began in), each by stack, in one flame graph.\n"
	      "Every nanosecond of each thread's life in the window is one of them.\n"
	      "The perf backend samples (auto picks it where perf events are allowed);\n"
	      "ring has on-CPU time from the switches without stacks, proc each\n"
	      "thread's totals. User stacks need frame pointers: code built without\n"
	      "them ends the stack at its first function.\n"
	      "\n"
	      "Options:\n"
	      "  -p, --pid PID          only this process (all its threads)\n"
	      "  -t, --tid TID          only this thread\n"
	      "  -c, --comm COMM        only threads named COMM\n"
	      "  -L, --tids             per thread (the default)\n"
	      "  -P, --pids             per process: a pool of threads merged\n"
	      "      --by cgroup        per cgroup (container), its threads merged; the\n"
	      "                         folded lines begin with its name\n"
	      "      --cgroup-controller NAME, --cgroup-depth N  as for runq\n"
	      "  -F, --frequency HZ     on-CPU samples per second (default 99: off the\n"
	      "                         kernel's tick, so samples do not lock step with it)\n"
	      "  -U, --user-stacks      user stacks where threads block or wait too (the\n"
	      "                         samples always have them): a walk per switch, costly\n"
	      "                         where threads switch often\n"
	      "  -f, --folded           folded lines (flamegraph.pl, speedscope): thread;\n"
	      "                         user frames;kernel frames;[kind] microseconds\n"
	      "      --format FMT       bcc (a table per thread, default), json, or svg (the\n"
	      "                         flame graph: on-CPU warm, off-CPU blue, run queue\n"
	      "                         purple)\n"
	      "      --top N            the N threads (or stacks, -f/svg) with the most time\n"
	      "      --stack-depth N, --max-stacks N, --max-tasks N, --cgroup, --backend,\n"
	      "      --tracefs, --buffer-size, --strict, -o FILE, --dry-run, -q as for offcpu\n"
	      "  -h, --help             this help\n"
	      "\n"
	      "Examples:\n"
	      "  offcpu-ftrace profile -- make -j8                  # where the build's time went\n"
	      "  offcpu-ftrace profile --format=svg -o p.svg -p 1234 30\n"
	      "  offcpu-ftrace profile -f -P -- ./test.sh > prof.folded\n", f);
	an_help_exit(f, "profile");
}

static const char *profile_what(const struct trace_opts *o)
{
	(void)o;
	return "wall-clock time (on-CPU sampled, waiting for a CPU, off-CPU)";
}

static void profile_defaults(struct trace_opts *o)
{
	o->modes = AN_RUNQ | AN_OFFCPU;
	/*
	 * kernel stacks at every switch-out; user stacks there only with -U
	 * (a user stack walk per switch doubles the cost where threads switch
	 * often: docs/performance.md); the samples always have both
	 */
	o->kstack = true;
}

static const char *profile_check(const struct trace_opts *o)
{
	if (o->key != KEY_NONE && o->key != KEY_TID && o->key != KEY_PID && o->key != KEY_CGROUP)
		return "profile is per thread (-L, the default), per process (-P) or per cgroup "
		       "(--by cgroup)";
	if (o->fmt != FMT_BCC && o->fmt != FMT_JSON && o->fmt != FMT_SVG)
		return "profile prints a table (the default), -f folded lines, --format=json or svg";
	if (o->folded && o->fmt != FMT_BCC)
		return "-f and --format exclude each other";
	if (o->interval_mode || o->count > 1 || o->msecs || o->xval)
		return "profile is one window in microseconds: no -i, COUNT, -m or --xval";
	return NULL;
}

static unsigned profile_events(const struct trace_opts *o)
{
	(void)o;
	return 1u << SEV_SAMPLE;	/* where the backend can sample (perf) */
}

static enum hist_refusal profile_hist(const struct trace_opts *o)
{
	(void)o;
	return HIST_NO_EVENTS;
}

static void profile_configure(const struct trace_opts *o, struct an_cfg *cfg)
{
	(void)o;
	cfg->key = KEY_TID;	/* the proc backend's totals, per thread */
	cfg->modes |= AN_ONCPU;
}

/* --by cgroup: @t's cgroup now (the cache follows the moves in trace order) */
static struct pthread *in_cgroup(struct profile *p, struct pthread *t)
{
	if (p->o->key == KEY_CGROUP)
		t->cg = an_cgroup_id(p->an, t->tid);
	return t;
}

static struct pthread *thread_of(struct profile *p, int32_t tid)
{
	struct pthread *nt;
	uint32_t i;

	for (i = posindex_first(&p->tindex, tid_hash32(tid)); p->tindex.slot[i] >= 0;
	     i = posindex_next(&p->tindex, i))
		if (p->t[p->tindex.slot[i]].tid == tid)
			return in_cgroup(p, &p->t[p->tindex.slot[i]]);
	if (p->nt >= p->maxt || !(nt = mem_grow_from(p->t, &p->capt, p->nt, sizeof(*p->t), 64))) {
		p->threads_over++;
		return NULL;
	}
	p->t = nt;
	memset(&p->t[p->nt], 0, sizeof(p->t[0]));
	p->t[p->nt].tid = tid;
	p->t[p->nt].tgid = -1;
	p->tindex.slot[i] = (int32_t)p->nt;
	return in_cgroup(p, &p->t[p->nt++]);
}

static void add(struct profile *p, const struct pthread *t, unsigned kind, uint32_t ks,
		uint32_t us, uint64_t ns)
{
	struct pkey k;
	struct pent *nv;
	uint64_t h;
	uint32_t i;

	if (!ns)
		return;
	memset(&k, 0, sizeof(k));
	k.id = p->o->key == KEY_PID && t->tgid > 0 ? t->tgid : t->tid;
	k.tgid = t->tgid;
	k.cg = p->o->key == KEY_CGROUP ? t->cg : 0;
	k.kind = kind;
	k.kstack = ks;
	k.ustack = us;
	h = fnv1a64(FNV1A64_INIT, &k, sizeof(k));
	for (i = posindex_first(&p->index, h); p->index.slot[i] >= 0;
	     i = posindex_next(&p->index, i))
		if (!memcmp(&p->v[p->index.slot[i]].k, &k, sizeof(k))) {
			p->v[p->index.slot[i]].ns += ns;
			return;
		}
	if (p->n >= p->max || !(nv = mem_grow_from(p->v, &p->cap, p->n, sizeof(*p->v), 256))) {
		p->overflow_ns += ns;
		return;
	}
	p->v = nv;
	p->v[p->n] = (struct pent){ k, ns };
	p->index.slot[i] = (int32_t)p->n++;
}

static void seen(struct profile *p, uint64_t ts)
{
	if (!p->first_ts || ts < p->first_ts)
		p->first_ts = ts;
	if (ts > p->last_ts)
		p->last_ts = ts;
}

static unsigned off_kind(const struct analyzer *an, int64_t state)
{
	if (state == SCHED_STATE_UNKNOWN)
		return PK_OFF_OTHER;
	if ((uint64_t)state & an->s_bits)
		return PK_OFF_S;
	if ((uint64_t)state & an->d_bits)
		return PK_OFF_D;
	return PK_OFF_OTHER;
}

static void on_sample(void *arg, const struct an_sample *s)
{
	struct profile *p = arg;
	struct pthread *t;
	uint32_t ks, us;

	seen(p, s->ts);
	if (!s->selected || !(t = thread_of(p, s->tid)))
		return;
	p->sampled = true;
	if (s->tgid > 0)
		t->tgid = s->tgid;
	t->samples++;
	t->samples_ns += s->period_ns;
	ks = s->kdepth ? stacktab_intern(&p->an->kstacks, s->kframes, s->kdepth) : 0;
	us = s->udepth ? stacktab_intern(&p->an->ustacks, s->uframes, s->udepth) : 0;
	add(p, t, PK_ONCPU, ks, us, s->period_ns);
}

/* a stretch's start: the switch-in, else ours of it, else the window's (0: a gap) */
static uint64_t slice_from(const struct profile *p, const struct pthread *t, uint64_t start_ns)
{
	return start_ns ? start_ns : t->on_since ? t->on_since :
	       !t->seen_out && !t->off_since ? (t->born ? t->born : p->first_ts) : 0;
}

/*
 * A switch: the task leaving ran since its switch-in (or the window's
 * start), the one arriving was off since its switch-out (or the start)
 */
static void on_slice(void *arg, const struct an_slice *sl)
{
	struct profile *p = arg;
	struct pthread *t;
	uint64_t from;

	seen(p, sl->end_ns);
	if (sl->lost) {
		/*
		 * its switch-out is not in the trace: on the CPU up to the
		 * CPU's last event at least; the analyzer's off-CPU interval
		 * (state unknown) starts there, the rest is unplaced
		 */
		if (sl->tid > 0 && sl->selected && (t = thread_of(p, sl->tid)) &&
		    (from = slice_from(p, t, sl->start_ns))) {
			if (sl->end_ns > from)
				t->on_ns += sl->end_ns - from;
			t->on_since = 0;
			t->off_since = sl->end_ns;
			t->off_state = SCHED_STATE_UNKNOWN;
			t->seen_out = true;
		}
		return;
	}
	if (sl->tid > 0 && sl->selected && (t = thread_of(p, sl->tid))) {
		from = slice_from(p, t, sl->start_ns);
		if (sl->comm[0])
			comm_copy(t->comm, sl->comm);	/* the latest: an exec renames it */
		if (from && sl->end_ns > from)
			t->on_ns += sl->end_ns - from;
		t->on_since = 0;
		t->off_since = sl->end_ns;
		t->off_state = sl->state;
		t->seen_out = true;
		if ((uint64_t)sl->state & p->an->dead_bits)
			t->died = sl->end_ns;
	}
	if (sl->next_tid > 0 && sl->next_selected && (t = thread_of(p, sl->next_tid))) {
		if (!t->seen_out && !t->on_since && !t->ran) {
			if (t->born) {
				/* created, then its first wait for a CPU */
				t->ns[PK_RUNQ] += sl->end_ns - t->born;
				add(p, t, PK_RUNQ, 0, 0, sl->end_ns - t->born);
			} else {
				/* off since before the window: its state and stack unknown */
				t->ns[PK_OFF_OTHER] += sl->end_ns - p->first_ts;
				add(p, t, PK_OFF_OTHER, 0, 0, sl->end_ns - p->first_ts);
			}
		}
		t->ran = true;
		t->on_since = sl->end_ns;
		t->off_since = 0;
	}
}

/* an off-CPU interval by its stack: blocked until the wakeup, then waiting for a CPU */
static void on_off(void *arg, const struct an_off *o)
{
	struct profile *p = arg;
	struct pthread *t = thread_of(p, o->tid);
	uint64_t wake = o->wake_ns ? o->wake_ns : o->waking_ns, runq;
	bool preempted = o->state != SCHED_STATE_UNKNOWN &&
			 sched_state_runnable(&p->an->cfg.states, o->state);
	unsigned kind;

	if (!t)
		return;
	if (o->tgid > 0)
		t->tgid = o->tgid;
	if (!t->comm[0])
		comm_copy(t->comm, o->comm);
	if (preempted || (wake >= o->start_ns && wake <= o->end_ns)) {
		runq = preempted ? o->end_ns - o->start_ns : o->end_ns - wake;
	} else {
		runq = 0;	/* its wakeup is not in the trace: all of it blocked */
	}
	kind = off_kind(p->an, o->state);
	t->ns[PK_RUNQ] += runq;
	add(p, t, PK_RUNQ, o->kstack, o->ustack, runq);
	t->ns[kind] += o->end_ns - o->start_ns - runq;
	add(p, t, kind, o->kstack, o->ustack, o->end_ns - o->start_ns - runq);
}

/*
 * The proc backend: each thread's totals for the window, from schedstat
 * (on-CPU and run-queue, exact) and status with the states it sampled
 * (blocked, split S/D by the samples); no stacks
 */
static void on_totals(void *arg, const struct an_thread *a, int32_t tgid)
{
	struct profile *p = arg;
	struct pthread *t = thread_of(p, a->tid);

	if (!t)
		return;
	p->totals = t->totals = true;
	if (tgid > 0)
		t->tgid = tgid;
	if (a->comm && a->comm[0])
		comm_copy(t->comm, a->comm);
	t->on_ns += a->oncpu_ns;
	t->ns[PK_RUNQ] += a->runq_ns;
	t->ns[PK_OFF_S] += a->s_ns;
	t->ns[PK_OFF_D] += a->d_ns;
	t->ns[PK_OFF_OTHER] += a->other_ns;
	add(p, t, PK_RUNQ, 0, 0, a->runq_ns);
	add(p, t, PK_OFF_S, 0, 0, a->s_ns);
	add(p, t, PK_OFF_D, 0, 0, a->d_ns);
	add(p, t, PK_OFF_OTHER, 0, 0, a->other_ns);
}

/* an interval open at the window's end: its stacks and wakeup, for close_window */
static void on_open_off(void *arg, const struct an_off *o)
{
	struct profile *p = arg;
	struct pthread *t = thread_of(p, o->tid);

	if (!t || t->off_since != o->start_ns)
		return;
	t->open_ks = o->kstack;
	t->open_us = o->ustack;
	t->open_wake = o->wake_ns ? o->wake_ns : o->waking_ns;
}

/* a thread created in the window lives from its first wakeup */
static void on_wake(void *arg, const struct an_wake *w)
{
	struct profile *p = arg;
	struct pthread *t;

	seen(p, w->ts);
	if (w->type == SEV_WAKEUP_NEW && w->selected && (t = thread_of(p, w->tid)) && !t->born)
		t->born = w->ts;
}

/*
 * tracing is on: the window starts now (in the trace clock where it is
 * the monotonic one), not at the first event, so that a thread's life
 * before its first event is placed too
 */
static void profile_begin(void *state, const struct an_view *v)
{
	struct profile *p = state;

	if (v->start_ns && v->clock && !strcmp(v->clock, "mono") &&
	    (!p->first_ts || v->start_ns < p->first_ts))
		p->first_ts = v->start_ns;
}

static int profile_setup(const struct trace_opts *o, struct analyzer *an, void **state)
{
	struct profile *p = calloc(1, sizeof(*p));
	struct an_sink sink = { .sample = on_sample, .slice = on_slice, .off = on_off,
				.wake = on_wake, .totals = on_totals,
				.open_off = on_open_off };
	int ret;

	if (!p)
		return -ENOMEM;
	p->o = o;
	p->an = an;
	p->max = o->max_stacks;
	p->maxt = o->max_tasks;
	sink.arg = p;
	ret = posindex_init(&p->index, p->max);
	if (!ret)
		ret = posindex_init(&p->tindex, p->maxt);
	if (!ret)
		ret = analyzer_subscribe(an, &sink);
	*state = p;
	return ret;
}

static void profile_free(void *state)
{
	struct profile *p = state;

	if (!p)
		return;
	posindex_fini(&p->index);
	posindex_fini(&p->tindex);
	heat_free(p->h.heat);
	free(p->v);
	free(p->t);
	free(p);
}

/*
 * The window's end: what each thread was doing then runs to it; its wall
 * time is its life in the window. Called once, at the print.
 */
static void close_window(struct profile *p, uint64_t end)
{
	size_t i;

	if (p->closed)
		return;
	p->closed = true;
	for (i = 0; i < p->nt; i++) {
		struct pthread *t = &p->t[i];

		if (t->on_since && end > t->on_since)
			t->on_ns += end - t->on_since;
		else if (t->off_since && !t->died && end > t->off_since) {
			/* blocked until its wakeup (if any), then waiting for a CPU */
			unsigned kind = off_kind(p->an, t->off_state);
			bool preempted = t->off_state != SCHED_STATE_UNKNOWN &&
					 sched_state_runnable(&p->an->cfg.states, t->off_state);
			bool woken = t->open_wake > t->off_since && t->open_wake < end;
			uint64_t runq = preempted ? end - t->off_since :
					woken ? end - t->open_wake : 0;

			t->ns[PK_RUNQ] += runq;
			add(p, t, PK_RUNQ, t->open_ks, t->open_us, runq);
			t->ns[kind] += end - t->off_since - runq;
			add(p, t, kind, t->open_ks, t->open_us, end - t->off_since - runq);
		}
		t->on_since = t->off_since = 0;
		if (!p->sampled)
			add(p, t, PK_ONCPU_NOSAMPLE, 0, 0, t->on_ns);
		if (!t->comm[0]) {
			const char *c = "[unknown]";

			comm_copy(t->comm, c);
		}
	}
}

static uint64_t total_ns(const struct pthread *t);

/* its life in the window (-P: its threads' lives, added) */
static uint64_t wall_ns(const struct pthread *t, uint64_t start, uint64_t end)
{
	uint64_t a = t->born > start ? t->born : start, b = t->died && t->died < end ? t->died : end;

	if (t->nthreads)
		return t->wall_sum;
	if (t->totals)
		return total_ns(t);
	return b > a ? b - a : 0;
}

static uint64_t off_ns(const struct pthread *t)
{
	return t->ns[PK_OFF_S] + t->ns[PK_OFF_D] + t->ns[PK_OFF_OTHER];
}

static uint64_t total_ns(const struct pthread *t)
{
	return t->on_ns + t->ns[PK_RUNQ] + off_ns(t);
}

/* the busiest first: on a CPU, waiting for one or in D; then the longest lived */
static int by_total(const void *a, const void *b)
{
	const struct pthread *x = a, *y = b;
	uint64_t bx = x->on_ns + x->ns[PK_RUNQ] + x->ns[PK_OFF_D];
	uint64_t by = y->on_ns + y->ns[PK_RUNQ] + y->ns[PK_OFF_D];

	if (bx != by)
		return bx > by ? -1 : 1;
	bx = total_ns(x);
	by = total_ns(y);
	return bx > by ? -1 : bx < by ? 1 : (x->tid > y->tid) - (x->tid < y->tid);
}

static int by_ns_desc(const void *a, const void *b)
{
	const struct pent *x = a, *y = b;

	return x->ns > y->ns ? -1 : x->ns < y->ns;
}

static const struct pthread *find_thread(const struct profile *p, int32_t id)
{
	size_t i;

	for (i = 0; i < p->nt; i++)
		if (p->t[i].tid == id)
			return &p->t[i];
	return NULL;
}

/*
 * a stack's frames named; @user: user frames of @tgid; @switched: a
 * switch-out's kernel stack, whose frames inside the tracer are dropped
 */
static uint32_t name_frames(const struct an_view *v, bool user, bool switched, uint32_t id,
			    int32_t tgid, char (*buf)[NAME_LEN])
{
	const struct stacktab *tab = user ? &v->an->ustacks : &v->an->kstacks;
	uint32_t depth = 0, i, skip = 0;
	const uint64_t *fr = stacktab_get(tab, id, &depth);

	for (i = 0; i < depth && i < STACK_MAX_DEPTH; i++) {
		if (user)
			v->sym->user(v->sym->uarg, tgid, fr[i], buf[i], NAME_LEN);
		else
			v->sym->kernel(v->sym->karg, fr[i], buf[i], NAME_LEN);
	}
	/* a switch-out's stack begins in the tracer: from __schedule */
	for (i = 0; switched && !user && i < depth && i < 8; i++)
		if (!strcmp(buf[i], "__schedule")) {
			skip = i;
			break;
		}
	if (skip)
		memmove(buf, buf + skip, (depth - skip) * sizeof(*buf));
	depth -= skip;
	/*
	 * a user stack walked past code without frame pointers goes on
	 * through whatever the stack holds: from its first frame in no
	 * mapping on, one [unknown] stands for the rest
	 */
	for (i = 0; user && i < depth && i < STACK_MAX_DEPTH; i++)
		if (!strcmp(buf[i], "[unknown]")) {
			depth = i + 1;
			break;
		}
	return depth < v->o->stack_depth ? depth : v->o->stack_depth;
}

static void folded_frame(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : (unsigned char)*s < 0x20 ? '?' : *s, f);
}

/*
 * "comm-tid;user root->leaf;kernel root->leaf;[kind]" (and " us\n" with
 * @value); --by cgroup: "cgroup;comm-tid;..."
 */
static void print_line(FILE *f, const struct profile *p, const struct an_view *v,
		       const struct pent *e, char (*kb)[NAME_LEN], char (*ub)[NAME_LEN], bool value)
{
	const struct pthread *t = find_thread(p, e->k.id);
	bool sw = e->k.kind != PK_ONCPU;
	uint32_t nk = e->k.kstack ? name_frames(v, false, sw, e->k.kstack, e->k.tgid, kb) : 0;
	uint32_t nu = e->k.ustack ? name_frames(v, true, sw, e->k.ustack, e->k.tgid, ub) : 0;
	const char *path;

	if (p->o->key == KEY_CGROUP)
		folded_cgroup(f, an_cgroup_name(p->an, e->k.cg, &path));
	folded_frame(f, t ? t->comm : "[unknown]");
	fprintf(f, "-%d", e->k.id);
	while (nu-- > 0) {
		fputc(';', f);
		folded_frame(f, ub[nu]);
	}
	while (nk-- > 0) {
		fputc(';', f);
		folded_frame(f, kb[nk]);
	}
	fprintf(f, ";%s", kind_name[e->k.kind]);
	if (value)
		fprintf(f, " %" PRIu64 "\n", e->ns / 1000);
}

struct out {
	struct profile *p;
	const struct an_view *v;
	uint64_t start, end;
	const struct pthread *rows;	/* the threads, or with -P their processes */
	size_t nrows;
};

/* the part of @t's life no kind holds: switches the trace lost */
static uint64_t unplaced_of(const struct pthread *t, const struct out *a)
{
	uint64_t w = wall_ns(t, a->start, a->end), tot = total_ns(t);

	return w > tot ? w - tot : 0;
}

/* the rows with unplaced time, and (*ns) how much */
static size_t unplaced(const struct out *a, uint64_t *ns)
{
	size_t i, n = 0;

	*ns = 0;
	for (i = 0; i < a->nrows; i++) {
		uint64_t u = unplaced_of(&a->rows[i], a);

		n += u > 0;
		*ns += u;
	}
	return n;
}

/*
 * -P: the threads added up per process, --by cgroup per cgroup (the one
 * each thread was in at its last event), largest first; NULL: out of memory
 */
static struct pthread *merge_rows(const struct profile *p, uint64_t start, uint64_t end,
				  size_t *n)
{
	struct pthread *r = calloc(p->nt ? p->nt : 1, sizeof(*r));
	bool cgroups = p->o->key == KEY_CGROUP;
	size_t i, j, k;

	*n = 0;
	for (i = 0; r && i < p->nt; i++) {
		const struct pthread *t = &p->t[i];
		int32_t id = cgroups ? t->cg : t->tgid > 0 ? t->tgid : t->tid;

		for (j = 0; j < *n && r[j].tid != id; j++)
			;
		if (j == *n) {
			r[j].tid = r[j].tgid = r[j].cg = id;
			(*n)++;
		}
		/* the process's name: its leader's, else its first thread's */
		if (!cgroups && (!r[j].comm[0] || t->tid == id))
			comm_copy(r[j].comm, t->comm);
		r[j].nthreads++;
		r[j].wall_sum += wall_ns(t, start, end);
		r[j].on_ns += t->on_ns;
		r[j].samples += t->samples;
		r[j].samples_ns += t->samples_ns;
		for (k = 0; k < PK_N; k++)
			r[j].ns[k] += t->ns[k];
	}
	if (r)
		qsort(r, *n, sizeof(*r), by_total);
	return r;
}

static void human(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%.1f", (double)ns / 1e6);
}

static void print_table(FILE *f, const struct out *a)
{
	const struct profile *p = a->p;
	size_t i, n = p->o->top && p->o->top < a->nrows ? p->o->top : a->nrows;
	uint64_t s_ns = 0, s_exact = 0, nsamples = 0;
	bool procs = p->o->key == KEY_PID, cgroups = p->o->key == KEY_CGROUP;
	const char *path;

	if (p->totals)
		fprintf(f, "Profiling wall-clock time from /proc: on-CPU and waits for a CPU from "
			"schedstat, off-CPU split by the states sampled (no stacks)\n\n");
	else
		fprintf(f, "Profiling wall-clock time: on-CPU %s, waits for a CPU and off-CPU "
			"traced\n\n", p->sampled ? "sampled" : "from the switches (no samples)");
	if (cgroups)
		fprintf(f, "%-25s %7s", "CGROUP", "THREADS");
	else
		fprintf(f, "%8s %-16s", procs ? "PID" : "TID", "COMM");
	fprintf(f, " %10s %10s %10s %10s %10s %10s %8s\n", "WALL(ms)", "ON-CPU", "RUNQ", "OFF(S)",
		"OFF(D)", "OFF(other)", "SAMPLES");
	for (i = 0; i < n; i++) {
		const struct pthread *t = &a->rows[i];
		char w[24], on[24], rq[24], s[24], d[24], o[24];

		human(w, sizeof(w), wall_ns(t, a->start, a->end));
		human(on, sizeof(on), t->on_ns);
		human(rq, sizeof(rq), t->ns[PK_RUNQ]);
		human(s, sizeof(s), t->ns[PK_OFF_S]);
		human(d, sizeof(d), t->ns[PK_OFF_D]);
		human(o, sizeof(o), t->ns[PK_OFF_OTHER]);
		if (cgroups) {
			text_field(f, an_cgroup_name(p->an, t->cg, &path), NAME_LEN, 25);
			fprintf(f, " %7u", t->nthreads);
		} else {
			fprintf(f, "%8d ", t->tid);
			text_field(f, t->comm, COMM_LEN, 16);
		}
		fprintf(f, " %10s %10s %10s %10s %10s %10s %8" PRIu64 "\n", w, on, rq, s, d, o,
			t->samples);
	}
	if (n < a->nrows)
		fprintf(f, "# and %zu more %s (--top %u)\n", a->nrows - n,
			cgroups ? "cgroups" : procs ? "processes" : "threads", p->o->top);
	if (procs)
		fprintf(f, "# -P: a process's wall time is its threads' lives in the window, "
			"added\n");
	if (cgroups)
		fprintf(f, "# --by cgroup: a cgroup's wall time is its threads' lives in the window, "
			"added; a thread moved in the window is in the row of its last cgroup, its "
			"stacks (-f, svg) in each for their share\n");
	for (i = 0; i < p->nt; i++) {
		s_ns += p->t[i].samples_ns;
		s_exact += p->t[i].on_ns;
		nsamples += p->t[i].samples;
	}
	fputc('\n', f);
	if (p->sampled)
		fprintf(f, "# on-CPU samples weighted by their period: %.1f ms against %.1f ms from "
			"the switches (%+.1f%%; at %" PRIu64 " samples a sampling error of about "
			"%.0f%% is expected); -f or --format=svg for the stacks\n",
			(double)s_ns / 1e6, (double)s_exact / 1e6,
			s_exact ? 100.0 * ((double)s_ns - (double)s_exact) / (double)s_exact : 0.0,
			nsamples, nsamples ? 100.0 / sqrt((double)nsamples) : 0.0);
}

/* the trailer's own lines: what the numbers are, and what they could not hold */
static void footer(FILE *f, const struct out *a)
{
	const struct profile *p = a->p;
	uint64_t n = 0, un;
	size_t i, nun = unplaced(a, &un);

	for (i = 0; i < p->nt; i++)
		n += p->t[i].samples;
	if (p->totals)
		fprintf(f, "# profile: each thread's totals from /proc: on-CPU and waiting for a CPU "
			"exact (schedstat), blocked split S/D by the states sampled; no samples and "
			"no stacks (a tracing backend has them)\n");
	else
		fprintf(f, "# profile: %" PRIu64 " on-CPU samples at %u Hz (each weighted by its "
			"period, the CPU time since the CPU's last)%s\n", n, p->o->rate_hz ?
			p->o->rate_hz : DEFAULT_HZ, p->sampled ? "" : "; none here: on-CPU time "
			"comes from the switches, as [on-cpu, no samples] (the perf backend "
			"samples)");
	if (nun)
		fprintf(f, "# %zu %s %.3f ms the trace could not place (switches it lost)%s\n",
			nun, nun == 1 ? "row has" : "rows have", (double)un / 1e6,
			a->v->backend && strcmp(a->v->backend, "perf") ?
			": --backend=perf has every switch (its context-switch records)" : "");
	if (p->overflow_ns)
		fprintf(f, "# %.3f ms beyond --max-stacks, not shown\n", (double)p->overflow_ns / 1e6);
	if (p->threads_over)
		fprintf(f, "# %" PRIu64 " events of threads beyond --max-tasks not counted\n",
			p->threads_over);
}

static void text_body(FILE *f, void *arg)
{
	const struct out *a = arg;
	struct profile *p = a->p;
	char (*kb)[NAME_LEN] = NULL, (*ub)[NAME_LEN] = NULL;
	size_t i, n;

	if (!p->o->folded) {
		print_table(f, a);
		return;
	}
	kb = malloc(STACK_MAX_DEPTH * sizeof(*kb));
	ub = malloc(STACK_MAX_DEPTH * sizeof(*ub));
	n = p->o->top && p->o->top < p->n ? p->o->top : p->n;
	for (i = 0; kb && ub && i < n; i++)
		print_line(f, p, a->v, &p->v[i], kb, ub, true);
	free(kb);
	free(ub);
}

static void json_extra(FILE *f, void *arg)
{
	const struct out *a = arg;
	const struct profile *p = a->p;
	bool procs = p->o->key == KEY_PID, cgroups = p->o->key == KEY_CGROUP;
	const char *path, *label;
	uint64_t un;
	size_t i, nun;

	fprintf(f, ",\"profile\":{\"hz\":%u,\"sampled\":%s,\"source\":\"%s\",\"%s\":[",
		p->o->rate_hz ? p->o->rate_hz : DEFAULT_HZ, p->sampled ? "true" : "false",
		p->totals ? "proc" : p->sampled ? "samples" : "switches",
		cgroups ? "cgroups" : procs ? "processes" : "threads");
	for (i = 0; i < a->nrows; i++) {
		const struct pthread *t = &a->rows[i];

		if (cgroups) {
			label = an_cgroup_name(p->an, t->cg, &path);
			fprintf(f, "%s{\"cgroup\":", i ? "," : "");
			json_str(f, label, NAME_LEN);
			fputs(",\"path\":", f);
			json_str_or_null(f, path, 4096);
			fprintf(f, ",\"threads\":%u", t->nthreads);
		} else {
			if (procs)
				fprintf(f, "%s{\"pid\":%d,\"threads\":%u,\"comm\":", i ? "," : "",
					t->tid, t->nthreads);
			else
				fprintf(f, "%s{\"tid\":%d,\"pid\":%d,\"comm\":", i ? "," : "",
					t->tid, t->tgid);
			json_str(f, t->comm, COMM_LEN);
		}
		fprintf(f, ",\"wall_ns\":%" PRIu64 ",\"on_cpu_ns\":%" PRIu64 ",\"on_cpu_sampled_ns\":%"
			PRIu64 ",\"samples\":%" PRIu64 ",\"runq_ns\":%" PRIu64 ",\"off_cpu_ns\":%"
			PRIu64 ",\"off_cpu_s_ns\":%" PRIu64 ",\"off_cpu_d_ns\":%" PRIu64
			",\"off_cpu_other_ns\":%" PRIu64 ",\"unplaced_ns\":%" PRIu64 "}",
			wall_ns(t, a->start, a->end), t->on_ns,
			t->samples_ns, t->samples, t->ns[PK_RUNQ], off_ns(t), t->ns[PK_OFF_S],
			t->ns[PK_OFF_D], t->ns[PK_OFF_OTHER], unplaced_of(t, a));
	}
	nun = unplaced(a, &un);
	fprintf(f, "],\"stacks\":%zu,\"overflow_ns\":%" PRIu64 ",\"unplaced_threads\":%zu,"
		"\"unplaced_ns\":%" PRIu64 "}", p->n, p->overflow_ns, nun, un);
}

static int print_svg(struct out *a, struct report *rep, FILE *f)
{
	struct profile *p = a->p;
	char (*kb)[NAME_LEN] = malloc(STACK_MAX_DEPTH * sizeof(*kb));
	char (*ub)[NAME_LEN] = malloc(STACK_MAX_DEPTH * sizeof(*ub));
	struct fold_line *lines = calloc(p->n ? p->n : 1, sizeof(*lines));
	size_t i, n = 0, len;
	FILE *m;
	int ret = 0;

	for (i = 0; kb && ub && lines && i < p->n; i++) {
		lines[n].ns = p->v[i].ns;
		m = open_memstream(&lines[n].line, &len);
		if (!m)
			break;
		print_line(m, p, a->v, &p->v[i], kb, ub, false);
		fclose(m);
		n++;
	}
	if (!kb || !ub || !lines || n < p->n)
		ret = -ENOMEM;
	else
		svg_flame_lines(f, rep, lines, (uint32_t)n, p->o->top,
				"Wall-clock time: on-CPU, waiting for a CPU, off-CPU", FLAME_WALL);
	for (i = 0; lines && i < n; i++)
		free(lines[i].line);
	free(lines);
	free(kb);
	free(ub);
	return ret ? ret : ferror(f) ? -EIO : 0;
}

static void no_body(FILE *f, void *arg)
{
	(void)f;
	(void)arg;
}

/* one interval's output of @a's rows in @fmt */
static int print_out(struct out *a, enum out_format fmt, FILE *f)
{
	struct profile *p = a->p;
	const struct an_view *v = a->v;
	struct stack_report sr;
	struct report rep;
	int ret;

	histan_fill(&p->h, v, fmt, &v->an->on, MEASURE_ONCPU, &rep, &sr);
	rep.stacks = NULL;
	rep.extra_arg = a;
	if (fmt == FMT_JSON) {
		/* groups: each thread's on-CPU slices, keyed by tid as measured */
		rep.key = KEY_TID;
		rep.json_extra = json_extra;
		return histan_emit(f, fmt, &rep);
	}
	rep.key = KEY_NONE;
	if (fmt == FMT_SVG)
		return print_svg(a, &rep, f);
	if (p->o->folded) {
		/* folded lines stay pure: the trailer to stderr */
		text_body(f, a);
		rep.text_body = no_body;
		histan_emit(stderr, fmt, &rep);
		footer(stderr, a);
		return ferror(f) ? -EIO : 0;
	}
	rep.text_body = text_body;
	ret = histan_emit(f, fmt, &rep);
	footer(f, a);
	return ret;
}

/* the rows and stacks largest first, their indexes rebuilt */
static void sort_reindex(struct profile *p)
{
	size_t i;

	if (p->nt)
		qsort(p->t, p->nt, sizeof(*p->t), by_total);
	if (p->n)
		qsort(p->v, p->n, sizeof(*p->v), by_ns_desc);
	posindex_clear(&p->tindex);
	for (i = 0; i < p->nt; i++)
		posindex_put(&p->tindex, tid_hash32(p->t[i].tid), (int32_t)i);
	posindex_clear(&p->index);
	for (i = 0; i < p->n; i++)
		posindex_put(&p->index, fnv1a64(FNV1A64_INIT, &p->v[i].k, sizeof(p->v[i].k)),
			     (int32_t)i);
}

static int profile_print(void *state, const struct an_view *v, enum out_format fmt, FILE *f)
{
	struct profile *p = state;
	struct out a = { p, v, v->iv_start_ns ? v->iv_start_ns : p->first_ts,
			 v->iv_end_ns ? v->iv_end_ns : p->last_ts, NULL, 0 };
	struct pthread *procs = NULL;
	int ret;

	/* the window: from the earlier of its start and its first event */
	if (!p->first_ts || a.start < p->first_ts)
		p->first_ts = a.start;
	a.start = p->first_ts;
	close_window(p, a.end);
	sort_reindex(p);
	a.rows = p->t;
	a.nrows = p->nt;
	if (p->o->key == KEY_PID || p->o->key == KEY_CGROUP) {
		procs = merge_rows(p, a.start, a.end, &a.nrows);
		if (!procs)
			return -ENOMEM;
		a.rows = procs;
	}
	ret = print_out(&a, fmt, f);
	free(procs);
	return ret;
}

const struct analysis analysis_profile = {
	.name = "profile",
	.summary = "wall-clock profile: on-CPU, run-queue and off-CPU time by stack",
	.bit = ANB_PROFILE,
	.flags = AN_F_SAMPLES,
	.help = profile_usage,
	.what = profile_what,
	.defaults = profile_defaults,
	.check = profile_check,
	.events = profile_events,
	.hist = profile_hist,
	.configure = profile_configure,
	.setup = profile_setup,
	.begin = profile_begin,
	.print = profile_print,
	.free = profile_free,
};
