// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tdat_scan()'s bounded reader: a read position in a trace.dat (or in a
 * compressed section's contents, decompressed) that never reads past the
 * end of its section or of the file, numbers little-endian, strings
 * terminated and printable, and every failure said as "offset N: what is
 * wrong".
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdat.h"
#include "tdat_local.h"


__attribute__((format(printf, 4, 5)))
int rd_fail(struct rd *r, int ret, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->mem)
		n = snprintf(r->err, r->errlen, "offset %" PRIu64 " (byte %" PRIu64 " of that "
			     "section decompressed): ", r->mem_at, off);
	else
		n = snprintf(r->err, r->errlen, "offset %" PRIu64 ": ", off);
	if (n < 0 || (size_t)n >= r->errlen)
		return ret;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return ret;
}

/* @n bytes of @what fit before the section (or the file) ends. */
int rd_need(struct rd *r, uint64_t n, const char *what)
{
	if (r->off <= r->end && n <= r->end - r->off)
		return 0;
	if (!r->mem && r->end == r->t->file_size)
		return rd_fail(r, -EINVAL, r->off, "%s (%" PRIu64 " bytes) runs past the end "
			       "of the file (%" PRIu64 " bytes): truncated?", what, n,
			       r->t->file_size);
	return rd_fail(r, -EINVAL, r->off, "%s (%" PRIu64 " bytes) runs past the end of "
		       "its section at offset %" PRIu64, what, n, r->end);
}

int rd_bytes(struct rd *r, void *buf, size_t n, const char *what)
{
	size_t done = 0;
	int ret = rd_need(r, n, what);

	if (ret)
		return ret;
	if (r->mem) {
		memcpy(buf, r->mem + r->off, n);
		r->off += n;
		return 0;
	}
	while (done < n) {
		ssize_t got = pread(r->fd, (char *)buf + done, n - done,
				    (off_t)(r->off + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return rd_fail(r, got < 0 ? -errno : -EIO, r->off + done,
				       "cannot read %s: %s", what,
				       got < 0 ? strerror(errno) : "unexpected end of file");
		done += (size_t)got;
	}
	r->off += n;
	return 0;
}

int rd_skip(struct rd *r, uint64_t n, const char *what)
{
	int ret = rd_need(r, n, what);

	if (!ret)
		r->off += n;
	return ret;
}

/* Numbers are little-endian: big-endian files are refused up front. */
int rd_u16(struct rd *r, uint16_t *v, const char *what)
{
	uint16_t x = 0;
	int ret = rd_bytes(r, &x, 2, what);

	*v = le16toh(x);
	return ret;
}

int rd_u32(struct rd *r, uint32_t *v, const char *what)
{
	uint32_t x = 0;
	int ret = rd_bytes(r, &x, 4, what);

	*v = le32toh(x);
	return ret;
}

int rd_u64(struct rd *r, uint64_t *v, const char *what)
{
	uint64_t x = 0;
	int ret = rd_bytes(r, &x, 8, what);

	*v = le64toh(x);
	return ret;
}

/* A NUL-terminated string of at most @cap - 1 characters. */
int rd_str(struct rd *r, char *buf, size_t cap, const char *what)
{
	uint64_t start = r->off, left = r->end > r->off ? r->end - r->off : 0;
	size_t n = cap < left ? cap : (size_t)left;
	char *nul, *c;
	int ret;

	if (!n)
		return rd_need(r, 1, what);
	ret = rd_bytes(r, buf, n, what);
	if (ret)
		return ret;
	nul = memchr(buf, '\0', n);
	if (!nul)
		return rd_fail(r, -EINVAL, start, "%s is not a terminated string", what);
	/* names, versions and clocks: printable, or an error or footer echoing it breaks */
	for (c = buf; c < nul; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return rd_fail(r, -EINVAL, start + (uint64_t)(c - buf),
				       "%s holds a control character (0x%02x)", what,
				       (unsigned char)*c);
	r->off = start + (uint64_t)(nul - buf) + 1;
	return 0;
}

int rd_tag(struct rd *r, const char *tag, size_t len)
{
	char buf[16];
	uint64_t at = r->off;
	int ret = rd_bytes(r, buf, len, tag);

	if (ret)
		return ret;
	if (memcmp(buf, tag, len))
		return rd_fail(r, -EINVAL, at, "expected \"%s\"", tag);
	return 0;
}

/* An option's text (NUL-terminated copy, caller frees). */
int rd_text(struct rd *r, uint32_t size, char **out, const char *what)
{
	char *s;
	int ret;

	if ((ret = rd_need(r, size, what)))
		return ret;
	if (size > MAX_TEXT)
		return rd_fail(r, -EINVAL, r->off, "%s of %" PRIu32 " bytes", what, size);
	s = malloc((size_t)size + 1);
	if (!s)
		return -ENOMEM;
	ret = rd_bytes(r, s, size, what);
	if (ret) {
		free(s);
		return ret;
	}
	s[size] = '\0';
	*out = s;
	return 0;
}
