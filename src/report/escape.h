/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Escaping text (comm names, symbols, paths) for each output format. */
#ifndef OFFCPU_ESCAPE_H
#define OFFCPU_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* JSON string literal of at most @max bytes of @s (stops at NUL). */
void json_str(FILE *f, const char *s, size_t max);
/* json_str(), or null when @s is NULL */
void json_str_or_null(FILE *f, const char *s, size_t max);
/* --by cgroup: a cgroup's name as a folded line's first frame and its ';' ("a_b;") */
void folded_cgroup(FILE *f, const char *name);
/*
 * At most @max bytes of @s (stops at NUL) for a text column: control
 * characters as '?' (C0, DEL, and C1 as UTF-8 encodes them: C2 80..C2 9F,
 * one '?' each), so a name cannot break the layout or talk to the
 * terminal; padded with spaces to @width characters printed (as "%-*s";
 * 0: no padding).
 */
void text_field(FILE *f, const char *s, size_t max, int width);
/* text_field()'s rule in place: @s's control characters become '?'. */
void text_clean(char *s);
/* An OpenMetrics label value, escaped as the exposition format wants. */
void om_label_value(FILE *f, const char *s, size_t max);
/*
 * @argv as a POSIX shell command line (plain words as they are, others
 * single-quoted), in at most @max bytes: the words that do not fit
 * become "...".
 */
void shell_quote_argv(char *buf, size_t len, char *const *argv, size_t max);

#endif
