/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What this boot's kernel was seen to do, kept for the rest of the boot.
 *
 * Whether the kernel loses the sched tracepoints' hits of an idle CPU is a
 * fact of the running kernel, not of one run; a probe sees it only when a
 * loss happens while it counts (on the 6.18 development host a few times
 * a second per CPU at idle, none for seconds at other times), every
 * traced run can see it in its own events, and once seen it stays true
 * until the next boot. So the first sighting, by a probe or by a run, is
 * kept in a root-owned file (KFACTS_PATH) keyed by the boot id and the
 * kernel release, and every later run reads it instead of guessing again.
 * Probes that saw nothing add their time, so that `info` can say how much
 * looking a "none seen" stands on.
 */
#ifndef OFFCPU_KFACTS_H
#define OFFCPU_KFACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KFACTS_DIR "/run/offcpu-ftrace"
#define KFACTS_PATH KFACTS_DIR "/kernel-facts"
/* the environment variable that moves the file (tests), "" turns it off */
#define KFACTS_ENV "OFFCPU_FTRACE_STATE"

struct kfacts {
	char boot_id[40];		/* /proc/sys/kernel/random/boot_id */
	char release[128];		/* uname -r */
	bool loss_seen;			/* the tracepoints lose an idle CPU's hits */
	char seen_by[16];		/* "probe" or "run" */
	char detail[256];		/* what saw it, in words */
	int64_t seen_at;		/* when (Unix time, s) */
	uint64_t clean_probe_ms;	/* probing that saw no loss, summed this boot */
};

/* The file's path: $OFFCPU_FTRACE_STATE or KFACTS_PATH; NULL when turned off. */
const char *kfacts_path(void);
/* @k emptied and keyed to this boot (boot id, release). 0 or -errno. */
int kfacts_this_boot(struct kfacts *k);
/*
 * Parse the file's text into @k, which holds this boot's keys: 1 when the
 * text is this boot's (its facts now in @k), 0 when it is another boot's
 * or kernel's (ignored), -EINVAL when it is not such a file. Pure.
 */
int kfacts_parse(const char *text, struct kfacts *k);
/* The file's text for @k into @buf. Returns the length, or -ENOSPC. */
int kfacts_format(const struct kfacts *k, char *buf, size_t len);
/*
 * Load @path into @k (keyed by kfacts_this_boot()): 1 this boot's facts,
 * 0 none (absent, another boot's, or turned off), -EPERM when the file is
 * not root's own or others may write it (not trusted), -errno otherwise.
 */
int kfacts_load(const char *path, struct kfacts *k);
/*
 * The loss seen (by "probe" or "run", @detail in words): kept in @path
 * unless already there (the first sighting stays). Needs root. 0 or -errno.
 */
int kfacts_note_loss(const char *path, const char *by, const char *detail);
/* @ms of probing that saw no loss, added to @path. 0 or -errno. */
int kfacts_note_clean(const char *path, uint64_t ms);

#endif
