// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hist backend: the kernel aggregates. Synthetic events and hist
 * triggers in a private instance compute every interval in the kernel,
 * and a histogram keyed by the exact value (in buckets of the output
 * unit, so the floor-log2 buckets come out exact in user space) is read
 * back at the end of each interval. Only a summary crosses into user space.
 *
 * run-queue latency, with runqlat's rules:
 *   sched_wakeup, sched_wakeup_new, sched_switch (preempted prev)
 *       -> onchange($t).trace(<p>start, pid, $t)    one start per thread:
 *   synthetic/<p>start: hist:keys=pid:ts0=ts        the last one wins
 *   sched_switch: hist:keys=next_pid:lat=common_timestamp-$ts0
 *       :onmatch(synthetic.<p>start).trace(<p>lat, next_pid, next_comm, lat)
 *   synthetic/<p>lat: hist:keys=[pid|cpu,]lat.buckets=UNIT:vals=hitcount,lat
 *   synthetic/<p>lat: hist:keys=pid,comm:vals=hitcount   (per-thread keys:
 *       the names, exited threads included)
 * off-CPU time:
 *   the same, with sched_switch (prev_state in --state) as the only start
 *
 * Triggers that define variables cannot be paused and continued (the
 * kernel parses the command again and refuses the variable as defined
 * twice), so the window opens by creating them, and closes by pausing the
 * result histogram, which has none. Every trigger and synthetic event is
 * recorded in the undo list before it is written, so teardown removes
 * them in reverse (dependency) order.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "tmount.h"
#include "errf.h"
#include "fileread.h"
#include "grow.h"
#include "analyzer.h"
#include "backend.h"
#include "tracefs_backends.h"
#include "fmt.h"
#include "fmtload.h"
#include "trigfeed.h"
#include "tfs_caps.h"
#include "procfs.h"
#include "tfs.h"

#define MAX_TRIGGERS 8
#define HIST_SIZE "32768"	/* entries of the result map; overflow is "Dropped" */
#define MAP_SIZE "16384"	/* threads in the maps that hold starts (2048 default) */

struct trig {
	char event[64];		/* "sched/sched_switch" */
	char *base;		/* "hist:..." without :pause and without the filter */
	char *filter;		/* " if ...", or "" */
	bool entry;		/* written when the window first opens */
	uint64_t dropped;	/* the event's hist file's Dropped sum, last read */
	bool result;		/* the histogram read back; paused between windows */
	bool written;
};

struct backend {
	struct tfs_undo_list undo;
	struct tracefs_instance *inst;
	char root[PATH_MAX];
	char prefix[32];	/* "ofr_<pid>_" */
	struct sched_layout layout;
	bool layout_ok;
	struct trig trig[MAX_TRIGGERS];
	unsigned ntrig;
	unsigned modes;
	int key;
	uint64_t unit_ns;
	bool paused;		/* the result histogram */
	char why[768];		/* why start() failed */
	char comm[COMM_LEN];	/* -c: the kernel kept only these */
	char stack_key[32];	/* offcpu -K: "common_stacktrace" or "stacktrace" */
	char **frames;		/* -K: distinct frame names; token = index + 1 */
	uint32_t nframes;
	size_t cap_frames;
	uint64_t dropped;	/* intervals the kernel's full maps dropped, cumulative */
};

/* Thread names for the result: -c's when the kernel filtered by it */
static int comm_of(int32_t tid, char *buf, size_t len, void *arg)
{
	const struct backend *b = arg;

	if (b->comm[0]) {
		snprintf(buf, len, "%s", b->comm);
		return 0;
	}
	return proc_comm(tid, buf, len);
}

/*
 * -K: the kernel prints frames as "func+0x61f/0xbe0 [module]"; keep
 * "func [module]" as ksyms_format() would, once, and hand out its index.
 */
