// SPDX-License-Identifier: GPL-2.0-or-later
/* The mode and owner a replaced file had, given to the file that replaces it. */
#include <sys/stat.h>
#include <unistd.h>

#include "fileattr.h"

void file_attrs_get(const char *path, struct file_attrs *a)
{
	struct stat st;

	a->kept = lstat(path, &st) == 0 && S_ISREG(st.st_mode);
	a->mode = a->kept ? st.st_mode & 07777 : 0;
	a->uid = a->kept ? st.st_uid : (uid_t)-1;
	a->gid = a->kept ? st.st_gid : (gid_t)-1;
}

void file_attrs_apply(int fd, const struct file_attrs *a, mode_t dflt_mode)
{
	int r;

	if (!a->kept) {
		fchmod(fd, dflt_mode);
		return;
	}
	/* not root: another owner is refused, the group may still be ours to give */
	r = fchown(fd, a->uid, a->gid);
	if (r < 0)
		r = fchown(fd, (uid_t)-1, a->gid);
	(void)r;
	/* after the chown, which clears set-id bits */
	fchmod(fd, a->mode);
}
