// SPDX-License-Identifier: GPL-2.0-or-later
/* A whole run's output: sections per group, summaries, trailer, JSON. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "escape.h"
#include "openmetrics.h"
#include "svg.h"
#include "report.h"
#include "report_local.h"

static void print_timestamp(FILE *f, const struct report *r)
{
	struct tm tm;
	char buf[32];

	localtime_r(&r->wall, &tm);
	strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
	fprintf(f, "%s\n", buf);
}

static void print_section_head(FILE *f, const struct report *r,
			       const struct group *g)
{
	const char *kn = report_key_name(r->key);

	if (!kn)
		return;
	if (g->id == GROUP_OTHER) {
		fprintf(f, "\n%s = (other)\n", kn);
		return;
	}
	if (report_key_named(r->key)) {
		fprintf(f, "\n%s = ", kn);
		report_text_name(f, r, g);
		fputc('\n', f);
		return;
	}
	fprintf(f, "\n%s = %" PRId64, kn, g->id);
	if (g->comm[0]) {
		fputc(' ', f);
		report_text_comm(f, g->comm);
	}
	fputc('\n', f);
}

/*
 * What the hypervisor took (steal) is time a CPU was not the guest's: timed
 * here between two events it is in the interval, as in the kernel's
 * run_delay; the kernel's CPU time (sum_exec_runtime, top) leaves it out.
 */
static void print_steal(FILE *f, const struct report *r)
{
	static const char *const held[] = {
		[MEASURE_RUNQ] = "a wait for a CPU holds what it took from that CPU, as the "
				 "kernel's run_delay does",
		[MEASURE_OFFCPU] = "an off-CPU interval holds what it took while the woken "
				   "thread waited for its CPU",
		[MEASURE_ONCPU] = "an on-CPU slice timed between switches holds what it took "
				  "while the thread ran; the kernel's CPU time (schedstat, top) "
				  "leaves it out",
	};
	/* the proc backend's totals are the kernel's: off-CPU is wall minus CPU time */
	static const char *const sampled[] = {
		[MEASURE_RUNQ] = "a wait for a CPU holds what it took from that CPU, as the "
				 "kernel's run_delay does",
		[MEASURE_OFFCPU] = "off-CPU time here is wall minus the kernel's CPU time, so "
				   "it holds what it took while a thread ran, as well as while "
				   "a woken thread waited",
		[MEASURE_ONCPU] = "on-CPU time here is the kernel's CPU time, which leaves out "
				  "what it took while a thread ran (off-CPU, wall minus CPU "
				  "time, holds it)",
	};

	if (r->steal_known && r->steal_ns)
		fprintf(f, "# the hypervisor took %.0f ms from the CPUs in the window (steal, all "
			"CPUs added): %s\n", (double)r->steal_ns / 1e6,
			(r->sampling ? sampled : held)[r->measure]);
}

/* the run-queue time the histograms hold, all groups */
static uint64_t measured_ns(const struct report *r)
{
	uint64_t ns = 0;
	uint32_t i;

	for (i = 0; i < r->groups->n; i++)
		ns += r->groups->v[i]->h.sum_ns;
	return ns;
}

/*
 * The size of the run-queue waits not measured (their threads' schedstat),
 * and whether the totals are then exact though the histogram is not
 */
static void print_sized(FILE *f, const struct report *r)
{
	const struct an_counts *c = r->counts;
	uint64_t m = measured_ns(r);

	fprintf(f, "# their size: their threads' schedstat run_delay holds %.3f ms more than "
		"was measured (a wait under way when tracing began counts whole)",
		(double)r->unmeasured_ns / 1e6);
	if (r->unmeasured_unsized)
		fprintf(f, "; %" PRIu64 " of them in threads that exited before the window's "
			"end, whose exit the kernel's taskstats did not tell (not root, no "
			"CONFIG_TASKSTATS, or a burst of exits): not sized", r->unmeasured_unsized);
	fputc('\n', f);
	if (report_totals_exact(r))
		fprintf(f, "# histogram partial, totals exact: %.3f ms of run-queue time = %.3f ms "
			"in the histogram%s + %.3f ms in the %" PRIu64 " wait%s not measured\n",
			(double)(m + r->unmeasured_ns) / 1e6, (double)m / 1e6,
			r->key == KEY_NONE ? "" : "s", (double)r->unmeasured_ns / 1e6, c->unmeasured,
			c->unmeasured == 1 ? "" : "s");
	else
		fprintf(f, "# histogram partial, totals partial: %s\n", r->unmeasured_unsized ?
			"waits of threads gone before the window's end are not sized" :
			"events lost or dropped: waits absent from the trace are not counted");
}

