// SPDX-License-Identifier: GPL-2.0-or-later
/* --by cgroup: each thread's cgroup as a small id, bounded in memory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgcache.h"
#include "fileread.h"
#include "grow.h"
#include "hash.h"
#include "procfs.h"

#define RESERVED_IDS 2

static ssize_t proc_cgroup_read(void *arg, int32_t tid, char *buf, size_t len)
{
	char path[64];

	(void)arg;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", tid);
	return file_read_buf(path, buf, len);
}

static int proc_group_threads(void *arg, int32_t tid, int32_t **tids)
{
	(void)arg;
	return proc_threads(tid, tids);
}

static const struct cgroup_cache_ops proc_ops = {
	.read = proc_cgroup_read,
	.threads = proc_group_threads,
};

/* id @id (the next) for @path named @name, owned: 0 or -ENOMEM */
static int ent_add(struct cgroup_cache *c, const char *path, const char *name, uint64_t hash)
{
	struct cgroup_ent *v = mem_grow(c->ent, &c->cap, c->n, sizeof(*c->ent));
	char *copy;

	if (!v)
		return -ENOMEM;
	c->ent = v;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	v[c->n].path = copy;
	v[c->n].hash = hash;
	snprintf(v[c->n].short_name, sizeof(v[c->n].short_name), "%s", name);
	c->n++;
	return 0;
}

int cgroup_cache_init(struct cgroup_cache *c, const struct cgroup_cache_cfg *cfg)
{
	memset(c, 0, sizeof(*c));
	c->root_id = -1;
	if (!cfg->hier || cfg->max_ids > CGROUP_IDS_LIMIT)
		return -EINVAL;
	c->v1_id = cfg->hier->v1_id;
	snprintf(c->v1_name, sizeof(c->v1_name), "%s", cfg->hier->v1_name);
	c->depth = cfg->depth;
	c->ns_relative = cfg->ns_relative;
	c->max_ids = cfg->max_ids ? cfg->max_ids : CGROUP_IDS_DEFAULT;
	c->ops = cfg->ops ? *cfg->ops : proc_ops;
	c->slot = calloc(CGROUP_CACHE_THREADS, sizeof(*c->slot));
	c->text = malloc(CGROUP_TEXT_MAX);
	if (!c->slot || !c->text || posindex_init(&c->index, c->max_ids) ||
	    ent_add(c, "(unknown)", "(unknown)", 0) || ent_add(c, "(other)", "(other)", 0)) {
		cgroup_cache_fini(c);
		return -ENOMEM;
	}
	return 0;
}

void cgroup_cache_fini(struct cgroup_cache *c)
{
	uint32_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		free(c->ent[i].path);
	free(c->ent);
	free(c->slot);
	free(c->text);
	posindex_fini(&c->index);
	memset(c, 0, sizeof(*c));
}

/* The id of @path rolled to the depth: found, added, or OTHER past the cap. */
static int intern(struct cgroup_cache *c, const char *path)
{
	char rolled[CGROUP_PATH_MAX], name[CGROUP_NAME_MAX];
	uint64_t h;
	uint32_t i;

	cgroup_name(path, c->depth, name, sizeof(name), rolled, sizeof(rolled));
	h = fnv1a64_str(rolled);
	for (i = posindex_first(&c->index, h); c->index.slot[i] >= 0;
	     i = posindex_next(&c->index, i)) {
		const struct cgroup_ent *e = &c->ent[c->index.slot[i]];

		if (e->hash == h && !strcmp(e->path, rolled))
			return c->index.slot[i];
	}
	if (c->n - RESERVED_IDS >= c->max_ids) {
		c->stats.overflow++;
		return CGROUP_ID_OTHER;
	}
	if (ent_add(c, rolled, name, h))
		return -ENOMEM;
	c->index.slot[i] = (int32_t)(c->n - 1);
	return (int)(c->n - 1);
}

static struct cgroup_slot *set_of(struct cgroup_cache *c, int32_t tid)
{
	return &c->slot[(tid_hash32(tid) >> (32 - CGROUP_CACHE_SET_BITS)) * CGROUP_CACHE_WAYS];
}

/* @tid's slot, or NULL when it is not cached */
static struct cgroup_slot *slot_find(struct cgroup_cache *c, int32_t tid)
{
	struct cgroup_slot *s = set_of(c, tid);
	unsigned w;

	for (w = 0; w < CGROUP_CACHE_WAYS; w++)
		if (s[w].tid == tid)
			return &s[w];
	return NULL;
}

/* @tid's slot: its own, an empty one, or the set's next victim's */
static struct cgroup_slot *slot_take(struct cgroup_cache *c, int32_t tid)
{
	struct cgroup_slot *s = set_of(c, tid), *e = slot_find(c, tid);
	unsigned w;

