// SPDX-License-Identifier: GPL-2.0-or-later
/* triage: the verdict from one capture's numbers, and its text, JSON and OpenMetrics. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "openmetrics.h"
#include "report_local.h"
#include "triage.h"

static const char *const psi_names[PSI_N] = { "cpu", "io", "memory" };

/* @us as people read it: 850 us, 12.3 ms, 4.56 s (report_human_ns) */
static void human(char *buf, size_t len, double us)
{
	report_human_ns(buf, len, us * 1e3);
}

static double psi_share(const struct triage_in *in, unsigned r)
{
	if (!in->psi_before.have[r] || !in->psi_after.have[r] || in->window_s <= 0)
		return -1;
	return (double)(in->psi_after.some_us[r] - in->psi_before.some_us[r]) /
	       (in->window_s * 1e6);
}

/* Short waits are never the finding, whatever their share. */
#define DEMAND_MIN_P99_US 1000

/* "see where it blocks: ..." for the D or the S case */
static void next_where(const struct triage_in *in, struct verdict *v, bool d)
{
	const char *tool = in->next_tool ? in->next_tool : "offcpu-ftrace";
	const char *window = in->next_window ? in->next_window : " 10";
	const char *st = d ? "D" : "S";
	int32_t pid = d ? in->top_d_pid : in->top_s_pid;
	const char *comm = d ? in->top_d_comm : in->top_s_comm;
	const char *what = d ? "blocked longest" : "asleep longest";
	/* sleeping can be by choice: the step is for when it should not be */
	const char *pre = d ? "" : "if they should have been working, ";
	char who[64] = "", name[16];

	if (pid > 0) {
		/* a task's name, shown as the tables show it */
		snprintf(name, sizeof(name), "%.15s", comm);
		text_clean(name);
		snprintf(who, sizeof(who), "   (%s, %s)", name, what);
	}
	if (in->restack) {
		/* a recording without stacks: make one that has them */
		snprintf(v->next, sizeof(v->next), "%swhere %s needs kernel stacks, which the "
			 "recording lacks: %s, then offcpu-ftrace report FILE offcpu -K --state %s%s",
			 pre, d ? "they block" : "they sleep", in->restack, st, who);
	} else if (in->by_command || pid <= 0) {
		snprintf(v->next, sizeof(v->next), "%ssee where %s: %s offcpu -K --state %s %s%s",
			 pre, d ? "they block" : "they sleep", tool, st, in->next_scope, who);
	} else {
		snprintf(v->next, sizeof(v->next), "%ssee where it %s: %s offcpu -K --state %s "
			 "-p %d%s%s", pre, d ? "blocks" : "sleeps", tool, st, pid, window, who);
	}
}

