/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * waits: who waits on whom right now, from /proc. A snapshot of the
 * threads in a scope: each one's state, how long it has been in it (a
 * lower bound, or unknown and why), wchan, syscall, kernel stack, and what
 * it waits on, resolved to the processes or threads that hold it where
 * /proc can say; then the holders, followed in turn, and the wait-for
 * graph (waitgraph.h). No tracing, no ptrace attach, no signal: it reads
 * /proc, a socket diagnostics netlink dump, and a few bytes of a process's
 * memory (a futex word, poll's descriptor list) with process_vm_readv,
 * which takes ptrace's permission (PTRACE_MODE_ATTACH).
 */
#ifndef OFFCPU_WAITSCAN_H
#define OFFCPU_WAITSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "waitgraph.h"
#include "waitparse.h"

#define WSCAN_COMM_LEN 64	/* /proc/PID/comm: kworkers' names are longer than 16 */

/* why a thread's syscall, wchan and descriptors could not be read (its sys_why) */
#define WSCAN_DENIED_USER "not this user's process (root can read it)"
#define WSCAN_DENIED_PTRACE "ptrace access refused (Yama's ptrace_scope lets only " \
	"descendants be read, or the process is not dumpable)"
#define WSCAN_DENIED_ROOT "refused even to root (a kernel lockdown, or a process of " \
	"another user namespace)"
/* why a kernel stack could not be read (its kstack_why) */
#define WSCAN_STACK_ROOT "needs root (CAP_SYS_ADMIN): /proc/TID/stack"
#define WSCAN_STACK_REFUSED "refused even to root: "	/* then strerror() */
#define WSCAN_WCHAN_LEN 64

/* What a thread waits on. */
enum wkind {
	WK_PIPE,	/* an anonymous pipe: its other end */
	WK_FIFO,	/* a named pipe */
	WK_UNIX,	/* a unix socket: its peer, or its listener */
	WK_TCP,		/* a TCP socket: its state and queues, a local peer or listener */
	WK_SOCKET,	/* another socket */
	WK_TTY,		/* a terminal: someone to type */
	WK_FD,		/* another descriptor (eventfd, timerfd, a file) */
	WK_CHILD,	/* wait4/waitid: the children */
	WK_LOCK,	/* a file lock: its holder (/proc/locks) */
	WK_FUTEX,	/* a futex: its owner where it can be read, or the other waiters */
	WK_IO,		/* D state: disk, NFS, a page fault, a kernel lock */
	WK_TIMER,	/* nanosleep */
	WK_SIGNAL,	/* pause, sigsuspend, sigtimedwait */
	WK_STOPPED,	/* T: SIGCONT */
	WK_TRACER,	/* t: its tracer */
	WK_REAP,	/* Z: its parent, to reap it */
	WK_UNKNOWN,	/* asleep, and nothing readable says on what */
};
/* "pipe", "fifo", ... as JSON and the text print it */
const char *wkind_name(enum wkind k);

/* Who holds what a thread waits on (a process, or one thread of it). */
struct wholder {
	int32_t pid;
	int32_t tid;		/* the thread shown: the one asked for, or the one its chain
				 * follows (waitgraph.h's representative); 0 when not known */
	int32_t want_tid;	/* a particular thread (a futex's owner), else 0 */
	char comm[WSCAN_COMM_LEN];
	char state;		/* '?': not read */
	char wchan[WSCAN_WCHAN_LEN];	/* "": not readable */
	const char *role;	/* "writer", "reader", "peer", "child", "lock holder", ... */
	int fd;			/* its descriptor on the object, -1 */
	bool blocks;		/* a wait-for edge (not a fellow waiter, a candidate) */
};

struct wwait {
	enum wkind kind;
	char object[192];	/* "pipe:[87990]", "/tmp/lk", "127.0.0.1:5 -> 127.0.0.1:6" */
	char detail[256];	/* how it waits on it: "read, fd 0", "SYN-SENT, ..." */
	const char *source;	/* what said so: "syscall", "wchan", "stack", "state" */
	char note[256];		/* what could not be read about it; "" */
	bool passive;		/* waits for nobody in particular (a listener, for clients) */
	struct wholder *h;
	size_t nh, hcap;
};

struct wthread {
	int32_t pid, tid, ppid;
	char comm[WSCAN_COMM_LEN];
	char state;		/* stat's letter: R S D T t Z I X ... */
	int cpu;		/* the CPU it last ran on */
	bool target;		/* in the scope asked for; else a holder followed */
	bool kthread;		/* a kernel thread (PF_KTHREAD in its stat flags) */
	/* how long in this state: a lower bound when known */
	bool dur_known;
	uint64_t dur_ns;
	const char *dur_from;	/* "sched" (its last run against its CPU's clock), "watch" */
	char dur_why[160];	/* when not known */
	uint64_t exec_start;	/* se.exec_start, ns of its CPU's task clock */
	bool have_exec;
	uint64_t run_ns, pcount;	/* schedstat: run time, times put on a CPU */
	bool have_schedstat;
	char wchan[WSCAN_WCHAN_LEN];	/* "": see wchan_why */
	char wchan_why[160];
	struct wsys sys;
	bool have_sys;
	char sys_why[160];
	char kstack[640];	/* frames, innermost first, joined by " <- "; "": see why */
	char kstack_why[96];
	enum wclass cls;	/* what its wchan or stack names */
	struct wwait *w;
	size_t nw, wcap;
	size_t w_more;		/* objects of a poll not listed */
	/*
	 * what may end its wait with none of its named holders moving: a
	 * finite timeout, a signal its call lets through, descriptors not
	 * read, a wait with no holder named; "" none (see waitgraph.h)
	 */
	char wakes[256];
};

/* The threads to look at. */
struct wscope {
	const int32_t *pids;	/* these processes (npids of them) */
	size_t npids;
	int32_t tree;		/* > 0: this process and its descendants */
	uid_t uid;		/* neither: every process of this user (all: @all) */
	bool all;
};

struct wsnap {
	struct wthread *t;	/* targets first, then the holders followed */
	size_t n, cap;
	/* CLOCK_MONOTONIC before the first thread was read, and after the
	 * last CPU clock was: an earlier snapshot's end to a later one's start
	 * is time a thread seen asleep in both (and not run) surely slept */
	uint64_t start_ns, end_ns;
	time_t wall;
	size_t ntargets;	/* processes in the scope */
	unsigned fd_denied;	/* processes whose descriptors could not be read */
	unsigned gone;		/* processes that exited while being read */
	char notes[4][256];	/* said once for the snapshot */
	unsigned nnotes;
	struct wgraph *g;	/* over t[] (node i is t[i]) */
};

/*
 * A snapshot of @sc into @s (wscan_free() it). @prev (NULL: none), an
 * earlier snapshot of the same scope, lengthens the lower bounds of
 * threads that have not run since. 0 (a user's processes: maybe none);
 * -ESRCH when the processes asked for (PIDs, a tree) are gone; -ENOENT
 * when /proc is not there; -ENOMEM; with one line in @err.
 */
int wscan_take(const struct wscope *sc, const struct wsnap *prev, struct wsnap *s, char *err,
	       size_t errlen);
void wscan_free(struct wsnap *s);

/* the thread @tid in @s, or NULL */
const struct wthread *wscan_thread(const struct wsnap *s, int32_t tid);

/*
 * The name of syscall @nr on this architecture ("read"), or NULL for one
 * waits does not decode.
 */
const char *wscan_syscall_name(long nr);

#endif
