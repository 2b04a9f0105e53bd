/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Escaping text (comm names, symbols, paths) for each output format. */
#ifndef OFFCPU_ESCAPE_H
#define OFFCPU_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* JSON string literal of at most @max bytes of @s (stops at NUL). */
void json_str(FILE *f, const char *s, size_t max);
/* An OpenMetrics label value, escaped as the exposition format wants. */
void om_label_value(FILE *f, const char *s, size_t max);

#endif