void triage_verdict(const struct triage_in *in, struct verdict *v)
{
	double total = (double)in->running_ns + (double)in->runq_ns + (double)in->blocked_ns;
	double demand = (double)in->running_ns + (double)in->runq_ns;
	uint64_t p99 = in->runq->count ? hist_percentile(in->runq, 99) : 0;
	const char *tool = in->next_tool ? in->next_tool : "offcpu-ftrace";
	double d_share = 0, s_share = 0, of_demand = 0;
	char a[32], b[32];

	memset(v, 0, sizeof(*v));
	if (total > 0) {
		v->running = (double)in->running_ns / total;
		v->waiting = (double)in->runq_ns / total;
		v->blocked = (double)in->blocked_ns / total;
		d_share = (double)in->blocked_d_ns / total;
		s_share = (double)in->blocked_s_ns / total;
	}
	if (demand > 0)
		of_demand = (double)in->runq_ns / demand;
	human(a, sizeof(a), (double)p99);
	if (!hist_timed(in->runq))
		snprintf(a, sizeof(a), "unknown (sampled)");
	human(b, sizeof(b), in->blocked->count ? (double)hist_percentile(in->blocked, 99) : 0);
	if (!hist_timed(in->blocked))
		snprintf(b, sizeof(b), "unknown (sampled)");
	if (in->have_throttle && in->nr_throttled &&
	    (double)in->throttled_ns >= in->th.throttle_share / 100.0 * in->window_s * 1e9) {
		char t[32];

		v->kind = VERDICT_THROTTLED;
		v->name = "cpu_throttled";
		human(t, sizeof(t), (double)in->throttled_ns / 1e3);
		snprintf(v->why, sizeof(v->why), "the cgroup's CPU limit throttled it in %" PRIu64
			 " of %" PRIu64 " periods, %s in all (threshold %u%% of the window); "
			 "threads waited for a CPU %.0f%% of their time", in->nr_throttled,
			 in->periods, t, in->th.throttle_share, 100 * v->waiting);
		snprintf(v->next, sizeof(v->next), "raise the cgroup's cpu.max (cpu.cfs_quota_us "
			 "on cgroup v1) or run fewer jobs in parallel inside it");
	} else if (total > 0 && (v->waiting * 100 >= in->th.runq_share ||
				 p99 >= in->th.runq_tail_us)) {
		v->kind = VERDICT_CONTENTION;
		v->name = "cpu_contention";
		snprintf(v->why, sizeof(v->why), "threads waited for a CPU %.0f%% of their "
			 "time, p99 wait %s (thresholds: %u%% or %" PRIu64 " us)",
			 100 * v->waiting, a, in->th.runq_share, in->th.runq_tail_us);
		snprintf(v->next, sizeof(v->next), "more runnable work than cores: run fewer jobs "
			 "in parallel or add CPUs; who waits most: %s runq -P %s", tool,
			 in->next_scope);
	} else if (demand > 0 && hist_timed(in->runq) && p99 >= DEMAND_MIN_P99_US &&
		   /* nor waits under a tenth of --runq-share of their time: the
		    * share of so small a demand swings with a reschedule or two */
		   v->waiting * 100 * 10 >= in->th.runq_share &&
		   of_demand * 100 >= in->th.wait_demand) {
		/* mostly asleep, but when they had work they waited for a CPU */
		v->kind = VERDICT_CONTENTION;
		v->name = "cpu_contention";
		snprintf(v->why, sizeof(v->why), "of the time threads wanted a CPU, they waited "
			 "%.0f%% (p99 wait %s; thresholds: %u%%, with p99 of at least 1 ms); they "
			 "slept most of the window, which is not the finding", 100 * of_demand, a,
			 in->th.wait_demand);
		snprintf(v->next, sizeof(v->next), "their wakeups wait for busy CPUs: run fewer "
			 "jobs beside them, add CPUs or raise their priority; who waits most: %s "
			 "runq -P %s", tool, in->next_scope);
	} else if (total > 0 && v->blocked * 100 >= in->th.blocked_share &&
		   in->blocked_d_ns >= in->blocked_s_ns) {
		v->kind = VERDICT_BLOCKED;
		v->name = "blocked";
		snprintf(v->why, sizeof(v->why), "threads were blocked %.0f%% of their time, p99 "
			 "%s: uninterruptible (D: disk, some locks) %.0f%%, asleep (S) %.0f%%; "
			 "waits for a CPU were short (%.0f%%, p99 %s)", 100 * v->blocked, b,
			 100 * d_share, 100 * s_share, 100 * v->waiting, a);
		next_where(in, v, true);
	} else if (total > 0 && v->blocked * 100 >= in->th.blocked_share) {
		v->kind = VERDICT_SLEEPING;
		v->name = "sleeping";
		snprintf(v->why, sizeof(v->why), "threads slept %.0f%% of their time (S: timers, "
			 "events, pipes, sockets, locks: by choice or for another thread), "
			 "uninterruptible (D) %.0f%%; waits for a CPU were short (%.0f%%, p99 %s)",
			 100 * s_share, 100 * d_share, 100 * v->waiting, a);
		next_where(in, v, false);
	} else if (total > 0 && v->running * 100 >= in->th.oncpu_share) {
		v->kind = VERDICT_ONCPU;
		v->name = "on_cpu";
		snprintf(v->why, sizeof(v->why), "threads ran %.0f%% of their time; waits for a "
			 "CPU were short (%.0f%%, p99 %s) and blocking was %.0f%%",
			 100 * v->running, 100 * v->waiting, a, 100 * v->blocked);
		snprintf(v->next, sizeof(v->next), "the time is spent computing: profile it "
			 "(perf record -g, perf top)");
	} else if (total > 0) {
		v->kind = VERDICT_MIXED;
		v->name = "mixed";
		snprintf(v->why, sizeof(v->why), "no dominant cause: running %.0f%%, waiting for a "
			 "CPU %.0f%% (p99 %s), blocked %.0f%% (D %.0f%%, S %.0f%%)",
			 100 * v->running, 100 * v->waiting, a, 100 * v->blocked, 100 * d_share,
			 100 * s_share);
		snprintf(v->next, sizeof(v->next), "look at both: %s runq -P %s and "
			 "%s offcpu -K %s", tool, in->next_scope, tool, in->next_scope);
	} else if (in->open && in->open->n) {
		/* nothing ran, but the threads are there: blocked, and where */
		const struct open_block *ob = &in->open->b[0];

		v->kind = VERDICT_HUNG;
		v->name = "blocked_whole_window";
		snprintf(v->why, sizeof(v->why), "none of the selected threads ran: %" PRIu64
			 " blocked %s, the longest %.15s (tid %d) %s%s%s for >= %.3f s",
			 in->open->n, in->open->whole == in->open->n ? "the whole window" :
			 "to its end", ob->comm, ob->tid, ob->state[0] ? ob->state : "blocked",
			 ob->where[0] ? " in " : "", ob->where, (double)ob->so_far_ns / 1e9);
		snprintf(v->next, sizeof(v->next), "who it waits on: offcpu-ftrace waits %d; its "
			 "stack: %s offcpu -K %s", ob->tid, tool, in->next_scope);
	} else {
		v->kind = VERDICT_IDLE;
		v->name = "idle";
		snprintf(v->why, sizeof(v->why), "none of the selected threads ran in the window");
		snprintf(v->next, sizeof(v->next), "check the scope, or trace longer");
	}
}

