// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The parsers' JSON reader: strict, bounded by the input and by the
 * nesting depth; every error names its line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "jsonread.h"
#include "linescan.h"

void json_reader_init(struct json_reader *jr, const char *text, size_t len,
		      unsigned max_depth, char *err, size_t errlen)
{
	memset(jr, 0, sizeof(*jr));
	jr->p = text;
	jr->end = text + len;
	jr->line = 1;
	jr->max_depth = max_depth;
	jr->err = err;
	jr->errlen = errlen;
}

int json_reader_fail(struct json_reader *jr, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = line_fail(jr->err, jr->errlen, jr->line, fmt, ap);
	va_end(ap);
	return ret;
}

void json_val_fini(struct json_val *v)
{
	size_t i;

	free(v->s);
	for (i = 0; i < v->n; i++) {
		json_val_fini(&v->v[i]);
		if (v->k)
			free(v->k[i]);
	}
	free(v->v);
	free(v->k);
	memset(v, 0, sizeof(*v));
}

/* Past JSON's white space, counting lines. */
static void skip_blank(struct json_reader *jr)
{
	while (jr->p < jr->end) {
		char c = *jr->p;

		if (c == '\n')
			jr->line++;
		else if (c != ' ' && c != '\t' && c != '\r')
			break;
		jr->p++;
	}
}

int json_reader_peek(struct json_reader *jr)
{
	skip_blank(jr);
	return jr->p < jr->end ? (unsigned char)*jr->p : -1;
}

/* The 4 hex digits of a \u escape at jr->p. */
static int read_hex4(struct json_reader *jr, unsigned *out)
{
	unsigned v = 0, i;

	if (jr->end - jr->p < 4)
		return json_reader_fail(jr, "end of input inside a \\u escape");
	for (i = 0; i < 4; i++) {
		char c = jr->p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return json_reader_fail(jr, "expected 4 hex digits after \\u");
	}
	jr->p += 4;
	*out = v;
	return 0;
}

/*
 * The rest of a \u escape at jr->p (after "\u"), a surrogate pair joined,
 * as the bytes @enc[*@k...]: json_str() writes each byte of a comm (not
 * UTF-8) >= 0x7f as \u00XX, so a code point below 0x100 is read back as
 * that byte, and labels match /proc; others as UTF-8.
 */
