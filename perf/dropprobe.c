// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Does this kernel record every context switch at the sched_switch
 * tracepoint? A bounded probe: on every online CPU, a counting group of the
 * scheduler's own context-switch counter (PERF_COUNT_SW_CONTEXT_SWITCHES,
 * counted in perf_event_task_sched_out for every switch) and the
 * sched_switch tracepoint, while one thread per CPU, pinned there, sleeps
 * 5 ms at a time, so that each CPU goes idle and comes back. Where the
 * kernel loses tracepoint hits of an idle CPU (seen on a patched 6.18),
 * the tracepoint counts fewer than the counter. Counting only: no rings.
 *
 * How long: until a CPU shows a loss, or @max_ms. Both counts of a switch
 * are made in one stretch of the scheduler with interrupts off, and a
 * group is read on its CPU (an IPI), so a read never splits a switch: the
 * counts are read once when the groups are enabled and every 10 ms after,
 * and any switch the tracepoint lacks since the first read is a loss,
 * seen as soon as it happens. On the development host the losses come a
 * few times a second per CPU at idle and not at all for seconds at other
 * times: a 20 ms probe saw them in 1 of 6 runs there, which is why the
 * answer is also kept for the boot (src/host/kfacts.c) once seen.
 *
 * On a busy host a CPU may not idle at all in the probe (another task runs
 * while the sleeper sleeps), and then the hits such a kernel loses had no
 * chance to occur: a third member counts the switches to the idle task
 * (the tracepoint filtered to next_pid == 0, recorded on any kernel: their
 * prev is not idle). A CPU with fewer than two says nothing, and no
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
#include "perfrec.h"

/* fewer switches than this in all says nothing (the sleepers' alone are more) */
#define PROBE_MIN_SWITCHES 4
/*
 * Long enough for an idle CPU to go into the idle state whose wakeups the
 * patched 6.18 loses: with 1 ms sleeps it showed in 5 of 12 short probes
 * on CPU 1 of an earlier host, with 5 ms in 42 of 42.
 */
#define PROBE_SLEEP_NS 5000000L
#define PROBE_READ_MS 10	/* how often the counts are read */
#define PROBE_MIN_MS 20		/* every probe: four of the sleepers' sleeps */

struct sleeper {
	int cpu;
	pthread_t th;
	bool started;
	volatile int *stop;
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

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return NULL;
	while (!__atomic_load_n(s->stop, __ATOMIC_RELAXED))
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

/* A group's counts now (switches, hits, hits to idle or UINT64_MAX); false if unreadable. */
static bool read_counts(const int fd[3], uint64_t v[3])
{
	struct {
		uint64_t nr, v[3];
	} r;
	ssize_t want = (ssize_t)(sizeof(uint64_t) * (fd[2] >= 0 ? 4 : 3));

	memset(&r, 0, sizeof(r));
	if (read(fd[0], &r, sizeof(r)) != want || r.nr != (fd[2] >= 0 ? 3u : 2u))
		return false;
	v[0] = r.v[0];
	v[1] = r.v[1];
	v[2] = fd[2] >= 0 ? r.v[2] : UINT64_MAX;
	return true;
}

void drop_probe_add(struct drop_probe *p, int cpu, const uint64_t base[3],
		    const uint64_t now[3])
{
	unsigned k = p->ncpu;

	if (k >= DROP_PROBE_CPUS)
		return;
	p->cpu[k].cpu = cpu;
	p->cpu[k].switches = now[0] - base[0];
	p->cpu[k].recorded = now[1] - base[1];
	p->cpu[k].to_idle = now[2] == UINT64_MAX ? -1 : (int64_t)(now[2] - base[2]);
	/* a read never splits a switch's two counts: any shortfall is a loss */
	p->cpu[k].drops = p->cpu[k].switches > p->cpu[k].recorded;
	p->switches += p->cpu[k].switches;
	p->recorded += p->cpu[k].recorded;
	p->ncpu++;
}

enum drop_result drop_probe_verdict(const struct drop_probe *p)
{
	bool busy = false;
	unsigned i;

