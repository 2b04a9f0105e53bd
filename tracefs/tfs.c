// SPDX-License-Identifier: GPL-2.0-or-later
/* tracefs writes through one undo log, and our instances. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "fileread.h"
#include "grow.h"
#include "tfs.h"

static int undo_push(struct tfs_undo_list *u, struct tfs_undo *e)
{
	struct tfs_undo *v = mem_grow_from(u->v, &u->cap, u->n, sizeof(*v), 8);

	if (!v)
		return -ENOMEM;
	u->v = v;
	u->v[u->n++] = *e;
	return 0;
}

int tfs_undo_instance(struct tfs_undo_list *u, struct tracefs_instance *inst)
{
	struct tfs_undo e = { .kind = UNDO_INSTANCE, .inst = inst };

	return undo_push(u, &e);
}

int tfs_undo_write(struct tfs_undo_list *u, const char *path, const char *text,
		   bool append)
{
	struct tfs_undo e = { .kind = UNDO_WRITE, .append = append };
	int ret;

	e.path = strdup(path);
	e.text = strdup(text);
	if (!e.path || !e.text) {
		free(e.path);
		free(e.text);
		return -ENOMEM;
	}
	ret = undo_push(u, &e);
	if (ret) {
		free(e.path);
		free(e.text);
	}
	return ret;
}

int tfs_write_file(const char *path, const char *text, bool append)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	size_t n = strlen(text);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, text, n);
	if (w < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	return (size_t)w == n ? 0 : -EIO;
}

static int remove_instance(struct tracefs_instance *inst)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int tries;

	/*
	 * a recording's record-tgid holds a reference on the kernel's tgid
	 * map: dropped first (absent on older kernels: ignored)
	 */
	tfs_inst_write(inst, "options/record-tgid", "0");
	/* rmdir fails with EBUSY while a reader still holds a file open */
	for (tries = 0; tries < 200; tries++) {
		if (tracefs_instance_destroy(inst) == 0)
			return 0;
		if (errno != EBUSY)
			return -errno;
		nanosleep(&ts, NULL);
	}
	return -EBUSY;
}

void tfs_undo_drop_last(struct tfs_undo_list *u)
{
	struct tfs_undo *e;

	if (!u->n)
		return;
	e = &u->v[--u->n];
	if (e->kind == UNDO_WRITE) {
		free(e->path);
		free(e->text);
	}
}

unsigned tfs_undo_run(struct tfs_undo_list *u)
{
	unsigned failed = 0;

	while (u->n) {
		struct tfs_undo *e = &u->v[--u->n];

		if (e->kind == UNDO_INSTANCE) {
			if (remove_instance(e->inst))
				failed++;
			tracefs_instance_free(e->inst);
		} else {
			if (tfs_write_file(e->path, e->text, e->append))
				failed++;
			free(e->path);
			free(e->text);
		}
	}
	free(u->v);
	u->v = NULL;
	u->cap = 0;
	return failed;
}

int tfs_instance_new(struct tfs_undo_list *u, const char *tracefs_dir,
		     struct tracefs_instance **out, char *err, size_t errlen)
{
	char name[64];
	unsigned n;
	int ret;

	*out = NULL;
	if (tracefs_set_tracing_dir((char *)tracefs_dir)) {
		snprintf(err, errlen, "cannot use tracefs at %s", tracefs_dir);
		return -EINVAL;
	}
	for (n = 0; n < 100; n++) {
		struct tracefs_instance *inst;

		if (n == 0)
			snprintf(name, sizeof(name), TFS_PREFIX ".%d", (int)getpid());
		else
			snprintf(name, sizeof(name), TFS_PREFIX ".%d.%u", (int)getpid(), n);
		errno = 0;
		inst = tracefs_instance_create(name);
		if (!inst) {
			ret = errno ? -errno : -EIO;
			if (ret == -EACCES || ret == -EPERM)
				snprintf(err, errlen, "permission denied creating a tracefs "
					 "instance in %s/instances: run as root", tracefs_dir);
			else if (ret == -EROFS)
				snprintf(err, errlen, "tracefs at %s is read-only: remount it "
					 "read-write (mount -o remount,rw %s)",
					 tracefs_dir, tracefs_dir);
			else
				snprintf(err, errlen, "cannot create a tracefs instance in "
					 "%s/instances: %s", tracefs_dir, strerror(-ret));
			return ret;
		}
		if (!tracefs_instance_is_new(inst)) {
			/* someone else's: never touch it */
			tracefs_instance_free(inst);
			continue;
		}
		ret = tfs_undo_instance(u, inst);
		if (ret) {
			remove_instance(inst);
			tracefs_instance_free(inst);
			snprintf(err, errlen, "out of memory");
			return ret;
		}
		*out = inst;
		return 0;
	}
	snprintf(err, errlen, "cannot find a free instance name under %s/instances",
		 tracefs_dir);
	return -EEXIST;
}

int tfs_inst_write(struct tracefs_instance *inst, const char *file, const char *val)
{
	char *path = tracefs_instance_get_file(inst, file);
	int ret;

	if (!path)
		return -ENOMEM;
	ret = tfs_write_file(path, val, false);
	tracefs_put_tracing_file(path);
	return ret;
}

int tfs_inst_read(struct tracefs_instance *inst, const char *file, char *buf, size_t len)
{
	char *path = tracefs_instance_get_file(inst, file);
	ssize_t n;

	if (!path)
		return -ENOMEM;
	n = file_read_buf(path, buf, len);
	tracefs_put_tracing_file(path);
	return n < 0 ? (int)n : 0;
}
