// SPDX-License-Identifier: GPL-2.0-or-later
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fileread.h"
#include "fixture.h"

const char *const fixture_kernels[] = {
	"5.10.0-32-cloud-amd64",
	"6.1.0-57-cloud-amd64",
	"6.12.117+deb13-cloud-amd64",
	"6.18.44-host",
	NULL,
};

int check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

const char *fixture_path(const char *fmt, ...)
{
	static char buf[4096];
	const char *srcdir = getenv("srcdir");
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "%s/tests/fixtures/", srcdir ? srcdir : ".");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	return buf;
}

char *fixture_read(const char *path, size_t *len)
{
	char *s = file_read(path, len);

	ck_assert_msg(s != NULL, "cannot read fixture %s", path);
	return s;
}

const char fixture_kstack_format[] =
	"name: kernel_stack\nID: 4\nformat:\n"
	FIXTURE_COMMON_FIELDS "\n"
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	"print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], "
	"(void *)REC->caller[1], (void *)REC->caller[2]\n";

int fixture_layout(struct sched_layout *l, const char *kernel)
{
	static const char *const evs[] = {
		"sched_switch", "sched_wakeup", "sched_wakeup_new", NULL
	};
	const char *missing;
	size_t len;
	char *s;
	int i, ret;

	ret = fmt_init(l);
	if (ret)
		return ret;
	s = fixture_read(fixture_path("kernels/%s/raw/header_page", kernel), &len);
	ret = fmt_header_page(l, s, len);
	free(s);
	if (ret)
		return ret;
	for (i = 0; evs[i]; i++) {
		s = file_read(fixture_path("kernels/%s/raw/%s.format", kernel, evs[i]), &len);
		if (!s)
			continue;	/* raw/ has no sched_wakeup_new format */
		ret = fmt_add_event(l, s, len);
		free(s);
		if (ret)
			return ret;
	}
	return fmt_resolve(l, &missing);
}

void fixture_cgroup_layout(struct sched_layout *l)
{
	static const char *const files[] = {
		"raw/sched_switch.format", "cgroup/cgroup_attach_task.format",
		"cgroup/cgroup_transfer_tasks.format", NULL,
	};
	const char *missing;
	size_t len;
	char *s;
	int i;

	ck_assert_int_eq(fmt_init(l), 0);
	s = fixture_read(fixture_path("kernels/6.18.44-host/cgroup/header_page"), &len);
	ck_assert_int_eq(fmt_header_page(l, s, len), 0);
	free(s);
	for (i = 0; files[i]; i++) {
		s = fixture_read(fixture_path("kernels/6.18.44-host/%s", files[i]), &len);
		ck_assert_int_eq(fmt_add_event(l, s, len), 0);
		free(s);
	}
	ck_assert_msg(fmt_resolve(l, &missing) == 0, "missing %s", missing ? missing : "-");
}
