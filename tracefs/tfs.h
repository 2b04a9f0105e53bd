/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracefs access for the backends: an undo list
 * that every kernel-visible change is recorded in before it is made, then
 * replayed in reverse on every exit path.
 */
#ifndef OFFCPU_TFS_H
#define OFFCPU_TFS_H

#include <stdbool.h>
#include <stddef.h>

struct tracefs_instance;

#define TFS_PREFIX "offcpu-ftrace"


enum tfs_undo_kind {
	UNDO_INSTANCE,		/* remove an instance we created */
	UNDO_WRITE,		/* write text to a file (e.g. "!synth" to remove) */
};

struct tfs_undo {
	enum tfs_undo_kind kind;
	struct tracefs_instance *inst;	/* UNDO_INSTANCE */
	char *path;			/* UNDO_WRITE: absolute path */
	char *text;
	bool append;
};

struct tfs_undo_list {
	struct tfs_undo *v;
	unsigned n;
	size_t cap;
};

/* Record an undo step before making the change. 0 or -ENOMEM. */
int tfs_undo_instance(struct tfs_undo_list *u, struct tracefs_instance *inst);
int tfs_undo_write(struct tfs_undo_list *u, const char *path, const char *text,
		   bool append);
/* Forget the last step: the change it would undo was never made. */
void tfs_undo_drop_last(struct tfs_undo_list *u);
/* Replay in reverse and empty the list; returns the number of failures. */
unsigned tfs_undo_run(struct tfs_undo_list *u);

/*
 * Create our instance "offcpu-ftrace.<pid>[.<n>]" and record its removal.
 * Fails rather than reuse an instance that already exists.
 */
int tfs_instance_new(struct tfs_undo_list *u, const char *tracefs_dir,
		     struct tracefs_instance **out, char *err, size_t errlen);
/* Write a file of our instance; 0 or a negative errno. */
int tfs_inst_write(struct tracefs_instance *inst, const char *file, const char *val);
/* Write @text to @path in one write(); 0 or -errno (-EIO if short). */
int tfs_write_file(const char *path, const char *text, bool append);
/* Read a file of our instance into @buf (NUL-terminated); 0 or -errno. */
int tfs_inst_read(struct tracefs_instance *inst, const char *file, char *buf, size_t len);

#endif
