// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The proc backend: no tracing at all. It samples the selected threads'
 * /proc files at a fixed rate and, at the end of each interval, hands the
 * analyzer each thread's totals from the kernel's own counters:
 *
 *   run-queue waits   Δpcount waits, Δrun_delay long     (schedstat: exact)
 *   on a CPU          Δexec                              (schedstat: exact)
 *   off-CPU           Δ(voluntary + involuntary switches) intervals,
 *                     elapsed - Δexec long               (status, exact)
 *   blocked           Δvoluntary intervals, elapsed - Δexec - Δrun_delay
 *                     long, split S/D by the states sampled (approximate)
 *   -K                sampled: each sample of a sleeping thread adds the
 *                     time since its last sample to its /proc/<tid>/stack
 *                     (root) or wchan (its own processes) frames
 *
 * A thread born inside the window counts from zero (its counters start at
 * its birth); one that exits between two samples loses the time since its
 * last sample, and one that lives and dies between two samples is not seen
 * at all: sampling() says how many, and how much CPU time it saw.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "analyzer.h"
#include "backend.h"
#include "errf.h"
#include "grow.h"
#include "proc_backends.h"
#include "proctasks.h"
#include "stacks.h"
#include "hash.h"

#define PROC_MAX_NAMES 65536	/* distinct kernel function names kept */
#define PROC_MAX_TASKS (1u << 17)	/* threads followed at once */
/*
 * /proc files read per second at most: past it the rate is lowered (the
 * totals stay exact; only the time a thread's last sample misses grows).
 * A sample reads schedstat, and status for offcpu and triage, and wchan
 * or stack for -K: a few to tens of microseconds of system time each
 * (bench/proc.sh).
 */
#define PROC_BUDGET 10000

/* the state table this backend reports its samples in (no format files) */
static const struct sched_states proc_states = {
	.preempt_mask = 0x100,
	.nletters = 9,
	.letter = {
		{ 0x1, 'S' }, { 0x2, 'D' }, { 0x4, 'T' }, { 0x8, 't' }, { 0x10, 'X' },
		{ 0x20, 'Z' }, { 0x40, 'P' }, { 0x80, 'I' }, { 0x200, 'W' },
	},
};

struct backend {
	struct psel sel;
	struct tidset followed;		/* -- COMMAND: its process tree (pids) */
	struct ptasks tasks;
	bool switches;			/* read status: offcpu and triage need counts */
	bool kstack, root;		/* -K; full stacks (root) or wchan */
	char state_letters[16];		/* offcpu --state, "" all */
	uint64_t next_ns;		/* the next sample */
	uint64_t next_discover_ns;	/* walking /proc for new threads */
	bool sampled_once;		/* the window's first sample was taken */
	uint64_t win_start_ns;		/* boottime ns at start() */
	uint64_t clk_tck;
	bool started;
	double hz;			/* asked for */
	double hz_min;			/* the lowest used (PROC_BUDGET) */
	int32_t fork_parent;		/* -- COMMAND: fork events name it */
	int32_t *forks;			/* new threads to report as forks */
	uint32_t nforks, capforks;
	uint64_t cpu_seen_ns;
	/* -K: kernel function names (tokens are 1 + index) and stacks of tokens */
	char **names;
	uint32_t nnames;
	size_t capnames;
	struct posindex name_index;
	struct stacktab stacks;
	char notice[256];
};

static uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The token of kernel function @name; 0 when the table is full. */
static uint64_t name_token(struct backend *b, const char *name)
{
	uint64_t h = fnv1a64_str(name);
	uint32_t i;
	char **v;

	for (i = posindex_first(&b->name_index, h); b->name_index.slot[i] >= 0;
	     i = posindex_next(&b->name_index, i))
		if (!strcmp(b->names[b->name_index.slot[i]], name))
			return (uint64_t)b->name_index.slot[i] + 1;
	if (b->nnames == PROC_MAX_NAMES)
		return 0;
	v = mem_grow_from(b->names, &b->capnames, b->nnames, sizeof(*v), 256);
	if (!v)
		return 0;
	b->names = v;
	b->names[b->nnames] = strdup(name);
	if (!b->names[b->nnames])
		return 0;
	b->name_index.slot[i] = (int32_t)b->nnames;
	return ++b->nnames;
}

