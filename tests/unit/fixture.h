/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers for unit tests that read tests/fixtures. */
#ifndef OFFCPU_TEST_FIXTURE_H
#define OFFCPU_TEST_FIXTURE_H

#include <stddef.h>

#include "fmt.h"

extern const char *const fixture_kernels[];	/* NULL-terminated */

/* $srcdir/tests/fixtures/<rel>; static buffer */
const char *fixture_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Load header_page and the sched formats found in kernels/<k>/raw. */
int fixture_layout(struct sched_layout *l, const char *kernel);
/* Run a suite; returns the exit status for main(). */
#include <check.h>
int check_run(Suite *s);
/* Whole file, NUL-terminated, caller frees; aborts the test when missing. */
char *fixture_read(const char *path, size_t *len);

#endif
