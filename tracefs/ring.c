// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ring backend: sched events recorded in a private tracefs instance,
 * read as raw per-CPU pages on a timer (and a buffer watermark), walked
 * and decoded by offset (src/sched/decode.c's page cursor; the formats
 * were parsed once with libtraceevent) and merged across CPUs in
 * timestamp order.
 */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "tmount.h"
#include "errf.h"
#include "fileread.h"
#include "backend.h"
#include "tracefs_backends.h"
#include "decode.h"
#include "fmt.h"
#include "fmtload.h"
#include "tfs.h"
#include "tfs_caps.h"
#include "timeutil.h"
#include "tsheap.h"

/*
 * Events reserved on one CPU become visible at commit; a record whose
 * timestamp is older than this behind the newest one is assumed committed.
 */
#define ORDER_SLACK_NS (1000 * 1000ULL)
/*
 * Bytes of pages a CPU's queue holds at most: reading stops there, the
 * merge consumes up to the horizon and reading goes on (ring_read's
 * rounds), so a backlog stays in the kernel's buffer instead of being
 * copied out all at once. 1 MiB spans far more than ORDER_SLACK_NS even
 * at the highest rates (about 20 MB/s a CPU with stacks).
 */
#define QUEUE_BYTES_MAX (1024 * 1024)
/* early wakes: see ring_wait() */
#define MIN_WAKE_GAP_NS (10 * 1000000ULL)
#define FILL_NS_PER_KIB_QUARTER 12800ULL
/* buffer fill that wakes the reader before its timer (buffer_percent) */
#define WATERMARK_PERCENT "50"

struct ring_cpu {
	int cpu;
	struct tracefs_cpu *tc;
	int fd;
	void **q;		/* pages read, not yet consumed (a ring) */
	unsigned qhead, qlen, qcap;
	struct page_cursor cur;	/* walking q[qhead] when loaded */
	bool loaded;
	bool got_data;		/* the last read cycle returned pages */
	bool capped;		/* ... and stopped before the kernel ran dry */
	uint64_t last_ts;	/* newest timestamp read (when needed) */
	uint64_t missed;	/* reported by page headers */
	uint64_t bad_pages;
	bool absent;		/* no buffer yet (CPU offline when we opened):
				 * tried again every read cycle */
};

struct backend {
	struct tfs_undo_list undo;
	struct tracefs_instance *inst;
	bool borrowed;		/* OFFCPU_FTRACE_RING_INSTANCE: not ours to remove */
	bool pid_filter;	/* set_event_pid: the selected threads' switches only */
	/* a recording: every page read also goes here (req->page_sink) */
	int (*sink)(void *arg, unsigned cpu, const void *page);
	void *sink_arg;
	uint32_t buffer_kb;	/* the kernel's per-CPU buffer we set, 0 not ours */
	char root[PATH_MAX];
	struct sched_layout layout;
	bool layout_ok;
	struct ring_cpu *cpus;
	unsigned ncpu;
	struct pollfd *pfd;
	void **pool;		/* free pages */
	unsigned npool;
	size_t page_size;
	char clock[16];
	bool mono;
	int on_fd;		/* instance tracing_on */
	uint64_t last_wake;	/* mono ns ring_wait() last returned */
	uint64_t wake_gap_ns;	/* at most one early wake per this */
	unsigned max_rounds;	/* read cycles per ring_read: a whole buffer */
	struct tsheap heap;	/* CPUs with a loaded record, by next_ts */
	uint64_t *next_ts;	/* per CPU: timestamp of its current record */
	struct page_cursor scratch;
	uint64_t frames[STACK_MAX_DEPTH];	/* the stack being fed */
};

static void *page_get(struct backend *b)
{
	if (b->npool)
		return b->pool[--b->npool];
	return malloc(b->page_size);
}

static void page_put(struct backend *b, void *p)
{
	/* the pool never holds more than every queue could */
	b->pool[b->npool++] = p;
}