static void tail_cols(FILE *f, const struct hist *h)
{
	char a[32], b[32], c[32];

	if (!h->count) {
		fputc('\n', f);
		return;
	}
	if (!hist_timed(h)) {
		fprintf(f, "  %32s\n", "totals only: sampled");
		return;
	}
	human(a, sizeof(a), (double)hist_percentile(h, 50));
	human(b, sizeof(b), (double)hist_percentile(h, 99));
	human(c, sizeof(c), (double)h->max);
	fprintf(f, "  %10s %10s %10s\n", a, b, c);
}

/* --by cgroup: each cgroup's shares, wait tail and verdict */
static void print_rows(FILE *f, const struct triage_in *in)
{
	char t[32];
	size_t i;

	fprintf(f, "\n%-25s %8s %8s %8s %10s  %s\n", "by cgroup:", "running", "waiting",
		"blocked", "wait p99", "verdict");
	for (i = 0; i < in->nrows; i++) {
		const struct triage_row *r = &in->rows[i];

		text_field(f, r->name, 256, 25);
		if (!r->runq->count)
			snprintf(t, sizeof(t), "-");
		else if (!hist_timed(r->runq))
			snprintf(t, sizeof(t), "sampled");
		else
			human(t, sizeof(t), (double)hist_percentile(r->runq, 99));
		fprintf(f, " %7.0f%% %7.0f%% %7.0f%% %10s  %s\n", 100 * r->v.running,
			100 * r->v.waiting, 100 * r->v.blocked, t, r->v.name);
	}
	fprintf(f, "# --by cgroup: each cgroup's verdict from its threads' time alone (the "
		"thresholds above; no cgroup throttling or pressure); --format=json has why\n");
	if (in->rows_lost)
		fprintf(f, "# --by cgroup: %" PRIu64 " interval%s in no row (out of memory): the "
			"rows are short of them\n", in->rows_lost, in->rows_lost == 1 ? "" : "s");
}

/* of all CPUs' time in the window, the share the hypervisor took; < 0 unknown */
static double steal_share(const struct triage_in *in)
{
	if (!in->steal_known || !in->ncpu || in->window_s <= 0)
		return -1;
	return (double)in->steal_ns / (in->window_s * 1e9 * in->ncpu);
}

/* a VM's host took the CPUs: the guest's run queues waited on it too */
#define STEAL_NOTE_SHARE 0.05

static void print_steal(FILE *f, const struct triage_in *in)
{
	double s = steal_share(in);

	if (s <= 0)
		return;
	fprintf(f, "steal: the hypervisor took %.0f ms of the CPUs, %.1f%% of their time in "
		"the window\n", (double)in->steal_ns / 1e6, 100 * s);
	if (s >= STEAL_NOTE_SHARE)
		fprintf(f, "# note: the host ran something else on this VM's CPUs (%.1f%% >= %.0f%%): "
			"waiting for a CPU holds it (the guest's run_delay too), its CPU time "
			"(schedstat, top) does not; the host's capacity, not this guest, is short\n",
			100 * s, 100 * STEAL_NOTE_SHARE);
}

