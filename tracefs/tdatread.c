// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A trace.dat reader of our own, without libtracecmd (recshell.c is the
 * backend around it): the file backend of the static build (Debian ships
 * no static libtracecmd), built in every build so the tests compare it
 * with libtracecmd's reading.
 *
 * tdat_scan() has checked the structure against the file size and noted
 * where the metadata is. From there: header_page and the sched and ftrace
 * stack formats go through the same format code as a live run; kallsyms
 * names kernel frames; each CPU's data is read page by page (version 6,
 * or 7 uncompressed), or chunk by chunk (version 7, zstd or zlib: each
 * chunk holds whole pages); pages go through page_cursor_load()'s checks
 * and records go to the shell.
 * Not read: other instances' buffers, latency-format text, recordings
 * whose timestamps need adjusting (guests, TSC offsets): refused in one
 * line.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "decode.h"
#include "errf.h"
#include "fileread.h"
#include "fmt.h"
#include "grow.h"
#include "ksym.h"
#include "recfile.h"
#include "recshell.h"
#include "tdat.h"
#include "tdatread.h"
#include "tdatz.h"

#define MAX_PART (256u << 20)	/* a metadata part, decompressed */

struct rcpu {
	struct tdat_pages pages;	/* the CPU's data, page by page */
	uint8_t *page;		/* the page being walked */
	struct page_cursor cur;
	bool loaded;		/* cur is on a record */
	bool fresh;		/* rewound, no record read since */
};

/* Our reading of the file (struct rec_reader, recshell.h). */
struct tid_comm {
	int32_t tid;
	char comm[COMM_LEN];
};

struct rec_streams {
	struct rec_file *f;
	struct rcpu *cpu;
	struct ksyms *ksyms;
	struct tid_comm *comms;		/* saved_cmdlines, by tid; read at the first ask */
	size_t ncomms;
	bool comms_read;
	char err[256];			/* a read that failed after open */
};

/* A metadata part's bytes (decompressed); caller frees. */
static int load_part(const struct rec_file *f, enum tdat_part_id id, uint8_t **out, size_t *len)
{
	const struct tdat_part *p = &f->dat.part[id];
	uint64_t off = p->offset;

	*out = NULL;
	*len = 0;
	if (!p->size)
		return 0;
	/* tdat_scan() decompressed it once: its claim is checked, and bounded */
	if (p->compressed)
		return tdatz_read_block(f->dat.compression, f->fd, &off, p->offset + p->size,
					MAX_PART, out, len);
	if (p->size > MAX_PART)
		return -EINVAL;
	*out = malloc(p->size + 1);
	if (!*out)
		return -ENOMEM;
	*len = (size_t)p->size;
	return file_pread_all(f->fd, *out, *len, off);
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
static int add_format(struct rec_file *f, struct mem *m, bool header_page)
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
	ret = header_page ? fmt_header_page(&f->layout, text, size) :
	      fmt_add_event(&f->layout, text, size);
	free(text);
	return ret == -ENOENT ? 0 : ret;
}

static int parse_headers(struct rec_file *f, struct mem *m)
{
	const char *tag;
	int ret;

	if (!mem_str(m, &tag) || strcmp(tag, "header_page"))
		return -EINVAL;
	if ((ret = add_format(f, m, true)))
		return ret;
	return 0;	/* header_event: the layout does not need it */
}

static int parse_formats(struct rec_file *f, struct mem *m, bool systems)
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
			if ((ret = add_format(f, m, false)))
				return ret;
	}
	return 0;
}