static int setup_layout(struct backend *b, const struct trace_req *req,
			char *err, size_t errlen)
{
	return sched_layout_load(&b->layout, &b->layout_ok, b->root, FMTLOAD_HEADER_PAGE |
				 (req->waking ? FMTLOAD_WAKING : 0) | (req->fork ? FMTLOAD_FORK : 0) |
				 (req->kstack ? FMTLOAD_KSTACK : 0) |
				 (req->ustack ? FMTLOAD_USTACK : 0) |
				 (req->cgroup_moves ? FMTLOAD_CGROUP : 0), err, errlen);
}

static int set_clock(struct backend *b, char *err, size_t errlen)
{
	/*
	 * Never "local": it is not synchronized across CPUs, so a wakeup on
	 * one CPU and the switch-in on another would give skewed deltas.
	 */
	static const char *const prefer[] = { "mono", "global" };
	unsigned i;
	int ret = -EINVAL;

	for (i = 0; i < 2; i++) {
		ret = tfs_inst_write(b->inst, "trace_clock", prefer[i]);
		if (ret == 0) {
			snprintf(b->clock, sizeof(b->clock), "%s", prefer[i]);
			b->mono = i == 0;
			return 0;
		}
	}
	return errf(err, errlen, ret, "cannot set trace_clock to mono or global");
}

static int write_pids(struct backend *b, const struct trace_req *req)
{
	char *path = tracefs_instance_get_file(b->inst, "set_event_pid");
	char num[16];
	unsigned i;
	int fd, ret = 0;

	if (!path)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	tracefs_put_tracing_file(path);
	if (fd < 0)
		return -errno;
	/* one pid per write: the kernel parses each write on its own */
	for (i = 0; i < req->npids && !ret; i++) {
		int n = snprintf(num, sizeof(num), "%d ", req->pids[i]);

		if (write(fd, num, (size_t)n) != n)
			ret = -errno;
	}
	close(fd);
	if (!ret && req->follow_fork)
		ret = tfs_inst_write(b->inst, "options/event-fork", "1");
	return ret;
}

/*
 * The filter of the stacktrace trigger: only switch-outs that start an
 * interval the analyzer will keep carry a stack. Built from this kernel's
 * state table, never from user text.
 */
static void stack_filter(struct backend *b, const char *letters, char *buf, size_t len)
{
	const struct sched_states *st = &b->layout.states;
	uint64_t bits = 0;
	bool r = false;
	const char *p;

	if (!letters) {
		snprintf(buf, len, "prev_pid != 0");
		return;
	}
	for (p = letters; *p; p++) {
		char one[2] = { *p, 0 };

		if (*p == 'R')
			r = true;
		else if (*p != ',')
			bits |= sched_states_mask(st, one);
	}
	snprintf(buf, len, "prev_pid != 0 && (prev_state & %llu%s",
		 (unsigned long long)bits, r ? " || prev_state == 0" : ")");
	if (r)
		snprintf(buf + strlen(buf), len - strlen(buf), " || prev_state == %llu)",
			 (unsigned long long)st->preempt_mask);
}

/* offcpu -K --wakers: the waker's stack, after each sched_waking (its context) */
static int setup_waker_stacks(struct backend *b, char *err, size_t errlen)
{
	static const char trig[] = "stacktrace if pid != 0";
	char *path;
	int ret;

	path = tracefs_instance_get_file(b->inst, "events/sched/sched_waking/trigger");
	if (!path)
		return errf(err, errlen, -ENOMEM, "trigger");
	ret = tfs_undo_write(&b->undo, path, "!stacktrace if pid != 0", true);
	tracefs_put_tracing_file(path);
	if (ret)
		return errf(err, errlen, ret, "undo list");
	ret = tfs_inst_write(b->inst, "events/sched/sched_waking/trigger", trig);
	if (ret)
		return errf(err, errlen, ret, "cannot set the stacktrace trigger on sched_waking");
	return 0;
}

