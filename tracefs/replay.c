// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The file backend: a recording (a trace-cmd trace.dat, ours or one from
 * `trace-cmd record` elsewhere) read back as if traced now. libtracecmd
 * reads the records and parses the formats stored in the file; the layout
 * the decoder needs is taken from its parsed events (fmt_tep.c), and every
 * record goes through decode_record() as in the ring backend, merged
 * across CPUs in timestamp order.
 *
 * libtracecmd trusts the file: it mmaps CPU data by the offsets in the
 * headers (a truncated file would SIGBUS) and walks pages with kbuffer,
 * which loops on some corrupt record headers. So before it sees the file,
 * tdat_scan() checks the structure against the file size, and (when the
 * data is not compressed) every page is checked with page_cursor_load().
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "errf.h"
#include "fileread.h"
#include "backend.h"
#include "tracefs_backends.h"
#include "decode.h"
#include "fmt_tep.h"
#include "recfile.h"
#include "tdat.h"
#include "tsheap.h"

struct backend {
	char path[PATH_MAX];
	int fd;				/* the checks read it; libtracecmd reopens it */
	struct tdat dat;
	struct tracecmd_input *h;
	bool h_unclosable;		/* see init_data() */
	struct sched_layout layout;
	bool layout_ok;
	unsigned ncpu;
	struct tep_record **next;	/* per CPU: the record to feed next */
	uint64_t *next_ts;
	struct tsheap heap;
	bool primed;			/* next[] loaded */
	uint64_t *lost;			/* per CPU */
	uint64_t records;
	unsigned seen;			/* 1 << SEV_x of records in the file */
	char clock[32];
	bool from_offcpu;
	uint64_t window_start, window_end;
	uint64_t frames[STACK_MAX_DEPTH];
};

/*
 * Every page of the uncompressed CPU data, as the ring backend checks
 * what the kernel hands it; counts records and missed events per CPU.
 */
static int check_pages(struct backend *b, uint64_t *count, char *err, size_t errlen)
{
	const struct tdat *t = &b->dat;
	struct page_cursor c;
	void *page;
	unsigned cpu;
	int ret;

	page = malloc(t->page_size);
	if (!page)
		return errf(err, errlen, -ENOMEM, "%s", b->path);
	ret = page_cursor_init(&c, &b->layout);
	if (ret) {
		free(page);
		return errf(err, errlen, ret, "%s", b->path);
	}
	for (cpu = 0; cpu < b->ncpu && !ret; cpu++) {
		uint64_t off = t->cpu[cpu].offset, end = off + t->cpu[cpu].size;

		for (; off < end; off += t->page_size) {
			size_t len = end - off < t->page_size ? (size_t)(end - off) : t->page_size;
			int missed;

			memset(page, 0, t->page_size);
			ret = file_pread_all(b->fd, page, len, off);
			if (ret) {
				errf(err, errlen, ret, "cannot read %s at offset %" PRIu64, b->path,
				     off);
				break;
			}
			missed = page_cursor_load(&c, &b->layout, page, len);
			if (missed == -EINVAL) {
				snprintf(err, errlen, "cannot read %s: offset %" PRIu64 ": corrupt "
					 "ring-buffer page (CPU %u)", b->path, off, cpu);
				ret = -EINVAL;
				break;
			}
			if (missed)
				b->lost[cpu] += missed > 0 ? (uint64_t)missed : 1;
			for (; c.rec; page_cursor_next(&c))
				count[cpu]++;
		}
	}
	page_cursor_fini(&c);
	free(page);
	return ret;
}

/*
 * One pass through libtracecmd: what the file holds (types, the first and
 * last timestamps) and, for checked pages, that it reads them all.
 */
static int count_records(struct backend *b, const uint64_t *checked, char *err,
			 size_t errlen)
{
	uint64_t first = UINT64_MAX, last = 0;
	unsigned cpu;

	for (cpu = 0; cpu < b->ncpu; cpu++) {
		struct tep_record *rec = tracecmd_read_cpu_first(b->h, (int)cpu);
		uint64_t n = 0, at = b->dat.cpu[cpu].offset, missed = 0;

		for (; rec; rec = tracecmd_read_data(b->h, (int)cpu)) {
			struct sched_event ev;
			unsigned t = decode_record(&b->layout, rec->data, (uint32_t)rec->size,
						   rec->ts, (int32_t)cpu, &ev);

			if (t)
				b->seen |= 1u << t;
			if (rec->ts < first)
				first = rec->ts;
			if (rec->ts > last)
				last = rec->ts;
			if (rec->missed_events)
				missed += rec->missed_events > 0 ? (uint64_t)rec->missed_events : 1;
			at = rec->offset;
			n++;
			tracecmd_free_record(rec);
		}
		if (checked && n != checked[cpu]) {
			snprintf(err, errlen, "cannot read %s: offset %" PRIu64 ": libtracecmd "
				 "read %" PRIu64 " of CPU %u's %" PRIu64 " records", b->path, at, n,
				 cpu, checked[cpu]);
			return -EINVAL;
		}
		/* the page checks saw the same; counted here when they could not run */
		if (!checked)
			b->lost[cpu] += missed;
		b->records += n;
	}
	b->window_start = first == UINT64_MAX ? 0 : first;
	b->window_end = last;
	return 0;
}

