// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: format-file text through tracefs/fmt.c.
 *
 * Input: byte 0 chooses the mode (low 2 bits), the rest is data.
 *   0  fmt_eval_const() on the text (not NUL-terminated: the parser must
 *      stay within its length)
 *   1  fmt_parse_states() on the text (a sched_switch format), then
 *      sched_state_str()/sched_states_mask() with the table it read
 *   2  a layout written from the data: a header_page and up to 6 format
 *      files (event, ID, fields with any name, type, offset, size and
 *      sign, and a print fmt whose prev_state masks and flag table are
 *      made up), through fmt_header_page(), fmt_add_event() and
 *      fmt_resolve(). When that succeeds, records of each event made at
 *      and around the min_size it resolved go through decode_record()/
 *      decode_stack() in heap blocks of their exact size, and a page of
 *      page_size bytes through page_cursor_load(): a hostile format must
 *      not make the decoder read outside what it was given.
 *   3  as 2 when built with -DFUZZ_RAW_FORMATS, but the data is the raw
 *      text: header_page and format files separated by NUL bytes. Off by
 *      default: libtraceevent 1.7's own parser crashes on truncated
 *      formats ("field:n m[" at the end), which is not our code to fix;
 *      mode 2 only writes formats it can tokenize.
 * With FUZZ_FMT_PRINT set in the environment, modes 2 and 3 print the
 * texts they try and what fmt_*() said (to write seeds by hand).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FORMATS 8
#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_PAGE (1u << 20)	/* larger page sizes are not tried */

static volatile uint64_t sink;
static bool verbose;	/* FUZZ_FMT_PRINT set: print the texts tried */

static void die(const char *what)
{
	fprintf(stderr, "fuzz_fmt: %s\n", what);
	abort();
}

