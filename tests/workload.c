// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Workloads with known scheduling behaviour for the live tests.
 *
 *   workload runq CPU NSPIN SPIN_MS
 *     (CPU "any": not pinned, where the scheduler puts them)
 *     NSPIN threads spin SPIN_MS ms each, one thread sleeps 1 ms in a loop,
 *     and one reads /dev/zero in large chunks for SPIN_MS ms (in the
 *     kernel, where cond_resched() lets the spinners preempt it: the R+
 *     switch-outs runqlat.bt does not count), all pinned to CPU. When done each thread blocks; the main
 *     thread then reads every thread's /proc schedstat (run_delay, pcount:
 *     the kernel's own run-queue accounting) and prints them as JSON.
 *   workload sleep N MS [CPU]
 *     one thread sleeps MS ms N times, then blocks; prints its tid.
 *   workload pipe MS [CPU]
 *     one thread blocks MS ms reading a pipe nobody writes, then blocks.
 *
 * With CPU, the thread is pinned there beside a SCHED_IDLE spinner, so
 * the CPU never idles: on the 6.18 development host, switches from an
 * idle CPU's idle task are often not delivered to ftrace or perf, and a
 * test of the tool must not depend on that kernel bug.
 *
 *   workload spin MS
 *     the main thread alone spins MS ms, then exits (an on-CPU workload).
 *   workload wake N MS
 *     a waker thread writes a byte to a pipe every MS ms, N times; a reader
 *     thread blocks reading it each time: the reader's every wakeup is
 *     the waker's (offcpu --wakers). Both then park.
 *   workload stamp [FILE [COMMAND ARGS...]]
 *     writes CLOCK_MONOTONIC in ns (the trace clock "mono") to FILE (or
 *     prints it), then execs COMMAND (or exits): a command's own start
 *     and end, timed by the command's first and last process, for the
 *     critical path's total.
 *   workload dsync N KB FILE
 *     writes KB KiB to FILE with O_DSYNC N times (each waits for the disk),
 *     a line to standard output after each (a pipe's reader waits on it),
 *     then exits; prints to standard error the ns its writes took in all.
 *   workload pingpong N
 *     two threads pinned to CPUs 0 and 1 pass a byte back and forth over
 *     two pipes N times: each wakes the other onto an idle CPU (the
 *     wakeups this host's kernel loses, sched_waking does not). Both park;
 *     each thread's hop_ns is its time from the clock just before the
 *     write that woke it to its read's return, added up (its waits for a
 *     CPU after those wakeups lie inside).
 *
 * Each thread's JSON also has life_ns and life_run_ns: its wall and CPU
 * time from just before its creation to blocking for good.
 *
 * Threads stay blocked until SIGTERM/SIGINT/SIGUSR1, so that nothing they
 * do after their measurement lands in the tracer's window; with
 * WORKLOAD_EXIT set the process exits instead (for -- COMMAND tests).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64

static int cpu = -1;
static long spin_ms, sleep_ms, sleep_n;
static atomic_int spinners_left;
static atomic_int parked;
static pthread_mutex_t park_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cv = PTHREAD_COND_INITIALIZER;	/* never signalled */
static pthread_cond_t main_cv = PTHREAD_COND_INITIALIZER;
static pid_t tids[MAX_THREADS];

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static void pin(void)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("workload: sched_setaffinity");
		exit(1);
	}
}

/*
 * A measured thread's life, from just before its creation to park(): wall
 * time and CPU time (its CPU clock starts at 0), so that the time it was
 * not running is known (life_ns - life_run_ns, the brief's ground truth:
 * wall time minus sum_exec_runtime). That holds its wait for a first CPU
 * too, and any preemption before its function's first step.
 */
static uint64_t born_ns[MAX_THREADS];
static uint64_t life_ns[MAX_THREADS], life_run_ns[MAX_THREADS];
static __thread long self = -1;

/* Measured thread @i: @fn((void *)i) on @th, its life timed from now. */
static void spawn(pthread_t *th, void *(*fn)(void *), long i)
{
	born_ns[i] = now_ns();
	pthread_create(th, NULL, fn, (void *)i);
}

/* A measured thread's first step: who it is. */
static void begin(long i)
{
	self = i;
	tids[i] = (pid_t)syscall(SYS_gettid);
}

