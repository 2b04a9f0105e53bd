/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User-space symbols. A snapshot of a process's executable mappings is
 * taken from /proc/<pid>/maps when the process is first seen, and the
 * symbol tables of the mapped files are read then (libelf), so stacks of
 * processes that have exited by report time still resolve. Tables are
 * cached per file (path, device, inode) and shared by every process that
 * maps the file. Everything is bounded: snapshots by the caller's limit,
 * tables by USYMS_MAX_FILES and USYMS_MAX_BYTES.
 */
#ifndef OFFCPU_USYM_H
#define OFFCPU_USYM_H

#include <stddef.h>
#include <stdint.h>

#define USYMS_MAX_FILES	4096		/* files remembered, with or without symbols */
#define USYMS_MAX_BYTES	(256u << 20)	/* memory of all symbol tables */
#define USYMS_MAX_MAPS	8192		/* executable mappings kept per process */

struct usyms;

struct usyms_stats {
	unsigned procs;		/* snapshots held */
	unsigned files;		/* files cached, with or without symbols */
	unsigned files_syms;	/* of which have a symbol table */
	uint64_t syms;		/* symbols in those tables */
	uint64_t bytes;		/* memory used by those tables */
};

/*
 * Returns a newly allocated resolver holding at most @max_procs snapshots,
 * or NULL when out of memory; caller frees with usyms_free.
 */
struct usyms *usyms_new(unsigned max_procs);
void usyms_free(struct usyms *u);
/*
 * Remember the executable mappings of process @tgid as they are now, and
 * load the symbols of the files behind them. Returns 0 (also when @tgid
 * was already snapshotted), -ESRCH when the process is gone or has no user
 * address space (zombie, kernel thread), -ENOSPC when @max_procs snapshots
 * are held, or another negative errno. A file whose symbols cannot be read
 * does not fail the snapshot: its addresses print as module+0xoff.
 *
 * The first snapshot stays: a process that exec()s later, or a new process
 * that reuses the pid, is still resolved against the old mappings.
 */
int usyms_snapshot(struct usyms *u, int32_t tgid);
/*
 * Write the function containing @addr in process @tgid into @buf (truncated
 * to fit, always NUL-terminated when @len > 0) and return 0. Otherwise
 * return -ENOENT after writing "module+0xoff" (basename of the mapped file
 * and the file offset of @addr) when @addr is in a known mapping, or
 * "[unknown]" (also when @u is NULL). For a return address, pass addr - 1
 * so that a call at the very end of a function is not attributed to the
 * next one.
 */
int usyms_format(const struct usyms *u, int32_t tgid, uint64_t addr,
		 char *buf, size_t len);
void usyms_stats(const struct usyms *u, struct usyms_stats *st);

#endif
