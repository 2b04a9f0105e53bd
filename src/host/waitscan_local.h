/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * waits: what waitscan.c (the snapshot), waitres.c (what each thread
 * waits on), waitfd.c (descriptors: pipes, sockets, files) and sockdiag.c
 * (unix socket peers) share while one snapshot is taken.
 */
#ifndef OFFCPU_WAITSCAN_LOCAL_H
#define OFFCPU_WAITSCAN_LOCAL_H

#include "waitscan.h"

/* A process seen in /proc. */
struct wproc {
	int32_t pid, ppid, pgrp;
	uid_t uid;
	bool have_uid;
	char comm[WSCAN_COMM_LEN];
	char state;
	bool kthread;		/* a kernel thread (PF_KTHREAD): no descriptors */
	bool queued;		/* to be (or already) analyzed */
	bool target;
};

/*
 * One descriptor of some process, by what it refers to. Files are known
 * by their path and, from fdinfo, their inode: never stat(), which asks
 * the file's filesystem (a dead NFS server would hang the snapshot).
 */
struct wfd {
	int32_t pid;
	int fd;
	char type;		/* 'p' pipe, 's' socket, 'f' anything with a path */
	uint64_t ino;		/* pipe, socket: from the link */
	char *path;		/* 'f': the link (malloc'd) */
};

/* A unix socket and its peer, from sock_diag. */
struct wpeer {
	uint64_t ino, peer;
};

/* The socket tables of one network namespace. */
struct wnet {
	uint64_t ns;		/* its nsfs inode; 0: not known (read through @pid) */
	int32_t pid;
	struct wunix *ux;
	size_t nux;
	struct wtcp *tcp;	/* tcp, then tcp6 */
	size_t ntcp;
	char why[128];		/* a table that could not be read */
};

#define WNET_MAX 16

struct wctx {
	struct wsnap *s;
	const struct wscope *sc;
	struct wproc *procs;	/* sorted by pid */
	size_t np;
	int32_t *queue;		/* processes to analyze, in order */
	size_t nq, qcap, qdone;
	struct wfd *fds;	/* every readable descriptor (wfd_index) */
	size_t nfd, fdcap;
	bool fds_built;
	struct wlock *locks;
	size_t nlocks;
	int locks_err;		/* 1: not read yet */
	struct wpeer *peers;	/* sorted by ino */
	size_t npeers;
	int peers_err;		/* 1: not asked yet */
	uint64_t self_netns;
	uint64_t self_pidns;	/* this process's pid namespace (nsfs inode); 0 not read yet */
	struct wnet nets[WNET_MAX];
	size_t nnets;
};

/* waitscan.c */
struct wproc *wctx_proc(const struct wctx *c, int32_t pid);
/* follow process @pid: analyze its threads too (a holder). 0 or -ENOMEM */
int wctx_follow(struct wctx *c, int32_t pid);
/* a note said once for the snapshot */
void wctx_note(struct wctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct wwait *wthread_wait(struct wthread *t, enum wkind k, const char *source);
/* @w's object: @s, a long one (a path) cut to fit with "..." at the end */
void wwait_object(struct wwait *w, const char *s);
/* one more thing that may end @t's wait without its holders (t->wakes, "; "-joined) */
void wthread_wakes(struct wthread *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Process @pid holds what @w waits on (@role a static string: "writer",
 * ...; @fd its descriptor on it, -1; @blocks: a wait-for edge): a holder
 * added (once per process and role) and the process followed. NULL when
 * out of memory.
 */
struct wholder *wctx_holder(struct wctx *c, struct wwait *w, int32_t pid, const char *role,
			    int fd, bool blocks);
/*
 * @len bytes of process @pid's memory at @addr (process_vm_readv, which
 * takes the process's memory map lock). 0 or -errno; -EDEADLK, without
 * reading, when a thread of it is in D state with a stack that may hold
 * or wait for that lock (or a stack that cannot be read): the read would
 * wait behind it, and waits must not hang on a hung process.
 */
int wmem_read(struct wctx *c, int32_t pid, uint64_t addr, void *buf, size_t len);
/* a NUL-terminated string there, at most @len - 1 bytes of it; as wmem_read() */
int wmem_read_str(struct wctx *c, int32_t pid, uint64_t addr, char *buf, size_t len);
/* why wmem_read() failed, for a note */
const char *wmem_strerror(int err);

/* waitres.c: what thread @t waits on, into t->w */
int wres_thread(struct wctx *c, struct wthread *t);

/* waitfd.c */
enum wdir { WDIR_READ, WDIR_WRITE, WDIR_CONNECT, WDIR_ACCEPT, WDIR_SYNC };
/*
 * Thread @t waits on its descriptor @fd, to @dir: a wait added, its object
 * resolved to holders. @extra: appended to its detail ("one of 3 polled").
 */
int wfd_resolve(struct wctx *c, struct wthread *t, int fd, enum wdir dir, const char *extra);
/*
 * Processes other than @skip_pid with a descriptor on @path (and, where
 * both fdinfos say, inode @ino; 0: any): holders of @w with @role, not
 * wait-for edges (candidates).
 */
int wfd_holders_of_path(struct wctx *c, struct wwait *w, const char *path, uint64_t ino,
			int32_t skip_pid, const char *role);
/*
 * The device and inode of descriptor @fd of @pid, from its fdinfo (inode:
 * Linux 5.14 and later) and the mount its mnt_id names. 0, or -ENOENT.
 */
int wfd_file_id(int32_t pid, int fd, unsigned *major, unsigned *minor, uint64_t *ino);
/* descriptor @fd of @pid's fdinfo into @fi; 0 or -errno */
int wfd_info(int32_t pid, int fd, struct wfdinfo *fi);
/* "path" of /proc/PID/fd/FD into @buf; 0 or -errno */
int wfd_link(int32_t pid, int fd, char *buf, size_t len);
void wfd_free(struct wctx *c);

/* sockdiag.c: every unix socket's peer (ino -> peer ino), sorted by ino; 0 or -errno */
int sockdiag_unix_peers(struct wpeer **v, size_t *n);

#endif
