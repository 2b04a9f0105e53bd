// SPDX-License-Identifier: GPL-2.0-or-later
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

#include "tfs.h"

static bool is_tracefs_dir(const char *dir)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s/trace_clock", dir);
	if (stat(p, &st))
		return false;
	snprintf(p, sizeof(p), "%s/events", dir);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* /proc/mounts escapes space, tab, newline and backslash as \ooo */
static void unescape_mount(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

static int find_mount(const char *type, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], mnt[PATH_MAX], fs[64];
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]\n", dev, mnt, fs) == 3) {
		if (strcmp(fs, type))
			continue;
		unescape_mount(mnt);
		snprintf(out, len, "%s", mnt);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

int tfs_find(const char *override, char *dir, size_t len, char *err, size_t errlen)
{
	char dbg[PATH_MAX];

	if (override) {
		if (!is_tracefs_dir(override)) {
			snprintf(err, errlen, "--tracefs %s: not a tracefs directory "
				 "(no trace_clock or events/); give the tracefs mount point",
				 override);
			return -ENOENT;
		}
		snprintf(dir, len, "%s", override);
		return 0;
	}
	if (find_mount("tracefs", dir, len) == 0) {
		if (is_tracefs_dir(dir))
			return 0;
		if (faccessat(AT_FDCWD, dir, X_OK, AT_EACCESS) && errno == EACCES) {
			snprintf(err, errlen, "cannot read tracefs at %s (permission "
				 "denied): run as root", dir);
			return -EACCES;
		}
	}
	/* older setups: tracefs automounted under debugfs's tracing/ */
	if (find_mount("debugfs", dbg, sizeof(dbg)) == 0) {
		snprintf(dir, len, "%s/tracing", dbg);
		if (is_tracefs_dir(dir))
			return 0;
	}
	if (access("/sys/kernel/tracing", F_OK) == 0 && geteuid() != 0)
		snprintf(err, errlen, "tracefs is not mounted or not readable: "
			 "run as root (mount -t tracefs nodev /sys/kernel/tracing)");
	else
		snprintf(err, errlen, "tracefs is not mounted: "
			 "mount -t tracefs nodev /sys/kernel/tracing");
	return -ENOENT;
}

bool tfs_writable(const char *dir)
{
	char p[PATH_MAX];
	struct statvfs vfs;

	if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
		return false;
	snprintf(p, sizeof(p), "%s/instances", dir);
	return faccessat(AT_FDCWD, p, W_OK, AT_EACCESS) == 0;
}

static int undo_push(struct tfs_undo_list *u, struct tfs_undo *e)
{
	if (u->n == u->cap) {
		unsigned cap = u->cap ? u->cap * 2 : 8;
		struct tfs_undo *v = realloc(u->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		u->v = v;
		u->cap = cap;
	}
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
	int fd, e;

	if (!path)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	e = errno;
	tracefs_put_tracing_file(path);
	if (fd < 0)
		return -e;
	n = read(fd, buf, len - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	return 0;
}
