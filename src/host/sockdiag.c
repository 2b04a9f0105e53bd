// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * waits: every unix socket's peer, from the kernel's socket diagnostics
 * (NETLINK_SOCK_DIAG, UNIX_DIAG_PEER): /proc/net/unix has no peer column.
 * Any user may dump them; it sees this process's network namespace.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>

#include "grow.h"
#include "waitscan_local.h"

static int cmp_peer(const void *a, const void *b)
{
	const struct wpeer *x = a, *y = b;

	return (x->ino > y->ino) - (x->ino < y->ino);
}

/* one reply message: its inode and UNIX_DIAG_PEER attribute, if any */
static int peer_of(const struct nlmsghdr *h, struct wpeer *p)
{
	const struct unix_diag_msg *m = NLMSG_DATA(h);
	const struct rtattr *a;
	int len = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));

	if (len < 0)
		return -EINVAL;
	p->ino = m->udiag_ino;
	p->peer = 0;
	for (a = (const struct rtattr *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		uint32_t peer;

		if (a->rta_type != UNIX_DIAG_PEER || RTA_PAYLOAD(a) < sizeof(peer))
			continue;
		memcpy(&peer, RTA_DATA(a), sizeof(peer));
		p->peer = peer;
	}
	return 0;
}

/* the replies to the dump, into *v; 0, or -errno */
static int read_replies(int fd, struct wpeer **v, size_t *n, size_t *cap)
{
	static char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));

	for (;;) {
		ssize_t r = recv(fd, buf, sizeof(buf), 0);
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
		int len = (int)r;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;
		for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			struct wpeer *nv;

			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error ? e->error : -EIO;
			}
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
				continue;
			nv = mem_grow(*v, cap, *n, sizeof(**v));
			if (!nv)
				return -ENOMEM;
			*v = nv;
			if (peer_of(h, &nv[*n]) == 0)
				(*n)++;
		}
	}
}

int sockdiag_unix_peers(struct wpeer **v, size_t *n)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req r;
	} req;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	size_t cap = 0;
	int fd, ret;

	*v = NULL;
	*n = 0;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.r.sdiag_family = AF_UNIX;
	req.r.udiag_states = ~0u;
	req.r.udiag_show = UDIAG_SHOW_PEER;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ret = read_replies(fd, v, n, &cap);
	close(fd);
	if (ret) {
		free(*v);
		*v = NULL;
		*n = 0;
		return ret;
	}
	if (*n)	/* qsort of NULL, 0: undefined */
		qsort(*v, *n, sizeof(**v), cmp_peer);
	return 0;
}
