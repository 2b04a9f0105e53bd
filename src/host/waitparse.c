// SPDX-License-Identifier: GPL-2.0-or-later
/* waits: /proc texts about a thread's wait, parsed (waitparse.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include "grow.h"
#include "linescan.h"
#include "procfs.h"
#include "waitparse.h"


/* The next blank-separated word of [*p, e) into [*ws, *we); false at the end */
static bool next_word(const char **p, const char *e, const char **ws, const char **we)
{
	const char *s = skip_ws(*p, e), *t = s;

	while (t < e && !is_blank(*t))
		t++;
	*ws = s;
	*we = t;
	*p = t;
	return t > s;
}

/* a word "0x1f" or "1f" in base 16 */
static int word_hex(const char *s, const char *e, uint64_t *v)
{
	if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	return span_u64(s, e, 16, v);
}

int wparse_syscall(const char *text, size_t len, struct wsys *s)
{
	const char *p = text, *e = text + len, *ws, *we;
	uint64_t v;
	int i;

	memset(s, 0, sizeof(*s));
	e = rtrim(text, len && e[-1] == '\n' ? e - 1 : e);
	if (span_eq(text, e, "running")) {
		s->state = WSYS_RUNNING;
		return 0;
	}
	if (!next_word(&p, e, &ws, &we))
		return -EINVAL;
	if (span_eq(ws, we, "-1")) {
		s->state = WSYS_OUTSIDE;
		s->nr = -1;
		return 0;
	}
	if (span_u64(ws, we, 10, &v) || v > 100000)
		return -EINVAL;
	s->state = WSYS_IN;
	s->nr = (long)v;
	for (i = 0; i < 6; i++)
		if (!next_word(&p, e, &ws, &we) || word_hex(ws, we, &s->arg[i]))
			return -EINVAL;
	return 0;
}

int wparse_exec_start(const char *text, size_t len, uint64_t *ns)
{
	struct reader r;
	uint64_t ms, frac;
	bool body = false;

	reader_init(&r, text, len);
	while (reader_next(&r)) {
		const char *p, *dot, *e;

		/* after the "comm (pid, #threads: n)" header and its dashes: a name may hold "\n" */
		if (!body) {
			body = span_starts(r.ls, r.le, "---");
			continue;
		}
		if (!span_starts(r.ls, r.le, "se.exec_start"))
			continue;
		p = r.ls + strlen("se.exec_start");
		p = skip_ws(p, r.le);
		if (p == r.le || *p != ':')
			return -EINVAL;
		p = skip_ws(p + 1, r.le);
		e = rtrim(p, r.le);
		/* "%Ld.%06ld": milliseconds, then exactly six digits of ns */
		dot = memchr(p, '.', (size_t)(e - p));
		if (!dot || e - dot != 7 || span_u64(p, dot, 10, &ms) ||
		    span_u64(dot + 1, e, 10, &frac) || ms > UINT64_MAX / 1000000 - 1)
			return -EINVAL;
		*ns = ms * 1000000 + frac;
		return 0;
	}
	return -ENOENT;
}

/* "fe:00:5309935" (major:minor in hex, the inode in decimal) */
static int lock_file(const char *s, const char *e, struct wlock *l)
{
	const char *c1 = memchr(s, ':', (size_t)(e - s)), *c2;
	uint64_t maj, min;

	if (span_eq(s, e, "<none>:0") || span_starts(s, e, "<none>")) {
		l->ino = 0;
		return 0;
	}
	c2 = c1 ? memchr(c1 + 1, ':', (size_t)(e - c1 - 1)) : NULL;
	if (!c2 || span_u64(s, c1, 16, &maj) || span_u64(c1 + 1, c2, 16, &min) ||
	    span_u64(c2 + 1, e, 10, &l->ino) || maj > 0xfff || min > 0xfffff)
		return -EINVAL;
	l->major = (unsigned)maj;
	l->minor = (unsigned)min;
	return 0;
}

