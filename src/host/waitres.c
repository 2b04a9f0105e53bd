// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * waits: what one thread waits on. The syscall it is blocked in says the
 * most (read on descriptor 3, wait4 for any child, a futex at an
 * address); its wchan or kernel stack say what kind of wait it is when
 * the syscall cannot be read; its state says the rest (stopped, a zombie,
 * uninterruptible).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <linux/futex.h>

#ifndef P_PIDFD
#define P_PIDFD 3	/* Linux 5.4 */
#endif

#include "fileread.h"
#include "procfs.h"
#include "waitscan_local.h"

/* The syscalls waits decodes, by what their arguments say. */
enum wsc {
	SC_OTHER, SC_READ, SC_WRITE, SC_CONNECT, SC_ACCEPT, SC_SYNC, SC_WAIT4, SC_WAITID,
	SC_FUTEX, SC_FUTEX_WAITV, SC_FLOCK, SC_FCNTL, SC_POLL, SC_PPOLL, SC_SELECT,
	SC_PSELECT, SC_EPOLL, SC_EPOLL_P, SC_EPOLL_P2, SC_SLEEP, SC_SIGNAL, SC_OPEN, SC_OPENAT,
};

static const struct {
	long nr;
	const char *name;
	enum wsc sc;
} syscalls[] = {
#define S(n, sc) { SYS_##n, #n, sc }
	S(read, SC_READ), S(readv, SC_READ), S(pread64, SC_READ), S(preadv, SC_READ),
	S(recvfrom, SC_READ), S(recvmsg, SC_READ), S(recvmmsg, SC_READ),
	S(write, SC_WRITE), S(writev, SC_WRITE), S(pwrite64, SC_WRITE), S(pwritev, SC_WRITE),
	S(sendto, SC_WRITE), S(sendmsg, SC_WRITE), S(sendmmsg, SC_WRITE),
	S(sendfile, SC_WRITE), S(connect, SC_CONNECT), S(accept4, SC_ACCEPT),
	S(fsync, SC_SYNC), S(fdatasync, SC_SYNC), S(sync_file_range, SC_SYNC),
	S(wait4, SC_WAIT4), S(waitid, SC_WAITID), S(futex, SC_FUTEX), S(flock, SC_FLOCK),
	S(fcntl, SC_FCNTL), S(ppoll, SC_PPOLL), S(pselect6, SC_PSELECT),
	S(epoll_pwait, SC_EPOLL_P), S(nanosleep, SC_SLEEP), S(clock_nanosleep, SC_SLEEP),
	S(rt_sigsuspend, SC_SIGNAL), S(rt_sigtimedwait, SC_SIGNAL), S(openat, SC_OPENAT),
#ifdef SYS_accept
	S(accept, SC_ACCEPT),
#endif
#ifdef SYS_poll
	S(poll, SC_POLL),
#endif
#ifdef SYS_select
	S(select, SC_SELECT),
#endif
#ifdef SYS_epoll_wait
	S(epoll_wait, SC_EPOLL),
#endif
#ifdef SYS_epoll_pwait2
	S(epoll_pwait2, SC_EPOLL_P2),
#endif
#ifdef SYS_pause
	S(pause, SC_SIGNAL),
#endif
#ifdef SYS_open
	S(open, SC_OPEN),
#endif
#ifdef SYS_creat
	S(creat, SC_OPEN),
#endif
#ifdef SYS_futex_waitv
	S(futex_waitv, SC_FUTEX_WAITV),
#endif
#ifdef SYS_preadv2
	S(preadv2, SC_READ), S(pwritev2, SC_WRITE),
#endif
#undef S
};

static enum wsc syscall_kind(long nr)
{
	size_t i;