/* Where a sleeping thread sleeps: its stack id (0 none). */
static uint32_t sample_stack(struct backend *b, struct ptask *p)
{
	char frames[PROC_FRAMES][PROC_FRAME_LEN], buf[4096];
	uint64_t tok[PROC_FRAMES];
	unsigned n, i, k = 0;

	if (ptask_read_file(&b->tasks, p, b->root ? "stack" : "wchan", buf, sizeof(buf)))
		return 0;
	if (b->root)
		n = proc_parse_stack(buf, frames);
	else
		n = proc_parse_wchan(buf, frames[0]) ? 1 : 0;
	for (i = 0; i < n; i++)
		if ((tok[k] = name_token(b, frames[i])))
			k++;
	return k ? stacktab_intern(&b->stacks, tok, k) : 0;
}

static void add_stack_time(struct ptask *p, uint32_t id, uint64_t ns)
{
	uint32_t i;

	for (i = 0; i < p->nstacks; i++)
		if (p->stacks[i].id == id)
			break;
	if (i == p->nstacks) {
		struct pstack *v = mem_grow_from(p->stacks, &p->capstacks, p->nstacks,
						 sizeof(*v), 4);

		if (!v)
			return;
		p->stacks = v;
		p->stacks[p->nstacks++] = (struct pstack){ .id = id };
	}
	p->stacks[i].samples++;
	p->stacks[i].ns += ns;
}

static bool asleep(char state)
{
	return state == 'S' || state == 'D' || state == 'I' || state == 'T' || state == 't' ||
	       state == 'P' || state == 'W';
}

struct walk {
	struct backend *b;
	uint64_t now;
	bool initial;		/* the window's first sample: what exists at its start */
};

/* One thread found by this sample: read it, and account what it did. */
static void sample_one(int32_t tgid, int32_t tid, void *arg)
{
	struct walk *w = arg;
	struct backend *b = w->b;
	struct proc_sample s;
	struct ptask *p;
	bool created;

	p = ptasks_get(&b->tasks, tid, &created);
	if (!p || (p->seen && !created))
		return;
	p->tgid = tgid;
	/* stat (start time, and the name after an exec) at first and now and then */
	s = p->last;
	if (ptask_read(&b->tasks, p, b->switches, created || (p->nsamples & 15) == 0, &s)) {
		if (created)
			p->gone = true;	/* gone before its first read: nothing seen */
		return;
	}
	p->seen = true;
	p->nsamples++;
	if (created) {
		uint64_t tick = 1000000000ULL / b->clk_tck, born = s.start_ticks * tick;

		/*
		 * born in the window: every count it has belongs to it. Not
		 * there at the first sample, and started no earlier than the
		 * clock tick the window began in (start times are in ticks, and
		 * a thread is found up to DISCOVER_NS after its birth)
		 */
		if (b->started && !w->initial && s.start_ticks >= b->win_start_ns / tick) {
			memset(&p->base, 0, sizeof(p->base));
			p->start_ns = born > b->win_start_ns ? born : b->win_start_ns;
		} else {
			p->base = s;
			p->start_ns = w->now;
		}
		p->last_ns = p->start_ns;
		if (b->fork_parent > 0 && tid != b->fork_parent && b->nforks < b->capforks)
			b->forks[b->nforks++] = tid;
	} else if (asleep(s.state)) {
		/* asleep now: the time since its last sample goes to where it sleeps */
		uint64_t dt = w->now - p->last_ns;

		p->blk_sampled_ns += dt;
		if (b->kstack)
			add_stack_time(p, sample_stack(b, p), dt);
	}
	if (s.state == 'S')
		p->n_s++;
	else if (s.state == 'D')
		p->n_d++;
	else if (asleep(s.state))
		p->n_other++;
	{
		uint64_t prev = created ? p->base.exec_ns : p->last.exec_ns;

		b->cpu_seen_ns += s.exec_ns > prev ? s.exec_ns - prev : 0;
	}
	p->last = s;
	p->last_ns = w->now;
}

