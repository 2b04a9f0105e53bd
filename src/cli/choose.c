// SPDX-License-Identifier: GPL-2.0-or-later
/* The backend rule (pure), the host probe that feeds it, and the ops of each backend. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "choose.h"
#include "kfacts.h"
#include "perf_backends.h"
#include "proc_backends.h"
#include "perfcaps.h"
#include "procfs.h"
#include "tfs_caps.h"
#include "tracefs_backends.h"

const char *hist_refusal_text(enum hist_refusal r)
{
	switch (r) {
	case HIST_CAN:
		return "";
	case HIST_NO_TRIAGE:
		return "triage needs every event";
	case HIST_NO_USTACK:
		return "user stacks are read in user space (the ring backend does -U)";
	case HIST_NO_KSTACK:
		return "this kernel cannot pass stacks through synthetic events (6.3+)";
	case HIST_NO_COMM:
		return "this -c name has characters kept out of kernel filters";
	case HIST_NO_BY_CGROUP:
		return "--by cgroup reads each thread's cgroup in user space";
	case HIST_NO_CGROUP:
		return "--cgroup is checked per thread in user space";
	case HIST_NO_COMMAND:
		return "-- COMMAND follows forks in user space";
	case HIST_NO_WAKING:
		return "--compat=perf needs the first sched_waking";
	case HIST_NO_LATE:
		return "--late-stacks reads stacks from /proc in user space";
	case HIST_NO_ONCPU:
		return "on-CPU slices are timed in user space";
	case HIST_NO_RECORD:
		return "a recording keeps every event";
	case HIST_NO_EVENTS:
		return "it lists or follows single events, which the kernel's sums do not keep";
	}
	return "";
}

static bool ring_ok(const struct host_caps *c)
{
	return c->tfs_found && c->tfs_writable && c->ev_switch && c->ev_wakeup;
}

static bool perf_ok(const struct host_caps *c)
{
	/* perf needs the format files (readable) and the permission */
	return c->perf_allowed && c->tfs_found && c->ev_switch && c->ev_wakeup;
}

/* perf's context-switch records alone: no tracefs needed */
static bool records_ok(const struct host_caps *c)
{
	return c->perf_records;
}

static enum hist_refusal hist_refusal(const struct host_caps *c, enum hist_refusal no_hist)
{
	/* offcpu -K runs in the kernel where synthetic events carry stacks */
	return no_hist == HIST_NO_KSTACK && c->synth_stack ? HIST_CAN : no_hist;
}

static bool hist_ok(const struct host_caps *c, enum hist_refusal no_hist)
{
	/* the result is keyed with .buckets (about 5.15): older ones cannot */
	return ring_ok(c) && c->hist && c->synth && c->buckets &&
	       hist_refusal(c, no_hist) == HIST_CAN;
}

static void ring_why(const struct host_caps *c, char *buf, size_t len)
{
	if (!c->tfs_found)
		snprintf(buf, len, "%s", c->tfs_why);
	else if (!c->tfs_writable)
		snprintf(buf, len, "tracefs at %.300s is %s", c->tfs_dir,
			 c->tfs_not_root ? "not writable (not root)" : "read-only");
	else if (!ring_ok(c))
		snprintf(buf, len, "no sched_switch/sched_wakeup events in %.300s", c->tfs_dir);
	else
		snprintf(buf, len, "tracefs at %.300s is writable", c->tfs_dir);
}

/*
 * Why perf cannot run: every missing piece at once (the permission and
 * the event formats), so that fixing one does not just reveal the next.
 */
