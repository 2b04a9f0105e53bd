// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Decode + analysis throughput on real ring-buffer pages.
 *
 *   decode_bench DIR [MIN_SECONDS [PATH]]
 *
 * DIR holds what bench/decode.sh captured from a private tracefs instance
 * while a workload ran: header_page, sched_{switch,wakeup,wakeup_new}.format
 * and cpuN.raw (the pages read from per_cpu/cpuN/trace_pipe_raw). The
 * pages are loaded into memory once, then walked the way the ring backend
 * does it (page_cursor_load/next, decode_record, the CPUs merged in
 * timestamp order) and fed to analyzer_feed, pass after pass until
 * MIN_SECONDS (default 3) of CPU time are spent; three such trials per
 * path, the median reported. Each pass shifts the
 * timestamps by the capture's span, so the analyzer sees one long
 * time-ordered stream. Single thread; CPU time from CLOCK_PROCESS_CPUTIME_ID.
 *
 * PATH: decode, runq or offcpu to time only that one (for profiling).
 * Prints one "key value" line per result, for bench/decode.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fileread.h"
#include "analyzer.h"
#include "decode.h"
#include "fmt.h"

#define MAX_CPUS 64

struct cpu_pages {
	uint8_t *data;
	size_t npages;
	/* walking state */
	size_t next_page;
	struct page_cursor cur;
	bool live;		/* cur has a record */
};

static struct sched_layout layout;
static struct cpu_pages cpus[MAX_CPUS];
static unsigned ncpu;
static size_t page_size;
static uint64_t first_ts = UINT64_MAX, last_ts;
static uint64_t bad_pages, missed_reports;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *read_all(const char *dir, const char *name, size_t *len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return file_read(path, len);
}

/* A whole (large) file; fmt_read_file stops at 16 MiB. */
static uint8_t *slurp(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	struct stat st;
	uint8_t *buf;
	size_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
}

static int load_layout(const char *dir)
{
	static const char *const evs[] = {
		"sched_switch.format", "sched_wakeup.format",
		"sched_wakeup_new.format", NULL,
	};
	const char *missing = NULL;
	size_t len;
	char *s;
	int i, ret;

	ret = fmt_init(&layout);
	if (ret)
		return ret;
	s = read_all(dir, "header_page", &len);
	if (!s)
		return -errno;
	ret = fmt_header_page(&layout, s, len);
	free(s);
	if (ret)
		return ret;
	for (i = 0; evs[i]; i++) {
		s = read_all(dir, evs[i], &len);
		if (!s)
			continue;	/* sched_wakeup_new may be absent */
		ret = fmt_add_event(&layout, s, len);
		free(s);
		if (ret)
			return ret;
	}
	ret = fmt_resolve(&layout, &missing);
	if (ret)
		fprintf(stderr, "decode_bench: cannot resolve %s\n", missing ? missing : "?");
	return ret;
}

/* Load the CPU's next page that has a record; false at the end. */
static bool cpu_advance_page(struct cpu_pages *c)
{
	while (c->next_page < c->npages) {
		int missed = page_cursor_load(&c->cur, &layout,
					      c->data + c->next_page * page_size, page_size);

		c->next_page++;
		if (missed == -EINVAL) {
			bad_pages++;
			continue;
		}
		if (missed)
			missed_reports++;
		if (c->cur.rec)
			return true;
	}
	return false;
}

static void cpus_rewind(void)
{
	unsigned i;

	for (i = 0; i < ncpu; i++) {
		cpus[i].next_page = 0;
		cpus[i].live = cpu_advance_page(&cpus[i]);
	}
}

static void cpu_next(struct cpu_pages *c)
{
	page_cursor_next(&c->cur);
	if (!c->cur.rec)
		c->live = cpu_advance_page(c);
}

/* The CPU whose current record is the oldest; -1 when all are done. */
static int oldest_cpu(void)
{
	int best = -1;
	unsigned i;

	for (i = 0; i < ncpu; i++)
		if (cpus[i].live && (best < 0 || cpus[i].cur.ts < cpus[best].cur.ts))
			best = (int)i;
	return best;
}

/*
 * One pass over every page: decode, merge, and feed @an (NULL: decode
 * only, CPU by CPU, no merge). Returns the records decoded.
 */
static uint64_t pass(struct analyzer *an, uint64_t ts_shift, uint64_t *sink)
{
	struct sched_event ev;
	uint64_t n = 0;
	int ci;

	cpus_rewind();
	if (!an) {
		unsigned i;

		for (i = 0; i < ncpu; i++) {
			struct cpu_pages *c = &cpus[i];

			for (; c->live; cpu_next(c)) {
				if (decode_record(&layout, c->cur.rec, page_cursor_size(&c->cur),
						  c->cur.ts, (int32_t)i, &ev)) {
					*sink += (uint64_t)ev.pid ^ ev.ts;
					n++;
				}
			}
		}
		return n;
	}
	while ((ci = oldest_cpu()) >= 0) {
		struct cpu_pages *c = &cpus[ci];

		if (decode_record(&layout, c->cur.rec, page_cursor_size(&c->cur),
				  c->cur.ts, ci, &ev)) {
			ev.ts += ts_shift;
			analyzer_feed(an, &ev);
			n++;
		}
		cpu_next(c);
	}
	return n;
}

static int analyzer_setup(struct analyzer *an, unsigned modes)
{
	struct an_cfg c;

	memset(&c, 0, sizeof(c));
	c.modes = modes;
	c.key = KEY_NONE;
	c.unit_ns = 1000;
	c.pid = c.tid = -1;
	c.off_state_all = true;
	c.off_max_ns = UINT64_MAX;
	c.states = layout.states;	/* this kernel's prev_state letters */
	c.max_tasks = 65536;		/* the tool's defaults */
	c.max_groups = 4096;
	c.max_stacks = 65536;
	return analyzer_init(an, &c);
}