static int setup_stacks(struct backend *b, const struct trace_req *req,
			char *err, size_t errlen)
{
	char filter[256], trig[280], undo[300], *path;
	int ret;

	if (req->ustack) {
		/* instance option: a user stack after every event it records */
		ret = tfs_inst_write(b->inst, "options/userstacktrace", "1");
		if (ret)
			return errf(err, errlen, ret, "cannot set options/userstacktrace");
	}
	if (!req->kstack)
		return 0;
	stack_filter(b, req->stack_states, filter, sizeof(filter));
	snprintf(trig, sizeof(trig), "stacktrace if %s", filter);
	snprintf(undo, sizeof(undo), "!%s", trig);
	path = tracefs_instance_get_file(b->inst, "events/sched/sched_switch/trigger");
	if (!path)
		return errf(err, errlen, -ENOMEM, "trigger");
	/* recorded before it is made: removed before the instance is */
	ret = tfs_undo_write(&b->undo, path, undo, true);
	tracefs_put_tracing_file(path);
	if (ret)
		return errf(err, errlen, ret, "undo list");
	ret = tfs_inst_write(b->inst, "events/sched/sched_switch/trigger", trig);
	if (ret)
		return errf(err, errlen, ret, "cannot set the stacktrace trigger '%s'", trig);
	return req->waking_kstack ? setup_waker_stacks(b, err, errlen) : 0;
}

/*
 * --by cgroup: the cgroup moves, where the layout has them (loaded only
 * when asked). Not fatal: an event that cannot be enabled is dropped from
 * the layout (the events op no longer has it), and threads keep the
 * cgroup of their first sight.
 */
static void enable_cgroup_moves(struct backend *b)
{
	unsigned t;

	for (t = SEV_CGROUP_ATTACH; t <= SEV_CGROUP_TRANSFER; t++) {
		char file[96];

		if (b->layout.id[t] < 0)
			continue;
		snprintf(file, sizeof(file), "events/%s/%s/enable", sched_ev_system(t),
			 sched_ev_name(t));
		if (tfs_inst_write(b->inst, file, "1"))
			b->layout.id[t] = -1;
	}
}

static int count_cpus(struct backend *b)
{
	char *dir = tracefs_instance_get_file(b->inst, "per_cpu");
	struct dirent *de;
	DIR *d;
	int max = -1;

	if (!dir)
		return -ENOMEM;
	d = opendir(dir);
	tracefs_put_tracing_file(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int n;

		if (sscanf(de->d_name, "cpu%d", &n) == 1 && n > max)
			max = n;
	}
	closedir(d);
	return max + 1;
}

/* Open @c's trace_pipe_raw and add it to the poll set; 0 or a negative errno. */
static int cpu_open(struct backend *b, struct ring_cpu *c)
{
	char file[64], *path;
	int ret;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", c->cpu);
	path = tracefs_instance_get_file(b->inst, file);
	if (!path)
		return -ENOMEM;
	c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ret = -errno;
	tracefs_put_tracing_file(path);
	if (c->fd < 0)
		return ret;
	c->tc = tracefs_cpu_alloc_fd(c->fd, (int)b->page_size, true);
	if (!c->tc) {
		close(c->fd);
		c->fd = -1;
		return -ENOMEM;
	}
	c->absent = false;
	b->pfd[c->cpu].fd = c->fd;
	b->pfd[c->cpu].events = POLLIN;
	return 0;
}

