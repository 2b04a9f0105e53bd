// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A trace.dat reader of our own, without libtracecmd: the file backend of
 * the static build (Debian ships no static libtracecmd), built in every
 * build so the tests compare it with libtracecmd's reading.
 *
 * tdat_scan() has checked the structure against the file size and noted
 * where the metadata is. From there: header_page and the sched and ftrace
 * stack formats go through the same format code as a live run; kallsyms
 * names kernel frames; each CPU's data is read page by page (version 6,
 * or 7 uncompressed), or chunk by chunk (version 7, zstd or zlib: each
 * chunk holds whole pages); pages go through page_cursor_load()'s checks
 * and records through decode_record(), CPUs merged in time order.
 * Not read: other instances' buffers, latency-format text, recordings
 * whose timestamps need adjusting (guests, TSC offsets): refused in one
 * line.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "backend.h"
#include "decode.h"
#include "errf.h"
#include "fileread.h"
#include "fmt.h"
#include "ksym.h"
#include "recfile.h"
#include "tdat.h"
#include "tdatread.h"
#include "tsheap.h"

#define MAX_PART (256u << 20)	/* a metadata part, decompressed */
#define MAX_CHUNK (1u << 30)	/* tdat_scan's bound on a chunk's pages */

struct rcpu {
	uint64_t off, end;	/* the CPU's data still to read */
	uint64_t page_off;	/* where the page being walked came from (z: its chunk) */
	bool z;			/* in compressed chunks */
	uint32_t chunks;	/* z: chunks left */
	uint8_t *chunk;		/* z: the current chunk's pages */
	size_t chunk_len, chunk_pos;
	uint8_t *page;		/* the page being walked */
	struct page_cursor cur;
	bool loaded;		/* cur is on a record */
};

struct backend {
	char path[PATH_MAX];
	int fd;
	struct tdat dat;
	struct sched_layout layout;
	bool layout_ok;
	unsigned ncpu;
	struct rcpu *cpu;
	uint64_t *next_ts;
	struct tsheap heap;
	bool primed;
	uint64_t *lost;			/* per CPU */
	uint64_t records;
	unsigned seen;			/* 1 << SEV_x of records in the file */
	char clock[32];
	uint64_t window_start, window_end;
	struct ksyms *ksyms;
	char err[256];			/* a read that failed after open */
	uint64_t frames[STACK_MAX_DEPTH];
};

/* Decompress @src into @dst of exactly @dlen bytes. 0 or -EINVAL/-ENOTSUP. */
static int inflate_chunk(const struct backend *b, const void *src, size_t slen, void *dst,
			 size_t dlen)
{
	if (!strcmp(b->dat.compression, "zlib")) {
		uLongf n = (uLongf)dlen;

		return uncompress(dst, &n, src, (uLong)slen) == Z_OK && n == dlen ? 0 : -EINVAL;
	}
#ifdef HAVE_ZSTD
	if (!strcmp(b->dat.compression, "zstd")) {
		size_t n = ZSTD_decompress(dst, dlen, src, slen);

		return !ZSTD_isError(n) && n == dlen ? 0 : -EINVAL;
	}
#endif
	return -ENOTSUP;
}

/* "u32 size, u32 raw size, data" at @off (within @end): the raw bytes. */
static int read_compressed(struct backend *b, uint64_t *off, uint64_t end, size_t max,
			   uint8_t **out, size_t *len)
{
	uint32_t hdr[2];
	uint8_t *src, *dst;
	int ret;

	if (end - *off < 8 || (ret = file_pread_all(b->fd, hdr, 8, *off)))
		return -EINVAL;
	hdr[0] = le32toh(hdr[0]);
	hdr[1] = le32toh(hdr[1]);
	if (hdr[0] > end - *off - 8 || hdr[1] > max || !hdr[1])
		return -EINVAL;
	src = malloc(hdr[0] ? hdr[0] : 1);
	dst = malloc(hdr[1]);
	ret = !src || !dst ? -ENOMEM : file_pread_all(b->fd, src, hdr[0], *off + 8);
	if (!ret)
		ret = inflate_chunk(b, src, hdr[0], dst, hdr[1]);
	free(src);
	if (ret) {
		free(dst);
		return ret;
	}
	*off += 8 + (uint64_t)hdr[0];
	*out = dst;
	*len = hdr[1];
	return 0;
}

