// SPDX-License-Identifier: GPL-2.0-or-later
/* -o FILE: each output to a temporary beside FILE, renamed over it when complete. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "output.h"

#define PROC_SUPER_MAGIC 0x9fa0

int out_begin(struct out *o, const char *path, char *err, size_t errlen)
{
	const char *slash;
	struct statfs sfs;
	struct stat st;
	char dir[4096];
	mode_t um;
	int fd;

	o->path = path;
	o->tmp[0] = '\0';
	o->f = stdout;
	o->saved_stdout = -1;
	if (!path)
		return 0;
	if (!*path) {
		snprintf(err, errlen, "-o needs a file name");
		return -EINVAL;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot write %s: it is a directory", path);
		return -EISDIR;
	}
	slash = strrchr(path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (!dir[0])
		snprintf(dir, sizeof(dir), "/");
	if (statfs(dir, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC) {
		snprintf(err, errlen, "cannot write %s: files cannot be created in /proc", path);
		return -EACCES;
	}
	snprintf(o->tmp, sizeof(o->tmp), "%s/.%s.XXXXXX", dir, slash ? slash + 1 : path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "cannot write %s: %s", path,
			 e == ENOENT ? "no such directory" : strerror(e));
		o->tmp[0] = '\0';
		return -e;
	}
	/* mkstemp makes it 0600: results are the umask's to share */
	um = umask(0);
	umask(um);
	fchmod(fd, 0666 & ~um);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;

		close(fd);
		unlink(o->tmp);
		o->tmp[0] = '\0';
		o->f = stdout;
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

int out_redirect(struct out *o, char *err, size_t errlen)
{
	if (!o->path)
		return 0;
	fflush(stdout);
	o->saved_stdout = dup(STDOUT_FILENO);
	if (o->saved_stdout < 0 || dup2(fileno(o->f), STDOUT_FILENO) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(errno));
		return -errno;
	}
	return 0;
}

int out_end(struct out *o, bool keep, char *err, size_t errlen)
{
	int ret = 0;

	if (!o->path) {
		if (fflush(stdout) || ferror(stdout))
			ret = errno ? -errno : -EIO;
		if (ret)
			snprintf(err, errlen, "cannot write the output: %s", strerror(-ret));
		return ret;
	}
	if (o->saved_stdout >= 0) {
		fflush(stdout);
		if (ferror(stdout))
			ret = errno ? -errno : -EIO;
		dup2(o->saved_stdout, STDOUT_FILENO);
		close(o->saved_stdout);
		o->saved_stdout = -1;
	}
	if (!o->tmp[0])
		return 0;
	if (fflush(o->f) || ferror(o->f) || fsync(fileno(o->f)))
		ret = ret ? ret : errno ? -errno : -EIO;
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
