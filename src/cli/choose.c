// SPDX-License-Identifier: GPL-2.0-or-later
/* The backend rule (pure), the host probe that feeds it, and the ops of each backend. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "choose.h"
#include "perf_backends.h"
#include "proc_backends.h"
#include "perfcaps.h"
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
	} else if (!c->tfs_found)
		formats = c->tfs_why;
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

bool choose_needs_drop_probe(const struct host_caps *c, const char *want)
{
	return !strcmp(want, "auto") && perf_ok(c) && ring_ok(c);
}

/* --backend NAME: that one, or why it cannot run */
static void choose_asked(const struct host_caps *c, const char *want, enum hist_refusal no_hist,
			 struct choice *out, const char *rw)
{
	char pw[512];

	out->reason = CHOSEN_ASKED;
	if (!strcmp(want, "hist") && hist_ok(c, no_hist)) {
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
	} else if (!strcmp(want, "perf") && perf_ok(c)) {
		out->kind = BK_PERF;
		snprintf(out->why, sizeof(out->why), "asked for; %s", c->perf_why);
	} else if (!strcmp(want, "perf")) {
		snprintf(out->why, sizeof(out->why), "the perf backend cannot run: %s",
			 perf_why(c, pw, sizeof(pw)));
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

void backend_choose(const struct host_caps *c, const char *want, enum hist_refusal no_hist,
		    struct choice *out)
{
	char rw[640], pw[512];

	memset(out, 0, sizeof(*out));
	out->kind = BK_NONE;
	ring_why(c, rw, sizeof(rw));
	if (strcmp(want, "auto")) {
		choose_asked(c, want, no_hist, out, rw);
		return;
	}
	if (perf_ok(c) && ring_ok(c) && c->drops == DROPS_SEEN) {
		/* exact where the tracepoint loses switches: its switch records */
		out->kind = BK_PERF;
		out->reason = CHOSEN_DROPS;
		snprintf(out->why, sizeof(out->why), "this kernel loses sched_switch hits on "
			 "CPU %s (probe: %llu of %llu switches recorded); perf's context-switch "
			 "records have them", c->drop_cpus, (unsigned long long)c->drop_recorded,
			 (unsigned long long)c->drop_switches);
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
		snprintf(out->why, sizeof(out->why), "%s; perf events allowed (%s)", rw,
			 c->perf_why);
	} else if (c->proc_ok && !c->tfs_asked) {
		/* (--tracefs DIR asks for tracing: say why it cannot, not sample) */
		out->kind = BK_PROC;
		out->reason = CHOSEN_PROC;
		snprintf(out->why, sizeof(out->why), "no tracing here (ring: %s; perf: %s): "
			 "sampled from /proc", rw, perf_why(c, pw, sizeof(pw)));
	} else {
		out->reason = CHOSEN_NONE;
		snprintf(out->why, sizeof(out->why), "no backend can trace here: ring: %s; "
			 "perf: %s%s", rw, perf_why(c, pw, sizeof(pw)),
			 c->tfs_asked ? "" : "; proc: /proc/<pid>/task/<tid>/schedstat is not "
			 "readable (CONFIG_SCHED_INFO)");
	}
}

void backend_choose_sampling(const struct host_caps *c, const char *want,
			     enum hist_refusal no_hist, struct choice *out)
{
	backend_choose(c, want, no_hist, out);
	if (strcmp(want, "auto") || out->kind == BK_PERF || !perf_ok(c))
		return;
	out->kind = BK_PERF;
	out->reason = CHOSEN_SAMPLES;
	out->hist_refused = HIST_CAN;
	snprintf(out->why, sizeof(out->why), "on-CPU stacks are sampled with perf events (%s)",
		 c->perf_why);
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

void host_caps_probe(const char *tracefs, bool drops, struct host_caps *c)
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
	c->perf_allowed = pc.allowed;
	c->proc_ok = access("/proc/self/schedstat", R_OK) == 0;
	snprintf(c->perf_why, sizeof(c->perf_why), "%s", pc.why);
	c->drops = DROPS_UNKNOWN;
	if (drops && choose_needs_drop_probe(c, "auto")) {
		struct drop_probe *p = calloc(1, sizeof(*p));

		if (p && drop_probe_run(c->tfs_dir, p) == 0) {
			c->drops = p->result;
			c->drop_switches = p->switches;
			c->drop_recorded = p->recorded;
			drop_probe_cpus(p, c->drop_cpus, sizeof(c->drop_cpus));
			c->drop_idle_counted = p->ncpu && p->cpu[0].to_idle >= 0;
		}
		free(p);
	}
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