/* a word into a fixed field, cut to fit */
static void word_copy(char *dst, size_t size, const char *s, const char *e)
{
	size_t n = (size_t)(e - s);

	if (n > size - 1)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* "1: -> FLOCK  ADVISORY  WRITE 30161 fe:00:5309935 0 EOF" */
static int lock_line(const char *ls, const char *le, struct wlock *l)
{
	const char *p = ls, *ws, *we, *colon = memchr(ls, ':', (size_t)(le - ls));
	uint64_t v;

	memset(l, 0, sizeof(*l));
	if (!colon || span_u64(ls, colon, 10, &v) || v > UINT32_MAX)
		return -EINVAL;
	l->id = (unsigned)v;
	p = colon + 1;
	/* waiters: "N: -> ", one more space before "->" per level below */
	ws = skip_ws(p, le);
	if (span_starts(ws, le, "->")) {
		l->depth = (unsigned)(ws - p);
		p = ws + 2;
	}
	if (!next_word(&p, le, &ws, &we))
		return -EINVAL;
	word_copy(l->type, sizeof(l->type), ws, we);
	/* ADVISORY / MANDATORY / ACTIVE / BREAKING / BREAKER */
	if (!next_word(&p, le, &ws, &we) || !next_word(&p, le, &ws, &we))
		return -EINVAL;
	word_copy(l->mode, sizeof(l->mode), ws, we);
	if (!next_word(&p, le, &ws, &we))
		return -EINVAL;
	if (*ws == '-') {
		if (span_u64(ws + 1, we, 10, &v) || v > INT32_MAX)
			return -EINVAL;
		l->pid = -(int32_t)v;
	} else {
		if (span_u64(ws, we, 10, &v) || v > INT32_MAX)
			return -EINVAL;
		l->pid = (int32_t)v;
	}
	if (!next_word(&p, le, &ws, &we) || lock_file(ws, we, l))
		return -EINVAL;
	return 0;
}

/*
 * One kernel table, a line each, into an array of @size-byte items:
 * blank lines and a first line beginning with @header (NULL: none)
 * skipped; a line @parse refuses fails the whole table, or where @bad is
 * given is skipped and counted (the first one said in @err)
 */
static int parse_table(const char *text, size_t len, size_t size, const char *header,
		       int (*parse)(const char *ls, const char *le, void *item, void *arg),
		       void *arg, const char *what, size_t *bad, void **v, size_t *n, char *err,
		       size_t errlen)
{
	char *a = NULL, *na;
	size_t cap = 0, cnt = 0;
	struct reader r;
	int ret = text_open(&r, text, len, WAITPARSE_TEXT_MAX, err, errlen);

	*v = NULL;
	*n = 0;
	if (bad)
		*bad = 0;
	if (ret)
		return ret;
	while (reader_next(&r)) {
		const char *s = skip_ws(r.ls, r.le);

		if (s == r.le || (header && r.line == 1 && span_starts(s, r.le, header)))
			continue;
		na = mem_grow(a, &cap, cnt, size);
		if (!na) {
			free(a);
			return -ENOMEM;
		}
		a = na;
		if (!parse(r.ls, r.le, a + cnt * size, arg)) {
			cnt++;
		} else if (!bad) {
			free(a);
			return line_failf(err, errlen, r.line, "not a %s line", what);
		} else if (!(*bad)++) {
			line_failf(err, errlen, r.line, "not a %s line", what);
		}
	}
	*v = a;
	*n = cnt;
	return 0;
}

static int lock_item(const char *ls, const char *le, void *item, void *arg)
{
	(void)arg;
	return lock_line(ls, le, item);
}

int wparse_locks(const char *text, size_t len, struct wlock **v, size_t *n, char *err,
		 size_t errlen)
{
	void *a;
	int ret = parse_table(text, len, sizeof(**v), NULL, lock_item, NULL, "/proc/locks", NULL,
			      &a, n, err, errlen);

	*v = a;
	return ret;
}

long wlock_blocker(const struct wlock *v, size_t n, size_t i)
{
	size_t j;

	if (i >= n || !v[i].depth)
		return -1;
	for (j = i; j-- > 0;) {
		if (v[j].id != v[i].id)
			return -1;
		if (v[j].depth < v[i].depth)
			return (long)j;
	}
	return -1;
}

/* "00000000233764b5: 00000003 00000000 00010000 0001 01 12345 /run/x.sock" */
static int unix_line(const char *ls, const char *le, struct wunix *u)
{
	const char *p = ls, *ws, *we;
	uint64_t v[6];
	int i;

	memset(u, 0, sizeof(*u));
	if (!next_word(&p, le, &ws, &we) || we[-1] != ':')
		return -EINVAL;
	for (i = 0; i < 6; i++)
		if (!next_word(&p, le, &ws, &we) || span_u64(ws, we, i == 5 ? 10 : 16, &v[i]))
			return -EINVAL;
	u->listening = v[2] & 0x10000;	/* __SO_ACCEPTCON */
	u->type = (unsigned)v[3];
	u->state = (unsigned)v[4];
	u->inode = v[5];
	/* the rest is the path, which may hold blanks */
	p = skip_ws(p, le);
	if (p < le)
		word_copy(u->path, sizeof(u->path), p, le);
	return 0;
}

static int cmp_unix(const void *a, const void *b)
{
	const struct wunix *x = a, *y = b;

	return (x->inode > y->inode) - (x->inode < y->inode);
}

/*
 * A path is printed as it is, newlines and all, so a socket's path can
 * forge a line: an inode on two lines is dropped, neither trusted.
 */
static size_t unix_unique(struct wunix *a, size_t n)
{
	size_t i, j, out = 0;

	if (n)	/* qsort of NULL, 0: undefined */
		qsort(a, n, sizeof(*a), cmp_unix);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && a[j].inode == a[i].inode; j++)
			;
		if (j == i + 1)
			a[out++] = a[i];
	}
	return out;
}