/*
 * tracecmd_init_data(), without its stderr: on a chunk that does not
 * decompress it perror()s "mmap" before failing, and we say it in one
 * line. After a failure libtracecmd 3.1.6 cannot close the handle (the
 * CPUs it did not reach have no list heads: tracecmd_close() follows a
 * NULL), so it is left open: a leak on a path that ends the command.
 */
static int init_data(struct backend *b)
{
	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int ret;

	fflush(stderr);
	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	ret = tracecmd_init_data(b->h);
	fflush(stderr);
	if (saved >= 0 && null >= 0)
		dup2(saved, STDERR_FILENO);
	if (saved >= 0)
		close(saved);
	if (null >= 0)
		close(null);
	if (ret < 0)
		b->h_unclosable = true;
	return ret;
}

/* The offsets CPU data starts and ends at: where the headers stop. */
static void data_range(const struct tdat *t, uint64_t *start, uint64_t *end)
{
	unsigned i;

	*start = t->file_size;
	*end = 0;
	for (i = 0; i < t->ncpu; i++) {
		if (!t->cpu[i].size)
			continue;
		if (t->cpu[i].offset < *start)
			*start = t->cpu[i].offset;
		if (t->cpu[i].offset + t->cpu[i].size > *end)
			*end = t->cpu[i].offset + t->cpu[i].size;
	}
	if (*start > *end)
		*start = *end = t->file_size;
}

/*
 * What the checks cannot rule out, tried in a child first: libtraceevent
 * 1.7 crashes on some malformed format text (a print fmt dividing by
 * zero, say), and compressed pages reach kbuffer unchecked. A crash there
 * becomes an error here. The child reports through a pipe how far it got.
 */
static int probe(struct backend *b, const char *open_path, char *err, size_t errlen)
{
	uint64_t start, end;
	int fds[2], status;
	char stage = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return 0;	/* no probe: read it as it is */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		struct tracecmd_input *h;
		unsigned cpu;

		close(fds[0]);
		/* die of it, even where a sanitizer would catch it and exit */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGFPE, SIG_DFL);
		signal(SIGILL, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		h = tracecmd_open_head(open_path, TRACECMD_FL_LOAD_NO_PLUGINS);
		if (!h || write(fds[1], "h", 1) != 1)
			_exit(1);
		if (b->dat.compressed && tracecmd_init_data(h) == 0) {
			for (cpu = 0; cpu < b->ncpu; cpu++) {
				struct tep_record *rec = tracecmd_read_cpu_first(h, (int)cpu);

				for (; rec; rec = tracecmd_read_data(h, (int)cpu))
					tracecmd_free_record(rec);
			}
		}
		/* nothing of the parent's to flush or free: just go */
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return 0;
	}
	while (read(fds[0], &stage, 1) < 0 && errno == EINTR)
		;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	if (!WIFSIGNALED(status))
		return 0;
	data_range(&b->dat, &start, &end);
	if (stage == 'h')
		snprintf(err, errlen, "cannot read %s: offsets %" PRIu64 "-%" PRIu64 ": its "
			 "compressed CPU data crashes libtracecmd (signal %d): corrupt?", b->path,
			 start, end, WTERMSIG(status));
	else
		snprintf(err, errlen, "cannot read %s: offsets 0-%" PRIu64 ": its headers "
			 "crash libtraceevent (signal %d): corrupt event formats?", b->path,
			 start, WTERMSIG(status));
	return -EINVAL;
}