static int open_cpus(struct backend *b, uint32_t buffer_kb, char *err, size_t errlen)
{
	char file[64], val[32];
	unsigned i, per_cpu_pages;
	int n, ret;

	n = count_cpus(b);
	if (n <= 0)
		return errf(err, errlen, n ? n : -ENOENT, "no per_cpu buffers in %s", b->root);
	b->ncpu = (unsigned)n;
	b->page_size = b->layout.page_size;
	if (tfs_inst_read(b->inst, "buffer_subbuf_size_kb", val, sizeof(val)) == 0 &&
	    atoi(val) > 0)
		b->page_size = (size_t)atoi(val) * 1024;
	/* hold at most one kernel buffer's worth of pages per CPU, and 1 MiB */
	per_cpu_pages = (unsigned)((uint64_t)buffer_kb * 1024 / b->page_size);
	if (per_cpu_pages > QUEUE_BYTES_MAX / b->page_size)
		per_cpu_pages = (unsigned)(QUEUE_BYTES_MAX / b->page_size);
	if (per_cpu_pages < 16)
		per_cpu_pages = 16;
	b->wake_gap_ns = (uint64_t)buffer_kb * FILL_NS_PER_KIB_QUARTER;
	if (b->wake_gap_ns > MIN_WAKE_GAP_NS)
		b->wake_gap_ns = MIN_WAKE_GAP_NS;
	/* enough read cycles of capped queues to empty the whole buffer */
	b->max_rounds = (unsigned)((uint64_t)buffer_kb * 1024 / b->page_size / per_cpu_pages) + 2;
	if (b->max_rounds < 64)
		b->max_rounds = 64;
	b->cpus = calloc(b->ncpu, sizeof(*b->cpus));
	b->pfd = calloc(b->ncpu, sizeof(*b->pfd));
	b->heap.v = calloc(b->ncpu, sizeof(*b->heap.v));
	b->next_ts = calloc(b->ncpu, sizeof(*b->next_ts));
	b->heap.key = b->next_ts;
	b->pool = calloc((size_t)b->ncpu * per_cpu_pages, sizeof(*b->pool));
	if (!b->cpus || !b->pfd || !b->heap.v || !b->next_ts || !b->pool)
		return errf(err, errlen, -ENOMEM, "%s", "ring buffers");
	for (i = 0; i < b->ncpu; i++) {
		struct ring_cpu *c = &b->cpus[i];

		c->cpu = (int)i;
		c->fd = -1;
		c->qcap = per_cpu_pages;
		c->q = calloc(per_cpu_pages, sizeof(*c->q));
		if (!c->q || page_cursor_init(&c->cur, &b->layout))
			return errf(err, errlen, -ENOMEM, "%s", "ring buffers");
		b->pfd[i].fd = -1;
		ret = cpu_open(b, c);
		if (ret == -ENOENT || ret == -ENODEV) {
			/* a possible CPU without a buffer: offline now, maybe later not */
			c->absent = true;
			continue;
		}
		if (ret) {
			snprintf(file, sizeof(file), "per_cpu/cpu%u/trace_pipe_raw", i);
			return errf(err, errlen, ret, "cannot open %s", file);
		}
	}
	return page_cursor_init(&b->scratch, &b->layout);
}

static int open_on_fd(struct backend *b, char *err, size_t errlen)
{
	char *path = tracefs_instance_get_file(b->inst, "tracing_on");
	int ret;

	if (!path)
		return errf(err, errlen, -ENOMEM, "%s", "tracing_on");
	b->on_fd = open(path, O_WRONLY | O_CLOEXEC);
	ret = -errno;
	tracefs_put_tracing_file(path);
	if (b->on_fd < 0)
		return errf(err, errlen, ret, "cannot open tracing_on");
	return 0;
}

/*
 * For tests only (tests/vm/hist_check.sh): read the sched events of an
 * existing instance, the hist backend's, so that its triggers and this
 * analyzer see one event stream with the same timestamps. Every write is
 * undone at close (events off, overwrite back on, tracing off); the
 * instance stays. Its clock and buffer size are left as they are.
 */
static int borrow_open(struct backend *b, const struct trace_req *req, const char *name,
		       char *err, size_t errlen)
{
	static const char *const events[] = {
		"events/sched/sched_switch/enable",
		"events/sched/sched_wakeup/enable",
		"events/sched/sched_wakeup_new/enable",
	};
	char buf[64], *path;
	unsigned i;
	int ret;

	if (tracefs_set_tracing_dir(b->root) || !tracefs_instance_exists(name))
		return errf(err, errlen, -ENOENT, "no instance %s to read", name);
	b->inst = tracefs_instance_alloc(NULL, name);
	if (!b->inst)
		return errf(err, errlen, -ENOMEM, "%s", "instance");
	b->borrowed = true;
	ret = setup_layout(b, req, err, errlen);
	if (ret)
		return ret;
	if (tfs_inst_read(b->inst, "trace_clock", buf, sizeof(buf)) == 0 && strstr(buf, "[mono]")) {
		snprintf(b->clock, sizeof(b->clock), "mono");
		b->mono = true;
	} else {
		return errf(err, errlen, -EINVAL, "instance %s does not use the mono clock", name);
	}
	for (i = 0; i < 3 + 1; i++) {
		const char *file = i < 3 ? events[i] : "options/overwrite";

		path = tracefs_instance_get_file(b->inst, file);
		if (!path)
			return errf(err, errlen, -ENOMEM, "%s", file);
		ret = tfs_undo_write(&b->undo, path, i < 3 ? "0" : "1", false);
		tracefs_put_tracing_file(path);
		if (!ret)
			ret = tfs_inst_write(b->inst, file, i < 3 ? "1" : "0");
		if (ret)
			return errf(err, errlen, ret, "cannot write %s", file);
	}
	if (tfs_inst_read(b->inst, "buffer_size_kb", buf, sizeof(buf)) || atoi(buf) <= 0)
		snprintf(buf, sizeof(buf), "1024");
	ret = open_cpus(b, (uint32_t)atoi(buf), err, errlen);
	return ret ? ret : open_on_fd(b, err, errlen);
}

