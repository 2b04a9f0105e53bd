// SPDX-License-Identifier: GPL-2.0-or-later
/* User symbols: a process's maps snapshot, ELF symbol tables, by address. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "usym.h"

#define USYM_BUCKETS	256		/* file cache hash chains */
#define USYM_DELETED	" (deleted)"	/* maps suffix of an unlinked file */
#define USYM_RANK_NOSIZE (1u << 16)	/* symbol rank bit: st_size was 0 */

struct usym_sym {
	uint64_t start, end;	/* ELF virtual addresses, end exclusive */
	uint32_t name;		/* offset in the file's pool */
	uint32_t rank;		/* among aliases at one address, lowest wins */
};

/* A PT_LOAD: how file offsets map to ELF virtual addresses. */
struct usym_seg {
	uint64_t off, vaddr, filesz;
};

struct usym_file {
	struct usym_file *next;		/* hash chain */
	uint64_t ino;
	unsigned dev_major, dev_minor;
	struct usym_seg *seg;		/* executable segments first */
	unsigned nseg;
	struct usym_sym *sym;		/* sorted by start, one per address */
	size_t nsym;
	char *pool;			/* symbol names */
	size_t bytes;			/* counted against USYMS_MAX_BYTES */
	char path[];			/* as the process names it */
};

struct usym_map {
	uint64_t start, end, pgoff;
	const struct usym_file *file;	/* NULL: no symbols for it */
	uint32_t name;			/* basename, offset in the proc's pool */
};

struct usym_proc {
	int32_t tgid;
	unsigned nmap;
	struct usym_map *map;		/* sorted by start, as maps lists them */
	char *pool;
};

struct usyms {
	struct usym_proc *proc;		/* sorted by tgid */
	unsigned nproc, cap, max_procs;
	struct usym_file *bucket[USYM_BUCKETS];
	unsigned nfile;
	size_t bytes;
};

/* One line of /proc/<pid>/maps, split in place. */
struct maps_line {
	uint64_t start, end, pgoff, ino;
	unsigned dev_major, dev_minor;
	bool exec, deleted;
	char *path;			/* "" for anonymous memory */
};

/* A growing NUL-separated string buffer addressed by 32-bit offsets. */
struct strpool {
	char *s;
	size_t len, cap;
};

static int64_t strpool_add(struct strpool *p, const char *s)
{
	size_t n = strlen(s) + 1, off = p->len;
	char *ns;

	if (off + n > UINT32_MAX)
		return -EFBIG;
	ns = mem_grow_from(p->s, &p->cap, off + n - 1, 1, 256);	/* its last byte */
	if (!ns)
		return -ENOMEM;
	p->s = ns;
	memcpy(p->s + off, s, n);
	p->len += n;
	return (int64_t)off;
}

/* "start-end perms offset major:minor inode   path" */
static int maps_parse_line(char *line, struct maps_line *m)
{
	size_t n, dl = strlen(USYM_DELETED);
	char perms[5];
	int pos = -1;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n",
		   &m->start, &m->end, perms, &m->pgoff, &m->dev_major,
		   &m->dev_minor, &m->ino, &pos) != 7 || pos < 0 ||
	    m->end <= m->start || strlen(perms) != 4)
		return -EINVAL;
	m->exec = perms[2] == 'x';
	m->path = line + pos;
	n = strcspn(m->path, "\n");
	m->path[n] = '\0';
	m->deleted = n > dl && !strcmp(m->path + n - dl, USYM_DELETED);
	if (m->deleted)
		m->path[n - dl] = '\0';
	return 0;
}

/*
 * Open the file behind mapping @m of @tgid, now, while the process lives.
 * O_NONBLOCK: should the path name a FIFO by now, open must not hang.
 * Returns an fd or a negative errno.
 */
