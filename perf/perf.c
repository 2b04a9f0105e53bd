// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The perf backend: the same sched tracepoints opened with perf_event_open,
 * one event per CPU and type, all of a CPU's events writing into one mmap
 * ring. Records are parsed in place (copied only when they wrap), their raw
 * tracepoint payload decoded with the same format offsets as the tracefs
 * backends, and CPUs merged in time order. Nothing is written to tracefs:
 * only its format files are read, which stay readable when it is mounted
 * read-only.
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
#include "decode.h"
#include "fmt.h"
#include "fmtload.h"
#include "perfcaps.h"
#include "timeutil.h"
#include "tsheap.h"

#define ORDER_SLACK_NS (1000 * 1000ULL)
#define NTP 5			/* sched_switch, sched_wakeup, _new, _waking, process_fork */
#define FD_SWITCH NTP		/* the dummy event writing context-switch records */
#define NTYPES (NTP + 1)

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
	uint64_t rec_start;	/* start of the record c->ev[] came from */
	uint64_t chain_id;	/* perf id of this CPU's sched_switch event */
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
	/* the events of the current record: a switch may bring its stacks */
	struct sched_event ev[3];
	unsigned nev, iev;
	uint64_t kfr[STACK_MAX_DEPTH], ufr[STACK_MAX_DEPTH];
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
	unsigned nslot, slotcap;
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
	bool switch_records;	/* context-switch records open on every CPU */
	bool no_switch_records;	/* the kernel refused them (before 4.3), or the
				 * benchmark's OFFCPU_FTRACE_NO_SWITCH_RECORDS */
};

