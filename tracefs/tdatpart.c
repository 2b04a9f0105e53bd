// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A trace.dat's metadata parts, in a row in version 6 and in sections
 * (plain or compressed) in version 7: header_page and header_event, the
 * ftrace and event formats, kallsyms, the trace_printk formats and the
 * saved cmdlines, each checked as libtraceevent and libtracecmd would
 * read it (format files' text, fields and print fmt; printk lines), and
 * a compressed block decompressed within what the recording may expand to.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tdat.h"
#include "tdatz.h"
#include "tdat_local.h"


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
 * In the print fmt @fmt, "->" follows only REC (or "(REC)"), outside its
 * string literals: libtraceevent 1.7 reads past its tokens on "name->"
 * for any other name (one flipped byte of "REC" is enough).
 */
static bool arrows_on_rec(const char *fmt)
{
	const char *p, *q;
	bool str = false;

	for (p = fmt; *p; p++) {
		if (str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				str = false;
			continue;
		}
		if (*p == '"')
			str = true;
		if (p[0] != '-' || p[1] != '>')
			continue;
		for (q = p; q > fmt && (q[-1] == ')' || q[-1] == ' '); q--)
			;
		if (q - fmt < 3 || strncmp(q - 3, "REC", 3) || (q - fmt > 3 && is_ident(q[-4])))
			return false;
	}
	return true;
}

/*
 * The print fmt of a format's @text: after "print fmt:", spelled with any
 * blanks, as libtraceevent's tokenizer finds it (a tab slipped in still
 * reaches its parser); NULL when there is none.
 */
static const char *print_fmt(const char *text)
{
	const char *p, *q;

	for (p = text; (p = strstr(p, "print")); p += 5) {
		if (p > text && p[-1] != '\n' && p[-1] != ' ' && p[-1] != '\t')
			continue;
		for (q = p + 5; *q == ' ' || *q == '\t'; q++)
			;
		if (q == p + 5 || strncmp(q, "fmt", 3))
			continue;
		for (q += 3; *q == ' ' || *q == '\t'; q++)
			;
		if (*q == ':')
			return q + 1;
	}
	return NULL;
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
	p = print_fmt(text);
	if (p && !arrows_on_rec(p))
		return false;
	for (; p && (p = strstr(p, "REC->")); p += n) {
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

int scan_v6_headers(struct rd *r, uint32_t *cpus)
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
int scan_part(struct rd *r, uint16_t id, uint64_t off, uint64_t size)
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

/*
 * The compressed block at @off (within @end) of @what, decompressed into
 * *@raw (caller frees): what it claims is checked against its section and
 * against what the whole recording may expand to before anything is
 * allocated, then it must decompress to exactly that.
 */
int rd_block(struct rd *r, uint64_t off, uint64_t end, const char *what, uint8_t **raw,
		    size_t *len)
{
	struct tdat *t = r->t;
	uint32_t csize, usize;
	int ret;

	*raw = NULL;
	if (off > end || end - off < 8)
		return rd_fail(r, -EINVAL, off, "%s: no room for a compressed block", what);
	if (tdatz_header(r->fd, off, &csize, &usize))
		return rd_fail(r, -EIO, off, "cannot read %s", what);
	if (csize > end - off - 8)
		return rd_fail(r, -EINVAL, off, "%s: a compressed block of %" PRIu32 " bytes runs "
			       "past the end of its section at offset %" PRIu64, what, csize, end);
	if (!t->compression[0])
		return rd_fail(r, -EINVAL, off, "%s is compressed, in a file that names no "
			       "compression", what);
	if (!usize || usize > t->raw_max - t->raw_total)
		return rd_fail(r, -EINVAL, off, "%s claims %" PRIu32 " bytes uncompressed: more "
			       "than a recording of %" PRIu64 " bytes may expand to (%u times its "
			       "size and 1 MiB, %" PRIu64 " bytes claimed before it): corrupt?",
			       what, usize, t->file_size, TDAT_RAW_RATIO, t->raw_total);
	t->raw_total += usize;
	ret = tdatz_read_block(t->compression, r->fd, &off, end, usize, raw, len);
	if (ret == -ENOTSUP)
		return rd_fail(r, ret, off, "%s is compressed with %s, which this build cannot "
			       "decompress", what, t->compression);
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		return rd_fail(r, -EINVAL, off, "%s does not decompress to the %" PRIu32 " bytes "
			       "it claims: corrupt?", what, usize);
	return 0;
}

/* A compressed metadata section: its contents checked once decompressed. */
int scan_part_z(struct rd *r, uint16_t id, uint64_t off, uint64_t size)
{
	struct rd s = *r;
	uint8_t *raw;
	size_t len;
	int ret;

	ret = rd_block(r, off, off + size, "a metadata section", &raw, &len);
	if (ret)
		return ret;
	s.mem = raw;
	s.mem_at = off;
	s.off = 0;
	s.end = len;
	ret = scan_part(&s, id, 0, len);
	free(raw);
	return ret;
}
