/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strict number parsing: whole string, in range, no silent truncation. */
#ifndef OFFCPU_NUMPARSE_H
#define OFFCPU_NUMPARSE_H

#include <stdint.h>

/* Decimal integer in [min, max]. 0, -EINVAL (not a number) or -ERANGE. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Process or thread id: 1 .. 4194304 (PID_MAX_LIMIT). */
int parse_pid(const char *s, int32_t *out);
/*
 * Seconds, decimal ("10", "0.5") with an optional unit s, m or h; must be
 * > 0 and at most one year. Result in nanoseconds.
 */
int parse_duration(const char *s, uint64_t *ns);

#endif