static const char *perf_why(const struct host_caps *c, char *buf, size_t len)
{
	const char *formats = NULL;
	char f[400];

	if (!c->tfs_found && strstr(c->tfs_why, "permission denied")) {
		/* perf only reads the formats: less than the ring backend needs */
		snprintf(f, sizeof(f), "tracefs at %.300s is not readable (mode 0700): the "
			 "event formats need root or CAP_DAC_READ_SEARCH", c->tfs_dir);
		formats = f;
	} else if (!c->tfs_found && strstr(c->tfs_why, "mounted")) {
		/* the ring's reason says why; not twice in one line */
		formats = "its tracepoints' formats are in tracefs, which is not mounted here";
	} else if (!c->tfs_found) {
		formats = c->tfs_why;
	}
	else if (!c->ev_switch || !c->ev_wakeup)
		formats = c->tfs_not_root ? "the sched event formats in tracefs are not readable "
				      "(tracefs is mode 0700: run as root or grant "
				      "CAP_DAC_READ_SEARCH)" :
				      "no readable sched event formats in tracefs";
	if (!c->perf_allowed && formats)
		snprintf(buf, len, "%.250s; and %.250s", c->perf_why, formats);
	else
		snprintf(buf, len, "%s", !c->perf_allowed ? c->perf_why :
			 formats ? formats : "perf events allowed");
	return buf;
}

static const char *no_hist_why(const struct host_caps *c, enum hist_refusal no_hist)
{
	return !(c->hist && c->synth) ? "no hist triggers in this kernel" :
	       !c->buckets ? "no .buckets modifier for hist triggers in this kernel" :
	       hist_refusal_text(hist_refusal(c, no_hist));
}

int backend_can(const struct host_caps *c, enum backend_kind k, char *buf, size_t len)
{
	char w[640];

	switch (k) {
	case BK_HIST:
		if (hist_ok(c, HIST_CAN)) {
			snprintf(buf, len, "hist triggers and synthetic events");
			return 2;
		}
		if (!ring_ok(c))
			ring_why(c, w, sizeof(w));
		snprintf(buf, len, "%s", !ring_ok(c) ? w : no_hist_why(c, HIST_CAN));
		return 0;
	case BK_RING:
		ring_why(c, buf, len);
		return ring_ok(c) ? 2 : 0;
	case BK_PERF:
		if (perf_ok(c)) {
			snprintf(buf, len, "tracepoints and context-switch records (%.300s)",
				 c->perf_why);
			return 2;
		}
		perf_why(c, w, sizeof(w));
		if (records_ok(c)) {
			snprintf(buf, len, "context-switch records alone: %.500s", w);
			return 1;
		}
		snprintf(buf, len, "%s", w);
		return 0;
	case BK_PROC:
		snprintf(buf, len, "%s", c->proc_ok ? "/proc/<pid>/task/<tid>/schedstat readable" :
			 "/proc/<pid>/task/<tid>/schedstat is not readable (CONFIG_SCHED_INFO)");
		return c->proc_ok ? 2 : 0;
	case BK_FILE:
	case BK_NONE:
		break;
	}
	snprintf(buf, len, "not a backend of live runs");
	return 0;
}

bool choose_needs_drop_probe(const struct host_caps *c, const char *want)
{
	return !strcmp(want, "auto") && perf_ok(c) && ring_ok(c);
}

/* perf asked for without its tracepoints: its records, or why not */
static void perf_asked_records(const struct host_caps *c, const struct choose_req *r,
			       bool ns_bad, struct choice *out)
{
	char pw[512];

	if (records_ok(c) && !r->no_records) {
		out->kind = BK_PERF;
		out->switches_only = true;
		snprintf(out->why, sizeof(out->why), "asked for; from its context-switch records "
			 "alone (%s)", ns_bad ? "the tracepoints name the host's pids, not this pid "
			 "namespace's" : perf_why(c, pw, sizeof(pw)));
	} else if (records_ok(c)) {
		snprintf(out->why, sizeof(out->why), "the perf backend cannot run: %s, and its "
			 "context-switch records alone cannot serve it (%s)",
			 ns_bad ? "its tracepoints name the host's pids, not this pid namespace's" :
			 perf_why(c, pw, sizeof(pw)), r->no_records);
	} else {
		snprintf(out->why, sizeof(out->why), "the perf backend cannot run: %s",
			 perf_why(c, pw, sizeof(pw)));
	}
}