static uint64_t frame_token(const char *text, void *arg)
{
	struct backend *b = arg;
	const char *plus = strchr(text, '+'), *mod = strchr(text, '[');
	char name[256], **v;
	uint32_t i;

	snprintf(name, sizeof(name), "%.*s%s%s", (int)(plus ? (size_t)(plus - text) :
		 strcspn(text, " ")), text, mod ? " " : "", mod ? mod : "");
	for (i = 0; i < b->nframes; i++)	/* a few hundred names at most */
		if (!strcmp(b->frames[i], name))
			return i + 1;
	v = mem_grow_from(b->frames, &b->cap_frames, b->nframes, sizeof(*v), 256);
	if (!v)
		return 0;
	b->frames = v;
	b->frames[b->nframes] = strdup(name);
	if (!b->frames[b->nframes])
		return 0;
	return ++b->nframes;
}

static int hist_kframe(struct backend *b, uint64_t token, char *buf, size_t len)
{
	if (token == 0 || token > b->nframes) {
		snprintf(buf, len, "[unknown]");
		return -ENOENT;
	}
	snprintf(buf, len, "%s", b->frames[token - 1]);
	return 0;
}

/* The kernel's reason for a rejected command, when it keeps one. */
static void error_log(const char *root, char *buf, size_t len)
{
	char path[PATH_MAX + 16], *s, *last = NULL, *line, *save = NULL;

	snprintf(path, sizeof(path), "%s/error_log", root);
	buf[0] = '\0';
	s = file_read(path, NULL);
	for (line = s ? strtok_r(s, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save))
		if (strstr(line, "error:"))
			last = strstr(line, "error:");
	if (last)
		snprintf(buf, len, " (%s)", last);
	free(s);
}

/* A synthetic event, global: its removal recorded first. */
static int synth_add(struct backend *b, const char *name, const char *fields,
		     char *err, size_t errlen)
{
	char path[PATH_MAX + 32], def[256], undo[96], why[256];
	int ret;

	snprintf(path, sizeof(path), "%s/synthetic_events", b->root);
	snprintf(def, sizeof(def), "%s%s %s", b->prefix, name, fields);
	snprintf(undo, sizeof(undo), "!%s%s", b->prefix, name);
	ret = tfs_undo_write(&b->undo, path, undo, true);
	if (ret)
		return errf(err, errlen, ret, "undo list");
	ret = tfs_write_file(path, def, true);
	if (ret) {
		tfs_undo_drop_last(&b->undo);
		error_log(b->root, why, sizeof(why));
		return errf(err, errlen, ret, "cannot define synthetic event '%s'%s", def, why);
	}
	return 0;
}

static int trig_write(struct backend *b, struct trig *t, char *err, size_t errlen);

/* A trigger in our instance: its removal recorded before it is written. */
__attribute__((format(printf, 6, 7)))
static int trig_add(struct backend *b, const char *event, unsigned flags,
		    char *err, size_t errlen, const char *fmt, ...)
{
	struct trig *t = &b->trig[b->ntrig];
	char text[1024], *cut;
	va_list ap;

	if (b->ntrig == MAX_TRIGGERS)
		return errf(err, errlen, -ENOSPC, "too many triggers");
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(t->event, sizeof(t->event), "%s", event);
	/* modifiers (:pause, :cont, :clear) go before the filter */
	cut = strstr(text, " if ");
	t->filter = strdup(cut ? cut : "");
	if (cut)
		*cut = '\0';
	/* maps keyed by thread: one entry per thread seen in the whole run */
	if (!(flags & 2))
		snprintf(text + strlen(text), sizeof(text) - strlen(text), ":size=" MAP_SIZE);
	t->base = strdup(text);
	if (!t->base || !t->filter)
		return errf(err, errlen, -ENOMEM, "trigger");
	t->entry = flags & 1;
	t->result = flags & 2;
	b->ntrig++;
	/* entry triggers are written when the window opens */
	if (t->entry)
		return 0;
	return trig_write(b, t, err, errlen);
}