static void print_text(FILE *f, const struct triage_in *in, const struct verdict *v)
{
	char t[32];
	unsigned i;

	fprintf(f, "triage: %.3f s of %s (backend %s, clock %s)\n\n", in->window_s, in->scope,
		in->backend, in->clock);
	fprintf(f, "%-20s %10s %6s  %10s %10s %10s\n", "", "time", "share", "p50", "p99", "max");
	human(t, sizeof(t), (double)in->running_ns / 1e3);
	fprintf(f, "%-20s %10s %5.0f%%\n", "running", t, 100 * v->running);
	human(t, sizeof(t), (double)in->runq_ns / 1e3);
	fprintf(f, "%-20s %10s %5.0f%%", "waiting for a CPU", t, 100 * v->waiting);
	tail_cols(f, in->runq);
	human(t, sizeof(t), (double)in->blocked_ns / 1e3);
	fprintf(f, "%-20s %10s %5.0f%%", "blocked", t, 100 * v->blocked);
	tail_cols(f, in->blocked);
	if (in->blocked_ns) {
		double total = (double)in->running_ns + (double)in->runq_ns +
			       (double)in->blocked_ns;

		human(t, sizeof(t), (double)in->blocked_d_ns / 1e3);
		fprintf(f, "  %-18s %10s %5.0f%%\n", "uninterruptible (D)", t,
			100 * (double)in->blocked_d_ns / total);
		human(t, sizeof(t), (double)in->blocked_s_ns / 1e3);
		fprintf(f, "  %-18s %10s %5.0f%%\n", "asleep (S)", t,
			100 * (double)in->blocked_s_ns / total);
	}
	if (in->parent_wait_ns) {
		human(t, sizeof(t), (double)in->parent_wait_ns / 1e3);
		fprintf(f, "%-20s %10s %6s", "parents waiting", t, "-");
		if (in->parent_waits)
			tail_cols(f, in->parent_waits);
		else
			fputc('\n', f);
		fputs("# parents waiting: blocked in processes that started processes of their "
		      "own (waiting for their children, whose time tells): not in the shares, "
		      "nor in blocked's time or tail\n", f);
	}
	if (in->nrows)
		print_rows(f, in);
	fputs("\npressure (some, share of the window):", f);
	for (i = 0; i < PSI_N; i++) {
		double s = psi_share(in, i);

		if (s >= 0)
			fprintf(f, " %s %.1f%%", psi_names[i], 100 * s);
		else
			fprintf(f, " %s n/a", psi_names[i]);
	}
	fputc('\n', f);
	if (in->have_throttle) {
		human(t, sizeof(t), (double)in->throttled_ns / 1e3);
		fprintf(f, "cpu throttling: %" PRIu64 " of %" PRIu64 " periods, %s\n",
			in->nr_throttled, in->periods, t);
	}
	if (in->unclaimed >= 0)
		fprintf(f, "unclaimed CPU: %.1f%% of CPU time idle while these threads waited on "
			"another CPU's run queue\n", 100 * in->unclaimed);
	/* where some CPUs' state is not known, only what the share is at least says so */
	if (in->unclaimed >= 0 && in->th.unclaimed &&
	    100 * (in->unclaimed_partial ? in->unclaimed_min : in->unclaimed) >= in->th.unclaimed)
		fprintf(f, "# note: work waited while CPUs idled (%s%.1f%% >= %u%%): CPU affinity "
			"(taskset, cpusets) or slow load balancing keeps it off the idle CPUs; "
			"offcpu-ftrace runqlen -O -C shows which queues\n",
			in->unclaimed_partial ? "at least " : "",
			100 * (in->unclaimed_partial ? in->unclaimed_min : in->unclaimed),
			in->th.unclaimed);
	print_steal(f, in);
	if (in->recovered)
		fprintf(f, "# %" PRIu64 " context switch%s the sched_switch tracepoint did not "
			"record, taken from perf's context-switch records\n", in->recovered,
			in->recovered == 1 ? "" : "es");
	open_blocks_print_text(f, in->open);
	if (in->unclaimed >= 0 && in->unclaimed_partial)
		fprintf(f, "# partial: the unclaimed share lies between %.1f%% and %.1f%%: the trace "
			"did not show the state of %.3f CPU-s%s\n", 100 * in->unclaimed_min,
			100 * in->unclaimed_max, (double)in->cpu_unknown_ns / 1e9, in->cpu_proc ?
			", which /proc/stat's idle time bounds (runqlen -O says which CPUs)" :
			"; /proc/stat's idle time, which would bound it, is not known here");
	/* (partial for the CPU state alone: the line above) */
	if (in->partial && (in->lost || in->missed_switch || in->unmeasured || in->inferred ||
			    !in->cpu_unknown_ns))
		fprintf(f, "# partial: %" PRIu64 " event%s lost, %" PRIu64 " context switch%s "
			"missing from the trace, %" PRIu64 " wait%s not measured, %" PRIu64
			" off-CPU interval%s inferred: shares are approximate\n",
			in->lost, in->lost == 1 ? "" : "s",
			in->missed_switch, in->missed_switch == 1 ? "" : "es",
			in->unmeasured, in->unmeasured == 1 ? "" : "s",
			in->inferred, in->inferred == 1 ? "" : "s");
	if (in->sampling)
		sampled_print_footer(f, in->sampling, in->command_cpu_ns);
	fprintf(f, "\nverdict: %s: %s\nnext: %s\n", v->name, v->why, v->next);
}

