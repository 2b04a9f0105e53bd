// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -o FILE: a regular file replaced atomically (a temporary beside it,
 * renamed over it), a device or FIFO written through, nothing else broken.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "fileattr.h"
#include "fileread.h"
#include "output.h"

#define PROC_SUPER_MAGIC 0x9fa0

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The input among @inputs that @st is (the same device and inode), or NULL. */
static const char *input_named(const struct stat *st, const char *const *inputs)
{
	struct stat in;

	for (; inputs && *inputs; inputs++) {
		int ret = strcmp(*inputs, "-") ? stat(*inputs, &in) : fstat(STDIN_FILENO, &in);

		if (ret == 0 && same_file(st, &in))
			return strcmp(*inputs, "-") ? *inputs : "standard input";
	}
	return NULL;
}

/* @path's directory into @dir ("." or "/" when it has none). */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* A new temporary file beside @o->path, named in o->tmp. The fd, or -errno. */
static int tmp_create(struct out *o, char *err, size_t errlen)
{
	const char *slash = strrchr(o->path, '/');
	struct statfs sfs;
	char dir[4096];
	int fd;

	dir_of(o->path, dir, sizeof(dir));
	if (statfs(dir, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC) {
		snprintf(err, errlen, "cannot write %s: files cannot be created in /proc", o->path);
		return -EACCES;
	}
	snprintf(o->tmp, sizeof(o->tmp), "%s/.%s.XXXXXX", dir, slash ? slash + 1 : o->path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "cannot write %s: %s", o->path,
			 e == ENOENT ? "no such directory" : strerror(e));
		o->tmp[0] = '\0';
		return -e;
	}
	return fd;
}

/* A character device or FIFO, opened for the command; it never blocks the open. */
static int open_through(struct out *o, const struct stat *st, char *err, size_t errlen)
{
	struct stat now;
	int fd, fl;

	fd = open(o->path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == ENXIO && S_ISFIFO(st->st_mode))
			snprintf(err, errlen, "cannot write %s: no process has the FIFO open for "
				 "reading: start its reader first", o->path);
		else
			snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e));
		return -e;
	}
	/* the node checked is the node opened, and writes wait for a slow reader */
	if (fstat(fd, &now) || !same_file(st, &now) ||
	    (fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		close(fd);
		snprintf(err, errlen, "cannot write %s: it changed while being opened", o->path);
		return -EAGAIN;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;

		close(fd);
		o->f = stdout;
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e));
		return -e;
	}
	o->fd = fd;
	o->kind = OUT_THROUGH;
	return 0;
}

/* A target that exists and is no regular file: write through it, or refuse. */
static int open_special(struct out *o, const struct stat *st, unsigned flags, char *err,
			size_t errlen)
{
	if (S_ISDIR(st->st_mode)) {
		snprintf(err, errlen, "cannot write %s: it is a directory", o->path);
		return -EISDIR;
	}
	if (!S_ISCHR(st->st_mode) && !S_ISFIFO(st->st_mode)) {
		snprintf(err, errlen, "cannot write %s: it is %s: -o writes a file, a character "
			 "device or a FIFO", o->path, file_kind(st->st_mode));
		return -ENOTSUP;
	}
	if (flags & OUT_RECORDING) {
		snprintf(err, errlen, "cannot write a recording to %s: it is %s, and a recording "
			 "is assembled in a regular file (its CPU table comes first): give a file "
			 "name", o->path, file_kind(st->st_mode));
		return -ENOTSUP;
	}
	if (flags & OUT_CHECK_ONLY) {
		o->kind = OUT_THROUGH;
		return 0;
	}
	return open_through(o, st, err, errlen);
}

/*
 * -o /dev/stdout, /dev/stderr, /proc/self/fd/N: one of our own standard
 * streams, whatever file it is. Its fd, or -1. Renaming over the name
 * would replace the /dev symlink, and reopening it would truncate what
 * the shell opened: the stream itself is written.
 */
static int std_stream(const struct stat *st)
{
	struct stat fs;
	int fd;

	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (fstat(fd, &fs) == 0 && same_file(st, &fs))
			return fd;
	return -1;
}

/* -o naming standard output or standard error: written there, as a stream. */
static int open_std(struct out *o, int fd, unsigned flags, char *err, size_t errlen)
{
	static const char *const name[] = { "standard input", "standard output",
					    "standard error" };

	if (fd == STDIN_FILENO || (flags & OUT_RECORDING)) {
		snprintf(err, errlen, "-o %s is our %s: %s", o->path, name[fd],
			 fd == STDIN_FILENO ? "give the output another name" :
			 "a recording is assembled in a regular file: give a file name");
		return -EINVAL;
	}
	o->kind = fd == STDOUT_FILENO ? OUT_STDOUT : OUT_THROUGH;
	if (fd == STDOUT_FILENO || (flags & OUT_CHECK_ONLY))
		return 0;
	o->fd = dup(fd);
	o->f = o->fd >= 0 ? fdopen(o->fd, "w") : NULL;
	if (!o->f) {
		int e = errno;

		if (o->fd >= 0)
			close(o->fd);
		o->fd = -1;
		o->f = stdout;
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e));
		return -e;
	}
	return 0;
}

