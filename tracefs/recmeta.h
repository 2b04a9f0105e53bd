/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Our own metadata in a recording (the trace.dat option 0x4f46): one
 * module writes it and reads it back, so that what a recording says of its
 * window, scope, losses, trusted switches, /proc/stat idle time, cgroups
 * and tgids is spelled in one place (tests/unit/check_rec: a round trip).
 *
 * The text: "key=value" lines up to the first empty line, then the
 * sections "saved_tgids:" ("TID TGID" lines) and "cgroups:" ("TID PATH"
 * lines, to the end).
 */
#ifndef OFFCPU_RECMETA_H
#define OFFCPU_RECMETA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"

/* What the metadata holds besides the window (struct backend_window) */
struct recmeta_more {
	unsigned ncpu;			/* lost= lists this many */
	const char *kallsyms;		/* "subset" or what the file's symbols are */
	const char *release;		/* the kernel's, "" unknown */
	const char *instance;		/* the tracefs instance recorded, or NULL */
	uint64_t bad_pages;		/* pages the recorder refused */
	const char *tgids;		/* "TID TGID" lines, or NULL */
};

/*
 * The text for @m and @x: malloc'd, NUL-terminated (the caller frees);
 * NULL when out of memory.
 */
char *recmeta_text(const struct backend_window *m, const struct recmeta_more *x);

/* Key @key's value into @buf: 0, -ENOENT, -ENAMETOOLONG. @text may be NULL. */
int recmeta_get(const char *text, const char *key, char *buf, size_t len);
/* Key @key as a number in [0, @max]: 0, -ENOENT, -EINVAL (not one) */
int recmeta_u64(const char *text, const char *key, uint64_t max, uint64_t *v);
/* lost=: each CPU's count into @lost (@ncpu of them); the CPUs it listed, or -ENOENT */
int recmeta_lost(const char *text, uint64_t *lost, unsigned ncpu);
/* The scope (kind "" when none, or one that needs an id and has none) */
void recmeta_scope(const char *text, struct rec_scope *s);
/* cpu_switches=: BK_SW_*, or -ENOENT (a recording from before it) */
int recmeta_switches(const char *text);
/* proc_idle_ns=: per CPU, listed or "-"; the CPUs read (0: none, or not ours) */
unsigned recmeta_proc_idle(const char *text, uint64_t *ns, bool *listed, unsigned max);
/* The "cgroups:" section's lines, or NULL */
const char *recmeta_cgroups(const char *text);
/*
 * The "saved_tgids:" section: calls @fn for each well-formed line, in the
 * file's order; the count.
 */
size_t recmeta_tgids(const char *text, void (*fn)(int32_t tid, int32_t tgid, void *arg),
		     void *arg);

#endif
