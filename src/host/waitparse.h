/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * waits: the /proc texts that say what a thread waits for, parsed. A
 * thread's syscall and its scheduler clock, /proc/locks, /proc/net/unix
 * and /proc/net/tcp{,6}, fdinfo, and what a wchan or a kernel stack's
 * frames name. Pure: text in, structs out (tests/unit/check_waits.c reads
 * real captures).
 */
#ifndef OFFCPU_WAITPARSE_H
#define OFFCPU_WAITPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* what the files may hold, at the most (a host's locks, sockets) */
#define WAITPARSE_TEXT_MAX (64u << 20)

/* /proc/TID/syscall */
enum wsys_state {
	WSYS_IN,	/* blocked in syscall @nr with @arg */
	WSYS_OUTSIDE,	/* blocked outside a syscall (a page fault, a kernel thread) */
	WSYS_RUNNING,	/* "running": runnable, nothing to say */
};

struct wsys {
	enum wsys_state state;
	long nr;
	uint64_t arg[6];
};

/* "nr a0 .. a5 sp pc", "-1 sp pc" or "running" into @s. 0 or -EINVAL. */
int wparse_syscall(const char *text, size_t len, struct wsys *s);

/*
 * se.exec_start of /proc/TID/sched ("ms.nnnnnn": the rq clock when the
 * thread last ran, or last went off a CPU) in ns into *@ns. 0, -ENOENT
 * without the line, -EINVAL when it is malformed.
 */
int wparse_exec_start(const char *text, size_t len, uint64_t *ns);

/* One line of /proc/locks. */
struct wlock {
	unsigned id;		/* the line's number: waiters share their blocker's */
	unsigned depth;		/* 0: holds it; n: waits, n levels under a holder ("->") */
	char type[8];		/* FLOCK, POSIX, OFDLCK, LEASE, DELEG, ... */
	char mode[8];		/* READ, WRITE, UNLCK, ... */
	int32_t pid;		/* -1: an OFD lock (no process); < -1: a remote one */
	unsigned major, minor;	/* the file's device */
	uint64_t ino;		/* 0: no inode ("<none>") */
};

/*
 * /proc/locks into a newly allocated array *@v of *@n locks (caller frees).
 * 0, -ENOMEM, or -EINVAL with "line N: what" in @err.
 */
int wparse_locks(const char *text, size_t len, struct wlock **v, size_t *n, char *err,
		 size_t errlen);
/* The lock that blocks waiter @i (the nearest line above it one level up with its id); -1 */
long wlock_blocker(const struct wlock *v, size_t n, size_t i);

/* One line of /proc/net/unix. */
struct wunix {
	uint64_t inode;
	unsigned type;		/* SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET */
	unsigned state;		/* SS_UNCONNECTED 1 .. SS_DISCONNECTING 4 */
	bool listening;		/* __SO_ACCEPTCON in its flags */
	char path[110];		/* "" unnamed, "@name" abstract */
};

/*
 * /proc/net/unix into *@v (caller frees), sorted by inode. A socket's path
 * is printed as it is, newlines and all, so any user can put lines in it:
 * an inode on two lines is left out, and a line that is not one is
 * skipped and counted in *@bad (the first said in @err as "line N: what")
 * rather than losing the table. 0, or -ENOMEM, or -EINVAL for a text
 * that cannot be one at all (said in @err).
 */
int wparse_unix(const char *text, size_t len, struct wunix **v, size_t *n, size_t *bad,
		char *err, size_t errlen);

/* One line of /proc/net/tcp or tcp6. */
struct wtcp {
	bool v6;
	uint8_t laddr[16], raddr[16];	/* network order; an IPv4 one in the first 4 bytes */
	uint16_t lport, rport;
	unsigned state;			/* TCP_ESTABLISHED 1 .. TCP_NEW_SYN_RECV 12 */
	uint32_t txq, rxq;		/* a listener: its backlog, its accept queue */
	unsigned retrans;
	uint64_t inode;
};

/* /proc/net/tcp (@v6 false) or tcp6 into *@v (caller frees), as wparse_locks */
int wparse_tcp(const char *text, size_t len, bool v6, struct wtcp **v, size_t *n, char *err,
	       size_t errlen);
/* the state as ss(8) names it ("SYN-SENT"), "UNKNOWN" */
const char *wtcp_state_name(unsigned state);
/* "127.0.0.1:5555" or "[::1]:5555" into @buf (local or remote end) */
void wtcp_addr(const struct wtcp *t, bool remote, char *buf, size_t len);
/* Is the listener @l the one @c connects to (its port; its address, or any)? */
bool wtcp_listens_for(const struct wtcp *l, const struct wtcp *c);
/* Is @b the other end of @a (both on this host)? */
bool wtcp_is_peer(const struct wtcp *a, const struct wtcp *b);

