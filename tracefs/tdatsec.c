// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A trace.dat's options and where they lead: the trace clock, CPU stats,
 * uname and our own metadata collected, each option's shape checked as
 * libtracecmd takes it for granted, version 7's sections found through
 * the options chain (the BUFFER option's CPU data, compressed chunks,
 * metadata sections) and walked to the end of the file, and version 6's
 * flyrecord CPU table; CPU data checked to lie within the file, aligned.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdat_local.h"


/*
 * A trace clock's name as the kernel spells them (local, x86-tsc, mono_raw):
 * letters, digits, '-' and '_'. Anything else in a file is no clock of
 * the kernel's, and never reaches a message, a header or a JSON string.
 */
bool clock_name_ok(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_')
			return false;
	return n > 0;
}

/* "[mono] global ..." (the trace_clock file) or "[mono]": the chosen one. */
static void parse_clock(struct tdat *t, const char *s)
{
	const char *b = strchr(s, '['), *e = b ? strchr(b, ']') : NULL;
	size_t n;

	if (!b || !e)
		return;
	n = (size_t)(e - b - 1);
	if (n && n < sizeof(t->clock) && clock_name_ok(b + 1, n)) {
		memcpy(t->clock, b + 1, n);
		t->clock[n] = '\0';
	}
}

static int append_text(char **dst, const char *s)
{
	size_t a = *dst ? strlen(*dst) : 0, b = strlen(s);
	char *n = realloc(*dst, a + b + 2);

	if (!n)
		return -ENOMEM;
	memcpy(n + a, s, b);
	/* trace-cmd ends each CPU's stats with a NUL, not always a newline */
	n[a + b] = '\n';
	n[a + b + 1] = '\0';
	*dst = n;
	return 0;
}

/* ---- version 7: sections found through options ---- */

/* The section header at @off: @id expected; its data range must fit. */
int check_section(struct rd *r, uint64_t off, uint16_t id, const char *what,
			 uint16_t *flags, uint64_t *data_off, uint64_t *size)
{
	struct rd s = *r;
	uint16_t got_id, fl;
	uint32_t desc;
	uint64_t sz;
	int ret;

	s.off = off;
	s.end = r->t->file_size;
	if ((ret = rd_u16(&s, &got_id, what)) ||
	    (ret = rd_u16(&s, &fl, what)) ||
	    (ret = rd_u32(&s, &desc, what)) ||
	    (ret = rd_u64(&s, &sz, what)))
		return ret;
	if (got_id != id)
		return rd_fail(r, -EINVAL, off, "expected the %s section (id %u), found id %u",
			       what, id, got_id);
	if ((ret = rd_need(&s, sz, what)))
		return ret;
	if (flags)
		*flags = fl;
	if (data_off)
		*data_off = s.off;
	if (size)
		*size = sz;
	return 0;
}

/*
 * Compressed CPU data: a count of chunks, each "size, raw size, data",
 * within the section @end closes (trace-cmd's recorded size leaves out
 * the count, and its reader goes by the chunks).
 */
static int check_chunks(struct rd *r, uint64_t off, uint64_t end)
{
	struct rd c = *r;
	uint32_t n, csize, usize, i;
	int ret;

	c.off = off;
	c.end = end;
	if ((ret = rd_u32(&c, &n, "compressed chunk count")))
		return ret;
	for (i = 0; i < n; i++) {
		uint64_t at = c.off;
		uint8_t *raw;
		size_t len;

		if ((ret = rd_u32(&c, &csize, "compressed chunk size")) ||
		    (ret = rd_u32(&c, &usize, "compressed chunk size")) ||
		    (ret = rd_skip(&c, csize, "compressed chunk")))
			return ret;
		if (!usize || usize % r->t->page_size)
			return rd_fail(r, -EINVAL, at, "a chunk of %" PRIu32 " bytes is not whole "
				       "pages", usize);
		/* the readers allocate what a chunk claims: it must be what it holds */
		ret = rd_block(r, at, end, "a chunk of CPU data", &raw, &len);
		free(raw);
		if (ret)
			return ret;
		if (usize > r->t->max_chunk)
			r->t->max_chunk = usize;
	}
	return 0;
}