static int unix_item(const char *ls, const char *le, void *item, void *arg)
{
	(void)arg;
	return unix_line(ls, le, item);
}

int wparse_unix(const char *text, size_t len, struct wunix **v, size_t *n, size_t *bad,
		char *err, size_t errlen)
{
	/* any user can write a bad line (a path with a newline): skipped, not the whole table */
	void *a;
	int ret = parse_table(text, len, sizeof(**v), "Num", unix_item, NULL, "/proc/net/unix",
			      bad, &a, n, err, errlen);

	*v = a;
	if (!ret)
		*n = unix_unique(*v, *n);
	return ret;
}

/* "0100007F:A239" (v4) or 32 hex digits and a port (v6) */
static int tcp_endpoint(const char *s, const char *e, bool v6, uint8_t addr[16], uint16_t *port)
{
	const char *colon = memchr(s, ':', (size_t)(e - s));
	uint64_t w, pt;
	int i, words = v6 ? 4 : 1;

	if (!colon || colon - s != words * 8 || span_u64(colon + 1, e, 16, &pt) || pt > 65535)
		return -EINVAL;
	memset(addr, 0, 16);
	for (i = 0; i < words; i++) {
		uint32_t u;

		if (span_u64(s + i * 8, s + i * 8 + 8, 16, &w))
			return -EINVAL;
		/* the kernel prints each 32-bit word as the host reads it */
		u = (uint32_t)w;
		memcpy(addr + i * 4, &u, 4);
	}
	*port = (uint16_t)pt;
	return 0;
}

static int tcp_line(const char *ls, const char *le, bool v6, struct wtcp *t)
{
	const char *p = ls, *ws, *we, *c;
	uint64_t st, q1, q2, rt, in;
	int i;

	memset(t, 0, sizeof(*t));
	t->v6 = v6;
	if (!next_word(&p, le, &ws, &we) || we[-1] != ':')
		return -EINVAL;
	if (!next_word(&p, le, &ws, &we) || tcp_endpoint(ws, we, v6, t->laddr, &t->lport))
		return -EINVAL;
	if (!next_word(&p, le, &ws, &we) || tcp_endpoint(ws, we, v6, t->raddr, &t->rport))
		return -EINVAL;
	if (!next_word(&p, le, &ws, &we) || span_u64(ws, we, 16, &st) || st > 255)
		return -EINVAL;
	if (!next_word(&p, le, &ws, &we) || !(c = memchr(ws, ':', (size_t)(we - ws))) ||
	    span_u64(ws, c, 16, &q1) || span_u64(c + 1, we, 16, &q2) ||
	    q1 > UINT32_MAX || q2 > UINT32_MAX)
		return -EINVAL;
	/* tr:tm->when, retrnsmt, uid, timeout, inode */
	if (!next_word(&p, le, &ws, &we) || !next_word(&p, le, &ws, &we) ||
	    span_u64(ws, we, 16, &rt))
		return -EINVAL;
	for (i = 0; i < 3; i++)
		if (!next_word(&p, le, &ws, &we))
			return -EINVAL;
	if (span_u64(ws, we, 10, &in))
		return -EINVAL;
	t->state = (unsigned)st;
	t->txq = (uint32_t)q1;
	t->rxq = (uint32_t)q2;
	t->retrans = rt > UINT32_MAX ? UINT32_MAX : (unsigned)rt;
	t->inode = in;
	return 0;
}