static int usym_file_open(int32_t tgid, const struct maps_line *m)
{
	char buf[PATH_MAX + 64];
	struct stat st;
	int fd = -1, n;

	if (!m->deleted) {
		/* through the process's root: a container maps its own /usr/lib */
		n = snprintf(buf, sizeof(buf), "/proc/%d/root%s", tgid, m->path);
		if (n > 0 && (size_t)n < sizeof(buf))
			fd = open(buf, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		if (fd < 0)
			fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		if (fd >= 0) {
			/*
			 * Only the inode is compared: on overlayfs maps shows
			 * the underlying device, stat the overlay's.
			 */
			if (!fstat(fd, &st) && (uint64_t)st.st_ino == m->ino)
				return fd;
			/* replaced since it was mapped: not its symbols */
			close(fd);
		}
	}
	/* the mapped file itself, even unlinked (needs CAP_SYS_ADMIN) */
	snprintf(buf, sizeof(buf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 tgid, m->start, m->end);
	fd = open(buf, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	return fd < 0 ? -errno : fd;
}

static int usym_file_load_segs(struct usym_file *f, Elf *e)
{
	size_t n, i, nload = 0;
	GElf_Phdr ph;
	int pass;

	if (elf_getphdrnum(e, &n))
		return -ENOEXEC;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
			nload++;
	if (!nload)
		return -ENOEXEC;
	f->seg = calloc(nload, sizeof(*f->seg));
	if (!f->seg)
		return -ENOMEM;
	/* code first: a file page can be shared by two segments */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n; i++) {
			struct usym_seg *s = &f->seg[f->nseg];

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (!!(ph.p_flags & PF_X) != (pass == 0))
				continue;
			s->off = ph.p_offset;
			s->vaddr = ph.p_vaddr;
			s->filesz = ph.p_filesz;
			f->nseg++;
		}
	}
	f->bytes += nload * sizeof(*f->seg);
	return 0;
}

static bool usym_sym_wanted(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       s->st_shndx != SHN_UNDEF && s->st_value;
}

/*
 * Which alias at one address names the function: one with a size, then the
 * fewest leading underscores (getpid rather than __getpid, read rather
 * than __libc_read), then global before weak before local, then file order.
 */
static uint32_t usym_rank(const GElf_Sym *s, const char *name)
{
	uint32_t us = (uint32_t)strspn(name, "_"), bind;

	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
		bind = 0;
		break;
	case STB_WEAK:
		bind = 1;
		break;
	default:
		bind = 2;
		break;
	}
	return (s->st_size ? 0 : USYM_RANK_NOSIZE) | (us > 255 ? 255 : us) << 8 | bind;
}

static int usym_sym_cmp(const void *a, const void *b)
{
	const struct usym_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	/* pool offsets grow in table order */
	return x->name < y->name ? -1 : x->name > y->name;
}

/*
 * Where a symbol without a size ends at most: the end of its section, so
 * that .plt is not taken for part of _init. Nothing when unknown.
 */
static uint64_t usym_sym_limit(Elf *e, const GElf_Sym *sym)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (sym->st_shndx >= SHN_LORESERVE)
		return sym->st_value;
	scn = elf_getscn(e, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || sym->st_value < sh.sh_addr ||
	    sym->st_value - sh.sh_addr >= sh.sh_size)
		return sym->st_value;
	return sh.sh_addr + sh.sh_size;
}

/* Sort, keep the best alias of each address, and bound size-0 symbols. */
static void usym_file_index(struct usym_file *f)
{
	size_t i, n = 0;

	qsort(f->sym, f->nsym, sizeof(*f->sym), usym_sym_cmp);
	for (i = 0; i < f->nsym; i++)
		if (n == 0 || f->sym[i].start != f->sym[n - 1].start)
			f->sym[n++] = f->sym[i];
	f->nsym = n;
	/* no size (assembly): up to the next symbol at most */
	for (i = 0; i + 1 < n; i++)
		if ((f->sym[i].rank & USYM_RANK_NOSIZE) && f->sym[i + 1].start < f->sym[i].end)
			f->sym[i].end = f->sym[i + 1].start;
}

/*
 * Read the function symbols of the first section of @type into @f, within
 * @budget bytes. -ENODATA when the section is missing or has none.
 */
