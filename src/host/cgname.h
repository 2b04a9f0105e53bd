/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --by cgroup: which cgroup a thread is in (its line of /proc/<tid>/cgroup),
 * which hierarchy this host keys on, and what a cgroup is called. Pure
 * functions of text, except cgroup_hierarchy_pick(), which reads /proc.
 */
#ifndef OFFCPU_CGNAME_H
#define OFFCPU_CGNAME_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define CGROUP_PATH_MAX PATH_MAX	/* the kernel prints no longer path */
#define CGROUP_NAME_MAX 64		/* a display name, with its NUL */
/* /proc/<tid>/cgroup read at the most: 16 hierarchies of PATH_MAX paths fit */
#define CGROUP_TEXT_MAX (128u << 10)

/*
 * The path of the thread's cgroup in one hierarchy, from the text of
 * /proc/<tid>/cgroup ("ID:CONTROLLERS:PATH" lines): cgroup v2's "0::/path"
 * line when @v1_id < 0; else the v1 line whose hierarchy id is @v1_id or,
 * when @v1_name is not empty (a named hierarchy, "name=systemd", whose id
 * /proc/cgroups does not list), the one whose list names it. Into @path
 * (@plen bytes, NUL-terminated). 0; -ENOENT when no line is for that
 * hierarchy; -EINVAL when the text is malformed (a line that is not
 * "digits:list:/path", a NUL, two lines for the hierarchy: a path holding
 * a newline could forge one); -ENAMETOOLONG when the path does not fit.
 */
int cgroup_line_path(const char *text, size_t len, int v1_id, const char *v1_name,
		     char *path, size_t plen);

/*
 * @controller's v1 hierarchy id in @cgroups, the text of /proc/cgroups (0:
 * on none, or on cgroup v2), and whether it is enabled. -ENOENT when it is
 * not listed, -EINVAL when its line is malformed.
 */
int cgroup_controller_hierarchy(const char *cgroups, const char *controller, bool *enabled);

/* The hierarchy --by cgroup keys on. */
struct cgroup_hier {
	int v1_id;		/* -1: cgroup v2; else the v1 hierarchy's id (>= 1) */
	char v1_name[64];	/* a named v1 hierarchy ("name=systemd"), else "" */
	char root[CGROUP_PATH_MAX];	/* its mount point: "/sys/fs/cgroup/cpu" */
};

/*
 * Which hierarchy to key on for @controller ("cpu" when NULL): its v1
 * hierarchy when /proc/cgroups puts it on one (a v1 or hybrid host; the
 * hybrid host's cgroup2 at /sys/fs/cgroup/unified holds no controller),
 * else cgroup v2 when mounted (every v2-only host: there /proc/cgroups says
 * hierarchy 0, or is absent without CONFIG_CGROUP_V1). @controller may
 * also name a named v1 hierarchy ("systemd" or "name=systemd"). 0, or
 * -ENOENT with the reason in @err.
 */
int cgroup_hierarchy_pick(const char *controller, struct cgroup_hier *h, char *err,
			  size_t errlen);
/*
 * cgroup_hierarchy_pick() on given texts: @cgroups of /proc/cgroups (NULL:
 * absent), @mounts of /proc/self/mounts, @self of /proc/self/cgroup (the
 * id of a named hierarchy; NULL: unknown).
 */
int cgroup_hierarchy_pick_text(const char *controller, const char *cgroups, const char *mounts,
			       const char *self, struct cgroup_hier *h, char *err, size_t errlen);

/*
 * What a cgroup path is called (either buffer may be NULL with its length
 * 0: not wanted). @rolled (@rlen bytes) gets @path cut to
 * its first @depth components (--cgroup-depth; 0 keeps it whole, "/"
 * stays "/"), as raw bytes: the key, escaped by whoever prints it.
 * @short_name (@slen bytes, CGROUP_NAME_MAX is plenty) gets its display
 * name, the deepest component the runtimes name a container by
 * shortened to the 12 hex digits `docker ps` shows, with what lies below
 * it appended:
 *   /docker/<64 hex>, /system.slice/docker-<64 hex>.scope   -> 0123456789ab
 *   cri-containerd-<64 hex>.scope, crio-<64 hex>.scope,
 *   libpod-<64 hex>.scope (podman)                           -> 0123456789ab
 *   /kubepods/burstable/pod<uid>/<64 hex> (v1) and
 *   /kubepods.slice/.../kubepods-burstable-pod<uid>.slice/
 *   cri-containerd-<64 hex>.scope (v2)                       -> 0123456789ab
 *   libpod-<64 hex>.scope/container                          -> 0123456789ab/container
 * a pod cut at its own level (pod<uid>, kubepods-<qos>-pod<uid_>.slice)
 * -> pod<uid>; anything else (systemd slices, user sessions) is the path
 * itself, or "..." and its tail when it does not fit. Control characters
 * become '?' in @short_name.
 */
void cgroup_name(const char *path, unsigned depth, char *short_name, size_t slen, char *rolled,
		 size_t rlen);

#endif