/* BUFFER_TEXT (v7): a latency-format instance, text instead of pages. */
static int opt_buffer_text(struct rd *r, uint64_t at, uint64_t opt_end)
{
	char name[256], clock[64];
	uint64_t off;
	int ret;

	r->end = opt_end;
	if ((ret = rd_u64(r, &off, "BUFFER_TEXT offset")) ||
	    (ret = rd_str(r, name, sizeof(name), "BUFFER_TEXT name")) ||
	    (ret = rd_str(r, clock, sizeof(clock), "BUFFER_TEXT clock")))
		return ret;
	if (!name[0])
		return rd_fail(r, -ENOTSUP, at, "a latency-format recording holds text, "
			       "not ring-buffer pages");
	r->t->instances++;
	return 0;
}

/* The BUFFER option: where one instance's CPU data is (v7 layout). */
static int opt_buffer_v7(struct rd *r, uint64_t opt_end)
{
	struct tdat *t = r->t;
	uint64_t off, data_off, secsize;
	uint32_t page_size, cpus, i, id;
	char name[256], clock[64];
	struct tdat_cpu *v;
	uint16_t flags;
	int ret;

	r->end = opt_end;
	if ((ret = rd_u64(r, &off, "BUFFER offset")) ||
	    (ret = rd_str(r, name, sizeof(name), "BUFFER name")) ||
	    (ret = rd_str(r, clock, sizeof(clock), "BUFFER clock")) ||
	    (ret = rd_u32(r, &page_size, "BUFFER page size")) ||
	    (ret = rd_u32(r, &cpus, "BUFFER CPU count")))
		return ret;
	if (name[0]) {
		t->instances++;
		return 0;
	}
	if (page_size != t->page_size)
		return rd_fail(r, -EINVAL, r->off - 8, "buffer page size %" PRIu32
			       " differs from the file's %" PRIu32, page_size, t->page_size);
	if (cpus > MAX_CPUS)
		return rd_fail(r, -EINVAL, r->off - 4, "%" PRIu32 " CPUs", cpus);
	if (t->cpu)
		return rd_fail(r, -EINVAL, r->off, "a second BUFFER option for the top buffer");
	parse_clock(t, clock);
	if (!t->clock[0] && strlen(clock) < sizeof(t->clock) && clock_name_ok(clock, strlen(clock)))
		strcpy(t->clock, clock);
	ret = check_section(r, off, TDAT_OPT_BUFFER, "flyrecord", &flags, &data_off, &secsize);
	if (ret)
		return ret;
	t->compressed = flags & 1;
	/* CPU ids may be sparse: index by id */
	t->cpu = calloc(MAX_CPUS, sizeof(*t->cpu));
	if (!t->cpu)
		return -ENOMEM;
	for (i = 0; i < cpus; i++) {
		if ((ret = rd_u32(r, &id, "BUFFER CPU id")))
			return ret;
		if (id >= MAX_CPUS || t->cpu[id].size)
			return rd_fail(r, -EINVAL, r->off - 4, "bad or repeated CPU id %" PRIu32,
				       id);
		if ((ret = rd_u64(r, &t->cpu[id].offset, "CPU data offset")) ||
		    (ret = rd_u64(r, &t->cpu[id].size, "CPU data size")))
			return ret;
		if (id + 1 > t->ncpu)
			t->ncpu = id + 1;
	}
	v = realloc(t->cpu, (t->ncpu ? t->ncpu : 1) * sizeof(*v));
	if (v)
		t->cpu = v;
	for (i = 0; i < t->ncpu; i++) {
		const struct tdat_cpu *c = &t->cpu[i];

		if (!c->size)
			continue;
		if (c->offset < data_off || c->size > secsize ||
		    c->offset - data_off > secsize - c->size)
			return rd_fail(r, -EINVAL, c->offset, "CPU %u data (%" PRIu64 " bytes) is "
				       "outside its section at offset %" PRIu64, i, c->size, off);
		if (t->compressed && (ret = check_chunks(r, c->offset, data_off + secsize)))
			return ret;
	}
	return 0;
}

