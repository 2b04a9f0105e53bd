// SPDX-License-Identifier: GPL-2.0-or-later
/* info: what this host supports and which backend each command would use. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "choose.h"
#include "cli.h"
#include "escape.h"
#include "fileread.h"
#include "kfacts.h"
#include "linescan.h"
#include "run.h"
#include "perfcaps.h"
#include "tfs_caps.h"
#include "output.h"
#include "report.h"
#include "tmount.h"

struct host {
	char kernel[128];
	const char *tracefs;	/* --tracefs */
	struct perf_caps pc;
	struct ksym_caps kc;	/* can this process name kernel frames */
	struct host_caps caps;	/* what backend_choose() decides on */
	bool psi, schedstat, btf;
};

static void probe_host(struct host *h)
{
	struct utsname u;

	memset(h, 0, sizeof(*h));
	if (uname(&u) == 0)
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
	perf_caps_probe(&h->pc);
	ksym_caps_probe(&h->kc);
	h->psi = access("/proc/pressure/cpu", R_OK) == 0;
	h->schedstat = access("/proc/self/schedstat", R_OK) == 0;
	h->btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

/*
 * What each command gets: the line parsed as the command parses it, and
 * refused by the hist backend by the same rule a run applies.
 */
static const char *const scenarios[] = { "runq", "offcpu", "offcpu -K", "triage" };
#define NSCEN (sizeof(scenarios) / sizeof(scenarios[0]))

/* The request @line makes of the backend rule, as a run would make it. */
static void scenario_req(const char *line, struct choose_req *req)
{
	char buf[128], *argv[8], *save = NULL, *w;
	struct trace_opts o;
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (w = strtok_r(buf, " ", &save); w && argc < 7; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	memset(req, 0, sizeof(*req));
	req->want = "auto";
	if (!argc || trace_opts_parse(&o, argv[0], argc, argv) >= 0)
		return;	/* not reached: the lines are ours */
	run_choose_req(&o, req);
}

static const char *yesno(bool b)
{
	return b ? "yes" : "no";
}

/* where the drop answer came from, in words ("" when not probed) */
static void drops_source(const struct host_caps *c, char *buf, size_t len)
{
	if (c->drops_from == DROPS_FROM_STATE)
		snprintf(buf, len, "%s", c->drops_seen);
	else if (c->drops_from == DROPS_FROM_PROBE)
		snprintf(buf, len, "probe: %llu of %llu context switches reached sched_switch in "
			 "%u ms%s", (unsigned long long)c->drop_recorded,
			 (unsigned long long)c->drop_switches, c->drop_probe_ms,
			 c->drops == DROPS_SEEN ? ", kept for this boot" : "");
	else
		snprintf(buf, len, "not probed");
}

static void print_drops(const struct host *h)
{
	const struct host_caps *c = &h->caps;
	char src[600];

	drops_source(c, src, sizeof(src));
	if (c->drops == DROPS_SEEN && c->drops_from == DROPS_FROM_STATE)
		printf("switches recorded:    NOT ALL: this kernel loses the sched tracepoints' "
		       "hits of idle CPUs (%s): ring and hist miss switches and wakeups there; "
		       "perf takes switches from its context-switch records\n", src);
	else if (c->drops == DROPS_SEEN)
		printf("switches recorded:    NOT ALL: the tracepoint lost hits on CPU %s (%s): "
		       "ring and hist miss switches and wakeups there; perf takes switches from "
		       "its context-switch records\n", c->drop_cpus, src);
	else if (c->drops == DROPS_NONE)
		printf("switches recorded:    none lost while probed (%s; %.1f s of probing this "
		       "boot saw none, and no run has; a loss a run sees is kept for the boot)\n",
		       src, (double)c->clean_probe_ms / 1e3);
	else if (c->drops == DROPS_BUSY)
		printf("switches recorded:    not known: a CPU did not idle during the probe (a "
		       "busy host), and the hits some kernels lose are an idle CPU's (%s); auto "
		       "uses perf's context-switch records where it would use the ring; run info "
		       "on an idle host for the answer\n", src);
	else if (c->perf_allowed && c->tfs_found && !choose_needs_drop_probe(c, "auto"))
		printf("switches recorded:    not probed (tracefs is not writable here: auto picks "
		       "perf anyway)\n");
	else if (c->perf_allowed && c->tfs_found)
		printf("switches recorded:    unknown (the probe saw too few switches)\n");
	else
		printf("switches recorded:    not probed (needs perf events and tracefs's "
		       "sched_switch)\n");
}

/*
 * What an ordinary user would get here (info run as root): tracefs only
 * if others may enter it, perf tracepoint samples only at
 * perf_event_paranoid -1, never a writable tracefs.
 */
static void unprivileged_caps(const struct host *h, struct host_caps *u)
{
	struct stat st;

	*u = h->caps;
	u->tfs_writable = false;
	u->tfs_not_root = true;
	if (u->tfs_found && (stat(u->tfs_dir, &st) || !(st.st_mode & S_IXOTH))) {
		u->tfs_found = false;
		snprintf(u->tfs_why, sizeof(u->tfs_why), "tracefs at %.200s is mode %04o: other "
			 "users cannot read it", u->tfs_dir, (unsigned)(st.st_mode & 07777));
	}
	u->perf_allowed = h->pc.paranoid == -1 && h->caps.perf_records;
	/* CPU-wide context-switch records without CAP_PERFMON: paranoid 0 or less */
	u->perf_records = h->pc.paranoid <= 0 && h->pc.paranoid != -99 && h->caps.perf_records;
	if (!u->perf_allowed)
		snprintf(u->perf_why, sizeof(u->perf_why), "perf_event_paranoid is %d: tracepoint "
			 "samples need -1 without CAP_PERFMON", h->pc.paranoid);
	u->drops = DROPS_UNKNOWN;
}

/* Which backends can run here at all, and why or why not. */
static void print_backends(const struct host *h, bool json)
{
	static const enum backend_kind kinds[] = { BK_HIST, BK_RING, BK_PERF, BK_PROC };
	static const char *const names[] = { "hist", "ring", "perf", "proc" };
	static const char *const level[] = { "no", "in part", "yes" };
	char why[1024], buf[16];
	unsigned i;

	for (i = 0; i < 4; i++) {
		int can = backend_can(&h->caps, kinds[i], why, sizeof(why));

		if (!json) {
			snprintf(buf, sizeof(buf), "%s:", names[i]);
			printf("can run %-13s %s (%s)\n", buf, level[can], why);
			continue;
		}
		printf("%s\"%s\":{\"can\":\"%s\",\"why\":", i ? "," : "", names[i], level[can]);
		json_str(stdout, why, sizeof(why));
		printf("}");
	}
}

static void print_choices(const struct host *h, bool json)
{
	char better[sizeof(((struct choice *)0)->better)] = "";
	struct choice ch;
	unsigned i;

	for (i = 0; i < NSCEN; i++) {
		struct choose_req req;
		char buf[32];

		scenario_req(scenarios[i], &req);
		backend_choose_req(&h->caps, &req, &ch);
		if (json) {
			printf("%s\"%s\":{\"backend\":", i ? "," : "", scenarios[i]);
			if (backend_ops_of(ch.kind))
				printf("\"%s\"", backend_ops_of(ch.kind)->name);
			else
				printf("null");
			printf(",\"switches_only\":%s,\"better\":", ch.switches_only ? "true" : "false");
			if (ch.better[0])
				json_str(stdout, ch.better, sizeof(ch.better));
			else
				printf("null");
			printf(",\"why\":");
			json_str(stdout, ch.why, sizeof(ch.why));
			printf("}");
			continue;
		}
		snprintf(buf, sizeof(buf), "%s:", scenarios[i]);
		printf("backend %-13s %s (%s)\n", buf, backend_ops_of(ch.kind) ?
		       backend_ops_of(ch.kind)->name : "none", ch.why);
		if (ch.better[0] && !better[0])
			snprintf(better, sizeof(better), "%s", ch.better);
	}
	if (!json && better[0])
		printf("a better backend:     %s\n", better);
	if (h->pc.root) {
		struct host_caps u;
		const char *name;

		unprivileged_caps(h, &u);
		struct choose_req req;

		scenario_req("runq", &req);
		req.pid_keyed = false;
		backend_choose_req(&u, &req, &ch);
		name = backend_ops_of(ch.kind) ? backend_ops_of(ch.kind)->name : NULL;
		if (!json) {
			printf("unprivileged users:   %s (%s)\n", name ? name : "none", ch.why);
			return;
		}
		printf(",\"unprivileged\":{\"backend\":");
		if (name)
			printf("\"%s\"", name);
		else
			printf("null");
		printf(",\"why\":");
		json_str(stdout, ch.why, sizeof(ch.why));
		printf("}");
	}
}

/*
 * The least privilege for each backend, as the user running info: what
 * is missing here and the command lines that root would run to give it
 * (SECURITY in offcpu-ftrace(8) has the reasons; tests/live/privilege.sh
 * runs them).
 */
#define TRACING_GROUP "tracing"	/* the group the commands create when tracefs has none */
#define PRIV_CMDS 3

struct priv_item {
	bool ready;
	char state[1200];		/* what it has, or what it lacks */
	char cmd[PRIV_CMDS][1400];	/* command lines, for root */
	char alt[1024];			/* another way, not advised ("" none) */
	unsigned ncmd;
};

struct privs {
	char user[64];			/* name, or the uid */
	char exe[400];			/* this binary, shell-quoted ("..." if longer) */
	char tdir[300];			/* tracefs (or where it goes), shell-quoted */
	struct priv_item perf, ksym, ring, proc;
};

/* The name of @id in /etc/passwd or /etc/group ("name:x:id:..."), else the number. */
static void id_name(const char *file, unsigned id, char *buf, size_t len)
{
	char *text = file_read(file, NULL);
	struct reader r;

	snprintf(buf, len, "%u", id);
	if (!text)
		return;
	reader_init(&r, text, strlen(text));
	while (reader_next(&r)) {
		const char *c1 = memchr(r.ls, ':', (size_t)(r.le - r.ls)), *c2, *c3;
		uint64_t v;

		if (!c1 || !(c2 = memchr(c1 + 1, ':', (size_t)(r.le - c1 - 1))) ||
		    !(c3 = memchr(c2 + 1, ':', (size_t)(r.le - c2 - 1))))
			continue;
		if (span_u64(c2 + 1, c3, 10, &v) == 0 && v == id && c1 > r.ls) {
			snprintf(buf, len, "%.*s", (int)(c1 - r.ls), r.ls);
			break;
		}
	}
	free(text);
}

static bool in_group(gid_t g)
{
	gid_t list[256];
	int n = getgroups(256, list), i;

	if (getegid() == g)
		return true;
	for (i = 0; i < n; i++)
		if (list[i] == g)
			return true;
	return false;
}

static void quote_path(char *buf, size_t len, const char *path)
{
	char *argv[] = { (char *)path, NULL };

	shell_quote_argv(buf, len, argv, len - 1);
}

static void add_cmd(struct priv_item *it, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_cmd(struct priv_item *it, const char *fmt, ...)
{
	va_list ap;

	if (it->ncmd >= PRIV_CMDS)
		return;
	va_start(ap, fmt);
	vsnprintf(it->cmd[it->ncmd++], sizeof(it->cmd[0]), fmt, ap);
	va_end(ap);
}

/* The tracefs group part: what gives this user read access to the event formats. */
struct tgroup {
	bool mounted;		/* tracefs is mounted where we looked */
	bool has_group;		/* its group is not root's, and may enter it */
	bool member;		/* this user is in that group */
	char name[64];		/* that group, or TRACING_GROUP */
	unsigned mode;
};

static void tgroup_probe(const struct tfs_caps *c, struct tgroup *g)
{
	struct stat st;

	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%s", TRACING_GROUP);
	if (!c->dir[0] || stat(c->dir, &st))
		return;
	g->mounted = true;
	g->mode = (unsigned)(st.st_mode & 07777);
	if (st.st_gid != 0 && (st.st_mode & 0050) == 0050) {
		g->has_group = true;
		id_name("/etc/group", (unsigned)st.st_gid, g->name, sizeof(g->name));
		g->member = in_group(st.st_gid);
	}
}

/* The formats: readable, or the commands of the tracefs group (none on failure to tell). */
static bool formats_item(const struct tfs_caps *c, const struct tgroup *g, struct privs *p,
			 char *missing, size_t len)
{
	if (c->found && c->ev[SEV_SWITCH] && c->ev[SEV_WAKEUP])
		return true;
	if (!g->mounted) {
		snprintf(missing, len, "the event formats (tracefs is not mounted, and only root "
			 "may mount it)");
		add_cmd(&p->perf, "groupadd -f --system %s && usermod -a -G %s %s && mount -t "
			"tracefs -o gid=%s,mode=0750 nodev %s", g->name, g->name, p->user, g->name,
			TMOUNT_DEFAULT);
	} else if (g->has_group && !g->member) {
		snprintf(missing, len, "the event formats (tracefs at %s is mode %04o, group %s, "
			 "which %s is not in)", p->tdir, g->mode, g->name, p->user);
		add_cmd(&p->perf, "usermod -a -G %s %s   # %s logs in again", g->name, p->user,
			p->user);
	} else {
		snprintf(missing, len, "the event formats (tracefs at %s is mode %04o%s)", p->tdir,
			 g->mode, g->has_group ? "" : ", group root");
		add_cmd(&p->perf, "groupadd -f --system %s && usermod -a -G %s %s && mount -o "
			"remount,gid=%s,mode=0750 %s   # %s logs in again", TRACING_GROUP,
			TRACING_GROUP, p->user, TRACING_GROUP, p->tdir, p->user);
	}
	return false;
}

/*
 * The file capabilities: cap_perfmon unless perf_event_paranoid lets
 * anyone, cap_syslog where kallsyms hides addresses from users without
 * it, and cap_dac_read_search when this binary reads the formats with it
 * (setcap replaces the whole set); on this binary, which only the tracefs
 * group may then run, since whoever runs it holds them.
 */
static void caps_cmd(const struct host *h, const struct tgroup *g, bool group_cmd,
		     struct privs *p, bool fmt_ok)
{
	const struct perf_caps *pc = &h->pc;
	int kr = h->kc.kptr_restrict;
	bool perfmon = !(pc->paranoid != -99 && pc->paranoid <= -1);
	bool syslog = kr >= 0 && !(kr == 0 && pc->paranoid != -99 && pc->paranoid <= 1);
	bool dac = pc->cap_dac_read_search && fmt_ok && !(g->has_group && g->member) &&
		   !(g->mode & 0005);
	/* the Debian package's binary: dpkg-statoverride keeps group and mode over upgrades */
	bool packaged = !strcmp(p->exe, "/usr/sbin/offcpu-ftrace") &&
			access("/usr/bin/dpkg-statoverride", X_OK) == 0;
	bool no_perfmon = perfmon && !pc->cap_perfmon && !pc->cap_sys_admin;
	char set[128], restrict_[1024], pre[256] = "";

	snprintf(set, sizeof(set), "%s%s%s%s%s", perfmon ? "cap_perfmon" : "",
		 perfmon && syslog ? "," : "", syslog ? "cap_syslog" : "",
		 dac && (perfmon || syslog) ? "," : "", dac ? "cap_dac_read_search" : "");
	if (!fmt_ok)
		snprintf(p->perf.alt, sizeof(p->perf.alt), "setcap %s%scap_dac_read_search+ep %s"
			 "   # no tracefs group; CAP_DAC_READ_SEARCH reads every file: not advised",
			 set, set[0] ? "," : "", p->exe);
	if (!no_perfmon && !(syslog && !pc->cap_syslog))
		return;		/* nothing to add */
	/* whoever may run a binary with file capabilities holds them: only the group */
	if (!group_cmd && !(g->has_group && g->member))
		snprintf(pre, sizeof(pre), "groupadd -f --system %s && usermod -a -G %s %s && ",
			 g->name, g->name, p->user);
	if (packaged)
		snprintf(restrict_, sizeof(restrict_), "dpkg-statoverride --update --add root %s "
			 "0750 %s", g->name, p->exe);
	else
		snprintf(restrict_, sizeof(restrict_), "chgrp %s %s && chmod 0750 %s", g->name,
			 p->exe, p->exe);
	add_cmd(no_perfmon ? &p->perf : &p->ksym, "%s%s && setcap %s+ep %s", pre, restrict_,
		set, p->exe);
}

static void ksym_item(const struct host *h, struct priv_item *it)
{
	const struct ksym_caps *k = &h->kc;

	it->ready = k->visible;
	if (k->visible)
		snprintf(it->state, sizeof(it->state), "visible (offcpu -K names kernel frames)");
	else if (!k->readable)
		snprintf(it->state, sizeof(it->state), "/proc/kallsyms cannot be read: offcpu -K "
			 "prints raw addresses");
	else if (k->kptr_restrict >= 2) {
		snprintf(it->state, sizeof(it->state), "hidden from everyone (kptr_restrict 2): "
			 "offcpu -K prints raw addresses");
		add_cmd(it, "sysctl kernel.kptr_restrict=1   # then CAP_SYSLOG shows them");
	} else
		snprintf(it->state, sizeof(it->state), "hidden (kptr_restrict %d, "
			 "perf_event_paranoid %d): offcpu -K prints raw addresses; CAP_SYSLOG "
			 "shows them", k->kptr_restrict, h->pc.paranoid);
}

static void ring_item(const struct host *h, const struct privs *p, struct priv_item *it)
{
	const struct host_caps *c = &h->caps;

	it->ready = c->tfs_found && c->tfs_writable && c->ev_switch && c->ev_wakeup;
	if (it->ready) {
		snprintf(it->state, sizeof(it->state), "ready (tracefs at %s is writable)", p->tdir);
		return;
	}
	if (c->tfs_found && c->tfs_writable) {
		snprintf(it->state, sizeof(it->state), "cannot run: no sched_switch or sched_wakeup "
			 "event in tracefs at %s", p->tdir);
		return;
	}
	snprintf(it->state, sizeof(it->state), "need write access to tracefs: no group can have "
		 "it (tracefs makes its files, new instances' too, 0640 and 0440, owned by the "
		 "mount's uid) and CAP_DAC_OVERRIDE, which can, writes every file (root's power): "
		 "run them as root, or");
	if (c->tfs_found || c->tfs_dir[0])
		add_cmd(it, "mount -o remount,uid=%s %s   # %s then owns all of tracefs", p->user,
			p->tdir, p->user);
	else
		add_cmd(it, "mount -t tracefs -o uid=%s,mode=0700 nodev %s   # %s then owns all "
			"of tracefs", p->user, TMOUNT_DEFAULT, p->user);
}

static void privs_build(const struct tfs_caps *c, const struct host *h, struct privs *p)
{
	char exe[PATH_MAX], missing[2][560] = { "", "" };
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct tgroup g;
	bool fmt_ok, group_cmd;

	memset(p, 0, sizeof(*p));
	id_name("/etc/passwd", (unsigned)getuid(), p->user, sizeof(p->user));
	exe[n > 0 ? n : 0] = '\0';
	quote_path(p->exe, sizeof(p->exe), n > 0 ? exe : "offcpu-ftrace");
	quote_path(p->tdir, sizeof(p->tdir), c->dir[0] ? c->dir : TMOUNT_DEFAULT);
	tgroup_probe(c, &g);
	fmt_ok = formats_item(c, &g, p, missing[1], sizeof(missing[1]));
	group_cmd = p->perf.ncmd > 0;
	if (!h->pc.allowed && h->pc.paranoid == -99)
		snprintf(missing[0], sizeof(missing[0]), "CAP_PERFMON (perf_event_paranoid "
			 "unreadable)");
	else if (!h->pc.allowed)
		snprintf(missing[0], sizeof(missing[0]), "CAP_PERFMON (perf_event_paranoid is %d)",
			 h->pc.paranoid);
	ksym_item(h, &p->ksym);
	caps_cmd(h, &g, group_cmd, p, fmt_ok);
	p->perf.ready = h->pc.allowed && fmt_ok;
	if (p->perf.ready)
		snprintf(p->perf.state, sizeof(p->perf.state), "ready (%s; event formats readable)",
			 h->pc.why);
	else
		snprintf(p->perf.state, sizeof(p->perf.state), "needs %s%s%s", missing[0],
			 missing[0][0] && missing[1][0] ? " and " : "", missing[1]);
	ring_item(h, p, &p->ring);
	p->proc.ready = h->caps.proc_ok;
	snprintf(p->proc.state, sizeof(p->proc.state), "%s", p->proc.ready ?
		 "ready (no privileges: /proc sampling)" : "cannot run: /proc/<pid>/task/<tid>/"
		 "schedstat is not readable (CONFIG_SCHED_INFO)");
}

/* What each grant lets its holder do, beyond this tool. */
static const char *const grants[][2] = {
	{ "CAP_PERFMON", "perf events on every CPU and task: every process's scheduling, "
	  "names and kernel stacks, and kernel addresses in samples" },
	{ "CAP_SYSLOG", "kernel addresses in /proc/kallsyms and /proc/modules (which defeats "
	  "KASLR) and the kernel log through syslog(2)" },
	{ "CAP_DAC_READ_SEARCH", "reading every file and listing every directory, whatever "
	  "their permissions (this tool gives it up before report and compare open a file, "
	  "and once tracing is on)" },
	{ "tracefs group", "reading all of tracefs: formats, every instance's trace (reading "
	  "trace_pipe consumes it), kernel function names" },
	{ "tracefs owner", "all of tracefs, as root has it: any tracing of the kernel, "
	  "started, stopped, read or removed, other users' instances too" },
};

static void print_item_text(const char *label, const struct priv_item *it)
{
	unsigned i;

	printf("  %-20s %s\n", label, it->state);
	for (i = 0; i < it->ncmd; i++)
		printf("    %-18s %s\n", "as root:", it->cmd[i]);
	if (it->alt[0])
		printf("    %-18s %s\n", "or, as root:", it->alt);
}

static void print_privs_text(const struct tfs_caps *c, const struct host *h)
{
	struct privs p;
	unsigned i;

	if (h->pc.root) {
		printf("least privilege:      run info as the user to get its command lines "
		       "(SECURITY in offcpu-ftrace(8))\n");
		return;
	}
	privs_build(c, h, &p);
	printf("least privilege:      what would let %s trace here; the commands are root's "
	       "(SECURITY in offcpu-ftrace(8))\n", p.user);
	print_item_text("perf backend:", &p.perf);
	print_item_text("kernel symbols:", &p.ksym);
	print_item_text("ring/hist backends:", &p.ring);
	print_item_text("proc backend:", &p.proc);
	for (i = 0; i < sizeof(grants) / sizeof(grants[0]); i++) {
		char label[40];

		snprintf(label, sizeof(label), "%s:", grants[i][0]);
		printf("  %-20s %s\n", label, grants[i][1]);
	}
}

static void print_item_json(const char *key, const struct priv_item *it)
{
	unsigned i;

	printf(",\"%s\":{\"ready\":%s,\"state\":", key, it->ready ? "true" : "false");
	json_str(stdout, it->state, sizeof(it->state));
	printf(",\"commands\":[");
	for (i = 0; i < it->ncmd; i++) {
		printf("%s", i ? "," : "");
		json_str(stdout, it->cmd[i], sizeof(it->cmd[i]));
	}
	printf("],\"not_advised\":");
	if (it->alt[0])
		json_str(stdout, it->alt, sizeof(it->alt));
	else
		printf("null");
	printf("}");
}

static void print_privs_json(const struct tfs_caps *c, const struct host *h)
{
	struct privs p;
	unsigned i;

	printf(",\"least_privilege\":");
	if (h->pc.root) {
		printf("null");
		return;
	}
	privs_build(c, h, &p);
	printf("{\"user\":");
	json_str(stdout, p.user, sizeof(p.user));
	printf(",\"kptr_restrict\":%d,\"kernel_symbols_visible\":%s", h->kc.kptr_restrict,
	       h->kc.visible ? "true" : "false");
	print_item_json("perf", &p.perf);
	print_item_json("kernel_symbols", &p.ksym);
	print_item_json("ring", &p.ring);
	print_item_json("proc", &p.proc);
	printf(",\"grants\":{");
	for (i = 0; i < sizeof(grants) / sizeof(grants[0]); i++) {
		printf("%s\"%s\":", i ? "," : "", grants[i][0]);
		json_str(stdout, grants[i][1], strlen(grants[i][1]) + 1);
	}
	printf("}}");
}

static void print_text(const struct tfs_caps *c, const struct host *h)
{
	printf("kernel:               %s\n", h->kernel);
	if (c->found)
		printf("tracefs:              %s (%s%s%s)\n", c->dir,
		       c->writable ? "writable" : "not writable: ",
		       c->writable ? "" : c->why, tmount_mounted() ? "; it was not mounted: "
		       "runs mount it here for their duration" : "");
	else
		printf("tracefs:              not usable: %s\n", c->why);
	if (c->found) {
		printf("trace clocks:         %s\n", c->clocks);
		printf("clock used:           %s\n", c->clock_mono ? "mono" :
		       c->clock_global ? "global (no mono)" : "none usable (neither mono nor global)");
		printf("sched events:         sched_switch %s, sched_wakeup %s, sched_wakeup_new %s\n",
		       yesno(c->ev[SEV_SWITCH]), yesno(c->ev[SEV_WAKEUP]), yesno(c->ev[SEV_WAKEUP_NEW]));
		if (c->ev[SEV_SWITCH])
			printf("preempted-task flag:  0x%llx (%s)\n",
			       (unsigned long long)c->preempt_mask,
			       c->preempt_from_fmt ? "from sched_switch's print fmt"
						   : "derived from the state table");
		printf("hist triggers:        %s\n", yesno(c->hist));
		printf("synthetic events:     %s\n", yesno(c->synth));
		printf("stacks in synthetic:  %s\n", yesno(c->synth_stack));
		printf(".buckets modifier:    %s\n", yesno(c->buckets));
		printf("stacktrace trigger:   %s\n", yesno(c->stacktrace_trigger));
		printf("hist stack key:       %s\n", c->stack_key ? c->stack_key : "-");
	}
	if (h->pc.paranoid == -99)
		printf("perf_event_paranoid:  unknown\n");
	else
		printf("perf_event_paranoid:  %d\n", h->pc.paranoid);
	printf("running as root:      %s\n", yesno(h->pc.root));
	printf("capabilities:         CAP_PERFMON %s, CAP_SYS_ADMIN %s, CAP_IPC_LOCK %s, "
	       "CAP_SYSLOG %s, CAP_DAC_READ_SEARCH %s\n", yesno(h->pc.cap_perfmon),
	       yesno(h->pc.cap_sys_admin), yesno(h->pc.cap_ipc_lock), yesno(h->pc.cap_syslog),
	       yesno(h->pc.cap_dac_read_search));
	printf("perf events:          %s (%s)\n", h->caps.perf_allowed ? "allowed" :
	       h->caps.perf_records ? "context-switch records only" : "not allowed",
	       h->caps.perf_why);
	printf("pid namespace:        %s\n", h->caps.pidns_foreign > 0 ? "a container's own: the "
	       "sched tracepoints name tasks by the host's pids; commands that select or name "
	       "threads use a backend that names them by this namespace's" :
	       h->caps.pidns_foreign == 0 ? "the kernel's" : "unknown (/proc/self/ns/pid "
	       "unreadable)");
	printf("container:            %s%s\n", h->caps.container ? "yes (its own pid namespace, or "
	       "podman's /run/.containerenv)" : "no signs of one", h->caps.userns_foreign ?
	       "; a user namespace of its own (rootless): its root's capabilities do not reach "
	       "tracefs or perf events" : "");
	print_drops(h);
	if (h->caps.stale > 0) {
		char stale[400];

		host_caps_stale_text(&h->caps, stale, sizeof(stale));
		printf("left by killed runs:  %s\n", stale);
	}
	printf("PSI (/proc/pressure): %s\n", yesno(h->psi));
	printf("schedstat:            %s\n", yesno(h->schedstat));
	printf("BTF (for BPF tools):  %s\n", yesno(h->btf));
	print_backends(h, false);
	print_choices(h, false);
	print_privs_text(c, h);
}

static void print_json(const struct tfs_caps *c, const struct host *h)
{
	unsigned i;

	printf("{\"kernel\":");
	json_str(stdout, h->kernel, sizeof(h->kernel));
	printf(",\"tracefs\":{\"found\":%s,\"dir\":", c->found ? "true" : "false");
	json_str(stdout, c->dir, sizeof(c->dir));
	printf(",\"writable\":%s,\"mounted_by_run\":%s,\"why\":", c->writable ? "true" : "false",
	       tmount_mounted() ? "true" : "false");
	json_str(stdout, c->why, sizeof(c->why));
	printf(",\"clocks\":");
	json_str(stdout, c->clocks, sizeof(c->clocks));
	printf(",\"clock\":\"%s\"", c->clock_mono ? "mono" : c->clock_global ? "global" : "");
	printf(",\"events\":{");
	for (i = SEV_SWITCH; i < SEV_NSCHED; i++)
		printf("%s\"%s\":%s", i == SEV_SWITCH ? "" : ",", sched_ev_name(i),
		       c->ev[i] ? "true" : "false");
	printf("},\"preempt_mask\":%llu,\"preempt_from_fmt\":%s",
	       (unsigned long long)c->preempt_mask, c->preempt_from_fmt ? "true" : "false");
	printf(",\"hist_triggers\":%s,\"synthetic_events\":%s,\"synthetic_stacks\":%s"
	       ",\"buckets\":%s,\"stacktrace_trigger\":%s,\"stack_key\":",
	       c->hist ? "true" : "false", c->synth ? "true" : "false",
	       c->synth_stack ? "true" : "false", c->buckets ? "true" : "false",
	       c->stacktrace_trigger ? "true" : "false");
	if (c->stack_key)
		printf("\"%s\"", c->stack_key);
	else
		printf("null");
	printf("},\"perf_event_paranoid\":");
	if (h->pc.paranoid == -99)
		printf("null");
	else
		printf("%d", h->pc.paranoid);
	printf(",\"root\":%s,\"cap_perfmon\":%s,\"cap_sys_admin\":%s,\"cap_ipc_lock\":%s"
	       ",\"cap_syslog\":%s,\"cap_dac_read_search\":%s,\"perf_allowed\":%s,\"perf_why\":",
	       h->pc.root ? "true" : "false", h->pc.cap_perfmon ? "true" : "false",
	       h->pc.cap_sys_admin ? "true" : "false", h->pc.cap_ipc_lock ? "true" : "false",
	       h->pc.cap_syslog ? "true" : "false", h->pc.cap_dac_read_search ? "true" : "false",
	       h->caps.perf_allowed ? "true" : "false");
	json_str(stdout, h->caps.perf_why, sizeof(h->caps.perf_why));
	if (h->caps.stale_checked)
		printf(",\"stale_instances\":%d", h->caps.stale);
	else
		printf(",\"stale_instances\":null");
	printf(",\"psi\":%s,\"schedstat\":%s,\"btf\":%s",
	       h->psi ? "true" : "false", h->schedstat ? "true" : "false",
	       h->btf ? "true" : "false");
	printf(",\"switch_drops\":");
	if (h->caps.drops == DROPS_UNKNOWN && !(h->caps.perf_allowed && h->caps.tfs_found)) {
		printf("null");
	} else {
		char src[600];

		drops_source(&h->caps, src, sizeof(src));
		printf("{\"result\":\"%s\",\"source\":\"%s\",\"switches\":%llu,\"recorded\":%llu,"
		       "\"cpus\":[%s],\"idle_counted\":%s,\"probe_ms\":%u,\"clean_probe_ms\":%llu,"
		       "\"state_file\":",
		       h->caps.drops == DROPS_SEEN ? "seen" : h->caps.drops == DROPS_NONE ?
		       "none" : h->caps.drops == DROPS_BUSY ? "busy" : "unknown",
		       h->caps.drops_from == DROPS_FROM_STATE ? "state" :
		       h->caps.drops_from == DROPS_FROM_PROBE ? "probe" : "none",
		       (unsigned long long)h->caps.drop_switches,
		       (unsigned long long)h->caps.drop_recorded, h->caps.drop_cpus,
		       h->caps.drop_idle_counted ? "true" : "false", h->caps.drop_probe_ms,
		       (unsigned long long)h->caps.clean_probe_ms);
		if (kfacts_path())
			json_str(stdout, kfacts_path(), strlen(kfacts_path()) + 1);
		else
			printf("null");
		printf(",\"why\":");
		json_str(stdout, src, sizeof(src));
		printf("}");
	}
	printf(",\"pidns_foreign\":%s,\"container\":%s,\"userns_foreign\":%s,"
	       "\"perf_records\":%s",
	       h->caps.pidns_foreign < 0 ? "null" : h->caps.pidns_foreign ? "true" : "false",
	       h->caps.container ? "true" : "false", h->caps.userns_foreign ? "true" : "false",
	       h->caps.perf_records ? "true" : "false");
	printf(",\"can_run\":{");
	print_backends(h, true);
	printf("},\"backends\":{");
	print_choices(h, true);
	printf("}");
	print_privs_json(c, h);
	printf("}\n");
}

static const char info_help[] =
"Usage: offcpu-ftrace info [--format=json] [--tracefs DIR] [-o FILE]\n"
"\n"
"What this host supports for tracing without BPF: where tracefs is and\n"
"whether it can be written, trace clocks, sched events, hist triggers and\n"
"synthetic events, perf_event_paranoid, PSI, schedstat; and which backend\n"
"each command would use, and why. Needs no root (but says less without);\n"
"without root, also the least privilege that would let this user run each\n"
"backend here, as the command lines root would run, and what each grants.\n"
"\n"
"Options:\n"
"      --format FMT       text (default) or json (one JSON object)\n"
"      --tracefs DIR      tracefs mount point (default: found in /proc/mounts)\n"
"  -o, --output FILE      write it to FILE (atomically: complete or not at all)\n"
"  -h, --help             this help\n"
"\n"
"Examples:\n"
"  offcpu-ftrace info\n"
"  offcpu-ftrace info --format=json | jq .backends\n"
"\n"
"Exit status: 0 printed (even when no backend works), 2 bad usage, 4 the\n"
"output could not be written.\n";

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },	/* before --format: kept working */
		{ "tracefs", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *path = NULL;
	char err[512];
	struct out out;
	struct tfs_caps *c;
	struct host h;
	bool json = false;
	bool first;
	int o, ret;

	for (first = true; (o = cli_getopt("info", argc, argv, ":ho:", opts, first)) != -1;
	     first = false) {
		if (o == CLI_OPT_BAD)
			return EXIT_USAGE;
		switch (o) {
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "text")) {
				usage_err("info", "--format: '%s' is not one of text, json", optarg);
				return EXIT_USAGE;
			}
			json = !strcmp(optarg, "json");
			break;
		case 'j':
			json = true;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'o':
			path = optarg;
			break;
		case 'h':
			fputs(info_help, stdout);
			return EXIT_OK;
		}
	}
	if (optind < argc) {
		usage_err("info", "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	ret = out_open(&out, path, NULL, 0, err, sizeof(err));
	if (ret) {
		err_msg("%s", err);
		return ret == -EINVAL ? EXIT_USAGE : EXIT_OUTPUT;
	}
	if (out_begin(&out, err, sizeof(err)) || out_redirect(&out, err, sizeof(err))) {
		err_msg("%s", err);
		out_end(&out, false, err, sizeof(err));
		out_close(&out);
		return EXIT_OUTPUT;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		err_msg("out of memory");
		out_end(&out, false, err, sizeof(err));
		out_close(&out);
		return EXIT_FAIL;
	}
	/* a tracefs nobody mounted is mounted for the probe (and unmounted) */
	cli_tracefs_ready(dir);
	tfs_caps_probe(dir, c);
	probe_host(&h);
	h.tracefs = dir;
	host_caps_probe_ms(dir, DROP_PROBE_INFO_MS, &h.caps);
	if (json)
		print_json(c, &h);
	else
		print_text(c, &h);
	free(c);
	/* a full disk or a closed pipe is a failure, not a report */
	ret = out_end(&out, true, err, sizeof(err));
	out_close(&out);
	if (ret) {
		err_msg("%s", err);
		return EXIT_OUTPUT;
	}
	return EXIT_OK;
}
