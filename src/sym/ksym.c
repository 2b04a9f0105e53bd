// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel symbols from /proc/kallsyms (or a recording's subset) by address. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "ksym.h"
#include "procfs.h"
#include "hash.h"

#define KSYM_NO_MOD	UINT32_MAX	/* built into vmlinux */

struct ksym {
	uint64_t addr;
	uint32_t name;		/* offset in the pool */
	uint32_t mod;		/* offset in the pool, or KSYM_NO_MOD */
	uint32_t rank;		/* among aliases at one address, lowest wins */
};

/* A name dropped for a better-ranked alias at its address. */
struct ksym_alias {
	uint64_t addr;
	uint32_t name, mod;
};

struct ksyms {
	struct ksym *sym;	/* sorted by addr, one per address */
	size_t nsym, cap;
	struct ksym_alias *alias;	/* the other names, for ksyms_addr_of() */
	size_t nalias, alias_cap;
	/* by name, built on the first ksyms_addr_of(): 1 + index, 0 empty
	 * (below nsym: sym[], then alias[]) */
	uint32_t *byname;
	size_t byname_mask;
	char *pool;		/* every name and module name, NUL-separated */
	size_t pool_len, pool_cap;
	bool restricted;
};

int ksym_parse_line(const char *line, struct ksym_line *l)
{
	const char *p, *end;
	char *num_end;

	if (!isxdigit((unsigned char)line[0]))
		return -EINVAL;
	errno = 0;
	l->addr = strtoull(line, &num_end, 16);
	if (errno || *num_end != ' ')
		return -EINVAL;
	p = num_end + 1;
	if (!isalpha((unsigned char)p[0]) || p[1] != ' ')
		return -EINVAL;
	l->type = p[0];
	l->name = p + 2;
	l->name_len = strcspn(l->name, " \t\n");
	if (!l->name_len)
		return -EINVAL;
	l->mod = NULL;
	l->mod_len = 0;
	p = l->name + l->name_len;
	if (*p == '\0' || *p == '\n')
		return 0;
	p++;
	p += strspn(p, " \t");
	if (*p == '\0' || *p == '\n')
		return 0;
	if (*p != '[')
		return -EINVAL;
	p++;
	end = p + strcspn(p, "]\n");
	if (*end != ']' || end == p)
		return -EINVAL;
	l->mod = p;
	l->mod_len = (size_t)(end - p);
	return 0;
}

