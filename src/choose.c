// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "choose.h"
#include "dropprobe.h"
#include "perfcaps.h"
#include "probe.h"

/* The drop probe, run once per process (info asks for every command). */
const struct drop_probe *backend_drop_probe(const char *tracefs_dir)
{
	static struct drop_probe p;
	static bool done;

	if (!done) {
		done = true;
		if (drop_probe_run(tracefs_dir, &p))
			p.result = DROPS_UNKNOWN;
	}
	return &p;
}

const struct backend_ops *backend_choose(const char *want, const char *tracefs,
					 const char *no_hist, char *why, size_t len)
{
	struct tfs_caps *c = calloc(1, sizeof(*c));
	struct perf_caps pc;
	const struct backend_ops *ops = NULL;
	bool ring_ok, perf_ok, hist_ok;
	char ring_why[4400];

	if (!c) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	tfs_caps_probe(tracefs, c);
	perf_caps_probe(&pc);
	ring_ok = c->found && c->writable && c->ev[SEV_SWITCH] && c->ev[SEV_WAKEUP];
	if (!c->found)
		snprintf(ring_why, sizeof(ring_why), "%s", c->why);
	else if (!c->writable)
		snprintf(ring_why, sizeof(ring_why), "tracefs at %s is %s", c->dir,
			 strcmp(c->why, "not root") ? "read-only" : "not writable (not root)");
	else if (!ring_ok)
		snprintf(ring_why, sizeof(ring_why), "no sched_switch/sched_wakeup events in %s",
			 c->dir);
	else
		snprintf(ring_why, sizeof(ring_why), "tracefs at %s is writable", c->dir);
	/* hist: in-kernel aggregation, when the kernel and the command allow */
	if (no_hist && !strcmp(no_hist, NO_HIST_KSTACK) && c->synth_stack && c->stack_key)
		no_hist = NULL;		/* offcpu -K in the kernel (6.3+) */
	/* the result is keyed with .buckets (about 5.15): older ones cannot */
	hist_ok = ring_ok && c->hist && c->synth && c->buckets && !no_hist;
	/* perf needs the format files (readable) and the permission */
	perf_ok = pc.allowed && c->found && c->ev[SEV_SWITCH] && c->ev[SEV_WAKEUP];

	if (!strcmp(want, "hist")) {
		if (hist_ok) {
			ops = &hist_backend_ops;
			snprintf(why, len, "asked for; hist triggers and synthetic events");
		} else {
			snprintf(why, len, "the hist backend cannot run: %s", !ring_ok ? ring_why :
				 !(c->hist && c->synth) ? "this kernel has no hist triggers or "
				 "synthetic events (CONFIG_HIST_TRIGGERS, CONFIG_SYNTH_EVENTS)" :
				 !c->buckets ? "this kernel's hist triggers have no .buckets "
				 "modifier (5.15 and later)" : no_hist);
		}
	} else if (!strcmp(want, "ring")) {
		if (ring_ok) {
			ops = &ring_backend_ops;
			snprintf(why, len, "asked for; %s", ring_why);
		} else {
			snprintf(why, len, "the ring backend cannot run: %s", ring_why);
		}
	} else if (!strcmp(want, "perf")) {
		if (perf_ok) {
			ops = &perf_backend_ops;
			snprintf(why, len, "asked for; %s", pc.why);
		} else {
			snprintf(why, len, "the perf backend cannot run: %s",
				 !pc.allowed ? pc.why : !c->found ? c->why :
				 "no readable sched event formats in tracefs");
		}
	} else if (perf_ok && (hist_ok || ring_ok) &&
		   backend_drop_probe(c->dir)->result == DROPS_SEEN) {
		char cpus[256];

		/* exact where the tracepoint loses switches: its switch records */
		drop_probe_cpus(backend_drop_probe(c->dir), cpus, sizeof(cpus));
		ops = &perf_backend_ops;
		snprintf(why, len, "this kernel loses sched_switch hits on CPU %s (probe: "
			 "%llu of %llu switches recorded); perf's context-switch records "
			 "have them", cpus,
			 (unsigned long long)backend_drop_probe(c->dir)->recorded,
			 (unsigned long long)backend_drop_probe(c->dir)->switches);
	} else if (hist_ok) {
		ops = &hist_backend_ops;
		snprintf(why, len, "hist triggers and synthetic events: the kernel aggregates");
	} else if (ring_ok) {
		ops = &ring_backend_ops;
		snprintf(why, len, "%s; %s", ring_why,
			 !(c->hist && c->synth) ? "no hist triggers in this kernel" :
			 !c->buckets ? "no .buckets modifier for hist triggers in this kernel" :
			 no_hist);
	} else if (perf_ok) {
		ops = &perf_backend_ops;
		snprintf(why, len, "%s; perf events allowed (%s)", ring_why, pc.why);
	} else {
		snprintf(why, len, "no backend can trace here: ring: %s; perf: %s", ring_why,
			 !pc.allowed ? pc.why : "cannot read the event formats in tracefs "
			 "(needs root or CAP_DAC_READ_SEARCH)");
	}
	free(c);
	return ops;
}