/* BUFFER: another instance's data (v6), or where any instance's is (v7). */
static int opt_buffer(struct rd *r, uint64_t opt_end)
{
	char name[256];
	uint64_t off;
	int ret;

	if (r->t->version == 7)
		return opt_buffer_v7(r, opt_end);
	/* v6: only other instances are described here; their data is not read */
	r->end = opt_end;
	if ((ret = rd_u64(r, &off, "BUFFER offset")) ||
	    (ret = rd_str(r, name, sizeof(name), "BUFFER name")))
		return ret;
	r->t->instances++;
	return 0;
}

/*
 * What libtracecmd 3.1.6 takes for granted in an option, so that it never
 * reads past one: text options it strdup()s or strtok()s end in a NUL,
 * CPUCOUNT holds an int, GUEST's counts fit. Returns 0 or an error at @at.
 */
static int check_option_shape(struct rd *r, uint64_t at, uint16_t id, uint32_t size,
			      const char *text)
{
	switch (id) {
	case TDAT_OPT_DATE:
	case TDAT_OPT_CPUSTAT:
	case TDAT_OPT_TRACECLOCK:
	case TDAT_OPT_UNAME:
	case TDAT_OPT_OFFSET:
	case TDAT_OPT_VERSION:
	case TDAT_OPT_OFFCPU:
		if (!size || text[size - 1])
			return rd_fail(r, -EINVAL, at, "option %u: text without its NUL", id);
		return 0;
	case TDAT_OPT_HOOK:
		/* a hook it cannot parse is dereferenced as NULL */
		return rd_fail(r, -ENOTSUP, at, "event hooks (trace-cmd record -H) are not "
			       "read");
	case TDAT_OPT_CPUCOUNT:
		if (size < 4)
			return rd_fail(r, -EINVAL, at, "short CPUCOUNT option");
		return 0;
	default:
		return 0;
	}
}

/* GUEST: name, trace id, CPU count, that many (CPU, pid) pairs. */
static int check_guest(struct rd *r, uint64_t at, uint64_t data, uint64_t end)
{
	struct rd s = *r;
	char name[4096];
	uint64_t id;
	uint32_t n;
	int ret;

	s.off = data;
	s.end = end;
	if ((ret = rd_str(&s, name, sizeof(name), "guest name")) ||
	    (ret = rd_u64(&s, &id, "guest trace id")) ||
	    (ret = rd_u32(&s, &n, "guest CPU count")))
		return ret;
	if (n > MAX_CPUS)
		return rd_fail(r, -EINVAL, at, "guest of %" PRIu32 " CPUs", n);
	return rd_need(&s, 8ull * n, "guest CPUs");
}

/* Options from @r->off up to @end; *next: the next options section (v7). */
/* v7: where a metadata section's data is, for a reader */
static void note_part(struct tdat *t, uint16_t id, uint64_t off, uint64_t size, bool z)
{
	static const int8_t part_of[] = {
		[TDAT_OPT_HEADER_INFO] = TDAT_PART_HEADERS,
		[TDAT_OPT_FTRACE_EVENTS] = TDAT_PART_FTRACE,
		[TDAT_OPT_EVENT_FORMATS] = TDAT_PART_EVENTS,
		[TDAT_OPT_KALLSYMS] = TDAT_PART_KALLSYMS,
		[TDAT_OPT_PRINTK] = -1,
		[TDAT_OPT_CMDLINES] = TDAT_PART_CMDLINES,
	};

	if (id < sizeof(part_of) && id >= TDAT_OPT_HEADER_INFO && part_of[id] >= 0) {
		t->part[part_of[id]].offset = off;
		t->part[part_of[id]].size = size;
		t->part[part_of[id]].compressed = z;
	}
}