/* Copy @len bytes of @s and a NUL into the pool; returns its offset or a negative errno. */
static int64_t ksyms_pool_add(struct ksyms *k, const char *s, size_t len)
{
	size_t n = len + 1, off = k->pool_len;
	char *np;

	/* offsets are 32-bit; a real kallsyms is a few MiB */
	if (off + n > UINT32_MAX)
		return -EFBIG;
	np = mem_grow_from(k->pool, &k->pool_cap, off + n - 1, 1, 1 << 16);	/* its last byte */
	if (!np)
		return -ENOMEM;
	k->pool = np;
	memcpy(k->pool + off, s, len);
	k->pool[off + len] = '\0';
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

/* One text symbol of a parsed line. */
static int ksyms_add(struct ksyms *k, const struct ksym_line *l, int64_t *last_mod)
{
	struct ksym *s;
	int64_t off;

	s = mem_grow_from(k->sym, &k->cap, k->nsym, sizeof(*s), 4096);
	if (!s)
		return -ENOMEM;
	k->sym = s;
	s = &k->sym[k->nsym];
	s->addr = l->addr;
	s->rank = ksym_rank(l->type, l->name);
	off = ksyms_pool_add(k, l->name, l->name_len);
	if (off < 0)
		return (int)off;
	s->name = (uint32_t)off;
	s->mod = KSYM_NO_MOD;
	if (l->mod) {
		/* a module's symbols are listed together: store its name once */
		if (*last_mod < 0 || strlen(k->pool + *last_mod) != l->mod_len ||
		    memcmp(k->pool + *last_mod, l->mod, l->mod_len)) {
			*last_mod = ksyms_pool_add(k, l->mod, l->mod_len);
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
	for (i = 0; i < k->nsym; i++) {
		if (n == 0 || k->sym[i].addr != k->sym[n - 1].addr) {
			k->sym[n++] = k->sym[i];
		} else {
			/* kept by name only: /proc/<tid>/stack may print it */
			struct ksym_alias *a = mem_grow_from(k->alias, &k->alias_cap, k->nalias,
							     sizeof(*a), 256);

			if (!a)
				continue;	/* that name is then not found */
			k->alias = a;
			k->alias[k->nalias++] = (struct ksym_alias){ k->sym[i].addr, k->sym[i].name,
							       k->sym[i].mod };
		}
	}
	k->nsym = n;
}

/* The symbols of kallsyms text read from @f (closed here). */
static int ksyms_read(struct ksyms **out, FILE *f)
{
	struct ksyms *k;
	char *line = NULL;
	size_t line_cap = 0;
	int64_t last_mod = -1;
	bool nonzero = false;
	struct ksym_line l;
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
		ret = ksym_parse_line(line, &l);
		if (ret)
			goto out_close;
		/* restricted kallsyms prints every address as 0 */
		if (!l.addr)
			continue;
		nonzero = true;
		if (!ksym_is_text(l.type))
			continue;
		ret = ksyms_add(k, &l, &last_mod);
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
	free(k->alias);
	free(k->byname);
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

static uint64_t name_hash(const char *s)
{
	uint64_t h = fnv1a64_str(s);

	return h ^ (h >> 29);
}

static void entry_of(const struct ksyms *k, uint32_t i, uint64_t *addr, uint32_t *name,
		     uint32_t *mod)
{
	if (i < k->nsym) {
		*addr = k->sym[i].addr;
		*name = k->sym[i].name;
		*mod = k->sym[i].mod;
	} else {
		*addr = k->alias[i - k->nsym].addr;
		*name = k->alias[i - k->nsym].name;
		*mod = k->alias[i - k->nsym].mod;
	}
}

static int byname_build(struct ksyms *k)
{
	size_t n = k->nsym + k->nalias, size = 1024, j;
	uint32_t i;

	while (size < 2 * n)
		size *= 2;
	k->byname = calloc(size, sizeof(*k->byname));
	if (!k->byname)
		return -ENOMEM;
	k->byname_mask = size - 1;
	for (i = 0; i < n; i++) {
		uint64_t addr;
		uint32_t name, mod;

		entry_of(k, i, &addr, &name, &mod);
		for (j = name_hash(k->pool + name) & k->byname_mask; k->byname[j];
		     j = (j + 1) & k->byname_mask)
			;
		k->byname[j] = i + 1;
	}
	return 0;
}

/*
 * @name at @off into it: among symbols of that name (static functions
 * share names), the one in @mod (NULL: vmlinux) whose extent holds @off,
 * else one whose extent holds it, else one in @mod, else the first.
 */
static int addr_of_at(struct ksyms *k, const char *name, const char *mod, uint64_t off,
		      uint64_t *addr)
{
	int best = -1;
	size_t j;

	if (!k || k->restricted)
		return -ENOENT;
	if (!k->byname && byname_build(k))
		return -ENOMEM;
	for (j = name_hash(name) & k->byname_mask; k->byname[j]; j = (j + 1) & k->byname_mask) {
		const struct ksym *s;
		uint64_t a;
		uint32_t n, m;
		int score;

		entry_of(k, k->byname[j] - 1, &a, &n, &m);
		if (strcmp(k->pool + n, name))
			continue;
		s = ksyms_find(k, a + off);
		score = 2 * (s && s->addr == a) +
			(mod ? m != KSYM_NO_MOD && !strcmp(k->pool + m, mod) : m == KSYM_NO_MOD);
		if (score > best) {
			best = score;
			*addr = a;
		}
	}
	return best >= 0 ? 0 : -ENOENT;
}

int ksyms_addr_of(struct ksyms *k, const char *name, const char *mod, uint64_t *addr)
{
	return addr_of_at(k, name, mod, 0, addr);
}

unsigned ksyms_proc_stack(struct ksyms *k, const char *text, uint64_t *frames, unsigned max,
			  unsigned *unknown)
{
	struct proc_kframe f;
	const char *p = text;
	unsigned n = 0;

	*unknown = 0;
	while (*p && n < max) {
		char sym[128], mod[64];
		uint64_t addr;

		p = proc_kstack_line(p, &f);
		if (!f.name)
			continue;
		/* a name or module longer than any kallsyms holds is not there */
		if (f.len >= sizeof(sym) || f.mod_len >= sizeof(mod)) {
			(*unknown)++;
			continue;
		}
		memcpy(sym, f.name, f.len);
		sym[f.len] = '\0';
		memcpy(mod, f.mod ? f.mod : "", f.mod_len);
		mod[f.mod_len] = '\0';
		if (addr_of_at(k, sym, f.mod ? mod : NULL, f.off, &addr) == 0)
			frames[n++] = addr + f.off;
		else
			(*unknown)++;
	}
	return n;
}
