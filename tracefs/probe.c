// SPDX-License-Identifier: GPL-2.0-or-later
/* What this tracefs offers (from its files), and instances killed runs left. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tmount.h"
#include "fileread.h"
#include "fmt.h"
#include "procfs.h"
#include "tfs_caps.h"
#include "tfs.h"

void tfs_caps_from_readme(const char *r, struct tfs_caps *c)
{
	c->hist = strstr(r, "hist trigger") != NULL;
	c->synth = strstr(r, "synthetic_events") != NULL;
	/* the example line gained "long[] stack" when stacks became fields */
	c->synth_stack = c->synth && strstr(r, "long[] stack") != NULL;
	c->buckets = strstr(r, ".buckets") != NULL;
	c->stacktrace_trigger = strstr(r, "\t\t    stacktrace") != NULL ||
				strstr(r, "\t\t      stacktrace") != NULL;
	if (strstr(r, "'common_stacktrace'"))
		c->stack_key = "common_stacktrace";
	else if (c->hist && strstr(r, "'stacktrace'"))
		c->stack_key = "stacktrace";
	else
		c->stack_key = NULL;
}

/* Is @name one of the clocks in trace_clock's "[local] global mono ..."? */
static bool clock_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (*p) {
		size_t len;

		while (*p == ' ' || *p == '[')
			p++;
		len = strcspn(p, " ]");
		if (len == n && !strncmp(p, name, n))
			return true;
		p += len;
		while (*p == ']')
			p++;
	}
	return false;
}

void tfs_caps_probe(const char *override, struct tfs_caps *c)
{
	static const char *const evs[SEV_NSCHED] = {
		[SEV_SWITCH] = "sched_switch",
		[SEV_WAKEUP] = "sched_wakeup",
		[SEV_WAKEUP_NEW] = "sched_wakeup_new",
		[SEV_WAKING] = "sched_waking",
		[SEV_FORK] = "sched_process_fork",
	};
	char path[PATH_MAX + 64];
	char *text;
	unsigned i;

	memset(c, 0, sizeof(*c));
	if (tmount_find(override, c->dir, sizeof(c->dir), c->why, sizeof(c->why)))
		return;
	c->found = true;
	c->writable = tmount_writable(c->dir);
	if (!c->writable)
		snprintf(c->why, sizeof(c->why), geteuid() ? "not root" : "mounted read-only");
	snprintf(path, sizeof(path), "%s/trace_clock", c->dir);
	text = file_read(path, NULL);
	if (text) {
		char *nl = strchr(text, '\n');

		if (nl)
			*nl = '\0';
		snprintf(c->clocks, sizeof(c->clocks), "%s", text);
		c->clock_mono = clock_listed(text, "mono");
		c->clock_global = clock_listed(text, "global");
		free(text);
	}
	snprintf(path, sizeof(path), "%s/README", c->dir);
	text = file_read(path, NULL);
	if (text) {
		tfs_caps_from_readme(text, c);
		free(text);
	}
	for (i = SEV_SWITCH; i < SEV_NSCHED; i++) {
		snprintf(path, sizeof(path), "%s/events/sched/%s/format", c->dir, evs[i]);
		/* effective ids and capabilities, as the opens will see them */
		c->ev[i] = faccessat(AT_FDCWD, path, R_OK, AT_EACCESS) == 0;
		if (i == SEV_SWITCH && c->ev[i] && (text = file_read(path, NULL))) {
			struct sched_states st;

			if (fmt_parse_states(text, &st, &c->preempt_from_fmt) == 0)
				c->preempt_mask = st.preempt_mask;
			free(text);
		}
	}
}

/* Our instance names: offcpu-ftrace.<pid> or offcpu-ftrace.<pid>.<n> */
static int owner_pid(const char *name)
{
	const char *p = name + strlen(TFS_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, TFS_PREFIX ".", strlen(TFS_PREFIX) + 1))
		return -1;
	pid = strtol(p + 1, &end, 10);
	if (end == p + 1 || pid <= 0 || pid > 4194304)
		return -1;
	if (*end == '.') {
		const char *q = end + 1;

		strtol(q, &end, 10);
		if (end == q)
			return -1;
	}
	return *end ? -1 : (int)pid;
}

/*
 * Does process @pid own the instance at @inst? It does while it lives and
 * started before the instance was made (a recycled pid started after):
 * whatever its binary is named. The instance's time is its mtime, taken
 * to the boot clock (one in the future, a wall clock set back, counts as
 * now); where that cannot be (no times, or ones from before this boot),
 * a process named offcpu-ftrace owns it. A synthetic event (@inst NULL)
 * has no time: any live process of its number owns it.
 */
#define OWNER_SLACK_NS 1000000000ull	/* clock ticks, a wall clock slewed meanwhile */

static bool owner_alive(const char *inst, int pid)
{
	struct timespec real, boot;
	uint64_t start, now_boot, age;
	struct stat st;
	char comm[32];
	int64_t since;

	if (proc_start_ns(pid, &start))
		return false;
	if (!inst)
		return true;
	if (!stat(inst, &st) && !clock_gettime(CLOCK_REALTIME, &real) &&
	    !clock_gettime(CLOCK_BOOTTIME, &boot)) {
		since = (int64_t)(real.tv_sec - st.st_mtim.tv_sec) * 1000000000 +
			(real.tv_nsec - st.st_mtim.tv_nsec);
		now_boot = (uint64_t)boot.tv_sec * 1000000000u + (uint64_t)boot.tv_nsec;
		age = since > 0 ? (uint64_t)since : 0;
		if (age < now_boot)	/* made since boot: its time is one */
			return start <= now_boot - age + OWNER_SLACK_NS;
	}
	return proc_comm(pid, comm, sizeof(comm)) == 0 && !strncmp(comm, "offcpu-ftrace", 13);
}