static int setup_layout(struct backend *b, const struct trace_req *req,
			char *err, size_t errlen)
{
	return sched_layout_load(&b->layout, &b->layout_ok, b->root,
				 (req->waking ? FMTLOAD_WAKING : 0) | (req->fork ? FMTLOAD_FORK : 0),
				 err, errlen);
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

static int open_cpu(struct backend *b, struct pcpu *c, char *err, size_t errlen)
{
	size_t ring = b->ring;
	struct perf_event_attr a;
	unsigned t;
	long fd;

	for (t = 0; t < NTYPES; t++)
		c->fd[t] = -1;
	for (t = 0; t < NTP; t++) {
		int id = b->layout.id[SEV_SWITCH + t];

		if (id < 0)
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
		if (fd < 0) {
			if (errno == ENODEV)	/* offline CPU */
				return 0;
			return open_error(-errno, err, errlen);
		}
		c->fd[t] = (int)fd;
		if (t == 0 && (a.sample_type & PERF_SAMPLE_CALLCHAIN) &&
		    ioctl(c->fd[0], PERF_EVENT_IOC_ID, &c->chain_id))
			return errf(err, errlen, -errno, "PERF_EVENT_IOC_ID");
		/* -t: let the kernel drop what cannot concern the thread */
		if (b->filter_tid >= 0) {
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
	if (c->fd[0] < 0)
		return 0;
	if (!b->no_switch_records) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_DUMMY;
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
		a.sample_id_all = 1;
		a.context_switch = 1;
		a.disabled = 1;
		a.use_clockid = b->mono;	/* the same clock, or SET_OUTPUT refuses */
		a.clockid = CLOCK_MONOTONIC;
		fd = perf_open(&a, c->cpu, -1);
		if (fd < 0 && errno == EINVAL && c->cpu == b->cpus[0]->cpu) {
			b->no_switch_records = true;	/* before 4.3: tracepoint only */
		} else if (fd < 0) {
			if (errno == ENODEV)
				return 0;
			return open_error(-errno, err, errlen);
		} else {
			c->fd[FD_SWITCH] = (int)fd;
		}
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

/* Room for @n slots in every per-slot array; 0 or -ENOMEM. */
static int grow_slots(struct backend *b, unsigned n)
{
	struct pcpu **cpus;
	struct pollfd *pfd;
	unsigned *hv;
	uint64_t *ts;
	unsigned i;

	if (n <= b->slotcap)
		return 0;
	cpus = realloc(b->cpus, n * sizeof(*cpus));
	if (cpus)
		b->cpus = cpus;
	pfd = realloc(b->pfd, n * sizeof(*pfd));
	if (pfd)
		b->pfd = pfd;
	hv = realloc(b->heap.v, n * sizeof(*hv));
	if (hv)
		b->heap.v = hv;
	ts = realloc(b->next_ts, n * sizeof(*ts));
	if (ts)
		b->next_ts = ts;
	b->heap.key = b->next_ts;
	if (!cpus || !pfd || !hv || !ts)
		return -ENOMEM;
	for (i = b->slotcap; i < n; i++) {
		b->cpus[i] = NULL;
		b->pfd[i].fd = -1;
		b->pfd[i].events = POLLIN;
	}
	b->slotcap = n;
	return 0;
}

/* A new, unopened slot for @cpu, or NULL. */
static struct pcpu *new_slot(struct backend *b, int cpu)
{
	struct pcpu *c;
	unsigned t;

	if (b->nslot == b->slotcap && grow_slots(b, b->slotcap * 2 + 1))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cpu = cpu;
	for (t = 0; t < NTYPES; t++)
		c->fd[t] = -1;
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

/* Follow CPUs going offline and online (see struct backend). */
/* Drop the newest slot, which failed to open (its fds and map, if any). */
static void slot_discard(struct backend *b)
{
	struct pcpu *c = b->cpus[b->nslot - 1];
	unsigned t;

	if (c->map)
		munmap(c->map, c->map_len);
	for (t = 0; t < NTYPES; t++)
		if (c->fd[t] >= 0)
			close(c->fd[t]);
	free(c);
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
	b->ustack = req->ustack;
	/* for the benchmark only: what the switch records cost */
	b->no_switch_records = getenv("OFFCPU_FTRACE_NO_SWITCH_RECORDS") != NULL;
	b->filter_tid = req->npids == 1 && !req->follow_fork ? req->pids[0] : -1;
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
	if (!b->active || !b->online || grow_slots(b, b->ncpu))
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

#define GET(p, end, v)                                   \
	do {                                             \
		if ((p) + sizeof(v) > (end))             \
			return 0;                        \
		memcpy(&(v), (p), sizeof(v));            \
		(p) += sizeof(v);                        \
	} while (0)

/* Split a callchain at its context markers into kernel and user frames. */
static void split_chain(struct pcpu *c, const uint8_t *p, uint64_t nr,
			uint32_t *nk, uint32_t *nu)
{
	uint64_t i, ip;
	int ctx = 0;	/* 1 kernel, 2 user */

	*nk = *nu = 0;
	for (i = 0; i < nr; i++) {
		memcpy(&ip, p + 8 * i, 8);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = ip == (uint64_t)PERF_CONTEXT_KERNEL ? 1 :
			      ip == (uint64_t)PERF_CONTEXT_USER ? 2 : 0;
			continue;
		}
		if (ctx == 1 && *nk < STACK_MAX_DEPTH)
			c->kfr[(*nk)++] = ip;
		else if (ctx == 2 && *nu < STACK_MAX_DEPTH)
			c->ufr[(*nu)++] = ip;
	}
}

/*
 * A PERF_RECORD_SWITCH_CPU_WIDE record: a switch neither the tracepoint
 * nor an earlier record of it fed becomes c->ev[0] (see the top of the
 * file). Returns 1 or 0.
 */
static unsigned parse_switch(const struct backend *b, struct pcpu *c, const uint8_t *rec,
			     uint32_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	const uint8_t *p = rec + sizeof(*h), *end = rec + size;
	uint32_t other_pid, other_tid, pid, tid, cpu, res;
	struct sched_event *ev = c->ev;
	bool out = h->misc & PERF_RECORD_MISC_SWITCH_OUT;
	int32_t prev, next;
	uint64_t ts;

	GET(p, end, other_pid);
	GET(p, end, other_tid);
	GET(p, end, pid);	/* sample_id: TID, TIME, CPU */
	GET(p, end, tid);
	GET(p, end, ts);
	GET(p, end, cpu);
	GET(p, end, res);
	(void)other_pid;
	(void)pid;
	(void)res;
	/* out: the current task leaves for other; in: it arrived from other */
	prev = (int32_t)(out ? tid : other_tid);
	next = (int32_t)(out ? other_tid : tid);
	if (c->sw_fed && c->sw_prev == prev && c->sw_next == next) {
		if (!out)
			c->sw_fed = false;	/* the switch's last record */
		return 0;
	}
	if (out) {
		c->out_prev = prev;	/* for the switch-in, if fed from it */
		c->out_next = next;
		c->out_preempt = h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
	}
	/* -t: the kernel filters the tracepoint, so other switches are absent */
	if (b->filter_tid >= 0 && prev != b->filter_tid && next != b->filter_tid)
		return 0;
	c->sw_fed = out;
	c->sw_prev = prev;
	c->sw_next = next;
	c->recovered++;
	memset(ev, 0, sizeof(*ev));
	ev->ts = ts;
	ev->cpu = (int32_t)cpu;
	ev->type = SEV_SWITCH;
	ev->common_pid = prev;	/* as the tracepoint has it: prev runs */
	ev->pid = prev;
	ev->next_pid = next;
	ev->prev_state = SCHED_STATE_UNKNOWN;
	if (out ? c->out_preempt : c->out_prev == prev && c->out_next == next && c->out_preempt)
		ev->prev_state = 0;	/* preempted: R */
	return 1;
}

/*
 * Parse one record into c->ev[]. Returns the number of events: 0 for
 * records that are not samples of ours (PERF_RECORD_LOST is counted).
 * Samples start with their event id (PERF_SAMPLE_IDENTIFIER): only
 * sched_switch samples carry a callchain.
 */
static unsigned parse_record(struct backend *b, struct pcpu *c, const uint8_t *rec,
			     uint32_t size)
{
	const uint8_t *p = rec + sizeof(struct perf_event_header), *end = rec + size;
	const struct perf_event_header *h = (const void *)rec;
	uint32_t pid, tid, cpu, res, raw_size, nk = 0, nu = 0;
	uint64_t id, ts, nr = 0;
	const uint8_t *chain = NULL;
	struct sched_event *ev = c->ev;
	unsigned n;

	if (h->type == PERF_RECORD_LOST) {
		uint64_t lost;

		GET(p, end, id);
		GET(p, end, lost);
		c->lost += lost;
		return 0;
	}
	if (h->type == PERF_RECORD_SWITCH_CPU_WIDE)
		return parse_switch(b, c, rec, size);
	if (h->type != PERF_RECORD_SAMPLE)
		return 0;
	GET(p, end, id);
	GET(p, end, pid);
	GET(p, end, tid);
	GET(p, end, ts);
	GET(p, end, cpu);
	GET(p, end, res);
	(void)tid;
	(void)res;
	if (c->chain_id && id == c->chain_id) {
		GET(p, end, nr);
		if (nr > 4096 || (uint64_t)(end - p) < 8 * nr)
			return 0;
		chain = p;
		p += 8 * nr;
	}
	GET(p, end, raw_size);
	if ((uint64_t)(end - p) < raw_size)
		return 0;
	if (!decode_record(&b->layout, p, raw_size, ts, (int32_t)cpu, &ev[0]))
		return 0;
	n = 1;
	if (ev[0].type == SEV_SWITCH) {
		c->sw_fed = true;	/* its records repeat it */
		c->sw_prev = ev[0].pid;
		c->sw_next = ev[0].next_pid;
	}
	if (chain && ev[0].type == SEV_SWITCH) {
		split_chain(c, chain, nr, &nk, &nu);
		/* the same shape as the ring backend: stacks after the switch */
		if (b->kstack) {
			ev[n] = ev[0];
			ev[n].type = SEV_KSTACK;
			ev[n].pid = ev[0].common_pid;
			ev[n].next_pid = 0;
			ev[n].stack = c->kfr;
			ev[n].stack_depth = nk;
			n++;
		}
		if (b->ustack && nu) {
			ev[n] = ev[0];
			ev[n].type = SEV_USTACK;
			ev[n].pid = ev[0].common_pid;
			ev[n].next_pid = (int32_t)pid;	/* tgid */
			ev[n].stack = c->ufr;
			ev[n].stack_depth = nu;
			n++;
		}
	}
	return n;
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
		c->nev = parse_record(b, c, rec, h.size);
		c->pos += h.size;
		if (c->nev) {
			c->iev = 0;
			return true;
		}
	}
	c->nev = c->iev = 0;
	return false;
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
			b->next_ts[i] = c->ev[c->iev].ts;
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

		if (c->ev[c->iev].ts > upto)
			break;
		cb(&c->ev[c->iev], arg);
		if (cpu_next(b, c)) {
			b->next_ts[ci] = c->ev[c->iev].ts;
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
	return sched_layout_events(&b->layout, b->layout_ok, b->kstack, b->ustack);
}

/* Nothing in tracefs to restore: unmap and close everything. */
static int perf_close(struct backend *b, char *err, size_t errlen)
{
	unsigned i, t;

	(void)err;
	(void)errlen;
	if (!b)
		return 0;
	for (i = 0; b->cpus && i < b->nslot; i++) {
		struct pcpu *c = b->cpus[i];

		if (c->map)
			munmap(c->map, c->map_len);
		for (t = 0; t < NTYPES; t++)
			if (c->fd[t] >= 0)
				close(c->fd[t]);
		free(c);
	}
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
	.close = perf_close,
};