/* Block until the process is told to exit (never in the window). */
static void park(void)
{
	if (self >= 0) {
		life_run_ns[self] = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		life_ns[self] = now_ns() - born_ns[self];
	}
	pthread_mutex_lock(&park_mu);
	parked++;
	/* wake only main: a parked thread that ran again would add events */
	pthread_cond_signal(&main_cv);
	for (;;)
		pthread_cond_wait(&park_cv, &park_mu);
}

static void *spinner(void *arg)
{
	uint64_t end;

	begin((long)arg);
	pin();
	end = now_ns() + (uint64_t)spin_ms * 1000000ULL;
	while (now_ns() < end)
		;
	spinners_left--;
	park();
	return NULL;
}

static void *sleeper(void *arg)
{
	struct timespec ts = { 0, 1000000 };

	begin((long)arg);
	/*
	 * nice 19: it rarely preempts a spinner on wakeup, so it waits a
	 * slice. Long waits keep the fixed few-us offset between the sched
	 * tracepoints and schedstat's rq clock small against what is measured.
	 */
	setpriority(PRIO_PROCESS, (id_t)tids[(long)arg], 19);
	pin();
	while (spinners_left > 0)
		nanosleep(&ts, NULL);
	park();
	return NULL;
}

/* Keeps the CPU busy at the lowest priority; never measured. */
static void *idle_spinner(void *arg)
{
	struct sched_param sp = { 0 };

	(void)arg;
	pin();
	sched_setscheduler(0, SCHED_IDLE, &sp);
	for (;;)
		;
	return NULL;
}

static void *zero_reader(void *arg)
{
	static char buf[8 << 20];
	uint64_t end;
	int fd;

	begin((long)arg);
	pin();
	fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	end = now_ns() + (uint64_t)spin_ms * 1000000ULL;
	while (fd >= 0 && now_ns() < end)
		if (read(fd, buf, sizeof(buf)) < 0)
			break;
	if (fd >= 0)
		close(fd);
	park();
	return NULL;
}

static void *timed_sleeper(void *arg)
{
	struct timespec ts = { sleep_ms / 1000, (sleep_ms % 1000) * 1000000L };
	long i;

	begin((long)arg);
	pin();
	for (i = 0; i < sleep_n; i++)
		nanosleep(&ts, NULL);
	park();
	return NULL;
}

static int pipe_fds[2];

void blocked_in_pipe_read(void);
/*
 * The function name live tests look for in user stacks. The read is a raw
 * syscall instruction here, not glibc's read(): glibc is built without
 * frame pointers, and its wrapper would hide this frame from a
 * frame-pointer unwinder.
 */
__attribute__((noinline)) void blocked_in_pipe_read(void)
{
	char c;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_read), "D"((long)pipe_fds[0]), "S"(&c), "d"(1L)
			 : "rcx", "r11", "memory");
	(void)ret;
}

static void *pipe_reader(void *arg)
{
	begin((long)arg);
	pin();
	blocked_in_pipe_read();
	park();
	return NULL;
}

/* workload wake: the waker writes, the reader reads, sleep_n times */
static int wake_fds[2];

static void *wake_reader(void *arg)
{
	char c;
	long i;

	begin((long)arg);
	for (i = 0; i < sleep_n; i++)
		if (read(wake_fds[0], &c, 1) != 1)
			break;
	park();
	return NULL;
}

static void *wake_writer(void *arg)
{
	struct timespec ts = { sleep_ms / 1000, (sleep_ms % 1000) * 1000000L };
	long i;

	begin((long)arg);
	for (i = 0; i < sleep_n; i++) {
		nanosleep(&ts, NULL);
		if (write(wake_fds[1], "x", 1) != 1)
			break;
	}
	park();
	return NULL;
}

/* workload pingpong: thread 0 on CPU 0 serves, thread 1 on CPU 1 returns */
static int ping_fds[2], pong_fds[2];

static void pin_to(int c)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(c, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("workload: sched_setaffinity");
		exit(1);
	}
}

/*
 * pingpong: the clock just before each write that wakes thread i, and
 * i's sum from there to its read's return: every run-queue wait of its
 * wakeups lies inside, a bound no tracer's wait can exceed
 */