static int tcp_item(const char *ls, const char *le, void *item, void *arg)
{
	return tcp_line(ls, le, *(const bool *)arg, item);
}

int wparse_tcp(const char *text, size_t len, bool v6, struct wtcp **v, size_t *n, char *err,
	       size_t errlen)
{
	void *a;
	int ret = parse_table(text, len, sizeof(**v), "sl", tcp_item, &v6,
			      v6 ? "/proc/net/tcp6" : "/proc/net/tcp", NULL, &a, n, err, errlen);

	*v = a;
	return ret;
}

const char *wtcp_state_name(unsigned state)
{
	static const char *const names[] = {
		[1] = "ESTAB", [2] = "SYN-SENT", [3] = "SYN-RECV", [4] = "FIN-WAIT-1",
		[5] = "FIN-WAIT-2", [6] = "TIME-WAIT", [7] = "UNCONN", [8] = "CLOSE-WAIT",
		[9] = "LAST-ACK", [10] = "LISTEN", [11] = "CLOSING", [12] = "NEW-SYN-RECV",
	};

	return state < sizeof(names) / sizeof(names[0]) && names[state] ? names[state] :
	       "UNKNOWN";
}

/* an IPv6 address that holds an IPv4 one (::ffff:a.b.c.d): its 4 bytes, else NULL */
static const uint8_t *v4_mapped(const uint8_t a[16])
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return memcmp(a, pfx, 12) ? NULL : a + 12;
}

void wtcp_addr(const struct wtcp *t, bool remote, char *buf, size_t len)
{
	const uint8_t *a = remote ? t->raddr : t->laddr, *m = t->v6 ? v4_mapped(a) : NULL;
	char s[INET6_ADDRSTRLEN] = "?";

	if (!t->v6 || m) {
		inet_ntop(AF_INET, m ? m : a, s, sizeof(s));
		snprintf(buf, len, "%s:%u", s, remote ? t->rport : t->lport);
	} else {
		inet_ntop(AF_INET6, a, s, sizeof(s));
		snprintf(buf, len, "[%s]:%u", s, remote ? t->rport : t->lport);
	}
}

/* the 4 bytes of an IPv4 address, whether it is written as one or mapped */
static const uint8_t *as_v4(const uint8_t a[16], bool v6)
{
	return v6 ? v4_mapped(a) : a;
}

/* the same address, across the two tables */
static bool addr_eq(const uint8_t *a, bool av6, const uint8_t *b, bool bv6)
{
	const uint8_t *a4 = as_v4(a, av6), *b4 = as_v4(b, bv6);

	if (a4 || b4)
		return a4 && b4 && !memcmp(a4, b4, 4);
	return !memcmp(a, b, 16);
}

static bool addr_any(const uint8_t *a, bool v6)
{
	static const uint8_t zero[16];

	return !memcmp(a, zero, v6 ? 16 : 4);
}

bool wtcp_listens_for(const struct wtcp *l, const struct wtcp *c)
{
	if (l->state != 10 || l->lport != c->rport)
		return false;
	if (addr_any(l->laddr, l->v6))
		/* an IPv4 listener on 0.0.0.0 takes no IPv6 client; [::] takes both */
		return l->v6 || !c->v6 || v4_mapped(c->raddr);
	return addr_eq(l->laddr, l->v6, c->raddr, c->v6);
}

bool wtcp_is_peer(const struct wtcp *a, const struct wtcp *b)
{
	return a->lport == b->rport && a->rport == b->lport && b->state != 10 &&
	       addr_eq(a->laddr, a->v6, b->raddr, b->v6) &&
	       addr_eq(a->raddr, a->v6, b->laddr, b->v6);
}