	if (p->switches < (uint64_t)PROBE_MIN_SWITCHES)
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

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Read every open group (@base: the counts at the first read) into @p;
 * true when some CPU lost a hit since. A CPU whose group cannot be read
 * is left out.
 */
static bool probe_read(struct drop_probe *p, unsigned ncpu, int (*fd)[3], uint64_t (*base)[3],
		       bool *based)
{
	uint64_t v[3];
	unsigned i;
	bool seen = false;

	p->ncpu = 0;
	p->switches = p->recorded = 0;
	for (i = 0; i < ncpu; i++) {
		if (fd[i][0] < 0 || !read_counts(fd[i], v))
			continue;
		if (!based[i]) {
			memcpy(base[i], v, sizeof(v));
			based[i] = true;
		}
		drop_probe_add(p, (int)i, base[i], v);
		seen |= p->cpu[p->ncpu - 1].drops;
	}
	return seen;
}

/* Count on the open groups while the sleepers run: until a loss, or @max_ms. */
static void probe_watch(struct drop_probe *p, unsigned ncpu, int (*fd)[3], unsigned max_ms)
{
	uint64_t (*base)[3] = calloc(ncpu, sizeof(*base));
	bool *based = calloc(ncpu, sizeof(*based));
	struct timespec tick = { 0, PROBE_READ_MS * 1000000L };
	uint64_t t0 = now_ms(), t;
	unsigned i;

	if (!base || !based)
		goto out;
	for (i = 0; i < ncpu; i++)
		if (fd[i][0] >= 0)
			ioctl(fd[i][0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	probe_read(p, ncpu, fd, base, based);
	for (;;) {
		nanosleep(&tick, NULL);
		t = now_ms() - t0;
		if (probe_read(p, ncpu, fd, base, based) && t >= PROBE_MIN_MS)
			break;
		if (t >= max_ms || t >= DROP_PROBE_MAX_MS)
			break;
	}
	for (i = 0; i < ncpu; i++)
		if (fd[i][0] >= 0)
			ioctl(fd[i][0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	probe_read(p, ncpu, fd, base, based);
	p->ms = (unsigned)(now_ms() - t0);
out:
	free(base);
	free(based);
}

int drop_probe_run(const char *tracefs, unsigned max_ms, struct drop_probe *p)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN), id = switch_id(tracefs);
	int (*fd)[3] = NULL;
	struct sleeper *sl = NULL;
	volatile int stop = 0;
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
		sl[i].stop = &stop;
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
			sl[i].started = pthread_create(&sl[i].th, NULL, sleeper_main, &sl[i]) == 0;
	probe_watch(p, ncpu, fd, max_ms < PROBE_MIN_MS ? PROBE_MIN_MS : max_ms);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < ncpu; i++)
		if (sl[i].started)
			pthread_join(sl[i].th, NULL);
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

/*
 * Can this process open perf's context-switch records on every CPU? The
 * capabilities say what the kernel would allow; a container's seccomp
 * profile may still refuse the call (podman's default allows
 * perf_event_open only with CAP_SYS_ADMIN), so the answer is one real
 * open of a CPU-wide dummy event, closed at once.
 */
int perf_switch_probe(char *why, size_t len)
{
	struct perf_event_attr a;
	long fd, cpu = sched_getcpu();
	int e;

	perfrec_switch_attr(&a);
	fd = perf_open(&a, cpu < 0 ? 0 : (int)cpu, -1);
	if (fd >= 0) {
		close((int)fd);
		if (len)
			why[0] = '\0';
		return 0;
	}
	e = errno;
	if (e == ENOSYS)
		snprintf(why, len, "perf_event_open is refused (ENOSYS): a seccomp profile "
			 "blocks it, or the kernel has no perf events (CONFIG_PERF_EVENTS)");
	else if (e == EINVAL)
		snprintf(why, len, "this kernel has no context-switch records (4.3 and later)");
	else
		snprintf(why, len, "perf_event_open of a CPU-wide event refused: %s", strerror(e));
	return -e;
}
