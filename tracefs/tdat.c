// SPDX-License-Identifier: GPL-2.0-or-later
/* trace.dat structure checks against the file size, before libtracecmd reads it. */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "tdat.h"

/* bounds on counts read from the file, far above anything real */
#define MAX_FORMATS	100000u
#define MAX_CPUS	8192u
#define MAX_OPTIONS_SECTIONS 1024u
#define MAX_TEXT	(64u << 20)	/* an option's text */
#define MAX_FORMAT	(1u << 20)	/* one event's format file */

/* A read position in the file, and where the current section ends. */
struct rd {
	int fd;
	uint64_t off, end;
	bool clock_option;	/* v6: a TRACECLOCK option was seen */
	struct tdat *t;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 4, 5)))
static int rd_fail(struct rd *r, int ret, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->err, r->errlen, "offset %" PRIu64 ": ", off);
	if (n < 0 || (size_t)n >= r->errlen)
		return ret;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return ret;
}

/* @n bytes of @what fit before the section (or the file) ends. */
static int rd_need(struct rd *r, uint64_t n, const char *what)
{
	if (r->off <= r->end && n <= r->end - r->off)
		return 0;
	if (r->end == r->t->file_size)
		return rd_fail(r, -EINVAL, r->off, "%s (%" PRIu64 " bytes) runs past the end "
			       "of the file (%" PRIu64 " bytes): truncated?", what, n,
			       r->t->file_size);
	return rd_fail(r, -EINVAL, r->off, "%s (%" PRIu64 " bytes) runs past the end of "
		       "its section at offset %" PRIu64, what, n, r->end);
}

