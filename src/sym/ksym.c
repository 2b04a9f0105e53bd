// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel symbols from /proc/kallsyms (or a recording's subset) by address. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksym.h"

#define KSYM_NO_MOD	UINT32_MAX	/* built into vmlinux */

struct ksym {
	uint64_t addr;
	uint32_t name;		/* offset in the pool */
	uint32_t mod;		/* offset in the pool, or KSYM_NO_MOD */
	uint32_t rank;		/* among aliases at one address, lowest wins */
};

struct ksyms {
	struct ksym *sym;	/* sorted by addr, one per address */
	size_t nsym, cap;
	char *pool;		/* every name and module name, NUL-separated */
	size_t pool_len, pool_cap;
	bool restricted;
};

/*
 * One line: "ffffffff81000000 T _stext" or "... t name\t[module]".
 * Splits @line in place; *mod is NULL for vmlinux symbols.
 */
static int ksyms_parse_line(char *line, uint64_t *addr, char *type,
			    char **name, char **mod)
{
	char *p, *end;

	if (!isxdigit((unsigned char)line[0]))
		return -EINVAL;
	errno = 0;
	*addr = strtoull(line, &end, 16);
	if (errno || *end != ' ')
		return -EINVAL;
	p = end + 1;
	if (!isalpha((unsigned char)p[0]) || p[1] != ' ')
		return -EINVAL;
	*type = p[0];
	*name = p + 2;
	p = *name + strcspn(*name, " \t\n");
	if (p == *name)
		return -EINVAL;
	*mod = NULL;
	if (*p == '\0' || *p == '\n') {
		*p = '\0';
		return 0;
	}
	*p++ = '\0';
	p += strspn(p, " \t");
	if (*p == '\0' || *p == '\n')
		return 0;
	if (*p != '[')
		return -EINVAL;
	end = strchr(++p, ']');
	if (!end || end == p)
		return -EINVAL;
	*end = '\0';
	*mod = p;
	return 0;
}

/* Copy @s into the pool; returns its offset or a negative errno. */
static int64_t ksyms_pool_add(struct ksyms *k, const char *s)
{
	size_t n = strlen(s) + 1, off = k->pool_len;
	char *np;

	/* offsets are 32-bit; a real kallsyms is a few MiB */
	if (off + n > UINT32_MAX)
		return -EFBIG;
	if (off + n > k->pool_cap) {
		size_t cap = k->pool_cap ? k->pool_cap : 1 << 16;

		while (cap < off + n)
			cap *= 2;
		np = realloc(k->pool, cap);
		if (!np)
			return -ENOMEM;
		k->pool = np;
		k->pool_cap = cap;
	}
	memcpy(k->pool + off, s, n);
	k->pool_len += n;
	return (int64_t)off;
}

/*
 * Which alias at one address names the function in a stack: the fewest
 * leading underscores (startup_64 rather than _stext), then a global
 * before a local, then file order.
 */
uint32_t ksym_rank(char type, const char *name)
{
	uint32_t us = (uint32_t)strspn(name, "_");

	return (us > 255 ? 255 : us) << 8 | (isupper((unsigned char)type) ? 0 : 1);
}