static int trig_write(struct backend *b, struct trig *t, char *err, size_t errlen)
{
	char rel[160], *path, text[1100], undo[1100], why[256];
	int ret;

	snprintf(rel, sizeof(rel), "events/%s/trigger", t->event);
	path = tracefs_instance_get_file(b->inst, rel);
	if (!path)
		return errf(err, errlen, -ENOMEM, "trigger");
	snprintf(undo, sizeof(undo), "!%s%s", t->base, t->filter);
	ret = tfs_undo_write(&b->undo, path, undo, true);
	if (!ret) {
		snprintf(text, sizeof(text), "%s%s", t->base, t->filter);
		ret = tfs_write_file(path, text, true);
		if (ret)
			tfs_undo_drop_last(&b->undo);
	}
	tracefs_put_tracing_file(path);
	if (ret) {
		error_log(b->root, why, sizeof(why));
		return errf(err, errlen, ret, "the kernel refused the trigger '%s%s' on %s%s",
			    t->base, t->filter, t->event, why);
	}
	t->written = true;
	return 0;
}

static int trig_cmd(struct backend *b, struct trig *t, const char *suffix)
{
	char rel[160], *path, text[1100];
	int ret;

	snprintf(rel, sizeof(rel), "events/%s/trigger", t->event);
	path = tracefs_instance_get_file(b->inst, rel);
	if (!path)
		return -ENOMEM;
	snprintf(text, sizeof(text), "%s%s%s", t->base, suffix, t->filter);
	ret = tfs_write_file(path, text, true);
	tracefs_put_tracing_file(path);
	return ret;
}

/*
 * -t and -c as filter terms on the start triggers (no start, no
 * interval): " && pid == T && comm == \"NAME\"" with @pid and @comm the
 * event's field names. -p stays in user space: the kernel cannot follow
 * a process's new threads into a filter.
 */
static void who(const struct trace_req *req, const char *pid, const char *comm,
		char *out, size_t len)
{
	out[0] = '\0';
	if (req->npids == 1 && !req->follow_fork)
		snprintf(out, len, " && %s == %d", pid, (int)req->pids[0]);
	if (req->comm)
		snprintf(out + strlen(out), len - strlen(out), " && %s == \"%s\"", comm, req->comm);
}

/*
 * Shared by both modes: a switch-out that passes @out_filter starts an
 * interval (as do the wakeups setup_runq() adds before), the switch-in
 * of the same thread closes it. Every start goes through the <p>start
 * synthetic event, so one closing trigger serves all of them and the
 * last start wins.
 */
static int close_at_switch_in(struct backend *b, const char *out_filter, const char *in_filter,
			      char *err, size_t errlen)
{
	const char *p = b->prefix;
	char ev[64];
	int ret;

	ret = trig_add(b, "sched/sched_switch", 1, err, errlen,
		       "hist:keys=prev_pid:t=common_timestamp:clock=mono:onchange($t)"
		       ".trace(%sstart,prev_pid,$t) if %s", p, out_filter);
	snprintf(ev, sizeof(ev), "synthetic/%sstart", p);
	if (!ret)
		ret = trig_add(b, ev, 0, err, errlen, "hist:keys=pid:ts0=ts");
	if (!ret)
		ret = trig_add(b, "sched/sched_switch", 1, err, errlen,
			       "hist:keys=next_pid:lat=common_timestamp-$ts0:clock=mono"
			       ":onmatch(synthetic.%sstart).trace(%slat,next_pid,next_comm,$lat)%s", p, p,
			       in_filter);
	return ret;
}

