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
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tmount.h"
#include "errf.h"
#include "fileread.h"
#include "backend.h"
#include "perf_backends.h"
#include "encode.h"
#include "fmt.h"
#include "fmtload.h"
#include "grow.h"
#include "hash.h"
#include "perfcaps.h"
#include "procfs.h"
#include "perfrec.h"
#include "timeutil.h"
#include "tsheap.h"

#define ORDER_SLACK_NS (1000 * 1000ULL)
/* sched_switch, sched_wakeup, _new, _waking, process_fork, the cgroup moves */
#define NTP 7
#define FD_SWITCH NTP		/* the dummy event writing context-switch records */
#define FD_SAMPLE (NTP + 1)	/* profile: the CPU clock sampling what runs */
#define NTYPES (NTP + 2)

struct pcpu {
	int cpu;
	bool retired;		/* CPU went offline and came back: its events
				 * are dead; a new slot reads the CPU now */
	int fd[NTYPES];		/* fd[0] owns the ring; the others redirect to it */
	void *map;
	size_t map_len;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	uint64_t size;		/* data area bytes, a power of two */
	uint64_t head;		/* data_head as last read */
	uint64_t pos;		/* next record to parse */
	uint64_t rec_start;	/* start of the record c->rec came from */
	struct perfrec_layout lay;	/* what its records hold: chain_id is
					 * the perf id of its sched_switch event */
	uint64_t enabled_ns;	/* its time enabled at the last check */
	uint64_t lost;		/* PERF_RECORD_LOST */
	uint64_t recovered;	/* switches only the switch records had */
	/*
	 * The switch last fed to the analyzer (from the tracepoint or a
	 * switch-out record) whose switch-in record is still to come, and
	 * the last switch-out record's preempt flag.
	 */
	int32_t sw_prev, sw_next, out_prev, out_next;
	bool sw_fed, out_preempt;
	/* the current record: a switch may bring its stacks */
	struct perfrec rec;
	unsigned nev, iev;	/* its events to feed, the next one */
	uint8_t scratch[65536];	/* a record that wraps around the ring end */
};

/*
 * CPU hotplug. A CPU that is offline when we open has no events: they are
 * opened when it comes online. A per-CPU event whose CPU goes offline is
 * taken off it for good (it does not count after the CPU returns), so
 * when a CPU we saw offline is online again its slot is retired (disabled,
 * read to the end, then closed) and a new slot opened for it. Seen by
 * reading /sys/devices/system/cpu/online at every read, and, for an
 * offline-online cycle quicker than one read, by the sched_switch event's
 * enabled time, which stops when the event is taken off its CPU (checked
 * every 200 ms: one read, and an IPI to that CPU, per CPU). What a
 * returning CPU records before we reopen is not seen; the analyzer's
 * missed-switch checks catch what that breaks.
 */
struct backend {
	char root[PATH_MAX];
	struct sched_layout layout;
	bool layout_ok;
	struct pcpu **cpus;	/* slots: CPU i's first is slot i */
	unsigned nslot;
	size_t slotcap;		/* of every per-slot array */
	unsigned ncpu;
	int *active;		/* per CPU: its slot now */
	uint8_t *online;	/* per CPU: as at the last check */
	size_t ring;		/* bytes per CPU ring */
	int32_t filter_tid;	/* -t in the kernel, or -1 */
	bool started;
	uint64_t next_check_ns;	/* of the events' enabled times */
	struct pollfd *pfd;	/* per slot */
	struct tsheap heap;
	uint64_t *next_ts;
	bool mono;
	bool kstack, ustack;
	bool waking_kstack;	/* --wakers -K: callchains of sched_waking too */
	unsigned sample_hz;	/* profile: CPU clock samples per second, 0 none */
	bool switch_records;	/* context-switch records open on every CPU */
	bool no_switch_records;	/* the kernel refused them (before 4.3), or the
				 * benchmark's OFFCPU_FTRACE_NO_SWITCH_RECORDS */
	bool records_only;	/* req->switch_minimal: the records, no sched_switch */
	/* a recording: the events fed, written as pages for req->page_sink */
	struct page_enc *enc;	/* per CPU */
	page_emit_fn sink;
	void *sink_arg;
	/* ... and the names its events carried, for its saved_cmdlines */
	struct rec_comm {
		int32_t tid, tgid;	/* tgid -1: unknown */
		char comm[COMM_LEN];
	} *comms;		/* REC_COMMS, by tid's hash, REC_PROBES tried */
	char *cmdlines, *tgids;	/* the texts last built */
};

