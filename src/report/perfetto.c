// SPDX-License-Identifier: GPL-2.0-or-later
/* --format=perfetto: Chrome trace-event JSON, written as it goes (perfetto.h). */
#include <inttypes.h>
#include <string.h>

#include "escape.h"
#include "event.h"
#include "hash.h"
#include "perfetto.h"

#define COMM_MAX 16

void pf_begin(struct pftrace *p, FILE *f)
{
	memset(p, 0, sizeof(*p));
	p->f = f;
	fputs("{\"traceEvents\":[", f);
}

void pf_retarget(struct pftrace *p, FILE *f)
{
	p->f = f;
}

/* the separator before an event, and its line */
static void next(struct pftrace *p)
{
	fputs(p->n++ ? ",\n" : "\n", p->f);
}

/*
 * Whole microseconds, the format's unit: a slice from @ts_ns for @dur_ns
 * is written from floor(ts) to floor(ts + dur), so slices that meet share
 * their end exactly. With fractions they would not in a viewer that adds
 * ts and dur in floating point (speedscope then nests the next slice in
 * the one before it); each end is off by less than a microsecond, never
 * cumulatively.
 */
static void ts_us(FILE *f, const char *key, uint64_t ns)
{
	fprintf(f, ",\"%s\":%" PRIu64, key, ns / 1000);
}

static void args(FILE *f, const struct pf_arg *a, unsigned n)
{
	unsigned i;

	if (!n)
		return;
	fputs(",\"args\":{", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s\"%s\":", i ? "," : "", a[i].key);
		if (a[i].s)
			json_str(f, a[i].s, 256);
		else
			fprintf(f, "%" PRId64, a[i].i);
	}
	fputc('}', f);
}

/* a metadata event naming @pid's process or thread @tid */
static void meta(struct pftrace *p, const char *what, int32_t pid, int32_t tid, const char *name,
		 size_t max)
{
	next(p);
	fprintf(p->f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
		what, pid, tid);
	json_str(p->f, name, max);
	fputs("}}", p->f);
}

void pf_thread_name(struct pftrace *p, int32_t pid, int32_t tid, const char *name)
{
	uint64_t h = fnv1a64(FNV1A64_INIT, name, strnlen(name, COMM_MAX));
	struct pf_named *e = &p->named[tid_hash32(tid) % PF_NAMED];

	if (e->tid == tid && e->pid == pid && e->h == h)
		return;
	e->tid = tid;
	e->pid = pid;
	e->h = h;
	/* a process is named for its main thread, as the kernel names it */
	if (tid == pid)
		meta(p, "process_name", pid, tid, name, COMM_MAX);
	meta(p, "thread_name", pid, tid, name, COMM_MAX);
}

static void event_head(struct pftrace *p, const char *ph, int32_t pid, int32_t tid,
		       uint64_t ts_ns, const char *name, const char *cat)
{
	next(p);
	fprintf(p->f, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d", ph, pid, tid);
	ts_us(p->f, "ts", ts_ns);
	fputs(",\"name\":", p->f);
	json_str(p->f, name, 256);
	fputs(",\"cat\":", p->f);
	json_str(p->f, cat, 64);
}

void pf_slice(struct pftrace *p, int32_t pid, int32_t tid, uint64_t ts_ns, uint64_t dur_ns,
	      const char *name, const char *cat, const struct pf_arg *a, unsigned nargs)
{
	event_head(p, "X", pid, tid, ts_ns, name, cat);
	fprintf(p->f, ",\"dur\":%" PRIu64, (ts_ns + dur_ns) / 1000 - ts_ns / 1000);
	args(p->f, a, nargs);
	fputc('}', p->f);
}

void pf_cpu_slice(struct pftrace *p, int32_t cpu, uint64_t ts_ns, uint64_t dur_ns,
		  const char *name, const struct pf_arg *a, unsigned nargs)
{
	int32_t tid = PF_CPU_PID + 1 + cpu;

	if (cpu < 64 && !(p->named_cpus & (1ULL << cpu))) {
		char n[32];

		if (!p->named_cpus)
			meta(p, "process_name", PF_CPU_PID, PF_CPU_PID, "CPUs", 8);
		p->named_cpus |= 1ULL << cpu;
		snprintf(n, sizeof(n), "CPU %d", cpu);
		meta(p, "thread_name", PF_CPU_PID, tid, n, sizeof(n));
		/* in CPU order, below the threads */
		next(p);
		fprintf(p->f, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,"
			"\"args\":{\"sort_index\":%d}}", PF_CPU_PID, tid, cpu);
	} else if (cpu >= 64) {
		char n[32];

		snprintf(n, sizeof(n), "CPU %d", cpu);
		pf_thread_name(p, PF_CPU_PID, tid, n);
	}
	pf_slice(p, PF_CPU_PID, tid, ts_ns, dur_ns, name, "cpu", a, nargs);
}

void pf_instant(struct pftrace *p, int32_t pid, int32_t tid, uint64_t ts_ns, const char *name,
		const char *cat, const struct pf_arg *a, unsigned nargs)
{
	event_head(p, "i", pid, tid, ts_ns, name, cat);
	fputs(",\"s\":\"t\"", p->f);
	args(p->f, a, nargs);
	fputc('}', p->f);
}

void pf_flow(struct pftrace *p, int32_t from_pid, int32_t from_tid, uint64_t from_ns,
	     int32_t to_pid, int32_t to_tid, uint64_t to_ns, const char *name)
{
	uint64_t id = ++p->flows;

	event_head(p, "s", from_pid, from_tid, from_ns, name, "flow");
	fprintf(p->f, ",\"id\":%" PRIu64 "}", id);
	event_head(p, "f", to_pid, to_tid, to_ns, name, "flow");
	fprintf(p->f, ",\"bp\":\"e\",\"id\":%" PRIu64 "}", id);
}

void pf_end(struct pftrace *p, void (*other)(FILE *f, void *arg), void *arg)
{
	fputs("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{", p->f);
	if (other)
		other(p->f, arg);
	fputs("}}\n", p->f);
}

const char *pf_blocked_name(const struct sched_states *st, int64_t state, char *buf, size_t len)
{
	static const struct { char c; const char *name; } names[] = {
		{ 'S', "Sleeping (S)" }, { 'D', "Uninterruptible Sleep (D)" }, { 'I', "Idle (I)" },
		{ 'T', "Stopped (T)" }, { 't', "Traced (t)" }, { 'P', "Parked (P)" },
	};
	char letters[16];
	size_t i;

	if (state == SCHED_STATE_UNKNOWN)
		return "Blocked (state unknown)";
	sched_state_str(st, state, letters, sizeof(letters));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (letters[0] == names[i].c && (!letters[1] || letters[1] == '|'))
			return names[i].name;
	snprintf(buf, len, "Blocked (%s)", letters);
	return buf;
}
