/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --by cgroup: each thread's cgroup as a small id. A thread's cgroup is
 * read from /proc/<tid>/cgroup at its first sight and changed by the
 * cgroup:cgroup_attach_task events where the kernel traces them, so a
 * thread moved mid-window counts in each cgroup for its share.
 *
 * Memory is bounded: CGROUP_CACHE_THREADS threads (8-way sets, 8 bytes a
 * thread: 512 KiB; a thread pushed out for room is read again at its next
 * sight) and @max_ids distinct cgroups (their rolled paths and names; a
 * cgroup past the cap is CGROUP_ID_OTHER, counted).
 *
 * Where this reads /proc, it reads it now, not at the event: a thread
 * first seen in events from before a move it made is read after it (the
 * attach event then comes in order and changes nothing), and a thread
 * gone by its first sight is CGROUP_ID_UNKNOWN. Paths from /proc are
 * relative to our cgroup namespace's root, the events' to the
 * hierarchy's: run in the initial cgroup namespace for both to agree.
 */
#ifndef OFFCPU_CGCACHE_H
#define OFFCPU_CGCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgname.h"
#include "posindex.h"

#define CGROUP_CACHE_SET_BITS 13
#define CGROUP_CACHE_WAYS 8
#define CGROUP_CACHE_THREADS ((1u << CGROUP_CACHE_SET_BITS) * CGROUP_CACHE_WAYS)
#define CGROUP_IDS_DEFAULT 1024		/* distinct cgroups when max_ids is 0 */
#define CGROUP_IDS_LIMIT (1u << 20)	/* the most max_ids may ask for */
/* dst_path's buffer in the kernel (TRACE_CGROUP_PATH_LEN): longer paths are cut */
#define CGROUP_EVENT_PATH_MAX 1024

/* Reserved ids, whose path and short name are "(unknown)" and "(other)". */
#define CGROUP_ID_UNKNOWN 0	/* gone by its first sight, unreadable, malformed */
#define CGROUP_ID_OTHER 1	/* a cgroup past max_ids */

/* Where a thread's cgroup text comes from (tests feed fixtures). */
struct cgroup_cache_ops {
	/*
	 * /proc/<tid>/cgroup into @buf: at most @len - 1 bytes, NUL-terminated.
	 * The byte count, or a negative errno (-ENOENT: the thread is gone).
	 */
	ssize_t (*read)(void *arg, int32_t tid, char *buf, size_t len);
	/*
	 * The threads of @tid's process (/proc/<tid>/task), newly allocated,
	 * caller frees: their count, or a negative errno. NULL: not asked.
	 */
	int (*threads)(void *arg, int32_t tid, int32_t **tids);
	void *arg;
};

struct cgroup_cache_cfg {
	const struct cgroup_hier *hier;	/* the hierarchy keyed on (cgroup_hierarchy_pick) */
	unsigned depth;			/* --cgroup-depth: 0 keeps whole paths */
	uint32_t max_ids;		/* distinct cgroups; 0: CGROUP_IDS_DEFAULT */
	const struct cgroup_cache_ops *ops;	/* NULL: /proc */
	/*
	 * this process is in a cgroup namespace of its own (a container):
	 * /proc shows paths relative to it, the moves' events from the
	 * hierarchy's root, so a moved thread is read again from /proc
	 * (cgroup_ns_own())
	 */
	bool ns_relative;
};

struct cgroup_cache_stats {
	uint64_t reads;		/* texts read (first sights, moved processes' threads) */
	uint64_t gone;		/* ... of threads gone or unreadable: CGROUP_ID_UNKNOWN */
	uint64_t bad;		/* ... malformed, or no line for the hierarchy: UNKNOWN */
	uint64_t overflow;	/* threads put in CGROUP_ID_OTHER: past max_ids */
	uint64_t evicted;	/* threads pushed out for room (read again when next seen) */
	uint64_t moves;		/* attach events applied */
	uint64_t moves_cut;	/* ... whose path may be cut: the thread is read again */
	uint64_t moves_ns;	/* ... in a cgroup namespace: the thread read again */
};

/* One interned cgroup. */
struct cgroup_ent {
	char *path;		/* the rolled path (raw bytes): owned */
	uint64_t hash;
	char short_name[CGROUP_NAME_MAX];
};

struct cgroup_cache {
	struct cgroup_slot {
		int32_t tid;	/* 0: empty (the idle tasks, tid 0, are never stored) */
		int32_t id;
	} *slot;		/* CGROUP_CACHE_THREADS, set by set */
	struct cgroup_ent *ent;	/* by id */
	size_t cap;
	uint32_t n;		/* ids in use, the reserved ones included */
	uint32_t max_ids;
	struct posindex index;	/* rolled path -> id */
	int v1_id;
	char v1_name[64];
	unsigned depth;
	struct cgroup_cache_ops ops;
	uint32_t victim;	/* the way a full set gives up next */
	int root_id;		/* the id of "/" (the idle tasks'), -1 before */
	bool ns_relative;	/* cgroup_cache_cfg's */
	char *text;		/* CGROUP_TEXT_MAX bytes: one thread's text */
	struct cgroup_cache_stats stats;
};