static void print_trailer(FILE *f, const struct report *r)
{
	const struct an_incomplete *inc = r->inc;
	const struct an_counts *c = r->counts;
	unsigned i;

	fprintf(f, "# %s: %.3f s traced, backend %s, clock %s",
		r->command, r->duration_s, r->backend, r->clock);
	if (r->compat)
		fprintf(f, ", --compat=%s", r->compat);
	if (r->stopped_by)
		fprintf(f, ", stopped by %s", r->stopped_by);
	fputc('\n', f);
	if (r->backend_why)
		fprintf(f, "# backend %s: %s\n", r->backend, r->backend_why);
	if (r->lost) {
		const char *sep = "";

		fprintf(f, "# lost events: %" PRIu64 " (", r->lost);
		for (i = 0; i < r->ncpu; i++)
			if (r->lost_cpu[i]) {
				/* "(cpu1 5)", not "( cpu1 5)" where cpu0 lost none */
				fprintf(f, "%scpu%u %" PRIu64, sep, i, r->lost_cpu[i]);
				sep = " ";
			}
		fputs("): histogram is partial\n", f);
	}
	if (inc->open_at_start || inc->open_at_end || inc->negative ||
	    c->state_overflow)
		fprintf(f, "# not counted: %" PRIu64 " started before the window, %"
			PRIu64 " still open at its end, %" PRIu64
			" negative, %" PRIu64 " dropped at --max-tasks\n",
			inc->open_at_start, inc->open_at_end, inc->negative,
			c->state_overflow);
	open_blocks_print_text(f, r->open);
	if (r->groups->overflow)
		fprintf(f, "# %" PRIu64 " interval%s in group (other): --max-groups reached\n",
			r->groups->overflow, r->groups->overflow == 1 ? "" : "s");
	if (r->dropped)
		fprintf(f, "# %" PRIu64 " interval%s dropped: the kernel's hist map was full "
			"(results partial)\n", r->dropped, r->dropped == 1 ? "" : "s");
	if (r->recovered)
		fprintf(f, "# %" PRIu64 " context switch%s the sched_switch tracepoint did not "
			"record, taken from perf's context-switch records\n", r->recovered,
			r->recovered == 1 ? "" : "es");
	if (r->nomatch)
		fprintf(f, "# partial: the filter (-p, -t, -c, --cgroup or -- COMMAND) matched "
			"no thread of the %" PRIu64 " events the run saw: the threads it selects "
			"did not run, or the trace names them by other pids (a pid namespace: "
			"'offcpu-ftrace info')\n", r->seen);
	if (c->follow_overflow)
		fprintf(f, "# partial: %" PRIu64 " new task%s of the command not followed: "
			"the follow set holds twice --max-tasks (raise --max-tasks)\n",
			c->follow_overflow, c->follow_overflow == 1 ? "" : "s");
	if (c->missed_switch)
		fprintf(f, "# partial: %" PRIu64 " context switch%s of the selected threads "
			"missing from the trace\n", c->missed_switch,
			c->missed_switch == 1 ? "" : "es");
	if (c->unmeasured && r->measure == MEASURE_RUNQ && r->no_wakeups)
		fprintf(f, "# partial: %" PRIu64 " run-queue wait%s not measured: %s with a "
			"wakeup, which perf's context-switch records alone do not show (the "
			"backend line says why no tracepoint serves here)\n", c->unmeasured,
			c->unmeasured == 1 ? "" : "s", c->unmeasured == 1 ? "it began" :
			"they began");
	else if (c->unmeasured && r->measure == MEASURE_RUNQ)
		fprintf(f, "# partial: %" PRIu64 " run-queue wait%s not measured: %s wakeup or "
			"switch-in is not in the trace (lost events, or a kernel that does "
			"not record what happens while a CPU idles: see 'offcpu-ftrace info')\n",
			c->unmeasured, c->unmeasured == 1 ? "" : "s",
			c->unmeasured == 1 ? "its" : "their");
	if (c->unmeasured && r->measure == MEASURE_RUNQ && r->unmeasured_sized)
		print_sized(f, r);
	if (c->perf_preempted && r->measure == MEASURE_RUNQ)
		fprintf(f, "# %" PRIu64 " wait%s after a preemption counted 0: perf 6.1's sched "
			"timehist counts %s as \"wait time\", the run after %s \"sch delay\" 0 "
			"(--compat=perf)\n", c->perf_preempted, c->perf_preempted == 1 ? "" : "s",
			c->perf_preempted == 1 ? "it" : "them", c->perf_preempted == 1 ? "it" : "them");
	if (c->from_waking > c->onto_idle && r->measure == MEASURE_RUNQ)
		fprintf(f, "# %" PRIu64 " run-queue wait%s timed from sched_waking: %s sched_wakeup "
			"is not in the trace (this kernel does not record what happens while a CPU "
			"idles); longer by the waking-to-wakeup gap, a few microseconds\n",
			c->from_waking - c->onto_idle, c->from_waking - c->onto_idle == 1 ? "" : "s",
			c->from_waking - c->onto_idle == 1 ? "its" : "their");
	if (c->onto_idle && r->measure == MEASURE_RUNQ)
		fprintf(f, "# %" PRIu64 " run-queue wait%s woken onto an idle CPU, %s sched_wakeup not "
			"in the trace: 0, the CPU ran %s as it left idle (the kernel's run_delay "
			"counts from there too)\n", c->onto_idle, c->onto_idle == 1 ? "" : "s",
			c->onto_idle == 1 ? "its" : "their", c->onto_idle == 1 ? "it" : "them");
	if (c->idle_woken && r->measure == MEASURE_RUNQ && r->no_wakeups)
		fprintf(f, "# %" PRIu64 " run-queue wait%s of threads that ran as a CPU idle since "
			"%s blocked left idle: 0, the same switch from idle (the kernel's run_delay "
			"holds the CPU's wake from idle)\n", c->idle_woken,
			c->idle_woken == 1 ? "" : "s", c->idle_woken == 1 ? "it" : "they");
	else if (c->idle_woken && r->measure == MEASURE_RUNQ)
		fprintf(f, "# %" PRIu64 " run-queue wait%s woken in an idle CPU's interrupt (a timer, "
			"an I/O completion: no sched_waking or sched_wakeup in the trace) onto a CPU "
			"idle since %s blocked: 0, the same switch from idle\n", c->idle_woken,
			c->idle_woken == 1 ? "" : "s", c->idle_woken == 1 ? "it" : "they");
	if (c->inferred && r->measure == MEASURE_OFFCPU)
		fprintf(f, "# partial: %" PRIu64 " off-CPU interval%s closed at %s wakeup or the "
			"CPU's last event before the gap: short by at most %.3f ms in all\n",
			c->inferred, c->inferred == 1 ? "" : "s", c->inferred == 1 ? "its" : "their",
			(double)c->inferred_slack_ns / 1e6);
	if (c->off_unmeasured && r->measure == MEASURE_OFFCPU)
		fprintf(f, "# partial: %" PRIu64 " off-CPU interval%s not measured: the thread "
			"switched in where the trace has a gap, and neither its wakeup nor that "
			"CPU's events bound when\n", c->off_unmeasured,
			c->off_unmeasured == 1 ? "" : "s");
	if (c->slice_unmeasured && r->measure == MEASURE_ONCPU)
		fprintf(f, "# partial: %" PRIu64 " on-CPU slice%s not measured: the switch that "
			"began %s is not in the trace\n", c->slice_unmeasured,
			c->slice_unmeasured == 1 ? "" : "s", c->slice_unmeasured == 1 ? "it" : "them");
	if (r->rejected)
		fprintf(f, "# partial: %" PRIu64 " record%s of the recording cannot be true (a CPU's "
			"time stepping back or past the recording's end, a pid out of range): "
			"skipped; is the file corrupt?\n", r->rejected, r->rejected == 1 ? "" : "s");
	if (c->late)
		fprintf(f, "# partial: %" PRIu64 " event%s arrived out of time order\n", c->late,
			c->late == 1 ? "" : "s");
	if (inc->negative)
		fprintf(f, "# partial: %" PRIu64 " interval%s ended before %s began (not counted)\n",
			inc->negative, inc->negative == 1 ? "" : "s",
			inc->negative == 1 ? "it" : "they");
	if (r->stacks && r->late_stacks)
		fprintf(f, "# --late-stacks: %" PRIu64 " kernel stack%s read from /proc while "
			"blocked; an interval that ended before a scan saw it blocked has none\n",
			c->late_kstacks, c->late_kstacks == 1 ? "" : "s");
	if (r->stacks && r->late_stacks && r->late_unreadable)
		fprintf(f, "# --late-stacks: %" PRIu64 " blocked interval%s (in the run so far) "
			"whose thread's /proc/TID/stack could not be read (%s): no stack\n",
			r->late_unreadable, r->late_unreadable == 1 ? "" : "s",
			strerror(r->late_unreadable_errno));
	if (r->stacks && r->late_stacks && r->late_unknown_frames)
		fprintf(f, "# --late-stacks: %" PRIu64 " frame%s /proc named that /proc/kallsyms "
			"lacks left out of their stacks\n", r->late_unknown_frames,
			r->late_unknown_frames == 1 ? "" : "s");
	if (r->stacks && (c->no_stack || r->stack_overflow || r->stacks->agg->overflow))
		fprintf(f, "# stacks: %" PRIu64 " intervals without the stack asked for "
			"(shown as [Missed ... Stack]), %" PRIu64 " stacks and %" PRIu64
			" intervals beyond --max-stacks\n", c->no_stack, r->stack_overflow,
			r->stacks->agg->overflow);
	if (c->tgid_unknown)
		fprintf(f, "# %" PRIu64 " interval%s keyed by tid: process unknown (the thread "
			"exited before it was looked up, or a recording lists none for it)\n",
			c->tgid_unknown, c->tgid_unknown == 1 ? "" : "s");
	if (r->measure == MEASURE_OFFCPU &&
	    (c->blocked.s_ns || c->blocked.d_ns || c->blocked.other_ns))
		fprintf(f, "# blocked by state: sleeping (S) %.1f ms, uninterruptible (D, disk and "
			"some locks) %.1f ms, other %.1f ms%s\n", (double)c->blocked.s_ns / 1e6,
			(double)c->blocked.d_ns / 1e6, (double)c->blocked.other_ns / 1e6,
			r->sampling ? " (split by the states sampled)" : "");
	print_steal(f, r);
	if (r->sampling)
		sampled_print_footer(f, r->sampling, r->command_cpu_ns);
}