	for (w = 0; !e && w < CGROUP_CACHE_WAYS; w++)
		if (!s[w].tid)
			e = &s[w];
	if (!e) {
		e = &s[c->victim++ % CGROUP_CACHE_WAYS];
		c->stats.evicted++;
	}
	e->tid = tid;
	return e;
}

/* @tid's cgroup from its text now: an id, or -ENOMEM */
static int read_id(struct cgroup_cache *c, int32_t tid)
{
	char path[CGROUP_PATH_MAX];
	ssize_t n;

	c->stats.reads++;
	n = c->ops.read(c->ops.arg, tid, c->text, CGROUP_TEXT_MAX);
	if (n < 0) {
		c->stats.gone++;
		return CGROUP_ID_UNKNOWN;
	}
	/* a text that fills the buffer may be cut: its last line is not trusted */
	if ((size_t)n >= CGROUP_TEXT_MAX - 1 ||
	    cgroup_line_path(c->text, (size_t)n, c->v1_id, c->v1_name, path, sizeof(path))) {
		c->stats.bad++;
		return CGROUP_ID_UNKNOWN;
	}
	return intern(c, path);
}

int cgroup_cache_id(struct cgroup_cache *c, int32_t tid)
{
	struct cgroup_slot *s;
	int id;

	if (tid < 0)
		return -EINVAL;
	/* the idle tasks: no /proc/0, in the root cgroup (init_css_set) */
	if (tid == 0) {
		if (c->root_id < 0)
			c->root_id = intern(c, "/");
		return c->root_id;
	}
	s = slot_find(c, tid);
	if (s)
		return s->id;
	id = read_id(c, tid);
	if (id < 0)
		return id;
	slot_take(c, tid)->id = id;
	return id;
}

/* After @pid moved: the other threads of its process we hold, read again. */
static int reread_group(struct cgroup_cache *c, int32_t pid)
{
	int32_t *tids = NULL;
	int n, i, id;

	n = c->ops.threads ? c->ops.threads(c->ops.arg, pid, &tids) : 0;
	for (i = 0; i < n; i++) {
		struct cgroup_slot *s = tids[i] != pid ? slot_find(c, tids[i]) : NULL;

		if (!s)
			continue;
		id = read_id(c, tids[i]);
		if (id < 0) {
			free(tids);
			return id;
		}
		s->id = id;
	}
	free(tids);
	return 0;
}

int cgroup_cache_move(struct cgroup_cache *c, int32_t pid, int dst_root, const char *dst_path)
{
	int id;

	if (pid <= 0 || !dst_path || dst_path[0] != '/')
		return -EINVAL;
	if (dst_root != (c->v1_id < 0 ? 0 : c->v1_id))
		return 1;
	if (c->ns_relative || strlen(dst_path) >= CGROUP_EVENT_PATH_MAX - 1) {
		/* not /proc's path (a namespace's), or maybe cut: /proc's instead */
		if (c->ns_relative)
			c->stats.moves_ns++;
		else
			c->stats.moves_cut++;
		cgroup_cache_forget(c, pid);
		id = cgroup_cache_id(c, pid);
	} else {
		c->stats.moves++;
		id = intern(c, dst_path);
		if (id >= 0)
			slot_take(c, pid)->id = id;
	}
	return id < 0 ? id : reread_group(c, pid);
}

/* include/linux/proc_ns.h: PROC_CGROUP_INIT_INO, fixed since cgroup namespaces (4.6) */
#define CGROUP_NS_INIT_INO 0xEFFFFFFBu

bool cgroup_ns_own(void)
{
	struct stat st;

	return stat("/proc/self/ns/cgroup", &st) == 0 && st.st_ino != CGROUP_NS_INIT_INO;
}

void cgroup_cache_forget(struct cgroup_cache *c, int32_t tid)
{
	struct cgroup_slot *s = tid > 0 ? slot_find(c, tid) : NULL;

	if (s)
		s->tid = 0;
}

void cgroup_cache_each(const struct cgroup_cache *c,
		       void (*fn)(int32_t tid, const char *path, void *arg), void *arg)
{
	uint32_t i;

	for (i = 0; c->slot && i < CGROUP_CACHE_THREADS; i++)
		if (c->slot[i].tid > 0 && c->slot[i].id > CGROUP_ID_OTHER &&
		    (uint32_t)c->slot[i].id < c->n)
			fn(c->slot[i].tid, c->ent[c->slot[i].id].path, arg);
}

const char *cgroup_cache_path(const struct cgroup_cache *c, int id)
{
	return id >= 0 && (uint32_t)id < c->n ? c->ent[id].path : NULL;
}

const char *cgroup_cache_short(const struct cgroup_cache *c, int id)
{
	return id >= 0 && (uint32_t)id < c->n ? c->ent[id].short_name : NULL;
}

uint32_t cgroup_cache_count(const struct cgroup_cache *c)
{
	return c->n;
}
