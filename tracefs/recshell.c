// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The file backend: a recording (a trace-cmd trace.dat, ours or one from
 * `trace-cmd record` elsewhere) read back as if traced now. This shell is
 * what every reader shares: the file opened and its structure checked
 * against its size (tdat_scan), a first pass over every CPU's records
 * (what the file holds: event types, first and last timestamps), then
 * every record through decode_record() as in the ring backend, the CPUs
 * merged in timestamp order. The reader (struct rec_reader) parses the
 * formats and yields each CPU's records: libtracecmd's in replay.c, our
 * own in tdatread.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "decode.h"
#include "errf.h"
#include "fileread.h"
#include "recshell.h"
#include "tsheap.h"

struct backend {
	struct rec_file f;
	const struct rec_reader *rd;
	struct rec_streams *s;
	bool opened;			/* open() succeeded */
	struct rec_record *cur;		/* per CPU: the record to feed next */
	uint64_t *next_ts;
	uint64_t *last_ts;		/* per CPU: its last record that can be true */
	uint64_t *end_ns;		/* per CPU: no event after this (its stats' time) */
	uint64_t rejected;		/* records that cannot be true: skipped */
	struct tsheap heap;
	bool primed;			/* cur[] loaded */
	uint64_t records;
	unsigned seen;			/* 1 << SEV_x of records in the file */
	char clock[32];
	uint64_t window_start, window_end;
	bool clip;			/* a flight recording: only its window's events */
	uint64_t recovered;		/* switches the recording backend recovered */
	char trigger[256];		/* ... and what saved it */
	char plan_backend[32], plan_events[1024];	/* the plan it was made with */
	char cgroups_keyed[512];	/* --by cgroup: what the recording keyed on */
	int switches;			/* enum bk_switches: what it holds */
	uint64_t *proc_idle;		/* per CPU: /proc/stat's idle time in the window */
	bool *proc_listed;
	unsigned nproc;			/* 0: not recorded */
	uint64_t frames[STACK_MAX_DEPTH];
};

/* The file at @path, its structure checked; the reader not yet involved. */
static int open_file(struct backend *b, const char *path, char *err, size_t errlen)
{
	struct rec_file *f = &b->f;
	mode_t type = 0;
	char why[200];
	int ret;

	snprintf(f->path, sizeof(f->path), "%s", path);
	/* never a FIFO or a device: they would hang the open or the reads */
	f->fd = file_open_input(f->path, &type);
	if (f->fd == -EINVAL) {
		f->fd = -1;
		snprintf(err, errlen, "cannot read %s: it is %s, not a recording (a trace.dat "
			 "file)", f->path, file_kind(type));
		return -EINVAL;
	}
	if (f->fd < 0) {
		ret = f->fd;
		f->fd = -1;
		return errf(err, errlen, ret, "cannot open %s", f->path);
	}
	ret = tdat_scan(&f->dat, f->fd, why, sizeof(why));
	if (ret == -ENOMEM)
		return errf(err, errlen, ret, "cannot read %s", f->path);
	if (ret) {
		snprintf(err, errlen, "cannot read %s: %s", f->path, why);
		return ret;
	}
	if (f->dat.ts_adjusted && !b->rd->ts_adjust) {
		snprintf(err, errlen, "cannot read %s: its timestamps need adjusting (a guest's, "
			 "or TSC offsets), which this reader does not do", f->path);
		return -ENOTSUP;
	}
	f->ncpu = f->dat.ncpu;
	if (!f->ncpu) {
		snprintf(err, errlen, "cannot read %s: it holds no CPU data", f->path);
		return -EINVAL;
	}
	return 0;
}

/* tdat_scan()'s bound on a recording's CPUs: a wakeup's target beyond it is corrupt */
#define TARGET_CPU_MAX 8192u

