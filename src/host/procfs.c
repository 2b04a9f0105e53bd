// SPDX-License-Identifier: GPL-2.0-or-later
/* /proc lookups: a thread's process, a process's threads. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileread.h"
#include "grow.h"
#include "linescan.h"
#include "procfs.h"

int32_t proc_tgid(int32_t tid, void *unused)
{
	char path[64], buf[1024], *p;

	(void)unused;
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (file_read_buf(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "\nTgid:");
	return p ? (int32_t)strtol(p + 6, NULL, 10) : -1;
}

int proc_stat_split(const char *text, char *comm, size_t len, char *state,
		    unsigned long long v[PROC_STAT_NFIELDS])
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')'), *p;
	int i;

	if (!open || !close || close < open || close[1] != ' ' || !close[2])
		return -EINVAL;
	if (comm && len) {
		size_t n = (size_t)(close - open - 1);

		if (n > len - 1)
			n = len - 1;
		memcpy(comm, open + 1, n);
		comm[n] = '\0';
	}
	if (state)
		*state = close[2];
	/* fields 4 (ppid) .. 22 (starttime); tty_nr and tpgid may be -1 */
	p = close + 3;
	for (i = 0; i < PROC_STAT_NFIELDS; i++) {
		char *end;

		while (*p == ' ')
			p++;
		v[i] = strtoull(p, &end, 10);
		if (end == p)
			return -EINVAL;
		p = end;
	}
	return 0;
}

int proc_stat_field(const char *text, int field, long long *v)
{
	const char *close = strrchr(text, ')'), *p;
	int i;

	if (!close || field < 4 || close[1] != ' ' || !close[2])
		return -EINVAL;
	/* ") S 1 2 ...": field 3 is the state letter, then the numbers */
	p = close + 3;
	for (i = 4; i <= field; i++) {
		char *end;
		long long n;

		while (*p == ' ')
			p++;
		/* rsslim and others may be 2^64 - 1: only the field asked for must fit */
		errno = 0;
		n = *p == '-' ? strtoll(p, &end, 10) : (long long)strtoull(p, &end, 10);
		if (end == p || (i == field && (errno || (*p != '-' && n < 0))))
			return -EINVAL;
		if (i == field)
			*v = n;
		p = end;
	}
	return 0;
}

int proc_start_ns(int32_t pid, uint64_t *ns)
{
	char path[64], buf[1024];
	unsigned long long v[PROC_STAT_NFIELDS];
	long hz = sysconf(_SC_CLK_TCK);

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (file_read_buf(path, buf, sizeof(buf)) <= 0)
		return -ENOENT;
	if (hz <= 0 || proc_stat_split(buf, NULL, 0, NULL, v))
		return -EINVAL;
	*ns = v[18] * (1000000000ull / (unsigned long long)hz);	/* starttime, field 22 */
	return 0;
}

int proc_steal_ns(uint64_t *ns)
{
	char buf[512], *p, *end;
	unsigned long long v = 0;
	long hz = sysconf(_SC_CLK_TCK);
	int i;

	if (file_read_buf("/proc/stat", buf, sizeof(buf)) <= 0)
		return -ENOENT;
	/* "cpu  user nice system idle iowait irq softirq steal ..." */
	if (strncmp(buf, "cpu ", 4) || hz <= 0)
		return -EINVAL;
	p = buf + 4;
	for (i = 0; i < 8; i++) {
		v = strtoull(p, &end, 10);
		if (end == p)
			return -EINVAL;	/* before 2.6.11: no steal */
		p = end;
	}
	*ns = v * (1000000000ull / (unsigned long long)hz);
	return 0;
}

uint64_t proc_tick_ns(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz > 0 ? 1000000000ull / (unsigned long long)hz : 10000000ull;
}