/* runq: one start per thread (the last wins), closed at the switch-in */
static int setup_runq(struct backend *b, const struct trace_req *req, char *err, size_t errlen)
{
	const char *p = b->prefix;
	uint64_t preempt = b->layout.states.preempt_mask;
	char runnable[400], idle[24], wk[200];
	int ret;

	who(req, "pid", "comm", wk, sizeof(wk));
	/* runqlat.bt counts prev_state == 0 only, and times the idle task */
	if (req->agg.compat == COMPAT_BPFTRACE) {
		snprintf(runnable, sizeof(runnable), "prev_state == 0");
		idle[0] = '\0';
	} else {
		snprintf(runnable, sizeof(runnable), "prev_pid != 0 && (prev_state == 0 || "
			 "prev_state == %llu)", (unsigned long long)preempt);
		snprintf(idle, sizeof(idle), " if next_pid != 0");
	}
	who(req, "prev_pid", "prev_comm", runnable + strlen(runnable),
	    sizeof(runnable) - strlen(runnable));
	ret = trig_add(b, "sched/sched_wakeup", 1, err, errlen,
		       "hist:keys=pid:t=common_timestamp:clock=mono:onchange($t).trace(%sstart,pid,$t)"
		       " if pid != 0%s", p, wk);
	if (!ret && b->layout.id[SEV_WAKEUP_NEW] >= 0)
		ret = trig_add(b, "sched/sched_wakeup_new", 1, err, errlen,
			       "hist:keys=pid:t=common_timestamp:clock=mono:onchange($t)"
			       ".trace(%sstart,pid,$t) if pid != 0%s", p, wk);
	return ret ? ret : close_at_switch_in(b, runnable, idle, err, errlen);
}

/* offcpu: switch-out to switch-in; --state filters the start */
static int setup_offcpu(struct backend *b, const struct trace_req *req, char *err, size_t errlen)
{
	const struct sched_states *st = &b->layout.states;
	uint64_t dead = sched_states_mask(st, "XZ"), bits = 0;
	char filter[512];
	bool r = false;

	/* the filter grammar has "x & m" and "!(...)", not "(x & m) == 0" (EPERM) */
	snprintf(filter, sizeof(filter), "prev_pid != 0 && !(prev_state & %llu)",
		 (unsigned long long)dead);
	if (req->stack_states) {
		const char *c;

		for (c = req->stack_states; *c; c++) {
			char one[2] = { *c, 0 };

			if (*c == 'R')
				r = true;
			else if (*c != ',')
				bits |= sched_states_mask(st, one);
		}
		snprintf(filter + strlen(filter), sizeof(filter) - strlen(filter),
			 " && (prev_state & %llu%s", (unsigned long long)bits, r ? "" : ")");
		if (r)
			snprintf(filter + strlen(filter), sizeof(filter) - strlen(filter),
				 " || prev_state == 0 || prev_state == %llu)",
				 (unsigned long long)st->preempt_mask);
	}
	who(req, "prev_pid", "prev_comm", filter + strlen(filter), sizeof(filter) - strlen(filter));
	if (req->kstack) {
		/*
		 * The stack rides in a variable from the switch-out to the
		 * switch-in (6.3+), matched on the same event.
		 */
		int ret = trig_add(b, "sched/sched_switch", 1, err, errlen,
				   "hist:keys=prev_pid:ts0=common_timestamp,st0=%s:clock=mono if %s",
				   b->stack_key, filter);

		if (!ret)
			ret = trig_add(b, "sched/sched_switch", 1, err, errlen,
				       "hist:keys=next_pid:lat=common_timestamp-$ts0,s=$st0:clock=mono"
				       ":onmatch(sched.sched_switch).trace(%slat,next_pid,next_comm,$lat,$s)"
				       " if next_pid != 0", b->prefix);
		return ret;
	}
	return close_at_switch_in(b, filter, "", err, errlen);
}