/* a tracepoint backend asked for in a pid namespace, for a pid-keyed request */
static const char pidns_refusal[] = "its events name tasks by the host's pids, which this "
	"process cannot map to its own pid namespace's (a container's): run the container "
	"with --pid=host, or use --backend=perf (context-switch records) or proc";

/* --backend NAME: that one, or why it cannot run */
static void choose_asked(const struct host_caps *c, const struct choose_req *r,
			 struct choice *out, const char *rw, bool ns_bad)
{
	const char *want = r->want;
	enum hist_refusal no_hist = r->no_hist;

	out->reason = CHOSEN_ASKED;
	if (ns_bad && (!strcmp(want, "hist") || !strcmp(want, "ring"))) {
		snprintf(out->why, sizeof(out->why), "the %s backend cannot run here: %s", want,
			 pidns_refusal);
	} else if (!strcmp(want, "hist") && hist_ok(c, no_hist)) {
		out->kind = BK_HIST;
		snprintf(out->why, sizeof(out->why), "asked for; hist triggers and synthetic events");
	} else if (!strcmp(want, "hist")) {
		snprintf(out->why, sizeof(out->why), "the hist backend cannot run: %s",
			 !ring_ok(c) ? rw : !(c->hist && c->synth) ? "this kernel has no hist "
			 "triggers or synthetic events (CONFIG_HIST_TRIGGERS, CONFIG_SYNTH_EVENTS)" :
			 !c->buckets ? "this kernel's hist triggers have no .buckets modifier "
			 "(5.15 and later)" : hist_refusal_text(hist_refusal(c, no_hist)));
	} else if (!strcmp(want, "ring") && ring_ok(c)) {
		out->kind = BK_RING;
		snprintf(out->why, sizeof(out->why), "asked for; %s", rw);
	} else if (!strcmp(want, "ring")) {
		snprintf(out->why, sizeof(out->why), "the ring backend cannot run: %s", rw);
	} else if (!strcmp(want, "perf") && perf_ok(c) && !ns_bad) {
		out->kind = BK_PERF;
		snprintf(out->why, sizeof(out->why), "asked for; %.500s", c->perf_why);
	} else if (!strcmp(want, "perf")) {
		perf_asked_records(c, r, ns_bad, out);
	} else if (!strcmp(want, "proc") && c->proc_ok) {
		out->kind = BK_PROC;
		snprintf(out->why, sizeof(out->why), "asked for; sampled from /proc");
	} else if (!strcmp(want, "proc")) {
		snprintf(out->why, sizeof(out->why), "the proc backend cannot run: "
			 "/proc/<pid>/task/<tid>/schedstat is not readable (CONFIG_SCHED_INFO)");
	} else if (!strcmp(want, "file")) {
		out->kind = BK_FILE;
		out->reason = CHOSEN_FILE;
		snprintf(out->why, sizeof(out->why), "a recording");
	} else {
		snprintf(out->why, sizeof(out->why), "no backend named '%s'", want);
	}
	if (out->kind == BK_NONE)
		out->reason = CHOSEN_REFUSED;
}

/*
 * In a pid namespace, for a request that selects or names threads: a
 * backend that names them by this namespace's pids (perf's records, proc).
 */
static void choose_pidns(const struct host_caps *c, const struct choose_req *r,
			 struct choice *out)
{
	out->reason = CHOSEN_PIDNS;
	if (records_ok(c) && !r->no_records) {
		out->kind = BK_PERF;
		out->switches_only = true;
		snprintf(out->why, sizeof(out->why), "this process runs in a pid namespace of its "
			 "own (a container's), where the sched tracepoints name tasks by the "
			 "host's pids: perf's context-switch records name them by this "
			 "namespace's (switches only: waits that begin with a wakeup are sized "
			 "from schedstat, not timed)");
	} else if (c->proc_ok && !r->traced && !c->tfs_asked) {
		out->kind = BK_PROC;
		snprintf(out->why, sizeof(out->why), "this process runs in a pid namespace of its "
			 "own (a container's), where the sched tracepoints name tasks by the "
			 "host's pids: sampled from /proc, which names them by this namespace's%s%s",
			 records_ok(c) ? "; perf's records alone cannot serve it: " : "",
			 records_ok(c) ? r->no_records : "");
	} else {
		out->reason = CHOSEN_NONE;
		snprintf(out->why, sizeof(out->why), "this process runs in a pid namespace of its "
			 "own (a container's): the sched tracepoints name tasks by the host's "
			 "pids, which it cannot map to its own, so no backend can select or name "
			 "threads here%s%s: run the container with --pid=host",
			 records_ok(c) && r->no_records ? " (perf's records alone cannot serve it: " :
			 "", records_ok(c) && r->no_records ? r->no_records : "");
		if (records_ok(c) && r->no_records)
			snprintf(out->why + strlen(out->why), sizeof(out->why) - strlen(out->why),
				 ")");
	}
}

