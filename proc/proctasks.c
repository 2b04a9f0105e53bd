// SPDX-License-Identifier: GPL-2.0-or-later
/* The proc backend's task table, reading a thread's counters, and finding the selected threads. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileread.h"
#include "grow.h"
#include "procfs.h"
#include "proctasks.h"

int ptasks_init(struct ptasks *t, uint32_t max)
{
	memset(t, 0, sizeof(*t));
	t->max = max;
	t->keep_fds = true;
	return posindex_init(&t->index, max);
}

static void ptask_close(struct ptask *p)
{
	if (p->fd_schedstat >= 0)
		close(p->fd_schedstat);
	if (p->fd_stat >= 0)
		close(p->fd_stat);
	if (p->fd_status >= 0)
		close(p->fd_status);
	if (p->fd_wchan >= 0)
		close(p->fd_wchan);
	p->fd_schedstat = p->fd_stat = p->fd_status = p->fd_wchan = -1;
	free(p->stacks);
	p->stacks = NULL;
}

void ptasks_fini(struct ptasks *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		ptask_close(&t->v[i]);
	free(t->v);
	posindex_fini(&t->index);
	memset(t, 0, sizeof(*t));
}

static uint32_t find_slot(const struct ptasks *t, int32_t tid)
{
	uint32_t i;

	for (i = posindex_first(&t->index, posindex_mix((uint64_t)tid)); t->index.slot[i] >= 0;
	     i = posindex_next(&t->index, i))
		if (t->v[t->index.slot[i]].tid == tid)
			break;
	return i;
}

struct ptask *ptasks_get(struct ptasks *t, int32_t tid, bool *created)
{
	uint32_t i = find_slot(t, tid);
	struct ptask *p, *v;

	*created = false;
	if (t->index.slot[i] >= 0)
		return &t->v[t->index.slot[i]];
	if (t->n == t->max)
		return NULL;
	v = mem_grow_from(t->v, &t->cap, t->n, sizeof(*v), 64);
	if (!v)
		return NULL;
	t->v = v;
	p = &v[t->n];
	memset(p, 0, sizeof(*p));
	p->tid = tid;
	p->fd_schedstat = p->fd_stat = p->fd_status = p->fd_wchan = -1;
	t->index.slot[i] = (int32_t)t->n++;
	t->seen_total++;
	*created = true;
	return p;
}

void ptasks_sweep(struct ptasks *t)
{
	uint32_t i, w = 0;

	for (i = 0; i < t->n && !t->v[i].gone; i++)
		;
	if (i == t->n)
		return;		/* nobody left: the index stands */

	for (i = 0; i < t->n; i++) {
		if (t->v[i].gone) {
			ptask_close(&t->v[i]);
			continue;
		}
		t->v[w++] = t->v[i];
	}
	t->n = w;
	posindex_clear(&t->index);
	for (i = 0; i < t->n; i++)
		posindex_put(&t->index, posindex_mix((uint64_t)t->v[i].tid), (int32_t)i);
}

/* One small /proc file into @buf: through the kept fd, or opened now. */
static int read_file(struct ptasks *t, const struct ptask *p, const char *name, int *fd,
		     char *buf, size_t len)
{
	char path[96];
	ssize_t n;
	int f = fd ? *fd : -1;

	if (f < 0) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", p->tgid, p->tid, name);
		f = open(path, O_RDONLY | O_CLOEXEC);
		if (f < 0) {
			if (errno == EMFILE || errno == ENFILE)
				t->keep_fds = false;
			return -errno;
		}
	}
	n = pread(f, buf, len - 1, 0);
	if (n < 0) {
		int e = -errno;

		close(f);
		if (fd)
			*fd = -1;
		return e == -ESRCH ? -ENOENT : e;
	}
	buf[n] = '\0';
	if (fd && t->keep_fds)
		*fd = f;
	else
		close(f);
	return 0;
}

int ptask_read(struct ptasks *t, struct ptask *p, bool switches, bool full,
	       struct proc_sample *s)
{
	char buf[2048];
	int ret;

