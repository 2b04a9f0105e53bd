// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The perf backend: the same sched tracepoints opened with perf_event_open,
 * one event per CPU and type, all of a CPU's events writing into one mmap
 * ring. Records are parsed in place (copied only when they wrap) by
 * perfrec.c, their raw tracepoint payload decoded with the same format
 * offsets as the tracefs backends, and CPUs merged in time order. Nothing
 * is written to tracefs: only its format files are read, which stay
 * readable when it is mounted read-only.
 *
 * Context-switch records. Some kernels (this project's 6.18 development
 * host) lose sched_switch tracepoint hits whose prev is an idle CPU's idle
 * task, in ftrace and perf alike. perf's PERF_RECORD_SWITCH_CPU_WIDE
 * records come from the scheduler's perf hooks instead, for every switch.
 * A dummy event per CPU (attr.context_switch) writes them into the same
 * ring. On a CPU the tracepoint hit comes first (trace_sched_switch runs
 * before context_switch()), then the switch-out record, then the switch-in
 * record. A switch-out record matching the CPU's last tracepoint switch is
 * the same switch and is skipped; one that matches nothing is a switch the
 * tracepoint lost, fed to the analyzer as a sched_switch at the record's
 * time: prev and next from the record, prev_state R when the record says
 * preempted (MISC_SWITCH_OUT_PREEMPT, 4.17+), unknown otherwise, no comm
 * (the analyzer falls back to the name it knows) and no stack. Switch-in
 * records repeat the switch-out and are skipped.
 *
 * Records only. Where the analysis needs of a switch only who left,
 * whether it was preempted, and who came (runq: req->switch_minimal), the
 * sched_switch tracepoint is not opened at all: the records are the
 * switches (half the events written per switch, and no tracepoint payload
 * filled), and the dummy event owns the CPU's ring in fd[0].
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tmount.h"
#include "errf.h"
#include "backend.h"
#include "perf_backends.h"
#include "encode.h"
#include "fmt.h"
#include "fmtload.h"
#include "perfcaps.h"
#include "procfs.h"
#include "pnames.h"
#include "perf_local.h"