static _Atomic uint64_t hop_stamp[2];
static uint64_t hop_ns[MAX_THREADS];

static void *ping(void *arg)
{
	long i, me = (long)arg;
	int in = me == 0 ? pong_fds[0] : ping_fds[0], out = me == 0 ? ping_fds[1] : pong_fds[1];
	char c = 'x';

	tids[me] = (pid_t)syscall(SYS_gettid);
	pin_to((int)me);
	for (i = 0; i < sleep_n; i++) {
		if (me == 0) {
			atomic_store(&hop_stamp[1], now_ns());
			if (write(out, &c, 1) != 1)
				break;
		}
		if (read(in, &c, 1) != 1)
			break;
		hop_ns[me] += now_ns() - atomic_load(&hop_stamp[me]);
		if (me == 1) {
			atomic_store(&hop_stamp[0], now_ns());
			if (write(out, &c, 1) != 1)
				break;
		}
	}
	park();
	return NULL;
}

static void wait_parked(int n)
{
	pthread_mutex_lock(&park_mu);
	while (parked < n)
		pthread_cond_wait(&main_cv, &park_mu);
	pthread_mutex_unlock(&park_mu);
}

/*
 * A thread counted as parked can still be running or preempted on its
 * way into the futex wait (main's wakeup can preempt it there, and its
 * run_delay grows while main reads): wait until the kernel shows it
 * sleeping, so the schedstat read after this is its last.
 */
static void wait_asleep(pid_t tid)
{
	struct timespec ms = { 0, 1000000 };
	int tries;

	for (tries = 0; tries < 2000; tries++) {
		char path[96], buf[512], *rp;
		FILE *f;
		size_t len;

		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
		f = fopen(path, "r");
		if (!f)
			return;
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = 0;
		rp = strrchr(buf, ')');
		if (!rp || (rp[1] == ' ' && (rp[2] == 'S' || rp[2] == 'D')))
			return;
		nanosleep(&ms, NULL);
	}
}

static void wait_exit_signal(void)
{
	sigset_t set;
	int sig;

	if (getenv("WORKLOAD_EXIT")) {
		/*
		 * WORKLOAD_LINGER_MS: stay that long with every thread parked
		 * first, so a sampler (the proc backend) sees the final counts
		 * of threads that exit with the process
		 */
		const char *l = getenv("WORKLOAD_LINGER_MS");
		long ms = l ? strtol(l, NULL, 10) : 0;
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		if (ms > 0)
			nanosleep(&ts, NULL);
		exit(0);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigwait(&set, &sig);
	exit(0);
}

/* workload dsync N KB FILE: a writer whose reader waits on its disk */
static int dsync_writer(long n, long kb, const char *path)
{
	size_t len = (size_t)kb * 1024;
	char *buf = calloc(1, len ? len : 1);
	uint64_t spent = 0;
	long i;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DSYNC, 0600);

	if (fd < 0 || !buf) {
		perror("workload: dsync");
		return 1;
	}
	for (i = 0; i < n; i++) {
		uint64_t t0 = now_ns();

		if (write(fd, buf, len) != (ssize_t)len) {
			perror("workload: dsync write");
			return 1;
		}
		spent += now_ns() - t0;
		printf("%ld\n", i);
		fflush(stdout);
	}
	close(fd);
	free(buf);
	fprintf(stderr, "%llu\n", (unsigned long long)spent);
	return 0;
}

/* workload stamp [FILE [COMMAND ARGS...]]: the clock now, then the command */
static int stamp(int argc, char **argv)
{
	unsigned long long t = (unsigned long long)now_ns();
	FILE *f = argc > 2 ? fopen(argv[2], "w") : stdout;

	if (!f || fprintf(f, "%llu\n", t) < 0 || fflush(f)) {
		perror("workload: stamp");
		return 1;
	}
	if (argc > 3) {
		fclose(f);
		execvp(argv[3], argv + 3);
		perror("workload: stamp: exec");
		return 127;
	}
	return 0;
}