/* A metadata part's bytes (decompressed); caller frees. */
static int load_part(struct backend *b, enum tdat_part_id id, uint8_t **out, size_t *len)
{
	const struct tdat_part *p = &b->dat.part[id];
	uint64_t off = p->offset;

	*out = NULL;
	*len = 0;
	if (!p->size)
		return 0;
	if (p->compressed)
		return read_compressed(b, &off, p->offset + p->size, MAX_PART, out, len);
	if (p->size > MAX_PART)
		return -EINVAL;
	*out = malloc(p->size + 1);
	if (!*out)
		return -ENOMEM;
	*len = (size_t)p->size;
	return file_pread_all(b->fd, *out, *len, off);
}

/* A cursor over a part's bytes: every read is bounded. */
struct mem {
	const uint8_t *p, *end;
};

static bool mem_u32(struct mem *m, uint32_t *v)
{
	if (m->end - m->p < 4)
		return false;
	memcpy(v, m->p, 4);
	*v = le32toh(*v);
	m->p += 4;
	return true;
}

static bool mem_u64(struct mem *m, uint64_t *v)
{
	if (m->end - m->p < 8)
		return false;
	memcpy(v, m->p, 8);
	*v = le64toh(*v);
	m->p += 8;
	return true;
}

/* A NUL-terminated string; false when it runs past the end. */
static bool mem_str(struct mem *m, const char **s)
{
	const uint8_t *nul = memchr(m->p, 0, (size_t)(m->end - m->p));

	if (!nul)
		return false;
	*s = (const char *)m->p;
	m->p = nul + 1;
	return true;
}

/* "u64 size, text" of a format: handed to the layout (unknown ones ignored). */
static int add_format(struct backend *b, struct mem *m, bool header_page)
{
	uint64_t size;
	char *text;
	int ret;

	if (!mem_u64(m, &size) || size > (uint64_t)(m->end - m->p))
		return -EINVAL;
	text = malloc(size + 1);
	if (!text)
		return -ENOMEM;
	memcpy(text, m->p, size);
	text[size] = '\0';
	m->p += size;
	ret = header_page ? fmt_header_page(&b->layout, text, size) :
	      fmt_add_event(&b->layout, text, size);
	free(text);
	return ret == -ENOENT ? 0 : ret;
}

static int parse_headers(struct backend *b, struct mem *m)
{
	const char *tag;
	int ret;

	if (!mem_str(m, &tag) || strcmp(tag, "header_page"))
		return -EINVAL;
	if ((ret = add_format(b, m, true)))
		return ret;
	return 0;	/* header_event: the layout does not need it */
}

static int parse_formats(struct backend *b, struct mem *m, bool systems)
{
	uint32_t nsys = 1, count, i, j;
	const char *name;
	int ret;

	if (systems && !mem_u32(m, &nsys))
		return -EINVAL;
	for (i = 0; i < nsys; i++) {
		if (systems && !mem_str(m, &name))
			return -EINVAL;
		if (!mem_u32(m, &count))
			return -EINVAL;
		for (j = 0; j < count; j++)
			if ((ret = add_format(b, m, false)))
				return ret;
	}
	return 0;
}

