// SPDX-License-Identifier: GPL-2.0-or-later
/* The sched layout from tracefs's format files, for every backend that reads events. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errf.h"
#include "fileread.h"
#include "fmtload.h"

static int load_one(struct sched_layout *l, const char *root, const char *rel, bool required,
		    char *err, size_t errlen)
{
	char path[PATH_MAX + 64];
	size_t len;
	char *text;
	int ret;

	snprintf(path, sizeof(path), "%s/events/%s", root, rel);
	text = file_read(path, &len);
	if (!text) {
		ret = -errno;
		if (!required && ret == -ENOENT)
			return 0;
		if (ret == -EACCES)
			snprintf(err, errlen, "cannot read %s: the event formats in tracefs "
				 "need root (or CAP_DAC_READ_SEARCH)", path);
		else
			errf(err, errlen, ret, "cannot read %s", path);
		return ret;
	}
	ret = !strcmp(rel, "header_page") ? fmt_header_page(l, text, len) :
	      fmt_add_event(l, text, len);
	free(text);
	if (ret)
		snprintf(err, errlen, "cannot parse %s", path);
	return ret;
}

int sched_layout_load(struct sched_layout *l, bool *inited, const char *root, unsigned what,
		      char *err, size_t errlen)
{
	static const struct {
		const char *rel;
		unsigned when;		/* 0: always */
		bool required;
	} files[] = {
		{ "header_page", FMTLOAD_HEADER_PAGE, true },
		{ "sched/sched_switch/format", 0, true },
		{ "sched/sched_wakeup/format", 0, true },
		{ "sched/sched_wakeup_new/format", 0, false },	/* not on every kernel */
		{ "sched/sched_waking/format", FMTLOAD_WAKING, true },
		{ "sched/sched_process_fork/format", FMTLOAD_FORK, true },
		{ "ftrace/kernel_stack/format", FMTLOAD_KSTACK, true },
		{ "ftrace/user_stack/format", FMTLOAD_USTACK, true },
		/* not without CONFIG_CGROUPS; the same class on every kernel */
		{ "cgroup/cgroup_attach_task/format", FMTLOAD_CGROUP, false },
		{ "cgroup/cgroup_transfer_tasks/format", FMTLOAD_CGROUP, false },
	};
	const char *missing;
	unsigned i;
	int ret;

	*inited = false;
	ret = fmt_init(l);
	if (ret)
		return errf(err, errlen, ret, "%s", "libtraceevent");
	*inited = true;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (files[i].when && !(what & files[i].when))
			continue;
		ret = load_one(l, root, files[i].rel, files[i].required, err, errlen);
		if (ret)
			return ret;
	}
	ret = fmt_resolve(l, &missing);
	if (ret)
		snprintf(err, errlen, "unexpected format of %s on this kernel", missing);
	return ret;
}

unsigned sched_layout_events(const struct sched_layout *l, bool inited, bool kstack,
			     bool ustack)
{
	unsigned t, m = 0;

	for (t = SEV_SWITCH; inited && t < SEV_NSCHED; t++)
		if (l->id[t] >= 0)
			m |= 1u << t;
	for (t = SEV_CGROUP_ATTACH; inited && t <= SEV_CGROUP_TRANSFER; t++)
		if (l->id[t] >= 0)
			m |= 1u << t;
	if (kstack)
		m |= 1u << SEV_KSTACK;
	if (ustack)
		m |= 1u << SEV_USTACK;
	return m;
}
