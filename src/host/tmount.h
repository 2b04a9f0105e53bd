/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Finding tracefs: the mount point every tracefs user (and perf's formats) needs. */
#ifndef OFFCPU_TMOUNT_H
#define OFFCPU_TMOUNT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Find tracefs: @override, else the tracefs mount in /proc/self/mounts,
 * else debugfs's tracing/. Writes the directory to @dir. Returns 0, or
 * -ENOENT/-EACCES with a one-line reason and fix in @err.
 */
int tmount_find(const char *override, char *dir, size_t len, char *err, size_t errlen);
/* Can we write to tracefs at @dir (not read-only, instances/ writable)? */
bool tmount_writable(const char *dir);

#define TMOUNT_DEFAULT "/sys/kernel/tracing"

/*
 * As root, when tracefs is mounted neither at a tracefs mount nor under
 * debugfs (and no --tracefs @override was given), mount it at
 * TMOUNT_DEFAULT for this run, as perf and bpftrace do. Returns 1 when it
 * mounted it (its directory in @dir), else 0: nothing was needed, or it
 * could not be mounted (not root; in a container: no CAP_SYS_ADMIN, no
 * /sys), which is no error here (perf's records and /proc need no
 * tracefs): the reason is in @err ("" when none), and tmount_find() says
 * it from then on.
 */
int tmount_ensure(const char *override, char *dir, size_t len, char *err, size_t errlen);
/* Where tmount_ensure() mounted tracefs, or NULL. */
const char *tmount_mounted(void);
/*
 * Unmount what tmount_ensure() mounted. 0, or a negative errno (-EBUSY:
 * something else uses it now, so it stays mounted).
 */
int tmount_release(void);

#endif
