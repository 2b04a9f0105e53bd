// SPDX-License-Identifier: GPL-2.0-or-later
/* info: what this host supports and which backend each command would use. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "choose.h"
#include "cli.h"
#include "perfcaps.h"
#include "tfs_caps.h"
#include "output.h"
#include "report.h"
#include "tmount.h"

struct host {
	char kernel[128];
	const char *tracefs;	/* --tracefs */
	struct perf_caps pc;
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
	h->psi = access("/proc/pressure/cpu", R_OK) == 0;
	h->schedstat = access("/proc/self/schedstat", R_OK) == 0;
	h->btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

/* What each command gets, as cmd_trace.c decides it. */
static const struct {
	const char *name;
	enum hist_refusal no_hist;	/* why the hist backend cannot do it */
} scenarios[] = {
	{ "runq", HIST_CAN },
	{ "offcpu", HIST_CAN },
	{ "offcpu -K", HIST_NO_KSTACK },
	{ "triage", HIST_NO_TRIAGE },
};
#define NSCEN (sizeof(scenarios) / sizeof(scenarios[0]))

static const char *yesno(bool b)
{
	return b ? "yes" : "no";
}

static void print_drops(const struct host *h)
{
	const struct host_caps *c = &h->caps;

	if (c->drops == DROPS_SEEN)
		printf("switches recorded:    NOT ALL: the tracepoint lost hits on CPU %s (probe: "
		       "%llu of %llu context switches): ring and hist miss switches and "
		       "wakeups there; perf takes switches from its context-switch records\n",
		       c->drop_cpus, (unsigned long long)c->drop_recorded,
		       (unsigned long long)c->drop_switches);
	else if (c->drops == DROPS_NONE)
		printf("switches recorded:    all (probe: %llu of %llu context switches "
		       "reached sched_switch)\n", (unsigned long long)c->drop_recorded,
		       (unsigned long long)c->drop_switches);
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
	u->perf_allowed = h->pc.paranoid == -1;
	if (!u->perf_allowed)
		snprintf(u->perf_why, sizeof(u->perf_why), "perf_event_paranoid is %d: tracepoint "
			 "samples need -1 without CAP_PERFMON", h->pc.paranoid);
	u->drops = DROPS_UNKNOWN;
}

static void print_choices(const struct host *h, bool json)
{
	struct choice ch;
	unsigned i;

	for (i = 0; i < NSCEN; i++) {
		char buf[32];

		backend_choose(&h->caps, "auto", scenarios[i].no_hist, &ch);
		if (json) {
			printf("%s\"%s\":{\"backend\":", i ? "," : "", scenarios[i].name);
			if (backend_ops_of(ch.kind))
				printf("\"%s\"", backend_ops_of(ch.kind)->name);
			else
				printf("null");
			printf(",\"why\":");
			json_str(stdout, ch.why, sizeof(ch.why));
			printf("}");
			continue;
		}
		snprintf(buf, sizeof(buf), "%s:", scenarios[i].name);
		printf("backend %-13s %s (%s)\n", buf, backend_ops_of(ch.kind) ?
		       backend_ops_of(ch.kind)->name : "none", ch.why);
	}
	if (h->pc.root) {
		struct host_caps u;
		const char *name;

		unprivileged_caps(h, &u);
		backend_choose(&u, "auto", HIST_CAN, &ch);
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
	printf("capabilities:         CAP_PERFMON %s, CAP_SYS_ADMIN %s, CAP_IPC_LOCK %s\n",
	       yesno(h->pc.cap_perfmon), yesno(h->pc.cap_sys_admin), yesno(h->pc.cap_ipc_lock));
	printf("perf events:          %s (%s)\n", h->pc.allowed ? "allowed" : "not allowed",
	       h->pc.why);
	print_drops(h);
	if (h->caps.stale > 0) {
		char stale[400];

		host_caps_stale_text(&h->caps, stale, sizeof(stale));
		printf("left by killed runs:  %s\n", stale);
	}
	printf("PSI (/proc/pressure): %s\n", yesno(h->psi));
	printf("schedstat:            %s\n", yesno(h->schedstat));
	printf("BTF (for BPF tools):  %s\n", yesno(h->btf));
	print_choices(h, false);
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
	       ",\"perf_allowed\":%s,\"perf_why\":",
	       h->pc.root ? "true" : "false", h->pc.cap_perfmon ? "true" : "false",
	       h->pc.cap_sys_admin ? "true" : "false", h->pc.cap_ipc_lock ? "true" : "false",
	       h->pc.allowed ? "true" : "false");
	json_str(stdout, h->pc.why, sizeof(h->pc.why));
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
		printf("{\"result\":\"%s\",\"switches\":%llu,\"recorded\":%llu,\"cpus\":[%s]}",
		       h->caps.drops == DROPS_SEEN ? "seen" : h->caps.drops == DROPS_NONE ?
		       "none" : "unknown", (unsigned long long)h->caps.drop_switches,
		       (unsigned long long)h->caps.drop_recorded, h->caps.drop_cpus);
	}
	printf(",\"backends\":{");
	print_choices(h, true);
	printf("}}\n");
}

static const char info_help[] =
"Usage: offcpu-ftrace info [--json] [--tracefs DIR] [-o FILE]\n"
"\n"
"What this host supports for tracing without BPF: where tracefs is and\n"
"whether it can be written, trace clocks, sched events, hist triggers and\n"
"synthetic events, perf_event_paranoid, PSI, schedstat; and which backend\n"
"each command would use, and why. Needs no root (but says less without).\n"
"\n"
"Options:\n"
"      --json             one JSON object\n"
"      --tracefs DIR      tracefs mount point (default: found in /proc/mounts)\n"
"  -o, --output FILE      write it to FILE (atomically: complete or not at all)\n"
"  -h, --help             this help\n"
"\n"
"Examples:\n"
"  offcpu-ftrace info\n"
"  offcpu-ftrace info --json | jq .backends\n"
"\n"
"Exit status: 0 printed (even when no backend works), 1 the output could not\n"
"be written, 2 bad usage.\n";

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
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
	int o;

	for (first = true; (o = cli_getopt("info", argc, argv, ":ho:", opts, first)) != -1;
	     first = false) {
		if (o == CLI_OPT_BAD)
			return EXIT_USAGE;
		switch (o) {
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
	if (out_begin(&out, path, err, sizeof(err)) || out_redirect(&out, err, sizeof(err))) {
		err_msg("%s", err);
		out_end(&out, false, err, sizeof(err));
		return EXIT_FAIL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		err_msg("out of memory");
		out_end(&out, false, err, sizeof(err));
		return EXIT_FAIL;
	}
	/* a tracefs nobody mounted is mounted for the probe (and unmounted) */
	if (!cli_tracefs_ready(dir)) {
		free(c);
		out_end(&out, false, err, sizeof(err));
		return EXIT_FAIL;
	}
	tfs_caps_probe(dir, c);
	probe_host(&h);
	h.tracefs = dir;
	host_caps_probe(dir, true, &h.caps);
	if (json)
		print_json(c, &h);
	else
		print_text(c, &h);
	free(c);
	/* a full disk or a closed pipe is a failure, not a report */
	if (out_end(&out, true, err, sizeof(err))) {
		err_msg("%s", err);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