/* header_page, the formats and kallsyms, from wherever the file keeps them. */
static int load_metadata(struct backend *b, char *err, size_t errlen)
{
	static const char *const what[] = { "the headers", "the ftrace formats",
					    "the event formats", "kallsyms" };
	const char *missing;
	unsigned id;
	int ret;

	ret = fmt_init(&b->layout);
	if (ret)
		return errf(err, errlen, ret, "%s", "libtraceevent");
	b->layout_ok = true;
	for (id = TDAT_PART_HEADERS; id <= TDAT_PART_KALLSYMS; id++) {
		uint8_t *buf;
		size_t len;
		struct mem m;

		ret = load_part(b, id, &buf, &len);
		if (ret == -ENOTSUP) {
			snprintf(err, errlen, "cannot read %s: this build cannot decompress "
				 "%s (built without it): read it with a build that has it", b->path,
				 b->dat.compression);
			return ret;
		}
		if (!ret && !buf) {
			/* absent: only the headers are needed */
			if (id == TDAT_PART_HEADERS)
				ret = -EINVAL;
			else
				continue;
		}
		m.p = buf;
		m.end = buf ? buf + len : buf;
		if (!ret && id == TDAT_PART_HEADERS)
			ret = parse_headers(b, &m);
		else if (!ret && (id == TDAT_PART_FTRACE || id == TDAT_PART_EVENTS))
			ret = parse_formats(b, &m, id == TDAT_PART_EVENTS);
		else if (!ret && id == TDAT_PART_KALLSYMS && len >= 4)
			ret = ksyms_parse(&b->ksyms, (const char *)buf + 4,
					  len - 4 < le32toh(*(uint32_t *)(void *)buf) ? len - 4 :
					  le32toh(*(uint32_t *)(void *)buf));
		free(buf);
		if (ret) {
			snprintf(err, errlen, "cannot read %s: offset %" PRIu64 ": %s do not parse",
				 b->path, b->dat.part[id].offset, what[id]);
			return -EINVAL;
		}
	}
	if (b->layout.id[SEV_SWITCH] < 0) {
		snprintf(err, errlen, "%s has no sched_switch events: record at least "
			 "sched_switch, sched_wakeup and sched_wakeup_new", b->path);
		return -ENOENT;
	}
	ret = fmt_resolve(&b->layout, &missing);
	if (ret)
		snprintf(err, errlen, "cannot read %s: unexpected format of %s", b->path,
			 missing ? missing : "an event");
	return ret;
}

/* The CPU's next page into c->page (its length in *len); false at the end. */
static int next_page(struct backend *b, struct rcpu *c, size_t *len)
{
	size_t ps = b->dat.page_size;
	int ret;

	if (c->z) {
		while (c->chunk_pos >= c->chunk_len) {
			free(c->chunk);
			c->chunk = NULL;
			c->chunk_len = c->chunk_pos = 0;
			if (!c->chunks)
				return 0;
			c->chunks--;
			c->page_off = c->off;
			ret = read_compressed(b, &c->off, c->end, MAX_CHUNK, &c->chunk,
					      &c->chunk_len);
			if (ret)
				return ret;
		}
		*len = c->chunk_len - c->chunk_pos < ps ? c->chunk_len - c->chunk_pos : ps;
		memcpy(c->page, c->chunk + c->chunk_pos, *len);
		c->chunk_pos += ps;
		return 1;
	}
	if (c->off >= c->end)
		return 0;
	*len = c->end - c->off < ps ? (size_t)(c->end - c->off) : ps;
	memset(c->page, 0, ps);
	c->page_off = c->off;
	ret = file_pread_all(b->fd, c->page, *len, c->off);
	if (ret)
		return ret;
	c->off += ps;
	return 1;
}