int scan_options(struct rd *r, uint64_t end, uint64_t *next)
{
	struct tdat *t = r->t;
	uint16_t id;
	uint32_t size;
	int ret;

	*next = 0;
	for (;;) {
		uint64_t data, at = r->off;
		char *text = NULL;

		r->end = end;
		if ((ret = rd_u16(r, &id, "option id")))
			return ret;
		if (t->version == 6 && id == TDAT_OPT_DONE)
			return 0;
		if ((ret = rd_u32(r, &size, "option size")) ||
		    (ret = rd_need(r, size, "option")))
			return ret;
		data = r->off;
		/* BUFFER options are read field by field, the others whole */
		if (id != TDAT_OPT_BUFFER && id != TDAT_OPT_BUFFER_TEXT) {
			if ((ret = rd_text(r, size, &text, "option")) ||
			    (ret = check_option_shape(r, at, id, size, text))) {
				free(text);
				return ret;
			}
		}
		switch (id) {
		case TDAT_OPT_DONE:
			if (size < 8) {
				free(text);
				return rd_fail(r, -EINVAL, at, "short DONE option");
			}
			memcpy(next, text, 8);
			*next = le64toh(*next);
			free(text);
			return 0;
		case TDAT_OPT_CPUSTAT:
			ret = append_text(&t->cpustats, text);
			break;
		case TDAT_OPT_TRACECLOCK:
			parse_clock(t, text);
			r->clock_option = true;
			break;
		case TDAT_OPT_UNAME:
			if (!t->uname) {
				t->uname = text;
				text = NULL;
			}
			break;
		case TDAT_OPT_OFFCPU:
			if (!t->offcpu) {
				t->offcpu = text;
				text = NULL;
			}
			break;
		case TDAT_OPT_CPUCOUNT:
			memcpy(&t->cpucount, text, 4);
			t->cpucount = le32toh(t->cpucount);
			break;
		case TDAT_OPT_DATE:
		case TDAT_OPT_OFFSET:
		case TDAT_OPT_TSC2NSEC:
		case TDAT_OPT_TIME_SHIFT:
			t->ts_adjusted = true;
			break;
		case TDAT_OPT_GUEST:
			ret = check_guest(r, at, data, data + size);
			break;
		case TDAT_OPT_BUFFER:
			ret = opt_buffer(r, data + size);
			break;
		case TDAT_OPT_BUFFER_TEXT:
			ret = opt_buffer_text(r, at, data + size);
			break;
		default:
			/* HEADER_INFO..CMDLINES: where a v7 metadata section is */
			if (t->version == 7 && id >= TDAT_OPT_HEADER_INFO &&
			    id <= TDAT_OPT_CMDLINES && size >= 8) {
				uint64_t off, secdata, secsize;
				uint16_t flags;

				memcpy(&off, text, 8);
				off = le64toh(off);
				ret = check_section(r, off, id, "metadata", &flags, &secdata,
						    &secsize);
				if (!ret)
					ret = flags & 1 ? scan_part_z(r, id, secdata, secsize) :
					      scan_part(r, id, secdata, secsize);
				if (!ret)
					note_part(t, id, secdata, secsize, flags & 1);
			}
			break;
		}
		free(text);
		if (ret)
			return ret;
		r->off = data + size;
	}
}

