// SPDX-License-Identifier: GPL-2.0-or-later
/* Exited threads' run_delay and CPU time from the kernel's taskstats (taskstats.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "taskstats.h"

#define TS_BUF 65536
#define TS_RCVBUF (8 << 20)	/* a burst of exits between two reads */

/* netlink attributes are padded to 4 bytes */
#define ALIGN4(n) (((n) + 3u) & ~3u)

struct ts_msg {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[256];
};

/* A request with one attribute @type of @len bytes at @data; 0 or -errno. */
static int send_req(int fd, uint16_t family, uint8_t cmd, uint16_t type, const void *data,
		    uint16_t len)
{
	struct ts_msg m;
	struct nlattr *a = (struct nlattr *)m.attrs;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	ssize_t n;

	if ((size_t)NLA_HDRLEN + len > sizeof(m.attrs))
		return -EINVAL;
	memset(&m, 0, sizeof(m));
	m.g.cmd = cmd;
	m.g.version = 1;
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy(m.attrs + NLA_HDRLEN, data, len);
	m.n.nlmsg_len = (uint32_t)(NLMSG_LENGTH(GENL_HDRLEN) + ALIGN4(a->nla_len));
	m.n.nlmsg_type = family;
	m.n.nlmsg_flags = NLM_F_REQUEST;
	m.n.nlmsg_pid = 0;
	n = sendto(fd, &m, m.n.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to));
	return n < 0 ? -errno : 0;
}

/* TASKSTATS' family id, from the controller's answer; 0 or -errno */
static int family_id(int fd, uint16_t *id)
{
	char buf[TS_BUF];
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	ssize_t len;
	int ret = send_req(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
			   TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME));

	if (ret)
		return ret;
	len = recv(fd, buf, sizeof(buf), 0);
	if (len < 0)
		return -errno;
	if (!NLMSG_OK(n, (size_t)len) || n->nlmsg_type == NLMSG_ERROR)
		return -ENOENT;
	{
		char *p = (char *)NLMSG_DATA(n) + GENL_HDRLEN, *end = (char *)n + n->nlmsg_len;

		while (p + NLA_HDRLEN <= end) {
			struct nlattr *a = (struct nlattr *)p;

			if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
				break;
			if (a->nla_type == CTRL_ATTR_FAMILY_ID && a->nla_len >= NLA_HDRLEN + 2) {
				memcpy(id, p + NLA_HDRLEN, 2);
				return 0;
			}
			p += ALIGN4(a->nla_len);
		}
	}
	return -ENOENT;
}

int ts_open(struct ts_listener *l)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	int size = TS_RCVBUF, ret;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	memset(l, 0, sizeof(*l));
	l->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (l->fd < 0)
		return -errno;
	/* root may grow it past rmem_max; others get what rmem_max allows */
	if (setsockopt(l->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(l->fd, (struct sockaddr *)&me, sizeof(me))) {
		ret = -errno;
		goto fail;
	}
	ret = family_id(l->fd, &l->family);
	if (ret)
		goto fail;
	snprintf(l->cpumask, sizeof(l->cpumask), "0-%ld", ncpu > 0 ? ncpu - 1 : 0);
	ret = send_req(l->fd, l->family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,
		       l->cpumask, (uint16_t)(strlen(l->cpumask) + 1));
	if (ret)
		goto fail;
	if (fcntl(l->fd, F_SETFL, O_NONBLOCK)) {
		ret = -errno;
		goto fail;
	}
	return 0;
fail:
	close(l->fd);
	l->fd = -1;
	return ret;
}

/* the stats nested in one TASKSTATS_TYPE_AGGR_PID, to @cb; 1, or 0 when not whole */
static int aggr_pid(const char *p, const char *end, void (*cb)(void *, const struct ts_exit *),
		    void *arg)
{
	struct ts_exit e = { .tid = -1, .tgid = -1 };
	bool stats = false;

	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const struct nlattr *)p;
		uint16_t len = a->nla_len;

		if (len < NLA_HDRLEN || p + len > end)
			return 0;
		if (a->nla_type == TASKSTATS_TYPE_PID && len >= NLA_HDRLEN + 4) {
			uint32_t v;

			memcpy(&v, p + NLA_HDRLEN, 4);
			e.tid = (int32_t)v;
		} else if (a->nla_type == TASKSTATS_TYPE_STATS &&
			   (size_t)len >= NLA_HDRLEN + offsetof(struct taskstats,
								 cpu_run_virtual_total) + 8) {
			struct taskstats t;
			size_t body = (size_t)len - NLA_HDRLEN, n = body < sizeof(t) ? body : sizeof(t);

			memset(&t, 0, sizeof(t));
			memcpy(&t, p + NLA_HDRLEN, n);
			e.run_delay_ns = t.cpu_delay_total;
			e.exec_ns = t.cpu_run_virtual_total;
			stats = true;
		}
		p += ALIGN4(len);
	}
	if (e.tid <= 0 || !stats)
		return 0;
	cb(arg, &e);
	return 1;
}

int ts_parse(const void *buf, size_t len, void (*cb)(void *arg, const struct ts_exit *e),
	     void *arg)
{
	const struct nlmsghdr *n = buf;
	size_t left = len;
	int got = 0;

	for (; NLMSG_OK(n, left); n = NLMSG_NEXT(n, left)) {
		const char *p = (const char *)NLMSG_DATA(n) + GENL_HDRLEN;
		const char *end = (const char *)n + n->nlmsg_len;

		if (n->nlmsg_type == NLMSG_ERROR || n->nlmsg_type == NLMSG_DONE ||
		    n->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
			continue;
		while (p + NLA_HDRLEN <= end) {
			const struct nlattr *a = (const struct nlattr *)p;

			if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
				return -EINVAL;
			/* the thread's own (the process's, when it was the last, is apart) */
			if ((a->nla_type & NLA_TYPE_MASK) == TASKSTATS_TYPE_AGGR_PID)
				got += aggr_pid(p + NLA_HDRLEN, p + a->nla_len, cb, arg);
			p += ALIGN4(a->nla_len);
		}
	}
	return got;
}

int ts_drain(struct ts_listener *l, void (*cb)(void *arg, const struct ts_exit *e), void *arg)
{
	static char buf[TS_BUF];
	int total = 0;

	if (l->fd < 0)
		return 0;
	for (;;) {
		ssize_t n = recv(l->fd, buf, sizeof(buf), 0);
		int got;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			l->overrun++;	/* exits lost: the socket was full */
			continue;
		}
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? total : -errno;
		got = ts_parse(buf, (size_t)n, cb, arg);
		if (got > 0)
			total += got;
	}
}

void ts_close(struct ts_listener *l)
{
	if (!l || l->fd < 0)
		return;
	send_req(l->fd, l->family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
		 l->cpumask, (uint16_t)(strlen(l->cpumask) + 1));
	close(l->fd);
	l->fd = -1;
}
