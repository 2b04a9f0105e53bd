/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the tool reads from /proc about tasks. */
#ifndef OFFCPU_PROCFS_H
#define OFFCPU_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Process id of thread @tid from /proc/<tid>/status; -1 when gone. */
int32_t proc_tgid(int32_t tid, void *unused);
/*
 * Thread ids of process @pid (/proc/<pid>/task). Returns the count, or a
 * negative errno; *tids is malloc'd, caller frees.
 */
int proc_threads(int32_t pid, int32_t **tids);

/* /proc/<tid>/comm into @buf, without the newline; -errno if gone */
int proc_comm(int32_t tid, char *buf, size_t len);

/* Process @pid's main thread sleeps in wait4()/waitid() (its wchan, now). */
bool proc_waits_for_child(int32_t pid);

#endif
