/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one line scanner of the text parsers: text read one line at a time,
 * and spans [s, e) of it examined without copying.
 */
#ifndef OFFCPU_LINESCAN_H
#define OFFCPU_LINESCAN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The text being parsed, one line at a time. */
struct reader {
	const char *p, *end;	/* unread text */
	const char *ls, *le;	/* current line, without "\n" or "\r\n" */
	unsigned line;		/* 1-based number of the current line */
};

/* Start reading @len bytes at @text. */
void reader_init(struct reader *r, const char *text, size_t len);
/* Advance to the next line; false at the end of the text. */
bool reader_next(struct reader *r);

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* First non-blank in [p, e), or e. */
const char *skip_ws(const char *p, const char *e);
/* End of [s, e) without trailing blanks. */
const char *rtrim(const char *s, const char *e);
bool span_starts(const char *s, const char *e, const char *prefix);
bool span_ends(const char *s, const char *e, const char *suffix);
bool span_eq(const char *s, const char *e, const char *str);
/* First occurrence of @needle in [s, e), or NULL. */
const char *span_find(const char *s, const char *e, const char *needle);
/* Newly allocated copy of [s, e), NUL-terminated, NULL beyond @max bytes; caller frees. */
char *span_dup(const char *s, const char *e, size_t max);
/*
 * The whole of [s, e) as a number in @base (10 or 16): digits only, no
 * sign, no spaces, no prefix. 0, -EINVAL or -ERANGE.
 */
int span_u64(const char *s, const char *e, int base, uint64_t *out);
/*
 * Input the text parsers take: at most @max bytes, no NUL in it. 0, or -EINVAL
 * with "line N: what" in @err.
 */
int text_check(const char *text, size_t len, size_t max, char *err, size_t errlen);
/*
 * A text parser's start: @err cleared, [text, text + len) checked as
 * text_check does (NULL with len 0: the empty text) and @r set to read it.
 * 0, or -EINVAL.
 */
int text_open(struct reader *r, const char *text, size_t len, size_t max, char *err,
	      size_t errlen);
/* "line N: <fmt>" into @err; returns -EINVAL (a parse error). */
int line_fail(char *err, size_t errlen, unsigned line, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
/* line_fail() with the arguments given */
int line_failf(char *err, size_t errlen, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
