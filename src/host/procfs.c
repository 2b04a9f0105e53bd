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
#include <unistd.h>

#include "fileread.h"
#include "grow.h"
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

int proc_run_delay(int32_t tid, uint64_t *ns)
{
	char path[64], buf[96];
	unsigned long long exec, delay;
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
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &exec, &delay) != 2)
		return -EINVAL;
	*ns = delay;
	return 0;
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