static void json_hist(FILE *f, const char *name, const struct hist *h)
{
	fprintf(f, ",\"%s\":{\"count\":%" PRIu64 ",\"sum_ns\":%" PRIu64 ",\"p50\":%" PRIu64
		",\"p99\":%" PRIu64 ",\"max\":%" PRIu64 ",\"buckets\":[", name, h->count,
		h->sum_ns, hist_percentile(h, 50), hist_percentile(h, 99), h->max);
	for (int k = hist_min_slot(h), first = 1; k >= 0 && k <= hist_max_slot(h); k++, first = 0)
		fprintf(f, "%s{\"low\":%" PRIu64 ",\"high\":%" PRIu64 ",\"count\":%" PRIu64 "}",
			first ? "" : ",", hist_slot_low((unsigned)k), hist_slot_high((unsigned)k),
			h->slot[k]);
	fputs("]}", f);
}

static void json_rows(FILE *f, const struct triage_in *in)
{
	size_t i;

	fprintf(f, ",\"cgroups_lost\":%" PRIu64 ",\"cgroups\":[", in->rows_lost);
	for (i = 0; i < in->nrows; i++) {
		const struct triage_row *r = &in->rows[i];

		fprintf(f, "%s{\"cgroup\":", i ? "," : "");
		json_str(f, r->name, 256);
		fputs(",\"path\":", f);
		json_str_or_null(f, r->path, 4096);
		fprintf(f, ",\"time_ns\":{\"running\":%" PRIu64 ",\"waiting\":%" PRIu64
			",\"blocked\":%" PRIu64 "},\"share\":{\"running\":%.4f,\"waiting\":%.4f,"
			"\"blocked\":%.4f},\"blocked_ns\":{\"uninterruptible\":%" PRIu64
			",\"asleep\":%" PRIu64 ",\"parents_waiting\":%" PRIu64 "}", r->running_ns,
			r->runq_ns, r->blocked_ns, r->v.running, r->v.waiting, r->v.blocked,
			r->blocked_d_ns, r->blocked_s_ns, r->parent_wait_ns);
		json_hist(f, "runq", r->runq);
		json_hist(f, "blocked", r->blocked);
		fprintf(f, ",\"verdict\":{\"kind\":\"%s\",\"why\":", r->v.name);
		json_str(f, r->v.why, sizeof(r->v.why));
		fputs("}}", f);
	}
	fputc(']', f);
}

