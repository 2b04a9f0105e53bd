// SPDX-License-Identifier: GPL-2.0-or-later
/* Our metadata in a recording: written and read back here, nowhere else. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numparse.h"
#include "recmeta.h"

/* the scope's command on one line: a newline in it would end the key */
static void put_oneline(FILE *f, const char *key, const char *s)
{
	fprintf(f, "%s=", key);
	for (; *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	fputc('\n', f);
}

static void put_lists(FILE *f, const struct backend_window *m, const struct recmeta_more *x)
{
	unsigned i;

	fprintf(f, "ncpu=%u\nlost=", x->ncpu);
	for (i = 0; i < x->ncpu; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "",
			m->lost_per_cpu && i < m->ncpu ? m->lost_per_cpu[i] : 0);
	fputc('\n', f);
	/* /proc/stat's idle time per CPU at the window's ends ("-": not listed) */
	if (m->proc_idle && m->proc_listed) {
		fputs("proc_idle_ns=", f);
		for (i = 0; i < m->nproc; i++) {
			if (m->proc_listed[i])
				fprintf(f, "%s%" PRIu64, i ? "," : "", m->proc_idle[i]);
			else
				fprintf(f, "%s-", i ? "," : "");
		}
		fputc('\n', f);
	}
}

char *recmeta_text(const struct backend_window *m, const struct recmeta_more *x)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fputs("format=offcpu-ftrace 1\n", f);
	if (m->clock)
		fprintf(f, "clock=%s\n", m->clock);
	fprintf(f, "window_start_ns=%" PRIu64 "\nwindow_end_ns=%" PRIu64 "\n", m->start_ns,
		m->end_ns);
	put_lists(f, m, x);
	fprintf(f, "kernel_stacks=%d\nkallsyms=%s\n", m->kernel_stacks ? 1 : 0,
		x->kallsyms ? x->kallsyms : "");
	if (x->bad_pages)
		fprintf(f, "bad_pages=%" PRIu64 "\n", x->bad_pages);
	if (x->release && x->release[0])
		fprintf(f, "release=%s\n", x->release);
	if (x->instance)
		fprintf(f, "instance=%s\n", x->instance);
	if (m->scope.kind[0]) {
		fprintf(f, "scope=%s\nscope_id=%d\n", m->scope.kind, m->scope.id);
		if (m->scope.command[0])
			put_oneline(f, "scope_command", m->scope.command);
	}
	if (m->scope.recorder > 0)
		fprintf(f, "recorder_pid=%d\n", m->scope.recorder);
	if (m->recovered)
		fprintf(f, "recovered_switches=%" PRIu64 "\n", m->recovered);
	/* the switches the run trusted its trace to hold */
	if (m->switches != BK_SW_TRACEPOINT)
		fprintf(f, "cpu_switches=%s\n", m->switches == BK_SW_ALL ? "all" :
			m->switches == BK_SW_SELECTED ? "selected" : "lossy");
	if (m->cgroups && m->cgroups[0] && m->cgroups_keyed)
		fprintf(f, "cgroups_keyed=%s\n", m->cgroups_keyed);
	if (m->plan_backend)
		put_oneline(f, "plan_backend", m->plan_backend);
	if (m->plan_events)
		put_oneline(f, "plan_events", m->plan_events);
	if (m->extra)
		fputs(m->extra, f);
	if (x->tgids && x->tgids[0])
		fprintf(f, "\nsaved_tgids:\n%s", x->tgids);
	/* the last section: "TID PATH" lines to the end */
	if (m->cgroups && m->cgroups[0])
		fprintf(f, "\ncgroups:\n%s", m->cgroups);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

int recmeta_get(const char *text, const char *key, char *buf, size_t len)
{
	size_t n = strlen(key);
	const char *p, *e;

	/* keys end at the first empty line: sections follow */
	for (p = text; p && *p && *p != '\n'; p = e ? e + 1 : NULL) {
		e = strchr(p, '\n');
		if (!strncmp(p, key, n) && p[n] == '=') {
			size_t vlen = (e ? (size_t)(e - p) : strlen(p)) - n - 1;

			if (vlen >= len)
				return -ENAMETOOLONG;
			memcpy(buf, p + n + 1, vlen);
			buf[vlen] = '\0';
			return 0;
		}
	}
	return -ENOENT;
}

int recmeta_u64(const char *text, const char *key, uint64_t max, uint64_t *v)
{
	char num[32];
	int ret = recmeta_get(text, key, num, sizeof(num));

	if (ret)
		return ret == -ENAMETOOLONG ? -EINVAL : ret;
	return parse_u64(num, 0, max, v) ? -EINVAL : 0;
}

/* The next number of a "a,b,c" list at *@p into @v ("-" when @dash: false in *@listed) */
static int list_next(char **p, uint64_t *v, bool dash, bool *listed)
{
	char *end;

	if (dash && **p == '-') {
		*listed = false;
		*v = 0;
		end = *p + 1;
	} else {
		if (**p < '0' || **p > '9')
			return -EINVAL;
		errno = 0;
		*v = strtoull(*p, &end, 10);
		if (errno)
			return -EINVAL;
		*listed = true;
	}
	if (*end != ',' && *end)
		return -EINVAL;
	*p = *end == ',' ? end + 1 : end;
	return 0;
}

int recmeta_lost(const char *text, uint64_t *lost, unsigned ncpu)
{
	char buf[65536], *p;
	unsigned cpu;
	bool listed;

	if (recmeta_get(text, "lost", buf, sizeof(buf)))
		return -ENOENT;
	for (p = buf, cpu = 0; *p && cpu < ncpu; cpu++)
		if (list_next(&p, &lost[cpu], false, &listed))
			break;
	return (int)cpu;
}

void recmeta_scope(const char *text, struct rec_scope *s)
{
	uint64_t v;

	memset(s, 0, sizeof(*s));
	if (recmeta_get(text, "scope", s->kind, sizeof(s->kind)))
		s->kind[0] = '\0';
	if (recmeta_u64(text, "scope_id", INT32_MAX, &v) == 0)
		s->id = (int32_t)v;
	if (recmeta_get(text, "scope_command", s->command, sizeof(s->command)))
		s->command[0] = '\0';
	if (recmeta_u64(text, "recorder_pid", INT32_MAX, &v) == 0)
		s->recorder = (int32_t)v;
	/* a scope that needs an id and has none is no scope */
	if (strcmp(s->kind, "all") && s->id <= 0)
		s->kind[0] = '\0';
}

int recmeta_switches(const char *text)
{
	char v[32];

	if (recmeta_get(text, "cpu_switches", v, sizeof(v)))
		return -ENOENT;
	return !strcmp(v, "all") ? BK_SW_ALL : !strcmp(v, "selected") ? BK_SW_SELECTED :
	       BK_SW_LOSSY;
}

unsigned recmeta_proc_idle(const char *text, uint64_t *ns, bool *listed, unsigned max)
{
	char buf[65536], *p;
	unsigned cpu;

	if (recmeta_get(text, "proc_idle_ns", buf, sizeof(buf)))
		return 0;
	for (p = buf, cpu = 0; *p && cpu < max; cpu++)
		if (list_next(&p, &ns[cpu], true, &listed[cpu]))
			return 0;	/* not ours: as if absent */
	return cpu;
}

const char *recmeta_cgroups(const char *text)
{
	const char *p = text ? strstr(text, "\ncgroups:\n") : NULL;

	return p ? p + 10 : NULL;
}

size_t recmeta_tgids(const char *text, void (*fn)(int32_t tid, int32_t tgid, void *arg),
		     void *arg)
{
	const char *p = text ? strstr(text, "\nsaved_tgids:\n") : NULL;
	size_t n = 0;

	if (!p)
		return 0;
	for (p += 14; *p && *p != '\n';) {
		char *end;
		long tid, tgid;

		errno = 0;
		tid = strtol(p, &end, 10);
		if (end == p)
			break;
		tgid = strtol(end, &end, 10);
		if (!errno && tid > 0 && tid <= INT32_MAX && tgid > 0 && tgid <= INT32_MAX) {
			fn((int32_t)tid, (int32_t)tgid, arg);
			n++;
		}
		p = strchr(end, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}