/* What would give a better backend than @out here, in one phrase (or ""). */
static void choose_better(const struct host_caps *c, const struct choose_req *r,
			  struct choice *out)
{
	bool ns_bad = c->pidns_foreign > 0 && r->pid_keyed;

	out->better[0] = '\0';
	if (out->kind != BK_NONE && out->kind != BK_PROC && !out->switches_only)
		return;
	if (c->userns_foreign && !c->perf_allowed && !c->tfs_found)
		snprintf(out->better, sizeof(out->better), "this runs in a user namespace of its "
			 "own (a rootless container), whose root has no rights over the kernel's "
			 "tracing: a rootful container (--privileged, or --cap-add=PERFMON "
			 "--security-opt seccomp=unconfined) or the host traces");
	else if (ns_bad && (ring_ok(c) || perf_ok(c)))
		snprintf(out->better, sizeof(out->better), "run the container with --pid=host: "
			 "the sched tracepoints then name its threads, and every wait is timed");
	else if (!c->tfs_found && strstr(c->tfs_why, "cannot be mounted"))
		snprintf(out->better, sizeof(out->better), "tracefs would time every wait: run "
			 "the container with --privileged, or mount tracefs on the host and bind "
			 "it in (-v /sys/kernel/tracing:/sys/kernel/tracing) with CAP_PERFMON");
	else if (c->perf_refused)
		snprintf(out->better, sizeof(out->better), "perf's context-switch records would "
			 "time switches: allow perf_event_open in the seccomp profile "
			 "(--security-opt seccomp=unconfined) beside CAP_PERFMON");
	else if (!c->perf_allowed && c->container)
		snprintf(out->better, sizeof(out->better), "perf's context-switch records would "
			 "time switches: run the container with --cap-add=PERFMON --security-opt "
			 "seccomp=unconfined (or --privileged)");
}

void backend_choose_req(const struct host_caps *c, const struct choose_req *r,
			struct choice *out)
{
	char rw[640], pw[512];
	bool ns_bad = c->pidns_foreign > 0 && r->pid_keyed;
	enum hist_refusal no_hist = r->no_hist;