/*
 * Whether CPU @cpu's record @rec can be true: not before the CPU's last
 * such record (a ring buffer's CPU never steps back), not after its stats
 * were read, a plausible event (decode_plausible()). The kernel writes no
 * other; a bit flipped in a file does (a page 52 days late). Its type in
 * *@type; the CPU's last time moves on.
 */
static bool rec_true(struct backend *b, unsigned cpu, const struct rec_record *rec,
		     unsigned *type)
{
	struct sched_event ev;
	unsigned t = decode_record(&b->f.layout, rec->data, rec->size, rec->ts, (int32_t)cpu,
				   &ev);

	if (rec->ts < b->last_ts[cpu] || rec->ts > b->end_ns[cpu] ||
	    (t && !decode_plausible(&ev, TARGET_CPU_MAX)))
		return false;
	b->last_ts[cpu] = rec->ts;
	*type = t;
	return true;
}

/* CPU @cpu's next record that can be true (the first pass counted the others). */
static int next_true(struct backend *b, unsigned cpu, struct rec_record *rec)
{
	unsigned t;
	int ret;

	while ((ret = b->rd->next(b->s, cpu, rec)) > 0)
		if (rec_true(b, cpu, rec, &t))
			return 1;
	return ret;
}

/*
 * A first pass: what the file holds (types, first and last timestamps of
 * the records that can be true), and how many cannot.
 */
static int count_records(struct backend *b, char *err, size_t errlen)
{
	uint64_t first = UINT64_MAX, last = 0;
	struct rec_record rec;
	unsigned cpu;
	int ret;

	for (cpu = 0; cpu < b->f.ncpu; cpu++) {
		uint64_t n = 0;

		if ((ret = b->rd->rewind(b->s, cpu)))
			return errf(err, errlen, ret, "cannot read %s", b->f.path);
		b->end_ns[cpu] = tdat_cpu_end_ns(&b->f.dat, cpu);
		b->last_ts[cpu] = 0;
		for (ret = b->rd->next(b->s, cpu, &rec); ret > 0;
		     ret = b->rd->next(b->s, cpu, &rec)) {
			unsigned t;

			n++;
			if (!rec_true(b, cpu, &rec, &t)) {
				b->rejected++;
				continue;
			}
			if (t)
				b->seen |= 1u << t;
			if (rec.ts < first)
				first = rec.ts;
			if (rec.ts > last)
				last = rec.ts;
		}
		if ((ret = b->rd->counted(b->s, cpu, n, ret, err, errlen)))
			return ret;
		if ((ret = b->rd->rewind(b->s, cpu)))
			return errf(err, errlen, ret, "cannot read %s", b->f.path);
		b->last_ts[cpu] = 0;
		b->records += n;
	}
	b->window_start = first == UINT64_MAX ? 0 : first;
	b->window_end = last;
	return 0;
}

