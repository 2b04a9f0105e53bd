// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The file backend's reader through libtracecmd (recshell.c is the
 * backend around it): libtracecmd reads the records and parses the
 * formats stored in the file; the layout the decoder needs is taken from
 * its parsed events (fmt_tep.c).
 *
 * libtracecmd trusts the file: it mmaps CPU data by the offsets in the
 * headers (a truncated file would SIGBUS) and walks pages with kbuffer,
 * which loops on some corrupt record headers. So before it sees the file,
 * tdat_scan() checks the structure against the file size (compressed
 * sections once decompressed too), and every page, compressed or not, is
 * checked with page_cursor_load().
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
#include "recshell.h"
#include "tdat.h"
#include "tdatz.h"

/* libtracecmd's reading of the file (struct rec_reader, recshell.h). */
struct rec_streams {
	struct rec_file *f;
	struct tracecmd_input *h;
	bool h_unclosable;		/* see init_data() */
	struct rcpu {
		struct tep_record *rec;	/* the record handed out last */
		bool started;		/* read since the rewind: next is read_data */
	} *cpu;
	uint64_t *checked;		/* per CPU: records the page checks counted */
	uint64_t at;			/* the first pass: the CPU's last record's offset */
};

/*
 * Every page of the CPU data (compressed chunks decompressed), as the ring
 * backend checks what the kernel hands it, before libtracecmd's kbuffer
 * walks them; counts records and missed events per CPU.
 */
static int check_pages(struct rec_streams *s, uint64_t *count, char *err, size_t errlen)
{
	struct rec_file *f = s->f;
	const struct tdat *t = &f->dat;
	struct tdat_pages pages = { 0 };
	struct page_cursor c;
	void *page;
	unsigned cpu;
	int ret;

	page = malloc(t->page_size);
	if (!page)
		return errf(err, errlen, -ENOMEM, "%s", f->path);
	ret = page_cursor_init(&c, &f->layout);
	if (ret) {
		free(page);
		return errf(err, errlen, ret, "%s", f->path);
	}
	for (cpu = 0; cpu < f->ncpu && !ret; cpu++) {
		size_t len;
		int more, missed;

		ret = tdat_pages_start(&pages, t, f->fd, cpu);
		while (!ret && (more = tdat_pages_next(&pages, page, &len)) > 0) {
			missed = page_cursor_load(&c, &f->layout, page, len);
			if (missed == -EINVAL) {
				snprintf(err, errlen, "cannot read %s: offset %" PRIu64 ": corrupt "
					 "ring-buffer page (CPU %u)", f->path, pages.page_off, cpu);
				ret = -EINVAL;
				break;
			}
			if (missed)
				f->lost[cpu] += missed > 0 ? (uint64_t)missed : 1;
			for (; c.rec; page_cursor_next(&c))
				count[cpu]++;
		}
		if (!ret && more < 0)
			ret = more;
		if (ret && ret != -EINVAL)
			errf(err, errlen, ret, "cannot read %s at offset %" PRIu64, f->path,
			     pages.page_off);
	}
	tdat_pages_fini(&pages);
	page_cursor_fini(&c);
	free(page);
	return ret;
}

/*
 * tracecmd_init_data(), without its stderr: on a chunk that does not
 * decompress it perror()s "mmap" before failing, and we say it in one
 * line. After a failure libtracecmd 3.1.6 cannot close the handle (the
 * CPUs it did not reach have no list heads: tracecmd_close() follows a
 * NULL), so it is left open: a leak on a path that ends the command.
 */
