// SPDX-License-Identifier: GPL-2.0-or-later
/* --cgroup: is a thread in the cgroup (v1 or v2), and its CPU throttling. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgname.h"
#include "cgroup.h"
#include "fileread.h"
#include "mounts.h"

/* The cgroup mount holding @real: type and options, longest prefix wins. */
static int find_mount(const char *real, char *mnt, size_t mlen, char *type, char *opts)
{
	char *text = file_read("/proc/self/mounts", NULL), *p = text;
	struct mount_ent m;
	size_t best = 0;

	if (!text)
		return -errno;
	while (mounts_next(&p, &m)) {
		size_t n = strlen(m.dir);

		if (strcmp(m.type, "cgroup2") && strcmp(m.type, "cgroup"))
			continue;
		if (strncmp(real, m.dir, n) || (real[n] != '/' && real[n] != '\0') || n <= best)
			continue;
		best = n;
		snprintf(mnt, mlen, "%s", m.dir);
		snprintf(type, 64, "%s", m.type);
		snprintf(opts, 512, "%s", m.opts);
	}
	free(text);
	return best ? 0 : -ENOENT;
}

/* v1: the hierarchy id of the first controller among the mount options */
static int v1_hierarchy(const char *opts, char *name, size_t nlen)
{
	char copy[512], *tok, *save = NULL, *cgroups = file_read("/proc/cgroups", NULL);
	int id = -1;
	bool enabled;

	snprintf(copy, sizeof(copy), "%s", opts);
	name[0] = '\0';
	for (tok = strtok_r(copy, ",", &save); tok && id < 0; tok = strtok_r(NULL, ",", &save)) {
		if (!strncmp(tok, "name=", 5))
			snprintf(name, nlen, "%s", tok);
		else if (cgroups)
			id = cgroup_controller_hierarchy(cgroups, tok, &enabled);
	}
	free(cgroups);
	return id < 0 ? -1 : id;
}

int cgroup_sel_open(struct cgroup_sel *c, const char *path, char *err, size_t errlen)
{
	char real[PATH_MAX], mnt[PATH_MAX], type[64], opts[512];
	struct stat st;

	memset(c, 0, sizeof(*c));
	if (!realpath(path, real) || stat(real, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--cgroup %s: no such cgroup directory", path);
		return -ENOENT;
	}
	if (find_mount(real, mnt, sizeof(mnt), type, opts)) {
		snprintf(err, errlen, "--cgroup %s: not inside a mounted cgroup hierarchy "
			 "(e.g. /sys/fs/cgroup/...)", path);
		return -ENOENT;
	}
	snprintf(c->dir, sizeof(c->dir), "%s", real);
	snprintf(c->rel, sizeof(c->rel), "%s", real[strlen(mnt)] ? real + strlen(mnt) : "/");
	c->v2 = !strcmp(type, "cgroup2");
	c->v1_id = -1;
	if (!c->v2) {
		c->v1_id = v1_hierarchy(opts, c->v1_name, sizeof(c->v1_name));
		if (c->v1_id < 0 && !c->v1_name[0]) {
			snprintf(err, errlen, "--cgroup %s: cannot tell which cgroup v1 "
				 "hierarchy it is in", path);
			return -EINVAL;
		}
	}
	return 0;
}

static bool under(const char *p, const char *rel)
{
	size_t n = strlen(rel);

	if (!strcmp(rel, "/"))
		return true;
	return !strncmp(p, rel, n) && (p[n] == '\0' || p[n] == '/');
}

int cgroup_sel_has(int32_t tid, void *sel)
{
	const struct cgroup_sel *c = sel;
	char path[64], rel[CGROUP_PATH_MAX], *text;
	size_t len;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", tid);
	text = file_read_max(path, CGROUP_TEXT_MAX, &len);
	if (!text)
		return -1;
	/* v2: "0::/path"; v1: "id:controllers:/path", by id, or by name= for a named one */
	if (c->v2)
		r = cgroup_line_path(text, len, -1, NULL, rel, sizeof(rel));
	else if (c->v1_id >= 0)
		r = cgroup_line_path(text, len, c->v1_id, NULL, rel, sizeof(rel));
	else
		r = cgroup_line_path(text, len, 0, c->v1_name, rel, sizeof(rel));
	free(text);
	/* no line for the hierarchy, or a malformed text: not in it */
	return !r && under(rel, c->rel);
}

void cgroup_throttle(const struct cgroup_sel *c, struct cpu_throttle *t)
{
	char path[PATH_MAX + 16], key[64];
	unsigned long long v;
	FILE *f;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/cpu.stat", c->dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fscanf(f, "%63s %llu", key, &v) == 2) {
		if (!strcmp(key, "nr_periods"))
			t->periods = v;
		else if (!strcmp(key, "nr_throttled"))
			t->nr_throttled = v, t->have = true;
		else if (!strcmp(key, "throttled_usec"))
			t->throttled_ns = v * 1000;
		else if (!strcmp(key, "throttled_time"))
			t->throttled_ns = v;	/* v1: ns */
	}
	fclose(f);
}