int recshell_open(struct backend **out, const struct trace_req *req, const struct rec_reader *rd,
		  char *err, size_t errlen)
{
	struct backend *b = calloc(1, sizeof(*b));
	unsigned n;
	int ret;

	*out = b;
	if (!b)
		return errf(err, errlen, -ENOMEM, "%s", "file backend");
	b->f.fd = -1;
	b->rd = rd;
	if (!req->replay_path || !*req->replay_path) {
		snprintf(err, errlen, "no recording to read: give a trace.dat file");
		return -EINVAL;
	}
	if ((ret = open_file(b, req->replay_path, err, errlen)))
		return ret;
	n = b->f.ncpu;
	b->cur = calloc(n, sizeof(*b->cur));
	b->next_ts = calloc(n, sizeof(*b->next_ts));
	b->last_ts = calloc(n, sizeof(*b->last_ts));
	b->end_ns = calloc(n, sizeof(*b->end_ns));
	b->heap.v = calloc(n, sizeof(*b->heap.v));
	b->f.lost = calloc(n, sizeof(*b->f.lost));
	if (!b->cur || !b->next_ts || !b->last_ts || !b->end_ns || !b->heap.v || !b->f.lost)
		return errf(err, errlen, -ENOMEM, "%s", b->f.path);
	b->heap.key = b->next_ts;
	if ((ret = rd->open(&b->s, &b->f, err, errlen)) || (ret = count_records(b, err, errlen)))
		return ret;
	tdat_lost(&b->f.dat, b->f.lost, n);
	tdat_clock_window(&b->f.dat, b->clock, sizeof(b->clock), &b->window_start,
			  &b->window_end);
	/* a flight window starts and ends inside pages that hold more */
	b->clip = tdat_meta_get(&b->f.dat, "flight", b->trigger, sizeof(b->trigger)) == 0 &&
		  b->window_end > b->window_start;
	if (tdat_meta_get(&b->f.dat, "flight_trigger", b->trigger, sizeof(b->trigger)))
		b->trigger[0] = '\0';
	{
		char num[32];

		if (tdat_meta_get(&b->f.dat, "recovered_switches", num, sizeof(num)) == 0)
			b->recovered = strtoull(num, NULL, 10);
	}
	b->switches = tdat_switches(&b->f.dat);
	b->proc_idle = calloc(n, sizeof(*b->proc_idle));
	b->proc_listed = calloc(n, sizeof(*b->proc_listed));
	if (!b->proc_idle || !b->proc_listed)
		return errf(err, errlen, -ENOMEM, "%s", b->f.path);
	/* a flight recording's window is not the one /proc/stat was read over */
	if (!b->clip)
		b->nproc = tdat_proc_idle(&b->f.dat, b->proc_idle, b->proc_listed, n);
	b->opened = true;
	return 0;
}

int recshell_nop(struct backend *b)
{
	(void)b;
	return 0;
}

int recshell_wait(struct backend *b, int timeout_ms)
{
	(void)b;
	(void)timeout_ms;
	return 0;
}

/* Every CPU's first record onto the heap. */
static int prime(struct backend *b)
{
	unsigned cpu;
	int ret;

	for (cpu = 0; cpu < b->f.ncpu; cpu++) {
		ret = next_true(b, cpu, &b->cur[cpu]);
		if (ret < 0)
			return ret;
		if (ret) {
			b->next_ts[cpu] = b->cur[cpu].ts;
			tsheap_push(&b->heap, cpu);
		}
	}
	b->primed = true;
	return 0;
}

/* Everything up to @limit, in time order; the rest stays for the next call. */
int recshell_read(struct backend *b, uint64_t limit, bool drain, sched_ev_cb cb, void *arg)
{
	int ret;

	(void)drain;	/* nothing arrives later: every read is a drain */
	if (!b->primed && (ret = prime(b)))
		return ret;
	while (b->heap.n) {
		unsigned ci = b->heap.v[0];
		struct rec_record *rec = &b->cur[ci];
		struct sched_event ev;

		if (rec->ts > limit)
			return 0;
		if (b->clip && (rec->ts < b->window_start || rec->ts > b->window_end))
			goto next;
		switch (decode_record(&b->f.layout, rec->data, rec->size, rec->ts, (int32_t)ci,
				      &ev)) {
		case 0:
			break;
		case SEV_KSTACK:
		case SEV_USTACK:
			decode_stack(&b->f.layout, rec->data, rec->size, &ev, b->frames);
			/* fall through */
		default:
			cb(&ev, arg);
		}
next:
		ret = next_true(b, ci, rec);
		if (ret < 0)
			return ret;
		if (!ret) {
			tsheap_pop(&b->heap);
			continue;
		}
		b->next_ts[ci] = rec->ts;
		tsheap_fix_top(&b->heap);
	}
	return 0;
}

const char *recshell_clock(struct backend *b, bool *is_mono)
{
	if (is_mono)
		*is_mono = !strcmp(b->clock, "mono");
	return b->clock;
}