static int ring_open(struct backend **out, const struct trace_req *req,
		     char *err, size_t errlen)
{
	static const char *const events[] = {
		"events/sched/sched_switch/enable",
		"events/sched/sched_wakeup/enable",
		"events/sched/sched_wakeup_new/enable",
		"events/sched/sched_waking/enable",
		"events/sched/sched_process_fork/enable",
	};
	struct backend *b = calloc(1, sizeof(*b));
	char val[32];
	uint32_t kb;
	unsigned i;
	int ret;

	*out = b;
	if (!b)
		return errf(err, errlen, -ENOMEM, "%s", "ring backend");
	b->on_fd = -1;
	b->sink = req->page_sink;
	b->sink_arg = req->page_arg;
	ret = tmount_find(req->tracefs, b->root, sizeof(b->root), err, errlen);
	if (ret)
		return ret;
	if (!tmount_writable(b->root)) {
		if (geteuid() != 0)
			snprintf(err, errlen, "cannot write tracefs at %s: run as root", b->root);
		else
			snprintf(err, errlen, "tracefs at %s is read-only: remount it "
				 "read-write (mount -o remount,rw %s)", b->root, b->root);
		return -EROFS;
	}
	if (getenv("OFFCPU_FTRACE_RING_INSTANCE"))
		return borrow_open(b, req, getenv("OFFCPU_FTRACE_RING_INSTANCE"), err, errlen);
	ret = tfs_instance_new(&b->undo, b->root, &b->inst, err, errlen);
	if (ret)
		return ret;
	/* a new instance starts with tracing on: off before anything else */
	ret = tfs_inst_write(b->inst, "tracing_on", "0");
	if (ret)
		return errf(err, errlen, ret, "cannot turn off tracing in our instance");
	ret = setup_layout(b, req, err, errlen);
	if (ret)
		return ret;
	ret = set_clock(b, err, errlen);
	if (ret)
		return ret;
	/*
	 * a recording notes each thread's process (saved_tgids), so a report
	 * elsewhere groups by process without this host's /proc; optional:
	 * older kernels have no such option in instances
	 */
	if (req->page_sink)
		tfs_inst_write(b->inst, "options/record-tgid", "1");
	kb = req->buffer_kb;
	if (!kb) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		/* 32 MiB across the CPUs, 1..8 MiB each */
		kb = (uint32_t)(32768 / (n > 0 ? n : 1));
		kb = kb < 1024 ? 1024 : kb > 8192 ? 8192 : kb;
	}
	b->buffer_kb = kb;
	snprintf(val, sizeof(val), "%u", kb);
	ret = tfs_inst_write(b->inst, "buffer_size_kb", val);
	if (ret)
		return errf(err, errlen, ret, "cannot set buffer_size_kb=%s", val);
	/* keep the oldest events when full: losses show in "dropped events" */
	ret = tfs_inst_write(b->inst, "options/overwrite", "0");
	if (ret)
		return errf(err, errlen, ret, "cannot set options/overwrite");
	/* optional: older kernels poll on any data */
	tfs_inst_write(b->inst, "buffer_percent", WATERMARK_PERCENT);
	if (req->npids) {
		b->pid_filter = true;
		ret = write_pids(b, req);
		if (ret)
			return errf(err, errlen, ret, "cannot set set_event_pid");
	}
	for (i = 0; i < 5; i++) {
		if (b->layout.id[SEV_SWITCH + i] < 0)
			continue;	/* sched_wakeup_new missing on this kernel */
		ret = tfs_inst_write(b->inst, events[i], "1");
		if (ret)
			return errf(err, errlen, ret, "cannot enable %s", events[i]);
	}
	enable_cgroup_moves(b);
	ret = setup_stacks(b, req, err, errlen);
	if (ret)
		return ret;
	ret = open_cpus(b, kb, err, errlen);
	return ret ? ret : open_on_fd(b, err, errlen);
}