#define REC_COMMS 8192
#define REC_PROBES 16

/* the event type of each tracepoint fd (fd[t]); sched_switch first */
static const uint8_t tp_type[NTP] = {
	SEV_SWITCH, SEV_WAKEUP, SEV_WAKEUP_NEW, SEV_WAKING, SEV_FORK,
	SEV_CGROUP_ATTACH, SEV_CGROUP_TRANSFER,
};

static int setup_layout(struct backend *b, const struct trace_req *req,
			char *err, size_t errlen)
{
	/* a recording writes pages of the kernel's layout, stacks as ftrace's */
	unsigned rec = req->page_sink ? FMTLOAD_HEADER_PAGE | (req->kstack ? FMTLOAD_KSTACK : 0) |
					 (req->ustack ? FMTLOAD_USTACK : 0) : 0;

	return sched_layout_load(&b->layout, &b->layout_ok, b->root,
				 (req->waking ? FMTLOAD_WAKING : 0) | (req->fork ? FMTLOAD_FORK : 0) |
				 (req->cgroup_moves ? FMTLOAD_CGROUP : 0) | rec, err, errlen);
}

static long perf_open(struct perf_event_attr *a, int cpu, int group)
{
	return syscall(SYS_perf_event_open, a, -1, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

/* One line saying why perf_event_open refused, and the fix. */
static int open_error(int ret, char *err, size_t errlen)
{
	struct perf_caps pc;

	perf_caps_probe(&pc);
	if (ret == -EACCES || ret == -EPERM)
		snprintf(err, errlen, "perf events refused: %s", pc.why);
	else if (ret == -ENOENT || ret == -ENODEV || ret == -EOPNOTSUPP)
		errf(err, errlen, ret, "this kernel cannot open sched tracepoints as perf events");
	else if (ret == -EMFILE)
		errf(err, errlen, ret, "too many open files (ulimit -n)");
	else
		errf(err, errlen, ret, "perf_event_open");
	return ret;
}

/*
 * profile: PERF_COUNT_SW_CPU_CLOCK at sample_hz on @c's CPU (a software
 * clock: it works in VMs without a PMU), each sample with its period (the
 * CPU time since the last) and its kernel and user callchain; the idle
 * task is not sampled.
 */
static int open_sampler(struct backend *b, struct pcpu *c, char *err, size_t errlen)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = b->sample_hz;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a.sample_max_stack = STACK_MAX_DEPTH;
	a.exclude_idle = 1;
	a.disabled = 1;
	a.use_clockid = b->mono;	/* the same clock, or SET_OUTPUT refuses */
	a.clockid = CLOCK_MONOTONIC;
	fd = perf_open(&a, c->cpu, -1);
	if (fd < 0) {
		if (errno == ENODEV)
			return 0;
		return open_error(-errno, err, errlen);
	}
	c->fd[FD_SAMPLE] = (int)fd;
	if (ioctl(c->fd[FD_SAMPLE], PERF_EVENT_IOC_ID, &c->lay.sample_id))
		return errf(err, errlen, -errno, "PERF_EVENT_IOC_ID");
	return 0;
}

static int open_cpu(struct backend *b, struct pcpu *c, char *err, size_t errlen)
{
	size_t ring = b->ring;
	struct perf_event_attr a;
	unsigned t;
	long fd;

	for (t = 0; t < NTYPES; t++)
		c->fd[t] = -1;
	for (t = 0; t < NTP; t++) {
		unsigned type = tp_type[t];
		int id = b->layout.id[type];

		if (id < 0 || (t == 0 && b->records_only))
			continue;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = (uint64_t)id;
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
		if (t == 0 && (b->kstack || b->ustack)) {
			a.sample_type |= PERF_SAMPLE_CALLCHAIN;
			a.exclude_callchain_user = !b->ustack;
			a.exclude_callchain_kernel = !b->kstack;
			a.sample_max_stack = STACK_MAX_DEPTH;
		}
		/* --wakers -K: the waker's kernel stack, at its sched_waking */
		if (type == SEV_WAKING && b->waking_kstack) {
			a.sample_type |= PERF_SAMPLE_CALLCHAIN;
			a.exclude_callchain_user = 1;
			a.sample_max_stack = STACK_MAX_DEPTH;
		}
		a.disabled = 1;
		if (t == 0)	/* stalled() reads it */
			a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED;
		a.use_clockid = b->mono;
		a.clockid = CLOCK_MONOTONIC;
		a.watermark = 1;
		a.wakeup_watermark = (uint32_t)(ring / 2);
		fd = perf_open(&a, c->cpu, -1);
		if (fd < 0 && errno == EINVAL && b->mono && t == 0 && c->cpu == b->cpus[0]->cpu) {
			/* before 4.1: no clockid; perf's own clock then */
			b->mono = false;
			a.use_clockid = 0;
			fd = perf_open(&a, c->cpu, -1);
		}
		if (fd < 0 && errno != ENODEV && type >= SEV_CGROUP_ATTACH) {
			/* not fatal: threads keep the cgroup of their first sight */
			b->layout.id[type] = -1;
			continue;
		}
		if (fd < 0) {
			if (errno == ENODEV)	/* offline CPU */
				return 0;
			return open_error(-errno, err, errlen);
		}
		c->fd[t] = (int)fd;
		if (t == 0 && (a.sample_type & PERF_SAMPLE_CALLCHAIN) &&
		    ioctl(c->fd[0], PERF_EVENT_IOC_ID, &c->lay.chain_id))
			return errf(err, errlen, -errno, "PERF_EVENT_IOC_ID");
		if (t && (a.sample_type & PERF_SAMPLE_CALLCHAIN) &&
		    ioctl(c->fd[t], PERF_EVENT_IOC_ID, &c->lay.wake_chain_id))
			return errf(err, errlen, -errno, "PERF_EVENT_IOC_ID");
		/*
		 * -t: let the kernel drop what cannot concern the thread; not
		 * the cgroup moves, whose pid is a process's leader when the
		 * whole process moved
		 */
		if (b->filter_tid >= 0 && type < SEV_NSCHED) {
			char filter[96];

			if (t == 0)
				snprintf(filter, sizeof(filter), "prev_pid == %d || next_pid == %d",
					 b->filter_tid, b->filter_tid);
			else
				snprintf(filter, sizeof(filter), "pid == %d", b->filter_tid);
			/* not fatal: the analyzer filters in user space anyway */
			ioctl(c->fd[t], PERF_EVENT_IOC_SET_FILTER, filter);
		}
	}
	if (c->fd[0] < 0 && !b->records_only)
		return 0;
	if (!b->no_switch_records) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_DUMMY;
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
		a.sample_id_all = 1;
		a.context_switch = 1;
		/* a recording names its threads: COMM records for execs (a short command's) */
		a.comm = b->comms != NULL;
		a.comm_exec = a.comm;
		a.disabled = 1;
		a.use_clockid = b->mono;	/* the same clock, or SET_OUTPUT refuses */
		a.clockid = CLOCK_MONOTONIC;
		if (b->records_only) {
			/* it owns the ring: the wakeups and stalled() as sched_switch's */
			a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED;
			a.watermark = 1;
			a.wakeup_watermark = (uint32_t)(ring / 2);
		}
		fd = perf_open(&a, c->cpu, -1);
		if (fd < 0 && errno == EINVAL && c->cpu == b->cpus[0]->cpu && !b->records_only) {
			b->no_switch_records = true;	/* before 4.3: tracepoint only */
		} else if (fd < 0) {
			if (errno == ENODEV)
				return 0;
			return open_error(-errno, err, errlen);
		} else {
			c->fd[b->records_only ? 0 : FD_SWITCH] = (int)fd;
		}
	}
	if (c->fd[0] < 0)
		return 0;
	if (b->sample_hz) {
		int ret = open_sampler(b, c, err, errlen);

		if (ret)
			return ret;
	}
	c->map_len = ring + (size_t)sysconf(_SC_PAGESIZE);
	c->map = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd[0], 0);
	if (c->map == MAP_FAILED) {
		c->map = NULL;
		if (errno == EPERM)
			return errf(err, errlen, -errno, "cannot map %zu KiB per CPU for perf "
				    "(perf_event_mlock_kb): use a smaller --buffer-size", ring / 1024);
		return errf(err, errlen, -errno, "mmap of the perf ring");
	}
	c->meta = c->map;
	c->data = (uint8_t *)c->map + sysconf(_SC_PAGESIZE);
	c->size = ring;
	/* the others write into fd[0]'s ring, which must exist first */
	for (t = 1; t < NTYPES; t++)
		if (c->fd[t] >= 0 && ioctl(c->fd[t], PERF_EVENT_IOC_SET_OUTPUT, c->fd[0]))
			return errf(err, errlen, -errno, "PERF_EVENT_IOC_SET_OUTPUT");
	return 0;
}

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
static struct pcpu *new_slot(struct backend *b, int cpu)
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
static void online_cpus(struct backend *b, uint8_t *on)
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
static void pcpu_free(struct pcpu *c)
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
	pcpu_free(b->cpus[b->nslot - 1]);
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

	if (c->fd[0] >= 0 && !(n = new_slot(b, (int)cpu)))
		return false;
	if (open_cpu(b, n, err, sizeof(err)) || n->fd[0] < 0 || !n->map) {
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
static void track_hotplug(struct backend *b)
{
	uint8_t on[1024];
	uint64_t now = mono_ns();
	bool check = now >= b->next_check_ns;
	unsigned cpu;

	if (b->ncpu > sizeof(on))
		return;
	online_cpus(b, on);
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
static void slot_close(struct backend *b, unsigned i)
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
	b->records_only = req->switch_minimal && !b->no_switch_records &&
			  !getenv("OFFCPU_FTRACE_SWITCH_TRACEPOINT");
	ret = tmount_find(req->tracefs, b->root, sizeof(b->root), err, errlen);
	if (ret)
		return ret;
	ret = setup_layout(b, req, err, errlen);
	if (ret)
		return ret;
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
		 * Without root or CAP_IPC_LOCK, all of a user's perf rings
		 * together must fit perf_event_mlock_kb: share it.
		 */
		perf_caps_probe(&pc);
		if (!pc.root && !pc.cap_ipc_lock && pc.paranoid > -1 && pc.mlock_kb > 0) {
			size_t fit = (size_t)pc.mlock_kb * 1024 / b->ncpu;

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
	online_cpus(b, b->online);
	for (i = 0; i < b->ncpu; i++) {
		b->active[i] = (int)i;
		if (!new_slot(b, (int)i))
			return errf(err, errlen, -ENOMEM, "perf backend");
		ret = open_cpu(b, b->cpus[i], err, errlen);
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

	b->started = ret == 0;
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

/* Copy @len bytes at ring offset @off, unwrapping. */
static const uint8_t *ring_bytes(struct pcpu *c, uint64_t off, uint32_t len)
{
	uint64_t o = off & (c->size - 1);

	if (o + len <= c->size)
		return c->data + o;
	memcpy(c->scratch, c->data + o, c->size - o);
	memcpy(c->scratch + (c->size - o), c->data, len - (c->size - o));
	return c->scratch;
}

/*
 * A PERF_RECORD_SWITCH_CPU_WIDE record: a switch neither the tracepoint
 * nor an earlier record of it fed becomes c->rec.ev[0] (see the top of
 * the file). Returns 1 or 0.
 */
static unsigned switch_feed(const struct backend *b, struct pcpu *c,
			    const struct perfrec_switch *sw)
{
	struct sched_event *ev = c->rec.ev;
	int32_t prev = sw->prev, next = sw->next;

	if (c->sw_fed && c->sw_prev == prev && c->sw_next == next) {
		if (!sw->out)
			c->sw_fed = false;	/* the switch's last record */
		return 0;
	}
	if (sw->out) {
		c->out_prev = prev;	/* for the switch-in, if fed from it */
		c->out_next = next;
		c->out_preempt = sw->preempt;
	}
	/* -t: the kernel filters the tracepoint, so other switches are absent */
	if (b->filter_tid >= 0 && prev != b->filter_tid && next != b->filter_tid)
		return 0;
	c->sw_fed = sw->out;
	c->sw_prev = prev;
	c->sw_next = next;
	c->recovered += !b->records_only;
	memset(ev, 0, sizeof(*ev));
	ev->ts = sw->ts;
	ev->cpu = sw->cpu;
	ev->type = SEV_SWITCH;
	ev->common_pid = prev;	/* as the tracepoint has it: prev runs */
	ev->pid = prev;
	ev->next_pid = next;
	ev->prev_state = SCHED_STATE_UNKNOWN;
	if (sw->out ? c->out_preempt : c->out_prev == prev && c->out_next == next && c->out_preempt)
		ev->prev_state = 0;	/* preempted: R */
	return 1;
}

/*
 * Parse one record into c->rec. Returns the number of events to feed: 0
 * for records that are not samples of ours or are malformed (skipped),
 * and for lost counts (added up) and switches already fed.
 */
static void note_comm(struct backend *b, int32_t tid, const char *comm);

static unsigned cpu_record(struct backend *b, struct pcpu *c, const uint8_t *rec,
			   uint32_t size)
{
	struct perfrec *r = &c->rec;

	if (perfrec_parse(&c->lay, rec, size, r))
		return 0;
	switch (r->kind) {
	case PERFREC_LOST:
		c->lost += r->lost;
		return 0;
	case PERFREC_SWITCH:
		return switch_feed(b, c, &r->sw);
	case PERFREC_COMM:
		/* a recording: an exec's new name, for a thread gone before the save */
		if (b->comms)
			note_comm(b, r->comm.tid, r->comm.comm);
		return 0;
	case PERFREC_SAMPLE:
		if (r->ev[0].type == SEV_SWITCH) {
			c->sw_fed = true;	/* its records repeat it */
			c->sw_prev = r->ev[0].pid;
			c->sw_next = r->ev[0].next_pid;
		}
		return r->nev;
	}
	return 0;
}

/* Move to the next event of @c; false when its ring holds no more now. */
static bool cpu_next(struct backend *b, struct pcpu *c)
{
	if (c->iev < c->nev && ++c->iev < c->nev)
		return true;
	while (c->pos + sizeof(struct perf_event_header) <= c->head) {
		struct perf_event_header h;
		const uint8_t *rec;

		memcpy(&h, ring_bytes(c, c->pos, sizeof(h)), sizeof(h));
		if (h.size < sizeof(h) || c->pos + h.size > c->head) {
			/* corrupt or torn: skip what is there */
			c->pos = c->head;
			break;
		}
		rec = ring_bytes(c, c->pos, h.size);
		c->rec_start = c->pos;
		c->nev = cpu_record(b, c, rec, h.size);
		c->pos += h.size;
		if (c->nev) {
			c->iev = 0;
			return true;
		}
	}
	c->nev = c->iev = 0;
	return false;
}

/*
 * A thread's name for the recording's saved_cmdlines: the event's, or,
 * where it carries none (a switch only the context-switch records had),
 * /proc's at first sight, as tracefs's own table would have it.
 */
static void note_comm(struct backend *b, int32_t tid, const char *comm)
{
	struct rec_comm *e = NULL;
	char buf[64];
	unsigned i;

	if (tid <= 0)
		return;
	/*
	 * linear probing, never evicting: replacing a thread whose slot
	 * another one hashes to would read /proc for each of their events in
	 * turn; a full neighbourhood leaves the thread out (unnamed in report)
	 */
	for (i = 0; i < REC_PROBES; i++) {
		e = &b->comms[(tid_hash32(tid) + i) & (REC_COMMS - 1)];
		if (e->tid == tid || !e->tid)
			break;
	}
	if (i == REC_PROBES)
		return;
	if (!e->tid) {
		/* first sight: its process from /proc, as the live run asks it */
		e->tid = tid;
		e->tgid = proc_tgid(tid, NULL);
	}
	if (comm && comm[0])
		comm_copy(e->comm, comm);
	else if (!e->comm[0] && proc_comm(tid, buf, sizeof(buf)) == 0)
		comm_copy(e->comm, buf);
}

/* A recording: @ev into its CPU's page, its names into the table. */
static void record_event(struct backend *b, const struct sched_event *ev)
{
	page_enc_add(&b->enc[ev->cpu], ev, b->sink, b->sink_arg);
	if (ev->type == SEV_SWITCH)
		note_comm(b, ev->next_pid, ev->next_comm);
	if (ev->type <= SEV_WAKING)
		note_comm(b, ev->pid, ev->comm);
}

static int perf_read(struct backend *b, uint64_t limit, bool drain,
		     sched_ev_cb cb, void *arg)
{
	uint64_t start = mono_ns(), upto;
	unsigned i;

	if (b->started)
		track_hotplug(b);	/* may add slots: before any pointer is taken */
	b->heap.n = 0;
	for (i = 0; i < b->nslot; i++) {
		struct pcpu *c = b->cpus[i];

		if (!c->meta)
			continue;
		/* pairs with the kernel's store of data_head */
		c->head = __atomic_load_n(&c->meta->data_head, __ATOMIC_ACQUIRE);
		if (c->iev < c->nev || cpu_next(b, c)) {
			b->next_ts[i] = c->rec.ev[c->iev].ts;
			tsheap_push(&b->heap, i);
		}
	}
	/* a CPU's ring holds its events in order; the newest need a moment */
	upto = drain ? UINT64_MAX : b->mono ? start - ORDER_SLACK_NS : UINT64_MAX;
	if (upto > limit)
		upto = limit;
	while (b->heap.n) {
		unsigned ci = b->heap.v[0];
		struct pcpu *c = b->cpus[ci];

		if (c->rec.ev[c->iev].ts > upto)
			break;
		/* a recording's pages: errors are sticky in it, said at its close */
		if (b->enc && (unsigned)c->rec.ev[c->iev].cpu < b->ncpu)
			record_event(b, &c->rec.ev[c->iev]);
		cb(&c->rec.ev[c->iev], arg);
		if (cpu_next(b, c)) {
			b->next_ts[ci] = c->rec.ev[c->iev].ts;
			tsheap_fix_top(&b->heap);
		} else {
			tsheap_pop(&b->heap);
		}
	}
	/*
	 * Give the kernel back what was consumed: up to the record being held
	 * (its start), or everything read.
	 */
	for (i = 0; i < b->nslot; i++) {
		struct pcpu *c = b->cpus[i];
		uint64_t tail = c->pos;

		if (!c->meta)
			continue;
		/* a record still held (beyond the horizon) stays readable: its
		 * events point into the ring */
		if (c->iev < c->nev)
			tail = c->rec_start;
		__atomic_store_n(&c->meta->data_tail, tail, __ATOMIC_RELEASE);
		/* a retired slot read to its end (lost counts stay with it) */
		if (c->retired && c->iev >= c->nev && c->pos >= c->head &&
		    __atomic_load_n(&c->meta->data_head, __ATOMIC_ACQUIRE) == c->pos)
			slot_close(b, i);
	}
	return 0;
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
		pcpu_free(b->cpus[i]);
	for (i = 0; b->enc && i < b->ncpu; i++)
		page_enc_fini(&b->enc[i]);
	free(b->enc);
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

const struct backend_ops perf_backend_ops = {
	.name = "perf",
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
	.rec_source = perf_rec_source,
	.flush_pages = perf_flush_pages,
	.task_lists = perf_task_lists,
	.close = perf_close,
};