/* One mount of /proc/PID/mountinfo. */
struct wmount {
	unsigned major, minor;	/* its device (st_dev of its files) */
	char fstype[32], source[96], point[96];	/* cut to fit */
};

/* Mount @mnt_id (fdinfo's mnt_id) in a /proc/PID/mountinfo text into @m. 0, -ENOENT. */
int wparse_mountinfo(const char *text, size_t len, int mnt_id, struct wmount *m);

/*
 * A descriptor's /proc/PID/fdinfo: the file's open flags (octal), its
 * mount's id and its inode ("ino:", since Linux 5.14), and a pidfd's
 * process ("Pid:", in this /proc's pid namespace; -1 once it exited),
 * each where given.
 * What waits knows of a file without stat(), which would ask the
 * file's filesystem (a dead NFS server does not answer).
 */
struct wfdinfo {
	unsigned flags;
	int mnt_id;
	uint64_t ino;
	int32_t pid;
	bool have_flags, have_mnt, have_ino, have_pid;
};
/* 0, or -EINVAL when a field is malformed */
int wparse_fdinfo(const char *text, size_t len, struct wfdinfo *fi);

/*
 * The line "@key:" of a /proc/PID/status text: its blank-separated words
 * as numbers in @base (10: "NSpid:" and "Uid:", 16: "SigCgt:"), at most
 * @max of them into @v. Returns how many were stored, -ENOENT without the
 * line, -EINVAL when a word is not a number (or there is none). The
 * kernel escapes a name's newline there, so a line is the kernel's.
 */
int wparse_status(const char *text, size_t len, const char *key, int base, uint64_t *v,
		  size_t max);

/*
 * Is @cpu in a CPU list ("0-3,8,10-11\n", as /sys/devices/system/cpu/isolated
 * has it; "" or "\n": none)? A part that is not a number or a range says no.
 */
bool wparse_cpulist_has(const char *text, size_t len, int cpu);

/*
 * The word size of a process from its /proc/PID/auxv (the kernel's copy:
 * no file is read): 64 or 32 for (type, value) pairs of that size, 0 when
 * it is neither.
 */
int wparse_auxv_bits(const void *auxv, size_t len);

/*
 * Could kernel frames @frames (" <- "-joined, as wparse_stack_class
 * writes them) be holding or waiting for a process's memory map lock (a
 * page fault, mmap, munmap, an rwsem)? Reading that process's memory
 * would then wait behind it.
 */
bool wparse_frames_mm(const char *frames);
/*
 * An epoll descriptor's fdinfo: the descriptors it watches ("tfd: N
 * events: HEX"), at most @max into @fds and their event masks into
 * @events. Returns how many it watches (maybe more than @max).
 */
size_t wparse_fdinfo_tfds(const char *text, size_t len, int *fds, unsigned *events,
			  size_t max);

/* What a kernel function (a wchan, a stack frame) says a thread waits for. */
enum wclass {
	WC_NONE,	/* nothing specific (schedule, wait_woken, ...) */
	WC_PIPE_READ,
	WC_PIPE_WRITE,
	WC_FIFO_OPEN,	/* open() of a FIFO: waits for the other end to open */
	WC_CHILD,	/* wait4, waitid */
	WC_FUTEX,
	WC_FLOCK,	/* flock, fcntl F_SETLKW */
	WC_UNIX,	/* a unix socket's data, or room in its peer */
	WC_SOCK_READ,	/* a socket's data (TCP, UDP) */
	WC_SOCK_WRITE,	/* room in a socket's send buffer */
	WC_CONNECT,
	WC_ACCEPT,
	WC_POLL,	/* poll, select, epoll */
	WC_SLEEP,	/* nanosleep: a timer */
	WC_SIGNAL,	/* pause, sigsuspend, sigtimedwait */
	WC_STOPPED,	/* job control stop */
	WC_TRACED,	/* a tracer holds it */
	WC_IO,		/* disk I/O: a page, a buffer, a request */
	WC_NFS,		/* NFS, RPC */
	WC_FAULT,	/* a page fault */
	WC_KLOCK,	/* a kernel mutex or rwsem */
	WC_FROZEN,	/* a write to a frozen filesystem (fsfreeze) */
	WC_IDLE,	/* a kernel thread waiting for work */
};

/* the class of kernel function [@fn, @fn + @len) (a ".constprop.0"-like suffix left out) */
enum wclass wparse_class(const char *fn, size_t len);
/* "pipe read", "a child", ... (one phrase per class) */
const char *wclass_name(enum wclass c);

/*
 * A kernel stack's text (/proc/TID/stack): the class of a thread in D state
 * (NFS before a page fault before disk I/O before a kernel lock: the most
 * telling one; a frozen filesystem before all), and the first @max frames' names into @frames joined by
 * " <- " (NULL: not wanted). WC_NONE when no frame says.
 */
enum wclass wparse_stack_class(const char *text, size_t len, char *frames, size_t flen,
			       unsigned max);

#endif