/* Move @c to its next record, loading pages as needed; false at its end. */
static int cpu_advance(struct backend *b, unsigned cpu, bool first)
{
	struct rcpu *c = &b->cpu[cpu];
	size_t len = 0;
	int ret;

	if (!first && c->loaded) {
		page_cursor_next(&c->cur);
		if (c->cur.rec)
			return 1;
	}
	for (;;) {
		int missed;

		ret = next_page(b, c, &len);
		if (ret <= 0) {
			c->loaded = false;
			return ret;
		}
		missed = page_cursor_load(&c->cur, &b->layout, c->page, len);
		if (missed == -EINVAL) {
			snprintf(b->err, sizeof(b->err), "corrupt ring-buffer page (CPU %u)", cpu);
			return -EINVAL;
		}
		if (missed && first)
			b->lost[cpu] += missed > 0 ? (uint64_t)missed : 1;
		if (c->cur.rec) {
			c->loaded = true;
			return 1;
		}
	}
}

/* Every CPU's reading starts at its data again. */
static int cpu_rewind(struct backend *b, unsigned cpu)
{
	struct rcpu *c = &b->cpu[cpu];
	const struct tdat_cpu *d = &b->dat.cpu[cpu];
	uint32_t n;

	free(c->chunk);
	c->chunk = NULL;
	c->chunk_len = c->chunk_pos = 0;
	c->loaded = false;
	c->off = d->offset;
	c->end = d->offset + d->size;
	c->z = b->dat.compressed;
	c->chunks = 0;
	if (c->z && d->size) {
		/* "u32 count" of chunks, then the chunks, to the section's end */
		if (file_pread_all(b->fd, &n, 4, c->off))
			return -EIO;
		c->chunks = le32toh(n);
		c->off += 4;
		c->end = b->dat.file_size;
	}
	return 0;
}

/* A first pass: what the file holds (types, first and last timestamps, losses). */
static int count_records(struct backend *b, char *err, size_t errlen)
{
	uint64_t first = UINT64_MAX, last = 0;
	unsigned cpu;
	int ret;

	for (cpu = 0; cpu < b->ncpu; cpu++) {
		if ((ret = cpu_rewind(b, cpu)))
			return errf(err, errlen, ret, "cannot read %s", b->path);
		for (ret = cpu_advance(b, cpu, true); ret > 0; ret = cpu_advance(b, cpu, false)) {
			struct sched_event ev;
			unsigned t = decode_record(&b->layout, b->cpu[cpu].cur.rec,
						   page_cursor_size(&b->cpu[cpu].cur),
						   b->cpu[cpu].cur.ts, (int32_t)cpu, &ev);

			if (t)
				b->seen |= 1u << t;
			if (b->cpu[cpu].cur.ts < first)
				first = b->cpu[cpu].cur.ts;
			if (b->cpu[cpu].cur.ts > last)
				last = b->cpu[cpu].cur.ts;
			b->records++;
		}
		if (ret < 0) {
			snprintf(err, errlen, "cannot read %s: offset %" PRIu64 ": %s", b->path,
				 b->cpu[cpu].page_off, b->err[0] ? b->err : ret == -ENOTSUP ?
				 "compressed data this build cannot decompress" :
				 "CPU data that does not decompress or read");
			return ret == -ENOTSUP ? ret : -EINVAL;
		}
		if ((ret = cpu_rewind(b, cpu)))
			return errf(err, errlen, ret, "cannot read %s", b->path);
	}
	b->window_start = first == UINT64_MAX ? 0 : first;
	b->window_end = last;
	return 0;
}