int proc_stat_cpu_idle(const char *text, uint64_t tick_ns, uint64_t *ns, bool *listed,
		       unsigned max)
{
	const char *p = text;
	int n = 0;

	if (strncmp(text, "cpu ", 4))
		return -EINVAL;
	memset(listed, 0, max * sizeof(*listed));
	memset(ns, 0, max * sizeof(*ns));
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long long v[5];
		unsigned long cpu;
		char *end;
		int i;

		/* "cpuN user nice system idle iowait ...": the per-CPU lines come first */
		if (strncmp(p, "cpu", 3))
			continue;
		if (!isdigit((unsigned char)p[3]))
			continue;	/* the "cpu " total */
		cpu = strtoul(p + 3, &end, 10);
		for (i = 0; i < 5; i++) {
			const char *q = end;

			v[i] = strtoull(q, &end, 10);
			if (end == q)
				return -EINVAL;	/* a line that is not /proc/stat's */
		}
		if (cpu >= max)
			continue;
		ns[cpu] = (v[3] + v[4]) * tick_ns;
		listed[cpu] = true;
		if ((int)cpu + 1 > n)
			n = (int)cpu + 1;
	}
	return n;
}

int proc_cpu_idle(uint64_t *ns, bool *listed, unsigned max)
{
	/* ~100 bytes a CPU: a host's worth without a guess at its size */
	char *text = file_read_max("/proc/stat", FILE_READ_MAX, NULL);
	int n;

	if (!text)
		return -errno;
	n = proc_stat_cpu_idle(text, proc_tick_ns(), ns, listed, max);
	free(text);
	return n;
}

int proc_run_delay(int32_t tid, uint64_t *ns)
{
	uint64_t exec, pcount;

	return proc_schedstat(tid, &exec, ns, &pcount);
}

int proc_schedstat_parse(const char *text, size_t len, uint64_t *exec_ns, uint64_t *delay_ns,
			 uint64_t *pcount)
{
	const char *p = text, *e = text + len, *w;
	uint64_t v[3];
	int i;

	if (len && e[-1] == '\n')
		e--;
	for (i = 0; i < 3; i++) {
		p = skip_ws(p, e);
		for (w = p; w < e && !is_blank(*w); w++)
			;
		if (span_u64(p, w, 10, &v[i]))
			return -EINVAL;
		p = w;
	}
	if (skip_ws(p, e) != e)
		return -EINVAL;
	*exec_ns = v[0];
	*delay_ns = v[1];
	*pcount = v[2];
	return 0;
}

int proc_schedstat(int32_t tid, uint64_t *exec_ns, uint64_t *delay_ns, uint64_t *pcount)
{
	char path[64], buf[96];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n ? -errno : -EIO;
	return proc_schedstat_parse(buf, (size_t)n, exec_ns, delay_ns, pcount);
}

int proc_task_blocked(int32_t tid, char *state, size_t slen, char *where, size_t wlen)
{
	unsigned long long v[PROC_STAT_NFIELDS];
	char path[64], comm[64], st = 0, *text;
	struct proc_kframe f;
	const char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	if (!(text = file_read(path, NULL)))
		return -errno;
	if (proc_stat_split(text, comm, sizeof(comm), &st, v) < 0)
		st = 0;
	free(text);
	if (!st)
		return -EINVAL;
	snprintf(state, slen, "%c", st);
	where[0] = '\0';
	/* the kernel stack (root), else wchan (one's own processes) */
	snprintf(path, sizeof(path), "/proc/%d/stack", tid);
	if ((text = file_read(path, NULL))) {
		for (p = text; *p; ) {
			p = proc_kstack_line(p, &f);
			if (f.name && !memmem(f.name, f.len, "schedule", 8)) {
				snprintf(where, wlen, "%.*s", (int)f.len, f.name);
				break;
			}
		}
		free(text);
	}
	snprintf(path, sizeof(path), "/proc/%d/wchan", tid);
	if (!where[0] && (text = file_read(path, NULL))) {
		if (strcmp(text, "0"))
			snprintf(where, wlen, "%.*s", (int)strcspn(text, "\n"), text);
		free(text);
	}
	return st == 'R' ? 0 : 1;
}