/* under a group's summary: the waits it had that are not in its histogram */
static void print_unmeasured(FILE *f, const struct report *r, const struct group *g)
{
	if (!g->unmeasured)
		return;
	fprintf(f, "# and %" PRIu64 " wait%s not measured (not in the histogram)",
		g->unmeasured, g->unmeasured == 1 ? "" : "s");
	if (g->unmeasured_sized && !g->unmeasured_unsized)
		fprintf(f, ", %.3f ms by %s threads' schedstat: histogram partial, totals %s\n",
			(double)g->unmeasured_ns / 1e6, g->unmeasured == 1 ? "its" : "their",
			report_totals_exact(r) ? "exact" : "partial");
	else if (g->unmeasured_sized)
		fprintf(f, ", %.3f ms by schedstat and %" PRIu64 " in threads gone, not sized: "
			"partial\n", (double)g->unmeasured_ns / 1e6, g->unmeasured_unsized);
	else
		fputs(": partial\n", f);
}

static void print_text(FILE *f, enum out_format fmt, struct report *r)
{
	struct groups *gs = r->groups;
	struct hist empty;
	uint32_t i, shown;

	if (r->text_head)
		r->text_head(f, r->extra_arg);
	if (r->timestamp)
		print_timestamp(f, r);
	if (r->stacks) {
		/* folded output stays pure for flame graph tools */
		stacks_print_text(f, r->stacks);
		print_trailer(r->stacks->folded ? stderr : f, r);
		return;
	}
	/* an analysis's own body first: it has the sampling's totals too */
	if (r->text_body) {
		r->text_body(f, r->extra_arg);
		print_trailer(f, r);
		return;
	}
	if (r->sampling) {
		sampled_print_table(f, r);
		print_trailer(f, r);
		return;
	}
	if (fmt == FMT_BPFTRACE)
		groups_sort_by_count(gs);
	else if (r->key == KEY_CPU)
		groups_sort(gs);
	else
		groups_sort_by_total(gs);
	/* bpftrace's order is by count, ascending: --top keeps the largest */
	shown = report_groups_shown(r);
	if (gs->n == 0 && r->key == KEY_NONE) {
		/* nothing ended in the window: still say so */
		hist_reset(&empty);
		if (fmt == FMT_BPFTRACE)
			fprintf(f, "@%s: \n", r->unit);
		out_hist_summary(f, &empty, r->unit, r->unit_ns);
		if (fmt == FMT_BPFTRACE)
			fputc('\n', f);
	}
	for (i = fmt == FMT_BPFTRACE ? gs->n - shown : 0; i < (fmt == FMT_BPFTRACE ? gs->n : shown);
	     i++) {
		const struct group *g = gs->v[i];

		if (fmt == FMT_BPFTRACE) {
			if (r->key == KEY_NONE)
				fprintf(f, "@%s: \n", r->unit);
			else if (g->id == GROUP_OTHER)
				fprintf(f, "@%s[other]: \n", r->unit);
			else if (report_key_named(r->key))
				fprintf(f, "@%s[%s]: \n", r->unit, report_group_name(r, g));
			else
				fprintf(f, "@%s[%" PRId64 "]: \n", r->unit, g->id);
			out_hist_bpftrace(f, &g->h);
			out_hist_summary(f, &g->h, r->unit, r->unit_ns);
			print_unmeasured(f, r, g);
			fputc('\n', f);
		} else {
			print_section_head(f, r, g);
			out_hist_bcc(f, &g->h, r->unit);
			out_hist_summary(f, &g->h, r->unit, r->unit_ns);
			print_unmeasured(f, r, g);
		}
	}
	if (fmt == FMT_BCC)
		fputc('\n', f);
	if (shown < gs->n) {
		report_print_not_shown(f, r, shown);
		fputc('\n', f);
	}
	print_trailer(f, r);
}

