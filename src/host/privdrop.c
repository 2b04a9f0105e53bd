// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Capabilities a run no longer needs, given up for the rest of it: a copy
 * of the binary given file capabilities (SECURITY in offcpu-ftrace(8))
 * holds them only while it opens what needs them, not while it reads
 * the files its user names or runs for hours.
 */
#include <errno.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "privdrop.h"

int priv_drop(unsigned long long caps)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	unsigned i;

	if (geteuid() == 0)
		return 0;	/* root: its caps are its uid's, dropping a few buys nothing */
	if (syscall(SYS_capget, &h, d))
		return -errno;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		unsigned mask = (unsigned)(caps >> (32 * i));

		d[i].effective &= ~mask;
		d[i].permitted &= ~mask;
		d[i].inheritable &= ~mask;
	}
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}