	for (i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		if (syscalls[i].nr == nr)
			return syscalls[i].sc;
	return SC_OTHER;
}

const char *wscan_syscall_name(long nr)
{
	size_t i;

	for (i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		if (syscalls[i].nr == nr)
			return syscalls[i].name;
	return NULL;
}

/* a wait that only names what it is: no holder /proc can name */
static int plain(struct wthread *t, enum wkind k, const char *source, const char *object,
		 const char *detail)
{
	struct wwait *w = wthread_wait(t, k, source);

	if (!w)
		return -ENOMEM;
	snprintf(w->object, sizeof(w->object), "%s", object);
	snprintf(w->detail, sizeof(w->detail), "%s", detail);
	return 0;
}

/* does process @pid have thread @tid (other than @self)? */
static bool has_thread(int32_t pid, int32_t tid, int32_t self)
{
	char path[64];
	struct stat st;

	if (tid <= 0 || tid == self)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", pid, tid);
	return !stat(path, &st);
}

/* the pid namespace of process @pid (its nsfs inode; @pid 0: this process); 0 unreadable */
static uint64_t pidns_of(int32_t pid)
{
	char path[64];
	struct stat st;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/ns/pid", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/pid");
	return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
}

#define NS_DEPTH 33	/* MAX_PID_NS_LEVEL 32, and the initial namespace */

/* thread @tid's ids from this /proc's pid namespace inward (status NSpid); the count, or -errno */
static int ns_ids(int32_t pid, int32_t tid, uint64_t *ids)
{
	char path[96], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	n = file_read_buf(path, buf, sizeof(buf));
	if (n <= 0)
		return n ? (int)n : -EIO;
	return wparse_status(buf, (size_t)n, "NSpid", 10, ids, NS_DEPTH);
}

/* the thread of process @pid whose id is @local at NSpid level @level: 0 and *@tid, or -ENOENT */
static int ns_find_in(int32_t pid, int level, int32_t local, int32_t *tid)
{
	uint64_t ids[NS_DEPTH];
	int32_t *tids = NULL;
	int n = proc_threads(pid, &tids), i, k, ret = -ENOENT;

	for (i = 0; i < n && ret; i++) {
		k = ns_ids(pid, tids[i], ids);
		if (k > level && ids[level] == (uint64_t)local) {
			*tid = tids[i];
			ret = 0;
		}
	}
	free(tids);
	return ret;
}

/*
 * Thread id @local as waiter @t's pid namespace numbers it (a futex word,
 * glibc's __owner, pthread_join's word, wait4's pid: what the process
 * itself sees), as this /proc numbers it: the thread into *@tid and its
 * process into *@pid. In another pid namespace (a container's, seen from
 * the host) the same number is another thread: it is looked up by NSpid
 * among the threads of that namespace, the waiter's own process first.
 * 0; -ENOENT when no thread has it; -EACCES when the waiter's namespace
 * cannot be read.
 */
static int ns_thread(struct wctx *c, const struct wthread *t, int32_t local, int32_t *pid,
		     int32_t *tid)
{
	uint64_t ns = pidns_of(t->pid), ids[NS_DEPTH];
	int level;
	size_t i;

	if (local <= 0)
		return -ENOENT;
	if (!c->self_pidns)
		c->self_pidns = pidns_of(0);
	if (!ns || !c->self_pidns)
		return -EACCES;
	if (ns == c->self_pidns) {
		*tid = local;
		*pid = has_thread(t->pid, local, 0) ? t->pid : proc_tgid(local, NULL);
		return *pid > 0 ? 0 : -ENOENT;
	}
	level = ns_ids(t->pid, t->tid, ids) - 1;
	if (level < 0)
		return -EACCES;
	if (!ns_find_in(t->pid, level, local, tid)) {
		*pid = t->pid;
		return 0;
	}
	for (i = 0; i < c->np; i++) {
		const struct wproc *p = &c->procs[i];

		if (p->kthread || p->pid == t->pid || pidns_of(p->pid) != ns)
			continue;
		if (!ns_find_in(p->pid, level, local, tid)) {
			*pid = p->pid;
			return 0;
		}
	}
	return -ENOENT;
}

/* is @t's process in a pid namespace other than this /proc's (or one not read)? */
static bool ns_other(struct wctx *c, const struct wthread *t)
{
	uint64_t ns = pidns_of(t->pid);

	if (!c->self_pidns)
		c->self_pidns = pidns_of(0);
	return !ns || ns != c->self_pidns;
}

/*
 * wait4/waitid: the children it may be waiting for (@want: wait4's pid
 * argument; @ns_local: as the waiter's pid namespace numbers it, not this
 * /proc)
 */
static int res_child(struct wctx *c, struct wthread *t, long want, bool ns_local,
		     const char *source, const char *how)
{
	const struct wproc *self = wctx_proc(c, t->pid);
	struct wwait *w = wthread_wait(t, WK_CHILD, source);
	int32_t hpid, htid;
	long id = want;
	size_t i, n = 0;

	if (!w)
		return -ENOMEM;
	if (want > 0)
		snprintf(w->object, sizeof(w->object), "child %ld", want);
	else
		snprintf(w->object, sizeof(w->object), "its children");
	snprintf(w->detail, sizeof(w->detail), "%s", how);
	/* a pid or process group it names is its pid namespace's */
	if ((want > 0 || want < -1) && want > -INT32_MAX && want <= INT32_MAX && ns_local &&
	    ns_other(c, t)) {
		if (ns_thread(c, t, (int32_t)(want > 0 ? want : -want), &hpid, &htid)) {
			snprintf(w->note, sizeof(w->note), "%s %ld of its pid namespace is no process "
				 "found here", want > 0 ? "process" : "process group", labs(want));
			return 0;
		}
		id = want > 0 ? htid : -(long)htid;
		if (want > 0)
			snprintf(w->object + strlen(w->object), sizeof(w->object) - strlen(w->object),
				 " (%d here)", htid);
	}
	for (i = 0; i < c->np; i++) {
		const struct wproc *p = &c->procs[i];

		if (p->ppid != t->pid || p->pid == t->pid)
			continue;
		if (id > 0 ? p->pid != id :
		    id == 0 ? !self || p->pgrp != self->pgrp :
		    id < -1 ? p->pgrp != -id : false)
			continue;
		if (!wctx_holder(c, w, p->pid, "child", -1, true))
			return -ENOMEM;
		n++;
	}
	if (!n)
		snprintf(w->note, sizeof(w->note), "no child of it in /proc (one in another pid "
			 "namespace, or one traced, is not listed)");
	return 0;
}

#define SIGBIT(sig) (1ULL << ((sig) - 1))

/* "SIGCHLD", "SIGRTMIN+3", "signal 40" into @buf */
static const char *sig_abbrev(int sig, char *buf, size_t len)
{
	static const char *const names[] = {
		[SIGHUP] = "HUP", [SIGINT] = "INT", [SIGQUIT] = "QUIT", [SIGILL] = "ILL",
		[SIGTRAP] = "TRAP", [SIGABRT] = "ABRT", [SIGBUS] = "BUS", [SIGFPE] = "FPE",
		[SIGKILL] = "KILL", [SIGUSR1] = "USR1", [SIGSEGV] = "SEGV", [SIGUSR2] = "USR2",
		[SIGPIPE] = "PIPE", [SIGALRM] = "ALRM", [SIGTERM] = "TERM", [SIGCHLD] = "CHLD",
		[SIGCONT] = "CONT", [SIGSTOP] = "STOP", [SIGTSTP] = "TSTP", [SIGTTIN] = "TTIN",
		[SIGTTOU] = "TTOU", [SIGURG] = "URG", [SIGXCPU] = "XCPU", [SIGXFSZ] = "XFSZ",
		[SIGVTALRM] = "VTALRM", [SIGPROF] = "PROF", [SIGWINCH] = "WINCH", [SIGIO] = "IO",
		[SIGPWR] = "PWR", [SIGSYS] = "SYS",
	};

	if (sig > 0 && (size_t)sig < sizeof(names) / sizeof(names[0]) && names[sig])
		snprintf(buf, len, "SIG%s", names[sig]);
	else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, len, "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

/* the signals process @pid catches (status SigCgt); all of them when it cannot be read */
static uint64_t sig_caught(int32_t pid, bool *known)
{
	char path[64], buf[4096];
	uint64_t v;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	n = file_read_buf(path, buf, sizeof(buf));
	*known = n > 0 && wparse_status(buf, (size_t)n, "SigCgt", 16, &v, 1) == 1;
	return *known ? v : ~0ULL;
}

/*
 * The signal mask a pselect6, ppoll or epoll_pwait waits with (@addr; 0:
 * none given, the thread's own mask stays): a signal it lets through that
 * the process catches ends the wait (EINTR) whoever sends it, so the
 * thread may wake with its holders asleep; with SIGCHLD, a child's exit
 * does: its children are listed as what it waits on too (make waits so).
 */
static int res_sigmask(struct wctx *c, struct wthread *t, uint64_t addr, uint64_t size,
		       const char *call)
{
	uint64_t mask, open;
	char names[96], how[96];
	size_t n = 0, shown = 0, more = 0;
	bool known;
	int i, ret;

	if (!addr)
		return 0;
	if (size != sizeof(mask)) {
		wthread_wakes(t, "%s's signal mask (%llu bytes) was not read", call,
			      (unsigned long long)size);
		return 0;
	}
	ret = wmem_read(c, t->pid, addr, &mask, sizeof(mask));
	if (ret) {
		wthread_wakes(t, "%s's signal mask could not be read: %s", call,
			      wmem_strerror(ret));
		return 0;
	}
	open = sig_caught(t->pid, &known) & ~mask & ~(SIGBIT(SIGKILL) | SIGBIT(SIGSTOP));
	if (!open)
		return 0;
	/* SIGCHLD first (i 0): the one a waiting parent is about; three named */
	for (i = 0, names[0] = '\0'; i <= 64; i++) {
		int sig = i ? i : SIGCHLD;
		char one[32];

		if (!(open & SIGBIT(sig)) || (i && sig == SIGCHLD))
			continue;
		if (shown == 3) {
			more++;
			continue;
		}
		shown++;
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
				      sig_abbrev(sig, one, sizeof(one)));
	}
	wthread_wakes(t, "%s lets %s%s through its signal mask%s", call, names,
		      more ? " and more" : "", known ? ", which the process catches" : "");
	if (!(open & SIGBIT(SIGCHLD)))
		return 0;
	snprintf(how, sizeof(how), "%s lets SIGCHLD through: a child's exit ends the wait", call);
	ret = res_child(c, t, -1, false, "syscall", how);
	if (!ret) {
		struct wwait *w = &t->w[t->nw - 1];

		w->kind = WK_SIGNAL;
		snprintf(w->object, sizeof(w->object), "SIGCHLD from its children");
	}
	return ret;
}

/* pselect6's sixth argument: { const sigset_t *ss; size_t ss_len; } */
static int res_pselect_mask(struct wctx *c, struct wthread *t, uint64_t addr)
{
	uint64_t v[2];
	int ret;

	if (!addr)
		return 0;
	ret = wmem_read(c, t->pid, addr, v, sizeof(v));
	if (ret) {
		wthread_wakes(t, "pselect6's signal mask could not be read: %s",
			      wmem_strerror(ret));
		return 0;
	}
	return res_sigmask(c, t, v[0], v[1], "pselect6");
}

static void lock_object(struct wwait *w, int32_t pid, int fd, const struct wlock *l)
{
	char link[PATH_MAX];

	if (fd >= 0 && !wfd_link(pid, fd, link, sizeof(link)))
		wwait_object(w, link);
	else
		snprintf(w->object, sizeof(w->object), "inode %llu on %02x:%02x",
			 (unsigned long long)l->ino, l->major, l->minor);
}

/*
 * A lock whose holder /proc/locks cannot name (an OFD lock, or its process
 * is gone and the lock lives on in a descriptor it passed on): the
 * processes with the file open, by the path of the waiter's descriptor.
 */
static int lock_orphan(struct wctx *c, struct wthread *t, struct wwait *w, const struct wlock *b,
		       int fd, const char *why)
{
	char path[PATH_MAX];

	if (wfd_link(t->pid, fd, path, sizeof(path)) || path[0] != '/') {
		snprintf(w->note, sizeof(w->note), "%s; the file's path is not known, so who has "
			 "it open is not looked for", why);
		return 0;
	}
	snprintf(w->note, sizeof(w->note), "%s; these processes have the file open", why);
	return wfd_holders_of_path(c, w, path, b->ino, t->pid, "has the file open");
}

/* one waiter line of /proc/locks for the thread's process: the lock's holder */
static int lock_waiter(struct wctx *c, struct wthread *t, int fd, size_t i, const char *source)
{
	const struct wlock *l = &c->locks[i], *b, *q;
	long bi = wlock_blocker(c->locks, c->nlocks, i), hi = bi;
	struct wwait *w = wthread_wait(t, WK_LOCK, source);
	char why[96];
	size_t n;

	if (!w)
		return -ENOMEM;
	lock_object(w, t->pid, fd, l);
	/* a waiter queued behind another waiter: the holder is further up */
	while (hi >= 0 && c->locks[hi].depth)
		hi = wlock_blocker(c->locks, c->nlocks, (size_t)hi);
	if (hi < 0) {
		snprintf(w->detail, sizeof(w->detail), "%s %s", l->type, l->mode);
		snprintf(w->note, sizeof(w->note), "its holder's line in /proc/locks is missing");
		return 0;
	}
	b = &c->locks[hi];
	q = &c->locks[bi];
	snprintf(w->detail, sizeof(w->detail), "%s %s, blocked by a %s %s lock", l->type,
		 l->mode, b->type, b->mode);
	n = strlen(w->detail);
	if (q != b)
		snprintf(w->detail + n, sizeof(w->detail) - n, ", queued behind process %d's %s "
			 "request", q->pid, q->mode);
	if (b->pid == -1)
		return lock_orphan(c, t, w, b, fd, "an OFD lock: /proc/locks names no process for it");
	if (b->pid <= 0) {
		snprintf(w->note, sizeof(w->note), "held remotely (pid %d): a network filesystem's",
			 b->pid);
		return 0;
	}
	if (!wctx_proc(c, b->pid)) {
		snprintf(why, sizeof(why), "process %d, which took it, is gone", b->pid);
		return lock_orphan(c, t, w, b, fd, why);
	}
	return wctx_holder(c, w, b->pid, "lock holder", -1, true) ? 0 : -ENOMEM;
}

/* flock, fcntl F_SETLKW: /proc/locks's waiter lines for this process, and their blockers */
static int res_lock(struct wctx *c, struct wthread *t, int fd, const char *source)
{
	unsigned fmaj = 0, fmin = 0;
	uint64_t fino = 0;
	char err[128];
	size_t i, n = 0;
	bool by_file;
	int ret;

	if (c->locks_err == 1) {
		size_t len = 0;
		char *text = file_read_max("/proc/locks", WAITPARSE_TEXT_MAX, &len);

		c->locks_err = text ? wparse_locks(text, len, &c->locks, &c->nlocks, err,
						   sizeof(err)) : -errno;
		free(text);
	}
	if (c->locks_err) {
		struct wwait *w = wthread_wait(t, WK_LOCK, source);

		if (!w)
			return -ENOMEM;
		snprintf(w->object, sizeof(w->object), "a file lock");
		snprintf(w->note, sizeof(w->note), "/proc/locks could not be read: %s",
			 strerror(-c->locks_err));
		return 0;
	}
	/* the file, where fdinfo says (5.14 and later); else every waiter line of the process */
	by_file = fd >= 0 && !wfd_file_id(t->pid, fd, &fmaj, &fmin, &fino);
	for (i = 0; i < c->nlocks; i++) {
		const struct wlock *l = &c->locks[i];

		if (!l->depth || l->pid != t->pid)
			continue;
		if (by_file && (l->ino != fino || l->major != fmaj || l->minor != fmin))
			continue;
		ret = lock_waiter(c, t, fd, i, source);
		if (ret)
			return ret;
		n++;
	}
	if (!n) {
		struct wwait *w = wthread_wait(t, WK_LOCK, source);

		if (!w)
			return -ENOMEM;
		snprintf(w->object, sizeof(w->object), "a file lock");
		snprintf(w->note, sizeof(w->note), "no waiter line for process %d in /proc/locks "
			 "(it was granted, or the lock is a lease)", t->pid);
	}
	return 0;
}

/* ", owner N" and what this /proc calls it, or why it names no thread */
static void futex_say_owner(struct wctx *c, const struct wthread *t, struct wwait *w,
			    int32_t local, int ret, int32_t tid)
{
	size_t n = strlen(w->detail);

	if (!ret && tid != local)
		snprintf(w->detail + n, sizeof(w->detail) - n, " (thread %d as this /proc numbers "
			 "it: the process is in another pid namespace)", tid);
	else if (ret == -EACCES)
		snprintf(w->note, sizeof(w->note), "its pid namespace could not be read: the owner "
			 "%d, a number of that namespace, is not named", local);
	else if (ret && ns_other(c, t))
		snprintf(w->note, sizeof(w->note), "no thread is %d in its pid namespace", local);
}

/* a futex's holder, where its word or glibc's mutex says */
static int futex_owner(struct wctx *c, struct wthread *t, struct wwait *w, uint64_t uaddr,
		       unsigned cmd, uint32_t val, bool priv)
{
	uint32_t word, owner;
	int32_t mowner = 0, pid = 0, tid = 0;
	int ret = wmem_read(c, t->pid, uaddr, &word, sizeof(word));
	struct wholder *h;

	if (ret) {
		snprintf(w->note, sizeof(w->note), "its word: %s", wmem_strerror(ret));
		return 0;
	}
	/* the ids in the word and in __owner are the process's own: its pid namespace's */
	if (cmd == FUTEX_LOCK_PI || cmd == FUTEX_LOCK_PI2) {
		owner = word & FUTEX_TID_MASK;
		snprintf(w->detail + strlen(w->detail), sizeof(w->detail) - strlen(w->detail),
			 ", a PI lock: word 0x%x, owner %u", word, owner);
		if (!owner)
			return 0;
		ret = ns_thread(c, t, (int32_t)owner, &pid, &tid);
		futex_say_owner(c, t, w, (int32_t)owner, ret, tid);
		if (ret)
			return 0;
		h = wctx_holder(c, w, pid, "owner", -1, true);
		if (h)
			h->want_tid = tid;
		return h ? 0 : -ENOMEM;
	}
	snprintf(w->detail + strlen(w->detail), sizeof(w->detail) - strlen(w->detail),
		 ", word %u", word);
	/*
	 * a glibc mutex, locked with waiters (2): its owner is the int at +8
	 * (__owner); first, as 2 is also a thread's id in a pid namespace
	 */
	if (val == 2 && word == 2 && !wmem_read(c, t->pid, uaddr + 8, &mowner, sizeof(mowner)) &&
	    mowner > 0 && !(ret = ns_thread(c, t, mowner, &pid, &tid)) &&
	    /* a private mutex is the process's own: its owner is one of its threads */
	    (!priv || (pid == t->pid && tid != t->tid))) {
		snprintf(w->detail + strlen(w->detail), sizeof(w->detail) - strlen(w->detail),
			 "; read as a glibc mutex, its __owner is %d", mowner);
		futex_say_owner(c, t, w, mowner, 0, tid);
		h = wctx_holder(c, w, pid, "owner (glibc mutex)", -1, true);
		if (h)
			h->want_tid = tid;
		return h ? 0 : -ENOMEM;
	}
	/* pthread_join: the joined thread's id, which the kernel clears at its exit */
	if (word == val && val && val <= INT32_MAX &&
	    !ns_thread(c, t, (int32_t)val, &pid, &tid) && pid == t->pid && tid != t->tid) {
		futex_say_owner(c, t, w, (int32_t)val, 0, tid);
		h = wctx_holder(c, w, t->pid, "joined thread", -1, true);
		if (h)
			h->want_tid = tid;
		return h ? 0 : -ENOMEM;
	}
	/* an id read that names no thread (not a glibc mutex after all, or its owner is gone) */
	if (ret == -EACCES)
		futex_say_owner(c, t, w, mowner, ret, 0);
	return 0;
}

/* the process's other threads blocked on the same futex word */
static int futex_fellows(struct wctx *c, struct wthread *t, struct wwait *w, uint64_t uaddr)
{
	size_t i;

	for (i = 0; i < c->s->n; i++) {
		const struct wthread *o = &c->s->t[i];
		struct wholder *h;

		if (o == t || o->pid != t->pid || !o->have_sys || o->sys.state != WSYS_IN ||
		    syscall_kind(o->sys.nr) != SC_FUTEX || o->sys.arg[0] != uaddr)
			continue;
		/* one entry each: a holder with a thread set is never merged */
		h = wctx_holder(c, w, o->pid, "also waiting", -1, false);
		if (!h)
			return -ENOMEM;
		h->want_tid = o->tid;
	}
	return 0;
}

static int res_futex(struct wctx *c, struct wthread *t)
{
	uint64_t uaddr = t->sys.arg[0];
	unsigned op = (unsigned)t->sys.arg[1], cmd = op & FUTEX_CMD_MASK;
	bool priv = op & FUTEX_PRIVATE_FLAG;
	static const char *const names[] = {
		[FUTEX_WAIT] = "FUTEX_WAIT", [FUTEX_LOCK_PI] = "FUTEX_LOCK_PI",
		[FUTEX_WAIT_BITSET] = "FUTEX_WAIT_BITSET",
		[FUTEX_WAIT_REQUEUE_PI] = "FUTEX_WAIT_REQUEUE_PI", [FUTEX_LOCK_PI2] = "FUTEX_LOCK_PI2",
	};
	struct wwait *w = wthread_wait(t, WK_FUTEX, "syscall");
	int ret;

	if (!w)
		return -ENOMEM;
	snprintf(w->object, sizeof(w->object), "futex 0x%llx%s", (unsigned long long)uaddr,
		 priv ? " (private)" : " (shared)");
	snprintf(w->detail, sizeof(w->detail), "%s, expects %u",
		 cmd < sizeof(names) / sizeof(names[0]) && names[cmd] ? names[cmd] : "futex op",
		 (unsigned)t->sys.arg[2]);
	/* every blocking op's fourth argument is its timeout (NULL: none) */
	if (t->sys.arg[3])
		wthread_wakes(t, "the futex wait's timeout");
	ret = futex_owner(c, t, w, uaddr, cmd, (uint32_t)t->sys.arg[2], priv);
	return ret ? ret : futex_fellows(c, t, w, uaddr);
}

#define POLL_MAX 16	/* descriptors of one poll resolved; the rest counted */

static int res_poll(struct wctx *c, struct wthread *t, uint64_t addr, uint64_t nfds)
{
	struct pollfd p[POLL_MAX];
	size_t n = nfds < POLL_MAX ? (size_t)nfds : POLL_MAX, i;
	char extra[48];
	int ret = wmem_read(c, t->pid, addr, p, n * sizeof(p[0]));

	if (ret) {
		struct wwait *w = wthread_wait(t, WK_FD, "syscall");

		if (!w)
			return -ENOMEM;
		snprintf(w->object, sizeof(w->object), "%llu descriptors (poll)",
			 (unsigned long long)nfds);
		snprintf(w->note, sizeof(w->note), "which ones: %s", wmem_strerror(ret));
		return 0;
	}
	snprintf(extra, sizeof(extra), "one of %llu polled", (unsigned long long)nfds);
	for (i = 0; i < n && !ret; i++)
		if (p[i].fd >= 0)
			ret = wfd_resolve(c, t, p[i].fd, (p[i].events & (POLLIN | POLLPRI)) ||
					  !(p[i].events & POLLOUT) ? WDIR_READ : WDIR_WRITE, extra);
	t->w_more = nfds > n ? (size_t)(nfds - n) : 0;
	return ret;
}

/*
 * select and pselect6: the descriptors of its read and write sets; its
 * exceptional set's are counted, not resolved (out-of-band data, which
 * anyone connected may send)
 */
static int res_select(struct wctx *c, struct wthread *t, const uint64_t *a)
{
	unsigned char bits[3][128];	/* FD_SETSIZE bits each */
	uint64_t nfds = a[0];
	size_t bytes = (size_t)((nfds > 1024 ? 1024 : nfds) + 7) / 8, k;
	int fd, ret = 0, done = 0;
	bool have[3];

	for (k = 0; k < 3; k++) {
		have[k] = a[k + 1] && !wmem_read(c, t->pid, a[k + 1], bits[k], bytes);
		if (a[k + 1] && !have[k])
			wthread_wakes(t, "its %s descriptor set could not be read (process_vm_readv)",
				      k == 0 ? "read" : k == 1 ? "write" : "exceptional");
	}
	if (nfds > 1024)
		wthread_wakes(t, "descriptors 1024 to %llu of its select were not read",
			      (unsigned long long)nfds - 1);
	for (fd = 0; fd < (int)(bytes * 8) && !ret; fd++)
		for (k = 0; k < 3 && !ret; k++) {
			if (!have[k] || !(bits[k][fd / 8] & (1u << (fd % 8))))
				continue;
			if (k == 2 || done++ >= POLL_MAX) {
				t->w_more++;
				continue;
			}
			ret = wfd_resolve(c, t, fd, k ? WDIR_WRITE : WDIR_READ, "one of a select");
		}
	if (!ret && !done && (a[1] || a[2])) {
		struct wwait *w = wthread_wait(t, WK_FD, "syscall");

		if (!w)
			return -ENOMEM;
		snprintf(w->object, sizeof(w->object), "descriptors below %llu (select)",
			 (unsigned long long)nfds);
		snprintf(w->note, sizeof(w->note), "its descriptor sets could not be read "
			 "(process_vm_readv)");
	}
	return ret;
}

static int res_epoll(struct wctx *c, struct wthread *t, int epfd)
{
	char path[64], extra[48], *buf;
	int fds[POLL_MAX];
	unsigned ev[POLL_MAX];
	size_t n, i, len = 0;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", t->pid, epfd);
	/* all of it: one line per descriptor watched, and every one counts */
	buf = file_read_max(path, WAITPARSE_TEXT_MAX, &len);
	if (!buf || !len) {
		struct wwait *w = wthread_wait(t, WK_FD, "syscall");

		if (!w) {
			free(buf);
			return -ENOMEM;
		}
		snprintf(w->object, sizeof(w->object), "epoll descriptor %d", epfd);
		snprintf(w->note, sizeof(w->note), "what it watches could not be read: %s",
			 strerror(buf ? EIO : errno));
		free(buf);
		return 0;
	}
	n = wparse_fdinfo_tfds(buf, len, fds, ev, POLL_MAX);
	free(buf);
	snprintf(extra, sizeof(extra), "one of %zu watched by epoll fd %d", n, epfd);
	for (i = 0; i < n && i < POLL_MAX && !ret; i++)
		ret = wfd_resolve(c, t, fds[i], (ev[i] & POLLOUT) && !(ev[i] & POLLIN) ?
				  WDIR_WRITE : WDIR_READ, extra);
	t->w_more = n > POLL_MAX ? n - POLL_MAX : 0;
	if (!ret && !n)
		ret = plain(t, WK_FD, "syscall", "an epoll descriptor watching nothing", "");
	return ret;
}

/* open() of a FIFO: the path, read from its memory */
static int res_fifo_open(struct wctx *c, struct wthread *t, uint64_t addr)
{
	char path[PATH_MAX];
	struct wwait *w = wthread_wait(t, WK_FIFO, "syscall");
	int ret;

	if (!w)
		return -ENOMEM;
	ret = wmem_read_str(c, t->pid, addr, path, sizeof(path));
	wwait_object(w, ret ? "a FIFO" : path);
	snprintf(w->detail, sizeof(w->detail), "open(): waits for a process to open the other end");
	if (ret)
		snprintf(w->note, sizeof(w->note), "its path: %s", wmem_strerror(ret));
	return 0;
}

/* The syscall's descriptor, from argument @i, resolved to @dir */
static int res_fd(struct wctx *c, struct wthread *t, int i, enum wdir dir)
{
	return wfd_resolve(c, t, (int)t->sys.arg[i], dir, NULL);
}

/*
 * waitid(idtype, id): as wait4's pid argument (-1 any, -N group N, 0 its
 * own group); P_PIDFD: the process the pidfd refers to (its fdinfo's Pid)
 */
static int res_waitid(struct wctx *c, struct wthread *t)
{
	const uint64_t *a = t->sys.arg;
	struct wfdinfo fi = { 0 };
	char how[96];
	long want = -1;

	if (a[0] == P_PID)
		want = (int)a[1];
	else if (a[0] == P_PGID)
		want = a[1] ? -(long)(int)a[1] : 0;
	snprintf(how, sizeof(how), "waitid(%s, %d)", a[0] == P_PID ? "P_PID" :
		 a[0] == P_PGID ? "P_PGID" : a[0] == P_ALL ? "P_ALL" : "P_PIDFD", (int)a[1]);
	if (a[0] != P_PIDFD)
		return res_child(c, t, want, true, "syscall", how);
	if (!wfd_info(t->pid, (int)a[1], &fi) && fi.have_pid && fi.pid > 0)
		return res_child(c, t, fi.pid, false, "syscall", how);
	{
		struct wwait *w = wthread_wait(t, WK_CHILD, "syscall");

		if (!w)
			return -ENOMEM;
		snprintf(w->object, sizeof(w->object), "the child of pidfd %d", (int)a[1]);
		snprintf(w->detail, sizeof(w->detail), "%s", how);
		snprintf(w->note, sizeof(w->note), "%s", fi.have_pid ?
			 "the process it refers to has exited, or is in another pid namespace" :
			 "its descriptor's fdinfo names no process");
	}
	return 0;
}

/*
 * Decode the syscall it is blocked in: 0 when it said what the thread
 * waits on, 1 when it is not one that says, or -errno.
 */
static int res_syscall(struct wctx *c, struct wthread *t)
{
	const uint64_t *a = t->sys.arg;
	enum wsc sc = syscall_kind(t->sys.nr);
	char how[96];
	int ret;

	switch (sc) {
	case SC_READ:
		return res_fd(c, t, 0, WDIR_READ);
	case SC_WRITE:
		return res_fd(c, t, 0, WDIR_WRITE);
	case SC_CONNECT:
		return res_fd(c, t, 0, WDIR_CONNECT);
	case SC_ACCEPT:
		return res_fd(c, t, 0, WDIR_ACCEPT);
	case SC_SYNC:
		return res_fd(c, t, 0, WDIR_SYNC);
	case SC_WAIT4:
		snprintf(how, sizeof(how), "wait4(%d)", (int)a[0]);
		return res_child(c, t, (int)a[0], true, "syscall", how);
	case SC_WAITID:
		return res_waitid(c, t);
	case SC_FUTEX:
		return res_futex(c, t);
	case SC_FUTEX_WAITV:
		if (a[3])
			wthread_wakes(t, "futex_waitv's timeout");
		snprintf(how, sizeof(how), "%u futexes (futex_waitv)", (unsigned)a[1]);
		return plain(t, WK_FUTEX, "syscall", how, "");
	case SC_FLOCK:
		return res_lock(c, t, (int)a[0], "syscall");
	case SC_FCNTL:
		if (a[1] != F_SETLKW && a[1] != F_OFD_SETLKW)
			return 1;
		return res_lock(c, t, (int)a[0], "syscall");
	case SC_POLL:
		if ((int)a[2] >= 0)
			wthread_wakes(t, "poll's timeout (%d ms)", (int)a[2]);
		return res_poll(c, t, a[0], a[1]);
	case SC_PPOLL:
		if (a[2])
			wthread_wakes(t, "ppoll's timeout");
		ret = res_sigmask(c, t, a[3], a[4], "ppoll");
		return ret ? ret : res_poll(c, t, a[0], a[1]);
	case SC_SELECT:
		if (a[4])
			wthread_wakes(t, "select's timeout");
		return res_select(c, t, a);
	case SC_PSELECT:
		if (a[4])
			wthread_wakes(t, "pselect6's timeout");
		ret = res_pselect_mask(c, t, a[5]);
		return ret ? ret : res_select(c, t, a);
	case SC_EPOLL:
	case SC_EPOLL_P:
		if ((int)a[3] >= 0)
			wthread_wakes(t, "%s's timeout (%d ms)", wscan_syscall_name(t->sys.nr),
				      (int)a[3]);
		ret = sc == SC_EPOLL_P ? res_sigmask(c, t, a[4], a[5], "epoll_pwait") : 0;
		return ret ? ret : res_epoll(c, t, (int)a[0]);
	case SC_EPOLL_P2:
		if (a[3])
			wthread_wakes(t, "epoll_pwait2's timeout");
		ret = res_sigmask(c, t, a[4], a[5], "epoll_pwait2");
		return ret ? ret : res_epoll(c, t, (int)a[0]);
	case SC_SLEEP:
		return plain(t, WK_TIMER, "syscall", "a timer", wscan_syscall_name(t->sys.nr));
	case SC_SIGNAL:
		return plain(t, WK_SIGNAL, "syscall", "a signal", wscan_syscall_name(t->sys.nr));
	case SC_OPEN:
	case SC_OPENAT:
		if (t->cls != WC_FIFO_OPEN)
			return 1;
		return res_fifo_open(c, t, a[sc == SC_OPENAT ? 1 : 0]);
	default:
		return 1;
	}
}

/* what the frames say a D-state thread waits on (and the path it opens, if it does) */
static int res_uninterruptible(struct wctx *c, struct wthread *t, const char *source)
{
	struct wwait *w = wthread_wait(t, WK_IO, source);
	enum wsc sc = t->have_sys && t->sys.state == WSYS_IN ? syscall_kind(t->sys.nr) : SC_OTHER;
	char path[PATH_MAX] = "";
	int pr = 0;
	size_t n;

	if (!w)
		return -ENOMEM;
	snprintf(w->object, sizeof(w->object), "%s", t->cls == WC_NONE ?
		 "something in the kernel" : wclass_name(t->cls));
	if (sc == SC_OPEN || sc == SC_OPENAT)
		pr = wmem_read_str(c, t->pid, t->sys.arg[sc == SC_OPENAT ? 1 : 0], path,
				   sizeof(path));
	if ((sc == SC_OPEN || sc == SC_OPENAT) && !pr)
		snprintf(w->detail, sizeof(w->detail), "opening %.200s%s; ", path,
			 strlen(path) > 200 ? "..." : "");
	n = strlen(w->detail);
	if (t->kstack[0])
		snprintf(w->detail + n, sizeof(w->detail) - n, "in %.200s", t->kstack);
	else if (t->wchan[0])
		snprintf(w->detail + n, sizeof(w->detail) - n, "in %s", t->wchan);
	if (!t->kstack[0] && !t->wchan[0])
		snprintf(w->note, sizeof(w->note), "kernel stack: %.90s; wchan: %.130s", t->kstack_why,
			 t->wchan_why);
	else if (!t->kstack[0])
		snprintf(w->note, sizeof(w->note), "kernel stack: %s", t->kstack_why);
	n = strlen(w->note);
	if (pr)
		snprintf(w->note + n, sizeof(w->note) - n, "%sthe path it opens: %.120s",
			 n ? "; " : "", wmem_strerror(pr));
	return 0;
}

/* a kind of wait the wchan or stack names, with no descriptor or address to resolve */
static int res_class(struct wctx *c, struct wthread *t)
{
	const char *source = t->wchan[0] ? "wchan" : "stack";
	enum wkind k = WK_UNKNOWN;
	struct wwait *w;

	switch (t->cls) {
	case WC_CHILD:
		return res_child(c, t, -1, false, source, "in do_wait");
	case WC_FLOCK:
		return res_lock(c, t, -1, source);
	case WC_IDLE:
		return 0;
	case WC_IO:
	case WC_NFS:
	case WC_FAULT:
	case WC_KLOCK:
	case WC_FROZEN:
		return res_uninterruptible(c, t, source);
	case WC_PIPE_READ:
	case WC_PIPE_WRITE:
		k = WK_PIPE;
		break;
	case WC_FIFO_OPEN:
		k = WK_FIFO;
		break;
	case WC_FUTEX:
		k = WK_FUTEX;
		break;
	case WC_UNIX:
		k = WK_UNIX;
		break;
	case WC_SOCK_READ:
	case WC_SOCK_WRITE:
	case WC_CONNECT:
	case WC_ACCEPT:
		k = WK_SOCKET;
		break;
	case WC_POLL:
		k = WK_FD;
		break;
	case WC_SLEEP:
		k = WK_TIMER;
		break;
	case WC_SIGNAL:
		k = WK_SIGNAL;
		break;
	case WC_STOPPED:
		k = WK_STOPPED;
		break;
	case WC_TRACED:
		k = WK_TRACER;
		break;
	case WC_NONE:
		if (t->state == 'D')
			return res_uninterruptible(c, t, source);
		/* a kernel thread asleep in its own loop waits for work */
		if (t->kthread || (t->have_sys && t->sys.state == WSYS_OUTSIDE))
			return 0;
		break;
	}
	w = wthread_wait(t, k, k == WK_UNKNOWN ? "state" : source);
	if (!w)
		return -ENOMEM;
	snprintf(w->object, sizeof(w->object), "%s", k == WK_UNKNOWN ? "not known" :
		 wclass_name(t->cls));
	if (t->have_sys && t->sys.state == WSYS_IN && wscan_syscall_name(t->sys.nr))
		snprintf(w->detail, sizeof(w->detail), "in %s%s%s", wscan_syscall_name(t->sys.nr),
			 t->wchan[0] ? ", " : "", t->wchan);
	else if (t->have_sys && t->sys.state == WSYS_IN)
		snprintf(w->detail, sizeof(w->detail), "in syscall %ld%s%s", t->sys.nr,
			 t->wchan[0] ? ", " : "", t->wchan);
	else if (t->wchan[0])
		snprintf(w->detail, sizeof(w->detail), "in %s", t->wchan);
	if (!t->have_sys)
		snprintf(w->note, sizeof(w->note), "its syscall: %s", t->sys_why);
	return 0;
}

/* Z: its parent, which has not reaped it (unless other threads of it still run) */
static int res_zombie(struct wctx *c, struct wthread *t)
{
	struct wwait *w;
	size_t i;

	for (i = 0; i < c->s->n; i++)
		if (c->s->t[i].pid == t->pid && c->s->t[i].state != 'Z' &&
		    c->s->t[i].state != 'X')
			return 0;	/* the leader exited, the process lives on */
	w = wthread_wait(t, WK_REAP, "state");
	if (!w)
		return -ENOMEM;
	snprintf(w->object, sizeof(w->object), "its parent %d", t->ppid);
	snprintf(w->detail, sizeof(w->detail), "exited: waits to be reaped (wait4) by its parent");
	return t->ppid > 0 && !wctx_holder(c, w, t->ppid, "parent", -1, true) ? -ENOMEM : 0;
}

/* t: stopped by its tracer (TracerPid in status) */
static int res_traced(struct wctx *c, struct wthread *t)
{
	char path[96], buf[4096];
	struct wwait *w = wthread_wait(t, WK_TRACER, "state");
	uint64_t v = 0;
	long tracer = 0;
	ssize_t n;

	if (!w)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", t->pid, t->tid);
	n = file_read_buf(path, buf, sizeof(buf));
	if (n > 0 && wparse_status(buf, (size_t)n, "TracerPid", 10, &v, 1) == 1 && v <= INT32_MAX)
		tracer = (long)v;
	snprintf(w->object, sizeof(w->object), "its tracer %ld", tracer);
	snprintf(w->detail, sizeof(w->detail), "stopped by its tracer (ptrace): waits for it to "
		 "resume it");
	return tracer > 0 && !wctx_holder(c, w, (int32_t)tracer, "tracer", -1, true) ? -ENOMEM : 0;
}

int wres_thread(struct wctx *c, struct wthread *t)
{
	int ret;

	switch (t->state) {
	case 'R':
	case 'X':
	case 'x':
		return 0;
	case 'Z':
		return res_zombie(c, t);
	case 'T':
		return plain(t, WK_STOPPED, "state", "SIGCONT",
			     "stopped by a signal (job control): waits for SIGCONT");
	case 't':
		return res_traced(c, t);
	}
	if (t->have_sys && t->sys.state == WSYS_IN) {
		ret = res_syscall(c, t);
		if (ret <= 0)
			return ret;
	}
	return res_class(c, t);
}