int tfs_stale_instances(const char *dir, void (*fn)(const char *name, int pid, void *arg),
			void *arg)
{
	char path[PATH_MAX], inst[PATH_MAX + NAME_MAX + 2];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/instances", dir);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int pid = owner_pid(de->d_name);

		snprintf(inst, sizeof(inst), "%s/%s", path, de->d_name);
		if (pid < 0 || owner_alive(inst, pid))
			continue;
		n++;
		if (fn)
			fn(de->d_name, pid, arg);
	}
	closedir(d);
	return n;
}

static void write_quiet(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, v, strlen(v)) < 0) {
			/* best effort: rmdir below reports what matters */
		}
		close(fd);
	}
}

/* One pass over @inst's trigger files: "!" each trigger. How many went. */
static unsigned strip_pass(const char *inst, unsigned *left)
{
	char path[PATH_MAX + 2 * NAME_MAX + 32], line[1200];
	struct dirent *sys, *ev;
	unsigned gone = 0;
	DIR *ds, *de;

	snprintf(path, sizeof(path), "%s/events", inst);
	ds = opendir(path);
	if (!ds)
		return 0;
	while ((sys = readdir(ds))) {
		if (sys->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", inst, sys->d_name);
		de = opendir(path);
		if (!de)
			continue;
		while ((ev = readdir(de))) {
			char *text, *l, *next;

			if (ev->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/trigger", inst,
				 sys->d_name, ev->d_name);
			text = file_read(path, NULL);
			for (l = text; l && *l; l = next) {
				char *end = strchr(l, '\n'), *br;

				next = end ? end + 1 : l + strlen(l);
				if (end)
					*end = '\0';
				if (*l == '#' || !*l)
					continue;
				/* "hist:... [active]": the state is not part of the command */
				br = strrchr(l, '[');
				if (br && br > l && br[-1] == ' ')
					br[-1] = '\0';
				snprintf(line, sizeof(line), "!%s", l);
				if (tfs_write_file(path, line, true) == 0)
					gone++;
				else
					++*left;
			}
			free(text);
		}
		closedir(de);
	}
	closedir(ds);
	return gone;
}

/*
 * Triggers pin an instance (rmdir fails EBUSY) and the synthetic events
 * they use. A trigger whose variables another one reads goes only after
 * that one: passes until nothing more can be removed.
 */
static void strip_triggers(const char *inst)
{
	unsigned pass, left;

	for (pass = 0; pass < 8; pass++) {
		left = 0;
		if (!strip_pass(inst, &left) || !left)
			break;
	}
}

int tfs_remove_stale(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int tries;

	snprintf(path, sizeof(path), "%s/instances/%s/tracing_on", dir, name);
	write_quiet(path, "0");
	snprintf(path, sizeof(path), "%s/instances/%s/events/enable", dir, name);
	write_quiet(path, "0");
	/* a recording's record-tgid holds a reference on the kernel's tgid map */
	snprintf(path, sizeof(path), "%s/instances/%s/options/record-tgid", dir, name);
	write_quiet(path, "0");
	snprintf(path, sizeof(path), "%s/instances/%s", dir, name);
	strip_triggers(path);
	for (tries = 0; tries < 100; tries++) {
		if (rmdir(path) == 0)
			return 0;
		if (errno != EBUSY)
			return -errno;
		nanosleep(&ts, NULL);
	}
	return -EBUSY;
}

/* "ofr_<pid>_<what>": the hist backend's synthetic events */
static int synth_owner(const char *name)
{
	char *end;
	long pid;

	if (strncmp(name, "ofr_", 4))
		return -1;
	pid = strtol(name + 4, &end, 10);
	return end != name + 4 && *end == '_' && pid > 0 && pid <= INT_MAX ? (int)pid : -1;
}

int tfs_stale_synth(const char *dir, void (*fn)(const char *name, int pid, void *arg),
		    void *arg)
{
	char path[PATH_MAX], *text, *l, *next;
	int n = 0;

	snprintf(path, sizeof(path), "%s/synthetic_events", dir);
	if (access(path, F_OK))
		return 0;	/* no synthetic events on this kernel */
	text = file_read(path, NULL);
	if (!text)
		return -errno;
	for (l = text; *l; l = next) {
		char *end = strchr(l, '\n'), *sp;
		int pid;

		next = end ? end + 1 : l + strlen(l);
		if (end)
			*end = '\0';
		sp = l + strcspn(l, " \t");	/* "ofr_1_lat\tpid_t pid; u64 lat" */
		*sp = '\0';
		pid = synth_owner(l);
		if (pid < 0 || owner_alive(NULL, pid))	/* events have no times */
			continue;
		n++;
		if (fn)
			fn(l, pid, arg);
	}
	free(text);
	return n;
}

int tfs_remove_synth(const char *dir, const char *name)
{
	char path[PATH_MAX], cmd[160];

	snprintf(path, sizeof(path), "%s/synthetic_events", dir);
	snprintf(cmd, sizeof(cmd), "!%s", name);
	return tfs_write_file(path, cmd, true);
}
