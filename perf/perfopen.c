// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The perf backend's events opened on one CPU (perf.c says what they
 * are): the sched tracepoints as perf events, the dummy event writing
 * context-switch records, and the profile's CPU-clock sampler, all
 * writing into the ring of the CPU's first event; and why the kernel
 * refused one, with the fix. Also the tracepoints' formats loaded from
 * tracefs, which is only read.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "errf.h"
#include "backend.h"
#include "fmt.h"
#include "fmtload.h"
#include "perfcaps.h"
#include "perfrec.h"
#include "perf_local.h"


/* the event type of each tracepoint fd (fd[t]); sched_switch first */
static const uint8_t tp_type[NTP] = {
	SEV_SWITCH, SEV_WAKEUP, SEV_WAKEUP_NEW, SEV_WAKING, SEV_FORK,
	SEV_CGROUP_ATTACH, SEV_CGROUP_TRANSFER,
};

int pf_setup_layout(struct backend *b, const struct trace_req *req,
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

int pf_open_cpu(struct backend *b, struct pcpu *c, char *err, size_t errlen)
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
		perfrec_switch_attr(&a);
		/*
		 * the switches it records carry no names: COMM records (an exec's
		 * new name, a prctl's) keep the names table right at each moment
		 */
		a.comm = 1;
		a.comm_exec = 1;
		/*
		 * the records' forks name a new thread as its parent (its
		 * sched_wakeup_new may be lost where this kernel loses an idle
		 * CPU's events), and follow -- COMMAND where there is no
		 * sched_process_fork tracepoint
		 */
		a.task = 1;
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