/* The numeric entries of directory @dir: ids, malloc'd into *ids; the count or -errno */
static int numeric_entries(const char *dir, int32_t **ids)
{
	struct dirent *de;
	int32_t *v = NULL, *nv;
	size_t cap = 0;
	int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		long t;
		char *end;

		t = strtol(de->d_name, &end, 10);
		if (*end || t <= 0 || t > INT32_MAX)
			continue;
		nv = mem_grow(v, &cap, (size_t)n, sizeof(*v));
		if (!nv) {
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		v = nv;
		v[n++] = (int32_t)t;
	}
	closedir(d);
	*ids = v;
	return n;
}

int proc_pids(int32_t **pids)
{
	return numeric_entries("/proc", pids);
}

int proc_threads(int32_t pid, int32_t **tids)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	return numeric_entries(path, tids);
}

/*
 * /proc names a workqueue worker "kworker/1:0-events" (the kernel appends
 * '-' or '+' and the work's queue: wq_worker_comm) where its events and
 * BPF tools carry the task's own name "kworker/1:0": cut the suffix, so a
 * thread has one name whichever source named it. A rescuer's own name is
 * "kworker/R-<queue>" and stays.
 */
void proc_comm_tidy(char *name)
{
	char *p;

	if (strncmp(name, "kworker/", 8))
		return;
	p = name + 8;
	if (*p == 'u')
		p++;
	if (!isdigit((unsigned char)*p))
		return;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != ':' || !isdigit((unsigned char)*p))
		return;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == 'H')
		p++;
	if (*p == '-' || *p == '+')
		*p = '\0';
}

int proc_comm(int32_t tid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/comm", tid);
	n = file_read_buf(path, buf, len);
	if (n <= 0)
		return n ? (int)n : -ENOENT;
	if (buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	proc_comm_tidy(buf);
	return 0;
}

bool proc_waits_for_child(int32_t pid)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	if (file_read_buf(path, buf, sizeof(buf)) <= 0)
		return false;
	/* wait4(), waitid(), waitpid() sleep in do_wait */
	return !strcmp(buf, "do_wait") || !strcmp(buf, "kernel_wait4") ||
	       !strcmp(buf, "kernel_waitid");
}

const char *proc_kstack_line(const char *p, struct proc_kframe *f)
{
	const char *eol = strchr(p, '\n'), *name, *end, *mod, *me;

	memset(f, 0, sizeof(*f));
	if (!eol)
		eol = p + strlen(p);
	name = strstr(p, "] ");
	if (name && name < eol) {
		name += 2;
		for (end = name; end < eol && *end != '+' && *end != ' '; end++)
			;
		if (end > name) {
			f->name = name;
			f->len = (size_t)(end - name);
			if (*end == '+')
				f->off = strtoull(end + 1, NULL, 16);
			mod = memchr(end, '[', (size_t)(eol - end));
			me = mod ? memchr(mod, ']', (size_t)(eol - mod)) : NULL;
			if (me) {
				f->mod = mod + 1;
				f->mod_len = (size_t)(me - mod - 1);
			}
		}
	}
	return *eol ? eol + 1 : eol;
}

/* include/linux/proc_ns.h: PROC_PID_INIT_INO, the initial pid namespace's (fixed since 3.8) */
#define PID_NS_INIT_INO 0xEFFFFFFCu

int proc_pidns_foreign(void)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st))
		return -errno;
	return st.st_ino != PID_NS_INIT_INO;
}

int proc_userns_foreign(void)
{
	unsigned long long inside, outside, count;
	char buf[256];

	/* the initial namespace maps every id to itself: "0 0 4294967295" */
	if (file_read_buf("/proc/self/uid_map", buf, sizeof(buf)) <= 0)
		return -errno ? -errno : -EIO;
	if (sscanf(buf, "%llu %llu %llu", &inside, &outside, &count) != 3)
		return -EINVAL;
	return !(inside == 0 && outside == 0 && count == 4294967295ULL);
}
