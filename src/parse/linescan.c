// SPDX-License-Identifier: GPL-2.0-or-later
/* The text parsers' line scanner and span helpers. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linescan.h"

void reader_init(struct reader *r, const char *text, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->p = text;
	r->end = text + len;
}

bool reader_next(struct reader *r)
{
	const char *nl;

	if (r->p >= r->end)
		return false;
	nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
	r->ls = r->p;
	r->le = nl ? nl : r->end;
	r->p = nl ? nl + 1 : r->end;
	if (r->le > r->ls && r->le[-1] == '\r')
		r->le--;
	r->line++;
	return true;
}

const char *skip_ws(const char *p, const char *e)
{
	while (p < e && is_blank(*p))
		p++;
	return p;
}

const char *rtrim(const char *s, const char *e)
{
	while (e > s && is_blank(e[-1]))
		e--;
	return e;
}

bool span_starts(const char *s, const char *e, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(e - s) >= n && !memcmp(s, prefix, n);
}

bool span_ends(const char *s, const char *e, const char *suffix)
{
	size_t n = strlen(suffix);

	return (size_t)(e - s) >= n && !memcmp(e - n, suffix, n);
}

bool span_eq(const char *s, const char *e, const char *str)
{
	return (size_t)(e - s) == strlen(str) && !memcmp(s, str, (size_t)(e - s));
}

const char *span_find(const char *s, const char *e, const char *needle)
{
	size_t n = strlen(needle);

	for (; (size_t)(e - s) >= n; s++)
		if (!memcmp(s, needle, n))
			return s;
	return NULL;
}

char *span_dup(const char *s, const char *e, size_t max)
{
	size_t n;
	char *d;

	if (e < s)
		return NULL;
	n = (size_t)(e - s);
	if (n > max)
		return NULL;
	d = malloc(n + 1);
	if (!d)
		return NULL;
	if (n)
		memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

int line_fail(char *err, size_t errlen, unsigned line, const char *fmt, va_list ap)
{
	int n;

	if (!err || !errlen)
		return -EINVAL;
	n = snprintf(err, errlen, "line %u: ", line);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	return -EINVAL;
}

/*
 * The whole of [s, e) as a number in @base (10 or 16): digits only, no
 * sign, no spaces, no prefix. 0, -EINVAL or -ERANGE.
 */
int span_u64(const char *s, const char *e, int base, uint64_t *out)
{
	size_t n = (size_t)(e - s), i;
	unsigned long long v;
	char buf[32], *end;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (base == 16 ? !isxdigit(c) : !isdigit(c))
			return -EINVAL;
	}
	if (n >= sizeof(buf))
		return -ERANGE;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtoull(buf, &end, base);
	if (end != buf + n)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

int line_failf(char *err, size_t errlen, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = line_fail(err, errlen, line, fmt, ap);
	va_end(ap);
	return ret;
}

int text_check(const char *text, size_t len, size_t max, char *err, size_t errlen)
{
	const char *nul, *p;
	unsigned line = 1;

	if (len > max)
		return line_failf(err, errlen, 1, "input larger than %zu bytes", max);
	nul = len ? memchr(text, '\0', len) : NULL;
	if (!nul)
		return 0;
	for (p = text; p < nul; p++)
		line += *p == '\n';
	return line_failf(err, errlen, line, "NUL byte in the text");
}

int text_open(struct reader *r, const char *text, size_t len, size_t max, char *err,
	      size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!text && len)
		return -EINVAL;
	if (!text)
		text = "";
	reader_init(r, text, len);
	return text_check(text, len, max, err, errlen);
}
