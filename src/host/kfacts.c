// SPDX-License-Identifier: GPL-2.0-or-later
/* What this boot's kernel was seen to do: the per-boot state file. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "fileread.h"
#include "kfacts.h"

#define KFACTS_MAX 4096		/* the file is a few lines */

const char *kfacts_path(void)
{
	const char *p = getenv(KFACTS_ENV);

	if (!p)
		return KFACTS_PATH;
	return *p ? p : NULL;
}

int kfacts_this_boot(struct kfacts *k)
{
	struct utsname u;
	char buf[64];
	ssize_t n;

	memset(k, 0, sizeof(*k));
	n = file_read_buf("/proc/sys/kernel/random/boot_id", buf, sizeof(buf));
	if (n <= 0)
		return n < 0 ? (int)n : -ENOENT;
	buf[strcspn(buf, "\n")] = '\0';
	if (strlen(buf) >= sizeof(k->boot_id))
		return -EINVAL;
	memcpy(k->boot_id, buf, strlen(buf) + 1);
	if (uname(&u))
		return -errno;
	snprintf(k->release, sizeof(k->release), "%s", u.release);
	return 0;
}

/* one "key=value" line: copies the value (cut to fit) */
static bool value_of(const char *line, size_t n, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key), vl;

	if (n <= kl || strncmp(line, key, kl) || line[kl] != '=')
		return false;
	vl = n - kl - 1;
	if (vl >= len)
		vl = len - 1;
	memcpy(out, line + kl + 1, vl);
	out[vl] = '\0';
	return true;
}

int kfacts_parse(const char *text, struct kfacts *k)
{
	char boot[sizeof(k->boot_id)] = "", rel[sizeof(k->release)] = "", loss[16] = "";
	char v[64];
	struct kfacts f = { 0 };
	const char *line, *next;
	size_t n;

	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		n = next ? (size_t)(next - line) : strlen(line);
		next = next ? next + 1 : line + n;
		if (!n || line[0] == '#')
			continue;
		if (value_of(line, n, "boot_id", boot, sizeof(boot)) ||
		    value_of(line, n, "release", rel, sizeof(rel)) ||
		    value_of(line, n, "idle_loss", loss, sizeof(loss)) ||
		    value_of(line, n, "seen_by", f.seen_by, sizeof(f.seen_by)) ||
		    value_of(line, n, "detail", f.detail, sizeof(f.detail)))
			continue;
		if (value_of(line, n, "seen_at", v, sizeof(v)))
			f.seen_at = strtoll(v, NULL, 10);
		else if (value_of(line, n, "clean_probe_ms", v, sizeof(v)))
			f.clean_probe_ms = strtoull(v, NULL, 10);
	}
	if (!boot[0] || !rel[0] || (strcmp(loss, "seen") && strcmp(loss, "unknown")))
		return -EINVAL;
	if (strcmp(boot, k->boot_id) || strcmp(rel, k->release))
		return 0;	/* another boot's, or another kernel's */
	k->loss_seen = !strcmp(loss, "seen");
	memcpy(k->seen_by, f.seen_by, sizeof(k->seen_by));
	memcpy(k->detail, f.detail, sizeof(k->detail));
	k->seen_at = k->loss_seen ? f.seen_at : 0;
	k->clean_probe_ms = f.clean_probe_ms;
	return 1;
}

/* a value on one line: no newline inside */
static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