int scan_v6_flyrecord(struct rd *r, uint32_t cpus, bool clock_option)
{
	struct tdat *t = r->t;
	char tag[10], clock[256];
	uint64_t size, at;
	uint32_t i;
	int ret;

	at = r->off;
	if ((ret = rd_bytes(r, tag, 10, "data type")))
		return ret;
	if (!memcmp(tag, "latency  ", 10))
		return rd_fail(r, -ENOTSUP, at, "a latency-format recording holds text, "
			       "not ring-buffer pages");
	if (memcmp(tag, "flyrecord", 10))
		return rd_fail(r, -EINVAL, at, "expected \"flyrecord\"");
	t->ncpu = cpus;
	t->cpu = calloc(cpus ? cpus : 1, sizeof(*t->cpu));
	if (!t->cpu)
		return -ENOMEM;
	for (i = 0; i < cpus; i++)
		if ((ret = rd_u64(r, &t->cpu[i].offset, "CPU data offset")) ||
		    (ret = rd_u64(r, &t->cpu[i].size, "CPU data size")))
			return ret;
	/* trace-cmd writes the clock after the table when the option says so */
	if (clock_option) {
		at = r->off;
		if ((ret = rd_u64(r, &size, "trace clock size")))
			return ret;
		if (size >= sizeof(clock))
			return rd_fail(r, -EINVAL, at, "trace clock of %" PRIu64 " bytes", size);
		if ((ret = rd_bytes(r, clock, (size_t)size, "trace clock")))
			return ret;
		clock[size] = '\0';
		parse_clock(t, clock);
	}
	for (i = 0; i < cpus; i++) {
		const struct tdat_cpu *c = &t->cpu[i];

		if (!c->size)
			continue;
		if (c->offset > t->file_size || c->size > t->file_size - c->offset)
			return rd_fail(r, -EINVAL, c->offset, "CPU %u data (%" PRIu64 " bytes) "
				       "runs past the end of the file (%" PRIu64 " bytes): "
				       "truncated?", i, c->size, t->file_size);
	}
	return 0;
}

/*
 * The sections follow one another from @off to the end of the file (the
 * reader finds the strings sections that way): a cut anywhere leaves one
 * running past the end. An id no version has stops the walk, in case a
 * writer ever leaves a gap.
 */
int walk_sections(struct rd *r, uint64_t off)
{
	struct rd s = *r;
	unsigned n;

	s.end = r->t->file_size;
	for (s.off = off, n = 0; s.off < s.end && n < 100000; n++) {
		uint16_t id, flags;
		uint32_t desc;
		uint64_t size;
		int ret;

		if ((ret = rd_u16(&s, &id, "section header")) ||
		    (ret = rd_u16(&s, &flags, "section header")) ||
		    (ret = rd_u32(&s, &desc, "section header")) ||
		    (ret = rd_u64(&s, &size, "section header")))
			return ret;
		if (id > TDAT_OPT_BUFFER_TEXT)
			return 0;
		if ((ret = rd_need(&s, size, "section")))
			return ret;
		/*
		 * the strings section (and any a reader may load whole): its
		 * claim bounded and checked here; metadata sections are when
		 * their option is read, CPU data chunk by chunk
		 */
		if ((flags & 1) && id != TDAT_OPT_BUFFER &&
		    (id < TDAT_OPT_HEADER_INFO || id > TDAT_OPT_CMDLINES)) {
			uint8_t *raw;
			size_t len;

			ret = rd_block(&s, s.off, s.off + size, "a compressed section", &raw, &len);
			free(raw);
			if (ret)
				return ret;
		}
		s.off += size;
	}
	return 0;
}

/* libtracecmd maps CPU data page by page from its offset. */
int check_alignment(struct rd *r)
{
	const struct tdat *t = r->t;
	unsigned i;

	for (i = 0; i < t->ncpu && !t->compressed; i++)
		if (t->cpu[i].size && t->cpu[i].offset % t->page_size)
			return rd_fail(r, -EINVAL, t->cpu[i].offset, "CPU %u data is not "
				       "page-aligned", i);
	return 0;
}