static int init_data(struct rec_streams *s)
{
	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int ret;

	fflush(stderr);
	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	ret = tracecmd_init_data(s->h);
	fflush(stderr);
	if (saved >= 0 && null >= 0)
		dup2(saved, STDERR_FILENO);
	if (saved >= 0)
		close(saved);
	if (null >= 0)
		close(null);
	if (ret < 0)
		s->h_unclosable = true;
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
 * The last line the libraries wrote to @fd (the probe's stderr, its writer
 * gone) into @said, "" when none: their reason for a refusal, quoted after
 * ours, never printed as it came ("mmap: Unknown error -22").
 */
static void last_said(int fd, char *said, size_t len)
{
	char buf[2048], *end, *line;
	ssize_t n;
	size_t k;

	said[0] = '\0';
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (end = buf + n; end > buf && (end[-1] == '\n' || end[-1] == ' '); end--)
		*(end - 1) = '\0';
	line = strrchr(buf, '\n');
	line = line ? line + 1 : buf;
	k = strlen(line) < len - 1 ? strlen(line) : len - 1;
	memcpy(said, line, k);
	said[k] = '\0';
}

/*
 * What the checks cannot rule out, tried in a child first: libtraceevent
 * 1.7 crashes on some malformed format text (a print fmt dividing by
 * zero, say). A crash there becomes an error here. The child reports
 * through a pipe how far it got, and what the libraries said (their
 * stderr, into a pipe nobody prints) comes back in @said.
 */
static int probe(const struct rec_file *f, const char *open_path, char *said, size_t saidlen,
		 char *err, size_t errlen)
{
	uint64_t start, end;
	int fds[2], msg[2], status;
	char stage = 0;
	pid_t pid;

	said[0] = '\0';
	if (pipe2(fds, O_CLOEXEC) < 0)
		return 0;	/* no probe: read it as it is */
	if (pipe2(msg, O_CLOEXEC | O_NONBLOCK) < 0) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		struct tracecmd_input *h;
		unsigned cpu;

		close(fds[0]);
		close(msg[0]);
		/* what the libraries say is a reason to quote: past the pipe's room, dropped */
		dup2(msg[1], STDERR_FILENO);
		tracecmd_set_loglevel(TEP_LOG_WARNING);
		tep_set_loglevel(TEP_LOG_WARNING);
		/* die of it, even where a sanitizer would catch it and exit */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGFPE, SIG_DFL);
		signal(SIGILL, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		h = tracecmd_open_head(open_path, TRACECMD_FL_LOAD_NO_PLUGINS);
		if (!h || write(fds[1], "h", 1) != 1)
			_exit(1);
		if (f->dat.compressed && tracecmd_init_data(h) == 0) {
			for (cpu = 0; cpu < f->ncpu; cpu++) {
				struct tep_record *rec = tracecmd_read_cpu_first(h, (int)cpu);

				for (; rec; rec = tracecmd_read_data(h, (int)cpu))
					tracecmd_free_record(rec);
			}
		}
		/* nothing of the parent's to flush or free: just go */
		_exit(0);
	}
	close(fds[1]);
	close(msg[1]);
	if (pid < 0) {
		close(fds[0]);
		close(msg[0]);
		return 0;
	}
	while (read(fds[0], &stage, 1) < 0 && errno == EINTR)
		;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			close(msg[0]);
			return 0;
		}
	last_said(msg[0], said, saidlen);
	close(msg[0]);
	if (!WIFSIGNALED(status))
		return 0;
	data_range(&f->dat, &start, &end);
	if (stage == 'h')
		snprintf(err, errlen, "cannot read %s: offsets %" PRIu64 "-%" PRIu64 ": its "
			 "compressed CPU data crashes libtracecmd (signal %d): corrupt?", f->path,
			 start, end, WTERMSIG(status));
	else
		snprintf(err, errlen, "cannot read %s: offsets 0-%" PRIu64 ": its headers "
			 "crash libtraceevent (signal %d): corrupt event formats?", f->path,
			 start, WTERMSIG(status));
	return -EINVAL;
}

/*
 * libtracecmd refused headers our checks passed: where, and its reason
 * (@said: what it wrote in the probe). A zlib recording is one its
 * Debian build cannot decompress, and our own reader can.
 */
static int refused(const struct rec_file *f, const char *said, char *err, size_t errlen)
{
	uint64_t start, end;

	data_range(&f->dat, &start, &end);
	if (!strcmp(f->dat.compression, "zlib")) {
		snprintf(err, errlen, "cannot read %s: it is compressed with zlib, which this "
			 "build's libtracecmd cannot read: only the static build (configure "
			 "--enable-static-binary) reads zlib recordings", f->path);
		return -ENOTSUP;
	}
	snprintf(err, errlen, "cannot read %s: offsets 0-%" PRIu64 ": libtracecmd does not "
		 "accept its headers: %s%s%s", f->path, start, said[0] ? "\"" : "",
		 said[0] ? said : "it gives no reason (they pass our checks)", said[0] ? "\"" : "");
	return -EINVAL;
}