/* "98:0" */
static int dev_pair(const char *s, const char *e, unsigned *major, unsigned *minor)
{
	const char *c = memchr(s, ':', (size_t)(e - s));
	uint64_t a, b;

	if (!c || span_u64(s, c, 10, &a) || span_u64(c + 1, e, 10, &b) || a > 0xfff ||
	    b > 0xfffff)
		return -EINVAL;
	*major = (unsigned)a;
	*minor = (unsigned)b;
	return 0;
}

int wparse_mountinfo(const char *text, size_t len, int mnt_id, struct wmount *m)
{
	struct reader r;

	reader_init(&r, text, len);
	while (reader_next(&r)) {
		/* "36 35 98:0 /root /mnt rw,noatime master:1 - ext3 /dev/root rw" */
		const char *p = r.ls, *ws, *we, *dash, *mp = NULL, *mpe = NULL;
		uint64_t id;
		int i;

		memset(m, 0, sizeof(*m));
		for (i = 0; i < 5 && next_word(&p, r.le, &ws, &we); i++) {
			if (i == 0 && (span_u64(ws, we, 10, &id) || id != (uint64_t)mnt_id))
				break;
			if (i == 2 && dev_pair(ws, we, &m->major, &m->minor))
				break;
			if (i == 4) {
				mp = ws;
				mpe = we;
			}
		}
		if (!mp || !(dash = span_find(p, r.le, " - ")))
			continue;
		p = dash + 3;
		if (!next_word(&p, r.le, &ws, &we))
			continue;
		word_copy(m->fstype, sizeof(m->fstype), ws, we);
		if (!next_word(&p, r.le, &ws, &we))
			ws = we = p;
		word_copy(m->source, sizeof(m->source), ws, we);
		word_copy(m->point, sizeof(m->point), mp, mpe);
		return 0;
	}
	return -ENOENT;
}

int wparse_fdinfo(const char *text, size_t len, struct wfdinfo *fi)
{
	struct reader r;
	uint64_t v;

	memset(fi, 0, sizeof(*fi));
	reader_init(&r, text, len);
	while (reader_next(&r)) {
		const char *c = memchr(r.ls, ':', (size_t)(r.le - r.ls)), *p;

		if (!c)
			continue;
		p = skip_ws(c + 1, r.le);
		if (span_eq(r.ls, c, "flags")) {
			if (span_u64(p, rtrim(p, r.le), 8, &v) || v > UINT32_MAX)
				return -EINVAL;
			fi->flags = (unsigned)v;
			fi->have_flags = true;
		} else if (span_eq(r.ls, c, "mnt_id")) {
			if (span_u64(p, rtrim(p, r.le), 10, &v) || v > INT32_MAX)
				return -EINVAL;
			fi->mnt_id = (int)v;
			fi->have_mnt = true;
		} else if (span_eq(r.ls, c, "ino")) {
			if (span_u64(p, rtrim(p, r.le), 10, &fi->ino))
				return -EINVAL;
			fi->have_ino = true;
		} else if (span_eq(r.ls, c, "Pid")) {
			/* a pidfd: its process, -1 once it exited (0 from another namespace) */
			if (span_eq(p, rtrim(p, r.le), "-1"))
				v = 0;
			else if (span_u64(p, rtrim(p, r.le), 10, &v) || v > INT32_MAX)
				return -EINVAL;
			fi->pid = v ? (int32_t)v : -1;
			fi->have_pid = true;
		}
	}
	return 0;
}

int wparse_status(const char *text, size_t len, const char *key, int base, uint64_t *v,
		  size_t max)
{
	struct reader r;

	reader_init(&r, text, len);
	while (reader_next(&r)) {
		const char *c = memchr(r.ls, ':', (size_t)(r.le - r.ls)), *p, *ws, *we;
		size_t n = 0;
		uint64_t x;

		if (!c || !span_eq(r.ls, c, key))
			continue;
		p = c + 1;
		while (next_word(&p, r.le, &ws, &we)) {
			if (span_u64(ws, we, base, &x))
				return -EINVAL;
			if (n < max)
				v[n] = x;
			n++;
		}
		return n ? (int)(n < max ? n : max) : -EINVAL;
	}
	return -ENOENT;
}

