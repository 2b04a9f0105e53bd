/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat_scan()'s private parts, shared by its files (tdat.c: the public
 * entry points; tdatrd.c: the bounded reader; tdatpart.c: the metadata
 * parts and their format checks; tdatsec.c: version 7's sections and
 * the options, version 6's flyrecord table): the bounds on counts, the
 * read position, and the functions one file calls in another. Not for
 * use outside tracefs/tdat*.c.
 */
#ifndef OFFCPU_TDAT_LOCAL_H
#define OFFCPU_TDAT_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdat.h"


/* bounds on counts read from the file, far above anything real */
#define MAX_FORMATS	100000u
#define MAX_CPUS	8192u
#define MAX_OPTIONS_SECTIONS 1024u
#define MAX_TEXT	(64u << 20)	/* an option's text */
#define MAX_FORMAT	(1u << 20)	/* one event's format file */

/*
 * A read position in the file, and where the current section ends; or in
 * a compressed section's contents, decompressed (mem: offsets are within
 * them, mem_at is the section's offset in the file).
 */
struct rd {
	int fd;
	uint64_t off, end;
	const uint8_t *mem;
	uint64_t mem_at;
	bool clock_option;	/* v6: a TRACECLOCK option was seen */
	struct tdat *t;
	char *err;
	size_t errlen;
};

/* tdatrd.c: the bounded reader (every read checked against r->end) */

/* @fmt at @off into r->err ("offset N: ..."); returns @ret. */
__attribute__((format(printf, 4, 5)))
int rd_fail(struct rd *r, int ret, uint64_t off, const char *fmt, ...);
/* @n bytes of @what fit before the section (or the file) ends: 0 or -EINVAL. */
int rd_need(struct rd *r, uint64_t n, const char *what);
/* @n bytes at r->off into @buf, r->off moved past them. */
int rd_bytes(struct rd *r, void *buf, size_t n, const char *what);
int rd_skip(struct rd *r, uint64_t n, const char *what);
/* Little-endian numbers. */
int rd_u16(struct rd *r, uint16_t *v, const char *what);
int rd_u32(struct rd *r, uint32_t *v, const char *what);
int rd_u64(struct rd *r, uint64_t *v, const char *what);
/* A NUL-terminated string of at most @cap - 1 printable characters. */
int rd_str(struct rd *r, char *buf, size_t cap, const char *what);
/* The @len bytes of @tag, exactly. */
int rd_tag(struct rd *r, const char *tag, size_t len);
/* An option's text of @size bytes (NUL-terminated copy, caller frees). */
int rd_text(struct rd *r, uint32_t size, char **out, const char *what);

/* tdatpart.c: the metadata parts (header pages, formats, kallsyms, printk, cmdlines) */

/* v6: the parts in a row, then the CPU count into *@cpus. */
int scan_v6_headers(struct rd *r, uint32_t *cpus);
/* v7: metadata section @id's contents at @off, plain or compressed. */
int scan_part(struct rd *r, uint16_t id, uint64_t off, uint64_t size);
int scan_part_z(struct rd *r, uint16_t id, uint64_t off, uint64_t size);
/*
 * The compressed block at @off (within @end) of @what, decompressed into
 * *@raw (caller frees), its claim bounded by what the recording may expand to.
 */
int rd_block(struct rd *r, uint64_t off, uint64_t end, const char *what, uint8_t **raw,
	     size_t *len);

/* tdatsec.c: version 7's sections, the options, version 6's flyrecord */

/* A trace clock's name as the kernel spells them (letters, digits, '-', '_'). */
bool clock_name_ok(const char *s, size_t n);
/* The section header at @off: @id expected; its data range must fit. */
int check_section(struct rd *r, uint64_t off, uint16_t id, const char *what,
		  uint16_t *flags, uint64_t *data_off, uint64_t *size);
/* Options from @r->off up to @end; *next: the next options section (v7). */
int scan_options(struct rd *r, uint64_t end, uint64_t *next);
/* v6: the "flyrecord" CPU table (and the trace clock after it, per @clock_option). */
int scan_v6_flyrecord(struct rd *r, uint32_t cpus, bool clock_option);
/* v7: the sections from @off to the end of the file, each within it. */
int walk_sections(struct rd *r, uint64_t off);
/* Uncompressed CPU data is page-aligned. */
int check_alignment(struct rd *r);

#endif
