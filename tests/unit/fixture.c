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
