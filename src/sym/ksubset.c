// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel symbols a recording embeds for its stacks (tracefs/recfile.c):
 * the few kallsyms lines that name its frames exactly as the whole table
 * does, so a report on another host, or after a reboot, names them as the
 * live run would have.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "ksym.h"

struct sym {
	uint64_t addr;
	uint32_t rank;		/* ksym_rank(): the alias live runs name */
	const char *line;	/* in the kallsyms text */
	size_t len;		/* with its newline */
	bool keep;
};

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The text symbols of @text, in file order; *nonzero: some address is not 0. */
static int text_syms(const char *text, size_t len, struct sym **out, size_t *n, bool *nonzero)
{
	struct sym *s = NULL, *grown;
	size_t ns = 0, cap = 0;
	const char *p, *end;

	for (p = text; p < text + len; p = end) {
		struct ksym_line l;

		end = memchr(p, '\n', (size_t)(text + len - p));
		end = end ? end + 1 : text + len;
		if (ksym_parse_line(p, &l))
			continue;
		*nonzero |= l.addr != 0;
		/* what ksyms_load() reads: text symbols */
		if (!ksym_is_text(l.type))
			continue;
		grown = mem_grow_from(s, &cap, ns, sizeof(*s), 65536);
		if (!grown) {
			free(s);
			return -ENOMEM;
		}
		s = grown;
		s[ns++] = (struct sym){ .addr = l.addr, .rank = ksym_rank(l.type, l.name),
					.line = p, .len = (size_t)(end - p) };
	}
	*out = s;
	*n = ns;
	return 0;
}

/* For each frame, the symbol at or below it (its best alias) and the next one. */
static void mark_frames(struct sym *s, size_t ns, const uint64_t *addrs, size_t naddr)
{
	size_t i;

	qsort(s, ns, sizeof(*s), cmp_sym);
	for (i = 0; i < naddr; i++) {
		size_t lo = 0, hi = ns;

		/* the first symbol above the frame */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (s[mid].addr <= addrs[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		/* the best-ranked alias sorts first at its address */
		if (lo > 0) {
			size_t j = lo - 1;

			while (j > 0 && s[j - 1].addr == s[lo - 1].addr)
				j--;
			s[j].keep = true;
		}
		if (lo < ns)
			s[lo].keep = true;
	}
}

/* The kept lines, each ending in a newline, into a new buffer (and a NUL). */
static int join_kept(const struct sym *s, size_t ns, char **out, size_t *outlen)
{
	size_t i, n = 0;
	char *buf;

	for (i = 0; i < ns; i++)
		if (s[i].keep)
			n += s[i].len + (s[i].line[s[i].len - 1] != '\n');
	buf = malloc(n + 1);
	if (!buf)
		return -ENOMEM;
	for (i = 0, n = 0; i < ns; i++) {
		if (!s[i].keep)
			continue;
		memcpy(buf + n, s[i].line, s[i].len);
		n += s[i].len;
		if (s[i].line[s[i].len - 1] != '\n')
			buf[n++] = '\n';
	}
	buf[n] = '\0';
	*out = buf;
	*outlen = n;
	return 0;
}

int ksyms_subset(const char *text, size_t len, const uint64_t *addrs, size_t naddr, bool all,
		 char **out, size_t *outlen, enum ksyms_kept *kept)
{
	struct sym *s;
	size_t ns;
	bool nonzero = false;
	int ret;

	*out = NULL;
	*outlen = 0;
	*kept = KSYMS_KEPT_NONE;
	ret = text_syms(text, len, &s, &ns, &nonzero);
	if (ret)
		return ret;
	if (!nonzero) {
		/* kptr_restrict: every address reads 0, nothing to resolve with */
		*kept = KSYMS_KEPT_RESTRICTED;
	} else if (all) {
		*out = malloc(len + 1);
		if (!*out) {
			ret = -ENOMEM;
		} else {
			memcpy(*out, text, len);
			(*out)[len] = '\0';
			*outlen = len;
			*kept = KSYMS_KEPT_ALL;
		}
	} else if (naddr) {
		mark_frames(s, ns, addrs, naddr);
		ret = join_kept(s, ns, out, outlen);
		if (!ret)
			*kept = KSYMS_KEPT_SUBSET;
	}
	free(s);
	return ret;
}