	memset(out, 0, sizeof(*out));
	out->kind = BK_NONE;
	ring_why(c, rw, sizeof(rw));
	if (strcmp(r->want, "auto")) {
		choose_asked(c, r, out, rw, ns_bad);
	} else if (ns_bad) {
		choose_pidns(c, r, out);
	} else if (r->samples && perf_ok(c)) {
		out->kind = BK_PERF;
		out->reason = CHOSEN_SAMPLES;
		snprintf(out->why, sizeof(out->why), "on-CPU stacks are sampled with perf events "
			 "(%s)", c->perf_why);
	} else if (ring_ok(c) && r->sized && c->proc_ok && c->pidns_foreign <= 0 &&
		   (c->drops == DROPS_SEEN || c->drops == DROPS_BUSY)) {
		/*
		 * run-queue waits: both tracepoint backends lose the wakeups an
		 * idle CPU does here, perf's records give it only the switches;
		 * every wait not measured is sized from schedstat either way,
		 * and the ring costs a perf record less per switch
		 */
		out->kind = BK_RING;
		out->reason = CHOSEN_SIZED;
		snprintf(out->why, sizeof(out->why), "%s; its run-queue waits cannot all be "
			 "timed by any backend here (the wakeups an idle CPU does are lost to perf "
			 "too): the ring backend, the cheapest, each wait not measured sized from "
			 "the threads' schedstat", c->drops == DROPS_SEEN ? "this kernel loses the "
			 "sched tracepoints' hits of idle CPUs" : "whether this kernel loses the "
			 "sched tracepoints' hits of idle CPUs is not known (a busy host)");
	} else if (perf_ok(c) && ring_ok(c) && c->drops == DROPS_SEEN) {
		/* exact where the tracepoint loses switches: its switch records */
		out->kind = BK_PERF;
		out->reason = CHOSEN_DROPS;
		if (c->drops_from == DROPS_FROM_STATE)
			snprintf(out->why, sizeof(out->why), "this kernel loses sched_switch hits "
				 "of idle CPUs (%s); perf's context-switch records have them",
				 c->drops_seen);
		else
			snprintf(out->why, sizeof(out->why), "this kernel loses sched_switch hits "
				 "on CPU %s (probe: %llu of %llu switches recorded in %u ms); "
				 "perf's context-switch records have them", c->drop_cpus,
				 (unsigned long long)c->drop_recorded,
				 (unsigned long long)c->drop_switches, c->drop_probe_ms);
	} else if (perf_ok(c) && ring_ok(c) && c->drops == DROPS_BUSY && !hist_ok(c, no_hist)) {
		/* no answer: the backend that is exact either way */
		out->kind = BK_PERF;
		out->reason = CHOSEN_DROPS;
		snprintf(out->why, sizeof(out->why), "whether this kernel loses sched_switch "
			 "hits of an idle CPU is not known (a CPU did not idle during the probe: a "
			 "busy host); perf's context-switch records have every switch either way");
	} else if (hist_ok(c, no_hist)) {
		out->kind = BK_HIST;
		out->reason = CHOSEN_HIST;
		snprintf(out->why, sizeof(out->why),
			 "hist triggers and synthetic events: the kernel aggregates");
	} else if (ring_ok(c)) {
		out->kind = BK_RING;
		out->reason = CHOSEN_RING;
		if (c->hist && c->synth && c->buckets)
			out->hist_refused = hist_refusal(c, no_hist);
		snprintf(out->why, sizeof(out->why), "%s; %s", rw, no_hist_why(c, no_hist));
	} else if (perf_ok(c)) {
		out->kind = BK_PERF;
		out->reason = CHOSEN_PERF;
		snprintf(out->why, sizeof(out->why), "%.500s; perf events allowed (%.300s)", rw,
			 c->perf_why);
	} else if (records_ok(c) && !r->no_records && !c->tfs_asked) {
		out->kind = BK_PERF;
		out->switches_only = true;
		out->reason = CHOSEN_RECORDS;
		snprintf(out->why, sizeof(out->why), "no sched tracepoints here (%s): switches "
			 "from perf's context-switch records alone; waits that begin with a wakeup "
			 "are sized from schedstat, not timed", perf_why(c, pw, sizeof(pw)));
	} else if (c->proc_ok && !c->tfs_asked) {
		/* (--tracefs DIR asks for tracing: say why it cannot, not sample) */
		out->kind = BK_PROC;
		out->reason = CHOSEN_PROC;
		snprintf(out->why, sizeof(out->why), "no tracing here (ring: %s; perf: %s%s%s): "
			 "sampled from /proc", rw, perf_why(c, pw, sizeof(pw)),
			 records_ok(c) && r->no_records ? "; its context-switch records alone "
			 "cannot serve this: " : "", records_ok(c) && r->no_records ?
			 r->no_records : "");
	} else {
		out->reason = CHOSEN_NONE;
		snprintf(out->why, sizeof(out->why), "no backend can trace here: ring: %s; "
			 "perf: %s%s", rw, perf_why(c, pw, sizeof(pw)),
			 c->tfs_asked ? "" : "; proc: /proc/<pid>/task/<tid>/schedstat is not "
			 "readable (CONFIG_SCHED_INFO)");
	}
	choose_better(c, r, out);
}