unsigned recshell_lost(struct backend *b, uint64_t *lost, unsigned max)
{
	unsigned i, n = b->f.ncpu < max ? b->f.ncpu : max;

	for (i = 0; i < n; i++)
		lost[i] = b->f.lost[i];
	return n;
}

const struct sched_states *recshell_states(struct backend *b)
{
	return &b->f.layout.states;
}

unsigned recshell_events(struct backend *b)
{
	return b->f.layout_ok ? fmt_recorded_events(&b->f.layout, b->seen) : 0;
}

int recshell_recording(struct backend *b, struct backend_window *w)
{
	memset(w, 0, sizeof(*w));
	if (!b || !b->opened)
		return -EINVAL;
	w->clock = b->clock;
	w->start_ns = b->window_start;
	w->end_ns = b->window_end;
	w->ncpu = b->f.ncpu;
	w->extra = b->trigger[0] ? b->trigger : NULL;
	if (!tdat_meta_get(&b->f.dat, "plan_backend", b->plan_backend, sizeof(b->plan_backend)))
		w->plan_backend = b->plan_backend;
	if (!tdat_meta_get(&b->f.dat, "plan_events", b->plan_events, sizeof(b->plan_events)))
		w->plan_events = b->plan_events;
	w->cgroups = tdat_cgroups(&b->f.dat);
	if (w->cgroups && !tdat_meta_get(&b->f.dat, "cgroups_keyed", b->cgroups_keyed,
					 sizeof(b->cgroups_keyed)))
		w->cgroups_keyed = b->cgroups_keyed;
	tdat_scope(&b->f.dat, &w->scope);
	w->switches = b->switches;
	if (b->nproc) {
		w->proc_idle = b->proc_idle;
		w->proc_listed = b->proc_listed;
		w->nproc = b->nproc;
	}
	return 0;
}

int recshell_switches(struct backend *b)
{
	return b && b->opened ? b->switches : BK_SW_LOSSY;
}

uint64_t recshell_rejected(struct backend *b)
{
	return b && b->opened ? b->rejected : 0;
}

uint64_t recshell_recovered(struct backend *b)
{
	return b && b->opened ? b->recovered : 0;
}

int32_t recshell_task_tgid(struct backend *b, int32_t tid)
{
	return b ? tdat_tgid(&b->f.dat, tid) : -2;
}

int recshell_task_comm(struct backend *b, int32_t tid, char *buf, size_t len)
{
	if (!b || !b->opened || !b->rd->comm || tid <= 0)
		return -ENOENT;
	return b->rd->comm(b->s, tid, buf, len);
}

int replay_info(struct backend *b, struct replay_info *out)
{
	memset(out, 0, sizeof(*out));
	if (!b || !b->opened)
		return -EINVAL;
	out->clock = b->clock;
	out->window_start_ns = b->window_start;
	out->window_end_ns = b->window_end;
	out->from_offcpu = b->f.dat.offcpu != NULL;
	out->uname = b->f.dat.uname;
	out->ncpu = b->f.ncpu;
	out->file_version = b->f.dat.version;
	out->compressed = b->f.dat.compressed;
	out->records = b->records;
	return 0;
}

int replay_ksym_name(struct backend *b, uint64_t addr, char *buf, size_t len)
{
	if (b && b->s)
		return b->rd->kframe(b->s, addr, buf, len);
	snprintf(buf, len, "0x%" PRIx64, addr);
	return -ENOENT;
}

int recshell_close(struct backend *b, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	if (!b)
		return 0;
	b->rd->close(b->s);
	tdat_free(&b->f.dat);
	if (b->f.fd >= 0)
		close(b->f.fd);
	free(b->cur);
	free(b->next_ts);
	free(b->last_ts);
	free(b->end_ns);
	free(b->heap.v);
	free(b->f.lost);
	free(b->proc_idle);
	free(b->proc_listed);
	free(b);
	return 0;
}