/*
 * 0, -EINVAL (no hierarchy, max_ids past CGROUP_IDS_LIMIT) or -ENOMEM.
 * Free with cgroup_cache_fini().
 */
int cgroup_cache_init(struct cgroup_cache *c, const struct cgroup_cache_cfg *cfg);
/* Frees what init allocated; @c may be NULL. */
void cgroup_cache_fini(struct cgroup_cache *c);

/*
 * The cgroup @tid is in, as an id (< 2 + max_ids): cached, else read from
 * /proc/<tid>/cgroup now; CGROUP_ID_UNKNOWN or CGROUP_ID_OTHER when it
 * cannot be told apart; the idle tasks (0) are in "/". -EINVAL for a
 * negative tid, -ENOMEM.
 */
int cgroup_cache_id(struct cgroup_cache *c, int32_t tid);

/*
 * A cgroup:cgroup_attach_task event: task @pid moved to @dst_path in
 * hierarchy @dst_root. Its format on the 6.18 host (read from tracefs):
 *
 *   field:int dst_root;                 offset:8;  size:4; signed:1;
 *   field:int dst_level;                offset:12; size:4; signed:1;
 *   field:u64 dst_id;                   offset:16; size:8; signed:0;
 *   field:int pid;                      offset:24; size:4; signed:1;
 *   field:__data_loc char[] dst_path;   offset:28; size:4; signed:0;
 *   field:__data_loc char[] comm;       offset:32; size:4; signed:0;
 *
 * and, from the kernel's source (include/trace/events/cgroup.h, class
 * cgroup_migrate; the fixture kernels' formats/ hold sched events only),
 * the same on Debian's 6.1 and 6.12 and on 5.10.223: "cgroup: Trace event
 * cgroup id fields should be u64" (5.17, in stable from 5.10.94) made
 * dst_id a u64 after dst_level. Older kernels lay it out otherwise (dst_id
 * an int after dst_root; in 4.x dst_path before pid): read the offsets
 * from the format file. The event exists wherever CONFIG_CGROUPS and
 * tracepoints are (all four kernels' configs).
 *
 * dst_root is the hierarchy id (0 for cgroup v2, as in /proc/<tid>/cgroup):
 * on v1 one move into a container fires once per hierarchy, and events of
 * other hierarchies are ignored here (1 is returned). dst_path is the path
 * from the hierarchy's root (cgroup_path(), not namespace-relative), cut
 * at CGROUP_EVENT_PATH_MAX - 1 bytes: a path that long may be cut, so the
 * thread is read from /proc instead. The event fires once per write to
 * cgroup.procs or tasks, after the migration, in the writer's context
 * (common_pid), with @pid the task written, i.e. the thread-group leader
 * when a whole process moved (the event does not say which): so the
 * process's other threads we have seen are read again from /proc.
 * cgroup_transfer_tasks (v1 cpuset emptied) has the same format, one
 * event per task: feed it here too.
 *
 * 0 when applied, 1 when another hierarchy's, -EINVAL (pid <= 0, a path
 * not starting with '/'), -ENOMEM.
 */
int cgroup_cache_move(struct cgroup_cache *c, int32_t pid, int dst_root, const char *dst_path);

/*
 * Whether this process is in a cgroup namespace other than the initial one
 * (/proc/self/ns/cgroup's inode is not the kernel's fixed initial one):
 * /proc/TID/cgroup then shows paths relative to the namespace's root.
 */
bool cgroup_ns_own(void);

/* Forget @tid (it exited: its tid may come back as another thread). */
void cgroup_cache_forget(struct cgroup_cache *c, int32_t tid);

/*
 * Each thread the cache holds now in a known cgroup (not (unknown) or
 * (other)): @fn(tid, its cgroup's rolled path, @arg), in no order.
 */
void cgroup_cache_each(const struct cgroup_cache *c,
		       void (*fn)(int32_t tid, const char *path, void *arg), void *arg);

/* The rolled path of cgroup @id (raw bytes: escape it), or NULL when there is none. */
const char *cgroup_cache_path(const struct cgroup_cache *c, int id);
/* Its display name (cgroup_name()), or NULL. */
const char *cgroup_cache_short(const struct cgroup_cache *c, int id);
/* How many ids are in use (the reserved ones included). */
uint32_t cgroup_cache_count(const struct cgroup_cache *c);

#endif
