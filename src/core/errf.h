/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One-line errors for layers that do not print: "what: strerror". */
#ifndef OFFCPU_ERRF_H
#define OFFCPU_ERRF_H

#include <stddef.h>

/*
 * "@fmt...: strerror(-@ret)" into @err (@len bytes); returns @ret (a
 * negative errno), so a failure path is "return errf(err, len, -E.., ...)".
 */
__attribute__((format(printf, 4, 5)))
int errf(char *err, size_t len, int ret, const char *fmt, ...);

#endif