/* The result: exact values in buckets of the unit, with their sum */
static int setup_result(struct backend *b, const struct trace_req *req, char *err, size_t errlen)
{
	char ev[64], key[16], range[96] = "";
	int ret;

	snprintf(ev, sizeof(ev), "synthetic/%slat", b->prefix);
	snprintf(key, sizeof(key), "%s", b->key == KEY_CPU ? "cpu," : b->key == KEY_NONE &&
		 req->npids == 0 ? "" : "pid,");
	if ((req->agg.modes & AN_OFFCPU) && (req->agg.off_min_ns || req->agg.off_max_ns != UINT64_MAX))
		snprintf(range, sizeof(range), " if lat >= %llu && lat <= %llu",
			 (unsigned long long)req->agg.off_min_ns, (unsigned long long)req->agg.off_max_ns);
	ret = trig_add(b, ev, 2, err, errlen, "hist:keys=%slat.buckets=%llu:vals=hitcount,lat"
		       ":sort=lat:size=" HIST_SIZE "%s", key, (unsigned long long)b->unit_ns, range);
	/*
	 * Thread names as they switched in, so threads that exit before the
	 * window's end are named too (/proc no longer has them)
	 */
	if (!ret && key[0] == 'p')
		ret = trig_add(b, ev, 2, err, errlen, "hist:keys=pid,comm:vals=hitcount:size="
			       HIST_SIZE "%s", range);
	/* -K: time by (thread, kernel stack), in the same hist file */
	if (!ret && req->kstack)
		ret = trig_add(b, ev, 2, err, errlen, "hist:keys=pid,stack.stacktrace"
			       ":vals=hitcount,lat:sort=lat.descending:size=" HIST_SIZE "%s", range);
	return ret;
}

static int hist_open(struct backend **out, const struct trace_req *req, char *err, size_t errlen)
{
	struct backend *b = calloc(1, sizeof(*b));
	struct tfs_caps *caps;
	char path[PATH_MAX + 32], *synth;
	int ret;

	*out = b;
	if (!b)
		return errf(err, errlen, -ENOMEM, "hist backend");
	b->modes = req->agg.modes;
	b->key = req->agg.key;
	snprintf(b->comm, sizeof(b->comm), "%s", req->comm ? req->comm : "");
	b->unit_ns = req->agg.unit_ns ? req->agg.unit_ns : 1000;
	ret = tmount_find(req->tracefs, b->root, sizeof(b->root), err, errlen);
	if (ret)
		return ret;
	caps = calloc(1, sizeof(*caps));
	if (!caps)
		return errf(err, errlen, -ENOMEM, "hist backend");
	tfs_caps_probe(req->tracefs, caps);
	ret = caps->hist && caps->synth && caps->buckets && caps->writable ? 0 : -EOPNOTSUPP;
	if (ret)
		snprintf(err, errlen, "the hist backend cannot run: %s", !caps->writable ?
			 "tracefs is not writable" : !(caps->hist && caps->synth) ?
			 "this kernel has no hist triggers or synthetic events "
			 "(CONFIG_HIST_TRIGGERS, CONFIG_SYNTH_EVENTS)" :
			 "this kernel's hist triggers have no .buckets modifier (5.15 and later)");
	else if (req->ustack || (req->kstack && (!caps->synth_stack || !caps->stack_key ||
						 !(req->agg.modes & AN_OFFCPU)))) {
		ret = -EOPNOTSUPP;
		snprintf(err, errlen, "the hist backend cannot run: %s", req->ustack ?
			 "user stacks are read in user space (use --backend=ring)" :
			 "this kernel cannot pass stacks through synthetic events (6.3+; "
			 "use --backend=ring)");
	} else if (caps->stack_key) {
		snprintf(b->stack_key, sizeof(b->stack_key), "%s", caps->stack_key);
	}
	free(caps);
	if (ret)
		return ret;
	ret = sched_layout_load(&b->layout, &b->layout_ok, b->root, FMTLOAD_HEADER_PAGE,
				err, errlen);
	if (ret)
		return ret;
	/* synthetic events are global: names carry our pid (cleanup finds them) */
	snprintf(b->prefix, sizeof(b->prefix), "ofr_%d_", (int)getpid());
	snprintf(path, sizeof(path), "%s/synthetic_events", b->root);
	synth = file_read(path, NULL);
	if (synth && strstr(synth, b->prefix)) {
		free(synth);
		snprintf(err, errlen, "synthetic events named %s* exist already: run "
			 "'offcpu-ftrace cleanup'", b->prefix);
		return -EEXIST;
	}
	free(synth);
	ret = tfs_instance_new(&b->undo, b->root, &b->inst, err, errlen);
	if (ret)
		return ret;
	tfs_inst_write(b->inst, "tracing_on", "0");
	if (tfs_inst_write(b->inst, "trace_clock", "mono"))
		tfs_inst_write(b->inst, "trace_clock", "global");
	if ((!req->kstack && (ret = synth_add(b, "start", "pid_t pid; u64 ts", err, errlen))) ||
	    (ret = synth_add(b, "lat", req->kstack ?
			     "pid_t pid; char comm[16]; u64 lat; unsigned long[] stack" :
			     "pid_t pid; char comm[16]; u64 lat", err, errlen)))
		return ret;
	ret = (req->agg.modes & AN_RUNQ) ? setup_runq(b, req, err, errlen) :
	      setup_offcpu(b, req, err, errlen);
	if (!ret)
		ret = setup_result(b, req, err, errlen);
	return ret;
}

