/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whole-file reading, NUL-terminated. */
#ifndef OFFCPU_FILEREAD_H
#define OFFCPU_FILEREAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define FILE_READ_MAX (16u << 20)	/* default bound: 16 MiB */

/*
 * Read all of @path (a regular file, a pipe or a /proc or tracefs file
 * whose size is not known in advance) into a newly allocated buffer with
 * a NUL after the last byte; *len (if not NULL) gets the byte count.
 * Returns NULL with errno set (EFBIG beyond @max bytes). Caller frees.
 */
char *file_read_max(const char *path, size_t max, size_t *len);
/* file_read_max() with FILE_READ_MAX. */
char *file_read(const char *path, size_t *len);
/* The same from the open @fd (read to its end; not closed). */
char *file_read_fd_max(int fd, size_t max, size_t *len);

/*
 * Open @path, a file the user named as input, for reading: never blocks
 * (a FIFO without a writer, a terminal) and opens only regular files: a
 * FIFO, device, socket or directory is refused before it is opened. The
 * fd (O_CLOEXEC, blocking again), or a negative errno: -EINVAL for a file
 * that is not regular, its type in *@type (S_IFIFO, ...) when @type is
 * not NULL.
 */
int file_open_input(const char *path, mode_t *type);
/* "a FIFO", "a character device", ...: the file type in @mode, for messages. */
const char *file_kind(mode_t mode);

/*
 * At most @len - 1 bytes of @path into @buf, NUL-terminated (a small
 * /proc or tracefs file, whose first @len - 1 bytes are what matters).
 * Returns the byte count, or a negative errno (buf is "" then).
 */
ssize_t file_read_buf(const char *path, char *buf, size_t len);

/*
 * Exactly @n bytes of @fd at @off into @buf (pread, again after EINTR
 * and short reads). Returns 0, a negative errno, or -EIO at end of file.
 */
int file_pread_all(int fd, void *buf, size_t n, uint64_t off);

#endif