static int set_on(struct backend *b, const char *v)
{
	return pwrite(b->on_fd, v, 1, 0) == 1 ? 0 : -errno;
}

static int ring_start(struct backend *b)
{
	return set_on(b, "1");
}

static int ring_stop(struct backend *b)
{
	return set_on(b, "0");
}

/*
 * Once partial pages have been read, the kernel may count the buffer as
 * past its watermark for good (pages_touched grows, pages_read does not),
 * and poll() then returns at once, every time: a reader that spins, and a
 * writer that queues a wakeup for it at every commit. So an early wake
 * comes at most once per wake_gap_ns; in between the reader sleeps, with
 * no poll pending, and nothing wakes it. The gap is 10 ms, or a quarter of
 * the time the buffer takes to fill at 20 MB/s a CPU (sched events with
 * stacks at the highest rates seen) when that is shorter: 12.8 us per KiB.
 */

static int ring_wait(struct backend *b, int timeout_ms)
{
	int n = poll(b->pfd, b->ncpu, timeout_ms);
	uint64_t now, gap;

	if (n < 0)
		return -errno;
	now = mono_ns();
	if (n > 0) {
		gap = (uint64_t)timeout_ms * 1000000 < b->wake_gap_ns ?
		      (uint64_t)timeout_ms * 1000000 : b->wake_gap_ns;
		if (now - b->last_wake < gap) {
			sleep_until_ns(b->last_wake + gap);
			now = mono_ns();
		}
	}
	b->last_wake = now;
	return 0;
}

/* ---- merging the CPUs' queues in timestamp order ---- */

/* Load the CPU's next queued page that has a record; false when none. */
static bool cpu_load(struct backend *b, struct ring_cpu *c)
{
	while (c->qlen) {
		int missed = page_cursor_load(&c->cur, &b->layout, c->q[c->qhead],
					      b->page_size);

		if (missed == -EINVAL)
			c->bad_pages++;
		else if (missed)
			c->missed += missed > 0 ? (uint64_t)missed : 1;
		if (missed != -EINVAL && c->cur.rec) {
			c->loaded = true;
			return true;
		}
		page_put(b, c->q[c->qhead]);
		c->qhead = (c->qhead + 1) % c->qcap;
		c->qlen--;
	}
	c->loaded = false;
	return false;
}

/*
 * The newest time page @p says its CPU has reached: its last record's,
 * its header's when it holds none, and never before @prev. (It returned
 * 0 for a page with no record: a capped CPU's horizon fell to 0, nothing
 * was fed, its queue stayed full and nothing more was read while the
 * kernel's buffer filled and dropped the rest of the window, the reader
 * idle: the "starved" runs that lost two thirds of their events.)
 */
static uint64_t page_last_ts(struct backend *b, void *p, uint64_t prev)
{
	uint64_t ts = prev, hdr;

	if (page_cursor_load(&b->scratch, &b->layout, p, b->page_size) < 0 &&
	    !b->scratch.rec)
		return prev;	/* malformed: skipped when fed */
	memcpy(&hdr, p, sizeof(hdr));
	if (hdr > ts)
		ts = hdr;
	for (; b->scratch.rec; page_cursor_next(&b->scratch))
		if (b->scratch.ts > ts)
			ts = b->scratch.ts;
	return ts;
}