static int open_file(struct backend *b, const char *path, char *err, size_t errlen)
{
	char why[200];
	struct stat st;
	int ret;

	snprintf(b->path, sizeof(b->path), "%s", path);
	b->fd = open(b->path, O_RDONLY | O_CLOEXEC);
	if (b->fd < 0)
		return errf(err, errlen, -errno, "cannot open %s", b->path);
	if (fstat(b->fd, &st) < 0)
		return errf(err, errlen, -errno, "cannot open %s", b->path);
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "cannot read %s: not a regular file", b->path);
		return -EINVAL;
	}
	ret = tdat_scan(&b->dat, b->fd, why, sizeof(why));
	if (ret == -ENOMEM)
		return errf(err, errlen, ret, "cannot read %s", b->path);
	if (ret) {
		snprintf(err, errlen, "cannot read %s: %s", b->path, why);
		return ret;
	}
	if (b->dat.ts_adjusted) {
		snprintf(err, errlen, "cannot read %s: its timestamps need adjusting (a guest's, "
			 "or TSC offsets), which this reader does not do", b->path);
		return -ENOTSUP;
	}
	b->ncpu = b->dat.ncpu;
	if (!b->ncpu) {
		snprintf(err, errlen, "cannot read %s: it holds no CPU data", b->path);
		return -EINVAL;
	}
	return 0;
}

static int tdr_open(struct backend **out, const struct trace_req *req, char *err, size_t errlen)
{
	struct backend *b = calloc(1, sizeof(*b));
	unsigned cpu;
	int ret;

	*out = b;
	if (!b)
		return errf(err, errlen, -ENOMEM, "%s", "file backend");
	b->fd = -1;
	if (!req->replay_path || !*req->replay_path) {
		snprintf(err, errlen, "no recording to read: give a trace.dat file");
		return -EINVAL;
	}
	if ((ret = open_file(b, req->replay_path, err, errlen)) ||
	    (ret = load_metadata(b, err, errlen)))
		return ret;
	b->cpu = calloc(b->ncpu, sizeof(*b->cpu));
	b->next_ts = calloc(b->ncpu, sizeof(*b->next_ts));
	b->heap.v = calloc(b->ncpu, sizeof(*b->heap.v));
	b->lost = calloc(b->ncpu, sizeof(*b->lost));
	if (!b->cpu || !b->next_ts || !b->heap.v || !b->lost)
		return errf(err, errlen, -ENOMEM, "%s", b->path);
	b->heap.key = b->next_ts;
	for (cpu = 0; cpu < b->ncpu; cpu++) {
		b->cpu[cpu].page = malloc(b->dat.page_size);
		if (!b->cpu[cpu].page || page_cursor_init(&b->cpu[cpu].cur, &b->layout))
			return errf(err, errlen, -ENOMEM, "%s", b->path);
	}
	if ((ret = count_records(b, err, errlen)))
		return ret;
	tdat_lost(&b->dat, b->lost, b->ncpu);
	tdat_clock_window(&b->dat, b->clock, sizeof(b->clock), &b->window_start,
			  &b->window_end);
	return 0;
}

static int tdr_nop(struct backend *b)
{
	(void)b;
	return 0;
}

static int tdr_wait(struct backend *b, int timeout_ms)
{
	(void)b;
	(void)timeout_ms;
	return 0;
}

/* Everything up to @limit, in time order; the rest stays for the next call. */
static int tdr_read(struct backend *b, uint64_t limit, bool drain, sched_ev_cb cb, void *arg)
{
	unsigned cpu;
	int ret;

	(void)drain;	/* nothing arrives later: every read is a drain */
	if (!b->primed) {
		for (cpu = 0; cpu < b->ncpu; cpu++) {
			ret = cpu_advance(b, cpu, true);
			if (ret < 0)
				return ret;
			if (ret) {
				b->next_ts[cpu] = b->cpu[cpu].cur.ts;
				tsheap_push(&b->heap, cpu);
			}
		}
		b->primed = true;
	}
	while (b->heap.n) {
		unsigned ci = b->heap.v[0];
		struct rcpu *c = &b->cpu[ci];
		struct sched_event ev;

		if (c->cur.ts > limit)
			return 0;
		switch (decode_record(&b->layout, c->cur.rec, page_cursor_size(&c->cur), c->cur.ts,
				      (int32_t)ci, &ev)) {
		case 0:
			break;
		case SEV_KSTACK:
		case SEV_USTACK:
			decode_stack(&b->layout, c->cur.rec, page_cursor_size(&c->cur), &ev,
				     b->frames);
			/* fall through */
		default:
			cb(&ev, arg);
		}
		ret = cpu_advance(b, ci, false);
		if (ret < 0)
			return ret;
		if (!ret) {
			tsheap_pop(&b->heap);
			continue;
		}
		b->next_ts[ci] = c->cur.ts;
		tsheap_fix_top(&b->heap);
	}
	return 0;
}