static void json_group(FILE *f, const struct report *r, const struct group *g)
{
	const struct hist *h = &g->h;
	const char *kn = report_key_name(r->key);
	int lo = hist_min_slot(h), hi = hist_max_slot(h), k;

	fputc('{', f);
	if (report_key_named(r->key)) {
		if (g->id == GROUP_OTHER) {
			fprintf(f, "\"%s\":null,\"other\":true,", kn);
		} else {
			fprintf(f, "\"%s\":", kn);
			json_str(f, report_group_name(r, g), 256);
			fputc(',', f);
		}
		if (r->key == KEY_CGROUP) {
			fputs("\"cgroup_path\":", f);
			json_str_or_null(f, g->path, 4096);
			fputc(',', f);
		}
	} else if (kn) {
		if (g->id == GROUP_OTHER)
			fprintf(f, "\"%s\":null,\"other\":true,", kn);
		else
			fprintf(f, "\"%s\":%" PRId64 ",", kn, g->id);
		if (r->key != KEY_CPU) {
			fputs("\"comm\":", f);
			json_str(f, g->comm, COMM_LEN);
			fputc(',', f);
		}
	}
	fprintf(f, "\"count\":%" PRIu64 ",\"sum\":%" PRIu64 ",\"sum_ns\":%" PRIu64
		",\"unmeasured\":%" PRIu64, h->count, h->sum, h->sum_ns, g->unmeasured);
	if (r->measure == MEASURE_RUNQ && r->unmeasured_sized)
		fprintf(f, ",\"unmeasured_ns\":%" PRIu64 ",\"unmeasured_unsized\":%" PRIu64
			",\"totals_exact\":%s", g->unmeasured_ns, g->unmeasured_unsized,
			report_totals_exact(r) && !g->unmeasured_unsized ? "true" : "false");
	if (!hist_timed(h)) {
		/* totals from the kernel's counters: no interval has a time */
		fputs(",\"min\":null,\"max\":null,\"p50\":null,\"p90\":null,\"p99\":null"
		      ",\"buckets\":[", f);
		lo = -1;
	} else {
		fprintf(f, ",\"min\":%" PRIu64 ",\"max\":%" PRIu64 ",\"p50\":%" PRIu64
			",\"p90\":%" PRIu64 ",\"p99\":%" PRIu64 ",\"buckets\":[",
			h->count ? h->min : 0, h->max, hist_percentile(h, 50), hist_percentile(h, 90),
			hist_percentile(h, 99));
	}
	for (k = lo; lo >= 0 && k <= hi; k++)
		fprintf(f, "%s{\"low\":%" PRIu64 ",\"high\":%" PRIu64
			",\"count\":%" PRIu64 "}", k == lo ? "" : ",",
			hist_slot_low((unsigned)k), hist_slot_high((unsigned)k),
			h->slot[k]);
	fputs("]}", f);
}