static void print_json(FILE *f, const struct triage_in *in, const struct verdict *v)
{
	char steal[24] = "null";
	unsigned i;

	if (in->steal_known)
		snprintf(steal, sizeof(steal), "%" PRIu64, in->steal_ns);

	fputs("{\"command\":\"triage\",\"scope\":", f);
	json_str(f, in->scope, 512);
	fprintf(f, ",\"backend\":\"%s\",\"clock\":\"%s\",\"unit\":\"usecs\",\"window\":"
		"{\"duration_s\":%.6f,\"steal_ns\":%s},\"time_ns\":{\"running\":%" PRIu64 ",\"waiting\":%"
		PRIu64 ",\"blocked\":%" PRIu64 "},\"share\":{\"running\":%.4f,\"waiting\":%.4f,"
		"\"blocked\":%.4f},\"blocked_ns\":{\"uninterruptible\":%" PRIu64 ",\"asleep\":%"
		PRIu64 ",\"parents_waiting\":%" PRIu64 "}", in->backend, in->clock, in->window_s,
		steal, in->running_ns, in->runq_ns, in->blocked_ns, v->running, v->waiting, v->blocked,
		in->blocked_d_ns, in->blocked_s_ns, in->parent_wait_ns);
	json_hist(f, "runq", in->runq);
	json_hist(f, "blocked", in->blocked);
	if (in->parent_waits)
		json_hist(f, "parents_waiting", in->parent_waits);
	fputs(",\"psi\":{", f);
	for (i = 0; i < PSI_N; i++) {
		double s = psi_share(in, i);

		fprintf(f, "%s\"%s\":", i ? "," : "", psi_names[i]);
		if (s < 0)
			fputs("null", f);
		else
			fprintf(f, "{\"some_share\":%.4f,\"some_us\":%" PRIu64 ",\"full_us\":%" PRIu64
				"}", s, in->psi_after.some_us[i] - in->psi_before.some_us[i],
				in->psi_after.full_us[i] - in->psi_before.full_us[i]);
	}
	fputs("},\"throttle\":", f);
	if (in->have_throttle)
		fprintf(f, "{\"periods\":%" PRIu64 ",\"nr_throttled\":%" PRIu64
			",\"throttled_ns\":%" PRIu64 "}", in->periods, in->nr_throttled,
			in->throttled_ns);
	else
		fputs("null", f);
	if (in->unclaimed >= 0)
		fprintf(f, ",\"unclaimed_share\":%.6f,\"unclaimed_min\":%.6f,\"unclaimed_max\":%.6f"
			",\"cpu_state_unknown_ns\":%" PRIu64, in->unclaimed, in->unclaimed_min,
			in->unclaimed_max, in->cpu_unknown_ns);
	else
		fputs(",\"unclaimed_share\":null,\"unclaimed_min\":null,\"unclaimed_max\":null"
		      ",\"cpu_state_unknown_ns\":null", f);
	fprintf(f, ",\"lost\":%" PRIu64 ",\"missed_switch\":%" PRIu64 ",\"unmeasured\":%"
		PRIu64 ",\"inferred\":%" PRIu64 ",\"switch_records\":%" PRIu64
		",\"partial\":%s", in->lost, in->missed_switch, in->unmeasured, in->inferred,
		in->recovered, in->partial ? "true" : "false");
	open_blocks_print_json(f, in->open);
	if (in->sampling)
		sampled_print_json(f, in->sampling, in->command_cpu_ns);
	if (in->nrows)
		json_rows(f, in);
	fprintf(f, ",\"thresholds\":{\"runq_tail_us\":%" PRIu64 ",\"runq_share\":%u,"
		"\"blocked_share\":%u,\"oncpu_share\":%u,\"throttle_share\":%u,"
		"\"wait_demand\":%u,\"unclaimed\":%u}", in->th.runq_tail_us, in->th.runq_share,
		in->th.blocked_share, in->th.oncpu_share, in->th.throttle_share,
		in->th.wait_demand, in->th.unclaimed);
	fprintf(f, ",\"verdict\":{\"kind\":\"%s\",\"why\":", v->name);
	json_str(f, v->why, sizeof(v->why));
	fputs(",\"next\":", f);
	json_str(f, v->next, sizeof(v->next));
	fputs("}}\n", f);
}

/* --by cgroup: a row's labels, 'command="triage",cgroup="NAME"' */
static void row_labels(char *buf, size_t len, const struct triage_row *r)
{
	FILE *m = fmemopen(buf, len, "w");

	if (!m) {
		buf[0] = '\0';
		return;
	}
	fputs("command=\"triage\",cgroup=\"", m);
	om_label_value(m, r->name, 256);
	fputs("\"", m);
	fputc('\0', m);
	fclose(m);
	buf[len - 1] = '\0';
}

static void om_shares(FILE *f, const char *lab, const struct verdict *v)
{
	fprintf(f, "offcpu_ftrace_time_share{%s,state=\"running\"} %.4f\n"
		"offcpu_ftrace_time_share{%s,state=\"waiting\"} %.4f\n"
		"offcpu_ftrace_time_share{%s,state=\"blocked\"} %.4f\n", lab, v->running, lab,
		v->waiting, lab, v->blocked);
}

