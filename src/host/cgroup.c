// SPDX-License-Identifier: GPL-2.0-or-later
/* --cgroup: is a thread in the cgroup (v1 or v2), and its CPU throttling. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup.h"

/* The cgroup mount holding @real: type and options, longest prefix wins. */
static int find_mount(const char *real, char *mnt, size_t mlen, char *type, char *opts)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], m[PATH_MAX], t[64], o[512];
	size_t best = 0;

	if (!f)
		return -errno;
	while (fscanf(f, "%255s %4095s %63s %511s %*d %*d\n", dev, m, t, o) == 4) {
		size_t n = strlen(m);

		if (strcmp(t, "cgroup2") && strcmp(t, "cgroup"))
			continue;
		if (strncmp(real, m, n) || (real[n] != '/' && real[n] != '\0') || n <= best)
			continue;
		best = n;
		snprintf(mnt, mlen, "%s", m);
		snprintf(type, 64, "%s", t);
		snprintf(opts, 512, "%s", o);
	}
	fclose(f);
	return best ? 0 : -ENOENT;
}

/* v1: the hierarchy id of the first controller among the mount options */
static int v1_hierarchy(const char *opts, char *name, size_t nlen)
{
	char copy[512], *tok, *save = NULL;
	FILE *f;

	snprintf(copy, sizeof(copy), "%s", opts);
	name[0] = '\0';
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char line[256], sub[64];
		int id;

		if (!strncmp(tok, "name=", 5)) {
			snprintf(name, nlen, "%s", tok);
			continue;
		}
		f = fopen("/proc/cgroups", "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "%63s %d", sub, &id) == 2 && !strcmp(sub, tok)) {
				fclose(f);
				return id;
			}
		fclose(f);
	}
	return -1;
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
	char path[64], line[4096 + 128];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL, *nl;
		int id = atoi(line);

		if (!b)
			continue;
		*b = '\0';
		nl = strchr(b + 1, '\n');
		if (nl)
			*nl = '\0';
		/* v2: "0::/path"; v1: "id:controllers:/path" */
		if (c->v2 ? id == 0 && a[1] == '\0' :
		    (c->v1_id >= 0 ? id == c->v1_id : !strcmp(a + 1, c->v1_name))) {
			found = under(b + 1, c->rel);
			break;
		}
	}
	fclose(f);
	return found;
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
