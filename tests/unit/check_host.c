// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host state read and written around a run: PSI totals, cgroup CPU
 * throttling and membership, and the tracefs undo log, each against a
 * temporary directory standing in for /proc/pressure, a cgroup or tracefs;
 * the hypervisor's steal against /proc/stat read before and after;
 * the mount table reader on made-up lines.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "kfacts.h"
#include "taskstats.h"
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include "fixture.h"
#include "mounts.h"
#include "procfs.h"
#include "psi.h"
#include "tfs.h"
#include "tfs_caps.h"

static char dir[64];

static void mkdir_tmp(void)
{
	strcpy(dir, "/tmp/offcpu-host-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void put(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *name)
{
	static char buf[256];
	char path[128];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void rm_tmp(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* the hypervisor's steal: /proc/stat's CPU line, read as the awk of lib.sh does */
START_TEST(test_steal)
{
	unsigned long long v[8], before, after;
	uint64_t ns;
	long tick = 1000000000L / sysconf(_SC_CLK_TCK);
	FILE *f;
	int i;

	f = fopen("/proc/stat", "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
				&v[2], &v[3], &v[4], &v[5], &v[6], &v[7]), 8);
	fclose(f);
	before = v[7] * (unsigned long long)tick;
	ck_assert_int_eq(proc_steal_ns(&ns), 0);
	f = fopen("/proc/stat", "r");
	ck_assert_ptr_nonnull(f);
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(fscanf(f, i ? " %llu" : "cpu %llu", &v[i]), 1);
	fclose(f);
	after = v[7] * (unsigned long long)tick;
	/* between the two reads, in whole ticks */
	ck_assert_uint_ge(ns, before);
	ck_assert_uint_le(ns, after);
	ck_assert_uint_eq(ns % (uint64_t)tick, 0);
}
END_TEST

/* each CPU's idle + iowait from its cpuN line; an offline CPU has none; this host's too */
START_TEST(test_cpu_idle)
{
	static const char text[] =
		"cpu  100 0 50 9000 20 0 3 0 0 0\n"
		"cpu0 50 0 25 4000 10 0 2 0 0 0\n"
		"cpu2 50 0 25 5000 10 0 1 0 0 0\n"
		"intr 12345 0 0\n"
		"ctxt 999\n";
	uint64_t ns[4], host[64];
	bool listed[4], hl[64];
	int n;

	ck_assert_int_eq(proc_stat_cpu_idle(text, 10000000, ns, listed, 4), 3);
	ck_assert(listed[0] && !listed[1] && listed[2] && !listed[3]);
	ck_assert_uint_eq(ns[0], 4010ull * 10000000);
	ck_assert_uint_eq(ns[1], 0);
	ck_assert_uint_eq(ns[2], 5010ull * 10000000);
	/* beyond @max: left out, the count stays within it */
	ck_assert_int_eq(proc_stat_cpu_idle(text, 1, ns, listed, 1), 1);
	ck_assert_uint_eq(ns[0], 4010);
	ck_assert_int_eq(proc_stat_cpu_idle("intr 1\n", 1, ns, listed, 4), -EINVAL);
	ck_assert_int_eq(proc_stat_cpu_idle("cpu  1 2 3\ncpu0 1 2 3\n", 1, ns, listed, 4), -EINVAL);
	/* this host: every online CPU listed, in whole ticks */
	n = proc_cpu_idle(host, hl, 64);
	ck_assert_int_ge(n, 1);
	ck_assert(hl[0] || sysconf(_SC_NPROCESSORS_ONLN) < n);
	ck_assert_uint_eq(host[0] % proc_tick_ns(), 0);
}
END_TEST

/* a stat line: the name up to the last ")", cut to fit; fields 4 to 22, -1 too */
START_TEST(test_stat_split)
{
	static const char line[] = "4242 (a) (b) S 1 4242 4242 0 -1 4194560 87 0 0 0 3 4 0 0 20 0 "
				   "1 0 123456 8 9 10\n";
	unsigned long long v[PROC_STAT_NFIELDS];
	char comm[4], state = 0;

	ck_assert_int_eq(proc_stat_split(line, comm, sizeof(comm), &state, v), 0);
	ck_assert_str_eq(comm, "a) ");	/* "a) (b", cut */
	ck_assert_int_eq(state, 'S');
	ck_assert_uint_eq(v[0], 1);		/* ppid */
	ck_assert_uint_eq(v[10], 3);		/* utime, field 14 */
	ck_assert_uint_eq(v[18], 123456);	/* starttime, field 22 */
	ck_assert_int_eq(proc_stat_split(line, NULL, 0, NULL, v), 0);
	ck_assert_int_eq(proc_stat_split("1 (x) S 1 2", comm, sizeof(comm), &state, v), -EINVAL);
	ck_assert_int_eq(proc_stat_split("1 (x S 1 2", NULL, 0, NULL, v), -EINVAL);
}
END_TEST

/* /proc's kworker names lose the queue suffix; other names stay whole */
START_TEST(test_comm_tidy)
{
	static const char *const in[][2] = {
		{"kworker/1:0-virtio_vsock", "kworker/1:0"},
		{"kworker/0:1H-kblockd", "kworker/0:1H"},
		{"kworker/u8:2+events_unbound", "kworker/u8:2"},
		{"kworker/1:2", "kworker/1:2"},
		{"kworker/R-mm_per", "kworker/R-mm_per"},	/* a rescuer's own name */
		{"kworker/x-y", "kworker/x-y"},
		{"kworker/1-y", "kworker/1-y"},
		{"my-worker", "my-worker"},
		{"kworker/", "kworker/"},
	};
	char buf[32];
	unsigned i;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		snprintf(buf, sizeof(buf), "%s", in[i][0]);
		proc_comm_tidy(buf);
		ck_assert_str_eq(buf, in[i][1]);
	}
}
END_TEST

START_TEST(test_psi)
{
	struct psi p;

	mkdir_tmp();
	/* a cgroup v2 directory's *.pressure files; memory missing */
	put("cpu.pressure", "some avg10=1.00 avg60=0.50 avg300=0.10 total=123456\n"
	    "full avg10=0.00 avg60=0.00 avg300=0.00 total=789\n");
	put("io.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=42\n"
	    "full avg10=0.00 avg60=0.00 avg300=0.00 total=7\n");
	psi_read(&p, dir);
	ck_assert(p.have[PSI_CPU] && p.have[PSI_IO] && !p.have[PSI_MEM]);
	ck_assert_uint_eq(p.some_us[PSI_CPU], 123456);
	ck_assert_uint_eq(p.full_us[PSI_CPU], 789);
	ck_assert_uint_eq(p.some_us[PSI_IO], 42);
	ck_assert_uint_eq(p.full_us[PSI_IO], 7);
	/* a malformed file gives nothing rather than garbage */
	put("cpu.pressure", "some of this is not psi\n");
	psi_read(&p, dir);
	ck_assert(!p.have[PSI_CPU]);
	rm_tmp();
}
END_TEST

START_TEST(test_throttle)
{
	struct cgroup_sel c;
	struct cpu_throttle t;

	mkdir_tmp();
	memset(&c, 0, sizeof(c));
	snprintf(c.dir, sizeof(c.dir), "%s", dir);
	/* v2: usecs */
	put("cpu.stat", "usage_usec 100\nuser_usec 60\nsystem_usec 40\nnr_periods 50\n"
	    "nr_throttled 12\nthrottled_usec 3400\n");
	cgroup_throttle(&c, &t);
	ck_assert(t.have);
	ck_assert_uint_eq(t.periods, 50);
	ck_assert_uint_eq(t.nr_throttled, 12);
	ck_assert_uint_eq(t.throttled_ns, 3400000);
	/* v1: ns */
	put("cpu.stat", "nr_periods 9\nnr_throttled 3\nthrottled_time 5000000\n");
	cgroup_throttle(&c, &t);
	ck_assert_uint_eq(t.nr_throttled, 3);
	ck_assert_uint_eq(t.throttled_ns, 5000000);
	/* no cpu controller: nothing claimed */
	unlink(strcat(strcpy((char[128]){ 0 }, dir), "/cpu.stat"));
	cgroup_throttle(&c, &t);
	ck_assert(!t.have);
	rm_tmp();
}
END_TEST

/* --cgroup on our own cgroup: we are in it, a task that is gone is unknown */
START_TEST(test_cgroup_self)
{
	char line[4096], path[4200], err[256];
	struct cgroup_sel c;
	FILE *f = fopen("/proc/self/cgroup", "r");
	const char *mnt = NULL;

	ck_assert_ptr_nonnull(f);
	/*
	 * v2 ("0::/x") where mounted, else a v1 hierarchy mounted as
	 * /sys/fs/cgroup/<controllers>, preferring one we are not at the root of
	 */
	while (fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *rel = ctl ? strchr(ctl + 1, ':') : NULL;
		char try[4200];

		line[strcspn(line, "\n")] = '\0';
		if (!rel)
			continue;
		*rel++ = '\0';
		ctl++;
		if (!*ctl)
			snprintf(try, sizeof(try), "/sys/fs/cgroup%s", rel);
		else
			snprintf(try, sizeof(try), "/sys/fs/cgroup/%s%s",
				 strncmp(ctl, "name=", 5) ? ctl : ctl + 5, rel);
		if ((!*ctl && access("/sys/fs/cgroup/cgroup.controllers", F_OK)) || access(try, F_OK))
			continue;
		if (!mnt || strcmp(rel, "/")) {
			mnt = "found";
			snprintf(path, sizeof(path), "%s", try);
		}
		if (strcmp(rel, "/"))
			break;
	}
	fclose(f);
	if (!mnt || access(path, F_OK)) {
		fprintf(stderr, "check_host: no mounted cgroup of ours to test (%s)\n",
			mnt ? path : "none found");
		return;
	}
	ck_assert_msg(cgroup_sel_open(&c, path, err, sizeof(err)) == 0, "%s: %s", path, err);
	ck_assert_int_eq(cgroup_sel_has(getpid(), &c), 1);
	ck_assert_int_eq(cgroup_sel_has(4194303, &c), -1);
	ck_assert_int_ne(cgroup_sel_open(&c, "/nonexistent", err, sizeof(err)), 0);
	ck_assert(strstr(err, "no such cgroup directory"));
	ck_assert_int_ne(cgroup_sel_open(&c, "/tmp", err, sizeof(err)), 0);
	ck_assert(strstr(err, "not inside a mounted cgroup hierarchy"));
}
END_TEST

/* The mount table reader: fields, escapes, short lines, lists. */
START_TEST(test_mounts)
{
	char text[] = "a /x\\040y t o,p 0 0\nshort line\n\n  b  /z  t2  q  \nc /w t3 r";
	char *p = text;
	struct mount_ent m;

	ck_assert(mounts_next(&p, &m));
	ck_assert_str_eq(m.dir, "/x y");
	ck_assert_str_eq(m.opts, "o,p");
	ck_assert(mounts_next(&p, &m));
	ck_assert_str_eq(m.dev, "b");
	ck_assert_str_eq(m.type, "t2");
	ck_assert_str_eq(m.opts, "q");
	ck_assert(mounts_next(&p, &m));
	ck_assert_str_eq(m.dir, "/w");
	ck_assert_str_eq(m.opts, "r");
	ck_assert(!mounts_next(&p, &m));
	ck_assert(mount_list_has("rw,cpu,cpuacct", 14, "cpu"));
	ck_assert(mount_list_has("rw,cpu,cpuacct", 14, "cpuacct"));
	ck_assert(!mount_list_has("rw,cpuacct", 10, "cpu"));
	ck_assert(!mount_list_has("rw,cpuacct", 5, "cpuacct"));	/* only @len bytes */
	ck_assert(!mount_list_has("", 0, ""));
	ck_assert(mount_list_has("cpu", 3, "cpu"));
	/* the first of a type, with an option or any */
	{
		const char *tab = "cgroup /c/a cgroup rw,cpuacct 0 0\ncgroup /c/b cgroup rw,cpu 0 0\n"
				  "tracefs /t\\040x tracefs rw 0 0\n";
		char d[32];

		ck_assert_int_eq(mounts_find(tab, "cgroup", "cpu", d, sizeof(d)), 0);
		ck_assert_str_eq(d, "/c/b");
		ck_assert_int_eq(mounts_find(tab, "cgroup", NULL, d, sizeof(d)), 0);
		ck_assert_str_eq(d, "/c/a");
		ck_assert_int_eq(mounts_find(tab, "tracefs", NULL, d, sizeof(d)), 0);
		ck_assert_str_eq(d, "/t x");
		ck_assert_int_eq(mounts_find(tab, "cgroup2", NULL, d, sizeof(d)), -ENOENT);
	}
}
END_TEST

/* The undo log: steps replayed in reverse, failures counted, the list emptied. */
START_TEST(test_undo)
{
	struct tfs_undo_list u = { 0 };
	char path[128], bad[128];

	mkdir_tmp();
	put("tracing_on", "1\n");
	put("trigger", "");
	snprintf(path, sizeof(path), "%s/tracing_on", dir);
	/* what was there, then a later change of the same file */
	ck_assert_int_eq(tfs_undo_write(&u, path, "1", false), 0);
	ck_assert_int_eq(tfs_write_file(path, "0", false), 0);
	ck_assert_int_eq(tfs_undo_write(&u, path, "2", false), 0);
	/* an append (a trigger removal: "!stacktrace") */
	snprintf(path, sizeof(path), "%s/trigger", dir);
	ck_assert_int_eq(tfs_undo_write(&u, path, "!stacktrace", true), 0);
	/* a step recorded for a change that then failed is dropped */
	ck_assert_int_eq(tfs_undo_write(&u, path, "never", true), 0);
	tfs_undo_drop_last(&u);
	/* a file that cannot be written counts as a failure, the rest still runs */
	snprintf(bad, sizeof(bad), "%s/missing/file", dir);
	ck_assert_int_eq(tfs_undo_write(&u, bad, "x", false), 0);
	ck_assert_uint_eq(u.n, 4);
	ck_assert_uint_eq(tfs_undo_run(&u), 1);
	ck_assert_uint_eq(u.n, 0);
	/* reverse order: "2" then "1", so the file is as first found */
	ck_assert_str_eq(get("tracing_on"), "1");
	ck_assert_str_eq(get("trigger"), "!stacktrace");
	/* an empty log runs clean */
	ck_assert_uint_eq(tfs_undo_run(&u), 0);
	rm_tmp();
}
END_TEST

static void count_stale(const char *name, int pid, void *arg)
{
	char *seen = arg;

	(void)pid;
	strncat(seen, name, 255 - strlen(seen));
	strncat(seen, " ", 255 - strlen(seen));
}

/* an instance's owner: alive and started before it, whatever it is named */
START_TEST(test_stale_owner)
{
	char path[192], seen[256] = "", want[256];
	struct timespec t[2];
	uint64_t start;
	pid_t child;

	mkdir_tmp();
	snprintf(path, sizeof(path), "%s/instances", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(proc_start_ns(getpid(), &start), 0);
	ck_assert_uint_gt(start, 0);
	ck_assert_int_eq(proc_start_ns(4194303, &start), -ENOENT);
	/* this test's own (named check_host, not offcpu-ftrace): alive */
	snprintf(path, sizeof(path), "%s/instances/offcpu-ftrace.%d", dir, (int)getpid());
	ck_assert_int_eq(mkdir(path, 0700), 0);
	/* a process that started after its instance was made: a recycled pid */
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* gone with the test, if an assert ends it */
		if (getppid() == 1)
			_exit(0);
		pause();
		_exit(0);
	}
	snprintf(path, sizeof(path), "%s/instances/offcpu-ftrace.%d.2", dir, (int)child);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= 10;
	t[1] = t[0];
	ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
	/* gone, and another tool's */
	snprintf(path, sizeof(path), "%s/instances/offcpu-ftrace.4194303", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/instances/perfetto.1", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(tfs_stale_instances(dir, count_stale, seen), 2);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	snprintf(want, sizeof(want), "offcpu-ftrace.%d.2 ", (int)child);
	ck_assert_ptr_nonnull(strstr(seen, want));
	ck_assert_ptr_nonnull(strstr(seen, "offcpu-ftrace.4194303 "));
	rm_tmp();
}
END_TEST

/* the per-boot state file: parsed, keyed to this boot, kept, trusted only as root's */
START_TEST(test_kfacts)
{
	struct kfacts k, l;
	char buf[4096], path[128];
	char other[] = "boot_id=other\nrelease=6.18\nidle_loss=seen\n";

	ck_assert_int_eq(kfacts_this_boot(&k), 0);
	ck_assert_uint_eq(strlen(k.boot_id), 36);
	/* round trip */
	k.loss_seen = true;
	strcpy(k.seen_by, "run");
	strcpy(k.detail, "runq on the ring backend:\n7 switches");	/* a newline: one line */
	k.seen_at = 1796400061;
	k.clean_probe_ms = 1234;
	ck_assert_int_gt(kfacts_format(&k, buf, sizeof(buf)), 0);
	ck_assert_ptr_nonnull(strstr(buf, "\ndetail=runq on the ring backend: 7 switches\n"));
	ck_assert_int_eq(kfacts_this_boot(&l), 0);
	ck_assert_int_eq(kfacts_parse(buf, &l), 1);
	ck_assert(l.loss_seen);
	ck_assert_str_eq(l.seen_by, "run");
	ck_assert_int_eq(l.seen_at, 1796400061);
	ck_assert_uint_eq(l.clean_probe_ms, 1234);
	/* another boot's or kernel's: ignored; not such a file: refused */
	ck_assert_int_eq(kfacts_this_boot(&l), 0);
	ck_assert_int_eq(kfacts_parse(other, &l), 0);
	ck_assert(!l.loss_seen);
	ck_assert_int_eq(kfacts_parse("hello\n", &l), -EINVAL);
	ck_assert_int_eq(kfacts_parse("boot_id=a\nrelease=b\nidle_loss=maybe\n", &l), -EINVAL);
	ck_assert_int_eq(kfacts_format(&k, buf, 40), -ENOSPC);
	if (geteuid() != 0)
		return;	/* only root writes it */
	mkdir_tmp();
	snprintf(path, sizeof(path), "%s/kernel-facts", dir);
	ck_assert_int_eq(kfacts_load(path, &l), 0);	/* absent */
	ck_assert_int_eq(kfacts_note_clean(path, 300), 0);
	ck_assert_int_eq(kfacts_note_clean(path, 200), 0);
	ck_assert_int_eq(kfacts_load(path, &l), 1);
	ck_assert(!l.loss_seen);
	ck_assert_uint_eq(l.clean_probe_ms, 500);
	ck_assert_int_eq(kfacts_note_loss(path, "probe", "45 of 46"), 0);
	/* the first sighting stays */
	ck_assert_int_eq(kfacts_note_loss(path, "run", "later"), 0);
	ck_assert_int_eq(kfacts_load(path, &l), 1);
	ck_assert(l.loss_seen);
	ck_assert_str_eq(l.seen_by, "probe");
	ck_assert_str_eq(l.detail, "45 of 46");
	ck_assert_uint_eq(l.clean_probe_ms, 500);
	ck_assert_int_gt(l.seen_at, 0);
	/* writable by others, or not root's: not trusted (and replaced when written) */
	ck_assert_int_eq(chmod(path, 0666), 0);
	ck_assert_int_eq(kfacts_load(path, &l), -EPERM);
	ck_assert_int_eq(kfacts_note_clean(path, 1), 0);
	ck_assert_int_eq(kfacts_load(path, &l), 1);
	ck_assert(!l.loss_seen);
	ck_assert_uint_eq(l.clean_probe_ms, 1);
	ck_assert_int_eq(chown(path, 65534, 65534), 0);
	ck_assert_int_eq(kfacts_load(path, &l), -EPERM);
	/* another boot's file: this boot knows nothing */
	ck_assert_int_eq(unlink(path), 0);
	put("kernel-facts", other);
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(kfacts_load(path, &l), 0);
	ck_assert(!l.loss_seen);
	/* turned off by the environment */
	setenv(KFACTS_ENV, "", 1);
	ck_assert_ptr_null(kfacts_path());
	setenv(KFACTS_ENV, path, 1);
	ck_assert_str_eq(kfacts_path(), path);
	unsetenv(KFACTS_ENV);
	ck_assert_str_eq(kfacts_path(), KFACTS_PATH);
	rm_tmp();
}
END_TEST

/* an exited thread's totals, from a taskstats datagram as the kernel sends it */
static struct ts_exit ts_got[4];
static int ts_n;

static void ts_cb(void *arg, const struct ts_exit *e)
{
	(void)arg;
	if (ts_n < 4)
		ts_got[ts_n++] = *e;
}

/* an attribute of @type and @len bytes at @p; returns the next position */
static char *put_attr(char *p, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type };

	memcpy(p, &a, sizeof(a));
	if (data)
		memcpy(p + NLA_HDRLEN, data, len);
	return p + ((NLA_HDRLEN + len + 3u) & ~3u);
}

START_TEST(test_taskstats_parse)
{
	static char buf[4096];
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	struct taskstats t;
	char *p, *nest;
	uint32_t tid = 4242, tgid = 4240;

	memset(buf, 0, sizeof(buf));
	memset(&t, 0, sizeof(t));
	t.version = TASKSTATS_VERSION;
	t.cpu_delay_total = 1234567;
	t.cpu_run_virtual_total = 7654321;
	p = (char *)NLMSG_DATA(n) + GENL_HDRLEN;
	/* the thread's own: PID and STATS nested in AGGR_PID */
	nest = p;
	p = put_attr(p, TASKSTATS_TYPE_PID, &tid, 4);
	p = put_attr(p, TASKSTATS_TYPE_STATS, &t, sizeof(t));
	{
		size_t inner = (size_t)(p - nest);

		memmove(nest + NLA_HDRLEN, nest, inner);
		put_attr(nest, TASKSTATS_TYPE_AGGR_PID, NULL, (uint16_t)inner);
		p = nest + NLA_HDRLEN + inner;
	}
	/* the process's too (the last thread): not a thread's, left out */
	nest = p;
	p = put_attr(p, TASKSTATS_TYPE_TGID, &tgid, 4);
	{
		size_t inner = (size_t)(p - nest);

		memmove(nest + NLA_HDRLEN, nest, inner);
		put_attr(nest, TASKSTATS_TYPE_AGGR_TGID, NULL, (uint16_t)inner);
		p = nest + NLA_HDRLEN + inner;
	}
	n->nlmsg_len = (uint32_t)(p - buf);
	n->nlmsg_type = 22;
	ts_n = 0;
	ck_assert_int_eq(ts_parse(buf, n->nlmsg_len, ts_cb, NULL), 1);
	ck_assert_int_eq(ts_n, 1);
	ck_assert_int_eq(ts_got[0].tid, 4242);
	ck_assert_uint_eq(ts_got[0].run_delay_ns, 1234567);
	ck_assert_uint_eq(ts_got[0].exec_ns, 7654321);
	/* the thread's attribute past the message's end: refused, nothing made up */
	n->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + 40;
	ts_n = 0;
	ck_assert_int_eq(ts_parse(buf, n->nlmsg_len, ts_cb, NULL), -EINVAL);
	ck_assert_int_eq(ts_n, 0);
	/* truncated stats: no exit made up */
	ck_assert_int_le(ts_parse(buf, 24, ts_cb, NULL), 0);
	ck_assert_int_eq(ts_n, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("host");
	TCase *tc = tcase_create("host");

	tcase_add_test(tc, test_psi);
	tcase_add_test(tc, test_comm_tidy);
	tcase_add_test(tc, test_steal);
	tcase_add_test(tc, test_cpu_idle);
	tcase_add_test(tc, test_stat_split);
	tcase_add_test(tc, test_throttle);
	tcase_add_test(tc, test_cgroup_self);
	tcase_add_test(tc, test_undo);
	tcase_add_test(tc, test_mounts);
	tcase_add_test(tc, test_stale_owner);
	tcase_add_test(tc, test_kfacts);
	tcase_add_test(tc, test_taskstats_parse);
	suite_add_tcase(s, tc);
	return check_run(s);
}
