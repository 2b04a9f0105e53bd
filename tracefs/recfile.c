// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writing a recording: raw pages spooled per arrival, then laid out as a
 * trace-cmd trace.dat version 6 (trace-cmd.dat.v6(5)) at close.
 *
 * libtracecmd's writer (tracecmd_output_*) is not used: Debian's
 * libtracecmd-dev installs only the reader's header (trace-cmd.h), the
 * writer is in trace-cmd-private.h with no ABI promise, and it reads the
 * formats, kallsyms and cmdlines from a tracing directory by itself (and
 * writes /proc/sys/kernel/kptr_restrict around the kallsyms read). Version
 * 6 is documented, has no compression and is read by every trace-cmd and
 * KernelShark since 2010.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "errf.h"
#include "decode.h"
#include "fmt.h"
#include "grow.h"
#include "ksym.h"
#include "fileattr.h"
#include "fileread.h"
#include "recfile.h"
#include "recmeta.h"
#include "tdat.h"

#define MAX_REC_CPUS 8192u
#define MAX_KALLSYMS (512u << 20)

/* The formats a recording carries: ours, when the kernel has them. */
static const struct {
	const char *system, *event;
	bool required;
} formats[] = {
	{ "sched", "sched_switch", true },
	{ "sched", "sched_wakeup", false },
	{ "sched", "sched_wakeup_new", false },
	{ "sched", "sched_waking", false },
	{ "sched", "sched_process_fork", false },	/* -- COMMAND: its family */
	{ "ftrace", "kernel_stack", false },
	{ "ftrace", "user_stack", false },
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

struct recfile {
	char *path;		/* the recording's final name */
	char *tmp;		/* what it is written as until then */
	int fd;			/* tmp */
	int spool;		/* pages in arrival order; unnamed */
	unsigned ncpu;
	size_t page_size;	/* of every page; 0 until the first */
	uint32_t *page_cpu;	/* page i of the spool belongs to this CPU */
	size_t npages, cap;
	int failed;		/* first write error (negative errno) */
	char *tracefs, *instance, *kallsyms, *uname;
	bool no_instance;	/* no per-CPU stats or saved_tgids */
	char *header_page, *header_event;
	size_t header_page_len, header_event_len;
	char *fmt[NFORMATS];	/* NULL: not on this kernel */
	size_t fmt_len[NFORMATS];
	struct sched_layout layout;
	bool layout_ok;
	struct page_cursor check;	/* pages are checked as they come */
	bool check_ok;
	uint64_t bad_pages;		/* malformed: left out */
};

/* A growing byte buffer for the headers. */
struct obuf {
	char *p;
	size_t len, cap;
	int err;
};

static void ob_put(struct obuf *b, const void *data, size_t n)
{
	if (b->err)
		return;
	if (b->len + n > b->cap) {
		/* room up to the last byte */
		char *p = mem_grow_from(b->p, &b->cap, b->len + n - 1, 1, 65536);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

/* Numbers in the file are little-endian (x86-64, the host's order). */
static void ob_u16(struct obuf *b, uint16_t v)
{
	ob_put(b, &v, 2);
}

static void ob_u32(struct obuf *b, uint32_t v)
{
	ob_put(b, &v, 4);
}

static void ob_u64(struct obuf *b, uint64_t v)
{
	ob_put(b, &v, 8);
}

/* An option whose data is @text and its NUL. */
static void ob_text_option(struct obuf *b, uint16_t id, const char *text)
{
	size_t n = strlen(text) + 1;

	ob_u16(b, id);
	ob_u32(b, (uint32_t)n);
	ob_put(b, text, n);
}

static int write_all(int fd, const void *p, size_t n, off_t off)
{
	const char *c = p;

	while (n) {
		ssize_t w = pwrite(fd, c, n, off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		c += w;
		n -= (size_t)w;
		off += w;
	}
	return 0;
}

static char *path_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/%s", a, b);
	return p;
}

/* A file under the tracefs root; NULL with errno when unreadable. */
static char *tfs_slurp(const struct recfile *r, const char *rel, size_t *len)
{
	char *path = path_join(r->tracefs, rel), *s;
	int e;

	if (!path)
		return NULL;
	s = file_read_max(path, 64u << 20, len);
	e = errno;
	free(path);
	errno = e;
	return s;
}

/* A new file next to @path, ".<name>.<random>", that did not exist. */
static int create_tmp(const char *path, char **out)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	size_t n = strlen(path) + 32;
	struct timespec ts;
	unsigned i;
	char *tmp;

	tmp = malloc(n);
	if (!tmp)
		return -ENOMEM;
	for (i = 0; i < 100; i++) {
		int fd;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(tmp, n, "%.*s.%s.%08lx.tmp", (int)dirlen, path, path + dirlen,
			 ((unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16)) + i);
		/* O_EXCL: never an existing file, nor a symlink planted there */
		fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			*out = tmp;
			return fd;
		}
		if (errno != EEXIST) {
			int e = -errno;

			free(tmp);
			return e;
		}
	}
	free(tmp);
	return -EEXIST;
}

/* An unnamed file in @path's directory for the pages. */
static int create_spool(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
	char *tmp = NULL;
	int fd;

	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	free(dir);
	if (fd >= 0)
		return fd;
	/* filesystems without O_TMPFILE: a named file, unlinked at once */
	fd = create_tmp(path, &tmp);
	if (fd < 0)
		return fd;
	unlink(tmp);
	free(tmp);
	return fd;
}

static void recfile_free(struct recfile *r)
{
	unsigned i;

	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	if (r->spool >= 0)
		close(r->spool);
	if (r->check_ok)
		page_cursor_fini(&r->check);
	if (r->layout_ok)
		fmt_fini(&r->layout);
	for (i = 0; i < NFORMATS; i++)
		free(r->fmt[i]);
	free(r->header_page);
	free(r->header_event);
	free(r->page_cpu);
	free(r->tracefs);
	free(r->instance);
	free(r->kallsyms);
	free(r->uname);
	free(r->tmp);
	free(r->path);
	free(r);
}

void recfile_abort(struct recfile *r)
{
	if (!r)
		return;
	if (r->tmp)
		unlink(r->tmp);
	recfile_free(r);
}

static char *dup_or_null(const char *s, bool *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*fail = true;
	return d;
}

/* header_page, header_event and the formats, parsed once to be sure. */
static int load_formats(struct recfile *r, char *err, size_t errlen)
{
	const char *missing;
	char rel[128];
	unsigned i;
	int ret;

	r->header_page = tfs_slurp(r, "events/header_page", &r->header_page_len);
	if (!r->header_page)
		return errf(err, errlen, -errno, "cannot read %s/events/header_page", r->tracefs);
	r->header_event = tfs_slurp(r, "events/header_event", &r->header_event_len);
	if (!r->header_event)
		return errf(err, errlen, -errno, "cannot read %s/events/header_event",
			    r->tracefs);
	ret = fmt_init(&r->layout);
	if (ret)
		return errf(err, errlen, ret, "%s", "libtraceevent");
	r->layout_ok = true;
	if (fmt_header_page(&r->layout, r->header_page, r->header_page_len)) {
		snprintf(err, errlen, "cannot parse %s/events/header_page", r->tracefs);
		return -EINVAL;
	}
	for (i = 0; i < NFORMATS; i++) {
		snprintf(rel, sizeof(rel), "events/%s/%s/format", formats[i].system,
			 formats[i].event);
		r->fmt[i] = tfs_slurp(r, rel, &r->fmt_len[i]);
		if (!r->fmt[i]) {
			if (errno == ENOENT && !formats[i].required)
				continue;
			return errf(err, errlen, -errno, "cannot read %s/%s", r->tracefs, rel);
		}
		if (fmt_add_event(&r->layout, r->fmt[i], r->fmt_len[i])) {
			snprintf(err, errlen, "cannot parse %s/%s", r->tracefs, rel);
			return -EINVAL;
		}
	}
	ret = fmt_resolve(&r->layout, &missing);
	if (ret) {
		snprintf(err, errlen, "unexpected format of %s in %s", missing, r->tracefs);
		return ret;
	}
	ret = page_cursor_init(&r->check, &r->layout);
	if (ret)
		return errf(err, errlen, ret, "%s", "libtraceevent");
	r->check_ok = true;
	return 0;
}

int recfile_open_src(struct recfile **out, const char *path, const struct recfile_src *src,
		     unsigned ncpu, char *err, size_t errlen)
{
	struct file_attrs attrs;
	struct recfile *r;
	struct stat st;
	bool nomem = false;
	int ret;

	*out = NULL;
	if (!path || !*path || !src || !src->tracefs || !ncpu || ncpu > MAX_REC_CPUS) {
		snprintf(err, errlen, "cannot create %s: bad arguments", path ? path : "(null)");
		return -EINVAL;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return errf(err, errlen, -EISDIR, "cannot create %s", path);
	/* rename() would replace a device or FIFO: a recording is only ever a file
	 * (a symlink, to anything, is replaced as documented) */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "cannot write a recording to %s: it is %s, not a regular "
			 "file", path, file_kind(st.st_mode));
		return -ENOTSUP;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return errf(err, errlen, -ENOMEM, "cannot create %s", path);
	r->fd = -1;
	r->spool = -1;
	r->ncpu = ncpu;
	r->path = dup_or_null(path, &nomem);
	r->tracefs = dup_or_null(src->tracefs, &nomem);
	r->instance = dup_or_null(src->instance, &nomem);
	r->kallsyms = dup_or_null(src->kallsyms, &nomem);
	r->uname = dup_or_null(src->uname, &nomem);
	r->no_instance = src->no_instance;
	if (nomem) {
		ret = errf(err, errlen, -ENOMEM, "cannot create %s", path);
		goto out_free;
	}
	ret = load_formats(r, err, errlen);
	if (ret)
		goto out_free;
	r->fd = create_tmp(path, &r->tmp);
	if (r->fd < 0) {
		ret = errf(err, errlen, r->fd, "cannot create %s", path);
		goto out_free;
	}
	/* a recording it replaces keeps its mode and owner; a new one is 0600 */
	file_attrs_get(path, &attrs);
	file_attrs_apply(r->fd, &attrs, 0600);
	r->spool = create_spool(path);
	if (r->spool < 0) {
		ret = errf(err, errlen, r->spool, "cannot create %s", path);
		goto out_free;
	}
	*out = r;
	return 0;
out_free:
	recfile_abort(r);
	return ret;
}

int recfile_open(struct recfile **r, const char *path, const char *tracefs_dir,
		 const char *instance_name, unsigned ncpu, char *err, size_t errlen)
{
	const struct recfile_src src = {
		.tracefs = tracefs_dir,
		.instance = instance_name,
		.kallsyms = "/proc/kallsyms",
		.no_instance = !instance_name,
	};

	return recfile_open_src(r, path, &src, ncpu, err, errlen);
}

int recfile_add_page(struct recfile *r, unsigned cpu, const void *page, size_t len)
{
	uint32_t *pc;
	int ret;

	if (r->failed)
		return r->failed;
	if (cpu >= r->ncpu || !len)
		return -EINVAL;
	if (!r->page_size) {
		/* trace.dat readers align CPU data on the page size */
		if (len < 64 || (len & (len - 1)) || len > (1u << 24))
			return -EINVAL;
		r->page_size = len;
	} else if (len != r->page_size) {
		return -EINVAL;
	}
	/*
	 * A page the ring backend would skip as malformed stays out: readers
	 * of the file (kbuffer) trust every page header in it. kbuffer only
	 * reads the page.
	 */
	if (page_cursor_load(&r->check, &r->layout, (void *)(uintptr_t)page, len) == -EINVAL) {
		r->bad_pages++;
		return 0;
	}
	pc = mem_grow_from(r->page_cpu, &r->cap, r->npages, sizeof(*pc), 1024);
	if (!pc)
		return r->failed = -ENOMEM;
	r->page_cpu = pc;
	ret = write_all(r->spool, page, len, (off_t)(r->npages * len));
	if (ret)
		return r->failed = ret;
	r->page_cpu[r->npages++] = cpu;
	return 0;
}

/* ---- kernel symbols: the ones the captured stacks need ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static size_t sort_unique(uint64_t *v, size_t n)
{
	size_t i, j;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 1, j = 1; j < n; j++)
		if (v[i - 1] != v[j])
			v[i++] = v[j];
	return i;
}

/* Every distinct frame of the kernel stacks in the spool (caller frees). */
static int kstack_addrs(struct recfile *r, uint64_t **out, size_t *n)
{
	uint64_t frames[STACK_MAX_DEPTH], *v = NULL;
	size_t len = 0, cap = 0, i;
	uint32_t j;
	struct page_cursor c;
	void *page;
	int ret;

	*out = NULL;
	*n = 0;
	if (r->layout.id[SEV_KSTACK] < 0 || !r->npages)
		return 0;
	page = malloc(r->page_size);
	if (!page)
		return -ENOMEM;
	ret = page_cursor_init(&c, &r->layout);
	if (ret)
		goto out;
	for (i = 0; i < r->npages; i++) {
		ret = file_pread_all(r->spool, page, r->page_size, (uint64_t)i * r->page_size);
		if (ret)
			goto out_cursor;
		if (page_cursor_load(&c, &r->layout, page, r->page_size) == -EINVAL)
			continue;
		for (; c.rec; page_cursor_next(&c)) {
			struct sched_event ev;

			if (decode_record(&r->layout, c.rec, page_cursor_size(&c), c.ts, 0,
					  &ev) != SEV_KSTACK)
				continue;
			decode_stack(&r->layout, c.rec, page_cursor_size(&c), &ev, frames);
			for (j = 0; j < ev.stack_depth; j++) {
				uint64_t *nv = mem_grow_from(v, &cap, len, sizeof(*v), 4096);

				if (!nv) {
					ret = -ENOMEM;
					goto out_cursor;
				}
				v = nv;
				v[len++] = frames[j];
			}
		}
		/* keep memory to the distinct frames on long captures */
		if (len > (1u << 20))
			len = sort_unique(v, len);
	}
	*n = sort_unique(v, len);
	*out = v;
	v = NULL;
out_cursor:
	page_cursor_fini(&c);
out:
	free(v);
	free(page);
	return ret;
}

/*
 * The kallsyms lines the stacks need (ksyms_subset()); *what says which of
 * "subset", "all", "none" or "restricted" was stored.
 */
static int kallsyms_for(struct recfile *r, const struct backend_window *m, struct obuf *out,
			const char **what)
{
	static const char *const kept_name[] = {
		[KSYMS_KEPT_NONE] = "none",
		[KSYMS_KEPT_SUBSET] = "subset",
		[KSYMS_KEPT_ALL] = "all",
		[KSYMS_KEPT_RESTRICTED] = "restricted",
	};
	enum ksyms_kept kept = KSYMS_KEPT_NONE;
	uint64_t *addrs = NULL;
	size_t len, naddr, klen;
	char *text, *lines = NULL;
	int ret;

	*what = "none";
	if (!m->kernel_stacks || !r->kallsyms)
		return 0;
	text = file_read_max(r->kallsyms, MAX_KALLSYMS, &len);
	if (!text)
		return 0;	/* unreadable: stacks stay addresses */
	ret = kstack_addrs(r, &addrs, &naddr);
	/* no kernel_stack format to find the frames with: keep them all */
	if (!ret)
		ret = ksyms_subset(text, len, addrs, naddr, r->layout.id[SEV_KSTACK] < 0, &lines,
				   &klen, &kept);
	if (lines)
		ob_put(out, lines, klen);
	*what = kept_name[kept];
	free(lines);
	free(addrs);
	free(text);
	return ret;
}

/* ---- the trace.dat ---- */

static int uname_line(const struct recfile *r, char *buf, size_t len, char *release,
		      size_t rlen)
{
	struct utsname u;

	if (r->uname) {
		char a[65] = "", b[65] = "", c[65] = "";

		snprintf(buf, len, "%s", r->uname);
		if (sscanf(r->uname, "%64s %64s %64s", a, b, c) == 3)
			snprintf(release, rlen, "%s", c);
		return 0;
	}
	if (uname(&u) < 0)
		return -errno;
	/* as trace-cmd writes it */
	snprintf(buf, len, "%s %s %s %s", u.sysname, u.nodename, u.release, u.machine);
	snprintf(release, rlen, "%s", u.release);
	return 0;
}

/* Everything before the CPU data; *table_at: where the CPU table goes. */
static int build_headers(struct recfile *r, const struct backend_window *m, struct obuf *h,
			 size_t *table_at)
{
	static const char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct obuf ks = { 0 };
	struct recmeta_more more;
	char *meta = NULL;
	char uname_buf[512] = "", release[128] = "", clock[64];
	char *cmdlines, *tgids, *stats;
	const char *kwhat;
	size_t len;
	unsigned i, nsched = 0, nftrace = 0;
	int ret;

	ret = kallsyms_for(r, m, &ks, &kwhat);
	if (ret || (ret = ks.err))
		goto out;
	if (uname_line(r, uname_buf, sizeof(uname_buf), release, sizeof(release)))
		uname_buf[0] = '\0';
	ob_put(h, magic, 10);
	ob_put(h, "6", 2);
	ob_put(h, "\0", 1);		/* little-endian */
	ob_put(h, &(char){ (char)sizeof(long) }, 1);
	ob_u32(h, (uint32_t)r->page_size);
	ob_put(h, "header_page", 12);
	ob_u64(h, r->header_page_len);
	ob_put(h, r->header_page, r->header_page_len);
	ob_put(h, "header_event", 13);
	ob_u64(h, r->header_event_len);
	ob_put(h, r->header_event, r->header_event_len);
	for (i = 0; i < NFORMATS; i++) {
		if (!r->fmt[i])
			continue;
		if (!strcmp(formats[i].system, "ftrace"))
			nftrace++;
		else
			nsched++;
	}
	ob_u32(h, nftrace);
	for (i = 0; i < NFORMATS; i++)
		if (r->fmt[i] && !strcmp(formats[i].system, "ftrace")) {
			ob_u64(h, r->fmt_len[i]);
			ob_put(h, r->fmt[i], r->fmt_len[i]);
		}
	ob_u32(h, 1);
	ob_put(h, "sched", 6);
	ob_u32(h, nsched);
	for (i = 0; i < NFORMATS; i++)
		if (r->fmt[i] && !strcmp(formats[i].system, "sched")) {
			ob_u64(h, r->fmt_len[i]);
			ob_put(h, r->fmt[i], r->fmt_len[i]);
		}
	ob_u32(h, (uint32_t)ks.len);
	if (ks.len)
		ob_put(h, ks.p, ks.len);
	ob_u32(h, 0);			/* no trace_printk formats */
	cmdlines = m->cmdlines ? strdup(m->cmdlines) : tfs_slurp(r, "saved_cmdlines", &len);
	if (m->cmdlines)
		len = cmdlines ? strlen(cmdlines) : 0;
	if (!cmdlines)
		len = 0;
	ob_u64(h, len);
	if (len)
		ob_put(h, cmdlines, len);
	free(cmdlines);
	ob_u32(h, r->ncpu);

	ob_put(h, "options  ", 10);
	if (m->clock) {
		snprintf(clock, sizeof(clock), "[%s]", m->clock);
		ob_text_option(h, TDAT_OPT_TRACECLOCK, clock);
	}
	if (uname_buf[0])
		ob_text_option(h, TDAT_OPT_UNAME, uname_buf);
	for (i = 0; i < r->ncpu && !r->no_instance; i++) {
		char rel[PATH_MAX];

		if (r->instance)
			snprintf(rel, sizeof(rel), "instances/%s/per_cpu/cpu%u/stats",
				 r->instance, i);
		else
			snprintf(rel, sizeof(rel), "per_cpu/cpu%u/stats", i);
		stats = tfs_slurp(r, rel, &len);
		if (stats && len) {
			/* "CPU: N" first, as trace-cmd stores it */
			char *one = malloc(len + 16);

			if (one) {
				snprintf(one, len + 16, "CPU: %u\n%s", i, stats);
				ob_text_option(h, TDAT_OPT_CPUSTAT, one);
				free(one);
			} else {
				h->err = -ENOMEM;
			}
		}
		free(stats);
	}
	tgids = m->tgids ? strdup(m->tgids) :
		r->no_instance ? NULL : tfs_slurp(r, "saved_tgids", &len);
	more = (struct recmeta_more){ .ncpu = r->ncpu, .kallsyms = kwhat, .release = release,
				     .instance = r->instance, .bad_pages = r->bad_pages,
				     .tgids = tgids };
	meta = recmeta_text(m, &more);
	free(tgids);
	if (!meta) {
		ret = -ENOMEM;
		goto out;
	}
	/* the text and its NUL */
	ob_u16(h, TDAT_OPT_OFFCPU);
	ob_u32(h, (uint32_t)(strlen(meta) + 1));
	ob_put(h, meta, strlen(meta) + 1);
	ob_u16(h, TDAT_OPT_DONE);
	ob_put(h, "flyrecord", 10);
	*table_at = h->len;
	ret = h->err;
out:
	free(ks.p);
	free(meta);
	return ret;
}

/* Copy @n bytes of the spool at @from to the output at @to. */
static int copy_range(struct recfile *r, off_t from, off_t to, size_t n, void *buf)
{
	while (n) {
		ssize_t c = copy_file_range(r->spool, &from, r->fd, &to, n, 0);
		int ret;

		if (c > 0) {
			n -= (size_t)c;
			continue;
		}
		if (c < 0 && errno == EINTR)
			continue;
		if (c == 0)
			return -EIO;
		/* not across these files: one page at a time */
		if (errno != EXDEV && errno != EINVAL && errno != ENOSYS &&
		    errno != EOPNOTSUPP)
			return -errno;
		while (n) {
			size_t step = n < r->page_size ? n : r->page_size;

			if ((ret = file_pread_all(r->spool, buf, step, (uint64_t)from)) ||
			    (ret = write_all(r->fd, buf, step, to)))
				return ret;
			from += (off_t)step;
			to += (off_t)step;
			n -= step;
		}
	}
	return 0;
}

static int write_file(struct recfile *r, const struct backend_window *m)
{
	struct obuf h = { 0 };
	size_t table_at, *count = NULL, *start = NULL, *order = NULL, i, run;
	uint64_t data, off;
	char clock[64];
	void *buf = NULL;
	unsigned cpu;
	int ret;

	if (!r->page_size)
		r->page_size = r->layout.page_size;
	ret = build_headers(r, m, &h, &table_at);
	if (ret)
		goto out;
	count = calloc(r->ncpu, sizeof(*count));
	start = calloc(r->ncpu, sizeof(*start));
	order = malloc((r->npages ? r->npages : 1) * sizeof(*order));
	buf = malloc(r->page_size);
	if (!count || !start || !order || !buf) {
		ret = -ENOMEM;
		goto out;
	}
	/* each CPU's pages in arrival order: a counting sort of the spool */
	for (i = 0; i < r->npages; i++)
		count[r->page_cpu[i]]++;
	for (cpu = 1; cpu < r->ncpu; cpu++)
		start[cpu] = start[cpu - 1] + count[cpu - 1];
	for (i = 0; i < r->npages; i++)
		order[start[r->page_cpu[i]]++] = i;
	/* the table, then the clock trace-cmd reads after it, then the data */
	data = table_at + 16ull * r->ncpu;
	if (m->clock)
		data += 8 + (uint64_t)snprintf(clock, sizeof(clock), "[%s]", m->clock);
	data = (data + r->page_size - 1) & ~(uint64_t)(r->page_size - 1);
	for (cpu = 0, off = data; cpu < r->ncpu; cpu++) {
		ob_u64(&h, off);
		ob_u64(&h, (uint64_t)count[cpu] * r->page_size);
		off += (uint64_t)count[cpu] * r->page_size;
	}
	if (m->clock) {
		ob_u64(&h, strlen(clock));
		ob_put(&h, clock, strlen(clock));
	}
	if ((ret = h.err))
		goto out;
	ret = write_all(r->fd, h.p, h.len, 0);
	if (ret)
		goto out;
	/* runs of one CPU's consecutive spool pages are copied at once */
	for (i = 0, off = data; i < r->npages; i += run, off += run * r->page_size) {
		for (run = 1; i + run < r->npages && order[i + run] == order[i] + run; run++)
			;
		ret = copy_range(r, (off_t)(order[i] * r->page_size), (off_t)off,
				 run * r->page_size, buf);
		if (ret)
			goto out;
	}
	/* a recording without pages still ends where its data would start */
	if (ftruncate(r->fd, (off_t)(off > data ? off : data)) < 0 || fsync(r->fd) < 0)
		ret = -errno;
out:
	free(h.p);
	free(count);
	free(start);
	free(order);
	free(buf);
	return ret;
}

int recfile_close(struct recfile *r, const struct backend_window *m, char *err, size_t errlen)
{
	static const struct backend_window none;
	int ret;

	if (!r)
		return 0;
	if (!m)
		m = &none;
	if (r->failed) {
		ret = errf(err, errlen, r->failed, "cannot write %s", r->path);
		goto out_abort;
	}
	ret = write_file(r, m);
	if (ret) {
		errf(err, errlen, ret, "cannot write %s", r->path);
		goto out_abort;
	}
	if (close(r->fd) < 0) {
		r->fd = -1;
		ret = errf(err, errlen, -errno, "cannot write %s", r->path);
		goto out_abort;
	}
	r->fd = -1;
	/* replaces a file or symlink at path; never writes through it */
	if (rename(r->tmp, r->path) < 0) {
		ret = errf(err, errlen, -errno, "cannot create %s", r->path);
		goto out_abort;
	}
	recfile_free(r);
	return 0;
out_abort:
	recfile_abort(r);
	return ret;
}