static int perf_open_backend(struct backend **out, const struct trace_req *req,
			     char *err, size_t errlen)
{
	struct backend *b = calloc(1, sizeof(*b));
	long page = sysconf(_SC_PAGESIZE), n;
	size_t ring;
	unsigned i;
	int ret;

	*out = b;
	if (!b)
		return errf(err, errlen, -ENOMEM, "perf backend");
	b->mono = true;
	b->kstack = req->kstack;
	b->waking_kstack = req->waking_kstack && req->waking;
	b->sample_hz = req->cpu_samples ? (req->rate_hz ? req->rate_hz : 99) : 0;
	b->ustack = req->ustack;
	/* for the benchmark only: what the switch records cost */
	b->no_switch_records = getenv("OFFCPU_FTRACE_NO_SWITCH_RECORDS") != NULL;
	b->filter_tid = req->npids == 1 && !req->follow_fork ? req->pids[0] : -1;
	if (pnames_init(&b->names, NAMES_SLOTS))
		return errf(err, errlen, -ENOMEM, "perf backend");
	/* the tracepoints name the host's pids, /proc a container's: not mixed */
	b->names_from_proc = req->switches_only || proc_pidns_foreign() <= 0;
	b->records_only = req->switch_minimal && !b->no_switch_records &&
			  !getenv("OFFCPU_FTRACE_SWITCH_TRACEPOINT");
	if (req->switches_only) {
		if (req->page_sink || req->kstack || req->ustack || req->cpu_samples)
			return errf(err, errlen, -EINVAL, "perf's context-switch records alone "
				    "carry no stacks, samples or event formats");
		b->switches_only = b->records_only = true;
		/*
		 * the records' forks, always: with no sched_wakeup_new, they
		 * alone say a thread was born in the window, so that its first
		 * wait is counted not measured (and sized from schedstat), not
		 * as one begun before the window
		 */
		b->forks = true;
		b->no_switch_records = false;
		for (i = 0; i < SEV_NTYPES; i++)
			b->layout.id[i] = -1;
		sched_states_default(&b->layout.states);
	} else {
		ret = tmount_find(req->tracefs, b->root, sizeof(b->root), err, errlen);
		if (ret)
			return ret;
		ret = pf_setup_layout(b, req, err, errlen);
		if (ret)
			return ret;
	}
	n = sysconf(_SC_NPROCESSORS_CONF);
	if (n <= 0)
		return errf(err, errlen, -EINVAL, "cannot count CPUs");
	b->ncpu = (unsigned)n;
	if (req->page_sink) {
		b->enc = calloc(b->ncpu, sizeof(*b->enc));
		if (!b->enc)
			return errf(err, errlen, -ENOMEM, "perf backend");
		for (i = 0; i < b->ncpu; i++)
			if ((ret = page_enc_init(&b->enc[i], &b->layout, i)))
				return errf(err, errlen, ret, "cannot record: this kernel's "
					    "header_page");
		b->sink = req->page_sink;
		b->sink_arg = req->page_arg;
		b->comms = calloc(REC_COMMS, sizeof(*b->comms));
		if (!b->comms)
			return errf(err, errlen, -ENOMEM, "perf backend");
	}
	/* per CPU: a power of two of pages, like the ring backend's default */
	ring = req->buffer_kb ? (size_t)req->buffer_kb * 1024 :
	       (size_t)32 * 1024 * 1024 / (size_t)(sysconf(_SC_NPROCESSORS_ONLN) > 0 ?
						   sysconf(_SC_NPROCESSORS_ONLN) : 1);
	if (ring < 1024 * 1024 && !req->buffer_kb)
		ring = 1024 * 1024;
	if (ring > 8 * 1024 * 1024 && !req->buffer_kb)
		ring = 8 * 1024 * 1024;
	if (!req->buffer_kb) {
		struct perf_caps pc;

		/*
		 * Without CAP_IPC_LOCK (root in a container has none: being
		 * uid 0 is not enough), a user's perf rings are charged to
		 * perf_event_mlock_kb, shared by all of that user's processes
		 * (root's in a container are the host root's too), and what is
		 * over it to this process's RLIMIT_MEMLOCK: the larger of the
		 * two, since the first may be spent already, shared by the CPUs.
		 */
		perf_caps_probe(&pc);
		if (!pc.cap_ipc_lock && pc.paranoid > -1 && pc.mlock_kb > 0) {
			struct rlimit rl;
			size_t budget = (size_t)pc.mlock_kb * 1024, fit;

			if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
			    rl.rlim_cur < (rlim_t)1 << 40 && (size_t)rl.rlim_cur > budget)
				budget = (size_t)rl.rlim_cur;
			fit = budget / b->ncpu;

			fit = fit > (size_t)page ? fit - (size_t)page : (size_t)page;
			if (fit < ring)
				ring = fit;
		}
	}
	{
		size_t p = (size_t)page;

		while (p * 2 <= ring)
			p *= 2;
		ring = p;
	}
	b->ring = ring;
	b->active = calloc(b->ncpu, sizeof(*b->active));
	b->online = calloc(b->ncpu, sizeof(*b->online));
	if (!b->active || !b->online)
		return errf(err, errlen, -ENOMEM, "perf backend");
	pf_online_cpus(b, b->online);
	for (i = 0; i < b->ncpu; i++) {
		b->active[i] = (int)i;
		if (!pf_new_slot(b, (int)i))
			return errf(err, errlen, -ENOMEM, "perf backend");
		ret = pf_open_cpu(b, b->cpus[i], err, errlen);
		if (ret)
			return ret;
		b->pfd[i].fd = b->cpus[i]->fd[0];
	}
	return 0;
}

static int for_each_fd(struct backend *b, unsigned long req)
{
	unsigned i, t;

	for (i = 0; i < b->nslot; i++) {
		if (b->cpus[i]->retired)
			continue;
		for (t = 0; t < NTYPES; t++)
			if (b->cpus[i]->fd[t] >= 0 && ioctl(b->cpus[i]->fd[t], req, 0))
				return -errno;
	}
	return 0;
}


static int perf_start(struct backend *b)
{
	int ret = for_each_fd(b, PERF_EVENT_IOC_ENABLE);
	bool first = !b->names_taken;

	b->started = ret == 0;
	/* once, after the first start: what runs from then on is in the stream */
	if (b->started && first) {
		b->names_taken = true;
		pf_names_snapshot(b);
	}
	return ret;
}

static int perf_stop(struct backend *b)
{
	b->started = false;
	return for_each_fd(b, PERF_EVENT_IOC_DISABLE);
}

static int perf_wait(struct backend *b, int timeout_ms)
{
	return poll(b->pfd, b->nslot, timeout_ms) < 0 ? -errno : 0;
}

static const char *perf_clock(struct backend *b, bool *is_mono)
{
	if (is_mono)
		*is_mono = b->mono;
	return b->mono ? "mono" : "perf";
}