static int read_escape_u(struct json_reader *jr, char enc[4], size_t *k)
{
	unsigned cp, lo;
	int ret;

	ret = read_hex4(jr, &cp);
	if (ret)
		return ret;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return json_reader_fail(jr, "lone low surrogate in \\u escape");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (jr->end - jr->p < 2 || jr->p[0] != '\\' || jr->p[1] != 'u')
			return json_reader_fail(jr, "high surrogate without its low half");
		jr->p += 2;
		ret = read_hex4(jr, &lo);
		if (ret)
			return ret;
		if (lo < 0xdc00 || lo > 0xdfff)
			return json_reader_fail(jr, "high surrogate without its low half");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (cp == 0)
		return json_reader_fail(jr, "\\u0000 in a string is not supported");
	if (cp <= 0xff) {
		enc[(*k)++] = (char)cp;
	} else if (cp < 0x800) {
		enc[(*k)++] = (char)(0xc0 | cp >> 6);
		enc[(*k)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		enc[(*k)++] = (char)(0xe0 | cp >> 12);
		enc[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		enc[(*k)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		enc[(*k)++] = (char)(0xf0 | cp >> 18);
		enc[(*k)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		enc[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		enc[(*k)++] = (char)(0x80 | (cp & 0x3f));
	}
	return 0;
}

/* A string at jr->p (on its '"'); *@out newly allocated, caller frees. */
static int read_string(struct json_reader *jr, char **out)
{
	/* the one-letter escapes and what they stand for */
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	size_t n = 0, cap = 0;
	char *s = NULL, *ns;
	const char *q;
	int ret = 0;

	jr->p++;
	for (;;) {
		unsigned char c;
		char enc[4];
		size_t k = 0, i;

		if (jr->p >= jr->end) {
			ret = json_reader_fail(jr, "end of input inside a string");
			goto bad;
		}
		c = (unsigned char)*jr->p++;
		if (c == '"')
			break;
		if (c < 0x20) {
			ret = json_reader_fail(jr, "control character in a string");
			goto bad;
		}
		if (c != '\\') {
			enc[k++] = (char)c;
		} else {
			if (jr->p >= jr->end) {
				ret = json_reader_fail(jr, "end of input inside a string");
				goto bad;
			}
			c = (unsigned char)*jr->p++;
			q = c ? strchr(from, c) : NULL;
			if (q) {
				enc[k++] = to[q - from];
			} else if (c == 'u') {
				ret = read_escape_u(jr, enc, &k);
				if (ret)
					goto bad;
			} else {
				ret = json_reader_fail(jr, "unknown escape '\\%c' in a string",
						       isprint(c) ? c : '?');
				goto bad;
			}
		}
		/* room for the bytes and the NUL */
		ns = mem_grow_from(s, &cap, n + k, 1, 32);
		if (!ns) {
			ret = -ENOMEM;
			goto bad;
		}
		s = ns;
		for (i = 0; i < k; i++)
			s[n++] = enc[i];
	}
	if (!s) {
		s = malloc(1);
		if (!s)
			return -ENOMEM;
	}
	s[n] = '\0';
	*out = s;
	return 0;
bad:
	free(s);
	return ret;
}

/* A number at jr->p: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int read_number(struct json_reader *jr, struct json_val *v)
{
	const char *s = jr->p, *p = s, *e = jr->end;
	bool integer = true;
	char buf[32], *end;

	v->t = JSON_NUM;
	if (p < e && *p == '-')
		p++;
	if (p == e || !is_digit(*p))
		return json_reader_fail(jr, "expected a digit in a number");
	if (*p == '0' && p + 1 < e && is_digit(p[1]))
		return json_reader_fail(jr, "leading zero in a number");
	while (p < e && is_digit(*p))
		p++;
	if (p < e && *p == '.') {
		integer = false;
		if (++p == e || !is_digit(*p))
			return json_reader_fail(jr, "expected a digit after '.' in a number");
		while (p < e && is_digit(*p))
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		integer = false;
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (p == e || !is_digit(*p))
			return json_reader_fail(jr, "expected a digit in a number's exponent");
		while (p < e && is_digit(*p))
			p++;
	}
	jr->p = p;
	if (!integer || (size_t)(p - s) >= sizeof(buf))
		return 0;	/* kept as "a number"; we only need integers */
	memcpy(buf, s, (size_t)(p - s));
	buf[p - s] = '\0';
	errno = 0;
	if (*s == '-') {
		long long x = strtoll(buf, &end, 10);

		if (!errno && *end == '\0') {
			v->is_int = true;
			v->i = x;
		}
	} else {
		unsigned long long x = strtoull(buf, &end, 10);

		if (!errno && *end == '\0') {
			v->is_uint = true;
			v->u = x;
			v->is_int = x <= INT64_MAX;
			v->i = (int64_t)(x <= INT64_MAX ? x : 0);
		}
	}
	return 0;
}

/* An array or an object at jr->p (on its '[' or '{'). */
static int read_container(struct json_reader *jr, struct json_val *v)
{
	bool obj = *jr->p == '{';
	char close = obj ? '}' : ']';
	struct json_val *nv;
	char **nk;
	int ret;

	v->t = obj ? JSON_OBJ : JSON_ARR;
	if (++jr->depth > jr->max_depth)
		return json_reader_fail(jr, "nesting deeper than %u", jr->max_depth);
	jr->p++;
	skip_blank(jr);
	if (jr->p < jr->end && *jr->p == close) {
		jr->p++;
		jr->depth--;
		return 0;
	}
	for (;;) {
		size_t cap = v->cap;

		nv = mem_grow(v->v, &cap, v->n, sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		v->v = nv;
		if (obj) {
			size_t kcap = v->cap;

			nk = mem_grow(v->k, &kcap, v->n, sizeof(*nk));
			if (!nk)
				return -ENOMEM;
			v->k = nk;
		}
		v->cap = cap;
		memset(&v->v[v->n], 0, sizeof(*nv));
		if (obj) {
			v->k[v->n] = NULL;
			skip_blank(jr);
			if (jr->p >= jr->end)
				return json_reader_fail(jr, "end of input inside an object");
			if (*jr->p != '"')
				return json_reader_fail(jr, "expected a string key in an object");
			ret = read_string(jr, &v->k[v->n]);
			if (ret)
				return ret;
			v->n++;		/* owned from here: freed by json_val_fini */
			skip_blank(jr);
			if (jr->p >= jr->end)
				return json_reader_fail(jr, "end of input inside an object");
			if (*jr->p != ':')
				return json_reader_fail(jr, "expected ':' after an object key");
			jr->p++;
			ret = json_reader_value(jr, &v->v[v->n - 1]);
		} else {
			v->n++;
			ret = json_reader_value(jr, &v->v[v->n - 1]);
		}
		if (ret)
			return ret;
		skip_blank(jr);
		if (jr->p < jr->end && *jr->p == ',') {
			jr->p++;
			continue;
		}
		if (jr->p < jr->end && *jr->p == close) {
			jr->p++;
			break;
		}
		if (jr->p >= jr->end)
			return json_reader_fail(jr, obj ? "end of input inside an object" :
						"end of input inside an array");
		return json_reader_fail(jr, obj ? "expected ',' or '}' in an object" :
					"expected ',' or ']' in an array");
	}
	jr->depth--;
	return 0;
}

/* true, false or null at jr->p. */
static int read_literal(struct json_reader *jr, const char *word,
			enum json_type t, struct json_val *v)
{
	size_t n = strlen(word);

	if ((size_t)(jr->end - jr->p) < n || memcmp(jr->p, word, n))
		return json_reader_fail(jr, "expected a JSON value");
	jr->p += n;
	v->t = t;
	return 0;
}

int json_reader_value(struct json_reader *jr, struct json_val *v)
{
	skip_blank(jr);
	v->line = jr->line;
	if (jr->p >= jr->end)
		return json_reader_fail(jr, "end of input: expected a JSON value");
	switch (*jr->p) {
	case '{':
	case '[':
		return read_container(jr, v);
	case '"':
		v->t = JSON_STR;
		return read_string(jr, &v->s);
	case 't':
		return read_literal(jr, "true", JSON_TRUE, v);
	case 'f':
		return read_literal(jr, "false", JSON_FALSE, v);
	case 'n':
		return read_literal(jr, "null", JSON_NULL, v);
	default:
		if (*jr->p == '-' || is_digit(*jr->p))
			return read_number(jr, v);
		return json_reader_fail(jr, "expected a JSON value");
	}
}

const struct json_val *json_val_get(const struct json_val *obj, const char *key)
{
	size_t i;

	if (obj->t != JSON_OBJ)
		return NULL;
	for (i = 0; i < obj->n; i++)
		if (!strcmp(obj->k[i], key))
			return &obj->v[i];
	return NULL;
}
