// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the recording reader (`offcpu-ftrace report FILE`). The
 * input is a whole trace.dat; it goes through file_backend_ops exactly as
 * report opens it: tdat_scan()'s structural checks, the probe child,
 * libtracecmd's headers, the page checks, then every record through
 * decode_record() in time order.
 *
 * Invariants checked (abort): open() returns 0 or a negative errno, and a
 * failure comes with a one-line message; events come out on CPUs below
 * the file's CPU count; a
 * second read after the drain yields nothing; lost() reports at most the
 * file's CPUs; close() succeeds. Every event also goes to two analyzers as
 * report configures them: runq+offcpu by process with kernel and user
 * stacks, a subscriber that needs the wakers and hears slices and forks
 * (what triage, offcpu --wakers and the timelines ask), and one that wants no stacks (a recording's stack records
 * must be ignored by it, not dereferenced), so the sanitizers watch the
 * stack paths on made-up input too.
 *
 * The input is written to a memfd and opened through /proc/self/fd/N, so
 * nothing touches the file system.
 *
 * Stored mode, so that mutations reach what compressed sections hold once
 * decompressed (random bytes in a zstd stream just fail to decompress):
 * an input starting "OFZS" is a version 7 file whose compressed blocks
 * hold their raw bytes, "u32 size, u32 raw size, 'OFZ\0', raw, padding"
 * (craft.py's stored seeds). Each such block is turned here, in place,
 * into a zstd frame of raw blocks and a skippable frame over the rest,
 * which any zstd decoder (ours, libtracecmd's) expands to those raw bytes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memfd_create */
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyzer.h"
#include "backend.h"
#include "tracefs_backends.h"
#include "event.h"
#include "recfile.h"
#include "tdatread.h"

/* -DOWN_READER: the project's own reader (fuzz target tdatown) */
#ifdef OWN_READER
#define READER tdatread_backend_ops
#define READER_INFO tdatread_info
#else
#define READER file_backend_ops
#define READER_INFO replay_info
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what)
{
	fprintf(stderr, "fuzz_tdat: %s\n", what);
	abort();
}

#define ZSTD_MAGIC 0xFD2FB528u
#define ZSTD_SKIPPABLE 0x184D2A50u
#define ZSTD_RAW_MAX (128u << 10)	/* a raw block's largest size */

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * The stored block whose tag is at @d + @at (its header 8 bytes before):
 * a zstd frame of its raw bytes, a skippable frame over the padding.
 * Left as it is when its sizes do not leave room (a mutated header).
 * Returns the bytes it now spans (0: left).
 */
static size_t zstd_store(uint8_t *d, size_t n, size_t at)
{
	uint32_t csize = get_le32(d + at - 8), usize = get_le32(d + at - 4);
	uint32_t nblocks = usize ? (usize + ZSTD_RAW_MAX - 1) / ZSTD_RAW_MAX : 1;
	uint32_t fcs = usize < 256 ? 1 : usize < 65536 + 256 ? 2 : 4, b, done = 0;
	uint64_t frame = 5ull + fcs + 3ull * nblocks + usize;
	uint8_t *raw, *p = d + at;

	if (csize > n - at || (uint64_t)usize + 4 > csize || frame + 8 > csize)
		return 0;
	raw = malloc(usize ? usize : 1);
	if (!raw)
		die("out of memory");
	memcpy(raw, d + at + 4, usize);
	put_le32(p, ZSTD_MAGIC);
	/* single segment: the content size says the window; no checksum */
	p[4] = (uint8_t)(0x20 | (fcs == 1 ? 0 : fcs == 2 ? 0x40 : 0x80));
	p += 5;
	if (fcs == 1) {
		*p = (uint8_t)usize;
	} else if (fcs == 2) {
		p[0] = (uint8_t)(usize - 256);
		p[1] = (uint8_t)((usize - 256) >> 8);
	} else {
		put_le32(p, usize);
	}
	p += fcs;
	for (b = 0; b < nblocks; b++) {
		uint32_t len = usize - done < ZSTD_RAW_MAX ? usize - done : ZSTD_RAW_MAX;
		uint32_t hdr = (len << 3) | (b + 1 == nblocks ? 1u : 0u);	/* type 0: raw */

		p[0] = (uint8_t)hdr;
		p[1] = (uint8_t)(hdr >> 8);
		p[2] = (uint8_t)(hdr >> 16);
		memcpy(p + 3, raw + done, len);
		p += 3 + len;
		done += len;
	}
	free(raw);
	put_le32(p, ZSTD_SKIPPABLE);
	put_le32(p + 4, (uint32_t)(csize - frame - 8));
	memset(p + 8, 0, csize - frame - 8);
	return csize;
}

/* Stored mode (above): every tagged block compressed in place. */
static void unstore(uint8_t *d, size_t n)
{
	size_t at, span;

	for (at = 8; at + 4 <= n; at++)
		if (!memcmp(d + at, "OFZ", 4) && (span = zstd_store(d, n, at)))
			at += span - 1;
}

struct seen {
	uint64_t n, last_ts;
	unsigned ncpu;
	uint64_t *cpu_max;	/* latest timestamp each CPU gave */
	struct analyzer *an[2];	/* with stacks, without */
};

static int32_t tgid_same(int32_t tid, void *arg)
{
	(void)arg;
	return tid;
}

/*
 * the subscriber's hooks: the analyzer's paths that feed them run; the
 * blocked parts go into groups of its own (analyzer_group), as triage's
 */
static struct an_mode_state own;

static void on_slice(void *arg, const struct an_slice *sl)
{
	(void)arg;
	(void)sl;
}

static void on_off(void *arg, const struct an_off *o)
{
	struct analyzer *an = arg;
	struct group *g;

	if (o->blk != AN_BLK_NONE &&
	    (g = analyzer_group(an, &own, o->tid, o->tgid, o->cpu, o->comm_given)))
		hist_add(&g->h, o->blocked_ns, an->cfg.unit_ns);
}

static void on_fork(void *arg, const struct an_fork *f)
{
	(void)arg;
	(void)f;
}

/* report's analyzers: @stacks or none; 0 or a negative errno */
static int an_open(struct analyzer **an, const struct sched_states *st, bool stacks)
{
	struct an_sink sink = { .needs = AN_NEED_WAKERS, .slice = on_slice, .fork = on_fork,
				.off = on_off };
	struct an_cfg c;

	memset(&c, 0, sizeof(c));
	c.modes = AN_RUNQ | AN_OFFCPU;
	c.key = stacks ? KEY_PID : KEY_TID;
	c.unit_ns = 1000;
	c.pid = c.tid = -1;
	c.off_state_all = true;
	c.off_max_ns = UINT64_MAX;
	c.states = *st;
	c.max_tasks = 4096;
	c.max_groups = 64;
	c.max_stacks = stacks ? 1024 : 0;
	c.stacks = stacks ? AN_KSTACK | AN_USTACK : 0;
	c.tgid_of = tgid_same;
	*an = malloc(sizeof(**an));
	if (!*an)
		return -ENOMEM;
	if (analyzer_init(*an, &c)) {
		free(*an);
		*an = NULL;
		return -ENOMEM;
	}
	sink.arg = *an;
	if (stacks && (analyzer_groups_init(*an, &own) || analyzer_subscribe(*an, &sink))) {
		analyzer_groups_fini(&own);
		analyzer_fini(*an);
		free(*an);
		*an = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void on_ev(const struct sched_event *ev, void *arg)
{
	struct seen *s = arg;

	if (ev->cpu < 0 || (unsigned)ev->cpu >= s->ncpu)
		die("event on a CPU the file does not have");
	/*
	 * Not checked: the merge's order. A corrupt CPU stream may step back
	 * through records decode_record() skips (no sched event), which the
	 * harness never sees; the analyzer counts such events as late.
	 */
	if (ev->ts > s->cpu_max[ev->cpu])
		s->cpu_max[ev->cpu] = ev->ts;
	s->last_ts = ev->ts;
	s->n++;
	analyzer_feed(s->an[0], ev);
	analyzer_feed(s->an[1], ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_req req = { 0 };
	struct replay_info info;
	struct backend *b = NULL;
	struct seen s = { 0 };
	uint64_t lost[64];
	char path[64], err[BACKEND_ERRLEN];
	uint8_t *stored = NULL;
	size_t off = 0;
	int fd, ret;
	bool mono;

	fd = memfd_create("fuzz_tdat", MFD_CLOEXEC);
	if (fd < 0)
		die("memfd_create");
	if (size >= 4 && !memcmp(data, "OFZS", 4)) {
		stored = malloc(size - 4 ? size - 4 : 1);
		if (!stored)
			die("out of memory");
		memcpy(stored, data + 4, size - 4);
		size -= 4;
		unstore(stored, size);
		data = stored;
	}
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0)
			die("write to the memfd");
		off += (size_t)n;
	}
	/* FUZZ_TDAT_DUMP=FILE: the bytes the reader gets (stored mode: compressed) */
	if (getenv("FUZZ_TDAT_DUMP")) {
		FILE *f = fopen(getenv("FUZZ_TDAT_DUMP"), "wb");

		if (!f || fwrite(data, 1, size, f) != size || fclose(f))
			die("FUZZ_TDAT_DUMP: cannot write it");
	}
	free(stored);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	req.replay_path = path;
	err[0] = '\0';
	ret = READER.open(&b, &req, err, sizeof(err));
	if (ret > 0)
		die("open returned a positive value");
	if (ret < 0) {
		if (!err[0] || strchr(err, '\n'))
			die("open failed without a one-line message");
		goto out;
	}
	if (READER_INFO(b, &info))
		die("replay_info failed on an open recording");
	s.ncpu = info.ncpu;
	s.cpu_max = calloc(info.ncpu ? info.ncpu : 1, sizeof(*s.cpu_max));
	if (!s.cpu_max)
		die("out of memory");
	if (READER.lost(b, lost, 64) > info.ncpu)
		die("lost() reports more CPUs than the file has");
	(void)READER.clock(b, &mono);
	(void)READER.events(b);
	if (an_open(&s.an[0], READER.states(b), true) ||
	    an_open(&s.an[1], READER.states(b), false))
		die("out of memory");
	if (READER.start(b))
		die("start failed");
	/* two reads as a live run does them, then the drain */
	if (READER.read(b, info.window_start_ns + (info.window_end_ns -
			info.window_start_ns) / 2, false, on_ev, &s) == 0)
		(void)READER.read(b, UINT64_MAX, true, on_ev, &s);
	{
		uint64_t before = s.n;

		(void)READER.read(b, UINT64_MAX, true, on_ev, &s);
		if (s.n != before)
			die("a second drain yielded events");
	}
	if (READER.stop(b))
		die("stop failed");
	analyzer_finish(s.an[0]);
	analyzer_finish(s.an[1]);
	stackagg_sort(&s.an[0]->agg);	/* as the stack output does */
	{
		char name[128];

		(void)READER.kframe(b, 0xffffffff81000000ull, name, sizeof(name));
	}
out:
	for (unsigned i = 0; i < 2; i++) {
		if (s.an[i])
			analyzer_fini(s.an[i]);
		free(s.an[i]);
	}
	analyzer_groups_fini(&own);
	free(s.cpu_max);
	if (b && READER.close(b, err, sizeof(err)))
		die("close failed");
	close(fd);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "standalone.h"
#endif