static long arg_long(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0) {
		fprintf(stderr, "workload: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	sigset_t set;
	long i, n = 0;

	/* before the signals are blocked: the command it execs gets them as they were */
	if (argc >= 2 && !strcmp(argv[1], "stamp"))
		return stamp(argc, argv);
	/* signals are taken by sigwait() in main only */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	if (argc == 5 && !strcmp(argv[1], "dsync")) {
		return dsync_writer(arg_long(argv[2]), arg_long(argv[3]), argv[4]);
	} else if (argc == 3 && !strcmp(argv[1], "spin")) {
		uint64_t end = now_ns() + (uint64_t)arg_long(argv[2]) * 1000000ULL;

		while (now_ns() < end)
			;
		return 0;
	} else if (argc == 5 && !strcmp(argv[1], "runq")) {
		cpu = strcmp(argv[2], "any") ? (int)arg_long(argv[2]) : -1;
		n = arg_long(argv[3]);
		spin_ms = arg_long(argv[4]);
		if (n < 1 || n + 2 > MAX_THREADS)
			return 2;
		spinners_left = (int)n;
		for (i = 0; i < n; i++)
			spawn(&th[i], spinner, i);
		spawn(&th[n], sleeper, n);
		n++;
		spawn(&th[n], zero_reader, n);
		n++;
	} else if ((argc == 4 || argc == 5) && !strcmp(argv[1], "sleep")) {
		sleep_n = arg_long(argv[2]);
		sleep_ms = arg_long(argv[3]);
		if (argc == 5) {
			cpu = (int)arg_long(argv[4]);
			pthread_create(&th[1], NULL, idle_spinner, NULL);
		}
		spawn(&th[0], timed_sleeper, 0);
		n = 1;
	} else if ((argc == 3 || argc == 4) && !strcmp(argv[1], "pipe")) {
		if (pipe(pipe_fds))
			return 1;
		sleep_ms = arg_long(argv[2]);
		if (argc == 4) {
			cpu = (int)arg_long(argv[3]);
			pthread_create(&th[1], NULL, idle_spinner, NULL);
		}
		spawn(&th[0], pipe_reader, 0);
		n = 1;
		/* let the reader block, then wake it by writing after MS ms */
		{
			struct timespec ts = { sleep_ms / 1000, (sleep_ms % 1000) * 1000000L };

			nanosleep(&ts, NULL);
			if (write(pipe_fds[1], "x", 1) != 1)
				return 1;
		}
	} else if (argc == 4 && !strcmp(argv[1], "wake")) {
		sleep_n = arg_long(argv[2]);
		sleep_ms = arg_long(argv[3]);
		if (pipe(wake_fds))
			return 1;
		spawn(&th[0], wake_reader, 0);
		spawn(&th[1], wake_writer, 1);
		n = 2;
	} else if (argc == 3 && !strcmp(argv[1], "pingpong")) {
		sleep_n = arg_long(argv[2]);
		if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || pipe(ping_fds) || pipe(pong_fds))
			return 2;
		spawn(&th[1], ping, 1);
		spawn(&th[0], ping, 0);
		n = 2;
	} else {
		fprintf(stderr, "usage: workload runq CPU NSPIN SPIN_MS | sleep N MS [CPU] | "
			"pipe MS [CPU] | wake N MS | pingpong N | spin MS | stamp [FILE [COMMAND]] | "
			"dsync N KB FILE\n");
		return 2;
	}
	wait_parked((int)n);
	for (i = 0; i < n; i++)
		wait_asleep(tids[i]);
	/* every thread is blocked now: its schedstat is final */
	printf("{\"pid\":%d,\"threads\":[", (int)getpid());
	for (i = 0; i < n; i++) {
		char path[96];
		unsigned long long run = 0, delay = 0, pcount = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tids[i]);
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%llu %llu %llu", &run, &delay, &pcount) != 3)
				delay = pcount = 0;
			fclose(f);
		}
		printf("%s{\"tid\":%d,\"run_ns\":%llu,\"run_delay_ns\":%llu,\"pcount\":%llu,"
		       "\"hop_ns\":%llu,\"life_ns\":%llu,\"life_run_ns\":%llu}", i ? "," : "",
		       tids[i], run, delay, pcount, (unsigned long long)hop_ns[i],
		       (unsigned long long)life_ns[i], (unsigned long long)life_run_ns[i]);
	}
	printf("]}\n");
	fflush(stdout);
	wait_exit_signal();
	return 0;
}
