// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Does this kernel record every context switch at the sched_switch
 * tracepoint? A short probe: on every online CPU, a counting group of the
 * scheduler's own context-switch counter (PERF_COUNT_SW_CONTEXT_SWITCHES,
 * counted in perf_event_task_sched_out for every switch) and the
 * sched_switch tracepoint, while one thread per CPU, pinned there, sleeps
 * 5 ms four times, so that each CPU goes idle and comes back. Where the
 * kernel loses tracepoint hits of an idle CPU (seen on a patched 6.18),
 * the tracepoint counts fewer than the counter. Counting only: no rings.
 *
 * On a busy host a CPU may not idle at all in the probe (another task runs
 * while the sleeper sleeps), and then the hits such a kernel loses had no
 * chance to occur: a third member counts the switches to the idle task
 * (the tracepoint filtered to next_pid == 0, recorded on any kernel: their
 * prev is not idle). A CPU with fewer than two (the sleeper's exit is
 * one, with no way back from idle in the probe) says nothing, and no
 * losses with such a CPU is DROPS_BUSY, not DROPS_NONE. A kernel that
 * refuses the filter answers as before the third member (NONE).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "dropprobe.h"

#define PROBE_SLEEPS 4
/*
 * Long enough for an idle CPU to go into the idle state whose wakeups the
 * patched 6.18 loses: with 1 ms sleeps it showed in 5 of 12 probes on CPU
 * 1, with 5 ms in 42 of 42, so auto no longer flips between backends.
 */
#define PROBE_SLEEP_NS 5000000L

struct sleeper {
	int cpu;
	pthread_t th;
	bool started;
};

