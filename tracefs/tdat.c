// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace.dat structure checks against the file size, before libtracecmd
 * reads it: tdat_scan() walks the file (tdatrd.c reads it bounded,
 * tdatpart.c checks the metadata parts, tdatsec.c the options and the
 * sections), and the accessors here answer from what it collected.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grow.h"
#include "recmeta.h"
#include "tdat.h"
#include "tdat_local.h"

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
	t->raw_max = t->file_size * TDAT_RAW_RATIO + TDAT_RAW_SLACK;
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

/* CPU @cpu's stats text, [*@s, *@e); false when the file has none. */
static bool cpustat_of(const struct tdat *t, unsigned cpu, const char **s, const char **e)
{
	char head[32];
	const char *p, *end;
	size_t n;

	if (!t->cpustats)
		return false;
	n = (size_t)snprintf(head, sizeof(head), "CPU: %u\n", cpu);
	for (p = t->cpustats; (p = strstr(p, head)); p += n) {
		if (p != t->cpustats && p[-1] != '\n')
			continue;
		end = strstr(p + n, "CPU: ");
		*s = p;
		*e = end ? end : p + strlen(p);
		return true;
	}
	return false;
}

uint64_t tdat_cpustat_lost(const struct tdat *t, unsigned cpu)
{
	const char *p, *end;

	if (!cpustat_of(t, cpu, &p, &end))
		return 0;
	/* what ring_lost() counts from the same file */
	return stat_num(p, end, "overrun: ") + stat_num(p, end, "commit overrun: ") +
	       stat_num(p, end, "dropped events: ");
}

uint64_t tdat_cpu_end_ns(const struct tdat *t, unsigned cpu)
{
	const char *p, *end, *v;
	unsigned long long sec, usec;
	char tail;

	if (!cpustat_of(t, cpu, &p, &end))
		return UINT64_MAX;
	for (v = p; v && v < end; v = strchr(v, '\n'), v = v ? v + 1 : NULL)
		if (!strncmp(v, "now ts:", 7))
			break;
	/* "now ts: %5llu.%06lu" for a clock in ns; a bare count otherwise */
	if (!v || v >= end || sscanf(v + 7, "%llu.%6llu%c", &sec, &usec, &tail) != 3 ||
	    tail != '\n' || sec > UINT64_MAX / 1000000000ull - 2)
		return UINT64_MAX;
	return (sec + 1) * 1000000000ull + (usec + 1) * 1000ull;
}

int tdat_meta_get(const struct tdat *t, const char *key, char *buf, size_t len)
{
	return recmeta_get(t->offcpu, key, buf, len);
}

const char *tdat_cgroups(const struct tdat *t)
{
	return recmeta_cgroups(t->offcpu);
}

void tdat_lost(const struct tdat *t, uint64_t *lost, unsigned ncpu)
{
	unsigned cpu;

	if (recmeta_lost(t->offcpu, lost, ncpu) >= 0)
		return;
	for (cpu = 0; cpu < ncpu; cpu++) {
		uint64_t n = tdat_cpustat_lost(t, cpu);

		if (n > lost[cpu])
			lost[cpu] = n;
	}
}

void tdat_clock_window(const struct tdat *t, char *clock, size_t len, uint64_t *start,
		       uint64_t *end)
{
	uint64_t s, e;

	if (recmeta_get(t->offcpu, "clock", clock, len) || !clock_name_ok(clock, strlen(clock)))
		snprintf(clock, len, "%s", t->clock[0] ? t->clock : "unknown");
	if (recmeta_u64(t->offcpu, "window_start_ns", UINT64_MAX, &s) == 0 &&
	    recmeta_u64(t->offcpu, "window_end_ns", UINT64_MAX, &e) == 0 && e > s) {
		*start = s;
		*end = e;
	}
}

void tdat_scope(const struct tdat *t, struct rec_scope *s)
{
	recmeta_scope(t->offcpu, s);
}

int tdat_switches(const struct tdat *t)
{
	struct rec_scope s;
	int sw = recmeta_switches(t->offcpu);

	if (sw >= 0)
		return sw;
	/* a recording from before cpu_switches=: a filtered scope held its threads' only */
	recmeta_scope(t->offcpu, &s);
	return !s.kind[0] || !strcmp(s.kind, "all") ? BK_SW_LOSSY : BK_SW_SELECTED;
}

unsigned tdat_proc_idle(const struct tdat *t, uint64_t *ns, bool *listed, unsigned max)
{
	return recmeta_proc_idle(t->offcpu, ns, listed, max);
}

static int cmp_tgid(const void *a, const void *b)
{
	const struct tdat_tgid *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

struct tgid_fill {
	struct tdat *t;
	size_t cap;
	bool full;
};

static void add_tgid(int32_t tid, int32_t tgid, void *arg)
{
	struct tgid_fill *g = arg;
	struct tdat_tgid *nv;

	if (g->full)
		return;
	nv = mem_grow_from(g->t->tgids, &g->cap, g->t->ntgids, sizeof(*nv), 256);
	if (!nv) {
		g->full = true;
		return;
	}
	g->t->tgids = nv;
	g->t->tgids[g->t->ntgids].tid = tid;
	g->t->tgids[g->t->ntgids++].tgid = tgid;
}

/* "saved_tgids:" after the keys: "TID TGID" lines, as the kernel prints them */
static void parse_tgids(struct tdat *t)
{
	struct tgid_fill g = { t, 0, false };

	t->tgids_parsed = true;
	recmeta_tgids(t->offcpu, add_tgid, &g);
	if (t->ntgids)	/* qsort of NULL, 0: undefined */
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
