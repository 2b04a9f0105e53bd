// SPDX-License-Identifier: GPL-2.0-or-later
/* trace.dat compressed blocks and CPU data pages: read, bounded, decompressed. */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "fileread.h"
#include "tdat.h"
#include "tdatz.h"

int tdatz_inflate(const char *compression, const void *src, size_t slen, void *dst, size_t dlen)
{
	if (!strcmp(compression, "zlib")) {
		uLongf n = (uLongf)dlen;

		return uncompress(dst, &n, src, (uLong)slen) == Z_OK && n == dlen ? 0 : -EINVAL;
	}
#ifdef HAVE_ZSTD
	if (!strcmp(compression, "zstd")) {
		size_t n = ZSTD_decompress(dst, dlen, src, slen);

		return !ZSTD_isError(n) && n == dlen ? 0 : -EINVAL;
	}
#endif
	return -ENOTSUP;
}

int tdatz_header(int fd, uint64_t off, uint32_t *csize, uint32_t *usize)
{
	uint32_t hdr[2];
	int ret = file_pread_all(fd, hdr, sizeof(hdr), off);

	if (ret)
		return ret;
	*csize = le32toh(hdr[0]);
	*usize = le32toh(hdr[1]);
	return 0;
}

int tdatz_read_block(const char *compression, int fd, uint64_t *off, uint64_t end, size_t max,
		     uint8_t **out, size_t *len)
{
	uint32_t csize, usize;
	uint8_t *src, *dst;
	int ret;

	*out = NULL;
	*len = 0;
	if (*off > end || end - *off < 8 || tdatz_header(fd, *off, &csize, &usize))
		return -EINVAL;
	/* the claims against what is there, before anything is allocated */
	if (csize > end - *off - 8 || !usize || usize > max)
		return -EINVAL;
	src = malloc(csize ? csize : 1);
	dst = malloc(usize);
	ret = !src || !dst ? -ENOMEM : file_pread_all(fd, src, csize, *off + 8);
	if (!ret)
		ret = tdatz_inflate(compression, src, csize, dst, usize);
	free(src);
	if (ret) {
		free(dst);
		return ret == -EIO ? -EINVAL : ret;
	}
	*off += 8 + (uint64_t)csize;
	*out = dst;
	*len = usize;
	return 0;
}

int tdat_pages_start(struct tdat_pages *p, const struct tdat *t, int fd, unsigned cpu)
{
	const struct tdat_cpu *d = &t->cpu[cpu];
	uint32_t n;
	int ret;

	tdat_pages_fini(p);
	p->t = t;
	p->fd = fd;
	p->off = p->page_off = d->offset;
	p->end = d->offset + d->size;
	p->z = t->compressed;
	p->chunks = 0;
	if (p->z && d->size) {
		/* "u32 count" of chunks, then the chunks, within the section */
		ret = file_pread_all(fd, &n, 4, p->off);
		if (ret)
			return ret;
		p->chunks = le32toh(n);
		p->off += 4;
		p->end = t->file_size;
	}
	return 0;
}

int tdat_pages_next(struct tdat_pages *p, void *page, size_t *len)
{
	size_t ps = p->t->page_size;
	int ret;

	if (p->z) {
		while (p->chunk_pos >= p->chunk_len) {
			free(p->chunk);
			p->chunk = NULL;
			p->chunk_len = p->chunk_pos = 0;
			if (!p->chunks)
				return 0;
			p->chunks--;
			p->page_off = p->off;
			/* tdat_scan() found no larger chunk: a bound, not a claim */
			ret = tdatz_read_block(p->t->compression, p->fd, &p->off, p->end,
					       p->t->max_chunk, &p->chunk, &p->chunk_len);
			if (ret)
				return ret;
		}
		*len = p->chunk_len - p->chunk_pos < ps ? p->chunk_len - p->chunk_pos : ps;
		memset(page, 0, ps);
		memcpy(page, p->chunk + p->chunk_pos, *len);
		p->chunk_pos += ps;
		return 1;
	}
	if (p->off >= p->end)
		return 0;
	*len = p->end - p->off < ps ? (size_t)(p->end - p->off) : ps;
	memset(page, 0, ps);
	p->page_off = p->off;
	ret = file_pread_all(p->fd, page, *len, p->off);
	if (ret)
		return ret;
	p->off += ps;
	return 1;
}

void tdat_pages_fini(struct tdat_pages *p)
{
	free(p->chunk);
	p->chunk = NULL;
	p->chunk_len = p->chunk_pos = 0;
}