static int rd_bytes(struct rd *r, void *buf, size_t n, const char *what)
{
	size_t done = 0;
	int ret = rd_need(r, n, what);

	if (ret)
		return ret;
	while (done < n) {
		ssize_t got = pread(r->fd, (char *)buf + done, n - done,
				    (off_t)(r->off + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return rd_fail(r, got < 0 ? -errno : -EIO, r->off + done,
				       "cannot read %s: %s", what,
				       got < 0 ? strerror(errno) : "unexpected end of file");
		done += (size_t)got;
	}
	r->off += n;
	return 0;
}

static int rd_skip(struct rd *r, uint64_t n, const char *what)
{
	int ret = rd_need(r, n, what);

	if (!ret)
		r->off += n;
	return ret;
}

/* Numbers are little-endian: big-endian files are refused up front. */
static int rd_u16(struct rd *r, uint16_t *v, const char *what)
{
	uint16_t x = 0;
	int ret = rd_bytes(r, &x, 2, what);

	*v = le16toh(x);
	return ret;
}

static int rd_u32(struct rd *r, uint32_t *v, const char *what)
{
	uint32_t x = 0;
	int ret = rd_bytes(r, &x, 4, what);

	*v = le32toh(x);
	return ret;
}

static int rd_u64(struct rd *r, uint64_t *v, const char *what)
{
	uint64_t x = 0;
	int ret = rd_bytes(r, &x, 8, what);

	*v = le64toh(x);
	return ret;
}

/* A NUL-terminated string of at most @cap - 1 characters. */
static int rd_str(struct rd *r, char *buf, size_t cap, const char *what)
{
	uint64_t start = r->off, left = r->end > r->off ? r->end - r->off : 0;
	size_t n = cap < left ? cap : (size_t)left;
	char *nul, *c;
	int ret;

	if (!n)
		return rd_need(r, 1, what);
	ret = rd_bytes(r, buf, n, what);
	if (ret)
		return ret;
	nul = memchr(buf, '\0', n);
	if (!nul)
		return rd_fail(r, -EINVAL, start, "%s is not a terminated string", what);
	/* names, versions and clocks: printable, or an error or footer echoing it breaks */
	for (c = buf; c < nul; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return rd_fail(r, -EINVAL, start + (uint64_t)(c - buf),
				       "%s holds a control character (0x%02x)", what,
				       (unsigned char)*c);
	r->off = start + (uint64_t)(nul - buf) + 1;
	return 0;
}

static int rd_tag(struct rd *r, const char *tag, size_t len)
{
	char buf[16];
	uint64_t at = r->off;
	int ret = rd_bytes(r, buf, len, tag);

	if (ret)
		return ret;
	if (memcmp(buf, tag, len))
		return rd_fail(r, -EINVAL, at, "expected \"%s\"", tag);
	return 0;
}

/* An option's text (NUL-terminated copy, caller frees). */
static int rd_text(struct rd *r, uint32_t size, char **out, const char *what)
{
	char *s;
	int ret;

	if ((ret = rd_need(r, size, what)))
		return ret;
	if (size > MAX_TEXT)
		return rd_fail(r, -EINVAL, r->off, "%s of %" PRIu32 " bytes", what, size);
	s = malloc((size_t)size + 1);
	if (!s)
		return -ENOMEM;
	ret = rd_bytes(r, s, size, what);
	if (ret) {
		free(s);
		return ret;
	}
	s[size] = '\0';
	*out = s;
	return 0;
}

/* "[mono] global ..." (the trace_clock file) or "[mono]": the chosen one. */
static void parse_clock(struct tdat *t, const char *s)
{
	const char *b = strchr(s, '['), *e = b ? strchr(b, ']') : NULL;
	size_t n;

	if (!b || !e)
		return;
	n = (size_t)(e - b - 1);
	if (n && n < sizeof(t->clock)) {
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

/* ---- the metadata parts: in a row in version 6, sections in 7 ---- */

static bool is_ident(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

/* Printable ASCII, tabs and newlines only. */
static bool is_text(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(s[i] == '\n' || s[i] == '\t' || (s[i] >= ' ' && s[i] < 0x7f)))
			return false;
	return true;
}

/* Whether a "field:<type> <name>[...];" of @text declares the @len bytes at @name. */
static bool field_declared(const char *text, const char *name, size_t len)
{
	const char *p, *end, *n;

	for (p = text; (p = strstr(p, "field:")); p += 6) {
		end = strchr(p, ';');
		if (!end)
			return false;
		/* the name ends the declaration, or comes before its [size] */
		n = memchr(p, '[', (size_t)(end - p));
		if (!n)
			n = end;
		if ((size_t)(n - p) > len + 6 && !strncmp(n - len, name, len) &&
		    !is_ident(*(n - len - 1)))
			return true;
	}
	return false;
}

/*
 * Each "[" of a field declaration is closed, and each REC->field of the
 * print fmt is declared: libtraceevent 1.7 follows a NULL pointer when
 * not (one flipped byte in a bracket or a name is enough).
 */
static bool fields_consistent(const char *text)
{
	const char *p, *end, *b;
	size_t n;

	for (p = text; (p = strstr(p, "field:")); p += 6) {
		end = strchr(p, ';');
		if (!end)
			return false;
		for (b = p; (b = memchr(b, '[', (size_t)(end - b))); b++) {
			const char *c = b + 1;

			while (c < end && (is_ident(*c) || *c == ' '))
				c++;
			if (c >= end || *c != ']')
				return false;
		}
	}
	for (p = strstr(text, "print fmt:"); p && (p = strstr(p, "REC->")); p += n) {
		p += 5;
		for (n = 0; is_ident(p[n]); n++)
			;
		if (!n || !field_declared(text, p, n))
			return false;
	}
	return true;
}

/*
 * A format file as the kernel prints it: "name: ...", text, a final
 * newline; @header: header_page or header_event, text without the name.
 * libtraceevent's parser is trusted with the text, not with a size that
 * slipped: a cut or stray binary bytes fail here instead.
 */
static int rd_format(struct rd *r, uint64_t size, const char *what, bool header)
{
	uint64_t at = r->off;
	char *text;
	bool ok;
	int ret;

	if ((ret = rd_need(r, size, what)))
		return ret;
	if (size > MAX_FORMAT)
		return rd_fail(r, -EINVAL, at, "%s of %" PRIu64 " bytes", what, size);
	if ((ret = rd_text(r, (uint32_t)size, &text, what)))
		return ret;
	ok = (header || (size >= 7 && !strncmp(text, "name: ", 6) && text[size - 1] == '\n')) &&
	     is_text(text, size) && fields_consistent(text);
	free(text);
	if (!ok)
		return rd_fail(r, -EINVAL, at, "%s is not a format file's text", what);
	return 0;
}

/* header_page or header_event: its tag, its size, then its text. */
static int rd_header(struct rd *r, const char *tag, size_t taglen)
{
	uint64_t size;
	int ret;

	if ((ret = rd_tag(r, tag, taglen)) ||
	    (ret = rd_u64(r, &size, tag)))
		return ret;
	return rd_format(r, size, tag, true);
}

static int scan_header_info(struct rd *r)
{
	int ret = rd_header(r, "header_page", 12);

	return ret ? ret : rd_header(r, "header_event", 13);
}

static int scan_ftrace_formats(struct rd *r)
{
	uint32_t count, i;
	uint64_t size;
	int ret;

	if ((ret = rd_u32(r, &count, "ftrace format count")))
		return ret;
	if (count > MAX_FORMATS)
		return rd_fail(r, -EINVAL, r->off - 4, "%" PRIu32 " ftrace formats", count);
	for (i = 0; i < count; i++)
		if ((ret = rd_u64(r, &size, "ftrace format size")) ||
		    (ret = rd_format(r, size, "ftrace format", false)))
			return ret;
	return 0;
}

static int scan_event_formats(struct rd *r)
{
	uint32_t count, nsys, i, j;
	uint64_t size;
	char name[256];
	int ret;

	if ((ret = rd_u32(r, &nsys, "event system count")))
		return ret;
	if (nsys > MAX_FORMATS)
		return rd_fail(r, -EINVAL, r->off - 4, "%" PRIu32 " event systems", nsys);
	for (i = 0; i < nsys; i++) {
		if ((ret = rd_str(r, name, sizeof(name), "event system name")) ||
		    (ret = rd_u32(r, &count, "event format count")))
			return ret;
		if (count > MAX_FORMATS)
			return rd_fail(r, -EINVAL, r->off - 4, "%" PRIu32 " formats in %s",
				       count, name);
		for (j = 0; j < count; j++)
			if ((ret = rd_u64(r, &size, "event format size")) ||
			    (ret = rd_format(r, size, "event format", false)))
				return ret;
	}
	return 0;
}

/* kallsyms and printk formats: a 32-bit size; cmdlines: a 64-bit one */
static int scan_sized(struct rd *r, unsigned width, const char *what)
{
	uint32_t size32 = 0;
	uint64_t size = 0;
	int ret;

	ret = width == 4 ? rd_u32(r, &size32, what) : rd_u64(r, &size, what);
	if (ret)
		return ret;
	return rd_skip(r, width == 4 ? size32 : size, what);
}

/*
 * trace_printk formats, "0xaddr : \"fmt\"" lines: libtraceevent copies
 * what follows a line's ':' and one more byte, whether there or not, and
 * finds that ':' with strtok_r(), which skips leading colons.
 */
static int scan_printk(struct rd *r)
{
	uint32_t size;
	uint64_t at;
	char *text, *line, *end;
	int ret;

	if ((ret = rd_u32(r, &size, "printk formats size")))
		return ret;
	at = r->off;
	if (!size)
		return 0;
	if ((ret = rd_text(r, size, &text, "printk formats")))
		return ret;
	for (line = text; line < text + size; line = end + 1) {
		char *colon;

		end = memchr(line, '\n', (size_t)(text + size - line));
		if (!end)
			end = text + size;
		if (end == line)
			continue;
		/* its strtok_r(line, ":") skips leading colons first */
		for (colon = line; colon < end && *colon == ':'; colon++)
			;
		colon = memchr(colon, ':', (size_t)(end - colon));
		if (!colon || colon + 1 >= end || memchr(line, '\0', (size_t)(end - line))) {
			ret = rd_fail(r, -EINVAL, at + (uint64_t)(line - text), "printk format "
				      "line without \": \"");
			break;
		}
	}
	free(text);
	return ret;
}

/* v6: a part is where the scan of it started, to where it ended */
static void v6_part(struct rd *r, enum tdat_part_id id, uint64_t at)
{
	r->t->part[id].offset = at;
	r->t->part[id].size = r->off - at;
}

static int scan_v6_headers(struct rd *r, uint32_t *cpus)
{
	uint64_t at;
	int ret;

	at = r->off;
	if ((ret = scan_header_info(r)))
		return ret;
	v6_part(r, TDAT_PART_HEADERS, at);
	at = r->off;
	if ((ret = scan_ftrace_formats(r)))
		return ret;
	v6_part(r, TDAT_PART_FTRACE, at);
	at = r->off;
	if ((ret = scan_event_formats(r)))
		return ret;
	v6_part(r, TDAT_PART_EVENTS, at);
	at = r->off;
	if ((ret = scan_sized(r, 4, "kallsyms")))
		return ret;
	v6_part(r, TDAT_PART_KALLSYMS, at);
	if ((ret = scan_printk(r)))
		return ret;
	at = r->off;
	if ((ret = scan_sized(r, 8, "saved cmdlines")))
		return ret;
	v6_part(r, TDAT_PART_CMDLINES, at);
	if ((ret = rd_u32(r, cpus, "CPU count")))
		return ret;
	if (*cpus > MAX_CPUS)
		return rd_fail(r, -EINVAL, r->off - 4, "%" PRIu32 " CPUs", *cpus);
	return 0;
}

/* A version 7 metadata section, when it is not compressed: its contents. */
static int scan_part(struct rd *r, uint16_t id, uint64_t off, uint64_t size)
{
	struct rd s = *r;

	s.off = off;
	s.end = off + size;
	switch (id) {
	case TDAT_OPT_HEADER_INFO:
		return scan_header_info(&s);
	case TDAT_OPT_FTRACE_EVENTS:
		return scan_ftrace_formats(&s);
	case TDAT_OPT_EVENT_FORMATS:
		return scan_event_formats(&s);
	case TDAT_OPT_KALLSYMS:
		return scan_sized(&s, 4, "kallsyms");
	case TDAT_OPT_PRINTK:
		return scan_printk(&s);
	case TDAT_OPT_CMDLINES:
		return scan_sized(&s, 8, "saved cmdlines");
	default:
		return 0;
	}
}

/* ---- version 7: sections found through options ---- */

/* The section header at @off: @id expected; its data range must fit. */
static int check_section(struct rd *r, uint64_t off, uint16_t id, const char *what,
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
		if ((ret = rd_u32(&c, &csize, "compressed chunk size")) ||
		    (ret = rd_u32(&c, &usize, "compressed chunk size")) ||
		    (ret = rd_skip(&c, csize, "compressed chunk")))
			return ret;
		/* the reader allocates what a chunk claims to expand to */
		if (!usize || usize % r->t->page_size || usize > (1u << 30))
			return rd_fail(r, -EINVAL, c.off - csize - 8, "a chunk of %" PRIu32
				       " bytes is not whole pages", usize);
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
	if (!t->clock[0] && clock[0] && strlen(clock) < sizeof(t->clock))
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

static int scan_options(struct rd *r, uint64_t end, uint64_t *next)
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
				if (!ret && !(flags & 1))
					ret = scan_part(r, id, secdata, secsize);
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

static int scan_v6_flyrecord(struct rd *r, uint32_t cpus, bool clock_option)
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
static int walk_sections(struct rd *r, uint64_t off)
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
		if ((ret = rd_skip(&s, size, "section")))
			return ret;
	}
	return 0;
}

/* libtracecmd maps CPU data page by page from its offset. */
static int check_alignment(struct rd *r)
{
	const struct tdat *t = r->t;
	unsigned i;

	for (i = 0; i < t->ncpu && !t->compressed; i++)
		if (t->cpu[i].size && t->cpu[i].offset % t->page_size)
			return rd_fail(r, -EINVAL, t->cpu[i].offset, "CPU %u data is not "
				       "page-aligned", i);
	return 0;
}

int tdat_scan(struct tdat *t, int fd, char *err, size_t errlen)
{
	static const char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct rd r = { .fd = fd, .t = t, .err = err, .errlen = errlen };
	char buf[64], version[16];
	uint64_t next, secdata, secsize;
	uint32_t cpus = 0, i;
	uint16_t flags;
	struct stat st;
	int ret;

	memset(t, 0, sizeof(*t));
	if (fstat(fd, &st) < 0)
		return -errno;
	t->file_size = (uint64_t)st.st_size;
	r.end = t->file_size;
	if ((ret = rd_bytes(&r, buf, 10, "magic")))
		return ret;
	if (memcmp(buf, magic, 10))
		return rd_fail(&r, -EINVAL, 0, "not a trace-cmd trace.dat (bad magic)");
	if ((ret = rd_str(&r, version, sizeof(version), "file version")))
		return ret;
	if (strcmp(version, "6") && strcmp(version, "7"))
		return rd_fail(&r, -ENOTSUP, 10, "trace.dat version \"%s\" (6 and 7 are read)",
			       version);
	t->version = (unsigned)(version[0] - '0');
	if ((ret = rd_bytes(&r, buf, 2, "endianness and long size")))
		return ret;
	if (buf[0])
		return rd_fail(&r, -ENOTSUP, r.off - 2, "a big-endian recording");
	t->long_size = (uint8_t)buf[1];
	if ((ret = rd_u32(&r, &t->page_size, "page size")))
		return ret;
	if (t->page_size < 64 || t->page_size > (1u << 24) ||
	    (t->page_size & (t->page_size - 1)))
		return rd_fail(&r, -EINVAL, r.off - 4, "page size %" PRIu32, t->page_size);

	if (t->version == 6) {
		if ((ret = scan_v6_headers(&r, &cpus)))
			return ret;
		if ((ret = rd_bytes(&r, buf, 10, "options or data type")))
			return ret;
		if (!memcmp(buf, "options  ", 10)) {
			if ((ret = scan_options(&r, t->file_size, &next)))
				return ret;
		} else {
			r.off -= 10;
		}
		/* libtracecmd would read the CPU table by this count instead */
		if (t->cpucount && t->cpucount != cpus)
			return rd_fail(&r, -ENOTSUP, r.off, "a CPUCOUNT option of %" PRIu32
				       " for %" PRIu32 " CPUs of data", t->cpucount, cpus);
		r.end = t->file_size;
		ret = scan_v6_flyrecord(&r, cpus, r.clock_option);
		return ret ? ret : check_alignment(&r);
	}

	/* version 7: compression name and version, then the options chain */
	if ((ret = rd_str(&r, buf, sizeof(buf), "compression name")))
		return ret;
	if (strcmp(buf, "none") && strlen(buf) < sizeof(t->compression))
		strcpy(t->compression, buf);
	if ((ret = rd_str(&r, buf, sizeof(buf), "compression version")) ||
	    (ret = rd_u64(&r, &next, "options offset")) ||
	    (ret = walk_sections(&r, r.off)))
		return ret;
	for (i = 0; next; i++) {
		uint64_t at = next;

		if (i == MAX_OPTIONS_SECTIONS)
			return rd_fail(&r, -EINVAL, at, "too many options sections (a loop?)");
		if ((ret = check_section(&r, at, TDAT_OPT_DONE, "options", &flags, &secdata,
					 &secsize)))
			return ret;
		if (flags & 1)
			return rd_fail(&r, -ENOTSUP, at, "compressed options (trace-cmd writes "
				       "them plain)");
		r.off = secdata;
		if ((ret = scan_options(&r, secdata + secsize, &next)))
			return ret;
		if (next && next <= at)
			return rd_fail(&r, -EINVAL, r.off - 8, "options chain goes back to "
				       "offset %" PRIu64, next);
	}
	if (!t->cpu)
		return rd_fail(&r, -EINVAL, r.off, "no BUFFER option: no trace data");
	return check_alignment(&r);
}

void tdat_free(struct tdat *t)
{
	if (!t)
		return;
	free(t->cpu);
	free(t->cpustats);
	free(t->uname);
	free(t->offcpu);
	free(t->tgids);
	memset(t, 0, sizeof(*t));
}

static uint64_t stat_num(const char *s, const char *end, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = s; p && p < end; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if ((size_t)(end - p) > n && !strncmp(p, name, n))
			return strtoull(p + n, NULL, 10);
	return 0;
}

uint64_t tdat_cpustat_lost(const struct tdat *t, unsigned cpu)
{
	char head[32];
	const char *p, *end;
	size_t n;

	if (!t->cpustats)
		return 0;
	n = (size_t)snprintf(head, sizeof(head), "CPU: %u\n", cpu);
	for (p = t->cpustats; (p = strstr(p, head)); p += n) {
		if (p != t->cpustats && p[-1] != '\n')
			continue;
		end = strstr(p + n, "CPU: ");
		if (!end)
			end = p + strlen(p);
		/* what ring_lost() counts from the same file */
		return stat_num(p, end, "overrun: ") + stat_num(p, end, "commit overrun: ") +
		       stat_num(p, end, "dropped events: ");
	}
	return 0;
}

int tdat_meta_get(const struct tdat *t, const char *key, char *buf, size_t len)
{
	size_t n = strlen(key);
	const char *p, *e;

	/* keys end at the first empty line: free text follows */
	for (p = t->offcpu; p && *p && *p != '\n'; p = e ? e + 1 : NULL) {
		e = strchr(p, '\n');
		if (!strncmp(p, key, n) && p[n] == '=') {
			size_t vlen = (e ? (size_t)(e - p) : strlen(p)) - n - 1;

			if (vlen >= len)
				return -ENAMETOOLONG;
			memcpy(buf, p + n + 1, vlen);
			buf[vlen] = '\0';
			return 0;
		}
	}
	return -ENOENT;
}

const char *tdat_cgroups(const struct tdat *t)
{
	const char *p = t->offcpu ? strstr(t->offcpu, "\ncgroups:\n") : NULL;

	return p ? p + 10 : NULL;
}

void tdat_lost(const struct tdat *t, uint64_t *lost, unsigned ncpu)
{
	char buf[65536], *p, *end;
	unsigned cpu;

	if (tdat_meta_get(t, "lost", buf, sizeof(buf)) == 0) {
		for (p = buf, cpu = 0; *p && cpu < ncpu; cpu++) {
			uint64_t n = strtoull(p, &end, 10);

			if (end == p)
				break;
			lost[cpu] = n;
			p = *end == ',' ? end + 1 : end;
		}
		return;
	}
	for (cpu = 0; cpu < ncpu; cpu++) {
		uint64_t n = tdat_cpustat_lost(t, cpu);

		if (n > lost[cpu])
			lost[cpu] = n;
	}
}

void tdat_clock_window(const struct tdat *t, char *clock, size_t len, uint64_t *start,
		       uint64_t *end)
{
	char num[32];

	if (tdat_meta_get(t, "clock", clock, len))
		snprintf(clock, len, "%s", t->clock[0] ? t->clock : "unknown");
	if (tdat_meta_get(t, "window_start_ns", num, sizeof(num)) == 0) {
		uint64_t s = strtoull(num, NULL, 10), e = 0;

		if (tdat_meta_get(t, "window_end_ns", num, sizeof(num)) == 0)
			e = strtoull(num, NULL, 10);
		if (e > s) {
			*start = s;
			*end = e;
		}
	}
}

void tdat_scope(const struct tdat *t, struct rec_scope *s)
{
	char num[32];

	memset(s, 0, sizeof(*s));
	if (tdat_meta_get(t, "scope", s->kind, sizeof(s->kind)))
		s->kind[0] = '\0';
	if (tdat_meta_get(t, "scope_id", num, sizeof(num)) == 0)
		s->id = (int32_t)strtol(num, NULL, 10);
	if (tdat_meta_get(t, "scope_command", s->command, sizeof(s->command)))
		s->command[0] = '\0';
	if (tdat_meta_get(t, "recorder_pid", num, sizeof(num)) == 0)
		s->recorder = (int32_t)strtol(num, NULL, 10);
	/* a scope that needs an id and has none is no scope */
	if (strcmp(s->kind, "all") && s->id <= 0)
		s->kind[0] = '\0';
}

static int cmp_tgid(const void *a, const void *b)
{
	const struct tdat_tgid *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* "saved_tgids:" after the keys: "TID TGID" lines, as the kernel prints them */
static void parse_tgids(struct tdat *t)
{
	const char *p = t->offcpu ? strstr(t->offcpu, "\nsaved_tgids:\n") : NULL;
	size_t cap = 0;

	t->tgids_parsed = true;
	if (!p)
		return;
	for (p += 14; *p;) {
		char *end;
		long tid = strtol(p, &end, 10), tgid;

		if (end == p)
			break;
		tgid = strtol(end, &end, 10);
		if (tid > 0 && tid <= INT32_MAX && tgid > 0 && tgid <= INT32_MAX) {
			struct tdat_tgid *nv = mem_grow_from(t->tgids, &cap, t->ntgids,
							     sizeof(*nv), 256);

			if (!nv)
				break;
			t->tgids = nv;
			t->tgids[t->ntgids].tid = (int32_t)tid;
			t->tgids[t->ntgids++].tgid = (int32_t)tgid;
		}
		p = strchr(end, '\n');
		if (!p)
			break;
		p++;
	}
	qsort(t->tgids, t->ntgids, sizeof(*t->tgids), cmp_tgid);
}

int32_t tdat_tgid(struct tdat *t, int32_t tid)
{
	struct tdat_tgid key = { tid, 0 }, *e;

	if (!t->tgids_parsed)
		parse_tgids(t);
	if (!t->ntgids)
		return -2;
	e = bsearch(&key, t->tgids, t->ntgids, sizeof(*t->tgids), cmp_tgid);
	return e ? e->tgid : -1;
}
