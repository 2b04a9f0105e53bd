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

#endif
