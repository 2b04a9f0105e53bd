// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --by cgroup: a thread's cgroup from /proc/<tid>/cgroup, the hierarchy
 * to key on, and a cgroup's display name.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgname.h"
#include "fileread.h"
#include "mounts.h"

/* One "ID:LIST:PATH" line of /proc/<tid>/cgroup, pointing into the text. */
struct cg_line {
	int id;
	const char *list, *list_end;	/* "cpu,cpuacct", "name=systemd", "" (v2) */
	const char *path, *path_end;	/* "/a/b" */
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* [s, e) as a number: digits only, at most 9 of them (an int); -1 if not */
static int span_int(const char *s, const char *e)
{
	int v = 0;

	if (s == e || e - s > 9)
		return -1;
	for (; s < e; s++) {
		if (!is_digit(*s))
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

/*
 * The line at *@p (text up to @end) into @l, *@p moved past it: 1, 0 at
 * the end of the text, -EINVAL when it is not "digits:list:/path".
 */
static int line_next(const char **p, const char *end, struct cg_line *l)
{
	const char *s = *p, *nl, *le, *c1, *c2;

	if (s >= end)
		return 0;
	nl = memchr(s, '\n', (size_t)(end - s));
	le = nl ? nl : end;
	*p = nl ? nl + 1 : end;
	c1 = memchr(s, ':', (size_t)(le - s));
	c2 = c1 ? memchr(c1 + 1, ':', (size_t)(le - c1 - 1)) : NULL;
	/* the path may hold ':' itself; the id and the list never do */
	if (!c2 || c2 + 1 == le || c2[1] != '/')
		return -EINVAL;
	l->id = span_int(s, c1);
	if (l->id < 0)
		return -EINVAL;
	l->list = c1 + 1;
	l->list_end = c2;
	l->path = c2 + 1;
	l->path_end = le;
	return 1;
}

/* the line is the hierarchy's: v2's, the v1 id's, or the one that names @v1_name */
static bool line_is(const struct cg_line *l, int v1_id, const char *v1_name)
{
	if (v1_id < 0)
		return l->id == 0 && l->list == l->list_end;
	if (v1_name && *v1_name)
		return mount_list_has(l->list, (size_t)(l->list_end - l->list), v1_name);
	return l->id == v1_id && l->list != l->list_end;
}

int cgroup_line_path(const char *text, size_t len, int v1_id, const char *v1_name,
		     char *path, size_t plen)
{
	const char *p = text, *end = text + len;
	struct cg_line l, found = { 0 };
	size_t n;
	int r;

	if (!plen)
		return -ENAMETOOLONG;
	path[0] = '\0';
	if (memchr(text, '\0', len))
		return -EINVAL;
	while ((r = line_next(&p, end, &l)) > 0) {
		if (!line_is(&l, v1_id, v1_name))
			continue;
		if (found.path)
			return -EINVAL;	/* a second line for the hierarchy: forged */
		found = l;
	}
	if (r < 0)
		return r;
	if (!found.path)
		return -ENOENT;
	n = (size_t)(found.path_end - found.path);
	if (n >= plen)
		return -ENAMETOOLONG;
	memcpy(path, found.path, n);
	path[n] = '\0';
	return 0;
}

int cgroup_controller_hierarchy(const char *cgroups, const char *controller, bool *enabled)
{
	size_t n = strlen(controller);
	const char *p = cgroups;

	*enabled = false;
	while (*p) {
		const char *le = p + strcspn(p, "\n"), *f[4], *fe[4];
		int i, hier;

		/* "name hierarchy num_cgroups enabled"; the header starts with '#' */
		for (i = 0; i < 4; i++) {
			p += strspn(p, " \t");
			f[i] = p;
			p += strcspn(p, " \t\n");
			fe[i] = p;
		}
		if ((size_t)(fe[0] - f[0]) == n && !memcmp(f[0], controller, n) && fe[3] <= le) {
			hier = span_int(f[1], fe[1]);
			i = span_int(f[3], fe[3]);
			if (hier < 0 || i < 0)
				return -EINVAL;
			*enabled = i == 1;
			return hier;
		}
		p = *le ? le + 1 : le;
	}
	return -ENOENT;
}

/* The id of the hierarchy @self (/proc/self/cgroup) lists as @name; -1 if none. */
static int self_id(const char *self, const char *name)
{
	const char *p = self, *end = self ? self + strlen(self) : NULL;
	struct cg_line l;

	if (!self)
		return -1;
	while (line_next(&p, end, &l) > 0)
		if (l.id > 0 && line_is(&l, 0, name))
			return l.id;
	return -1;
}

/* a named v1 hierarchy ("name=x" or "x") that is mounted: 1, 0 when none, or -errno */
static int pick_named(const char *ctl, const char *mounts, const char *self,
		      struct cgroup_hier *h, char *err, size_t errlen)
{
	char name[sizeof(h->v1_name)];
	int id;

	if ((size_t)snprintf(name, sizeof(name), "name=%s",
			     strncmp(ctl, "name=", 5) ? ctl : ctl + 5) >= sizeof(name))
		return 0;
	if (mounts_find(mounts, "cgroup", name, h->root, sizeof(h->root)))
		return 0;
	/* /proc/cgroups lists controllers only: the id is in /proc/self/cgroup */
	id = self_id(self, name);
	if (id < 0) {
		snprintf(err, errlen, "cgroup hierarchy %s is mounted at %s but not in "
			 "/proc/self/cgroup", name, h->root);
		return -ENOENT;
	}
	h->v1_id = id;
	snprintf(h->v1_name, sizeof(h->v1_name), "%s", name);
	return 1;
}

int cgroup_hierarchy_pick_text(const char *controller, const char *cgroups, const char *mounts,
			       const char *self, struct cgroup_hier *h, char *err, size_t errlen)
{
	const char *ctl = controller && *controller ? controller : "cpu";
	bool listed = false, enabled = false;
	int hier = 0, r;

	memset(h, 0, sizeof(*h));
	h->v1_id = -1;
	if (cgroups && strncmp(ctl, "name=", 5)) {
		hier = cgroup_controller_hierarchy(cgroups, ctl, &enabled);
		listed = hier >= 0;
	}
	if (listed && enabled && hier > 0) {
		if (mounts_find(mounts, "cgroup", ctl, h->root, sizeof(h->root))) {
			snprintf(err, errlen, "the cgroup v1 hierarchy of controller %s (%d) "
				 "is not mounted: mount it or choose another", ctl, hier);
			return -ENOENT;
		}
		h->v1_id = hier;
		return 0;
	}
	if (!listed) {
		r = pick_named(ctl, mounts, self, h, err, errlen);
		if (r)
			return r < 0 ? r : 0;
		/* a name the kernel does not know: not the v2 tree by accident */
		if (cgroups) {
			snprintf(err, errlen, "no cgroup controller or named hierarchy %s here "
				 "(/proc/cgroups lists the controllers)", ctl);
			return -ENOENT;
		}
	}
	/* cgroup v2: one tree whatever the controller */
	if (!mounts_find(mounts, "cgroup2", NULL, h->root, sizeof(h->root)))
		return 0;
	if (listed && !enabled)
		snprintf(err, errlen, "cgroup controller %s is disabled (cgroup_disable=) "
			 "and cgroup v2 is not mounted", ctl);
	else if (listed)
		snprintf(err, errlen, "cgroup controller %s is in no cgroup v1 hierarchy "
			 "and cgroup v2 is not mounted", ctl);
	else
		snprintf(err, errlen, "no cgroup controller or named hierarchy %s is "
			 "mounted%s, and cgroup v2 is not mounted", ctl,
			 cgroups ? "" : " (no /proc/cgroups)");
	return -ENOENT;
}

int cgroup_hierarchy_pick(const char *controller, struct cgroup_hier *h, char *err,
			  size_t errlen)
{
	char *cgroups = file_read("/proc/cgroups", NULL);
	char *mounts = file_read("/proc/self/mounts", NULL);
	char *self = file_read("/proc/self/cgroup", NULL);
	int ret;

	if (mounts) {
		ret = cgroup_hierarchy_pick_text(controller, cgroups, mounts, self, h, err,
						 errlen);
	} else {
		ret = -errno;
		snprintf(err, errlen, "cannot read /proc/self/mounts: %s", strerror(errno));
	}
	free(cgroups);
	free(mounts);
	free(self);
	return ret;
}

/* The length of @path's first @depth components (0: all of it; the root: "/"). */
static size_t path_cut(const char *path, unsigned depth)
{
	size_t i = 0, end = 0;
	unsigned k;

	if (!depth)
		return strlen(path);
	for (k = 0; k < depth; k++) {
		while (path[i] == '/')
			i++;
		if (!path[i])
			break;
		while (path[i] && path[i] != '/')
			i++;
		end = i;
	}
	return end ? end : (path[0] ? 1 : 0);
}

static bool is_hex(const char *s, size_t n, const char *also)
{
	for (; n; n--, s++)
		if (!is_digit(*s) && !(*s >= 'a' && *s <= 'f') && !strchr(also, *s))
			return false;
	return true;
}

/* The container id a component names: 64 hex digits, bare or as <runtime>-<id>[.scope]. */
static const char *container_id(const char *s, size_t n)
{
	static const char *const runtimes[] = { "docker-", "cri-containerd-", "crio-", "libpod-" };
	size_t i;

	if (n == 64 && is_hex(s, n, ""))
		return s;
	for (i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
		size_t pl = strlen(runtimes[i]);

		/* systemd's cgroup manager adds ".scope"; cgroupfs's (podman's
		 * libpod_parent/libpod-<id>) does not */
		if ((n == pl + 64 + 6 || n == pl + 64) && !memcmp(s, runtimes[i], pl) &&
		    is_hex(s + pl, 64, "") && (n == pl + 64 || !memcmp(s + pl + 64, ".scope", 6)))
			return s + pl;
	}
	return NULL;
}

/*
 * A Kubernetes pod's uid: "pod<uid>" (v1, cgroupfs driver) or
 * "kubepods[-<qos>]-pod<uid>.slice" (systemd driver: the uid's '-' as '_').
 */
static bool pod_uid(const char *s, size_t n, const char **uid, size_t *ulen)
{
	const char *e = s + n, *q;

	if (n >= 3 + 32 && n <= 3 + 36 && !memcmp(s, "pod", 3) && is_hex(s + 3, n - 3, "-")) {
		*uid = s + 3;
		*ulen = n - 3;
		return true;
	}
	/* "kubepods" "-pod" uid ".slice" at the least */
	if (n < 8 + 4 + 32 + 6 || memcmp(s, "kubepods-", 9) || memcmp(e - 6, ".slice", 6))
		return false;
	for (q = e - 6 - 4; q >= s + 8 && memcmp(q, "-pod", 4); q--)
		;
	*uid = q + 4;
	*ulen = (size_t)(e - 6 - *uid);
	return q >= s + 8 && *ulen >= 32 && *ulen <= 36 && is_hex(*uid, *ulen, "_");
}

/* @n bytes of @s appended at *@w (stopping short of @end's NUL); '_' as '-' if @dash */
static void put(char **w, char *end, const char *s, size_t n, bool dash)
{
	for (; n && *w < end; n--, s++)
		*(*w)++ = dash && *s == '_' ? '-' : *s;
}

/* The display name of [p, p + n) into @out (@len > 0 bytes). */
static void name_of(const char *p, size_t n, char *out, size_t len)
{
	const char *e = p + n, *c = p, *id = NULL, *uid = NULL, *rest = e, *tail = p;
	char *w = out, *end = out + len - 1;
	size_t ulen = 0;

	/* the deepest component that names a container or a pod */
	while (c < e) {
		const char *ce, *x;

		while (c < e && *c == '/')
			c++;
		ce = c;
		while (ce < e && *ce != '/')
			ce++;
		if ((x = container_id(c, (size_t)(ce - c)))) {
			id = x;
			uid = NULL;
			rest = ce;
		} else if (pod_uid(c, (size_t)(ce - c), &x, &ulen)) {
			uid = x;
			id = NULL;
			rest = ce;
		}
		c = ce;
	}
	if (id) {
		put(&w, end, id, 12, false);
		put(&w, end, rest, (size_t)(e - rest), false);
	} else if (uid) {
		put(&w, end, "pod", 3, false);
		put(&w, end, uid, ulen, true);
		put(&w, end, rest, (size_t)(e - rest), false);
	} else {
		/* the path itself; too long: "..." and its tail, from a '/' if it can */
		if (n > len - 1 && len > 4) {
			tail = e - (len - 1 - 3);
			c = memchr(tail, '/', (size_t)(e - tail));
			tail = c ? c : tail;
			put(&w, end, "...", 3, false);
		}
		put(&w, end, tail, (size_t)(e - tail), false);
	}
	*w = '\0';
	for (w = out; *w; w++)
		if ((unsigned char)*w < 0x20 || *w == 0x7f)
			*w = '?';
}

void cgroup_name(const char *path, unsigned depth, char *short_name, size_t slen, char *rolled,
		 size_t rlen)
{
	size_t n = path_cut(path, depth);

	if (rlen) {
		size_t k = n < rlen ? n : rlen - 1;

		memcpy(rolled, path, k);
		rolled[k] = '\0';
	}
	if (slen)
		name_of(path, n, short_name, slen);
}