bool wparse_cpulist_has(const char *text, size_t len, int cpu)
{
	const char *p = text, *e = text + len;

	while (e > text && (is_blank(e[-1]) || e[-1] == '\n'))
		e--;
	while (p < e) {
		const char *end = memchr(p, ',', (size_t)(e - p)), *dash;
		uint64_t lo, hi;

		if (!end)
			end = e;
		dash = memchr(p, '-', (size_t)(end - p));
		if (!span_u64(p, dash ? dash : end, 10, &lo) &&
		    (dash ? !span_u64(dash + 1, end, 10, &hi) : (hi = lo, true)) &&
		    (uint64_t)cpu >= lo && (uint64_t)cpu <= hi)
			return true;
		p = end + 1;
	}
	return false;
}

/* Are the (type, value) pairs of @w bytes each ending in AT_NULL, with small types? */
static bool auxv_fits(const unsigned char *a, size_t len, size_t w)
{
	size_t i;

	for (i = 0; i + 2 * w <= len; i += 2 * w) {
		uint64_t type = 0;

		if (w == 8) {
			memcpy(&type, a + i, 8);
		} else {
			uint32_t t32;

			memcpy(&t32, a + i, 4);
			type = t32;
		}
		if (type == 0)		/* AT_NULL */
			return i > 0;
		if (type > 255)		/* the AT_ types are small numbers */
			return false;
	}
	return false;
}

int wparse_auxv_bits(const void *auxv, size_t len)
{
	if (auxv_fits(auxv, len, 8))
		return 64;
	return auxv_fits(auxv, len, 4) ? 32 : 0;
}

bool wparse_frames_mm(const char *frames)
{
	static const char *const mm[] = {
		"fault", "mmap", "munmap", "mprotect", "madvise", "brk", "_vma", "get_user_pages",
		"gup", "populate", "rwsem_down_", "mmap_lock",
	};
	size_t i;

	for (i = 0; i < sizeof(mm) / sizeof(mm[0]); i++)
		if (strstr(frames, mm[i]))
			return true;
	return false;
}

size_t wparse_fdinfo_tfds(const char *text, size_t len, int *fds, unsigned *events,
			  size_t max)
{
	struct reader r;
	size_t n = 0;

	reader_init(&r, text, len);
	while (reader_next(&r)) {
		const char *p = r.ls + 4, *ws, *we;
		uint64_t v, ev = 0;

		/* "tfd:        5 events:       19 data: ..." */
		if (!span_starts(r.ls, r.le, "tfd:") || !next_word(&p, r.le, &ws, &we) ||
		    span_u64(ws, we, 10, &v) || v > INT32_MAX)
			continue;
		if (next_word(&p, r.le, &ws, &we) && span_eq(ws, we, "events:") &&
		    next_word(&p, r.le, &ws, &we) && span_u64(ws, we, 16, &ev))
			ev = 0;
		if (n < max) {
			fds[n] = (int)v;
			events[n] = (unsigned)ev;
		}
		n++;
	}
	return n;
}

