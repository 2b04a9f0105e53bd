/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A trace.dat's compressed blocks (version 7: "u32 size, u32 raw size,
 * data", zlib or zstd) and its CPU data page by page, plain or in
 * compressed chunks: the one implementation tdat_scan() checks with and
 * every reader (ours, and the page checks before libtracecmd) reads with.
 * Nothing a block claims is believed: its raw size is bounded by the
 * caller before anything is allocated for it, and it must decompress to
 * exactly that.
 */
#ifndef OFFCPU_TDATZ_H
#define OFFCPU_TDATZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdat;

/*
 * Decompress the @slen bytes at @src into exactly @dlen bytes at @dst,
 * with @compression ("zlib" or "zstd"). 0; -EINVAL when they are corrupt
 * or do not expand to exactly @dlen bytes; -ENOTSUP when this build has
 * no such decompressor.
 */
int tdatz_inflate(const char *compression, const void *src, size_t slen, void *dst, size_t dlen);

/* A compressed block's header at @off of @fd: its compressed and raw sizes. 0 or -errno. */
int tdatz_header(int fd, uint64_t off, uint32_t *csize, uint32_t *usize);

/*
 * The compressed block at *@off (it must end by @end): read, checked and
 * decompressed into *@out (newly allocated, caller frees; its raw size in
 * *@len). It may claim at most @max raw bytes, and not 0. *@off moves past
 * it. 0, -EINVAL (past @end, too large, or corrupt), -ENOTSUP, -ENOMEM.
 */
int tdatz_read_block(const char *compression, int fd, uint64_t *off, uint64_t end, size_t max,
		     uint8_t **out, size_t *len);

/* One CPU's data, page by page: plain pages, or the pages of each chunk. */
struct tdat_pages {
	const struct tdat *t;
	int fd;
	uint64_t off, end;	/* the data still to read */
	uint64_t page_off;	/* where the last page came from (compressed: its chunk) */
	bool z;			/* in compressed chunks */
	uint32_t chunks;	/* z: chunks left */
	uint8_t *chunk;		/* z: the current chunk's pages */
	size_t chunk_len, chunk_pos;
};

/*
 * Start at CPU @cpu's first page of the recording @t (checked by
 * tdat_scan()) open on @fd; again to rewind. 0 or -errno.
 */
int tdat_pages_start(struct tdat_pages *p, const struct tdat *t, int fd, unsigned cpu);
/*
 * The next page into @page (t->page_size bytes; a short last page is
 * padded with zeros), its length in *@len. 1, 0 at the end, or -errno
 * (-EINVAL: a chunk that does not read or decompress; -ENOTSUP).
 */
int tdat_pages_next(struct tdat_pages *p, void *page, size_t *len);
/* Free what the pages hold; accepts a zeroed struct. */
void tdat_pages_fini(struct tdat_pages *p);

#endif
