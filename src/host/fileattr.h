/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A file replaced by rename() (-o's results, a recording) keeps the mode
 * and owner of the file it replaces: the one place that carries them over.
 */
#ifndef OFFCPU_FILEATTR_H
#define OFFCPU_FILEATTR_H

#include <stdbool.h>
#include <sys/types.h>

struct file_attrs {
	bool kept;		/* @path was a regular file: these are its own */
	mode_t mode;		/* permission bits (07777) */
	uid_t uid;
	gid_t gid;
};

/*
 * The mode and owner of the regular file at @path into @a (a->kept), or
 * a->kept false when there is none (no file, or a symlink: a symlink is
 * replaced, and what it points to is not ours to copy).
 */
void file_attrs_get(const char *path, struct file_attrs *a);
/*
 * Give the new file open on @fd @a's mode and owner (the owner where we
 * may: root; else the group where we may), or @dflt_mode when !a->kept.
 */
void file_attrs_apply(int fd, const struct file_attrs *a, mode_t dflt_mode);

#endif