/*
 * runq, its waits sized from schedstat: the total run-queue time (the
 * histograms' and the waits not measured), whether it is exact, and
 * every thread alive at both ends against its own run_delay
 */
static void print_json_totals(FILE *f, const struct report *r)
{
	uint64_t m = measured_ns(r);

	fprintf(f, ",\"totals\":{\"exact\":%s,\"sum_ns\":%" PRIu64 ",\"measured_ns\":%" PRIu64
		",\"unmeasured_ns\":%" PRIu64 "},\"schedstat\":{\"threads\":%" PRIu64
		",\"run_delay_ns\":%" PRIu64 ",\"measured_ns\":%" PRIu64 ",\"gone_threads\":%"
		PRIu64 ",\"gone_measured_ns\":%" PRIu64 ",\"gone_sized\":",
		report_totals_exact(r) ? "true" : "false", m + r->unmeasured_ns, m,
		r->unmeasured_ns, r->sched_threads, r->sched_run_delay_ns, r->sched_measured_ns,
		r->sched_gone, r->sched_gone_measured_ns);
	if (r->sched_gone_sized >= 0)
		fprintf(f, "%" PRId64 "}", r->sched_gone_sized);
	else
		fputs("null}", f);
}

static void print_json(FILE *f, struct report *r)
{
	const struct an_counts *c = r->counts;
	const struct an_incomplete *inc = r->inc;
	struct groups *gs = r->groups;
	struct group empty;
	uint32_t shown;
	unsigned i;

	if (r->key == KEY_CPU)
		groups_sort(gs);
	else
		groups_sort_by_total(gs);
	shown = report_groups_shown(r);
	fputs(r->json_continues ? ",\"command\":" : "{\"command\":", f);
	json_str(f, r->command, 32);
	if (r->compat) {
		fputs(",\"compat\":", f);
		json_str(f, r->compat, 32);
	}
	fputs(",\"backend\":", f);
	json_str(f, r->backend, 32);
	if (r->backend_why) {
		fputs(",\"backend_why\":", f);
		json_str(f, r->backend_why, 1024);
	}
	fputs(",\"clock\":", f);
	json_str(f, r->clock, 32);
	fputs(",\"unit\":", f);
	json_str(f, r->unit, 16);
	fprintf(f, ",\"key\":%s%s%s", report_key_name(r->key) ? "\"" : "",
		report_key_name(r->key) ? report_key_name(r->key) : "null",
		report_key_name(r->key) ? "\"" : "");
	fprintf(f, ",\"window\":{\"duration_s\":%.6f,\"interval\":%u,\"final\":%s,"
		"\"end_time\":%lld,\"stopped_by\":",
		r->duration_s, r->interval, r->final ? "true" : "false",
		(long long)r->wall);
	if (r->stopped_by)
		json_str(f, r->stopped_by, 16);
	else
		fputs("null", f);
	fputs(",\"steal_ns\":", f);
	if (r->steal_known)
		fprintf(f, "%" PRIu64, r->steal_ns);
	else
		fputs("null", f);
	fputs("},\"events\":{", f);
	for (i = SEV_SWITCH; i < SEV_NTYPES; i++)
		/* samples (profile's) and cgroup moves (--by cgroup's) where there are any */
		if (i < SEV_SAMPLE || c->events[i])
			fprintf(f, "\"%s\":%" PRIu64 ",", sched_ev_name(i), c->events[i]);
	fprintf(f, "\"lost\":%" PRIu64 ",\"lost_per_cpu\":[", r->lost);
	for (i = 0; i < r->ncpu; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "", r->lost_cpu[i]);
	fprintf(f, "],\"switch_records\":%" PRIu64, r->recovered);
	/* a recording's records that cannot be true, where there are any */
	if (r->rejected)
		fprintf(f, ",\"rejected\":%" PRIu64, r->rejected);
	fprintf(f, "},\"partial\":%s", report_partial(r) ? "true" : "false");
	if (r->sampling)
		sampled_print_json(f, r->sampling, r->command_cpu_ns);
	fprintf(f, ",\"incomplete\":{\"open_at_start\":%" PRIu64
		",\"open_at_end\":%" PRIu64 ",\"negative\":%" PRIu64
		",\"state_overflow\":%" PRIu64 ",\"group_overflow\":%" PRIu64
		",\"tgid_unknown\":%" PRIu64 ",\"missed_switch\":%" PRIu64
		",\"inferred\":%" PRIu64 ",\"inferred_slack_ns\":%" PRIu64
		",\"unmeasured\":%" PRIu64 ",\"off_unmeasured\":%" PRIu64 ",\"late\":%" PRIu64
		",\"dropped\":%" PRIu64, inc->open_at_start, inc->open_at_end, inc->negative,
		c->state_overflow, gs->overflow, c->tgid_unknown,
		c->missed_switch, c->inferred, c->inferred_slack_ns, c->unmeasured,
		c->off_unmeasured, c->late, r->dropped);
	if (r->measure == MEASURE_ONCPU)
		fprintf(f, ",\"slice_unmeasured\":%" PRIu64, c->slice_unmeasured);
	if (r->measure == MEASURE_RUNQ)
		fprintf(f, ",\"from_waking\":%" PRIu64 ",\"onto_idle\":%" PRIu64
			",\"woken_in_idle\":%" PRIu64, c->from_waking, c->onto_idle, c->idle_woken);
	if (r->measure == MEASURE_RUNQ && c->perf_preempted)
		fprintf(f, ",\"perf_preempted\":%" PRIu64, c->perf_preempted);
	if (r->filtered)
		fprintf(f, ",\"filter_matched_nothing\":%s", r->nomatch ? "true" : "false");
	if (c->follow_overflow)
		fprintf(f, ",\"follow_overflow\":%" PRIu64, c->follow_overflow);
	if (r->cpu_state)
		fprintf(f, ",\"cpu_state_unknown_ns\":%" PRIu64, r->cpu_unknown_ns);
	if (r->measure == MEASURE_RUNQ && r->unmeasured_sized)
		fprintf(f, ",\"unmeasured_ns\":%" PRIu64 ",\"unmeasured_unsized\":%" PRIu64,
			r->unmeasured_ns, r->unmeasured_unsized);
	if (r->stacks)
		fprintf(f, ",\"no_stack\":%" PRIu64 ",\"stack_overflow\":%" PRIu64
			",\"stack_sum_overflow\":%" PRIu64, c->no_stack, r->stack_overflow,
			r->stacks->agg->overflow);
	if (r->stacks && r->late_stacks)
		fprintf(f, ",\"late_kstacks\":%" PRIu64 ",\"late_unknown_frames\":%" PRIu64
			",\"late_unreadable\":%" PRIu64, c->late_kstacks, r->late_unknown_frames,
			r->late_unreadable);
	fputc('}', f);
	open_blocks_print_json(f, r->open);
	if (r->measure == MEASURE_RUNQ && r->unmeasured_sized)
		print_json_totals(f, r);
	fputs(",\"groups\":[", f);
	if (r->json_groups) {
		r->json_groups(f, r->extra_arg);
		shown = gs->n;	/* theirs: nothing "not shown" */
	} else if (gs->n == 0 && r->key == KEY_NONE) {
		memset(&empty, 0, sizeof(empty));
		json_group(f, r, &empty);
	}
	for (i = 0; !r->json_groups && i < shown; i++) {
		if (i)
			fputc(',', f);
		json_group(f, r, gs->v[i]);
	}
	fputc(']', f);
	if (shown < gs->n) {
		uint64_t n, ns;

		report_not_shown(r, shown, &n, &ns);
		fprintf(f, ",\"not_shown\":{\"groups\":%u,\"count\":%" PRIu64 ",\"sum_ns\":%"
			PRIu64 "}", gs->n - shown, n, ns);
	}
	if (r->stacks) {
		uint64_t sc, sns;
		uint32_t left;

		fputs(",\"stacks\":", f);
		stacks_print_json(f, r->stacks);
		left = stacks_not_shown(r->stacks, &sc, &sns);
		if (left)
			fprintf(f, ",\"stacks_not_shown\":{\"stacks\":%u,\"count\":%" PRIu64
				",\"total_ns\":%" PRIu64 "}", left, sc, sns);
	}
	if (r->json_extra)
		r->json_extra(f, r->extra_arg);
	fputs("}\n", f);
}