/* A thread already known: sample it where it is. */
static void sample_known(struct backend *b, struct walk *w)
{
	uint32_t i, n = b->tasks.n;

	for (i = 0; i < n; i++)
		if (!b->tasks.v[i].gone)
			sample_one(b->tasks.v[i].tgid, b->tasks.v[i].tid, w);
}

/*
 * Sample every selected thread now. Finding new threads (a directory walk
 * of /proc, the larger cost with many threads) is done at most every
 * DISCOVER_NS; in between the known ones are read. A thread born in the
 * window counts from zero whenever it is found, so a late find loses
 * nothing but threads that live shorter than that.
 */
#define DISCOVER_NS (100 * 1000 * 1000ULL)
static void sample_all(struct backend *b, bool discover)
{
	struct walk w = { b, boot_ns(), !b->sampled_once };
	uint32_t i, live = 0;
	double hz;

	for (i = 0; i < b->tasks.n; i++)
		b->tasks.v[i].seen = false;
	if (discover || w.now >= b->next_discover_ns) {
		psel_walk(&b->sel, &b->followed, sample_one, &w);
		b->next_discover_ns = w.now + DISCOVER_NS;
	} else {
		sample_known(b, &w);
	}
	for (i = 0; i < b->tasks.n; i++) {
		struct ptask *p = &b->tasks.v[i];

		if (!p->seen && !p->gone) {
			p->gone = true;
			b->tasks.gone_total++;
		}
		live += p->seen;
	}
	b->sampled_once = b->started;
	/* the cost is per file read: bounded by lowering the rate */
	live *= 1 + b->switches + b->kstack;
	hz = live && b->hz * live > PROC_BUDGET ? PROC_BUDGET / (double)live : b->hz;
	if (hz < 1)
		hz = 1;
	if (hz < b->hz_min)
		b->hz_min = hz;
	b->next_ns = w.now + (uint64_t)(1e9 / hz);
}

static int proc_refuse(const struct trace_req *req, char *err, size_t errlen)
{
	const char *p;

	if (req->agg.off_min_ns || req->agg.off_max_ns != UINT64_MAX)
		return errf(err, errlen, -EINVAL, "--min/--max need each interval's length: the "
			    "proc backend has the kernel's totals only (use a tracing backend)");
	if (req->agg.key == KEY_CPU)
		return errf(err, errlen, -EINVAL, "-C: the proc backend cannot tell on which CPU "
			    "intervals ended");
	if (req->record_path)
		return errf(err, errlen, -EINVAL, "recordings hold trace events: the proc backend "
			    "has none (use the ring backend)");
	for (p = req->stack_states; p && *p; p++)
		if (*p == 'R')
			return errf(err, errlen, -EINVAL, "--state R: the proc backend cannot tell "
				    "preempted waits from waits after a wakeup (use S and/or D)");
	return 0;
}

