/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small strict JSON reader for the parsers: text in, one value at a
 * time into a tree; errors as "line N: what was expected". Integers are
 * kept exactly (other numbers only as "a number"); strings are decoded,
 * a \u escape below 0x100 as that one byte (report's json_str() writes a
 * comm's bytes so), others as UTF-8; \u0000 is refused. Pure: no I/O, no
 * printing.
 */
#ifndef OFFCPU_JSONREAD_H
#define OFFCPU_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum json_type {
	JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ
};

/* One value; a zeroed struct is an empty JSON_NULL. */
struct json_val {
	enum json_type t;
	unsigned line;		/* 1-based line where it starts */
	bool is_uint;		/* JSON_NUM: integer in [0, UINT64_MAX] */
	bool is_int;		/* JSON_NUM: integer in int64 range */
	uint64_t u;
	int64_t i;
	char *s;		/* JSON_STR: decoded, NUL-terminated */
	struct json_val *v;	/* JSON_ARR items, JSON_OBJ values */
	char **k;		/* JSON_OBJ keys */
	size_t n, cap;
};

/* The text being read; set up with json_reader_init(). */
struct json_reader {
	const char *p, *end;	/* unread text */
	unsigned line;		/* 1-based line at p */
	unsigned depth, max_depth;	/* of nested arrays and objects */
	char *err;
	size_t errlen;
};

/*
 * Read @len bytes at @text (need not be NUL-terminated); arrays and
 * objects nest at most @max_depth deep. Errors go to @err (when
 * @errlen > 0).
 */
void json_reader_init(struct json_reader *jr, const char *text, size_t len,
		      unsigned max_depth, char *err, size_t errlen);
/* The next byte after white space (which is skipped), or -1 at the end. */
int json_reader_peek(struct json_reader *jr);
/*
 * The next value into @v (zeroed, or emptied with json_val_fini()).
 * Returns 0, -EINVAL with "line N: what was expected" in the reader's
 * err, or -ENOMEM; on error @v holds what was read: free it all the same.
 */
int json_reader_value(struct json_reader *jr, struct json_val *v);
/* "line N: <fmt>" at the reader's line into its err; returns -EINVAL. */
int json_reader_fail(struct json_reader *jr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Member @key of object @obj, or NULL (also when @obj is not an object). */
const struct json_val *json_val_get(const struct json_val *obj, const char *key);
/* Free what @v holds and zero it; @v itself is the caller's. */
void json_val_fini(struct json_val *v);

#endif