static int ksyms_add(struct ksyms *k, uint64_t addr, char type,
		     const char *name, const char *mod, int64_t *last_mod)
{
	struct ksym *s;
	int64_t off;

	if (k->nsym == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 4096;

		s = realloc(k->sym, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		k->sym = s;
		k->cap = cap;
	}
	s = &k->sym[k->nsym];
	s->addr = addr;
	s->rank = ksym_rank(type, name);
	off = ksyms_pool_add(k, name);
	if (off < 0)
		return (int)off;
	s->name = (uint32_t)off;
	s->mod = KSYM_NO_MOD;
	if (mod) {
		/* a module's symbols are listed together: store its name once */
		if (*last_mod < 0 || strcmp(k->pool + *last_mod, mod)) {
			*last_mod = ksyms_pool_add(k, mod);
			if (*last_mod < 0)
				return (int)*last_mod;
		}
		s->mod = (uint32_t)*last_mod;
	}
	k->nsym++;
	return 0;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	/* pool offsets grow in file order */
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Sort, then keep the best-ranked alias of each address. */
static void ksyms_sort(struct ksyms *k)
{
	size_t i, n = 0;

	if (!k->nsym)
		return;		/* qsort's base must not be NULL */
	qsort(k->sym, k->nsym, sizeof(*k->sym), ksym_cmp);
	for (i = 0; i < k->nsym; i++)
		if (n == 0 || k->sym[i].addr != k->sym[n - 1].addr)
			k->sym[n++] = k->sym[i];
	k->nsym = n;
}

/* The symbols of kallsyms text read from @f (closed here). */
static int ksyms_read(struct ksyms **out, FILE *f)
{
	struct ksyms *k;
	char *line = NULL, *name, *mod;
	size_t line_cap = 0;
	int64_t last_mod = -1;
	bool nonzero = false;
	uint64_t addr;
	char type;
	int ret;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k) {
		fclose(f);
		return -ENOMEM;
	}
	for (;;) {
		/* getline leaves errno alone at EOF and sets it on failure */
		errno = 0;
		if (getline(&line, &line_cap, f) < 0)
			break;
		if (line[0] == '\n')
			continue;
		ret = ksyms_parse_line(line, &addr, &type, &name, &mod);
		if (ret)
			goto out_close;
		/* restricted kallsyms prints every address as 0 */
		if (!addr)
			continue;
		nonzero = true;
		if (!strchr("tTwW", type))
			continue;
		ret = ksyms_add(k, addr, type, name, mod, &last_mod);
		if (ret)
			goto out_close;
	}
	if (errno || ferror(f)) {
		ret = errno ? -errno : -EIO;
		goto out_close;
	}
	k->restricted = !nonzero;
	ksyms_sort(k);
	ret = 0;
	*out = k;
out_close:
	free(line);
	fclose(f);
	if (ret)
		ksyms_free(k);
	return ret;
}

int ksyms_load(struct ksyms **out, const char *path)
{
	FILE *f = fopen(path, "re");

	*out = NULL;
	return f ? ksyms_read(out, f) : -errno;
}

int ksyms_parse(struct ksyms **out, const char *text, size_t len)
{
	FILE *f;

	*out = NULL;
	if (!len)
		return ksyms_read(out, fopen("/dev/null", "re"));
	f = fmemopen((void *)text, len, "r");
	return f ? ksyms_read(out, f) : -errno;
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	free(k->sym);
	free(k->pool);
	free(k);
}

bool ksyms_restricted(const struct ksyms *k)
{
	return !k || k->restricted;
}

size_t ksyms_count(const struct ksyms *k)
{
	return k ? k->nsym : 0;
}

/* The symbol covering @addr, or NULL. */
static const struct ksym *ksyms_find(const struct ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->nsym, mid;
	const struct ksym *s;

	/* lo ends as the number of symbols at or below addr */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (k->sym[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &k->sym[lo - 1];
	/* no sizes: bound the guess (data past _etext, gaps between modules) */
	if (addr - s->addr >= KSYMS_MAX_SPAN)
		return NULL;
	return s;
}

int ksyms_format(const struct ksyms *k, uint64_t addr, char *buf, size_t len)
{
	const struct ksym *s = k ? ksyms_find(k, addr) : NULL;

	if (!s) {
		snprintf(buf, len, "0x%" PRIx64, addr);
		return -ENOENT;
	}
	if (s->mod == KSYM_NO_MOD)
		snprintf(buf, len, "%s", k->pool + s->name);
	else
		snprintf(buf, len, "%s [%s]", k->pool + s->name, k->pool + s->mod);
	return 0;
}