/* header_page, the formats and kallsyms, from wherever the file keeps them. */
static int load_metadata(struct rec_streams *s, char *err, size_t errlen)
{
	static const char *const what[] = { "the headers", "the ftrace formats",
					    "the event formats", "kallsyms" };
	struct rec_file *f = s->f;
	const char *missing;
	unsigned id;
	int ret;

	ret = fmt_init(&f->layout);
	if (ret)
		return errf(err, errlen, ret, "%s", "libtraceevent");
	f->layout_ok = true;
	for (id = TDAT_PART_HEADERS; id <= TDAT_PART_KALLSYMS; id++) {
		uint8_t *buf;
		size_t len;
		struct mem m;

		ret = load_part(f, id, &buf, &len);
		if (ret == -ENOTSUP) {
			snprintf(err, errlen, "cannot read %s: this build cannot decompress "
				 "%s (built without it): read it with a build that has it", f->path,
				 f->dat.compression);
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
			ret = parse_headers(f, &m);
		else if (!ret && (id == TDAT_PART_FTRACE || id == TDAT_PART_EVENTS))
			ret = parse_formats(f, &m, id == TDAT_PART_EVENTS);
		else if (!ret && id == TDAT_PART_KALLSYMS && len >= 4)
			ret = ksyms_parse(&s->ksyms, (const char *)buf + 4,
					  len - 4 < le32toh(*(uint32_t *)(void *)buf) ? len - 4 :
					  le32toh(*(uint32_t *)(void *)buf));
		free(buf);
		if (ret) {
			snprintf(err, errlen, "cannot read %s: offset %" PRIu64 ": %s do not parse",
				 f->path, f->dat.part[id].offset, what[id]);
			return -EINVAL;
		}
	}
	if (f->layout.id[SEV_SWITCH] < 0) {
		snprintf(err, errlen, "%s has no sched_switch events: record at least "
			 "sched_switch, sched_wakeup and sched_wakeup_new", f->path);
		return -ENOENT;
	}
	ret = fmt_resolve(&f->layout, &missing);
	if (ret)
		snprintf(err, errlen, "cannot read %s: unexpected format of %s", f->path,
			 missing ? missing : "an event");
	return ret;
}

/* Move @c to its next record, loading pages as needed; false at its end. */
static int cpu_advance(struct rec_streams *s, unsigned cpu, bool first)
{
	struct rcpu *c = &s->cpu[cpu];
	size_t len = 0;
	int ret;

	if (!first && c->loaded) {
		page_cursor_next(&c->cur);
		if (c->cur.rec)
			return 1;
	}
	for (;;) {
		int missed;

		ret = tdat_pages_next(&c->pages, c->page, &len);
		if (ret <= 0) {
			c->loaded = false;
			return ret;
		}
		missed = page_cursor_load(&c->cur, &s->f->layout, c->page, len);
		if (missed == -EINVAL) {
			snprintf(s->err, sizeof(s->err), "corrupt ring-buffer page (CPU %u)", cpu);
			return -EINVAL;
		}
		if (missed && first)
			s->f->lost[cpu] += missed > 0 ? (uint64_t)missed : 1;
		if (c->cur.rec) {
			c->loaded = true;
			return 1;
		}
	}
}

/* Every CPU's reading starts at its data again. */
static int tdr_rewind(struct rec_streams *s, unsigned cpu)
{
	struct rcpu *c = &s->cpu[cpu];

	c->loaded = false;
	c->fresh = true;
	return tdat_pages_start(&c->pages, &s->f->dat, s->f->fd, cpu) ? -EIO : 0;
}

/*
 * The next record; the losses page headers note are counted on the pages
 * before the CPU's first record after a rewind.
 */
static int tdr_next(struct rec_streams *s, unsigned cpu, struct rec_record *rec)
{
	struct rcpu *c = &s->cpu[cpu];
	int ret = cpu_advance(s, cpu, c->fresh);

	c->fresh = false;
	if (ret > 0) {
		rec->data = c->cur.rec;
		rec->size = page_cursor_size(&c->cur);
		rec->ts = c->cur.ts;
	}
	return ret;
}

/* A CPU whose data did not read through: where, and why. */
static int tdr_counted(struct rec_streams *s, unsigned cpu, uint64_t n, int ret, char *err,
		       size_t errlen)
{
	(void)n;
	if (ret >= 0)
		return 0;
	snprintf(err, errlen, "cannot read %s: offset %" PRIu64 ": %s", s->f->path,
		 s->cpu[cpu].pages.page_off, s->err[0] ? s->err : ret == -ENOTSUP ?
		 "compressed data this build cannot decompress" :
		 "CPU data that does not decompress or read");
	return ret == -ENOTSUP ? ret : -EINVAL;
}

/* The metadata parsed, a page buffer and cursor per CPU. */
static int tdr_open(struct rec_streams **out, struct rec_file *f, char *err, size_t errlen)
{
	struct rec_streams *s = calloc(1, sizeof(*s));
	unsigned cpu;
	int ret;

	*out = s;
	if (!s)
		return errf(err, errlen, -ENOMEM, "%s", f->path);
	s->f = f;
	if ((ret = load_metadata(s, err, errlen)))
		return ret;
	s->cpu = calloc(f->ncpu, sizeof(*s->cpu));
	if (!s->cpu)
		return errf(err, errlen, -ENOMEM, "%s", f->path);
	for (cpu = 0; cpu < f->ncpu; cpu++) {
		s->cpu[cpu].page = malloc(f->dat.page_size);
		if (!s->cpu[cpu].page || page_cursor_init(&s->cpu[cpu].cur, &f->layout))
			return errf(err, errlen, -ENOMEM, "%s", f->path);
	}
	return 0;
}

/* From the recording's kallsyms, never the host's. */
static int tdr_kframe(struct rec_streams *s, uint64_t addr, char *buf, size_t len)
{
	return ksyms_format(s->ksyms, addr, buf, len);
}

static int cmp_tid_comm(const void *a, const void *b)
{
	const struct tid_comm *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* saved_cmdlines: a 64-bit size, then "PID COMM" lines */
static void read_comms(struct rec_streams *s)
{
	uint8_t *buf;
	size_t len, cap = 0;
	uint64_t n;
	char *p, *end, *nl;

	s->comms_read = true;
	if (load_part(s->f, TDAT_PART_CMDLINES, &buf, &len) || !buf)
		return;
	if (len >= 8) {
		memcpy(&n, buf, 8);
		n = le64toh(n);
		p = (char *)buf + 8;
		end = p + (n < len - 8 ? n : len - 8);
		for (; p < end; p = nl + 1) {
			struct tid_comm *v;
			long tid;
			char *c;

			nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				break;
			tid = strtol(p, &c, 10);
			if (c == p || *c != ' ' || tid <= 0 || tid > INT32_MAX ||
			    !(v = mem_grow_from(s->comms, &cap, s->ncomms, sizeof(*v), 256)))
				continue;
			s->comms = v;
			v[s->ncomms].tid = (int32_t)tid;
			snprintf(v[s->ncomms++].comm, COMM_LEN, "%.*s", (int)(nl - c - 1), c + 1);
		}
		if (s->ncomms)
			qsort(s->comms, s->ncomms, sizeof(*s->comms), cmp_tid_comm);
	}
	free(buf);
}

static int tdr_comm(struct rec_streams *s, int32_t tid, char *buf, size_t len)
{
	struct tid_comm key = { .tid = tid }, *e;

	if (!s->comms_read)
		read_comms(s);
	e = s->ncomms ? bsearch(&key, s->comms, s->ncomms, sizeof(*s->comms), cmp_tid_comm) :
	    NULL;
	if (!e || !e->comm[0])
		return -ENOENT;
	snprintf(buf, len, "%s", e->comm);
	return 0;
}

static void tdr_close(struct rec_streams *s)
{
	unsigned i;

	if (!s)
		return;
	for (i = 0; s->cpu && i < s->f->ncpu; i++) {
		tdat_pages_fini(&s->cpu[i].pages);
		free(s->cpu[i].page);
		page_cursor_fini(&s->cpu[i].cur);
	}
	if (s->f->layout_ok)
		fmt_fini(&s->f->layout);
	ksyms_free(s->ksyms);
	free(s->comms);
	free(s->cpu);
	free(s);
}

static const struct rec_reader own_reader = {
	.ts_adjust = false,
	.open = tdr_open,
	.rewind = tdr_rewind,
	.next = tdr_next,
	.counted = tdr_counted,
	.kframe = tdr_kframe,
	.comm = tdr_comm,
	.close = tdr_close,
};

static int own_open(struct backend **b, const struct trace_req *req, char *err, size_t errlen)
{
	return recshell_open(b, req, &own_reader, err, errlen);
}

int tdatread_info(struct backend *b, struct replay_info *out)
{
	return replay_info(b, out);
}

const struct backend_ops tdatread_backend_ops = RECSHELL_OPS(own_open);
#ifdef STATIC_BINARY
/* no libtracecmd to link statically: this reader is the file backend */
const struct backend_ops file_backend_ops = RECSHELL_OPS(own_open);
#endif