#define TRIALS 3

/*
 * Time one path: TRIALS trials of at least @min_s CPU seconds each; prints
 * the median trial's rate (and the slowest and fastest), so a burst of
 * another job on the host moves one trial, not the result.
 */
static void run(const char *name, unsigned modes, double min_s)
{
	static struct analyzer an;	/* large (tgid cache): not on the stack */
	uint64_t span = last_ts - first_ts + 1000000, sink = 0, events = 0;
	double rate[TRIALS], cpu = 0, t0, tmp;
	unsigned trial, passes = 0, i, j;

	for (trial = 0; trial < TRIALS; trial++) {
		uint64_t n = 0;
		unsigned p = 0;
		double dt;

		if (modes && analyzer_setup(&an, modes)) {
			fprintf(stderr, "decode_bench: analyzer_init failed\n");
			exit(1);
		}
		t0 = cpu_now();
		do {
			n += pass(modes ? &an : NULL, span * p, &sink);
			p++;
			dt = cpu_now() - t0;
		} while (dt < min_s);
		rate[trial] = (double)n / dt;
		events += n;
		passes += p;
		cpu += dt;
		if (modes) {
			analyzer_finish(&an);
			if (trial == TRIALS - 1)
				printf("%s_late %" PRIu64 "\n%s_missed_switch %" PRIu64 "\n"
				       "%s_state_overflow %" PRIu64 "\n", name, an.counts.late,
				       name, an.counts.missed_switch, name,
				       an.counts.state_overflow);
			analyzer_fini(&an);
		}
	}
	for (i = 1; i < TRIALS; i++)
		for (j = i; j > 0 && rate[j - 1] > rate[j]; j--) {
			tmp = rate[j];
			rate[j] = rate[j - 1];
			rate[j - 1] = tmp;
		}
	printf("%s_events %" PRIu64 "\n%s_passes %u\n%s_cpu_s %.6f\n"
	       "%s_events_per_s %.0f\n%s_events_per_s_min %.0f\n%s_events_per_s_max %.0f\n"
	       "%s_ns_per_event %.2f\n", name, events, name, passes, name, cpu,
	       name, rate[TRIALS / 2], name, rate[0], name, rate[TRIALS - 1],
	       name, 1e9 / rate[TRIALS / 2]);
	if (!modes)
		printf("%s_sink %" PRIu64 "\n", name, sink & 1);
}

int main(int argc, char **argv)
{
	double min_s = argc > 2 ? atof(argv[2]) : 3.0;
	const char *only = argc > 3 ? argv[3] : NULL;
	uint64_t records = 0, sink = 0;
	size_t total = 0;
	unsigned i;

	if (argc < 2) {
		fprintf(stderr, "usage: decode_bench DIR [MIN_SECONDS [decode|runq|offcpu]]\n");
		return 2;
	}
	if (load_layout(argv[1])) {
		fprintf(stderr, "decode_bench: cannot load the formats in %s\n", argv[1]);
		return 1;
	}
	page_size = layout.page_size;
	for (ncpu = 0; ncpu < MAX_CPUS; ncpu++) {
		char name[32];
		size_t len;
		uint8_t *raw;

		snprintf(name, sizeof(name), "cpu%u.raw", ncpu);
		raw = slurp(argv[1], name, &len);
		if (!raw)
			break;
		cpus[ncpu].data = raw;
		cpus[ncpu].npages = len / page_size;
		total += cpus[ncpu].npages;
		if (page_cursor_init(&cpus[ncpu].cur, &layout)) {
			fprintf(stderr, "decode_bench: page_cursor_init failed\n");
			return 1;
		}
	}
	if (!ncpu || !total) {
		fprintf(stderr, "decode_bench: no cpuN.raw pages in %s\n", argv[1]);
		return 1;
	}
	/* the capture's time span, for shifting later passes */
	cpus_rewind();
	for (i = 0; i < ncpu; i++) {
		struct cpu_pages *c = &cpus[i];
		struct sched_event ev;

		for (; c->live; cpu_next(c)) {
			if (!decode_record(&layout, c->cur.rec, page_cursor_size(&c->cur),
					   c->cur.ts, (int32_t)i, &ev))
				continue;
			records++;
			sink += ev.ts;
			if (ev.ts < first_ts)
				first_ts = ev.ts;
			if (ev.ts > last_ts)
				last_ts = ev.ts;
		}
	}
	printf("cpus %u\npages %zu\npage_size %zu\nrecords %" PRIu64 "\nspan_s %.3f\n"
	       "bad_pages %" PRIu64 "\npages_reporting_missed %" PRIu64 "\n",
	       ncpu, total, page_size, records, (double)(last_ts - first_ts) / 1e9,
	       bad_pages, missed_reports);
	if (!records) {
		fprintf(stderr, "decode_bench: no sched records in the pages\n");
		return 1;
	}
	if (!only || !strcmp(only, "decode"))
		run("decode", 0, min_s);
	if (!only || !strcmp(only, "runq"))
		run("runq", AN_RUNQ, min_s);
	if (!only || !strcmp(only, "offcpu"))
		run("offcpu", AN_OFFCPU, min_s);
	for (i = 0; i < ncpu; i++) {
		page_cursor_fini(&cpus[i].cur);
		free(cpus[i].data);
	}
	fmt_fini(&layout);
	return (int)(sink & 0);
}
