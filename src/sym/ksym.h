/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel symbols from /proc/kallsyms: read once into a sorted array, looked
 * up by binary search. kallsyms gives no sizes, so a symbol covers up to
 * the next one, and never more than KSYMS_MAX_SPAN bytes. Also the few
 * lines of it a recording embeds for its stacks (ksyms_subset()).
 */
#ifndef OFFCPU_KSYM_H
#define OFFCPU_KSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Past this distance from the nearest symbol an address is unknown. */
#define KSYMS_MAX_SPAN	(1u << 20)

struct ksyms;

/* One line of kallsyms text, as ksym_parse_line() found it. */
struct ksym_line {
	uint64_t addr;
	char type;		/* 't', 'T', 'w', 'W' (text), 'd', 'A', ... */
	const char *name;	/* in the line: name_len bytes */
	size_t name_len;
	const char *mod;	/* in the line: mod_len bytes; NULL: vmlinux */
	size_t mod_len;
};

/*
 * The one kallsyms line parser: "ffffffff81000000 T _stext" or
 * "... t name\t[module]", the line ending at its first '\n' or NUL and
 * left as it is. Returns 0, or -EINVAL when the line is not of that form.
 */
int ksym_parse_line(const char *line, struct ksym_line *l);

/* The symbol types ksyms_load() keeps: text (t T w W). */
static inline bool ksym_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

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
 * in file order. Recordings keep the same alias (ksyms_subset()). Only
 * @name's leading underscores are read: a ksym_line's name will do.
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

/* What ksyms_subset() kept. */
enum ksyms_kept {
	KSYMS_KEPT_NONE,	/* no frames to name */
	KSYMS_KEPT_SUBSET,	/* the lines the frames need */
	KSYMS_KEPT_ALL,		/* every line: the frames could not be found */
	KSYMS_KEPT_RESTRICTED,	/* nothing: every address reads 0 (kptr_restrict) */
};

/*
 * The kallsyms lines a recording embeds for its kernel stacks (ksubset.c),
 * from @text (@len bytes, then a NUL) and the frames @addrs[0..@naddr):
 * for each frame the text symbol at or below it and the one after, so a
 * reader's "up to the next symbol" lookup covers the frame exactly as with
 * the whole table. Of aliases at one address only the one a live run
 * names (ksym_rank()) is kept, so the reader has no choice to make
 * differently. @all: every line instead (the frames could not be found).
 * Lines that do not parse are left out. Returns 0 with *kept and the lines
 * (sorted by address, each ending in a newline) in a newly allocated *out
 * of *outlen bytes and a NUL (NULL when none; caller frees), or -ENOMEM.
 */
int ksyms_subset(const char *text, size_t len, const uint64_t *addrs, size_t naddr, bool all,
		 char **out, size_t *outlen, enum ksyms_kept *kept);

#endif