/* 'command="runq",pid="42",comm="make"' for one group */
static void om_labels(char *buf, size_t len, const struct report *r, const struct group *g)
{
	const char *kn = report_key_name(r->key);
	FILE *m = fmemopen(buf, len, "w");

	if (!m) {
		buf[0] = '\0';
		return;
	}
	fprintf(m, "command=\"%s\"", r->command);
	if (kn && g->id == GROUP_OTHER)
		fprintf(m, ",%s=\"other\"", kn);
	else if (kn && !report_key_named(r->key))
		fprintf(m, ",%s=\"%" PRId64 "\"", kn, g->id);
	if (kn && r->key != KEY_CPU && !(report_key_named(r->key) && g->id == GROUP_OTHER)) {
		fprintf(m, ",%s=\"", r->key == KEY_CGROUP ? "cgroup" : "comm");
		om_label_value(m, report_group_name(r, g), 256);
		fputc('"', m);
	}
	fputc('\0', m);
	fclose(m);
	buf[len - 1] = '\0';
}

static void print_openmetrics(FILE *f, struct report *r)
{
	enum om_family fam = r->measure == MEASURE_RUNQ ? OM_RUNQ :
			     r->measure == MEASURE_ONCPU ? OM_ONCPU : OM_OFFCPU;
	struct groups *gs = r->groups;
	struct om_status st;
	char labels[320];
	struct hist empty;
	struct group rest;
	bool have_rest = false;
	uint32_t i, shown;

	/* sampled totals have no distribution: a summary, not buckets */
	if (r->sampling)
		fam = om_sampled(fam);
	/* the largest with --top; otherwise in key order, for stable diffs */
	if (r->top)
		groups_sort_by_total(gs);
	else
		groups_sort(gs);
	shown = report_groups_shown(r);
	om_family_head(f, fam);
	if (gs->n == 0 && r->key == KEY_NONE) {
		hist_reset(&empty);
		snprintf(labels, sizeof(labels), "command=\"%s\"", r->command);
		om_series(f, fam, labels, &empty);
	}
	/*
	 * --top: the rest in one series with the (other) group of
	 * --max-groups, KEY="other": the cardinality stays bounded
	 */
	memset(&rest, 0, sizeof(rest));
	rest.id = GROUP_OTHER;
	hist_reset(&rest.h);
	for (i = 0; i < gs->n; i++) {
		if (i < shown && gs->v[i]->id != GROUP_OTHER) {
			om_labels(labels, sizeof(labels), r, gs->v[i]);
			om_series(f, fam, labels, &gs->v[i]->h);
		} else {
			hist_merge(&rest.h, &gs->v[i]->h);
			have_rest = true;
		}
	}
	if (have_rest) {
		om_labels(labels, sizeof(labels), r, &rest);
		om_series(f, fam, labels, &rest.h);
	}
	report_om_status(&st, r);
	om_status_print(f, &st);
}