	ret = read_file(t, p, "schedstat", &p->fd_schedstat, buf, sizeof(buf));
	if (!ret)
		ret = proc_parse_schedstat(buf, s);
	if (!ret && (full || !switches)) {
		ret = read_file(t, p, "stat", &p->fd_stat, buf, sizeof(buf));
		if (!ret)
			ret = proc_parse_stat(buf, s);
	}
	if (!ret && switches) {
		ret = read_file(t, p, "status", &p->fd_status, buf, sizeof(buf));
		if (!ret)
			ret = proc_parse_status(buf, s);
	}
	/* the state of a thread that has exited and is not yet reaped */
	if (!ret && (s->state == 'X' || s->state == 'x'))
		ret = -ENOENT;
	return ret == -EINVAL ? -ENOENT : ret;
}

int ptask_read_file(struct ptasks *t, struct ptask *p, const char *name, char *buf, size_t len)
{
	return read_file(t, p, name, !strcmp(name, "wchan") ? &p->fd_wchan : NULL, buf, len);
}

/*
 * Every thread of process @pid; returns how many. Not proc_threads(): this
 * runs for every process at every sample (no selection walks all of
 * /proc), so it hands each tid on as readdir() gives it, with no array to
 * allocate per process and no way to fail but the process being gone.
 */
static unsigned walk_threads(int32_t pid, void (*fn)(int32_t, int32_t, void *), void *arg)
{
	char path[64];
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		int32_t tid = (int32_t)atoi(de->d_name);

		if (tid <= 0)
			continue;
		fn(pid, tid, arg);
		n++;
	}
	closedir(d);
	return n;
}

/* Processes @pid's threads forked (CONFIG_PROC_CHILDREN); -1 if unknown. */
static int add_children(int32_t pid, struct tidset *followed)
{
	char path[96], buf[4096];
	int32_t *tids;
	int found = -1, nt, i;

	nt = proc_threads(pid, &tids);
	/* gone: nothing to add; out of memory: let add_by_parent() look */
	if (nt < 0)
		return nt == -ENOMEM ? -1 : 0;
	for (i = 0; i < nt; i++) {
		int32_t tid = tids[i];
		char *p, *end;
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, tid);
		n = file_read_buf(path, buf, sizeof(buf));
		/* a file that does not open says nothing; one that does, exists */
		if (n == -ENOENT || n == -EACCES || n == -EPERM)
			continue;
		found = 0;
		for (p = buf;; p = end) {
			long c = strtol(p, &end, 10);

			if (end == p)
				break;
			if (c > 0)
				tidset_add(followed, (int32_t)c);
		}
	}
	free(tids);
	return found;
}

/* Without children files: any process whose parent is followed joins. */
static void add_by_parent(struct tidset *followed)
{
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return;
	while ((de = readdir(d))) {
		int32_t pid = (int32_t)atoi(de->d_name);
		struct proc_sample s;
		char path[64], buf[1024];

		if (pid <= 0 || tidset_has(followed, pid))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		if (file_read_buf(path, buf, sizeof(buf)) < 0)
			continue;
		if (!proc_parse_stat(buf, &s) && tidset_has(followed, s.ppid))
			tidset_add(followed, pid);
	}
	closedir(d);
}

unsigned psel_walk(const struct psel *sel, struct tidset *followed,
		   void (*fn)(int32_t tgid, int32_t tid, void *arg), void *arg)
{
	struct dirent *de;
	unsigned n = 0, i;
	DIR *d;

	if (sel->tid > 0) {
		char path[64];
		int32_t tgid = -1;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/status", sel->tid);
		f = fopen(path, "re");
		if (!f)
			return 0;
		while (fgets(path, sizeof(path), f))
			if (!strncmp(path, "Tgid:", 5))
				tgid = (int32_t)atoi(path + 5);
		fclose(f);
		if (tgid <= 0)
			return 0;
		fn(tgid, sel->tid, arg);
		return 1;
	}
	if (sel->pid > 0)
		return walk_threads(sel->pid, fn, arg);
	if (sel->root > 0) {
		bool children = true;

		tidset_add(followed, sel->root);
		/* the set grows while it is walked: new members are walked too */
		for (i = 0; i < followed->n; i++)
			if (add_children(followed->v[i], followed) < 0)
				children = false;
		if (!children)
			add_by_parent(followed);
		for (i = 0; i < followed->n; i++)
			n += walk_threads(followed->v[i], fn, arg);
		return n;
	}
	/* every process we can see (-c filters by name in the analyzer) */
	d = opendir("/proc");
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		int32_t pid = (int32_t)atoi(de->d_name);

		if (pid > 0)
			n += walk_threads(pid, fn, arg);
	}
	closedir(d);
	return n;
}