static int replay_open(struct backend **out, const struct trace_req *req, char *err,
		     size_t errlen)
{
	struct backend *b = calloc(1, sizeof(*b));
	uint64_t *checked = NULL;
	const char *missing;
	char fdpath[PATH_MAX];
	struct stat st;
	int ret;

	*out = b;
	if (!b)
		return errf(err, errlen, -ENOMEM, "%s", "file backend");
	b->fd = -1;
	if (!req->replay_path || !*req->replay_path) {
		snprintf(err, errlen, "no recording to read: give a trace.dat file");
		return -EINVAL;
	}
	snprintf(b->path, sizeof(b->path), "%s", req->replay_path);
	b->fd = open(b->path, O_RDONLY | O_CLOEXEC);
	if (b->fd < 0)
		return errf(err, errlen, -errno, "cannot open %s", b->path);
	if (fstat(b->fd, &st) < 0)
		return errf(err, errlen, -errno, "cannot open %s", b->path);
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "cannot read %s: not a regular file", b->path);
		return -EINVAL;
	}
	{
		char why[200];

		ret = tdat_scan(&b->dat, b->fd, why, sizeof(why));
		if (ret == -ENOMEM)
			return errf(err, errlen, ret, "cannot read %s", b->path);
		if (ret) {
			snprintf(err, errlen, "cannot read %s: %s", b->path, why);
			return ret;
		}
	}
	b->ncpu = b->dat.ncpu;
	if (!b->ncpu) {
		snprintf(err, errlen, "cannot read %s: it holds no CPU data", b->path);
		return -EINVAL;
	}
	b->next = calloc(b->ncpu, sizeof(*b->next));
	b->next_ts = calloc(b->ncpu, sizeof(*b->next_ts));
	b->heap.v = calloc(b->ncpu, sizeof(*b->heap.v));
	b->lost = calloc(b->ncpu, sizeof(*b->lost));
	if (!b->next || !b->next_ts || !b->heap.v || !b->lost)
		return errf(err, errlen, -ENOMEM, "%s", b->path);
	b->heap.key = b->next_ts;

	/* its messages would go to stderr: failures come back to us instead */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	/*
	 * The headers only: the data is mapped by tracecmd_init_data(), after
	 * the pages passed our checks. Through our descriptor's /proc link, so
	 * it is the file we checked even if the name is replaced meanwhile.
	 */
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", b->fd);
	if (access(fdpath, R_OK))
		snprintf(fdpath, sizeof(fdpath), "%s", b->path);
	ret = probe(b, fdpath, err, errlen);
	if (ret)
		return ret;
	b->h = tracecmd_open_head(fdpath, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!b->h) {
		snprintf(err, errlen, "cannot read %s: libtracecmd does not accept its "
			 "headers", b->path);
		return -EINVAL;
	}
	ret = fmt_from_tep(&b->layout, tracecmd_get_tep(b->h), b->dat.page_size, &missing);
	b->layout_ok = true;
	if (ret == -ENOENT) {
		snprintf(err, errlen, "%s has no sched_switch events: record at least "
			 "sched_switch, sched_wakeup and sched_wakeup_new", b->path);
		return ret;
	}
	if (ret) {
		snprintf(err, errlen, "cannot read %s: unexpected format of %s", b->path,
			 missing ? missing : "an event");
		return ret;
	}
	if (!b->dat.compressed) {
		checked = calloc(b->ncpu, sizeof(*checked));
		if (!checked)
			return errf(err, errlen, -ENOMEM, "%s", b->path);
		ret = check_pages(b, checked, err, errlen);
	}
	if (!ret && init_data(b) < 0) {
		snprintf(err, errlen, "cannot read %s: libtracecmd cannot %s its CPU data", b->path,
			 b->dat.compressed ? "decompress" : "map");
		ret = -EINVAL;
	}
	if (!ret)
		ret = count_records(b, checked, err, errlen);
	free(checked);
	if (ret)
		return ret;
	tdat_lost(&b->dat, b->lost, b->ncpu);

	b->from_offcpu = b->dat.offcpu != NULL;
	tdat_clock_window(&b->dat, b->clock, sizeof(b->clock), &b->window_start,
			  &b->window_end);
	return 0;
}

static int replay_nop(struct backend *b)
{
	(void)b;
	return 0;
}

static int replay_wait(struct backend *b, int timeout_ms)
{
	(void)b;
	(void)timeout_ms;
	return 0;
}

