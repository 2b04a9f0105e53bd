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
/* the common fields every event format starts with (x86_64), for format texts */
#define FIXTURE_COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

/* ftrace's kernel_stack format (id 4), as 6.x kernels print it */
extern const char fixture_kstack_format[];

int fixture_layout(struct sched_layout *l, const char *kernel);
/*
 * The 6.18 host's header_page, sched_switch and the cgroup formats in
 * kernels/6.18.44-host/cgroup (a real capture of cgroup_attach_task);
 * aborts the test on failure.
 */
void fixture_cgroup_layout(struct sched_layout *l);
/* Run a suite; returns the exit status for main(). */
#include <check.h>
int check_run(Suite *s);
/* Whole file, NUL-terminated, caller frees; aborts the test when missing. */
char *fixture_read(const char *path, size_t *len);

#endif