static long perf_open(struct perf_event_attr *a, int cpu, int group)
{
	return syscall(SYS_perf_event_open, a, -1, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

static void *sleeper_main(void *arg)
{
	struct sleeper *s = arg;
	struct timespec ts = { 0, PROBE_SLEEP_NS };
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return NULL;
	for (i = 0; i < PROBE_SLEEPS; i++)
		nanosleep(&ts, NULL);
	return NULL;
}

/* The sched_switch event id from its tracefs id file, or -1. */
static long switch_id(const char *tracefs)
{
	char path[4200];
	long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", tracefs);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

/*
 * Open CPU @cpu's group (leader: the counter; the tracepoint; the
 * tracepoint's switches to idle, fd[2] -1 where the kernel refuses the
 * filter); 0 or a negative errno.
 */
static int open_group(int cpu, long id, int fd[3])
{
	struct perf_event_attr a;
	long l, m, k;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	a.disabled = 1;
	a.read_format = PERF_FORMAT_GROUP;
	l = perf_open(&a, cpu, -1);
	if (l < 0)
		return -errno;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)id;
	a.read_format = PERF_FORMAT_GROUP;
	m = perf_open(&a, cpu, (int)l);
	if (m < 0) {
		int ret = -errno;

		close((int)l);
		return ret;
	}
	k = perf_open(&a, cpu, (int)l);
	if (k >= 0 && ioctl((int)k, PERF_EVENT_IOC_SET_FILTER, "next_pid == 0")) {
		close((int)k);
		k = -1;
	}
	fd[0] = (int)l;
	fd[1] = (int)m;
	fd[2] = k < 0 ? -1 : (int)k;
	return 0;
}

/* What CPU @i's group counted, into @p's next entry; false if unreadable. */
static bool read_group(struct drop_probe *p, unsigned i, const int fd[3])
{
	struct {
		uint64_t nr, v[3];
	} r;
	ssize_t want = (ssize_t)(sizeof(uint64_t) * (fd[2] >= 0 ? 4 : 3));

	memset(&r, 0, sizeof(r));
	ioctl(fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	if (read(fd[0], &r, sizeof(r)) != want || r.nr != (fd[2] >= 0 ? 3u : 2u))
		return false;
	p->cpu[p->ncpu].cpu = (int)i;
	p->cpu[p->ncpu].switches = r.v[0];
	p->cpu[p->ncpu].recorded = r.v[1];
	p->cpu[p->ncpu].to_idle = fd[2] >= 0 ? (int64_t)r.v[2] : -1;
	p->switches += r.v[0];
	p->recorded += r.v[1];
	/* a couple of hits apart is the enable racing a switch */
	if (r.v[0] > r.v[1] + 1)
		p->cpu[p->ncpu].drops = true;
	p->ncpu++;
	return true;
}

enum drop_result drop_probe_verdict(const struct drop_probe *p)
{
	bool busy = false;
	unsigned i;

	if (p->switches < (uint64_t)PROBE_SLEEPS)
		return DROPS_UNKNOWN;
	for (i = 0; i < p->ncpu; i++) {
		if (p->cpu[i].drops)
			return DROPS_SEEN;
		/*
		 * idled and came back at least once: two switches to idle (the
		 * sleeper's exit alone is one, with no way back in the probe)
		 */
		if (p->cpu[i].to_idle >= 0 && p->cpu[i].to_idle < 2)
			busy = true;
	}
	return busy ? DROPS_BUSY : DROPS_NONE;
}

int drop_probe_run(const char *tracefs, struct drop_probe *p)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN), id = switch_id(tracefs);
	int (*fd)[3] = NULL;
	struct sleeper *sl = NULL;
	unsigned i, ncpu;
	cpu_set_t online;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	p->result = DROPS_UNKNOWN;
	if (id < 0)
		return -ENOENT;
	if (sched_getaffinity(0, sizeof(online), &online))
		CPU_ZERO(&online);
	ncpu = n > 0 ? (unsigned)n : 1;
	if (ncpu > DROP_PROBE_CPUS)
		ncpu = DROP_PROBE_CPUS;
	fd = calloc(ncpu, sizeof(*fd));
	sl = calloc(ncpu, sizeof(*sl));
	/* every fd -1 before any can be opened: the cleanup closes what is not */
	for (i = 0; fd && i < ncpu; i++)
		fd[i][0] = fd[i][1] = fd[i][2] = -1;
	if (!fd || !sl) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ncpu; i++) {
		sl[i].cpu = (int)i;
		/* a CPU we may not run on (cpuset) cannot be probed */
		if (!CPU_ISSET(i, &online))
			continue;
		ret = open_group((int)i, id, fd[i]);
		if (ret == -ENODEV) {	/* offline */
			ret = 0;
			continue;
		}
		if (ret)
			goto out;
	}
	for (i = 0; i < ncpu; i++)
		if (fd[i][0] >= 0)
			ioctl(fd[i][0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	for (i = 0; i < ncpu; i++)
		if (fd[i][0] >= 0)
			sl[i].started = pthread_create(&sl[i].th, NULL, sleeper_main, &sl[i]) == 0;
	for (i = 0; i < ncpu; i++)
		if (sl[i].started)
			pthread_join(sl[i].th, NULL);
	for (i = 0; i < ncpu; i++)
		if (fd[i][0] >= 0)
			read_group(p, i, fd[i]);
	p->result = drop_probe_verdict(p);
out:
	for (i = 0; fd && i < ncpu; i++) {
		if (fd[i][2] >= 0)
			close(fd[i][2]);
		if (fd[i][1] >= 0)
			close(fd[i][1]);
		if (fd[i][0] >= 0)
			close(fd[i][0]);
	}
	free(fd);
	free(sl);
	return ret;
}

void drop_probe_cpus(const struct drop_probe *p, char *buf, size_t len)
{
	size_t off = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < p->ncpu && off + 1 < len; i++) {
		int n;

		if (!p->cpu[i].drops)
			continue;
		n = snprintf(buf + off, len - off, "%s%d", off ? "," : "", p->cpu[i].cpu);
		if (n < 0)
			break;
		off += (size_t)n;
	}
}