/* One read cycle: pull available pages from every CPU into its queue. */
static int read_cycle(struct backend *b)
{
	unsigned i;

	for (i = 0; i < b->ncpu; i++) {
		struct ring_cpu *c = &b->cpus[i];
		void *last = NULL;

		c->got_data = false;
		c->capped = false;
		/*
		 * A CPU brought online after we started gets its buffer then;
		 * what it recorded before our open is still in it.
		 */
		if (c->absent && cpu_open(b, c) == -ENOMEM)
			return -ENOMEM;
		if (!c->tc)
			continue;
		while (c->qlen < c->qcap) {
			void *p = page_get(b);
			int n;

			if (!p)
				return -ENOMEM;
			n = tracefs_cpu_read(c->tc, p, true);
			if (n <= 0) {
				page_put(b, p);
				/* ENODEV: the CPU is offline; its buffer stays for when it returns */
				if (n < 0 && errno != EAGAIN && errno != EINTR && errno != ENODEV)
					return -errno;
				break;
			}
			c->q[(c->qhead + c->qlen) % c->qcap] = p;
			c->qlen++;
			/* errors are sticky: the recording's close reports them */
			if (b->sink)
				b->sink(b->sink_arg, i, p);
			c->got_data = true;
			last = p;
		}
		c->capped = c->qlen == c->qcap;
		if (last && (c->capped || !b->mono))
			c->last_ts = page_last_ts(b, last, c->last_ts);
		if (!c->loaded && c->qlen && cpu_load(b, c)) {
			b->next_ts[i] = c->cur.ts;
			tsheap_push(&b->heap, i);
		}
	}
	return 0;
}

/*
 * Up to where the merged stream is complete. With the mono clock a CPU
 * read dry can only add events newer than the read; one that stopped at
 * its queue cap bounds at its newest record. With another clock, every
 * CPU that returned data bounds at its newest record.
 */
static uint64_t horizon(struct backend *b, uint64_t read_start)
{
	uint64_t h = b->mono ? read_start : UINT64_MAX;
	unsigned i;

	for (i = 0; i < b->ncpu; i++) {
		struct ring_cpu *c = &b->cpus[i];

		if ((c->capped || (!b->mono && c->got_data)) && c->last_ts < h)
			h = c->last_ts;
	}
	return h > ORDER_SLACK_NS ? h - ORDER_SLACK_NS : 0;
}

static void feed(struct backend *b, uint64_t upto, sched_ev_cb cb, void *arg)
{
	while (b->heap.n) {
		unsigned ci = b->heap.v[0];
		struct ring_cpu *c = &b->cpus[ci];
		struct sched_event ev;

		if (c->cur.ts > upto)
			return;
		switch (decode_record(&b->layout, c->cur.rec, page_cursor_size(&c->cur),
				      c->cur.ts, c->cpu, &ev)) {
		case 0:
			break;
		case SEV_KSTACK:
		case SEV_USTACK:
			decode_stack(&b->layout, c->cur.rec, page_cursor_size(&c->cur),
				     &ev, b->frames);
			/* fall through */
		default:
			cb(&ev, arg);
		}
		page_cursor_next(&c->cur);
		if (!c->cur.rec) {
			page_put(b, c->q[c->qhead]);
			c->qhead = (c->qhead + 1) % c->qcap;
			c->qlen--;
			if (!cpu_load(b, c)) {
				tsheap_pop(&b->heap);
				continue;
			}
		}
		b->next_ts[ci] = c->cur.ts;
		tsheap_fix_top(&b->heap);
	}
}

static int ring_read(struct backend *b, uint64_t limit, bool drain,
		     sched_ev_cb cb, void *arg)
{
	unsigned rounds;
	int ret;

	/*
	 * bounded, so that at extreme rates the caller still sees its
	 * deadline, but by enough rounds to read a whole kernel buffer
	 */
	for (rounds = 0; rounds < b->max_rounds; rounds++) {
		uint64_t start = mono_ns(), upto;
		bool more = false;
		unsigned i;

		ret = read_cycle(b);
		if (ret)
			return ret;
		upto = drain ? UINT64_MAX : horizon(b, start);
		feed(b, upto < limit ? upto : limit, cb, arg);
		/* a capped queue may hold back more data in the kernel */
		for (i = 0; i < b->ncpu; i++)
			if (b->cpus[i].capped && b->cpus[i].qlen < b->cpus[i].qcap)
				more = true;
		if (!more)
			break;
	}
	return 0;
}

static const char *ring_clock(struct backend *b, bool *is_mono)
{
	if (is_mono)
		*is_mono = b->mono;
	return b->clock;
}