/* The headers through libtracecmd, the pages checked, the data mapped. */
static int tc_open(struct rec_streams **out, struct rec_file *f, char *err, size_t errlen)
{
	struct rec_streams *s = calloc(1, sizeof(*s));
	const char *missing;
	char fdpath[PATH_MAX], said[160];
	int ret;

	*out = s;
	if (s) {
		s->f = f;
		s->cpu = calloc(f->ncpu, sizeof(*s->cpu));
	}
	if (!s || !s->cpu)
		return errf(err, errlen, -ENOMEM, "%s", f->path);

	/* its messages would go to stderr: failures come back to us instead */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	/*
	 * The headers only: the data is mapped by tracecmd_init_data(), after
	 * the pages passed our checks. Through our descriptor's /proc link, so
	 * it is the file we checked even if the name is replaced meanwhile.
	 */
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", f->fd);
	if (access(fdpath, R_OK))
		snprintf(fdpath, sizeof(fdpath), "%s", f->path);
	ret = probe(f, fdpath, said, sizeof(said), err, errlen);
	if (ret)
		return ret;
	s->h = tracecmd_open_head(fdpath, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!s->h)
		return refused(f, said, err, errlen);
	ret = fmt_from_tep(&f->layout, tracecmd_get_tep(s->h), f->dat.page_size, &missing);
	f->layout_ok = true;
	if (ret == -ENOENT) {
		snprintf(err, errlen, "%s has no sched_switch events: record at least "
			 "sched_switch, sched_wakeup and sched_wakeup_new", f->path);
		return ret;
	}
	if (ret) {
		snprintf(err, errlen, "cannot read %s: unexpected format of %s", f->path,
			 missing ? missing : "an event");
		return ret;
	}
	s->checked = calloc(f->ncpu, sizeof(*s->checked));
	if (!s->checked)
		return errf(err, errlen, -ENOMEM, "%s", f->path);
	ret = check_pages(s, s->checked, err, errlen);
	if (!ret && init_data(s) < 0) {
		snprintf(err, errlen, "cannot read %s: libtracecmd cannot %s its CPU data", f->path,
			 f->dat.compressed ? "decompress" : "map");
		ret = -EINVAL;
	}
	return ret;
}

/* The next read of @cpu starts at its first record. */
static int tc_rewind(struct rec_streams *s, unsigned cpu)
{
	struct rcpu *c = &s->cpu[cpu];

	tracecmd_free_record(c->rec);
	c->rec = NULL;
	c->started = false;
	s->at = s->f->dat.cpu[cpu].offset;
	return 0;
}

static int tc_next(struct rec_streams *s, unsigned cpu, struct rec_record *out)
{
	struct rcpu *c = &s->cpu[cpu];
	struct tep_record *rec;

	tracecmd_free_record(c->rec);
	rec = c->started ? tracecmd_read_data(s->h, (int)cpu) :
	      tracecmd_read_cpu_first(s->h, (int)cpu);
	c->rec = rec;
	c->started = true;
	if (!rec)
		return 0;
	s->at = rec->offset;
	out->data = rec->data;
	out->size = (uint32_t)rec->size;
	out->ts = rec->ts;
	return 1;
}

/*
 * That libtracecmd read every record the page checks counted: it says no
 * more for an end and an error alike (a chunk it could not decompress).
 */
static int tc_counted(struct rec_streams *s, unsigned cpu, uint64_t n, int ret, char *err,
		      size_t errlen)
{
	(void)ret;	/* never negative */
	if (n != s->checked[cpu]) {
		snprintf(err, errlen, "cannot read %s: offset %" PRIu64 ": libtracecmd "
			 "read %" PRIu64 " of CPU %u's %" PRIu64 " records", s->f->path, s->at, n,
			 cpu, s->checked[cpu]);
		return -EINVAL;
	}
	return 0;
}

/* From the kallsyms libtracecmd loaded from the file. */
static int tc_kframe(struct rec_streams *s, uint64_t addr, char *buf, size_t len)
{
	unsigned long long start;
	unsigned long size;
	const char *name;

	if (s->h && tep_find_function_info(tracecmd_get_tep(s->h), addr, &name, &start, &size) &&
	    name) {
		snprintf(buf, len, "%s", name);
		return 0;
	}
	snprintf(buf, len, "0x%" PRIx64, addr);
	return -ENOENT;
}

static void tc_close(struct rec_streams *s)
{
	unsigned i;

	if (!s)
		return;
	for (i = 0; s->cpu && i < s->f->ncpu; i++)
		tracecmd_free_record(s->cpu[i].rec);
	if (s->f->layout_ok)
		fmt_tep_fini(&s->f->layout);
	if (s->h && !s->h_unclosable)
		tracecmd_close(s->h);
	free(s->cpu);
	free(s->checked);
	free(s);
}

/* saved_cmdlines as libtraceevent holds it ("<...>" when it has no name) */
static int tc_comm(struct rec_streams *s, int32_t tid, char *buf, size_t len)
{
	const char *c = tep_data_comm_from_pid(tracecmd_get_tep(s->h), tid);

	if (!c || !c[0] || c[0] == '<')
		return -ENOENT;
	snprintf(buf, len, "%s", c);
	return 0;
}

static const struct rec_reader tracecmd_reader = {
	.ts_adjust = true,
	.open = tc_open,
	.rewind = tc_rewind,
	.next = tc_next,
	.counted = tc_counted,
	.kframe = tc_kframe,
	.comm = tc_comm,
	.close = tc_close,
};

static int replay_open(struct backend **b, const struct trace_req *req, char *err, size_t errlen)
{
	return recshell_open(b, req, &tracecmd_reader, err, errlen);
}

const struct backend_ops file_backend_ops = RECSHELL_OPS(replay_open);
