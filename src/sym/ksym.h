/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel symbols from /proc/kallsyms: read once into a sorted array, looked
 * up by binary search. kallsyms gives no sizes, so a symbol covers up to
 * the next one, and never more than KSYMS_MAX_SPAN bytes.
 */
#ifndef OFFCPU_KSYM_H
#define OFFCPU_KSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Past this distance from the nearest symbol an address is unknown. */
#define KSYMS_MAX_SPAN	(1u << 20)

struct ksyms;

/*
 * Load the text symbols (t T w W) of @path, normally "/proc/kallsyms".
 * Returns 0 and a table in *out (caller frees with ksyms_free), -EINVAL on
 * a malformed line, or another negative errno.
 */
int ksyms_load(struct ksyms **out, const char *path);
/* The same from kallsyms text in memory (a recording's copy). */
int ksyms_parse(struct ksyms **out, const char *text, size_t len);
/*
 * Among aliases at one address the lowest rank names it: fewer leading
 * underscores, then global (upper-case type) before local, then the first
 * in file order. Recordings keep the same alias (tracefs/recfile.c).
 */
uint32_t ksym_rank(char type, const char *name);
void ksyms_free(struct ksyms *k);
/*
 * No usable address: kptr_restrict (or a reader without CAP_SYSLOG) makes
 * the kernel print every address as 0. Lookups then always fail.
 */
bool ksyms_restricted(const struct ksyms *k);
/* Symbols kept (aliases at one address count once). */
size_t ksyms_count(const struct ksyms *k);
/*
 * Write "func" or "func [module]" for @addr into @buf (truncated to fit,
 * always NUL-terminated when @len > 0). Returns 0, or -ENOENT after writing
 * "0x<hex>" because no symbol covers @addr (@k may be NULL).
 */
int ksyms_format(const struct ksyms *k, uint64_t addr, char *buf, size_t len);
/*
 * The address of symbol @name (of module @mod, NULL for vmlinux; a symbol
 * of that name elsewhere when there is none there), aliases included, for
 * stacks /proc prints by name. 0, -ENOENT, or -ENOMEM (the index by name
 * is built on the first call).
 */
int ksyms_addr_of(struct ksyms *k, const char *name, const char *mod, uint64_t *addr);
/*
 * The frames of a /proc/<tid>/stack text ("[<0>] func+0x1b/0x80 [mod]"
 * per line, innermost first), as addresses: up to @max of them; frames
 * whose symbol is not found are left out and counted in *unknown.
 */
unsigned ksyms_proc_stack(struct ksyms *k, const char *text, uint64_t *frames, unsigned max,
			  unsigned *unknown);

#endif