static int proc_open(struct backend **out, const struct trace_req *req, char *err,
		     size_t errlen)
{
	struct backend *b = calloc(1, sizeof(*b));
	long tck = sysconf(_SC_CLK_TCK);
	struct rlimit rl;
	int ret;

	*out = b;
	if (!b)
		return errf(err, errlen, -ENOMEM, "proc backend");
	ret = proc_refuse(req, err, errlen);
	if (ret)
		return ret;
	if (access("/proc/self/schedstat", R_OK))
		return errf(err, errlen, -errno, "cannot read /proc/self/schedstat (the kernel "
			    "needs CONFIG_SCHED_INFO)");
	b->sel.tid = req->npids == 1 && !req->follow_fork ? req->pids[0] : -1;
	b->sel.pid = req->pid;
	b->sel.root = req->fork && req->npids == 1 ? req->pids[0] : -1;
	b->sel.comm = req->comm;
	b->fork_parent = b->sel.root;
	b->switches = (req->agg.modes & AN_OFFCPU) != 0;	/* triage too */
	if (req->stack_states)
		snprintf(b->state_letters, sizeof(b->state_letters), "%s", req->stack_states);
	b->kstack = req->kstack;
	b->root = geteuid() == 0;
	b->hz = b->hz_min = req->rate_hz ? req->rate_hz : PROC_DEFAULT_HZ;
	b->clk_tck = tck > 0 ? (uint64_t)tck : 100;
	b->capforks = 1u << 16;
	b->forks = malloc(b->capforks * sizeof(*b->forks));
	if (!b->forks || ptasks_init(&b->tasks, PROC_MAX_TASKS) ||
	    posindex_init(&b->name_index, PROC_MAX_NAMES) || stacktab_init(&b->stacks, 65536))
		return errf(err, errlen, -ENOMEM, "proc backend");
	/* two files kept open per thread: room for a thousand or more */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	snprintf(b->notice, sizeof(b->notice), "note: sampling /proc at %g Hz: no tracing "
		 "privileges needed; totals are exact (the kernel's schedstat), distributions "
		 "and stacks are not measured", b->hz);
	return 0;
}

static int proc_start(struct backend *b)
{
	if (!b->started) {
		b->win_start_ns = boot_ns();
		b->started = true;
		sample_all(b, true);
	}
	return 0;
}

static int proc_stop(struct backend *b)
{
	sample_all(b, true);	/* the interval's (or window's) last sample */
	return 0;
}

static int proc_wait(struct backend *b, int timeout_ms)
{
	uint64_t now = boot_ns(), until = now + (uint64_t)timeout_ms * 1000000ULL;
	struct timespec ts;

	if (b->started && b->next_ns < until)
		until = b->next_ns;
	if (until <= now)
		return 0;
	ts.tv_sec = (time_t)(until / 1000000000ULL);
	ts.tv_nsec = (long)(until % 1000000000ULL);
	/* the next sample's time exactly: no busy wait before it */
	clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &ts, NULL);
	return 0;
}

/* Sample when due; report newly found descendants as forks. */
static int proc_read(struct backend *b, uint64_t limit, bool drain, sched_ev_cb cb, void *arg)
{
	uint32_t i;

	(void)limit;
	if (!drain && b->started && boot_ns() >= b->next_ns)
		sample_all(b, false);
	for (i = 0; i < b->nforks; i++) {
		struct sched_event ev = { .type = SEV_FORK, .cpu = -1, .pid = b->fork_parent,
					  .common_pid = b->fork_parent, .next_pid = b->forks[i] };

		cb(&ev, arg);
	}
	b->nforks = 0;
	return 0;
}