static void print_openmetrics(FILE *f, const struct triage_in *in, const struct verdict *v)
{
	enum om_family rq = in->sampling ? om_sampled(OM_RUNQ) : OM_RUNQ;
	enum om_family bl = in->sampling ? om_sampled(OM_BLOCKED) : OM_BLOCKED;
	struct om_status st;
	static const char lab[] = "command=\"triage\"";
	char rl[600];
	size_t i;

	om_family_head(f, rq);
	om_series(f, rq, lab, in->runq);
	for (i = 0; i < in->nrows; i++) {
		row_labels(rl, sizeof(rl), &in->rows[i]);
		om_series(f, rq, rl, in->rows[i].runq);
	}
	om_family_head(f, bl);
	om_series(f, bl, lab, in->blocked);
	for (i = 0; i < in->nrows; i++) {
		row_labels(rl, sizeof(rl), &in->rows[i]);
		om_series(f, bl, rl, in->rows[i].blocked);
	}
	fprintf(f, "# TYPE offcpu_ftrace_time_share gauge\n"
		"# HELP offcpu_ftrace_time_share Share of the triaged threads' time.\n");
	om_shares(f, lab, v);
	for (i = 0; i < in->nrows; i++) {
		row_labels(rl, sizeof(rl), &in->rows[i]);
		om_shares(f, rl, &in->rows[i].v);
	}
	fprintf(f, "# TYPE offcpu_ftrace_blocked_state_seconds gauge\n"
		"# UNIT offcpu_ftrace_blocked_state_seconds seconds\n"
		"# HELP offcpu_ftrace_blocked_state_seconds Blocked time by the state it began in.\n"
		"offcpu_ftrace_blocked_state_seconds{%s,state=\"D\"} %.6f\n"
		"offcpu_ftrace_blocked_state_seconds{%s,state=\"S\"} %.6f\n", lab,
		(double)in->blocked_d_ns / 1e9, lab, (double)in->blocked_s_ns / 1e9);
	if (in->unclaimed >= 0)
		fprintf(f, "# TYPE offcpu_ftrace_cpu_unclaimed_ratio gauge\n# HELP "
			"offcpu_ftrace_cpu_unclaimed_ratio Share of CPU time idle while tasks "
			"waited on another CPU (the estimate where CPU state is not known: "
			"bound=\"min\" and \"max\" bound it).\n"
			"offcpu_ftrace_cpu_unclaimed_ratio{%s} %.6f\n"
			"offcpu_ftrace_cpu_unclaimed_ratio{%s,bound=\"min\"} %.6f\n"
			"offcpu_ftrace_cpu_unclaimed_ratio{%s,bound=\"max\"} %.6f\n", lab,
			in->unclaimed, lab, in->unclaimed_min, lab, in->unclaimed_max);
	/* A gauge, not the OpenMetrics "info" type: Prometheus' own text
	 * parser (promtool check metrics, older scrapers) refuses "info". */
	fprintf(f, "# TYPE offcpu_ftrace_verdict gauge\n"
		"# HELP offcpu_ftrace_verdict The triage verdict (1 for the verdict given).\n"
		"offcpu_ftrace_verdict{%s,kind=\"%s\"} 1\n", lab, v->name);
	for (i = 0; i < in->nrows; i++) {
		row_labels(rl, sizeof(rl), &in->rows[i]);
		fprintf(f, "offcpu_ftrace_verdict{%s,kind=\"%s\"} 1\n", rl, in->rows[i].v.name);
	}
	om_status_init(&st, "triage", in->backend, in->window_s, in->wall, in->sampling);
	st.lost = in->lost;
	st.missed_switches = in->missed_switch;
	st.unmeasured = in->unmeasured;
	st.recovered = in->recovered;
	st.partial = in->partial;
	om_status_print(f, &st);
}

void triage_print(FILE *f, enum out_format fmt, const struct triage_in *in)
{
	struct verdict v;

	triage_verdict(in, &v);
	if (fmt == FMT_JSON)
		print_json(f, in, &v);
	else if (fmt == FMT_OPENMETRICS)
		print_openmetrics(f, in, &v);
	else
		print_text(f, in, &v);
	fflush(f);
}