void report_om_status(struct om_status *st, const struct report *r)
{
	const struct an_counts *c = r->counts;

	om_status_init(st, r->command, r->backend, r->duration_s, r->wall, r->sampling);
	st->lost = r->lost;
	st->missed_switches = c->missed_switch;
	st->unmeasured = c->unmeasured + c->off_unmeasured + c->slice_unmeasured;
	st->recovered = r->recovered;
	st->partial = report_partial(r);
}

void open_blocks_add(struct open_blocks *ob, const struct open_block *b)
{
	unsigned i, at;

	ob->n++;
	ob->sum_ns += b->so_far_ns;
	ob->whole += b->whole_window;
	/* the longest first; a full list drops its shortest */
	for (at = 0; at < ob->shown && ob->b[at].so_far_ns >= b->so_far_ns; at++)
		;
	if (at == OPEN_BLOCKS_SHOWN)
		return;
	if (ob->shown < OPEN_BLOCKS_SHOWN)
		ob->shown++;
	for (i = ob->shown - 1; i > at; i--)
		ob->b[i] = ob->b[i - 1];
	ob->b[at] = *b;
}

void open_blocks_print_text(FILE *f, const struct open_blocks *ob)
{
	unsigned i;

	if (!ob || !ob->n)
		return;
	fprintf(f, "# %" PRIu64 " block%s still open at the window's end (in no histogram: not "
		"ended), %.3f s so far in all (lower bounds)%s%s\n", ob->n, ob->n == 1 ? "" : "s",
		(double)ob->sum_ns / 1e9, ob->whole ? "; blocked the whole window: " : "",
		ob->whole ? (ob->whole == ob->n ? "all" : "some") : "");
	for (i = 0; i < ob->shown; i++) {
		const struct open_block *b = &ob->b[i];

		fprintf(f, "#   tid %d ", b->tid);
		text_field(f, b->comm, sizeof(b->comm), 0);
		fprintf(f, ": %s for >= %.3f s%s%s", b->state[0] ? b->state : "blocked",
			(double)b->so_far_ns / 1e9, b->whole_window ? " (the whole window)" : "",
			b->where[0] ? " in " : "");
		text_field(f, b->where, sizeof(b->where), 0);
		fputc('\n', f);
	}
}