/* Each thread's totals since the interval began; then the next begins. */
static int proc_collect(struct backend *b, struct analyzer *an, char *err, size_t errlen)
{
	uint32_t i, k;

	(void)err;
	(void)errlen;
	for (i = 0; i < b->tasks.n; i++) {
		struct ptask *p = &b->tasks.v[i];
		const struct proc_sample *x = &p->base, *y = &p->last;
		uint64_t elapsed = p->last_ns > p->start_ns ? p->last_ns - p->start_ns : 0;
		uint64_t exec = y->exec_ns - x->exec_ns, rd = y->run_delay_ns - x->run_delay_ns;
		uint64_t off = elapsed > exec ? elapsed - exec : 0;
		uint64_t blk = off > rd ? off - rd : 0;
		uint32_t nblk = p->n_s + p->n_d + p->n_other;
		struct an_thread t = {
			.tid = p->tid, .comm = y->comm,
			.runq_n = y->pcount - x->pcount, .runq_ns = rd,
			.off_n = (y->vol - x->vol) + (y->invol - x->invol), .off_ns = off,
			.blk_n = y->vol - x->vol, .blk_ns = blk, .oncpu_ns = exec,
		};

		if (nblk) {
			t.blk.s_ns = blk * p->n_s / nblk;
			t.blk.d_ns = blk * p->n_d / nblk;
			t.blk.other_ns = blk - t.blk.s_ns - t.blk.d_ns;
		} else {
			t.blk.other_ns = blk;
		}
		if (b->state_letters[0]) {
			/* --state S/D: the sampled share of the blocked time */
			uint64_t ns = (strchr(b->state_letters, 'S') ? t.blk.s_ns : 0) +
				      (strchr(b->state_letters, 'D') ? t.blk.d_ns : 0);

			t.off_n = blk ? (uint64_t)((double)t.blk_n * (double)ns / (double)blk) : 0;
			t.off_ns = ns;
		}
		analyzer_add_thread(an, &t);
		for (k = 0; k < p->nstacks; k++) {
			uint32_t depth = 0;
			const uint64_t *fr = stacktab_get(&b->stacks, p->stacks[k].id, &depth);

			analyzer_add_kstack_n(an, p->tid, y->comm, fr, depth, p->stacks[k].samples,
					      p->stacks[k].ns);
		}
		/* the next interval starts where this one ended */
		p->base = p->last;
		p->start_ns = p->last_ns;
		p->n_s = p->n_d = p->n_other = 0;
		p->blk_sampled_ns = 0;
		p->nstacks = 0;
	}
	ptasks_sweep(&b->tasks);
	return 0;
}

static const char *proc_clock(struct backend *b, bool *is_mono)
{
	(void)b;
	if (is_mono)
		*is_mono = true;
	return "sampled";
}

static unsigned proc_lost(struct backend *b, uint64_t *lost, unsigned max)
{
	(void)b;
	(void)lost;
	(void)max;
	return 0;
}

static const struct sched_states *proc_states_of(struct backend *b)
{
	(void)b;
	return &proc_states;
}

/* schedstat counts every start a trace would: wakeups, new threads, preemptions */
static unsigned proc_events(struct backend *b)
{
	return (1u << SEV_SWITCH) | (1u << SEV_WAKEUP) | (1u << SEV_WAKEUP_NEW) |
	       (b->kstack ? 1u << SEV_KSTACK : 0);
}

static int proc_kframe(struct backend *b, uint64_t token, char *buf, size_t len)
{
	if (token == 0 || token > b->nnames) {
		snprintf(buf, len, "0x%llx", (unsigned long long)token);
		return -ENOENT;
	}
	snprintf(buf, len, "%s", b->names[token - 1]);
	return 0;
}

static const char *proc_notice(struct backend *b)
{
	return b->notice;
}

static int proc_sampling(struct backend *b, struct backend_sampling *s)
{
	s->hz = b->hz;
	s->hz_min = b->hz_min;
	s->threads = b->tasks.seen_total;
	s->vanished = b->tasks.gone_total;
	s->cpu_seen_ns = b->cpu_seen_ns;
	s->stacks = !b->kstack ? NULL : b->root ? "stack" : "wchan";
	return 0;
}

static int proc_close(struct backend *b, char *err, size_t errlen)
{
	uint32_t i;

	(void)err;
	(void)errlen;
	if (!b)
		return 0;
	ptasks_fini(&b->tasks);
	tidset_fini(&b->followed);
	for (i = 0; i < b->nnames; i++)
		free(b->names[i]);
	free(b->names);
	posindex_fini(&b->name_index);
	stacktab_fini(&b->stacks);
	free(b->forks);
	free(b);
	return 0;
}

const struct backend_ops proc_backend_ops = {
	.name = "proc",
	.caps = BCAP_SAMPLES,
	.source = "each thread's /proc schedstat, sampled",
	.open = proc_open,
	.start = proc_start,
	.stop = proc_stop,
	.wait = proc_wait,
	.read = proc_read,
	.clock = proc_clock,
	.lost = proc_lost,
	.states = proc_states_of,
	.events = proc_events,
	.collect = proc_collect,
	.kframe = proc_kframe,
	.notice = proc_notice,
	.sampling = proc_sampling,
	.close = proc_close,
};