static int usym_file_load_syms(struct usym_file *f, Elf *e, Elf64_Word type,
			       size_t budget)
{
	size_t i, n, esz, count = 0, pool_len = 0, bytes;
	Elf_Scn *scn = NULL;
	const char *name;
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Sym sym;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			break;
	if (!scn)
		return -ENODATA;
	data = elf_getdata(scn, NULL);
	esz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
	if (!data || !esz)
		return -ENOEXEC;
	n = data->d_size / esz;
	if (n > INT_MAX)
		n = INT_MAX;
	/* count first: one exact allocation for the array, one for the names */
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(data, (int)i, &sym) || !usym_sym_wanted(&sym))
			continue;
		name = elf_strptr(e, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		count++;
		pool_len += strlen(name) + 1;
	}
	if (!count)
		return -ENODATA;
	bytes = count * sizeof(*f->sym) + pool_len;
	if (bytes > budget || pool_len > UINT32_MAX)
		return -EFBIG;
	f->sym = malloc(count * sizeof(*f->sym));
	f->pool = malloc(pool_len);
	if (!f->sym || !f->pool)
		return -ENOMEM;
	pool_len = 0;
	for (i = 0; i < n && f->nsym < count; i++) {
		struct usym_sym *s = &f->sym[f->nsym];
		size_t len;

		if (!gelf_getsym(data, (int)i, &sym) || !usym_sym_wanted(&sym))
			continue;
		name = elf_strptr(e, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		len = strlen(name) + 1;
		memcpy(f->pool + pool_len, name, len);
		s->name = (uint32_t)pool_len;
		pool_len += len;
		s->start = sym.st_value;
		if (!sym.st_size)
			s->end = usym_sym_limit(e, &sym);
		else if (sym.st_size > UINT64_MAX - sym.st_value)
			s->end = UINT64_MAX;
		else
			s->end = sym.st_value + sym.st_size;
		s->rank = usym_rank(&sym, name);
		f->nsym++;
	}
	f->bytes += bytes;
	usym_file_index(f);
	return 0;
}

static void usym_file_clear(struct usym_file *f)
{
	free(f->seg);
	free(f->sym);
	free(f->pool);
	f->seg = NULL;
	f->sym = NULL;
	f->pool = NULL;
	f->nseg = 0;
	f->nsym = 0;
	f->bytes = 0;
}

/* Read the segments and symbols of the file behind @m; 0 or -errno. */
static int usym_file_load(struct usym_file *f, int32_t tgid,
			  const struct maps_line *m, size_t budget)
{
	GElf_Ehdr eh;
	Elf *e;
	int fd, ret;

	fd = usym_file_open(tgid, m);
	if (fd < 0)
		return fd;
	/* ELF_C_READ reads sections on demand, and a truncated file cannot SIGBUS us */
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) {
		ret = -ENOEXEC;
		goto out_close;
	}
	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
		ret = -ENOEXEC;
		goto out_end;
	}
	ret = usym_file_load_segs(f, e);
	if (ret)
		goto out_end;
	budget = budget > f->bytes ? budget - f->bytes : 0;
	ret = usym_file_load_syms(f, e, SHT_SYMTAB, budget);
	/* stripped, or too big for what is left: the dynamic symbols then */
	if (ret == -ENODATA || ret == -EFBIG)
		ret = usym_file_load_syms(f, e, SHT_DYNSYM, budget);
out_end:
	elf_end(e);
out_close:
	close(fd);
	if (ret)
		usym_file_clear(f);
	return ret;
}

static unsigned usym_file_hash(const struct maps_line *m)
{
	uint64_t h = m->ino ^ (uint64_t)m->dev_major << 40 ^ (uint64_t)m->dev_minor << 20;

	return (unsigned)((h * 0x9e3779b97f4a7c15ULL) >> 56) % USYM_BUCKETS;
}

/*
 * The cached file behind @m, read on first sight. NULL when the cache is
 * full or memory is short: the mapping then prints as module+0xoff.
 */
