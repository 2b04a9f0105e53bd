// SPDX-License-Identifier: GPL-2.0-or-later
/* --by cgroup: the cgroup cache a run keys its groups on. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "bycgroup.h"
#include "grow.h"
#include "procfs.h"

int by_cgroup_open(struct by_cgroup *b, const char *controller, unsigned depth, uint32_t max_ids,
		   char *err, size_t errlen)
{
	struct cgroup_cache_cfg cfg = { 0 };
	char why[512] = "";
	int ret;

	memset(b, 0, sizeof(*b));
	ret = cgroup_hierarchy_pick(controller, &b->hier, why, sizeof(why));
	if (ret) {
		snprintf(err, errlen, "--by cgroup: %s%s", why[0] ? why : strerror(-ret),
			 controller ? "" : " (--cgroup-controller NAME picks another hierarchy)");
		return ret;
	}
	snprintf(b->controller, sizeof(b->controller), "%s",
		 controller && *controller ? controller : "cpu");
	cfg.hier = &b->hier;
	cfg.depth = depth;
	cfg.max_ids = max_ids;
	cfg.ns_relative = cgroup_ns_own();
	ret = cgroup_cache_init(&b->cache, &cfg);
	if (ret) {
		snprintf(err, errlen, "--by cgroup: cannot set up the cgroup cache: %s",
			 strerror(-ret));
		return ret;
	}
	b->on = true;
	/* the names a container's user reads: this container, the host */
	snprintf(b->root_label, sizeof(b->root_label), "%s", cfg.ns_relative ?
		 "/ (this container)" : "/ (the host's root)");
	if (proc_pidns_foreign() > 0 || access("/run/.containerenv", F_OK) == 0) {
		b->self_id = cgroup_cache_id(&b->cache, (int32_t)getpid());
		if (b->self_id > 0)
			snprintf(b->self_label, sizeof(b->self_label), "%.60s (this container)",
				 cgroup_cache_short(&b->cache, b->self_id));
	}
	return 0;
}