int out_open(struct out *o, const char *path, const char *const *inputs, unsigned flags,
	     char *err, size_t errlen)
{
	struct stat st, lst;
	const char *in;
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->kind = OUT_STDOUT;
	o->fd = -1;
	o->saved_stdout = -1;
	o->f = stdout;
	if (!path)
		return 0;
	if (!*path) {
		snprintf(err, errlen, "-o needs a file name");
		return -EINVAL;
	}
	if (stat(path, &st) == 0) {
		in = input_named(&st, inputs);
		if (in) {
			snprintf(err, errlen, "-o %s is %s%s%s an input of this command: writing it "
				 "would destroy it; give another name", path,
				 strcmp(path, in) ? "the same file as " : "also",
				 strcmp(path, in) ? in : "", strcmp(path, in) ? "," : "");
			return -EINVAL;
		}
		fd = std_stream(&st);
		if (fd >= 0)
			return open_std(o, fd, flags, err, errlen);
		/*
		 * a device or FIFO is written through only where it was named
		 * itself: a symlink to one (/tmp/x -> /dev/mem) is replaced, as
		 * a symlink to a file is, never followed
		 */
		if (!S_ISREG(st.st_mode) && (S_ISDIR(st.st_mode) || lstat(path, &lst) ||
					     !S_ISLNK(lst.st_mode)))
			return open_special(o, &st, flags, err, errlen);
	} else if (errno != ENOENT) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	/* a regular file, a new name or a symlink (replaced, never written through) */
	o->kind = OUT_FILE;
	file_attrs_get(path, &o->attrs);
	/* found out now, not after a long window: the directory takes a file */
	fd = tmp_create(o, err, errlen);
	if (fd < 0)
		return fd;
	close(fd);
	unlink(o->tmp);
	o->tmp[0] = '\0';
	return 0;
}

int out_begin(struct out *o, char *err, size_t errlen)
{
	mode_t um;
	int fd;

	if (o->kind != OUT_FILE)
		return 0;
	fd = tmp_create(o, err, errlen);
	if (fd < 0)
		return fd;
	/* mkstemp makes it 0600: a new file's results are the umask's to share */
	um = umask(0);
	umask(um);
	file_attrs_apply(fd, &o->attrs, 0666 & ~um);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;

		close(fd);
		unlink(o->tmp);
		o->tmp[0] = '\0';
		o->f = stdout;
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e));
		return -e;
	}
	return 0;
}

int out_redirect(struct out *o, char *err, size_t errlen)
{
	if (o->kind == OUT_STDOUT)
		return 0;
	fflush(stdout);
	o->saved_stdout = dup(STDOUT_FILENO);
	if (o->saved_stdout < 0 || dup2(fileno(o->f), STDOUT_FILENO) < 0) {
		int e = errno;

		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e));
		return -e;
	}
	return 0;
}

/* fflush and ferror of @f: 0 or -errno */
static int flush_status(FILE *f)
{
	errno = 0;
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

int out_end(struct out *o, bool keep, char *err, size_t errlen)
{
	int ret = 0;

	if (o->saved_stdout >= 0) {
		ret = flush_status(stdout);
		dup2(o->saved_stdout, STDOUT_FILENO);
		close(o->saved_stdout);
		o->saved_stdout = -1;
	}
	if (o->kind != OUT_FILE) {
		if (!ret)
			ret = flush_status(o->f);
		if (ret)
			snprintf(err, errlen, "cannot write %s: %s",
				 o->kind == OUT_STDOUT ? "the output" : o->path, strerror(-ret));
		return ret;
	}
	if (!o->tmp[0])
		return ret;
	if (!ret && (ret = flush_status(o->f)) == 0 && fsync(fileno(o->f)))
		ret = -errno;
	if (fclose(o->f) && !ret)
		ret = errno ? -errno : -EIO;
	o->f = stdout;
	if (keep && !ret && rename(o->tmp, o->path))
		ret = -errno;
	if (!keep || ret)
		unlink(o->tmp);
	o->tmp[0] = '\0';
	if (ret)
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(-ret));
	return ret;
}

void out_close(struct out *o)
{
	if (o->kind == OUT_THROUGH && o->fd >= 0 && o->f && o->f != stdout)
		fclose(o->f);
	o->fd = -1;
	o->f = stdout;
}