/* Kernel functions by what they wait for: a name, or a prefix ending in '*'. */
static const struct {
	const char *fn;
	enum wclass c;
} classes[] = {
	{ "anon_pipe_read", WC_PIPE_READ }, { "pipe_read", WC_PIPE_READ },
	{ "pipe_wait_readable", WC_PIPE_READ },
	{ "anon_pipe_write", WC_PIPE_WRITE }, { "pipe_write", WC_PIPE_WRITE },
	{ "pipe_wait_writable", WC_PIPE_WRITE },
	{ "fifo_open", WC_FIFO_OPEN }, { "wait_for_partner", WC_FIFO_OPEN },
	{ "do_wait", WC_CHILD }, { "kernel_wait4", WC_CHILD }, { "kernel_waitid", WC_CHILD },
	{ "futex_*", WC_FUTEX }, { "__futex_*", WC_FUTEX },
	{ "locks_lock_inode_wait", WC_FLOCK }, { "flock_lock_inode_wait", WC_FLOCK },
	{ "posix_lock_inode_wait", WC_FLOCK }, { "fcntl_setlk*", WC_FLOCK },
	{ "do_lock_file_wait", WC_FLOCK }, { "__do_sys_flock", WC_FLOCK },
	{ "unix_*", WC_UNIX },
	{ "sk_wait_data", WC_SOCK_READ }, { "tcp_recvmsg*", WC_SOCK_READ },
	{ "__skb_wait_for_more_packets", WC_SOCK_READ }, { "udp_recvmsg", WC_SOCK_READ },
	{ "__skb_recv_datagram", WC_SOCK_READ },
	{ "sk_stream_wait_memory", WC_SOCK_WRITE }, { "sock_wait_for_wmem", WC_SOCK_WRITE },
	{ "inet_wait_for_connect", WC_CONNECT }, { "__inet_stream_connect", WC_CONNECT },
	{ "inet_csk_accept", WC_ACCEPT }, { "inet_csk_wait_for_connect", WC_ACCEPT },
	{ "do_sys_poll", WC_POLL }, { "do_poll*", WC_POLL }, { "poll_schedule_timeout", WC_POLL },
	{ "do_select", WC_POLL }, { "core_sys_select", WC_POLL }, { "ep_poll", WC_POLL },
	{ "do_epoll_wait", WC_POLL },
	{ "hrtimer_nanosleep", WC_SLEEP }, { "do_nanosleep", WC_SLEEP },
	{ "common_nsleep", WC_SLEEP },
	{ "sys_pause", WC_SIGNAL }, { "__x64_sys_pause", WC_SIGNAL },
	{ "sigsuspend", WC_SIGNAL }, { "__do_sys_rt_sigsuspend", WC_SIGNAL },
	{ "do_sigtimedwait", WC_SIGNAL },
	{ "do_signal_stop", WC_STOPPED }, { "ptrace_stop", WC_TRACED },
	{ "nfs*", WC_NFS }, { "rpc_*", WC_NFS }, { "__rpc_*", WC_NFS },
	{ "handle_mm_fault", WC_FAULT }, { "__handle_mm_fault", WC_FAULT },
	{ "do_user_addr_fault", WC_FAULT }, { "exc_page_fault", WC_FAULT },
	{ "filemap_fault", WC_FAULT }, { "__do_fault", WC_FAULT }, { "do_page_fault", WC_FAULT },
	{ "do_swap_page", WC_FAULT },
	{ "io_schedule*", WC_IO }, { "folio_wait*", WC_IO }, { "wait_on_page*", WC_IO },
	{ "__wait_on_buffer", WC_IO }, { "bit_wait_io", WC_IO }, { "__lock_page*", WC_IO },
	{ "__folio_lock*", WC_IO }, { "blk_*", WC_IO }, { "submit_bio_wait", WC_IO },
	{ "jbd2_*", WC_IO }, { "__filemap_fdatawait*", WC_IO }, { "filemap_fdatawait*", WC_IO },
	{ "file_write_and_wait_range", WC_IO }, { "iomap_dio_rw", WC_IO },
	{ "__iomap_dio_rw", WC_IO }, { "blkdev_issue_flush", WC_IO },
	{ "mnt_want_write*", WC_FROZEN }, { "__sb_start_write", WC_FROZEN },
	{ "sb_start_*", WC_FROZEN },
	{ "rwsem_down_*", WC_KLOCK }, { "__mutex_lock*", WC_KLOCK }, { "mutex_lock*", WC_KLOCK },
	{ "__down*", WC_KLOCK }, { "percpu_rwsem_wait", WC_KLOCK },
	{ "__percpu_down_read", WC_KLOCK },
	{ "worker_thread", WC_IDLE }, { "kthread_worker_fn", WC_IDLE },
	{ "smpboot_thread_fn", WC_IDLE }, { "rescuer_thread", WC_IDLE },
	{ "kthreadd", WC_IDLE }, { "rcu_gp_kthread", WC_IDLE },
};

enum wclass wparse_class(const char *fn, size_t len)
{
	const char *dot = memchr(fn, '.', len);
	size_t i;

	/* the compiler's copies: "poll_schedule_timeout.constprop.0", ".isra.0", ".cold" */
	if (dot)
		len = (size_t)(dot - fn);

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		const char *c = classes[i].fn;
		size_t n = strlen(c);