int kfacts_format(const struct kfacts *k, char *buf, size_t len)
{
	char by[sizeof(k->seen_by)], detail[sizeof(k->detail)];
	int n;

	memcpy(by, k->seen_by, sizeof(by));
	memcpy(detail, k->detail, sizeof(detail));
	by[sizeof(by) - 1] = detail[sizeof(detail) - 1] = '\0';
	one_line(by);
	one_line(detail);
	n = snprintf(buf, len, "# offcpu-ftrace: what this boot's kernel was seen to do "
		     "(offcpu-ftrace-info(8), FILES)\nboot_id=%s\nrelease=%s\nidle_loss=%s\n"
		     "seen_by=%s\ndetail=%s\nseen_at=%" PRId64 "\nclean_probe_ms=%" PRIu64 "\n",
		     k->boot_id, k->release, k->loss_seen ? "seen" : "unknown",
		     k->loss_seen ? by : "", k->loss_seen ? detail : "",
		     k->loss_seen ? k->seen_at : 0, k->clean_probe_ms);
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

/* the file's text, if it may be trusted: root's own, written by root alone */
static int read_trusted(const char *path, char *buf, size_t len)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		n = -errno;
	} else if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) {
		n = -EPERM;
	} else {
		n = read(fd, buf, len - 1);
		if (n < 0)
			n = -errno;
		else
			buf[n] = '\0';
	}
	close(fd);
	return n < 0 ? (int)n : 0;
}

int kfacts_load(const char *path, struct kfacts *k)
{
	char buf[KFACTS_MAX];
	int ret;

	ret = kfacts_this_boot(k);
	if (ret || !path)
		return ret;
	ret = read_trusted(path, buf, sizeof(buf));
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	ret = kfacts_parse(buf, k);
	if (ret <= 0) {
		/* another boot's, or not ours: this boot knows nothing yet */
		kfacts_this_boot(k);
		return ret < 0 ? 0 : ret;
	}
	return 1;
}

/* @path's directory (made, root's, mode 0755 when it is KFACTS_DIR), locked; fd or -errno */
static int lock_dir(const char *path, char *dir, size_t len)
{
	char *slash;
	int fd;

	snprintf(dir, len, "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (!strcmp(path, KFACTS_PATH) && mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/* write @k to @path: a new file beside it, renamed over it */
static int store(const char *path, const char *dir, const struct kfacts *k)
{
	char tmp[4200], buf[KFACTS_MAX];
	int fd, n, ret = 0;

	n = kfacts_format(k, buf, sizeof(buf));
	if (n < 0)
		return n;
	snprintf(tmp, sizeof(tmp), "%s/.kernel-facts.%d", dir, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644) || write(fd, buf, (size_t)n) != n)
		ret = errno ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

/* load, change by @fn, store, under the directory's lock */
static int update(const char *path, void (*fn)(struct kfacts *, const void *), const void *arg)
{
	char dir[4096];
	struct kfacts k;
	int fd, ret;

	if (!path)
		return 0;
	if (geteuid() != 0)
		return -EPERM;	/* only root's file is trusted: only root writes it */
	fd = lock_dir(path, dir, sizeof(dir));
	if (fd < 0)
		return fd;
	ret = kfacts_load(path, &k);
	if (ret == -EPERM)
		ret = kfacts_this_boot(&k) ? -EPERM : 0;	/* replaced by root's own */
	if (ret >= 0) {
		fn(&k, arg);
		ret = store(path, dir, &k);
	}
	close(fd);	/* and the lock */
	return ret;
}

struct loss_arg {
	const char *by, *detail;
};

static void set_loss(struct kfacts *k, const void *arg)
{
	const struct loss_arg *a = arg;

	if (k->loss_seen)
		return;	/* the first sighting stays */
	k->loss_seen = true;
	snprintf(k->seen_by, sizeof(k->seen_by), "%s", a->by);
	snprintf(k->detail, sizeof(k->detail), "%s", a->detail);
	k->seen_at = (int64_t)time(NULL);
}

int kfacts_note_loss(const char *path, const char *by, const char *detail)
{
	struct loss_arg a = { by, detail };

	return update(path, set_loss, &a);
}

static void add_clean(struct kfacts *k, const void *arg)
{
	k->clean_probe_ms += *(const uint64_t *)arg;
}

int kfacts_note_clean(const char *path, uint64_t ms)
{
	return update(path, add_clean, &ms);
}