/* [p, p + n) as a NUL-terminated heap string of exactly n + 1 bytes. */
static char *text_copy(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		die("out of memory");
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

static void run_states(const uint8_t *p, size_t n)
{
	struct sched_states st;
	char *s = text_copy(p, n), buf[64];
	bool from = true;
	unsigned i;

	if (!fmt_parse_states(s, &st, &from)) {
		if (st.nletters == 0 || st.nletters > STATE_LETTERS)
			die("fmt_parse_states: letter count out of range");
		sink += sched_states_mask(&st, "SDTtXZPI");
		for (i = 0; i < 8; i++) {
			sched_state_str(&st, (int64_t)(1ULL << (i * 8)) | (int64_t)i, buf, sizeof(buf));
			sched_state_str(&st, -1, buf, 4);
		}
	} else if (from) {
		die("fmt_parse_states: failed but says the mask came from the fmt");
	}
	free(s);
}

static void decode_sized(const struct sched_layout *l, unsigned t, uint32_t size,
			 uint8_t fill)
{
	uint64_t frames[STACK_MAX_DEPTH];
	struct sched_event ev;
	uint16_t id = (uint16_t)l->id[t];
	unsigned got;
	uint8_t *r;

	if (size > MAX_PAGE)
		return;		/* a min_size no record reaches */
	r = malloc(size ? size : 1);
	if (!r)
		die("out of memory");
	memset(r, fill, size);
	if ((uint32_t)l->common_type.off + 2 <= size)
		memcpy(r + l->common_type.off, &id, 2);
	memset(&ev, 0, sizeof(ev));
	got = decode_record(l, r, size, 0, 0, &ev);
	if (got >= SEV_NTYPES)
		die("decode_record: type out of range");
	if (got && ev.comm)
		sink += strnlen(ev.comm, COMM_LEN);
	if (got && ev.next_comm)
		sink += strnlen(ev.next_comm, COMM_LEN);
	if (got == SEV_KSTACK || got == SEV_USTACK) {
		decode_stack(l, r, size, &ev, frames);
		if (ev.stack_depth > STACK_MAX_DEPTH)
			die("decode_stack: depth out of range");
	}
	free(r);
}

/* header_page, then format files: the layout, and decoding with it */
static void layout_try(const char *header, char *const *fmts, unsigned nfmt)
{
	struct sched_layout l;
	struct page_cursor c;
	const char *missing;
	unsigned i, t;
	int ret;

	if (fmt_init(&l))
		die("fmt_init");
	ret = fmt_header_page(&l, header, strlen(header));
	if (verbose)
		fprintf(stderr, "--- header_page: %d\n%s", ret, header);
	for (i = 0; i < nfmt; i++) {
		int r;

		if (verbose)
			fprintf(stderr, "--- format:\n%s", fmts[i]);
		r = fmt_add_event(&l, fmts[i], strlen(fmts[i]));
		if (verbose)
			fprintf(stderr, "--- fmt_add_event: %d\n", r);
	}
	if (!ret)
		ret = fmt_resolve(&l, &missing);
	if (verbose)
		fprintf(stderr, "--- fmt_resolve: %d%s%s\n", ret, ret && missing ? " " : "",
			ret && missing ? missing : "");
	if (ret)
		goto out;
	for (t = 1; t < SEV_NTYPES; t++) {
		uint32_t ms = l.min_size[t];

		if (l.id[t] < 0)
			continue;
		for (i = 0; i < 4; i++) {
			if (ms >= i)
				decode_sized(&l, t, ms - i, (uint8_t)(0x11 * i));
			decode_sized(&l, t, ms + 8 * i + 1, 0xff);
		}
	}
	if (l.page_size && l.page_size <= MAX_PAGE && !page_cursor_init(&c, &l)) {
		uint8_t *page = calloc(1, l.page_size);

		if (!page)
			die("out of memory");
		/* an empty page, then one that claims to be full */
		page_cursor_load(&c, &l, page, l.page_size);
		if (l.page_data_off <= l.page_size) {
			uint64_t commit = l.page_size - l.page_data_off;

			if (l.page_commit_off + l.page_commit_size <= l.page_size &&
			    l.page_commit_size <= 8)
				memcpy(page + l.page_commit_off, &commit, l.page_commit_size);
			if (page_cursor_load(&c, &l, page, l.page_size) != -EINVAL)
				for (i = 0; c.rec && i < l.page_size; i++)
					page_cursor_next(&c);
		}
		free(page);
		page_cursor_fini(&c);
	}
out:
	fmt_fini(&l);
}

#ifdef FUZZ_RAW_FORMATS
/* Mode 3: header_page and format files as raw text, NUL-separated. */
static void run_raw(const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n, *z;
	char *texts[1 + MAX_FORMATS];
	unsigned i, nt = 0;

	while (nt < 1 + MAX_FORMATS && (p < end || nt == 0)) {
		z = memchr(p, '\0', (size_t)(end - p));
		texts[nt++] = text_copy(p, (size_t)((z ? z : end) - p));
		p = z ? z + 1 : end;
	}
	layout_try(texts[0], texts + 1, nt - 1);
	for (i = 0; i < nt; i++)
		free(texts[i]);
}
#endif

/* ---- mode 2: format files written from the fuzz data ---- */

/* The fuzz data, read in order; zeros once it is used up. */
struct rd {
	const uint8_t *p, *end;
};

static uint32_t take(struct rd *r, unsigned nbytes)
{
	uint32_t v = 0;
	unsigned i;

	for (i = 0; i < nbytes; i++)
		v |= (uint32_t)(r->p < r->end ? *r->p++ : 0) << (8 * i);
	return v;
}

/* An offset: mostly 0-127, sometimes any u32. */
static uint32_t take_off(struct rd *r)
{
	uint32_t b = take(r, 1);

	return b & 0x80 ? take(r, 4) : b;
}

static uint32_t take_size(struct rd *r)
{
	static const uint32_t common[] = { 1, 2, 4, 8, 16, 64, 0 };
	uint32_t b = take(r, 1);

	if (b < 7 * 32)
		return common[b % 7] ? common[b % 7] : b / 7;
	return take(r, 4);
}

/* A constant expression of the kind fmt_eval_const() reads. */
static void put_expr(FILE *f, struct rd *r, unsigned depth)
{
	static const char *const ops[] = { "|", "+", "-", "<<", ">>", "&" };
	uint32_t b = take(r, 1);

	if (!depth || b % 3 == 0) {
		fprintf(f, b & 8 ? "0x%08x%s" : "%u%s", take_off(r), b & 16 ? "UL" : "");
		return;
	}
	fputc('(', f);
	put_expr(f, r, depth - 1);
	fprintf(f, " %s ", ops[(b >> 2) % 6]);
	put_expr(f, r, depth - 1);
	fputc(')', f);
}

/*
 * @has_state: the event has a prev_state field. libtraceevent 1.7 crashes
 * on "__print_flags(REC->nosuchfield & 5, ...)", so only then.
 */
static void put_print_fmt(FILE *f, struct rd *r, bool has_state)
{
	uint32_t kind = take(r, 1) % 4, n, i;

	fputs("print fmt: ", f);
	if (kind == 0 || ((kind == 1 || kind == 2) && !has_state)) {
		fputs("\"%d\", REC->prev_pid\n", f);
		return;
	}
	if (kind == 3) {
		fputs("\"\"\n", f);
		return;
	}
	fputs("\"%s%s\", REC->prev_state & (", f);
	put_expr(f, r, 3);
	fputs(") ? __print_flags(REC->prev_state & (", f);
	put_expr(f, r, 2);
	fputs("), \"|\"", f);
	n = take(r, 1) % 20;
	for (i = 0; i < n; i++) {
		uint32_t bit = take(r, 1) & 0x80 ? take(r, 4) : 1u << (take(r, 1) % 32);
		char letter = "SDTtXZPIRKWN"[take(r, 1) % 12];	/* after bit */

		fprintf(f, ", { 0x%08x, \"%c\" }", bit, letter);
	}
	fputs(") : \"R\"", f);
	if (kind == 1) {
		fputs(", REC->prev_state & ", f);
		put_expr(f, r, 3);
		fputs(" ? \"+\" : \"\"", f);
	}
	fputc('\n', f);
}

static char *gen_header_page(struct rd *r)
{
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);
	/* read in this order (arguments are evaluated in any order) */
	uint32_t coff = take_off(r), csize = take_size(r), off = take_off(r);
	uint32_t size = take(r, 1) & 0x80 ? take(r, 4) : 4080;

	if (!f)
		die("open_memstream");
	fprintf(f, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n");
	fprintf(f, "\tfield: local_t commit;\toffset:%u;\tsize:%u;\tsigned:1;\n",
		coff, csize);
	fprintf(f, "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n");
	fprintf(f, "\tfield: char data;\toffset:%u;\tsize:%u;\tsigned:1;\n",
		off, size);
	if (fclose(f))
		die("fclose");
	return s;
}

static char *gen_format(struct rd *r)
{
	static const char *const events[] = {
		"sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_waking",
		"kernel_stack", "user_stack", "sched_process_fork", "sched_foo",
	};
	static const char *const names[] = {
		"common_type", "common_flags", "common_preempt_count", "common_pid",
		"prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm",
		"next_pid", "next_prio", "comm", "pid", "prio", "success",
		"target_cpu", "size", "tgid", "caller", "parent_pid", "child_pid",
		"parent_comm", "other",
	};
	static const char *const types[] = {
		"unsigned short", "unsigned char", "int", "long", "char",
		"unsigned long", "pid_t", "unsigned int", "u64",
	};
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);
	uint32_t n, i, b, ev, id, off, name;
	bool has_state = false;

	if (!f)
		die("open_memstream");
	/* read in this order (arguments are evaluated in any order) */
	ev = take(r, 1) % N(events);
	id = take(r, 2);
	fprintf(f, "name: %s\nID: %u\nformat:\n", events[ev], id);
	n = take(r, 1) % 16;
	for (i = 0; i < n; i++) {
		b = take(r, 1);
		name = take(r, 1) % N(names);
		has_state |= !strcmp(names[name], "prev_state");
		fprintf(f, "\tfield:%s %s", types[(b & 0x3f) % N(types)], names[name]);
		if (b & 0x80)
			fprintf(f, "[%u]", take(r, 1));
		off = take_off(r);
		fprintf(f, ";\toffset:%u;\tsize:%u;\tsigned:%u;\n", off,
			take_size(r), (b >> 6) & 1);
		if (i == 3)
			fputc('\n', f);
	}
	fputc('\n', f);
	put_print_fmt(f, r, has_state);
	if (fclose(f))
		die("fclose");
	return s;
}

static void run_gen(const uint8_t *p, size_t n)
{
	struct rd r = { p, p + n };
	char *header, *fmts[MAX_FORMATS];
	unsigned i, nf = 1 + take(&r, 1) % 6;

	header = gen_header_page(&r);
	for (i = 0; i < nf; i++)
		fmts[i] = gen_format(&r);
	layout_try(header, fmts, nf);
	for (i = 0; i < nf; i++)
		free(fmts[i]);
	free(header);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t v;

	verbose = getenv("FUZZ_FMT_PRINT") != NULL;
	if (size < 1)
		return 0;
	switch (data[0] & 3) {
	case 0:
		/* data + 1 is not terminated: the length alone must bound it */
		if (!fmt_eval_const((const char *)data + 1, size - 1, &v))
			sink += v;
		break;
	case 1:
		run_states(data + 1, size - 1);
		break;
	case 2:
		run_gen(data + 1, size - 1);
		break;
	default:
#ifdef FUZZ_RAW_FORMATS
		run_raw(data + 1, size - 1);
#endif
		break;
	}
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "standalone.h"
#endif
