/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --cgroup PATH: which threads are in a cgroup (or below it), from
 * /proc/<tid>/cgroup, for cgroup v2 and v1 hierarchies; and the cgroup's
 * pressure and throttling files.
 */
#ifndef OFFCPU_CGROUP_H
#define OFFCPU_CGROUP_H

#include <stdbool.h>
#include <stdint.h>

struct cgroup_sel {
	char dir[4096];		/* the cgroup's directory */
	char rel[4096];		/* its path inside the hierarchy ("/a/b") */
	bool v2;
	int v1_id;		/* v1: hierarchy id from /proc/cgroups, else -1 */
	char v1_name[64];	/* v1 named hierarchy: "name=systemd" */
};

/* Resolve @path (a cgroup directory). 0, or -errno with the reason in @err. */
int cgroup_sel_open(struct cgroup_sel *c, const char *path, char *err, size_t errlen);
/* 1 when @tid is in the cgroup or below, 0 when not, -1 when it is gone. */
int cgroup_sel_has(int32_t tid, void *sel);

struct cpu_throttle {
	bool have;
	uint64_t periods, nr_throttled, throttled_ns;
};

/* cpu.stat of the cgroup (v2 throttled_usec, v1 throttled_time). */
void cgroup_throttle(const struct cgroup_sel *c, struct cpu_throttle *t);

#endif