void backend_choose(const struct host_caps *c, const char *want, enum hist_refusal no_hist,
		    struct choice *out)
{
	struct choose_req r = { .want = want, .no_hist = no_hist,
				.no_records = "it needs the sched tracepoints" };

	backend_choose_req(c, &r, out);
}

void backend_choose_sampling(const struct host_caps *c, const char *want,
			     enum hist_refusal no_hist, struct choice *out)
{
	struct choose_req r = { .want = want, .no_hist = no_hist, .samples = true,
				.no_records = "it needs the sched tracepoints" };

	backend_choose_req(c, &r, out);
}

static void note_stale(const char *name, int pid, void *arg)
{
	struct host_caps *c = arg;
	size_t len = strlen(c->stale_names);

	(void)pid;
	if (len < sizeof(c->stale_names) - 2)
		snprintf(c->stale_names + len, sizeof(c->stale_names) - len, "%s%s",
			 len ? ", " : "", name);
}

void host_caps_stale_text(const struct host_caps *c, char *buf, size_t len)
{
	if (c->stale > 0)
		snprintf(buf, len, "%d tracefs instance%s left by killed runs (%s), still "
			 "recording: run 'offcpu-ftrace cleanup'", c->stale,
			 c->stale > 1 ? "s" : "", c->stale_names);
	else if (len)
		buf[0] = '\0';
}

/*
 * What the capabilities allow, checked by a real open: a container's
 * seccomp profile refuses perf_event_open where CAP_PERFMON would allow
 * it (podman's default: only with CAP_SYS_ADMIN).
 */
static void probe_perf_open(struct host_caps *c, const struct perf_caps *pc)
{
	char why[200];
	int ret = perf_switch_probe(why, sizeof(why));

	c->perf_records = ret == 0;
	c->perf_allowed = pc->allowed && ret == 0;
	if (!pc->allowed || ret == 0)
		return;
	c->perf_refused = ret == -EPERM || ret == -EACCES || ret == -ENOSYS;
	if (c->perf_refused)
		snprintf(c->perf_why, sizeof(c->perf_why), "%.150s although %.120s: a seccomp profile "
			 "refuses it (a container's default): run the container with "
			 "--security-opt seccomp=unconfined, or a profile that allows "
			 "perf_event_open, beside CAP_PERFMON", why, pc->why);
	else
		snprintf(c->perf_why, sizeof(c->perf_why), "%.200s", why);
}

/*
 * Whether the tracepoint loses switches: what this boot already saw, else
 * the probe for at most @ms, whose sighting is kept for the boot.
 */
static void probe_drops(struct host_caps *c, unsigned ms)
{
	const char *path = kfacts_path();
	struct drop_probe *p;
	struct kfacts k;
	char when[64];

	if (kfacts_load(path, &k) == 1 && k.loss_seen) {
		struct tm tm;
		time_t t = (time_t)k.seen_at;

		if (!localtime_r(&t, &tm) || !strftime(when, sizeof(when), "%F %T", &tm))
			snprintf(when, sizeof(when), "earlier");
		c->drops = DROPS_SEEN;
		c->drops_from = DROPS_FROM_STATE;
		snprintf(c->drops_seen, sizeof(c->drops_seen), "seen this boot by %s %s at %s: "
			 "%.200s; kept in %.120s", !strcmp(k.seen_by, "probe") ? "the" : "a",
			 k.seen_by, when, k.detail, path);
		return;
	}
	c->clean_probe_ms = k.clean_probe_ms;
	/* a boot probed long enough without a loss: runs keep the short probe */
	if (ms <= DROP_PROBE_RUN_MS && k.clean_probe_ms >= DROP_PROBE_CLEAN_MS)
		ms = DROP_PROBE_SHORT_MS;
	p = calloc(1, sizeof(*p));
	if (p && drop_probe_run(c->tfs_dir, ms, p) == 0) {
		c->drops = p->result;
		c->drops_from = DROPS_FROM_PROBE;
		c->drop_probe_ms = p->ms;
		c->drop_switches = p->switches;
		c->drop_recorded = p->recorded;
		drop_probe_cpus(p, c->drop_cpus, sizeof(c->drop_cpus));
		c->drop_idle_counted = p->ncpu && p->cpu[0].to_idle >= 0;
		if (p->result == DROPS_SEEN) {
			char d[200];

			snprintf(d, sizeof(d), "%llu of %llu context switches reached sched_switch "
				 "in %u ms, CPU %s short", (unsigned long long)p->recorded,
				 (unsigned long long)p->switches, p->ms, c->drop_cpus);
			kfacts_note_loss(path, "probe", d);
		} else if (p->result == DROPS_NONE) {
			c->clean_probe_ms += p->ms;
			kfacts_note_clean(path, p->ms);
		}
	}
	free(p);
}