/* Everything up to @limit, in time order; the rest stays for the next call. */
static int replay_read(struct backend *b, uint64_t limit, bool drain, sched_ev_cb cb, void *arg)
{
	unsigned cpu;

	(void)drain;	/* nothing arrives later: every read is a drain */
	if (!b->primed) {
		for (cpu = 0; cpu < b->ncpu; cpu++) {
			b->next[cpu] = tracecmd_read_cpu_first(b->h, (int)cpu);
			if (b->next[cpu]) {
				b->next_ts[cpu] = b->next[cpu]->ts;
				tsheap_push(&b->heap, cpu);
			}
		}
		b->primed = true;
	}
	while (b->heap.n) {
		unsigned ci = b->heap.v[0];
		struct tep_record *rec = b->next[ci];
		struct sched_event ev;

		if (rec->ts > limit)
			return 0;
		switch (decode_record(&b->layout, rec->data, (uint32_t)rec->size, rec->ts,
				      (int32_t)ci, &ev)) {
		case 0:
			break;
		case SEV_KSTACK:
		case SEV_USTACK:
			decode_stack(&b->layout, rec->data, (uint32_t)rec->size, &ev, b->frames);
			/* fall through */
		default:
			cb(&ev, arg);
		}
		tracecmd_free_record(rec);
		b->next[ci] = tracecmd_read_data(b->h, (int)ci);
		if (!b->next[ci]) {
			tsheap_pop(&b->heap);
			continue;
		}
		b->next_ts[ci] = b->next[ci]->ts;
		tsheap_fix_top(&b->heap);
	}
	return 0;
}

static const char *replay_clock(struct backend *b, bool *is_mono)
{
	if (is_mono)
		*is_mono = !strcmp(b->clock, "mono");
	return b->clock;
}

static unsigned replay_lost(struct backend *b, uint64_t *lost, unsigned max)
{
	unsigned i, n = b->ncpu < max ? b->ncpu : max;

	for (i = 0; i < n; i++)
		lost[i] = b->lost[i];
	return n;
}

static const struct sched_states *replay_states(struct backend *b)
{
	return &b->layout.states;
}

static unsigned replay_events(struct backend *b)
{
	return b->layout_ok ? fmt_recorded_events(&b->layout, b->seen) : 0;
}

static int replay_close(struct backend *b, char *err, size_t errlen)
{
	unsigned i;

	(void)err;
	(void)errlen;
	if (!b)
		return 0;
	for (i = 0; b->next && i < b->ncpu; i++)
		tracecmd_free_record(b->next[i]);
	if (b->layout_ok)
		fmt_tep_fini(&b->layout);
	if (b->h && !b->h_unclosable)
		tracecmd_close(b->h);
	tdat_free(&b->dat);
	if (b->fd >= 0)
		close(b->fd);
	free(b->next);
	free(b->next_ts);
	free(b->heap.v);
	free(b->lost);
	free(b);
	return 0;
}

int replay_info(struct backend *b, struct replay_info *out)
{
	memset(out, 0, sizeof(*out));
	if (!b || !b->h)
		return -EINVAL;
	out->clock = b->clock;
	out->window_start_ns = b->window_start;
	out->window_end_ns = b->window_end;
	out->from_offcpu = b->from_offcpu;
	out->uname = b->dat.uname;
	out->ncpu = b->ncpu;
	out->file_version = b->dat.version;
	out->compressed = b->dat.compressed;
	out->records = b->records;
	return 0;
}

/* The recorded window, for the command line (the recording op). */
static int replay_recording(struct backend *b, struct backend_window *w)
{
	memset(w, 0, sizeof(*w));
	if (!b || !b->h)
		return -EINVAL;
	w->clock = b->clock;
	w->start_ns = b->window_start;
	w->end_ns = b->window_end;
	w->ncpu = b->ncpu;
	tdat_scope(&b->dat, &w->scope);
	return 0;
}

static int32_t replay_task_tgid(struct backend *b, int32_t tid)
{
	return b ? tdat_tgid(&b->dat, tid) : -2;
}

int replay_ksym_name(struct backend *b, uint64_t addr, char *buf, size_t len)
{
	unsigned long long start;
	unsigned long size;
	const char *name;

	if (b && b->h &&
	    tep_find_function_info(tracecmd_get_tep(b->h), addr, &name, &start, &size) &&
	    name) {
		snprintf(buf, len, "%s", name);
		return 0;
	}
	snprintf(buf, len, "0x%" PRIx64, addr);
	return -ENOENT;
}

const struct backend_ops file_backend_ops = {
	.name = "file",
	.open = replay_open,
	.start = replay_nop,
	.stop = replay_nop,
	.wait = replay_wait,
	.read = replay_read,
	.clock = replay_clock,
	.lost = replay_lost,
	.states = replay_states,
	.events = replay_events,
	/* frames are addresses: named from the recording's kallsyms, not the host's */
	.kframe = replay_ksym_name,
	.recording = replay_recording,
	.task_tgid = replay_task_tgid,
	.close = replay_close,
};
