/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one reader of /proc/self/mounts lines (tracefs, cgroup mounts). */
#ifndef OFFCPU_MOUNTS_H
#define OFFCPU_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

/* One mount, its fields pointing into the text mounts_next() cut. */
struct mount_ent {
	char *dev;
	char *dir;		/* the mount point, unescaped */
	char *type;		/* "tracefs", "cgroup", "cgroup2", ... */
	char *opts;		/* "rw,relatime,cpu,cpuacct" */
};

/*
 * The next line of /proc/self/mounts text at *@p (a NUL-terminated buffer
 * the caller owns: fields are cut with NULs and the mount point unescaped
 * in place) into @m; *@p moves past it. true with a mount, false at the
 * end of the text. Lines with fewer than four fields are skipped.
 */
bool mounts_next(char **p, struct mount_ent *m);

/*
 * The mount point of the first mount of @type in @mounts (the text of
 * /proc/self/mounts) whose options hold @opt (NULL: any), into @dir (@len
 * bytes). 0, -ENOENT or -ENOMEM.
 */
int mounts_find(const char *mounts, const char *type, const char *opt, char *dir, size_t len);

/* "a,b,c" holds @tok as one of its items (the first @len bytes of @list). */
bool mount_list_has(const char *list, size_t len, const char *tok);

#endif