static const struct usym_file *usyms_get_file(struct usyms *u, int32_t tgid,
					      const struct maps_line *m)
{
	unsigned b = usym_file_hash(m);
	struct usym_file *f;
	int ret;

	for (f = u->bucket[b]; f; f = f->next)
		if (f->ino == m->ino && f->dev_major == m->dev_major &&
		    f->dev_minor == m->dev_minor && !strcmp(f->path, m->path))
			return f;
	if (u->nfile >= USYMS_MAX_FILES)
		return NULL;
	f = calloc(1, sizeof(*f) + strlen(m->path) + 1);
	if (!f)
		return NULL;
	strcpy(f->path, m->path);
	f->ino = m->ino;
	f->dev_major = m->dev_major;
	f->dev_minor = m->dev_minor;
	/* a file without symbols is remembered too, not retried per process */
	ret = usym_file_load(f, tgid, m, USYMS_MAX_BYTES - u->bytes);
	/* these say nothing about the file: do not remember them */
	if (ret == -ENOMEM || ret == -EMFILE || ret == -ENFILE) {
		free(f);
		return NULL;
	}
	f->next = u->bucket[b];
	u->bucket[b] = f;
	u->nfile++;
	u->bytes += f->bytes;
	return f;
}

static void usym_proc_clear(struct usym_proc *p)
{
	free(p->map);
	free(p->pool);
}

static int usyms_proc_add_map(struct usyms *u, struct usym_proc *p,
			      size_t *cap, struct strpool *pool,
			      const struct maps_line *m)
{
	const char *base = strrchr(m->path, '/');
	struct usym_map *map;
	int64_t name;

	map = mem_grow(p->map, cap, p->nmap, sizeof(*map));
	if (!map)
		return -ENOMEM;
	p->map = map;
	name = strpool_add(pool, base ? base + 1 : m->path);
	if (name < 0)
		return (int)name;
	map = &p->map[p->nmap++];
	map->start = m->start;
	map->end = m->end;
	map->pgoff = m->pgoff;
	map->name = (uint32_t)name;
	/* no ELF file behind "[vdso]" and the like, nor device mappings */
	if (m->path[0] == '/' && strncmp(m->path, "/dev/", 5))
		map->file = usyms_get_file(u, p->tgid, m);
	else
		map->file = NULL;
	return 0;
}

struct usyms *usyms_new(unsigned max_procs)
{
	struct usyms *u;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->max_procs = max_procs;
	return u;
}

void usyms_free(struct usyms *u)
{
	struct usym_file *f, *next;
	unsigned i;

	if (!u)
		return;
	for (i = 0; i < u->nproc; i++)
		usym_proc_clear(&u->proc[i]);
	free(u->proc);
	for (i = 0; i < USYM_BUCKETS; i++) {
		for (f = u->bucket[i]; f; f = next) {
			next = f->next;
			usym_file_clear(f);
			free(f);
		}
	}
	free(u);
}