static struct trig *result_trig(struct backend *b)
{
	unsigned i;

	for (i = 0; i < b->ntrig; i++)
		if (b->trig[i].result)
			return &b->trig[i];
	return NULL;
}

/* :pause, :cont or :clear every result histogram */
static int results_cmd(struct backend *b, const char *suffix)
{
	unsigned i;
	int ret = 0;

	for (i = 0; i < b->ntrig && !ret; i++)
		if (b->trig[i].result && b->trig[i].written)
			ret = trig_cmd(b, &b->trig[i], suffix);
	return ret;
}

/*
 * The window opens by writing the entry triggers (the first time) or by
 * continuing the result histogram, and closes by pausing it.
 */
static int hist_start(struct backend *b)
{
	unsigned i;
	int ret = 0;

	b->why[0] = '\0';
	for (i = 0; i < b->ntrig && !ret; i++)
		if (b->trig[i].entry && !b->trig[i].written)
			ret = trig_write(b, &b->trig[i], b->why, sizeof(b->why));
	if (!ret && b->paused) {
		ret = results_cmd(b, ":cont");
		b->paused = !!ret;
	}
	return ret;
}

static const char *hist_why(struct backend *b)
{
	return b->why;
}

static int hist_stop(struct backend *b)
{
	int ret = results_cmd(b, ":pause");

	if (!ret)
		b->paused = true;
	return ret;
}

static int hist_wait(struct backend *b, int timeout_ms)
{
	struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };

	(void)b;
	nanosleep(&ts, NULL);
	return 0;
}

static int hist_read(struct backend *b, uint64_t limit, bool drain, sched_ev_cb cb, void *arg)
{
	(void)b, (void)limit, (void)drain, (void)cb, (void)arg;
	return 0;	/* nothing streams: collect() reads the result */
}

/*
 * Starts lost because a map holding them was full (MAP_SIZE threads):
 * their intervals are missing from the result. Those maps are never
 * cleared (their triggers hold variables), so count what grew since the
 * last read. One hist file shows every hist trigger on its event: read
 * each event once, through its first trigger.
 */