		if (c[n - 1] == '*' ? len >= n - 1 && !memcmp(fn, c, n - 1) :
				      len == n && !memcmp(fn, c, n))
			return classes[i].c;
	}
	return WC_NONE;
}

const char *wclass_name(enum wclass c)
{
	static const char *const names[] = {
		[WC_NONE] = "nothing said", [WC_PIPE_READ] = "data in a pipe",
		[WC_PIPE_WRITE] = "room in a pipe", [WC_FIFO_OPEN] = "the other end of a FIFO",
		[WC_CHILD] = "a child", [WC_FUTEX] = "a futex", [WC_FLOCK] = "a file lock",
		[WC_UNIX] = "a unix socket", [WC_SOCK_READ] = "data on a socket",
		[WC_SOCK_WRITE] = "room in a socket's send buffer",
		[WC_CONNECT] = "a connection", [WC_ACCEPT] = "a client to accept",
		[WC_POLL] = "one of several descriptors", [WC_SLEEP] = "a timer",
		[WC_SIGNAL] = "a signal", [WC_STOPPED] = "SIGCONT (stopped)",
		[WC_TRACED] = "its tracer", [WC_IO] = "disk I/O", [WC_NFS] = "NFS",
		[WC_FAULT] = "a page fault", [WC_KLOCK] = "a kernel lock",
		[WC_FROZEN] = "a frozen filesystem (fsfreeze -u thaws it)",
		[WC_IDLE] = "work (an idle kernel thread)",
	};

	return (unsigned)c < sizeof(names) / sizeof(names[0]) && names[c] ? names[c] : "?";
}

/* how telling a class is about a thread in D state (higher: more) */
static int d_rank(enum wclass c)
{
	switch (c) {
	case WC_FROZEN:
		return 5;
	case WC_NFS:
		return 4;
	case WC_FAULT:
		return 3;
	case WC_IO:
		return 2;
	case WC_KLOCK:
		return 1;
	default:
		return 0;
	}
}

/*
 * A superblock's freeze protection is a percpu rwsem taken inline by the
 * write paths (sb_start_write in vfs_write, mnt_want_write, ...): a
 * thread waiting on one in a write, truncate or fallocate waits for the
 * filesystem to thaw. (The cgroup and uprobe percpu rwsems are taken
 * elsewhere.)
 */
static bool frozen_write(bool percpu, const char *fn, size_t len)
{
	return percpu && (span_find(fn, fn + len, "write") || span_find(fn, fn + len, "truncate") ||
			  span_find(fn, fn + len, "fallocate"));
}

enum wclass wparse_stack_class(const char *text, size_t len, char *frames, size_t flen,
			       unsigned max)
{
	enum wclass first = WC_NONE, best = WC_NONE;
	const char *p = text, *e = text + len;
	bool percpu = false;
	size_t used = 0;
	unsigned nf = 0;

	if (frames && flen)
		frames[0] = '\0';
	while (p < e && *p) {
		struct proc_kframe f;
		enum wclass c;

		p = proc_kstack_line(p, &f);
		if (!f.name)
			continue;
		/* the syscall entry below the frames says nothing more */
		if (span_starts(f.name, f.name + f.len, "do_syscall_") ||
		    span_starts(f.name, f.name + f.len, "entry_SYSCALL") ||
		    span_starts(f.name, f.name + f.len, "el0_svc"))
			break;
		c = wparse_class(f.name, f.len);
		if (frozen_write(percpu, f.name, f.len))
			c = WC_FROZEN;
		percpu |= span_eq(f.name, f.name + f.len, "percpu_rwsem_wait") ||
			  span_eq(f.name, f.name + f.len, "__percpu_down_read");
		if (first == WC_NONE)
			first = c;
		if (d_rank(c) > d_rank(best))
			best = c;
		if (frames && nf < max && used < flen) {
			int w = snprintf(frames + used, flen - used, "%s%.*s", nf ? " <- " : "",
					 (int)f.len, f.name);

			if (w > 0)
				used += (size_t)w < flen - used ? (size_t)w : flen - used - 1;
			nf++;
		}
	}
	return best != WC_NONE ? best : first;
}
