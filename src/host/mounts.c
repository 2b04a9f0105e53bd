// SPDX-License-Identifier: GPL-2.0-or-later
/* /proc/self/mounts lines: device, mount point, type, options. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mounts.h"

/* /proc/mounts escapes space, tab, newline and backslash as \ooo */
static void unescape_mount(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

/* the next blank-separated field of the line, cut with a NUL; NULL at its end */
static char *field(char **p)
{
	char *s = *p + strspn(*p, " \t"), *e;

	if (!*s)
		return NULL;
	e = s + strcspn(s, " \t");
	*p = *e ? e + 1 : e;
	*e = '\0';
	return s;
}

bool mounts_next(char **p, struct mount_ent *m)
{
	while (**p) {
		char *line = *p, *nl = strchr(line, '\n');

		*p = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		m->dev = field(&line);
		m->dir = m->dev ? field(&line) : NULL;
		m->type = m->dir ? field(&line) : NULL;
		m->opts = m->type ? field(&line) : NULL;
		if (!m->opts)
			continue;
		unescape_mount(m->dir);
		return true;
	}
	return false;
}

bool mount_list_has(const char *list, size_t len, const char *tok)
{
	size_t n = strlen(tok);
	const char *e = list + len, *s = list;

	if (!n)
		return false;
	while (s <= e) {
		const char *c = memchr(s, ',', (size_t)(e - s));
		const char *ie = c ? c : e;

		if ((size_t)(ie - s) == n && !memcmp(s, tok, n))
			return true;
		s = ie + 1;
	}
	return false;
}

int mounts_find(const char *mounts, const char *type, const char *opt, char *dir, size_t len)
{
	char *copy = strdup(mounts), *p = copy;
	struct mount_ent m;
	int ret = -ENOENT;

	if (!copy)
		return -ENOMEM;
	while (mounts_next(&p, &m)) {
		if (strcmp(m.type, type) || (opt && !mount_list_has(m.opts, strlen(m.opts), opt)))
			continue;
		snprintf(dir, len, "%s", m.dir);
		ret = 0;
		break;
	}
	free(copy);
	return ret;
}
