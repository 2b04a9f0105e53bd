// SPDX-License-Identifier: GPL-2.0-or-later
/* Whole-file reading: the one implementation (format files, kallsyms, peers' output). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "fileread.h"
#include "grow.h"

char *file_read_max(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = file_read_fd_max(fd, max, len);
	e = errno;
	close(fd);
	errno = e;
	return buf;
}

char *file_read_fd_max(int fd, size_t max, size_t *len)
{
	size_t cap = 0, n = 0, room;
	char *buf = NULL, *nb;
	ssize_t r;
	int e;

	for (;;) {
		if (n >= max) {
			errno = EFBIG;
			goto fail;
		}
		/* room for byte n and a NUL after it; 4 KiB reads at first */
		nb = mem_grow_from(buf, &cap, n + 1, 1, 4096 + 1);
		if (!nb) {
			errno = ENOMEM;
			goto fail;
		}
		buf = nb;
		room = cap - 1 - n;
		r = read(fd, buf + n, room < max - n ? room : max - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	e = errno;
	free(buf);
	errno = e;
	return NULL;
}

char *file_read(const char *path, size_t *len)
{
	return file_read_max(path, FILE_READ_MAX, len);
}

const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFSOCK: return "a socket";
	default: return "not a regular file";
	}
}

int file_open_input(const char *path, mode_t *type)
{
	struct stat st, now;
	int fd, fl, e;

	/* refused before any open: opening a device can do things (a watchdog) */
	if (stat(path, &st) < 0)
		return -errno;
	if (type)
		*type = st.st_mode & S_IFMT;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	/* O_NONBLOCK: the name may have become a FIFO since */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &now) < 0 || (fl = fcntl(fd, F_GETFL)) < 0) {
		e = -errno;
		close(fd);
		return e;
	}
	if (type)
		*type = now.st_mode & S_IFMT;
	if (!S_ISREG(now.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

int file_pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	char *p = buf;

	while (n) {
		ssize_t r = pread(fd, p, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

ssize_t file_read_buf(const char *path, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;
	int fd, e;

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (n < len - 1) {
		r = read(fd, buf + n, len - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			close(fd);
			buf[0] = '\0';
			return -e;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}