void open_blocks_print_json(FILE *f, const struct open_blocks *ob)
{
	unsigned i;

	if (!ob)
		return;
	fprintf(f, ",\"open_blocks\":{\"count\":%" PRIu64 ",\"sum_ns\":%" PRIu64
		",\"whole_window\":%" PRIu64 ",\"lower_bounds\":true,\"longest\":[", ob->n,
		ob->sum_ns, ob->whole);
	for (i = 0; i < ob->shown; i++) {
		const struct open_block *b = &ob->b[i];

		fprintf(f, "%s{\"tid\":%d,\"comm\":", i ? "," : "", b->tid);
		json_str(f, b->comm, sizeof(b->comm));
		fputs(",\"state\":", f);
		json_str_or_null(f, b->state[0] ? b->state : NULL, sizeof(b->state));
		fprintf(f, ",\"so_far_ns\":%" PRIu64 ",\"whole_window\":%s,\"where\":",
			b->so_far_ns, b->whole_window ? "true" : "false");
		json_str_or_null(f, b->where[0] ? b->where : NULL, sizeof(b->where));
		fputc('}', f);
	}
	fputs("]}", f);
}

bool report_partial(const struct report *r)
{
	const struct an_counts *c = r->counts;

	return r->lost || r->dropped || r->rejected || c->missed_switch || c->unmeasured ||
	       c->slice_unmeasured || c->late || (r->inc && r->inc->negative) || r->nomatch ||
	       r->cpu_unknown_ns || r->own_partial || c->follow_overflow;
}

bool report_totals_exact(const struct report *r)
{
	return r->measure == MEASURE_RUNQ && r->unmeasured_sized && !r->unmeasured_unsized &&
	       !r->lost && !r->dropped && !r->counts->state_overflow && !r->nomatch;
}

/* svg: stacks as a flame graph; -i's intervals as a heat map, drawn at the
 * end (or at each interval, replacing the file); else a bucket chart */
static void print_svg(FILE *f, struct report *r)
{
	if (r->stacks) {
		svg_flame(f, r);
	} else if (r->heat) {
		if (heat_add(r->heat, r))
			fputs("offcpu-ftrace: out of memory keeping the heat map\n", stderr);
		if (r->final || r->replaces)
			svg_heatmap(f, r->heat, r);
	} else {
		svg_charts(f, r);
	}
}

void report_print(FILE *f, enum out_format fmt, struct report *r)
{
	if (fmt == FMT_SVG)
		print_svg(f, r);
	else if (fmt == FMT_JSON)
		print_json(f, r);
	else if (fmt == FMT_OPENMETRICS)
		print_openmetrics(f, r);
	else
		print_text(f, fmt, r);
	fflush(f);
}

int report_emit(FILE *f, enum out_format fmt, struct report *r)
{
	errno = 0;
	report_print(f, fmt, r);
	return ferror(f) ? (errno ? -errno : -EIO) : 0;
}

static void no_body(FILE *f, void *arg)
{
	(void)f;
	(void)arg;
}

int report_emit_text(FILE *f, enum out_format fmt, struct report *r, bool folded,
		     void (*body)(FILE *f, void *arg), void (*notes)(FILE *f, void *arg))
{
	int ret;

	if (folded) {
		body(f, r->extra_arg);
		r->text_body = no_body;
		report_emit(stderr, fmt, r);
		notes(stderr, r->extra_arg);
		return ferror(f) ? -EIO : 0;
	}
	r->text_body = body;
	ret = report_emit(f, fmt, r);
	notes(f, r->extra_arg);
	return ret;
}
