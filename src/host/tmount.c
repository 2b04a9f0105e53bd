// SPDX-License-Identifier: GPL-2.0-or-later
/* Where tracefs is mounted (or debugfs's tracing/), and whether we may write it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fileread.h"
#include "mounts.h"
#include "tmount.h"

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

static int find_mount(const char *type, char *out, size_t len)
{
	char *text = file_read("/proc/self/mounts", NULL);
	int ret;

	if (!text)
		return -errno;
	ret = mounts_find(text, type, NULL, out, len);
	free(text);
	return ret;
}

/* why tracefs could not be mounted for this run (tmount_ensure), "" when it was not tried */
static char unavailable[320];

/* Is sysfs mounted at /sys (a chroot or a bare container may lack it)? */
static bool sysfs_mounted(void)
{
	struct stat st;

	return stat("/sys/kernel", &st) == 0 && S_ISDIR(st.st_mode);
}

int tmount_find(const char *override, char *dir, size_t len, char *err, size_t errlen)
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
	if (unavailable[0])
		snprintf(err, errlen, "%s", unavailable);
	else if (access("/sys/kernel/tracing", F_OK) == 0 && geteuid() != 0)
		snprintf(err, errlen, "tracefs is not mounted or not readable: "
			 "run as root (mount -t tracefs nodev /sys/kernel/tracing)");
	else if (!sysfs_mounted())
		snprintf(err, errlen, "tracefs is not mounted, and neither is sysfs at /sys "
			 "(a chroot or a container without /sys): mount -t sysfs sysfs /sys, "
			 "or bind the host's /sys/kernel/tracing in");
	else
		snprintf(err, errlen, "tracefs is not mounted: "
			 "mount -t tracefs nodev /sys/kernel/tracing");
	return -ENOENT;
}

bool tmount_writable(const char *dir)
{
	char p[PATH_MAX];
	struct statvfs vfs;

	if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
		return false;
	snprintf(p, sizeof(p), "%s/instances", dir);
	return faccessat(AT_FDCWD, p, W_OK, AT_EACCESS) == 0;
}


/* what tmount_ensure() mounted, for tmount_release() */
static char mounted_at[PATH_MAX];

int tmount_ensure(const char *override, char *dir, size_t len, char *err, size_t errlen)
{
	char found[PATH_MAX], why[256];
	struct stat st;

	err[0] = '\0';
	if (override || mounted_at[0])
		return 0;
	if (tmount_find(NULL, found, sizeof(found), why, sizeof(why)) == 0)
		return 0;
	/* only root may mount; others go on without tracefs (the proc backend) */
	if (geteuid() != 0)
		return 0;
	/*
	 * Root is a set of rights, not a uid: in a container root has no
	 * CAP_SYS_ADMIN, no /sys, or a read-only one. Not an error here: the
	 * backends that need no tracefs (perf's records, proc) may serve, and
	 * those that need it say this line (tmount_find).
	 */
	if (!sysfs_mounted()) {
		snprintf(unavailable, sizeof(unavailable), "tracefs is not mounted, and neither "
			 "is sysfs at /sys (a chroot or a container without /sys): mount -t "
			 "sysfs sysfs /sys, or bind the host's /sys/kernel/tracing in");
		snprintf(err, errlen, "%s", unavailable);
		return 0;
	}
	if (stat(TMOUNT_DEFAULT, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(unavailable, sizeof(unavailable), "%s does not exist: this kernel has "
			 "no tracefs (CONFIG_TRACING; before 4.1, mount debugfs at "
			 "/sys/kernel/debug)", TMOUNT_DEFAULT);
		snprintf(err, errlen, "%s", unavailable);
		return 0;
	}
	if (mount("nodev", TMOUNT_DEFAULT, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		int e = errno;

		snprintf(unavailable, sizeof(unavailable), "tracefs is not mounted and cannot be "
			 "mounted here (mount at %s: %s%s)", TMOUNT_DEFAULT, strerror(e),
			 e == EPERM || e == EACCES ? ": no CAP_SYS_ADMIN, as in a container; mount "
			 "it on the host and bind it in, or run the container with --privileged" :
			 e == EROFS ? ": /sys is read-only, as in a container; bind the host's "
			 "/sys/kernel/tracing in" : "");
		snprintf(err, errlen, "%s", unavailable);
		return 0;
	}
	snprintf(mounted_at, sizeof(mounted_at), "%s", TMOUNT_DEFAULT);
	snprintf(dir, len, "%s", mounted_at);
	return 1;
}

const char *tmount_mounted(void)
{
	return mounted_at[0] ? mounted_at : NULL;
}

int tmount_release(void)
{
	int ret = 0;

	if (!mounted_at[0])
		return 0;
	/* not lazily: a tracefs someone now uses stays */
	if (umount2(mounted_at, UMOUNT_NOFOLLOW))
		ret = -errno;
	mounted_at[0] = '\0';
	return ret;
}