static uint64_t stat_field(const char *s, const char *name)
{
	const char *p = strstr(s, name);

	return p ? strtoull(p + strlen(name), NULL, 10) : 0;
}

static unsigned ring_lost(struct backend *b, uint64_t *lost, unsigned max)
{
	unsigned i;

	for (i = 0; i < b->ncpu && i < max; i++) {
		char file[64], buf[1024];
		uint64_t n = 0;

		snprintf(file, sizeof(file), "per_cpu/cpu%u/stats", i);
		/* overwrite=0: "dropped events"; the others for completeness */
		if (tfs_inst_read(b->inst, file, buf, sizeof(buf)) == 0)
			n = stat_field(buf, "\noverrun: ") +
			    stat_field(buf, "commit overrun: ") +
			    stat_field(buf, "dropped events: ");
		lost[i] = n > b->cpus[i].missed ? n : b->cpus[i].missed;
	}
	return b->ncpu < max ? b->ncpu : max;
}

static const struct sched_states *ring_states(struct backend *b)
{
	return &b->layout.states;
}

static unsigned ring_events(struct backend *b)
{
	return sched_layout_events(&b->layout, b->layout_ok,
				   b->layout_ok && b->layout.id[SEV_KSTACK] >= 0,
				   b->layout_ok && b->layout.id[SEV_USTACK] >= 0);
}

static int ring_rec_source(struct backend *b, struct backend_rec_src *s)
{
	memset(s, 0, sizeof(*s));
	s->tracefs = b->root;
	s->instance = tracefs_instance_get_name(b->inst);
	s->ncpu = b->ncpu;
	s->page_size = b->page_size;
	s->buffer_kb = b->buffer_kb;
	return 0;
}

static int ring_close(struct backend *b, char *err, size_t errlen)
{
	char name[PATH_MAX + 128] = "";
	unsigned i, failed;

	if (!b)
		return 0;
	if (b->inst)
		snprintf(name, sizeof(name), "%s/instances/%s", b->root,
			 tracefs_instance_get_name(b->inst));
	if (b->on_fd >= 0) {
		set_on(b, "0");
		close(b->on_fd);
	}
	for (i = 0; b->cpus && i < b->ncpu; i++) {
		struct ring_cpu *c = &b->cpus[i];

		/* readers hold the instance busy: close before removing it */
		if (c->tc)
			tracefs_cpu_close(c->tc);
		else if (c->fd >= 0)
			close(c->fd);
		while (c->qlen) {
			free(c->q[c->qhead]);
			c->qhead = (c->qhead + 1) % c->qcap;
			c->qlen--;
		}
		free(c->q);
		page_cursor_fini(&c->cur);
	}
	failed = tfs_undo_run(&b->undo);
	if (b->borrowed)
		tracefs_instance_free(b->inst);
	while (b->npool)
		free(b->pool[--b->npool]);
	page_cursor_fini(&b->scratch);
	if (b->layout_ok)
		fmt_fini(&b->layout);
	free(b->pool);
	free(b->heap.v);
	free(b->next_ts);
	free(b->pfd);
	free(b->cpus);
	free(b);
	if (failed) {
		snprintf(err, errlen, "could not remove %s: run 'offcpu-ftrace cleanup'",
			 name[0] ? name : "our tracefs instance");
		return -EBUSY;
	}
	return 0;
}

/* every switch of the kernel's tracepoint, or the selected threads' (set_event_pid) */
static int ring_switches(struct backend *b)
{
	return b->pid_filter ? BK_SW_SELECTED : BK_SW_TRACEPOINT;
}

const struct backend_ops ring_backend_ops = {
	.name = "ring",
	.caps = BCAP_EVENTS | BCAP_RECORD,
	.source = "in a tracefs instance of its own",
	.switches = ring_switches,
	.open = ring_open,
	.start = ring_start,
	.stop = ring_stop,
	.wait = ring_wait,
	.read = ring_read,
	.clock = ring_clock,
	.lost = ring_lost,
	.states = ring_states,
	.events = ring_events,
	.close = ring_close,
	.rec_source = ring_rec_source,
};
