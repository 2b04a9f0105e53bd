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
	size_t cap = 0, n = 0, room;
	char *buf = NULL, *nb;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	ssize_t r;

	if (fd < 0)
		return NULL;
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
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	e = errno;
	close(fd);
	free(buf);
	errno = e;
	return NULL;
}

char *file_read(const char *path, size_t *len)
{
	return file_read_max(path, FILE_READ_MAX, len);
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