/* Index of the first snapshot whose tgid is >= @tgid. */
static unsigned usyms_proc_pos(const struct usyms *u, int32_t tgid)
{
	unsigned lo = 0, hi = u->nproc, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (u->proc[mid].tgid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int usyms_proc_insert(struct usyms *u, unsigned pos,
			     const struct usym_proc *p)
{
	if (u->nproc == u->cap) {
		unsigned cap = u->cap ? u->cap * 2 : 16;
		struct usym_proc *np;

		if (cap > u->max_procs)
			cap = u->max_procs;
		np = realloc(u->proc, cap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		u->proc = np;
		u->cap = cap;
	}
	memmove(&u->proc[pos + 1], &u->proc[pos],
		(u->nproc - pos) * sizeof(*u->proc));
	u->proc[pos] = *p;
	u->nproc++;
	return 0;
}

int usyms_snapshot(struct usyms *u, int32_t tgid)
{
	struct usym_proc p = { .tgid = tgid };
	struct strpool pool = { 0 };
	char path[64], *line = NULL;
	size_t line_cap = 0;
	struct maps_line m;
	size_t cap = 0;
	unsigned pos;
	FILE *f;
	int ret;

	if (tgid <= 0)
		return -EINVAL;
	pos = usyms_proc_pos(u, tgid);
	if (pos < u->nproc && u->proc[pos].tgid == tgid)
		return 0;
	if (u->nproc >= u->max_procs)
		return -ENOSPC;
	snprintf(path, sizeof(path), "/proc/%d/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	for (;;) {
		/* getline leaves errno alone at EOF and sets it on failure */
		errno = 0;
		if (getline(&line, &line_cap, f) < 0)
			break;
		ret = maps_parse_line(line, &m);
		if (ret)
			goto out_free;
		if (!m.exec || !m.path[0] || p.nmap >= USYMS_MAX_MAPS)
			continue;
		ret = usyms_proc_add_map(u, &p, &cap, &pool, &m);
		if (ret)
			goto out_free;
	}
	if (errno || ferror(f)) {
		ret = errno ? -errno : -EIO;
		goto out_free;
	}
	/* maps is empty once the process has exited, and for kernel threads */
	if (!p.nmap) {
		ret = -ESRCH;
		goto out_free;
	}
	p.pool = pool.s;
	ret = usyms_proc_insert(u, pos, &p);
	if (!ret)
		goto out_close;
out_free:
	p.pool = pool.s;
	usym_proc_clear(&p);
out_close:
	free(line);
	fclose(f);
	return ret;
}

/* The symbol of file offset @off in @f, or NULL. */
static const char *usym_file_lookup(const struct usym_file *f, uint64_t off)
{
	const struct usym_seg *seg = NULL;
	size_t lo = 0, hi = f->nsym, mid;
	uint64_t va;
	unsigned i;

	for (i = 0; i < f->nseg && !seg; i++)
		if (off >= f->seg[i].off && off - f->seg[i].off < f->seg[i].filesz)
			seg = &f->seg[i];
	if (!seg)
		return NULL;
	va = seg->vaddr + (off - seg->off);
	/* lo ends as the number of symbols starting at or below va */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->sym[mid].start <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || va >= f->sym[lo - 1].end)
		return NULL;
	return f->pool + f->sym[lo - 1].name;
}

/* The mapping of @p holding @addr, or NULL. */
static const struct usym_map *usym_proc_find_map(const struct usym_proc *p,
						 uint64_t addr)
{
	unsigned lo = 0, hi = p->nmap, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->map[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= p->map[lo - 1].end)
		return NULL;
	return &p->map[lo - 1];
}

int usyms_format(const struct usyms *u, int32_t tgid, uint64_t addr,
		 char *buf, size_t len)
{
	const struct usym_proc *p;
	const struct usym_map *map;
	const char *name;
	uint64_t off;
	unsigned pos;

	if (!u)
		goto out_unknown;
	pos = usyms_proc_pos(u, tgid);
	if (pos >= u->nproc || u->proc[pos].tgid != tgid)
		goto out_unknown;
	p = &u->proc[pos];
	map = usym_proc_find_map(p, addr);
	if (!map)
		goto out_unknown;
	/* runtime address -> file offset; the ELF segments take it from there */
	off = addr - map->start + map->pgoff;
	name = map->file ? usym_file_lookup(map->file, off) : NULL;
	if (name) {
		snprintf(buf, len, "%s", name);
		return 0;
	}
	snprintf(buf, len, "%s+0x%" PRIx64, p->pool + map->name, off);
	return -ENOENT;
out_unknown:
	snprintf(buf, len, "[unknown]");
	return -ENOENT;
}

void usyms_stats(const struct usyms *u, struct usyms_stats *st)
{
	const struct usym_file *f;
	unsigned i;

	memset(st, 0, sizeof(*st));
	st->procs = u->nproc;
	st->files = u->nfile;
	st->bytes = u->bytes;
	for (i = 0; i < USYM_BUCKETS; i++) {
		for (f = u->bucket[i]; f; f = f->next) {
			if (!f->nsym)
				continue;
			st->files_syms++;
			st->syms += f->nsym;
		}
	}
}
