// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: raw ring-buffer pages through page_cursor_load()/next()
 * and decode_record()/decode_stack(), with the layouts of the four
 * fixture kernels (tests/fixtures/kernels/<k>/raw, as check_decode).
 *
 * Input: byte 0 chooses, the rest is data.
 *   bits 0-1  the kernel, in the order of fuzz_kernels[]
 *   bit 2     also load tests/fuzz/formats/{kernel,user}_stack.format so
 *             stack records decode (the fixtures have no stack formats)
 *   bit 3     records mode: the data is records "u16 size (LE), bytes",
 *             given to decode_record() as perf.c gives its samples; else
 *             pages of page_size bytes, a shorter tail loaded with its
 *             own length
 *   bits 4-7  the CPU number passed to decode_record()
 *
 * Each page is copied to the end of a mapping followed by a PROT_NONE
 * page (and preceded by one when it fills whole pages), so a read past it
 * faults even in a build without ASan or in an uninstrumented library
 * (the page walker was libtraceevent's kbuffer). Records are then copied
 * to heap blocks of their exact size for decode_record(), where ASan sees
 * every byte.
 *
 * Invariants checked (abort): page_cursor_load() returns -EINVAL with no
 * record, or >= -1; every record lies inside the page; a page yields at
 * most one record per 8 bytes of data; comm pointers lie in the record.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fileread.h"
#include "decode.h"
#include "fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef FUZZ_SRCDIR
#define FUZZ_SRCDIR "."
#endif

/* as tests/unit/fixture.c */
static const char *const fuzz_kernels[4] = {
	"5.10.0-32-cloud-amd64",
	"6.1.0-57-cloud-amd64",
	"6.12.117+deb13-cloud-amd64",
	"6.18.44-host",
};

struct fuzz_layout {
	struct sched_layout l;
	struct page_cursor cur;
};

static struct fuzz_layout layouts[4][2];	/* [kernel][with stacks] */
static uint8_t *guard_lo, *guard_hi;	/* page bytes: [guard_lo, guard_hi) */
static volatile uint64_t sink;		/* keeps reads from being optimized out */

static void die(const char *what)
{
	fprintf(stderr, "fuzz_decode: %s\n", what);
	abort();
}

static const char *srcdir(void)
{
	const char *s = getenv("srcdir");

	return s && *s ? s : FUZZ_SRCDIR;
}

/* Add the format file @path; a name we do not use (-ENOENT) is fine. */
static int add_format(struct sched_layout *l, const char *path)
{
	size_t len;
	char *s = file_read(path, &len);
	int ret;

	if (!s) {
		fprintf(stderr, "fuzz_decode: %s: %s (set srcdir to the source tree)\n",
			path, strerror(errno));
		return -errno;
	}
	ret = fmt_add_event(l, s, len);
	free(s);
	return ret == -ENOENT ? 0 : ret;
}

/* The layout of kernels/@k/raw: header_page and every *.format there. */
static int layout_load(struct sched_layout *l, const char *k, bool stacks)
{
	char dir[4096], path[4096 + 256];
	const char *missing;
	struct dirent *d;
	size_t len;
	DIR *dp;
	char *s;
	int ret;

	ret = fmt_init(l);
	if (ret)
		return ret;
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/kernels/%s/raw", srcdir(), k);
	snprintf(path, sizeof(path), "%s/header_page", dir);
	s = file_read(path, &len);
	if (!s) {
		fprintf(stderr, "fuzz_decode: %s: %s (set srcdir to the source tree)\n",
			path, strerror(errno));
		return -ENOENT;
	}
	ret = fmt_header_page(l, s, len);
	free(s);
	if (ret)
		return ret;
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while ((d = readdir(dp))) {
		size_t n = strlen(d->d_name);

		if (n < 8 || strcmp(d->d_name + n - 7, ".format"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		ret = add_format(l, path);
		if (ret)
			break;
	}
	closedir(dp);
	if (!ret && stacks) {
		snprintf(path, sizeof(path), "%s/tests/fuzz/formats/kernel_stack.format", srcdir());
		ret = add_format(l, path);
		snprintf(path, sizeof(path), "%s/tests/fuzz/formats/user_stack.format", srcdir());
		if (!ret)
			ret = add_format(l, path);
	}
	if (!ret)
		ret = fmt_resolve(l, &missing);
	return ret;
}

static void init(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t maxpage = 0, span;
	unsigned k, s;
	uint8_t *m;

	for (k = 0; k < 4; k++) {
		for (s = 0; s < 2; s++) {
			struct fuzz_layout *f = &layouts[k][s];

			if (layout_load(&f->l, fuzz_kernels[k], s) ||
			    page_cursor_init(&f->cur, &f->l)) {
				fprintf(stderr, "fuzz_decode: cannot load the layout of %s%s\n",
					fuzz_kernels[k], s ? " with stacks" : "");
				exit(1);
			}
			if (f->l.page_size > maxpage)
				maxpage = f->l.page_size;
		}
	}
	if (psz <= 0 || maxpage > (1u << 20))
		die("odd page sizes");
	span = (maxpage + (size_t)psz - 1) / (size_t)psz * (size_t)psz;
	m = mmap(NULL, span + 2 * (size_t)psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		die("mmap");
	if (mprotect(m, (size_t)psz, PROT_NONE) ||
	    mprotect(m + (size_t)psz + span, (size_t)psz, PROT_NONE))
		die("mprotect");
	guard_lo = m + psz;
	guard_hi = guard_lo + span;
}

/* Copy of [p, p + n) in a heap block of exactly @n bytes; caller frees. */
static uint8_t *exact_copy(const uint8_t *p, size_t n)
{
	uint8_t *b = malloc(n ? n : 1);

	if (!b)
		die("out of memory");
	if (n)
		memcpy(b, p, n);
	return b;
}

static void decode_one(const struct sched_layout *l, const uint8_t *rec,
		       uint32_t size, uint64_t ts, int cpu)
{
	uint64_t frames[STACK_MAX_DEPTH];
	struct sched_event ev;
	char st[64];
	uint8_t *r = exact_copy(rec, size);
	unsigned t, i;

	memset(&ev, 0, sizeof(ev));
	t = decode_record(l, r, size, ts, cpu, &ev);
	if (t >= SEV_NTYPES)
		die("decode_record: type out of range");
	if (!t)
		goto out;
	if (ev.type != t)
		die("decode_record: ev.type differs from the result");
	if (ev.comm && (ev.comm < (const char *)r ||
			ev.comm + COMM_LEN > (const char *)r + size))
		die("comm outside the record");
	if (ev.next_comm && (ev.next_comm < (const char *)r ||
			     ev.next_comm + COMM_LEN > (const char *)r + size))
		die("next_comm outside the record");
	if (ev.comm)
		sink += strnlen(ev.comm, COMM_LEN);
	if (ev.next_comm)
		sink += strnlen(ev.next_comm, COMM_LEN);
	if (t == SEV_SWITCH) {
		sched_state_str(&l->states, ev.prev_state, st, sizeof(st));
		sink += sched_state_runnable(&l->states, ev.prev_state);
	}
	if (t == SEV_KSTACK || t == SEV_USTACK) {
		decode_stack(l, r, size, &ev, frames);
		if (ev.stack_depth > STACK_MAX_DEPTH || ev.stack != frames)
			die("decode_stack: depth out of range");
		for (i = 0; i < ev.stack_depth; i++)
			sink ^= ev.stack[i];
	}
out:
	free(r);
}

static void run_page(struct fuzz_layout *f, const uint8_t *data, size_t len,
		     int cpu)
{
	const struct sched_layout *l = &f->l;
	struct page_cursor *c = &f->cur;
	uint8_t *page = guard_hi - len;
	size_t nrec = 0, max;
	int ret;

	memcpy(page, data, len);
	ret = page_cursor_load(c, l, page, len);
	if (ret == -EINVAL) {
		if (c->rec)
			die("page_cursor_load: -EINVAL with a record");
		return;
	}
	if (ret < -1)
		die("page_cursor_load: negative result other than -1 and -EINVAL");
	/* the smallest record: a 4-byte header and 4 bytes of data */
	max = len > l->page_data_off ? (len - l->page_data_off) / 8 : 0;
	for (; c->rec; page_cursor_next(c)) {
		const uint8_t *r = c->rec;
		uint32_t sz = page_cursor_size(c);

		if (r < page + l->page_data_off || r > page + len ||
		    sz > (size_t)(page + len - r))
			die("record outside the page");
		if (++nrec > max)
			die("more records than the page can hold");
		decode_one(l, r, sz, c->ts, cpu);
	}
}

static void run_records(struct fuzz_layout *f, const uint8_t *p, size_t n,
			int cpu)
{
	while (n >= 2) {
		size_t sz = (size_t)p[0] | (size_t)p[1] << 8;

		p += 2;
		n -= 2;
		if (sz > n)
			sz = n;
		decode_one(&f->l, p, (uint32_t)sz, 0, cpu);
		p += sz;
		n -= sz;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_layout *f;
	size_t psz;
	int cpu;

	if (!guard_lo)
		init();
	if (size < 1)
		return 0;
	f = &layouts[data[0] & 3][(data[0] >> 2) & 1];
	cpu = data[0] >> 4;
	data++;
	size--;
	if (data[-1] & 8) {
		run_records(f, data, size, cpu);
		return 0;
	}
	psz = f->l.page_size;
	if (psz > (size_t)(guard_hi - guard_lo))
		die("page larger than the guarded span");
	while (size) {
		size_t n = size < psz ? size : psz;

		run_page(f, data, n, cpu);
		data += n;
		size -= n;
	}
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "standalone.h"
#endif