static uint64_t maps_dropped(struct backend *b)
{
	uint64_t grew = 0;
	unsigned i, j;

	for (i = 0; i < b->ntrig; i++) {
		struct trig *t = &b->trig[i];
		char rel[160], *path, *text, *p;
		uint64_t sum = 0;

		if (t->result || !t->written)
			continue;
		for (j = 0; j < i && strcmp(b->trig[j].event, t->event); j++)
			;
		if (j < i)
			continue;
		snprintf(rel, sizeof(rel), "events/%s/hist", t->event);
		path = tracefs_instance_get_file(b->inst, rel);
		text = path ? file_read(path, NULL) : NULL;
		tracefs_put_tracing_file(path);
		for (p = text; p && (p = strstr(p, "\n    Dropped: ")); p++)
			sum += strtoull(p + 14, NULL, 10);
		free(text);
		if (sum > t->dropped)
			grew += sum - t->dropped;
		t->dropped = sum;
	}
	return grew;
}

/* Read the result histogram into @an, then clear it for the next interval. */
static int hist_collect(struct backend *b, struct analyzer *an, char *err, size_t errlen)
{
	struct trigfeed_ops ops = { .comm_of = comm_of, .frame = frame_token, .arg = b };
	struct trig *res = result_trig(b);
	unsigned mode = (b->modes & AN_RUNQ) ? AN_RUNQ : AN_OFFCPU;
	char rel[160], *path, *text;
	size_t len;
	int ret;

	if (!res)
		return errf(err, errlen, -EINVAL, "no result trigger");
	snprintf(rel, sizeof(rel), "events/%s/hist", res->event);
	path = tracefs_instance_get_file(b->inst, rel);
	if (!path)
		return errf(err, errlen, -ENOMEM, "hist");
	text = file_read(path, &len);
	tracefs_put_tracing_file(path);
	if (!text)
		return errf(err, errlen, -errno, "cannot read the %s hist file", res->event);
	ret = trigfeed(text, len, an, mode, b->unit_ns, &ops, &b->dropped, err, errlen);
	free(text);
	if (!ret)
		b->dropped += maps_dropped(b);
	return ret ? ret : results_cmd(b, ":clear");
}

static const char *hist_clock(struct backend *b, bool *is_mono)
{
	(void)b;
	if (is_mono)
		*is_mono = true;
	return "mono";
}

static unsigned hist_lost(struct backend *b, uint64_t *lost, unsigned max)
{
	(void)b, (void)lost, (void)max;
	return 0;	/* map overflow is counted as "dropped" by collect() */
}

static const struct sched_states *hist_states(struct backend *b)
{
	return &b->layout.states;
}

static unsigned hist_events(struct backend *b)
{
	return sched_layout_events(&b->layout, b->layout_ok, false, false);
}

static int hist_close(struct backend *b, char *err, size_t errlen)
{
	unsigned i, failed;

	if (!b)
		return 0;
	if (b->inst && result_trig(b) && result_trig(b)->written)
		hist_stop(b);
	/* triggers, then the instance, then the synthetic events */
	failed = tfs_undo_run(&b->undo);
	for (i = 0; i < b->ntrig; i++) {
		free(b->trig[i].base);
		free(b->trig[i].filter);
	}
	for (i = 0; i < b->nframes; i++)
		free(b->frames[i]);
	free(b->frames);
	if (b->layout_ok)
		fmt_fini(&b->layout);
	if (failed)
		snprintf(err, errlen, "could not remove all of %s's triggers, instance or "
			 "synthetic events (%s*): run 'offcpu-ftrace cleanup'", b->root, b->prefix);
	free(b);
	return failed ? -EBUSY : 0;
}

static uint64_t hist_dropped(struct backend *b)
{
	return b->dropped;
}

const struct backend_ops hist_backend_ops = {
	.name = "hist",
	.caps = BCAP_SUMS,
	.source = "aggregated in the kernel by hist triggers and synthetic events",
	.open = hist_open,
	.start = hist_start,
	.stop = hist_stop,
	.wait = hist_wait,
	.read = hist_read,
	.clock = hist_clock,
	.lost = hist_lost,
	.states = hist_states,
	.events = hist_events,
	.collect = hist_collect,
	.dropped = hist_dropped,
	.kframe = hist_kframe,
	.why = hist_why,
	.close = hist_close,
};