void by_cgroup_close(struct by_cgroup *b)
{
	if (b->on)
		cgroup_cache_fini(&b->cache);
	b->on = false;
	free(b->rec);
	free(b->rec_text);
	b->rec = NULL;
	b->rec_text = NULL;
	b->nrec = 0;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec_cgroup *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* the cache's reader over the recording: its line as /proc's v2 line */
static ssize_t rec_read(void *arg, int32_t tid, char *buf, size_t len)
{
	const struct by_cgroup *b = arg;
	struct rec_cgroup key = { tid, NULL }, *e;
	int n;

	e = b->nrec ? bsearch(&key, b->rec, b->nrec, sizeof(*b->rec), cmp_rec) : NULL;
	if (!e)
		return -ENOENT;
	n = snprintf(buf, len, "0::%s\n", e->path);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

/* "TID PATH" lines into b->rec, pointing into b->rec_text (a copy, cut at each '\n') */
static int rec_parse(struct by_cgroup *b, const char *lines)
{
	size_t cap = 0;
	char *p, *nl, *end;
	long tid;

	b->rec_text = strdup(lines);
	if (!b->rec_text)
		return -ENOMEM;
	for (p = b->rec_text; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;	/* the section ends with a whole line */
		*nl = '\0';
		tid = strtol(p, &end, 10);
		if (end == p || *end != ' ' || end[1] != '/' || tid <= 0 || tid > INT32_MAX)
			continue;
		{
			struct rec_cgroup *v = mem_grow_from(b->rec, &cap, b->nrec, sizeof(*v), 256);

			if (!v)
				return -ENOMEM;
			b->rec = v;
			b->rec[b->nrec].tid = (int32_t)tid;
			b->rec[b->nrec++].path = end + 1;
		}
	}
	if (b->nrec)
		qsort(b->rec, b->nrec, sizeof(*b->rec), cmp_rec);
	return 0;
}

int by_cgroup_open_recorded(struct by_cgroup *b, const char *lines, const char *keyed,
			    unsigned depth, uint32_t max_ids, char *err, size_t errlen)
{
	struct cgroup_cache_ops ops = { .read = rec_read, .arg = b };
	struct cgroup_cache_cfg cfg = { 0 };
	int ret;

	memset(b, 0, sizeof(*b));
	b->hier.v1_id = -1;	/* the lines as v2's: one hierarchy */
	snprintf(b->hier.root, sizeof(b->hier.root), "(the recording)");
	snprintf(b->rec_keyed, sizeof(b->rec_keyed), "%s", keyed && *keyed ? keyed :
		 "a hierarchy not said");
	b->recorded = true;
	ret = rec_parse(b, lines);
	cfg.hier = &b->hier;
	cfg.depth = depth;
	cfg.max_ids = max_ids;
	cfg.ops = &ops;
	if (!ret)
		ret = cgroup_cache_init(&b->cache, &cfg);
	if (ret) {
		snprintf(err, errlen, "--by cgroup: cannot read the recording's cgroups: %s",
			 strerror(-ret));
		free(b->rec);
		free(b->rec_text);
		memset(b, 0, sizeof(*b));
		return ret;
	}
	b->on = true;
	return 0;
}

struct dump {
	FILE *m;
};

static void dump_one(int32_t tid, const char *path, void *arg)
{
	struct dump *d = arg;

	if (path[0] == '/' && !strchr(path, '\n'))
		fprintf(d->m, "%d %s\n", tid, path);
}

char *by_cgroup_dump(const struct by_cgroup *b)
{
	struct dump d;
	char *buf = NULL;
	size_t len = 0;

	if (!b->on || b->recorded || !(d.m = open_memstream(&buf, &len)))
		return NULL;
	cgroup_cache_each(&b->cache, dump_one, &d);
	if (fclose(d.m) || !len) {
		free(buf);
		return NULL;
	}
	return buf;
}

int by_cgroup_id(int32_t tid, void *arg)
{
	struct by_cgroup *b = arg;

	return cgroup_cache_id(&b->cache, tid);
}

void by_cgroup_names(int id, const char **label, const char **path, void *arg)
{
	struct by_cgroup *b = arg;

	*label = cgroup_cache_short(&b->cache, id);
	*path = id == CGROUP_ID_UNKNOWN || id == CGROUP_ID_OTHER ? NULL :
		cgroup_cache_path(&b->cache, id);
	if (b->recorded)
		return;	/* a recording's names are as recorded */
	if (b->self_id > 0 && id == b->self_id && b->self_label[0])
		*label = b->self_label;
	else if (*path && !strcmp(*path, "/") && b->root_label[0])
		*label = b->root_label;
}

void by_cgroup_moved(int32_t pid, int32_t root, const char *path, void *arg)
{
	struct by_cgroup *b = arg;

	/* -ENOMEM leaves the thread where it was: nothing else to do here */
	if (!path)
		cgroup_cache_forget(&b->cache, pid);
	else
		(void)cgroup_cache_move(&b->cache, pid, root, path);
}

bool by_cgroup_want_moves(const struct by_cgroup *b, const struct trace_req *req)
{
	return b->on && !req->record_path && !req->replay_path;
}

#define FIRST_SIGHT ": a thread moved to another cgroup in the window counts in the one it " \
		    "was first seen in"

const char *by_cgroup_moves_note(const struct by_cgroup *b, const struct trace_req *req,
				 unsigned events, bool sampling)
{
	if (!b->on || req->replay_path)
		return NULL;
	if (req->record_path)
		return "--by cgroup: cgroup moves are not traced into a recording" FIRST_SIGHT;
	if (events & (1u << SEV_CGROUP_ATTACH))
		return NULL;
	if (sampling)
		return "--by cgroup: this backend samples /proc and sees no cgroup moves"
		       FIRST_SIGHT;
	return "--by cgroup: this kernel has no usable cgroup:cgroup_attach_task event"
	       FIRST_SIGHT;
}

void by_cgroup_describe(const struct by_cgroup *b, char *buf, size_t len)
{
	const char *ns = b->cache.ns_relative ? " (paths relative to this process's cgroup "
						"namespace)" : "";

	if (b->recorded)
		snprintf(buf, len, "the cgroups the recording holds (it was keyed on %s)",
			 b->rec_keyed);
	else if (b->hier.v1_id < 0)
		snprintf(buf, len, "the cgroup v2 hierarchy at %s%s", b->hier.root, ns);
	else
		snprintf(buf, len, "the v1 hierarchy %d (%s) at %s%s", b->hier.v1_id,
			 b->hier.v1_name[0] ? b->hier.v1_name : b->controller, b->hier.root, ns);
}
