// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * waits: a thread blocked on one of its descriptors. What the descriptor
 * is (its link in /proc/PID/fd) and who holds the other side: a pipe's or
 * FIFO's other end (every process's descriptors, their access mode from
 * fdinfo), a unix socket's peer (sock_diag) or listener, a TCP socket's
 * local peer or listener (/proc/PID/net/tcp{,6}), the file and device of
 * a disk wait.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "fileread.h"
#include "grow.h"
#include "waitscan_local.h"

int wfd_link(int32_t pid, int fd, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	if (fd < 0)
		return -EBADF;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
	n = readlink(path, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	/* it fills the buffer: maybe cut (readlink says nothing), not the path */
	return (size_t)n == len - 1 ? -ENAMETOOLONG : 0;
}

/* "pipe:[123]" -> 123 */
static bool link_ino(const char *link, const char *prefix, uint64_t *ino)
{
	size_t n = strlen(prefix);
	char *end;

	if (strncmp(link, prefix, n))
		return false;
	*ino = strtoull(link + n, &end, 10);
	return end != link + n && !strcmp(end, "]");
}

static int cmp_fd(const void *a, const void *b)
{
	const struct wfd *x = a, *y = b;

	if (x->type != y->type)
		return x->type - y->type;
	if (x->ino != y->ino)
		return (x->ino > y->ino) - (x->ino < y->ino);
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->fd > y->fd) - (x->fd < y->fd);
}

/* the descriptors of process @pid into the index */
static int index_proc(struct wctx *c, int32_t pid)
{
	char dir[64], link[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	if (!d) {
		if (errno == EACCES || errno == EPERM)
			c->s->fd_denied++;
		return 0;
	}
	while ((de = readdir(d))) {
		struct wfd f = { .pid = pid };
		ssize_t n;
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		struct wfd *v;

		if (*end || end == de->d_name || fd < 0 || fd > INT32_MAX)
			continue;
		n = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);
		if (n <= 0 || (size_t)n == sizeof(link) - 1)
			continue;	/* gone, or maybe cut: never matched by a part of it */
		link[n] = '\0';
		f.fd = (int)fd;
		if (link_ino(link, "pipe:[", &f.ino))
			f.type = 'p';
		else if (link_ino(link, "socket:[", &f.ino))
			f.type = 's';
		else if (link[0] == '/')
			f.type = 'f';
		else
			continue;
		v = mem_grow(c->fds, &c->fdcap, c->nfd, sizeof(*v));
		if (v)
			c->fds = v;
		if (!v || (f.type == 'f' && !(f.path = strdup(link)))) {
			closedir(d);
			return -ENOMEM;
		}
		c->fds = v;
		v[c->nfd++] = f;
	}
	closedir(d);
	return 0;
}

/* Every process's pipes, sockets and files, once a wait needs them. */
static int index_build(struct wctx *c)
{
	size_t i;
	int ret;

	if (c->fds_built)
		return 0;
	c->fds_built = true;
	for (i = 0; i < c->np; i++) {
		if (c->procs[i].kthread)
			continue;	/* none, and root's only: not "could not be read" */
		ret = index_proc(c, c->procs[i].pid);
		if (ret)
			return ret;
	}
	if (c->nfd)	/* qsort of NULL, 0: undefined */
		qsort(c->fds, c->nfd, sizeof(*c->fds), cmp_fd);
	return 0;
}