static const char *tdr_clock(struct backend *b, bool *is_mono)
{
	if (is_mono)
		*is_mono = !strcmp(b->clock, "mono");
	return b->clock;
}

static unsigned tdr_lost(struct backend *b, uint64_t *lost, unsigned max)
{
	unsigned i, n = b->ncpu < max ? b->ncpu : max;

	for (i = 0; i < n; i++)
		lost[i] = b->lost[i];
	return n;
}

static const struct sched_states *tdr_states(struct backend *b)
{
	return &b->layout.states;
}

static unsigned tdr_events(struct backend *b)
{
	return b->layout_ok ? fmt_recorded_events(&b->layout, b->seen) : 0;
}

/* frames are addresses: named from the recording's kallsyms, never the host's */
static int tdr_kframe(struct backend *b, uint64_t addr, char *buf, size_t len)
{
	return ksyms_format(b->ksyms, addr, buf, len);
}

static int tdr_recording(struct backend *b, struct backend_window *w)
{
	memset(w, 0, sizeof(*w));
	w->clock = b->clock;
	w->start_ns = b->window_start;
	w->end_ns = b->window_end;
	w->ncpu = b->ncpu;
	tdat_scope(&b->dat, &w->scope);
	return 0;
}

static int32_t tdr_task_tgid(struct backend *b, int32_t tid)
{
	return tdat_tgid(&b->dat, tid);
}

static int tdr_close(struct backend *b, char *err, size_t errlen)
{
	unsigned i;

	(void)err;
	(void)errlen;
	if (!b)
		return 0;
	for (i = 0; b->cpu && i < b->ncpu; i++) {
		free(b->cpu[i].chunk);
		free(b->cpu[i].page);
		page_cursor_fini(&b->cpu[i].cur);
	}
	if (b->layout_ok)
		fmt_fini(&b->layout);
	ksyms_free(b->ksyms);
	tdat_free(&b->dat);
	if (b->fd >= 0)
		close(b->fd);
	free(b->cpu);
	free(b->next_ts);
	free(b->heap.v);
	free(b->lost);
	free(b);
	return 0;
}

int tdatread_info(struct backend *b, struct replay_info *out)
{
	memset(out, 0, sizeof(*out));
	if (!b || b->fd < 0)
		return -EINVAL;
	out->clock = b->clock;
	out->window_start_ns = b->window_start;
	out->window_end_ns = b->window_end;
	out->from_offcpu = b->dat.offcpu != NULL;
	out->uname = b->dat.uname;
	out->ncpu = b->ncpu;
	out->file_version = b->dat.version;
	out->compressed = b->dat.compressed;
	out->records = b->records;
	return 0;
}

#define TDATREAD_OPS {				\
	.name = "file",				\
	.open = tdr_open,			\
	.start = tdr_nop,			\
	.stop = tdr_nop,			\
	.wait = tdr_wait,			\
	.read = tdr_read,			\
	.clock = tdr_clock,			\
	.lost = tdr_lost,			\
	.states = tdr_states,			\
	.events = tdr_events,			\
	.kframe = tdr_kframe,			\
	.recording = tdr_recording,		\
	.task_tgid = tdr_task_tgid,		\
	.close = tdr_close,			\
}

const struct backend_ops tdatread_backend_ops = TDATREAD_OPS;
#ifdef STATIC_BINARY
/* no libtracecmd to link statically: this reader is the file backend */
const struct backend_ops file_backend_ops = TDATREAD_OPS;
#endif