void host_caps_probe_ms(const char *tracefs, unsigned drop_ms, struct host_caps *c)
{
	struct tfs_caps *t = calloc(1, sizeof(*t));
	struct perf_caps pc;

	memset(c, 0, sizeof(*c));
	c->tfs_asked = tracefs != NULL;
	if (t) {
		tfs_caps_probe(tracefs, t);
		c->tfs_found = t->found;
		c->tfs_writable = t->writable;
		c->tfs_not_root = !strcmp(t->why, "not root");
		snprintf(c->tfs_dir, sizeof(c->tfs_dir), "%s", t->dir);
		snprintf(c->tfs_why, sizeof(c->tfs_why), "%s", t->why);
		c->ev_switch = t->ev[SEV_SWITCH];
		c->ev_wakeup = t->ev[SEV_WAKEUP];
		c->hist = t->hist;
		c->synth = t->synth;
		c->buckets = t->buckets;
		c->synth_stack = t->synth_stack && t->stack_key;
		free(t);
	} else {
		snprintf(c->tfs_why, sizeof(c->tfs_why), "out of memory");
	}
	/* whatever backend runs, leftovers cost CPU and buffer memory: found for all */
	if (c->tfs_found && c->tfs_writable) {
		c->stale = tfs_stale_instances(c->tfs_dir, note_stale, c);
		c->stale_checked = c->stale >= 0;
	}
	perf_caps_probe(&pc);
	c->proc_ok = access("/proc/self/schedstat", R_OK) == 0;
	snprintf(c->perf_why, sizeof(c->perf_why), "%s", pc.why);
	probe_perf_open(c, &pc);
	c->pidns_foreign = proc_pidns_foreign();
	/* (not /.dockerenv: images built for VMs keep it) */
	c->container = c->pidns_foreign > 0 || access("/run/.containerenv", F_OK) == 0;
	c->userns_foreign = proc_userns_foreign() > 0;
	c->drops = DROPS_UNKNOWN;
	if (drop_ms && choose_needs_drop_probe(c, "auto"))
		probe_drops(c, drop_ms);
}

void host_caps_probe(const char *tracefs, bool drops, struct host_caps *c)
{
	host_caps_probe_ms(tracefs, drops ? DROP_PROBE_RUN_MS : 0, c);
}

const struct backend_ops *backend_ops_named(const char *name)
{
	static const enum backend_kind kinds[] = { BK_HIST, BK_RING, BK_PERF, BK_PROC, BK_FILE };
	unsigned i;

	for (i = 0; name && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(backend_ops_of(kinds[i])->name, name))
			return backend_ops_of(kinds[i]);
	return NULL;
}

const struct backend_ops *backend_ops_of(enum backend_kind k)
{
	switch (k) {
	case BK_HIST:
		return &hist_backend_ops;
	case BK_RING:
		return &ring_backend_ops;
	case BK_PERF:
		return &perf_backend_ops;
	case BK_FILE:
		return &file_backend_ops;
	case BK_PROC:
		return &proc_backend_ops;
	case BK_NONE:
		break;
	}
	return NULL;
}