/* the first index entry of (@type, @ino), or c->nfd */
static size_t index_find(const struct wctx *c, char type, uint64_t ino)
{
	size_t lo = 0, hi = c->nfd;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct wfd *f = &c->fds[mid];

		if (f->type < type || (f->type == type && f->ino < ino))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int wfd_info(int32_t pid, int fd, struct wfdinfo *fi)
{
	char path[64], buf[512];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	n = file_read_buf(path, buf, sizeof(buf));
	if (n <= 0)
		return n ? (int)n : -EIO;
	return wparse_fdinfo(buf, (size_t)n, fi);
}

/* O_RDONLY, O_WRONLY or O_RDWR of a descriptor (its fdinfo); -1 when unknown */
static int fd_mode(int32_t pid, int fd)
{
	struct wfdinfo fi;

	if (wfd_info(pid, fd, &fi) || !fi.have_flags)
		return -1;
	return (int)(fi.flags & O_ACCMODE);
}

/* is the file of (@pid, @fd) not inode @ino (0, or its fdinfo has none: not known)? */
static bool other_inode(int32_t pid, int fd, uint64_t ino)
{
	struct wfdinfo fi;

	return ino && !wfd_info(pid, fd, &fi) && fi.have_ino && fi.ino != ino;
}

int wfd_file_id(int32_t pid, int fd, unsigned *major, unsigned *minor, uint64_t *ino)
{
	char path[64];
	struct wfdinfo fi;
	struct wmount m;
	size_t len = 0;
	char *text;
	int ret;

	if (wfd_info(pid, fd, &fi) || !fi.have_ino || !fi.have_mnt)
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	text = file_read_max(path, WAITPARSE_TEXT_MAX, &len);
	ret = text ? wparse_mountinfo(text, len, fi.mnt_id, &m) : -ENOENT;
	free(text);
	if (ret)
		return ret;
	*major = m.major;
	*minor = m.minor;
	*ino = fi.ino;
	return 0;
}

/* what to say when no holder was found: who could not be looked at */
static void no_holder(struct wctx *c, struct wwait *w, const char *what)
{
	if (w->nh)
		return;
	if (c->s->fd_denied)
		snprintf(w->note, sizeof(w->note), "no %s among the processes whose descriptors "
			 "could be read; %u could not be (not this user's: root sees all)", what,
			 c->s->fd_denied);
	else
		snprintf(w->note, sizeof(w->note), "no %s found in any process (it may have just "
			 "gone)", what);
}

/* may index entry @f be the other end of a pipe (@ino) or FIFO (@path, @ino)? */
static bool pipe_end(const struct wfd *f, const char *path, uint64_t ino)
{
	if (!path)
		return f->type == 'p' && f->ino == ino;
	return f->type == 'f' && !strcmp(f->path, path) && !other_inode(f->pid, f->fd, ino);
}

/*
 * The holders of a pipe (inode @ino) or FIFO (@path; @ino from fdinfo, 0
 * when not given): its writers when @t reads, its readers when it
 * writes.
 */
static int pipe_holders(struct wctx *c, struct wthread *t, struct wwait *w, int fd,
			const char *path, uint64_t ino, enum wdir dir)
{
	bool reads = dir != WDIR_WRITE;
	size_t i;

	for (i = path ? 0 : index_find(c, 'p', ino); i < c->nfd; i++) {
		const struct wfd *f = &c->fds[i];
		int mode;

		if (!path && (f->type != 'p' || f->ino != ino))
			break;	/* sorted: past the pipe's entries */
		if (!pipe_end(f, path, ino) || (f->pid == t->pid && f->fd == fd))
			continue;
		mode = fd_mode(f->pid, f->fd);
		if (mode >= 0 && mode != O_RDWR && mode != (reads ? O_WRONLY : O_RDONLY))
			continue;
		if (!wctx_holder(c, w, f->pid, reads ? "writer" : "reader", f->fd, true))
			return -ENOMEM;
	}
	no_holder(c, w, reads ? "writer" : "reader");
	return 0;
}

static void detail_set(struct wwait *w, const char *extra, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void detail_set(struct wwait *w, const char *extra, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(w->detail, sizeof(w->detail), fmt, ap);
	va_end(ap);
	n = strlen(w->detail);
	if (extra && n < sizeof(w->detail))
		snprintf(w->detail + n, sizeof(w->detail) - n, " (%s)", extra);
}

static const char *dir_verb(enum wdir dir)
{
	static const char *const verbs[] = {
		[WDIR_READ] = "reading", [WDIR_WRITE] = "writing", [WDIR_CONNECT] = "connecting",
		[WDIR_ACCEPT] = "accepting on", [WDIR_SYNC] = "syncing",
	};

	return verbs[dir];
}

int wfd_holders_of_path(struct wctx *c, struct wwait *w, const char *path, uint64_t ino,
			int32_t skip_pid, const char *role)
{
	size_t i;
	int ret = index_build(c);

	for (i = 0; !ret && i < c->nfd; i++) {
		const struct wfd *f = &c->fds[i];

		if (f->type != 'f' || f->pid == skip_pid || strcmp(f->path, path) ||
		    other_inode(f->pid, f->fd, ino))
			continue;
		if (!wctx_holder(c, w, f->pid, role, f->fd, false))
			ret = -ENOMEM;
	}
	return ret;
}

/* The socket tables of process @pid's network namespace, read once per namespace. */
static struct wnet *net_of(struct wctx *c, int32_t pid)
{
	char path[64], err[128];
	struct stat st;
	struct wnet *n;
	uint64_t ns = 0;
	size_t i, len, n4 = 0, n6 = 0, bad = 0;
	struct wtcp *t4 = NULL, *t6 = NULL;
	char *text;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	if (!stat(path, &st))
		ns = st.st_ino;
	for (i = 0; i < c->nnets; i++)
		if (ns ? c->nets[i].ns == ns : c->nets[i].pid == pid)
			return &c->nets[i];
	if (c->nnets == WNET_MAX)
		return NULL;
	n = &c->nets[c->nnets++];
	n->ns = ns;
	n->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/net/unix", pid);
	if ((text = file_read_max(path, WAITPARSE_TEXT_MAX, &len))) {
		ret = wparse_unix(text, len, &n->ux, &n->nux, &bad, err, sizeof(err));
		if (ret)
			snprintf(n->why, sizeof(n->why), "%.40s: %.80s", path,
				 ret == -ENOMEM ? "out of memory" : err);
		else if (bad)
			/* a path with a newline (any user may bind one) forges lines */
			wctx_note(c, "%zu line%s of /proc/net/unix (network namespace of process %d) "
				  "not understood, skipped (%.60s: a socket path with a newline "
				  "forges lines)", bad, bad == 1 ? "" : "s", pid, err);
	} else {
		snprintf(n->why, sizeof(n->why), "%s: %s", path, strerror(errno));
	}
	free(text);
	snprintf(path, sizeof(path), "/proc/%d/net/tcp", pid);
	if ((text = file_read_max(path, WAITPARSE_TEXT_MAX, &len)) &&
	    wparse_tcp(text, len, false, &t4, &n4, err, sizeof(err)) && !n->why[0])
		snprintf(n->why, sizeof(n->why), "%.40s: %.80s", path, err);
	free(text);
	snprintf(path, sizeof(path), "/proc/%d/net/tcp6", pid);
	if ((text = file_read_max(path, WAITPARSE_TEXT_MAX, &len)) &&
	    wparse_tcp(text, len, true, &t6, &n6, err, sizeof(err)) && !n->why[0])
		snprintf(n->why, sizeof(n->why), "%.40s: %.80s", path, err);
	free(text);
	n->tcp = realloc(t4, (n4 + n6 + 1) * sizeof(*t4));
	if (!n->tcp) {
		free(t4);
		n4 = 0;
	} else if (n6) {
		memcpy(n->tcp + n4, t6, n6 * sizeof(*t6));
	}
	n->ntcp = n->tcp ? n4 + n6 : 0;
	free(t6);
	return n;
}

/* the holders of socket inode @ino (any process's descriptor on it) */
static int socket_holders(struct wctx *c, struct wwait *w, uint64_t ino, const char *role,
			  int32_t skip_pid, int skip_fd)
{
	size_t i;

	for (i = index_find(c, 's', ino); i < c->nfd && c->fds[i].type == 's' &&
	     c->fds[i].ino == ino; i++) {
		const struct wfd *f = &c->fds[i];

		if (f->pid == skip_pid && f->fd == skip_fd)
			continue;
		if (!wctx_holder(c, w, f->pid, role, f->fd, true))
			return -ENOMEM;
	}
	return 0;
}

/* unix socket @ino's peer (sock_diag, in this process's network namespace) */
static int unix_peer(struct wctx *c, uint64_t ino, uint64_t *peer)
{
	size_t lo = 0, hi;

	if (c->peers_err == 1)
		c->peers_err = sockdiag_unix_peers(&c->peers, &c->npeers);
	if (c->peers_err)
		return c->peers_err;
	hi = c->npeers;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->peers[mid].ino == ino) {
			*peer = c->peers[mid].peer;
			return 0;
		}
		if (c->peers[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

/* connect() on a unix socket: the listener its address names */
static int unix_connect(struct wctx *c, struct wthread *t, struct wwait *w,
			const struct wnet *net)
{
	struct sockaddr_un sa;
	char path[sizeof(sa.sun_path) + 1];
	size_t i, n;

	if (!t->have_sys || wmem_read(c, t->pid, t->sys.arg[1], &sa, sizeof(sa)) ||
	    sa.sun_family != AF_UNIX) {
		snprintf(w->note, sizeof(w->note), "the address it connects to could not be read");
		return 0;
	}
	n = t->sys.arg[2] > offsetof(struct sockaddr_un, sun_path) ?
	    (size_t)t->sys.arg[2] - offsetof(struct sockaddr_un, sun_path) : 0;
	if (n > sizeof(sa.sun_path))
		n = sizeof(sa.sun_path);
	memcpy(path, sa.sun_path, n);
	path[n] = '\0';
	if (n && !path[0])
		path[0] = '@';	/* abstract, as /proc/net/unix writes it */
	snprintf(w->object, sizeof(w->object), "%s", path);
	for (i = 0; i < net->nux; i++)
		if (net->ux[i].listening && !strcmp(net->ux[i].path, path))
			return socket_holders(c, w, net->ux[i].inode, "listener", -1, -1);
	snprintf(w->note, sizeof(w->note), "no socket listens on %s here", path);
	return 0;
}

static const char *unix_type(unsigned type)
{
	return type == SOCK_STREAM ? "stream" : type == SOCK_DGRAM ? "datagram" :
	       type == SOCK_SEQPACKET ? "seqpacket" : "unix";
}

static int unix_wait(struct wctx *c, struct wthread *t, struct wwait *w, const struct wnet *net,
		     const struct wunix *u, int fd, enum wdir dir, const char *extra)
{
	uint64_t peer = 0;
	int ret;

	w->kind = WK_UNIX;
	if (u->path[0])	/* else the link's "socket:[N]" stays */
		snprintf(w->object, sizeof(w->object), "%s", u->path);
	if (dir == WDIR_ACCEPT || u->listening) {
		w->passive = true;
		detail_set(w, extra, "listening (%s, fd %d): waits for a client to connect",
			   unix_type(u->type), fd);
		return 0;
	}
	if (dir == WDIR_CONNECT) {
		detail_set(w, extra, "connecting (%s, fd %d): the listener's backlog is full, "
			   "waits for it to accept", unix_type(u->type), fd);
		return unix_connect(c, t, w, net);
	}
	detail_set(w, extra, "%s fd %d (%s): waits for its peer to %s", dir_verb(dir), fd,
		   unix_type(u->type), dir == WDIR_WRITE ? "read (its queue is full)" : "write");
	if (c->self_netns && net->ns && net->ns != c->self_netns) {
		snprintf(w->note, sizeof(w->note), "in another network namespace: its peer is "
			 "not known from here");
		return 0;
	}
	ret = unix_peer(c, u->inode, &peer);
	if (ret || !peer) {
		snprintf(w->note, sizeof(w->note), "%s", ret == -ENOENT || (!ret && !peer) ?
			 "no peer: an unconnected socket, any process may send to it" :
			 "its peer is not known: sock_diag refused");
		if (ret && ret != -ENOENT)
			snprintf(w->note + strlen(w->note), sizeof(w->note) - strlen(w->note),
				 " (%s)", strerror(-ret));
		return 0;
	}
	ret = socket_holders(c, w, peer, "peer", -1, -1);
	if (!ret && !w->nh)
		no_holder(c, w, "holder of its peer");
	return ret;
}

/* unix socket @ino in @net's table (sorted by inode: wparse_unix), or NULL */
static const struct wunix *unix_find(const struct wnet *net, uint64_t ino)
{
	size_t lo = 0, hi = net->nux;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (net->ux[mid].inode == ino)
			return &net->ux[mid];
		if (net->ux[mid].inode < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const struct wtcp *tcp_find(const struct wnet *net, uint64_t ino)
{
	size_t i;

	for (i = 0; i < net->ntcp; i++)
		if (net->tcp[i].inode == ino)
			return &net->tcp[i];
	return NULL;
}

/* SYN-SENT: the local listener it connects to, and whether its accept queue is full */
static int tcp_connect(struct wctx *c, struct wwait *w, const struct wnet *net,
		       const struct wtcp *e)
{
	size_t i, n = strlen(w->detail);

	for (i = 0; i < net->ntcp; i++) {
		const struct wtcp *l = &net->tcp[i];

		if (!wtcp_listens_for(l, e))
			continue;
		snprintf(w->detail + n, sizeof(w->detail) - n, "; its listener's accept queue "
			 "holds %u of %u%s", l->rxq, l->txq + 1, l->rxq > l->txq ?
			 ": full, the SYN is dropped until it accepts" : "");
		return socket_holders(c, w, l->inode, "listener", -1, -1);
	}
	snprintf(w->detail + n, sizeof(w->detail) - n, "; nothing listens there on this host "
		 "(another host, or another network namespace)");
	return 0;
}

static int tcp_wait(struct wctx *c, struct wwait *w, const struct wnet *net,
		    const struct wtcp *e, int fd, enum wdir dir, const char *extra)
{
	char la[64], ra[64];
	size_t i, n;

	w->kind = WK_TCP;
	wtcp_addr(e, false, la, sizeof(la));
	wtcp_addr(e, true, ra, sizeof(ra));
	if (e->state == 10) {
		w->passive = true;
		snprintf(w->object, sizeof(w->object), "%s", la);
		detail_set(w, extra, "LISTEN, fd %d, accept queue %u of %u: waits for a client",
			   fd, e->rxq, e->txq + 1);
		return 0;
	}
	snprintf(w->object, sizeof(w->object), "%s -> %s", la, ra);
	detail_set(w, extra, "%s fd %d: %s, send queue %u, receive queue %u%s%s", dir_verb(dir), fd,
		   wtcp_state_name(e->state), e->txq, e->rxq,
		   e->state == 8 ? ", the peer closed its end" : "",
		   e->state == 2 ? "" : dir == WDIR_WRITE ?
		   ": the send buffer is full, waits for the peer to read" :
		   dir == WDIR_READ ? ": waits for the peer to send" : "");
	if (e->retrans) {
		n = strlen(w->detail);
		snprintf(w->detail + n, sizeof(w->detail) - n, ", %u retransmissions", e->retrans);
	}
	if (e->state == 2)
		return tcp_connect(c, w, net, e);
	for (i = 0; i < net->ntcp; i++) {
		const struct wtcp *p = &net->tcp[i];

		if (!wtcp_is_peer(e, p))
			continue;
		n = strlen(w->detail);
		snprintf(w->detail + n, sizeof(w->detail) - n, "; the peer's send queue %u, "
			 "receive queue %u", p->txq, p->rxq);
		return socket_holders(c, w, p->inode, "peer", -1, -1);
	}
	n = strlen(w->detail);
	snprintf(w->detail + n, sizeof(w->detail) - n, "; the peer is not on this host "
		 "(or in another network namespace)");
	return 0;
}

/* a socket: unix, TCP, or another kind named only */
static int socket_wait(struct wctx *c, struct wthread *t, struct wwait *w, uint64_t ino, int fd,
		       enum wdir dir, const char *extra)
{
	const struct wnet *net = net_of(c, t->pid);
	const struct wunix *u;
	const struct wtcp *e;

	if (!c->self_netns) {
		struct stat st;

		c->self_netns = stat("/proc/self/ns/net", &st) ? 0 : st.st_ino;
	}
	if (!net) {
		snprintf(w->note, sizeof(w->note), "more network namespaces than waits reads");
		return 0;
	}
	u = unix_find(net, ino);
	if (u)
		return unix_wait(c, t, w, net, u, fd, dir, extra);
	e = tcp_find(net, ino);
	if (e)
		return tcp_wait(c, w, net, e, fd, dir, extra);
	detail_set(w, extra, "%s fd %d", dir_verb(dir), fd);
	snprintf(w->note, sizeof(w->note), "not in /proc/net/unix or tcp (UDP, netlink, ..., or a "
		 "unix socket whose path forged a second line): no holder to name%s%.100s",
		 net->why[0] ? "; " : "", net->why);
	return 0;
}

/*
 * The filesystem a file of descriptor @fd lives on, from its mount
 * (fdinfo's mnt_id in /proc/PID/mountinfo): "ext4 /dev/loop0 on /mnt
 * (7:0)", "nfs4 server:/x on /home (0:53)".
 */
static void file_mount(int32_t pid, int fd, char *buf, size_t len)
{
	char path[64];
	struct wfdinfo fi;
	struct wmount m;
	size_t tlen = 0;
	char *mi = NULL;

	snprintf(buf, len, "a filesystem not known");
	if (wfd_info(pid, fd, &fi) || !fi.have_mnt)
		return;
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	mi = file_read_max(path, WAITPARSE_TEXT_MAX, &tlen);
	if (mi && !wparse_mountinfo(mi, tlen, fi.mnt_id, &m))
		snprintf(buf, len, "%.20s %.60s on %.50s (%u:%u)", m.fstype, m.source, m.point,
			 m.major, m.minor);
	free(mi);
}

/* a file, a device, a terminal: what it is, and for a disk wait where */
static int file_wait(struct wthread *t, struct wwait *w, const char *link, int fd,
		     enum wdir dir, const char *extra)
{
	char dev[200];
	bool io = t->state == 'D' || dir == WDIR_SYNC || t->cls == WC_IO || t->cls == WC_NFS ||
		  t->cls == WC_FAULT || t->cls == WC_FROZEN;

	wwait_object(w, link);
	/* by its name: stat() would ask the file's filesystem */
	if (!io && (!strncmp(link, "/dev/pts/", 9) || !strncmp(link, "/dev/tty", 8) ||
		    !strcmp(link, "/dev/console"))) {
		w->kind = WK_TTY;
		detail_set(w, extra, "%s fd %d: waits for %s", dir_verb(dir), fd, dir == WDIR_READ ?
			   "input (someone to type, or the terminal to close)" :
			   "the terminal (output stopped?)");
		return 0;
	}
	if (!io) {
		w->kind = WK_FD;
		detail_set(w, extra, "%s fd %d%s%s", dir_verb(dir), fd, t->wchan[0] ? ", in " : "",
			   t->wchan);
		return 0;
	}
	w->kind = WK_IO;
	file_mount(t->pid, fd, dev, sizeof(dev));
	detail_set(w, extra, "%s fd %d on %s: %s%s%s", dir_verb(dir), fd, dev,
		   t->cls != WC_NONE ? wclass_name(t->cls) : "uninterruptible",
		   t->kstack[0] || t->wchan[0] ? ", in " : "", t->kstack[0] ? t->kstack : t->wchan);
	if (!t->kstack[0])
		snprintf(w->note, sizeof(w->note), "kernel stack: %s", t->kstack_why);
	return 0;
}

int wfd_resolve(struct wctx *c, struct wthread *t, int fd, enum wdir dir, const char *extra)
{
	char link[PATH_MAX];
	struct wwait *w = wthread_wait(t, WK_FD, "syscall");
	struct wfdinfo fi;
	uint64_t ino;
	int ret;

	if (!w)
		return -ENOMEM;
	ret = wfd_link(t->pid, fd, link, sizeof(link));
	if (ret) {
		snprintf(w->object, sizeof(w->object), "fd %d", fd);
		detail_set(w, extra, "%s fd %d", dir_verb(dir), fd);
		snprintf(w->note, sizeof(w->note), "its descriptor could not be read: %s",
			 strerror(-ret));
		return 0;
	}
	wwait_object(w, link);
	ret = index_build(c);
	if (ret)
		return ret;
	if (link_ino(link, "pipe:[", &ino)) {
		w->kind = WK_PIPE;
		detail_set(w, extra, "%s fd %d: %s", dir_verb(dir), fd, dir == WDIR_WRITE ?
			   "full, waits for a reader" : "empty, waits for a writer");
		return pipe_holders(c, t, w, fd, NULL, ino, dir);
	}
	if (link_ino(link, "socket:[", &ino)) {
		w->kind = WK_SOCKET;
		return socket_wait(c, t, w, ino, fd, dir, extra);
	}
	if (link[0] == '/' && (t->cls == WC_PIPE_READ || t->cls == WC_PIPE_WRITE)) {
		/* a path in the pipe code: a FIFO, whose other end is found by its path */
		w->kind = WK_FIFO;
		detail_set(w, extra, "%s fd %d: %s", dir_verb(dir), fd, dir == WDIR_WRITE ?
			   "full, waits for a reader" : "empty, waits for a writer");
		return pipe_holders(c, t, w, fd, link, !wfd_info(t->pid, fd, &fi) && fi.have_ino ?
				    fi.ino : 0, dir);
	}
	if (link[0] != '/') {	/* anon_inode:[eventfd], ... */
		detail_set(w, extra, "%s fd %d", dir_verb(dir), fd);
		return 0;
	}
	return file_wait(t, w, link, fd, dir, extra);
}

void wfd_free(struct wctx *c)
{
	size_t i;

	for (i = 0; i < c->nfd; i++)
		free(c->fds[i].path);
	free(c->fds);
	c->fds = NULL;
	c->nfd = c->fdcap = 0;
}
