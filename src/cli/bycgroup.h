/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --by cgroup: the run's cgroup cache, on the hierarchy of
 * --cgroup-controller (cpu by default), rolled up at --cgroup-depth, and
 * the analyzer's callbacks that key on it and name its groups.
 */
#ifndef OFFCPU_BYCGROUP_H
#define OFFCPU_BYCGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "cgcache.h"

/* a recording's thread -> cgroup path, sorted by tid */
struct rec_cgroup {
	int32_t tid;
	const char *path;		/* into by_cgroup.rec_text */
};

struct by_cgroup {
	bool on;
	char controller[64];	/* --cgroup-controller, or "cpu" */
	struct cgroup_hier hier;
	struct cgroup_cache cache;
	/* report: the recording's cgroups in place of /proc (by_cgroup_open_recorded) */
	bool recorded;
	struct rec_cgroup *rec;
	size_t nrec;
	char *rec_text;
	char rec_keyed[512];	/* what the recording was keyed on */
	/*
	 * seen from inside a container: the cgroup this process is in (its
	 * id in the cache, 0 unknown), named so, and the root's name (the
	 * container's own cgroup in a cgroup namespace, else the host's)
	 */
	int self_id;
	char self_label[96], root_label[48];
};

/* 0, or -errno with a one-line reason (what is missing, what to do) in @err. */
int by_cgroup_open(struct by_cgroup *b, const char *controller, unsigned depth, uint32_t max_ids,
		   char *err, size_t errlen);
void by_cgroup_close(struct by_cgroup *b);
/*
 * report: keyed on a recording's cgroups (backend_window.cgroups: "TID
 * PATH" lines; @keyed: what they were keyed on, or NULL), rolled up at
 * @depth; threads it does not list are (unknown). 0, or -errno with a
 * one-line reason in @err.
 */
int by_cgroup_open_recorded(struct by_cgroup *b, const char *lines, const char *keyed,
			    unsigned depth, uint32_t max_ids, char *err, size_t errlen);
/*
 * A recording's cgroups: each thread the cache holds now, "TID PATH"
 * lines (paths with a newline left out), malloc'd; NULL when none or out
 * of memory
 */
char *by_cgroup_dump(const struct by_cgroup *b);
/* an_cfg.cgroup_of: @tid's cgroup id (@arg: the by_cgroup) */
int by_cgroup_id(int32_t tid, void *arg);
/* an_cfg.cgroup_names */
void by_cgroup_names(int id, const char **label, const char **path, void *arg);
/*
 * an_cfg.cgroup_moved: a cgroup event, applied to the cache in trace order
 * (a path the record did not hold whole: the thread is read again at its
 * next sight)
 */
void by_cgroup_moved(int32_t pid, int32_t root, const char *path, void *arg);
/*
 * trace_req.cgroup_moves: whether the backend should trace the moves. Not
 * into a recording (--record, --flight: it holds the sched events' formats
 * only), nor from one.
 */
bool by_cgroup_want_moves(const struct by_cgroup *b, const struct trace_req *req);
/*
 * After open (@events: the backend's events op, @sampling: it samples
 * /proc): the one line to note when moves are not traced, or NULL
 */
const char *by_cgroup_moves_note(const struct by_cgroup *b, const struct trace_req *req,
				 unsigned events, bool sampling);
/* "cpu hierarchy at /sys/fs/cgroup/cpu (v1)": which one it keys on */
void by_cgroup_describe(const struct by_cgroup *b, char *buf, size_t len);

#endif