static unsigned perf_lost(struct backend *b, uint64_t *lost, unsigned max)
{
	unsigned i;

	for (i = 0; i < b->ncpu && i < max; i++)
		lost[i] = 0;
	for (i = 0; i < b->nslot; i++)
		if ((unsigned)b->cpus[i]->cpu < max)
			lost[b->cpus[i]->cpu] += b->cpus[i]->lost;
	return b->ncpu < max ? b->ncpu : max;
}

static uint64_t perf_recovered(struct backend *b)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; i < b->nslot; i++)
		n += b->cpus[i]->recovered;
	return n;
}

static const struct sched_states *perf_states(struct backend *b)
{
	return &b->layout.states;
}

static unsigned perf_events(struct backend *b)
{
	if (b->switches_only)
		return 1u << SEV_SWITCH | (b->forks ? 1u << SEV_FORK : 0);
	return sched_layout_events(&b->layout, b->layout_ok, b->kstack, b->ustack) |
	       (b->sample_hz ? 1u << SEV_SAMPLE : 0);
}

static int perf_rec_source(struct backend *b, struct backend_rec_src *s)
{
	memset(s, 0, sizeof(*s));
	if (!b->enc)
		return -EINVAL;
	s->tracefs = b->root;
	s->instance = NULL;	/* no instance: no per-CPU stats */
	s->ncpu = b->ncpu;
	s->page_size = b->layout.page_size;
	s->buffer_kb = (uint32_t)(b->ring / 1024);
	return 0;
}

static void perf_task_lists(struct backend *b, const char **cmdlines, const char **tgids)
{
	size_t i, n = 0, m = 0;

	*cmdlines = *tgids = NULL;
	if (!b->comms)
		return;
	free(b->cmdlines);
	free(b->tgids);
	b->cmdlines = malloc(REC_COMMS * (12 + COMM_LEN + 1) + 1);
	b->tgids = malloc(REC_COMMS * 24 + 1);
	if (!b->cmdlines || !b->tgids)
		return;
	for (i = 0; i < REC_COMMS; i++) {
		const struct rec_comm *e = &b->comms[i];

		if (e->tid <= 0)
			continue;
		if (e->comm[0])
			n += (size_t)sprintf(b->cmdlines + n, "%d %.16s\n", e->tid, e->comm);
		if (e->tgid > 0)
			m += (size_t)sprintf(b->tgids + m, "%d %d\n", e->tid, e->tgid);
	}
	b->cmdlines[n] = '\0';
	b->tgids[m] = '\0';
	*cmdlines = b->cmdlines;
	*tgids = b->tgids;
}

static int perf_flush_pages(struct backend *b)
{
	unsigned i;
	int ret = 0;

	for (i = 0; b->enc && i < b->ncpu; i++) {
		int r = page_enc_flush(&b->enc[i], b->sink, b->sink_arg);

		if (r && !ret)
			ret = r;
	}
	return ret;
}

/* Nothing in tracefs to restore: unmap and close everything. */
static int perf_close(struct backend *b, char *err, size_t errlen)
{
	unsigned i;

	(void)err;
	(void)errlen;
	if (!b)
		return 0;
	for (i = 0; b->cpus && i < b->nslot; i++)
		pf_pcpu_free(b->cpus[i]);
	for (i = 0; b->enc && i < b->ncpu; i++)
		page_enc_fini(&b->enc[i]);
	free(b->enc);
	pnames_fini(&b->names);
	free(b->comms);
	free(b->cmdlines);
	free(b->tgids);
	if (b->layout_ok)
		fmt_fini(&b->layout);
	free(b->cpus);
	free(b->active);
	free(b->online);
	free(b->pfd);
	free(b->heap.v);
	free(b->next_ts);
	free(b);
	return 0;
}

/*
 * the context-switch records are complete (docs/design.md): every switch,
 * but those -t's filter keeps out; without them, the tracepoint's
 */
static int perf_switches(struct backend *b)
{
	if (b->filter_tid >= 0)
		return BK_SW_SELECTED;
	return b->no_switch_records ? BK_SW_TRACEPOINT : BK_SW_ALL;
}

const struct backend_ops perf_backend_ops = {
	.name = "perf",
	.caps = BCAP_EVENTS | BCAP_RECORD | BCAP_SWITCH_RECORDS,
	.source = "perf tracepoints, with perf's context-switch records",
	.open = perf_open_backend,
	.start = perf_start,
	.stop = perf_stop,
	.wait = perf_wait,
	.read = perf_read,
	.clock = perf_clock,
	.lost = perf_lost,
	.states = perf_states,
	.events = perf_events,
	.recovered = perf_recovered,
	.switches = perf_switches,
	.rec_source = perf_rec_source,
	.flush_pages = perf_flush_pages,
	.task_lists = perf_task_lists,
	.close = perf_close,
};
