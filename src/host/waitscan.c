// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * waits: one snapshot (waitscan.h). The processes in /proc, the scope's
 * threads read one by one, what each waits on (waitres.c), the holders
 * followed until none is new, how long each thread has been in its state,
 * and the wait-for graph.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileread.h"
#include "grow.h"
#include "mounts.h"
#include "procfs.h"
#include "timeutil.h"
#include "waitscan_local.h"

#define PF_KTHREAD 0x00200000	/* include/linux/sched.h: a kernel thread */

const char *wkind_name(enum wkind k)
{
	static const char *const names[] = {
		[WK_PIPE] = "pipe", [WK_FIFO] = "fifo", [WK_UNIX] = "unix", [WK_TCP] = "tcp",
		[WK_SOCKET] = "socket", [WK_TTY] = "tty", [WK_FD] = "fd", [WK_CHILD] = "child",
		[WK_LOCK] = "lock", [WK_FUTEX] = "futex", [WK_IO] = "io", [WK_TIMER] = "timer",
		[WK_SIGNAL] = "signal", [WK_STOPPED] = "stopped", [WK_TRACER] = "tracer",
		[WK_REAP] = "reap", [WK_UNKNOWN] = "unknown",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "unknown";
}

struct wproc *wctx_proc(const struct wctx *c, int32_t pid)
{
	size_t lo = 0, hi = c->np;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->procs[mid].pid == pid)
			return &c->procs[mid];
		if (c->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int wctx_follow(struct wctx *c, int32_t pid)
{
	struct wproc *p = wctx_proc(c, pid);
	int32_t *q;

	if (!p || p->queued)
		return 0;
	q = mem_grow(c->queue, &c->qcap, c->nq, sizeof(*q));
	if (!q)
		return -ENOMEM;
	c->queue = q;
	q[c->nq++] = pid;
	p->queued = true;
	return 0;
}

void wctx_note(struct wctx *c, const char *fmt, ...)
{
	struct wsnap *s = c->s;
	char buf[sizeof(s->notes[0])];
	va_list ap;
	unsigned i;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (i = 0; i < s->nnotes; i++)
		if (!strcmp(s->notes[i], buf))
			return;
	if (s->nnotes < sizeof(s->notes) / sizeof(s->notes[0]))
		memcpy(s->notes[s->nnotes++], buf, sizeof(buf));
}

struct wwait *wthread_wait(struct wthread *t, enum wkind k, const char *source)
{
	struct wwait *w = mem_grow(t->w, &t->wcap, t->nw, sizeof(*w));

	if (!w)
		return NULL;
	t->w = w;
	w = &t->w[t->nw++];
	memset(w, 0, sizeof(*w));
	w->kind = k;
	w->source = source;
	return w;
}

void wwait_object(struct wwait *w, const char *s)
{
	size_t n = strlen(s), room = sizeof(w->object) - 1;

	if (n <= room)
		memcpy(w->object, s, n + 1);
	else
		snprintf(w->object, sizeof(w->object), "%.*s...", (int)(room - 3), s);
}

void wthread_wakes(struct wthread *t, const char *fmt, ...)
{
	size_t n = strlen(t->wakes);
	va_list ap;

	if (n + 3 >= sizeof(t->wakes))
		return;
	if (n)
		n += (size_t)snprintf(t->wakes + n, sizeof(t->wakes) - n, "; ");
	va_start(ap, fmt);
	vsnprintf(t->wakes + n, sizeof(t->wakes) - n, fmt, ap);
	va_end(ap);
}

struct wholder *wctx_holder(struct wctx *c, struct wwait *w, int32_t pid, const char *role,
			    int fd, bool blocks)
{
	struct wholder *h;
	size_t i;

	if (wctx_follow(c, pid))
		return NULL;
	/* a process holding the object twice is one holder */
	for (i = 0; i < w->nh; i++)
		if (w->h[i].pid == pid && !w->h[i].want_tid && !strcmp(w->h[i].role, role))
			return &w->h[i];
	h = mem_grow(w->h, &w->hcap, w->nh, sizeof(*h));
	if (!h)
		return NULL;
	w->h = h;
	h = &w->h[w->nh++];
	memset(h, 0, sizeof(*h));
	h->pid = pid;
	h->role = role;
	h->fd = fd;
	h->blocks = blocks;
	h->state = '?';
	return h;
}

/* may process @pid's memory be read without waiting behind a thread of it in D? */
static bool mem_safe(const struct wctx *c, int32_t pid)
{
	size_t i;

	for (i = 0; i < c->s->n; i++) {
		const struct wthread *t = &c->s->t[i];

		if (t->pid == pid && t->state == 'D' && (!t->kstack[0] || wparse_frames_mm(t->kstack)))
			return false;
	}
	return true;
}

const char *wmem_strerror(int err)
{
	if (err == -EDEADLK)
		return "not read: a thread of it is in D state, perhaps holding its memory map "
		       "lock (a read would wait behind it)";
	return strerror(-err);
}

int wmem_read(struct wctx *c, int32_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n;

	if (!mem_safe(c, pid))
		return -EDEADLK;
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

int wmem_read_str(struct wctx *c, int32_t pid, uint64_t addr, char *buf, size_t len)
{
	/* split at the page end: a read into an unmapped page stops there */
	size_t first = 4096 - (size_t)(addr % 4096);
	struct iovec local = { .iov_base = buf, .iov_len = len - 1 };
	struct iovec remote[2] = {
		{ .iov_base = (void *)(uintptr_t)addr,
		  .iov_len = first < len - 1 ? first : len - 1 },
		{ .iov_base = (void *)(uintptr_t)(addr + first),
		  .iov_len = first < len - 1 ? len - 1 - first : 0 },
	};
	ssize_t n;

	if (!mem_safe(c, pid))
		return -EDEADLK;
	n = process_vm_readv(pid, &local, 1, remote, remote[1].iov_len ? 2 : 1, 0);
	if (n <= 0)
		return n ? -errno : -EFAULT;
	buf[n] = '\0';
	/* all of it and no NUL in it: cut, not the whole string */
	if ((size_t)n == len - 1 && !memchr(buf, '\0', (size_t)n))
		return -ENAMETOOLONG;
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct wproc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Every process in /proc: its name, state and parent (stat). */
static int procs_load(struct wctx *c)
{
	int32_t *pids = NULL;
	int n = proc_pids(&pids), i;

	if (n < 0)
		return n;
	c->procs = calloc((size_t)n + 1, sizeof(*c->procs));
	if (!c->procs) {
		free(pids);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct wproc *p = &c->procs[c->np];
		unsigned long long v[PROC_STAT_NFIELDS];
		char path[64], buf[1024];

		snprintf(path, sizeof(path), "/proc/%d/stat", pids[i]);
		if (file_read_buf(path, buf, sizeof(buf)) <= 0 ||
		    proc_stat_split(buf, p->comm, sizeof(p->comm), &p->state, v))
			continue;	/* gone */
		p->pid = pids[i];
		p->ppid = (int32_t)v[0];
		p->pgrp = (int32_t)v[1];
		p->kthread = v[5] & PF_KTHREAD;	/* field 9, the flags */
		c->np++;
	}
	free(pids);
	if (c->np)	/* qsort of NULL, 0: undefined */
		qsort(c->procs, c->np, sizeof(*c->procs), cmp_proc);
	return 0;
}

/* its real uid (status "Uid:"), read when the scope asks for a user's processes */
static bool proc_uid(struct wproc *p, uid_t *uid)
{
	char path[64], buf[4096];
	uint64_t v;
	ssize_t n;

	if (!p->have_uid) {
		snprintf(path, sizeof(path), "/proc/%d/status", p->pid);
		n = file_read_buf(path, buf, sizeof(buf));
		if (n <= 0 || wparse_status(buf, (size_t)n, "Uid", 10, &v, 1) != 1 ||
		    v > UINT32_MAX)
			return false;
		p->uid = (uid_t)v;
		p->have_uid = true;
	}
	*uid = p->uid;
	return true;
}

/* is @p @root or one of its descendants (by their parents, as far as they go) */
static bool in_tree(const struct wctx *c, const struct wproc *p, int32_t root)
{
	unsigned depth;

	for (depth = 0; p && depth < 4096; depth++) {
		if (p->pid == root)
			return true;
		if (p->ppid <= 0 || p->ppid == p->pid)
			return false;
		p = wctx_proc(c, p->ppid);
	}
	return false;
}

static int scope_select(struct wctx *c)
{
	const struct wscope *sc = c->sc;
	size_t i, k;
	int ret;

	for (i = 0; i < c->np; i++) {
		struct wproc *p = &c->procs[i];
		bool want = false;
		uid_t uid;

		if (!sc->npids && p->pid == getpid())
			continue;	/* this process, reading, unless it is asked for */
		if (sc->npids) {
			for (k = 0; k < sc->npids && !want; k++)
				want = sc->pids[k] == p->pid;
		} else if (sc->tree > 0) {
			want = in_tree(c, p, sc->tree);
		} else {
			want = sc->all || (proc_uid(p, &uid) && uid == sc->uid);
		}
		if (!want)
			continue;
		p->target = true;
		ret = wctx_follow(c, p->pid);
		if (ret)
			return ret;
	}
	c->s->ntargets = c->nq;
	/* a user with no process (but this one) is an empty answer; gone PIDs are not */
	return c->nq || (!sc->npids && sc->tree <= 0) ? 0 : -ESRCH;
}

/*
 * Is process @pid of another word size than this one (a 32-bit program on
 * a 64-bit kernel: its syscall numbers differ)? From its auxv, the
 * kernel's copy: its executable is not opened (it may sit on a dead NFS
 * server).
 */
static bool proc_foreign_abi(int32_t pid)
{
	char path[64], buf[1024];
	ssize_t n;
	int bits;

	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	n = file_read_buf(path, buf, sizeof(buf));
	if (n <= 0)
		return false;	/* a kernel thread, or not readable: nothing to decode anyway */
	bits = wparse_auxv_bits(buf, (size_t)n);
	return bits && bits != (int)(sizeof(long) * 8);
}

/*
 * Why the files ptrace access guards (syscall, fd/, and wchan, which reads
 * 0 then) of process @p are refused to this process: another user's, or
 * the ptrace rules (Yama's ptrace_scope, a process that is not dumpable).
 */
static const char *refusal(struct wproc *p)
{
	uid_t uid;

	if (geteuid() == 0)
		return WSCAN_DENIED_ROOT;
	if (p && proc_uid(p, &uid) && uid == getuid())
		return WSCAN_DENIED_PTRACE;
	return WSCAN_DENIED_USER;
}

/* wchan and syscall of thread @t (@dir: /proc/PID/task/TID); @denied: why, if refused */
static void thread_wchan_sys(struct wthread *t, const char *dir, bool foreign, const char *denied)
{
	char path[128], buf[512];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/syscall", dir);
	n = file_read_buf(path, buf, sizeof(buf));
	if (n == -EACCES || n == -EPERM)
		snprintf(t->sys_why, sizeof(t->sys_why), "%s", denied);
	else if (n < 0)
		snprintf(t->sys_why, sizeof(t->sys_why), "%s", strerror((int)-n));
	else if (foreign)
		snprintf(t->sys_why, sizeof(t->sys_why),
			 "a process of another word size: its syscall numbers are not decoded");
	else if (wparse_syscall(buf, (size_t)n, &t->sys))
		snprintf(t->sys_why, sizeof(t->sys_why), "unexpected text in %.60s", path);
	else
		t->have_sys = true;

	snprintf(path, sizeof(path), "%s/wchan", dir);
	n = file_read_buf(path, buf, sizeof(buf));
	if (n > 0 && strcmp(buf, "0")) {
		snprintf(t->wchan, sizeof(t->wchan), "%.63s", buf);
		return;
	}
	/* "0": running, or no ptrace access (the kernel hides it then) */
	if (t->state == 'R')
		snprintf(t->wchan_why, sizeof(t->wchan_why), "runnable: no wait channel");
	else if (!strcmp(t->sys_why, denied))
		snprintf(t->wchan_why, sizeof(t->wchan_why), "reads 0: %s", denied);
	else if (n < 0)
		snprintf(t->wchan_why, sizeof(t->wchan_why), "%s", strerror((int)-n));
	else
		snprintf(t->wchan_why, sizeof(t->wchan_why), "reads 0");
}

/* the kernel stack and the class of wait it and wchan name */
static void thread_stack(struct wthread *t, const char *dir)
{
	char path[128];
	size_t len = 0;
	char *text;

	snprintf(path, sizeof(path), "%s/stack", dir);
	text = file_read_max(path, 64 << 10, &len);
	if (!text && (errno == EACCES || errno == EPERM) && geteuid() == 0) {
		/* root without the capability it takes, or a lockdown: not "needs root" */
		snprintf(t->kstack_why, sizeof(t->kstack_why), "%s%s", WSCAN_STACK_REFUSED,
			 strerror(errno));
	} else if (!text) {
		snprintf(t->kstack_why, sizeof(t->kstack_why), "%s",
			 errno == EACCES || errno == EPERM ? WSCAN_STACK_ROOT :
			 errno == ENOENT ? "no /proc/TID/stack here (CONFIG_STACKTRACE)" :
			 strerror(errno));
	} else {
		enum wclass sc = wparse_stack_class(text, len, t->kstack, sizeof(t->kstack), 12);

		if (!t->kstack[0])
			snprintf(t->kstack_why, sizeof(t->kstack_why), "empty (running)");
		if (t->cls == WC_NONE || (t->state == 'D' && sc != WC_NONE))
			t->cls = sc;
	}
	free(text);
}

/* thread @tid of process @pid: state, CPU, scheduler counters, wchan, syscall, stack */
static int thread_read(struct wthread *t, int32_t pid, int32_t tid, bool foreign,
		       const char *denied)
{
	char dir[64], path[128], buf[4096];
	uint64_t delay;
	long long cpu;
	ssize_t n;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->cpu = -1;
	snprintf(dir, sizeof(dir), "/proc/%d/task/%d", pid, tid);
	snprintf(path, sizeof(path), "%s/stat", dir);
	{
		unsigned long long v[PROC_STAT_NFIELDS];

		if (file_read_buf(path, buf, sizeof(buf)) <= 0 ||
		    proc_stat_split(buf, t->comm, sizeof(t->comm), &t->state, v))
			return -ESRCH;
		t->ppid = (int32_t)v[0];
		t->kthread = v[5] & PF_KTHREAD;
	}
	if (!proc_stat_field(buf, 39, &cpu) && cpu >= 0 && cpu < 1 << 20)
		t->cpu = (int)cpu;
	snprintf(path, sizeof(path), "%s/sched", dir);
	n = file_read_buf(path, buf, sizeof(buf));
	t->have_exec = n > 0 && !wparse_exec_start(buf, (size_t)n, &t->exec_start) &&
		       t->exec_start;
	snprintf(path, sizeof(path), "%s/schedstat", dir);
	n = file_read_buf(path, buf, sizeof(buf));
	t->have_schedstat = n > 0 && !proc_schedstat_parse(buf, (size_t)n, &t->run_ns, &delay,
							    &t->pcount);
	thread_wchan_sys(t, dir, foreign, denied);
	if (t->wchan[0])
		t->cls = wparse_class(t->wchan, strlen(t->wchan));
	thread_stack(t, dir);
	return 0;
}

/* Read every thread of process @pid into the snapshot, then what each waits on. */
static int proc_analyze(struct wctx *c, int32_t pid)
{
	struct wsnap *s = c->s;
	struct wproc *p = wctx_proc(c, pid);
	int32_t *tids = NULL;
	int n = proc_threads(pid, &tids), i, ret = 0;
	size_t first = s->n, k;
	bool foreign = proc_foreign_abi(pid);

	if (n <= 0) {
		s->gone++;
		free(tids);
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct wthread *t = mem_grow(s->t, &s->cap, s->n, sizeof(*t));

		if (!t) {
			free(tids);
			return -ENOMEM;
		}
		s->t = t;
		if (thread_read(&s->t[s->n], pid, tids[i], foreign, refusal(p)))
			continue;	/* it exited */
		s->t[s->n].target = p && p->target;
		s->n++;
	}
	free(tids);
	for (k = first; k < s->n && !ret; k++)
		ret = wres_thread(c, &s->t[k]);
	return ret;
}

#define CLOCK_PROBE_MS 200	/* the most all CPUs' clocks may take, together */

/*
 * A probe: a child process put on one CPU, which writes its own
 * se.exec_start once it runs there (it is set when a task is put on the
 * CPU): a "now" never later than now, in the clock the CPU's threads'
 * exec_start is in. A child, not this process: a CPU a real-time task
 * keeps busy may never run it, and a thread of ours stuck there would
 * hold up our exit; a child is killed and left to be reaped later.
 */
struct clock_probe {
	pid_t pid;
	int fd;		/* read end of its pipe; -1 done */
	int cpu;
};

static void probe_child(int cpu, int fd)
{
	size_t size = CPU_ALLOC_SIZE(cpu + 1);
	cpu_set_t *set = CPU_ALLOC(cpu + 1);
	int64_t out = -EIO;
	uint64_t ns;
	char buf[4096];
	ssize_t n;

	if (set) {
		CPU_ZERO_S(size, set);
		CPU_SET_S(cpu, size, set);
		if (sched_setaffinity(0, size, set))
			out = -errno;
		else if (sched_getcpu() != cpu)
			out = -EAGAIN;
		else if ((n = file_read_buf("/proc/thread-self/sched", buf, sizeof(buf))) <= 0)
			out = n ? n : -EIO;
		else
			out = wparse_exec_start(buf, (size_t)n, &ns) ? -EINVAL : (int64_t)ns;
	}
	if (write(fd, &out, sizeof(out)) != sizeof(out))
		out = 0;
	_exit(0);
}

/* probe children killed at the deadline that had not exited: reaped when they have */
static pid_t stragglers[64];
static unsigned nstragglers;

static void stragglers_reap(void)
{
	unsigned i, k = 0;

	for (i = 0; i < nstragglers; i++)
		if (waitpid(stragglers[i], NULL, WNOHANG) == 0)
			stragglers[k++] = stragglers[i];
	nstragglers = k;
}

static void probe_end(struct clock_probe *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	if (p->pid <= 0)
		return;
	kill(p->pid, SIGKILL);
	if (waitpid(p->pid, NULL, WNOHANG) == 0 &&
	    nstragglers < sizeof(stragglers) / sizeof(stragglers[0]))
		stragglers[nstragglers++] = p->pid;
	p->pid = 0;
}

/* one probe on @cpu; 0, or -errno into nothing started */
static int probe_start(struct clock_probe *p, int cpu)
{
	int fds[2];

	p->cpu = cpu;
	p->fd = -1;
	p->pid = 0;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	p->pid = fork();
	if (p->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		p->pid = 0;
		return -errno;
	}
	if (!p->pid)
		probe_child(cpu, fds[1]);
	close(fds[1]);
	p->fd = fds[0];
	return 0;
}

/*
 * The task clocks of the CPUs with @want[c] set into now[c] (or why not
 * into err[c]): one probe per CPU, all at once, bounded by
 * CLOCK_PROBE_MS; a CPU outside this process's CPU set (-EINVAL) or
 * isolated (-EXDEV: isolcpus, nohz_full) is not tried, a CPU whose probe
 * did not run in time is -ETIMEDOUT.
 */
static void cpu_clocks(const bool *want, int ncpu, const cpu_set_t *allowed, size_t asize,
		       uint64_t *now, int *err)
{
	struct clock_probe *p = calloc((size_t)ncpu + 1, sizeof(*p));
	char iso[2][4096];
	uint64_t deadline = mono_ns() + CLOCK_PROBE_MS * 1000000ULL, t;
	int c, left = 0;

	stragglers_reap();
	if (!p) {
		for (c = 0; c < ncpu; c++)
			err[c] = -ENOMEM;
		return;
	}
	if (file_read_buf("/sys/devices/system/cpu/isolated", iso[0], sizeof(iso[0])) < 0)
		iso[0][0] = '\0';
	if (file_read_buf("/sys/devices/system/cpu/nohz_full", iso[1], sizeof(iso[1])) < 0)
		iso[1][0] = '\0';
	for (c = 0; c < ncpu; c++) {
		p[c].fd = -1;
		if (!want[c])
			continue;
		if (!CPU_ISSET_S((size_t)c, asize, allowed))
			err[c] = -EINVAL;
		else if (wparse_cpulist_has(iso[0], strlen(iso[0]), c) ||
			 wparse_cpulist_has(iso[1], strlen(iso[1]), c))
			err[c] = -EXDEV;
		else if (!(err[c] = probe_start(&p[c], c)))
			left++;
	}
	while (left > 0 && (t = mono_ns()) < deadline) {
		struct pollfd pf[1024];
		int idx[1024], n = 0, ms = (int)((deadline - t + 999999) / 1000000);

		for (c = 0; c < ncpu && n < 1024; c++)
			if (p[c].fd >= 0) {
				pf[n].fd = p[c].fd;
				pf[n].events = POLLIN;
				idx[n++] = c;
			}
		if (poll(pf, (nfds_t)n, ms) < 0 && errno != EINTR)
			break;
		for (int k = 0; k < n; k++) {
			int64_t v;

			if (!pf[k].revents)
				continue;
			c = idx[k];
			err[c] = read(p[c].fd, &v, sizeof(v)) == sizeof(v) ? (v < 0 ? (int)v : 0) : -EIO;
			if (!err[c])
				now[c] = (uint64_t)v;
			probe_end(&p[c]);
			left--;
		}
	}
	for (c = 0; c < ncpu; c++)
		if (p[c].fd >= 0) {
			err[c] = -ETIMEDOUT;
			probe_end(&p[c]);
		}
	free(p);
}

/* thread @t's se.exec_start read again: unchanged means it has not run since */
static bool still_asleep(const struct wthread *t)
{
	char path[96], buf[4096];
	uint64_t e;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", t->pid, t->tid);
	n = file_read_buf(path, buf, sizeof(buf));
	return n > 0 && !wparse_exec_start(buf, (size_t)n, &e) && e == t->exec_start;
}

static void dur_from_sched(struct wthread *t, const uint64_t *now, const int *now_err, int ncpu)
{
	if (t->state == 'R') {
		snprintf(t->dur_why, sizeof(t->dur_why),
			 "running or runnable: /proc does not say since when");
		return;
	}
	if (!t->have_exec) {
		snprintf(t->dur_why, sizeof(t->dur_why), "no se.exec_start in /proc/%d/task/%d/sched "
			 "(a kernel without CONFIG_SCHED_DEBUG, or it never ran)", t->pid, t->tid);
		return;
	}
	if (t->cpu < 0 || t->cpu >= ncpu || now_err[t->cpu]) {
		int e = t->cpu >= 0 && t->cpu < ncpu ? now_err[t->cpu] : 0;

		snprintf(t->dur_why, sizeof(t->dur_why), "its CPU %d's clock could not be read: %s",
			 t->cpu, e == -EINVAL ? "outside this process's CPU set" :
			 e == -EXDEV ? "an isolated CPU (isolcpus, nohz_full): not run on" :
			 e == -ETIMEDOUT ? "busy: it did not run this process within 200 ms "
			 "(a real-time task?), not waited for" :
			 e ? strerror(-e) : "unknown CPU");
		return;
	}
	if (!still_asleep(t)) {
		snprintf(t->dur_why, sizeof(t->dur_why), "it ran while it was being read");
		return;
	}
	t->dur_known = true;
	t->dur_from = "sched";
	t->dur_ns = now[t->cpu] > t->exec_start ? now[t->cpu] - t->exec_start : 0;
}

/*
 * How long each thread has been in its state: since it last ran (its
 * se.exec_start, against its CPU's task clock read after it, so the
 * difference is never more than the truth: the task clock also leaves out
 * interrupts and steal). This process's own CPU set is not touched.
 */
static void durations(struct wsnap *s)
{
	int ncpu = 0, c;
	size_t i, size;
	uint64_t *now;
	int *err;
	bool *want;
	cpu_set_t *allowed;

	for (i = 0; i < s->n; i++)
		if (s->t[i].cpu >= ncpu)
			ncpu = s->t[i].cpu + 1;
	now = calloc((size_t)ncpu + 1, sizeof(*now));
	err = calloc((size_t)ncpu + 1, sizeof(*err));
	want = calloc((size_t)ncpu + 1, sizeof(*want));
	size = CPU_ALLOC_SIZE(ncpu > 1024 ? ncpu : 1024);
	allowed = CPU_ALLOC(ncpu > 1024 ? ncpu : 1024);
	if (!now || !err || !want || !allowed || sched_getaffinity(0, size, allowed)) {
		for (i = 0; i < s->n; i++)
			snprintf(s->t[i].dur_why, sizeof(s->t[i].dur_why),
				 "this process's CPU set could not be read");
		goto out;
	}
	for (c = 0; c < ncpu; c++)
		err[c] = -ENODATA;
	for (i = 0; i < s->n; i++)
		if (s->t[i].cpu >= 0 && s->t[i].state != 'R' && s->t[i].have_exec)
			want[s->t[i].cpu] = true;
	cpu_clocks(want, ncpu, allowed, size, now, err);
	for (i = 0; i < s->n; i++)
		dur_from_sched(&s->t[i], now, err, ncpu);
out:
	free(now);
	free(err);
	free(want);
	if (allowed)
		CPU_FREE(allowed);
}

/*
 * An earlier snapshot saw the thread in the same state and it has not run
 * since (the same se.exec_start, or schedstat's run time and count): it
 * has been in it at least as long as then, and the time between.
 */
static void durations_watch(struct wsnap *s, const struct wsnap *prev)
{
	size_t i;

	for (i = 0; prev && i < s->n; i++) {
		struct wthread *t = &s->t[i];
		const struct wthread *o = wscan_thread(prev, t->tid);
		uint64_t d;

		if (!o || o->pid != t->pid || o->state != t->state || t->state == 'R')
			continue;
		if (t->have_exec && o->have_exec ? t->exec_start != o->exec_start :
		    !(t->have_schedstat && o->have_schedstat && t->run_ns == o->run_ns &&
		      t->pcount == o->pcount))
			continue;
		if (s->start_ns <= prev->end_ns)
			continue;
		d = (o->dur_known ? o->dur_ns : 0) + (s->start_ns - prev->end_ns);
		if (!t->dur_known || d > t->dur_ns) {
			t->dur_known = true;
			t->dur_ns = d;
			t->dur_from = "watch";
		}
	}
}

/* does @w name a holder that blocks (a wait-for edge)? */
static bool wait_held(const struct wwait *w)
{
	size_t j;

	for (j = 0; j < w->nh; j++)
		if (w->h[j].blocks)
			return true;
	return false;
}

/*
 * What else may end a wait of @t that names a holder: a listener (any
 * client), a wait no holder was named for (an eventfd, a timerfd, a
 * socket whose peer is not known, a descriptor not read), descriptors of
 * its poll not read; added to what waitres.c found (timeouts, signals).
 */
static void thread_wakes(struct wthread *t)
{
	bool held = false;
	size_t k;

	for (k = 0; k < t->nw; k++)
		held |= wait_held(&t->w[k]);
	if (!held)
		return;	/* no wait-for edge: nothing to say why it is not stuck */
	for (k = 0; k < t->nw; k++) {
		const struct wwait *w = &t->w[k];

		if (w->passive)
			wthread_wakes(t, "%.80s [%s] listens: any client may connect", w->object,
				      wkind_name(w->kind));
		else if (!wait_held(w))
			wthread_wakes(t, "%.80s [%s]: no holder named", w->object,
				      wkind_name(w->kind));
	}
	if (t->w_more)
		wthread_wakes(t, "%zu more descriptors it polls were not read", t->w_more);
}

/*
 * the graph: every thread a node, every holder that blocks an edge; a
 * thread that may wake without its holders is never stuck
 */
static int graph_build(struct wsnap *s)
{
	size_t i, k, j;

	s->g = wgraph_new();
	if (!s->g)
		return -ENOMEM;
	for (i = 0; i < s->n; i++)
		if (wgraph_node(s->g, s->t[i].pid, s->t[i].tid, s->t[i].state != 'R') < 0)
			return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		thread_wakes(&s->t[i]);
		if (s->t[i].wakes[0])
			wgraph_wakes(s->g, i);
		for (k = 0; k < s->t[i].nw; k++)
			for (j = 0; j < s->t[i].w[k].nh; j++) {
				const struct wholder *h = &s->t[i].w[k].h[j];

				if (h->blocks && wgraph_edge(s->g, i, h->pid, h->want_tid))
					return -ENOMEM;
			}
	}
	return wgraph_solve(s->g);
}

/* each holder named by its thread: the one asked for, or its process's representative */
static void holders_fill(struct wctx *c)
{
	struct wsnap *s = c->s;
	size_t i, k, j;

	for (i = 0; i < s->n; i++)
		for (k = 0; k < s->t[i].nw; k++)
			for (j = 0; j < s->t[i].w[k].nh; j++) {
				struct wholder *h = &s->t[i].w[k].h[j];
				long n = wgraph_find(s->g, h->pid, h->want_tid);
				const struct wproc *p = wctx_proc(c, h->pid);

				if (n >= 0) {
					const struct wthread *t = &s->t[n];

					h->tid = t->tid;
					h->state = t->state;
					snprintf(h->comm, sizeof(h->comm), "%s", t->comm);
					snprintf(h->wchan, sizeof(h->wchan), "%s", t->wchan);
				} else if (p) {
					h->tid = h->want_tid;
					snprintf(h->comm, sizeof(h->comm), "%s", p->comm);
				}
			}
}

/* is /proc mounted with hidepid (other users' processes hidden)? its value, or NULL */
static const char *proc_hidepid(char *buf, size_t len)
{
	size_t n = 0;
	char *text = file_read_max("/proc/self/mounts", 1 << 20, &n), *p = text, *h;
	struct mount_ent m;
	const char *ret = NULL;

	while (p && !ret && mounts_next(&p, &m))
		if (!strcmp(m.dir, "/proc") && !strcmp(m.type, "proc") &&
		    (h = strstr(m.opts, "hidepid=")) && strncmp(h + 8, "0", 1) &&
		    strncmp(h + 8, "off", 3)) {
			snprintf(buf, len, "%.*s", (int)strcspn(h + 8, ","), h + 8);
			ret = buf;
		}
	free(text);
	return ret;
}

/* What the snapshot could not read, said once. */
static void snapshot_notes(struct wctx *c)
{
	const struct wsnap *s = c->s;
	static const char *const reasons[] = {
		WSCAN_DENIED_USER, WSCAN_DENIED_PTRACE, WSCAN_DENIED_ROOT,
	};
	unsigned r, n, stacks = 0, refused = 0;
	const char *why = NULL;
	char hp[16];
	size_t i;

	for (r = 0; r < sizeof(reasons) / sizeof(reasons[0]); r++) {
		for (i = 0, n = 0; i < s->n; i++)
			n += !strcmp(s->t[i].sys_why, reasons[r]);
		if (n)
			wctx_note(c, "the syscall, wchan and descriptors of %u thread%s could not be "
				  "read: %s", n, n == 1 ? "" : "s", reasons[r]);
	}
	for (i = 0; i < s->n; i++) {
		stacks += !strcmp(s->t[i].kstack_why, WSCAN_STACK_ROOT);
		if (!strncmp(s->t[i].kstack_why, WSCAN_STACK_REFUSED, strlen(WSCAN_STACK_REFUSED))) {
			refused++;
			why = s->t[i].kstack_why + strlen(WSCAN_STACK_REFUSED);
		}
	}
	if (stacks)
		wctx_note(c, "kernel stacks need root (CAP_SYS_ADMIN): %u thread%s not read, a D "
			  "wait is named by its wchan only", stacks, stacks == 1 ? "" : "s");
	if (refused)
		wctx_note(c, "kernel stacks of %u thread%s refused even to root (%s: no "
			  "CAP_SYS_ADMIN here, or a kernel lockdown): a D wait is named by its "
			  "wchan only", refused, refused == 1 ? "" : "s", why);
	if (proc_hidepid(hp, sizeof(hp)))
		wctx_note(c, "/proc is mounted with hidepid=%s: other users' processes are hidden, "
			  "holders among them are not named", hp);
}

static int cmp_thread(const void *a, const void *b)
{
	const struct wthread *x = a, *y = b;

	if (x->target != y->target)
		return x->target ? -1 : 1;
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->tid > y->tid) - (x->tid < y->tid);
}

const struct wthread *wscan_thread(const struct wsnap *s, int32_t tid)
{
	/* node i of the graph is thread i */
	long i = s->g ? wgraph_find(s->g, 0, tid) : -1;

	return i >= 0 ? &s->t[i] : NULL;
}

static void ctx_free(struct wctx *c)
{
	wfd_free(c);
	free(c->procs);
	free(c->queue);
	free(c->locks);
	free(c->peers);
	for (size_t i = 0; i < c->nnets; i++) {
		free(c->nets[i].ux);
		free(c->nets[i].tcp);
	}
}

int wscan_take(const struct wscope *sc, const struct wsnap *prev, struct wsnap *s, char *err,
	       size_t errlen)
{
	struct wctx c = { .s = s, .sc = sc, .locks_err = 1, .peers_err = 1 };
	int ret;

	memset(s, 0, sizeof(*s));
	s->wall = time(NULL);
	s->start_ns = mono_ns();
	ret = procs_load(&c);
	if (ret) {
		snprintf(err, errlen, "cannot list /proc: %s%s", strerror(-ret),
			 ret == -ENOENT ? " (mount it: mount -t proc proc /proc)" : "");
		goto out;
	}
	ret = scope_select(&c);
	if (ret == -ESRCH)
		snprintf(err, errlen, "no process in the scope (it exited, or /proc hides it)");
	while (!ret && c.qdone < c.nq)
		ret = proc_analyze(&c, c.queue[c.qdone++]);
	if (ret)
		goto out;
	durations(s);
	s->end_ns = mono_ns();
	snapshot_notes(&c);
	if (s->n)
		qsort(s->t, s->n, sizeof(*s->t), cmp_thread);
	ret = graph_build(s);
	if (!ret)
		durations_watch(s, prev);
	if (!ret)
		holders_fill(&c);
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	ctx_free(&c);
	if (ret)
		wscan_free(s);
	return ret;
}

void wscan_free(struct wsnap *s)
{
	size_t i, k;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		for (k = 0; k < s->t[i].nw; k++)
			free(s->t[i].w[k].h);
		free(s->t[i].w);
	}
	free(s->t);
	wgraph_free(s->g);
	memset(s, 0, sizeof(*s));
}
