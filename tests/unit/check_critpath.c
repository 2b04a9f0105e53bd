// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * profile --critical-path as a unit: the cases of issue #40 as synthetic
 * sched event sequences, fed to the analyzer with the mode subscribed and
 * printed as JSON (read back), text and folded lines; and the walk alone
 * on made-up timelines (the memory cap, a cycle of wakes).
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cli.h"
#include "cptl.h"
#include "fixture.h"
#include "jsonread.h"

#define S_SLEEP 0x1
#define D_DISK 0x2
#define X_DEAD 0x10
#define PREEMPT 0x100
#define US 1000ULL
#define MS 1000000ULL

static struct trace_opts o;
static struct analyzer an;
static void *state;
static int32_t on_cpu[4];
static int32_t root;

static struct sched_states states(void)
{
	struct sched_states st = { .preempt_mask = PREEMPT, .nletters = 3 };

	st.letter[0].bit = S_SLEEP;
	st.letter[0].letter = 'S';
	st.letter[1].bit = D_DISK;
	st.letter[1].letter = 'D';
	st.letter[2].bit = X_DEAD;
	st.letter[2].letter = 'X';
	return st;
}

/* kernel frames by address: a stack is a list of these */
static const char *const kname[] = {
	[1] = "__traceiter_sched_switch", [2] = "__schedule", [3] = "schedule",
	[4] = "do_nanosleep", [5] = "hrtimer_nanosleep", [6] = "__x64_sys_clock_nanosleep",
	[7] = "do_wait", [8] = "kernel_wait4", [9] = "io_schedule",
	[10] = "folio_wait_bit_common", [11] = "filemap_write_and_wait_range",
	[12] = "pipe_read", [13] = "vfs_read", [14] = "hrtimer_wakeup",
	[15] = "__hrtimer_run_queues", [16] = "hrtimer_interrupt",
	[17] = "asm_sysvec_apic_timer_interrupt", [18] = "try_to_wake_up",
	[19] = "pipe_write", [20] = "do_exit", [21] = "do_notify_parent", [22] = "worker_thread",
	[23] = "blk_mq_end_request", [24] = "sigsuspend",
};

static int kname_of(void *arg, uint64_t addr, char *buf, size_t len)
{
	(void)arg;
	if (addr < sizeof(kname) / sizeof(kname[0]) && kname[addr]) {
		snprintf(buf, len, "%s", kname[addr]);
		return 0;
	}
	snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	return -1;
}

static int uname_of(void *arg, int32_t tgid, uint64_t addr, char *buf, size_t len)
{
	(void)arg;
	(void)tgid;
	snprintf(buf, len, "u%llx", (unsigned long long)addr);
	return 0;
}

static const struct symbolizer sym = { .kernel = kname_of, .user = uname_of };

/* "profile --critical-path -- sh -c x" parsed as the tool does, the root followed */
static void start(int32_t command_root)
{
	static char a0[] = "profile", a1[] = "--critical-path", a2[] = "--", a3[] = "sh",
		    a4[] = "-c", a5[] = "x";
	static char *argv[] = { a0, a1, a2, a3, a4, a5, NULL };	/* o.command points here */
	struct an_cfg cfg;
	int fd, saved, ret;

	fflush(stderr);
	saved = dup(2);
	fd = open("/dev/null", O_WRONLY);
	dup2(fd, 2);
	ret = trace_opts_parse(&o, "profile", 6, argv);
	dup2(saved, 2);
	close(fd);
	close(saved);
	ck_assert_int_eq(ret, -1);
	ck_assert_str_eq(o.an->name, "critpath");
	root = command_root;
	memset(&cfg, 0, sizeof(cfg));
	cfg.modes = o.modes;
	cfg.unit_ns = 1000;
	cfg.pid = cfg.tid = -1;
	cfg.off_state_all = true;
	cfg.off_max_ns = UINT64_MAX;
	cfg.max_tasks = 64;
	cfg.max_groups = 16;
	cfg.max_stacks = 64;
	cfg.states = states();
	cfg.stacks = (o.kstack ? AN_KSTACK : 0) | (o.ustack ? AN_USTACK : 0);
	cfg.follow = &root;
	cfg.nfollow = 1;
	if (o.an->configure)
		o.an->configure(&o, &cfg);
	ck_assert_int_eq(analyzer_init(&an, &cfg), 0);
	state = NULL;
	ck_assert_int_eq(o.an->setup(&o, &an, &state), 0);
	ck_assert(an.want_wakers);	/* its sink needs who woke each block */
	memset(on_cpu, 0, sizeof(on_cpu));
}

static void stop(void)
{
	o.an->free(state);
	analyzer_fini(&an);
}

static void feed(struct sched_event e)
{
	analyzer_feed(&an, &e);
}

static void sw(double ms, int cpu, int prev, const char *pc, int64_t st, int next, const char *nc)
{
	feed((struct sched_event){ .ts = (uint64_t)(ms * MS), .cpu = cpu, .type = SEV_SWITCH,
				   .pid = prev, .prev_state = st, .next_pid = next, .comm = pc,
				   .next_comm = nc, .common_pid = prev });
	on_cpu[cpu] = next;
}

/* sched_waking of @tid, in the context of the task on @cpu (its waker) */
static void waking(double ms, int cpu, int tid)
{
	feed((struct sched_event){ .ts = (uint64_t)(ms * MS), .cpu = cpu, .type = SEV_WAKING,
				   .pid = tid, .common_pid = on_cpu[cpu] });
}

static void wakeup(double ms, int cpu, int tid)
{
	feed((struct sched_event){ .ts = (uint64_t)(ms * MS), .cpu = cpu, .type = SEV_WAKEUP,
				   .pid = tid, .common_pid = on_cpu[cpu] });
}

/* the task on @cpu creates @child: sched_process_fork, then sched_wakeup_new */
static void spawn(double ms, int cpu, int child)
{
	feed((struct sched_event){ .ts = (uint64_t)(ms * MS), .cpu = cpu, .type = SEV_FORK,
				   .pid = on_cpu[cpu], .next_pid = child,
				   .common_pid = on_cpu[cpu] });
	feed((struct sched_event){ .ts = (uint64_t)(ms * MS), .cpu = cpu, .type = SEV_WAKEUP_NEW,
				   .pid = child, .common_pid = on_cpu[cpu] });
}

/* the kernel stack after the event just fed on @cpu, innermost first */
static void kstack(double ms, int cpu, int tid, const uint64_t *frames, uint32_t n)
{
	feed((struct sched_event){ .ts = (uint64_t)(ms * MS), .cpu = cpu, .type = SEV_KSTACK,
				   .pid = tid, .common_pid = tid, .stack = frames,
				   .stack_depth = n });
}

static const uint64_t st_sleep[] = { 1, 2, 3, 4, 5, 6 };
static const uint64_t st_wait4[] = { 2, 3, 7, 8 };
static const uint64_t st_disk[] = { 2, 3, 9, 10, 11 };
static const uint64_t st_pipe[] = { 2, 3, 12, 13 };
static const uint64_t st_irq_wake[] = { 18, 14, 15, 16, 17 };
static const uint64_t st_sigsuspend[] = { 2, 3, 24 };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct an_view view(uint64_t lost)
{
	struct an_view v = { .o = &o, .an = &an, .backend = "test", .clock = "mono",
			     .duration_s = 1, .interval = 1, .final = true, .sym = &sym,
			     .lost = lost };

	v.events = 1u << SEV_SWITCH | 1u << SEV_WAKEUP | 1u << SEV_WAKEUP_NEW |
		   1u << SEV_WAKING | 1u << SEV_FORK | 1u << SEV_KSTACK;
	return v;
}

static char *print_view(struct an_view *v, enum out_format fmt, bool folded)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	o.folded = folded;
	ck_assert_int_eq(o.an->print(state, v, fmt, f), 0);
	fclose(f);
	o.folded = false;
	return buf;
}

/* the text with the story's wrapped lines joined ("\n  " as " "), in place */
static char *unwrap(char *text)
{
	char *r = text, *w = text;

	while (*r) {
		if (r[0] == '\n' && r[1] == ' ' && r[2] == ' ' && r[3] != ' ') {
			*w++ = ' ';
			r += 3;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return text;
}

/* the critical path's JSON: the whole output read back; caller frees with json_val_fini */
static const struct json_val *path_json(struct json_val *top, const char *text)
{
	struct json_reader jr;
	char err[128] = "";
	const struct json_val *cp;

	memset(top, 0, sizeof(*top));
	json_reader_init(&jr, text, strlen(text), 64, err, sizeof(err));
	ck_assert_msg(json_reader_value(&jr, top) == 0, "%s", err);
	cp = json_val_get(top, "critical_path");
	ck_assert_ptr_nonnull(cp);
	return cp;
}

static uint64_t num(const struct json_val *obj, const char *key)
{
	const struct json_val *v = json_val_get(obj, key);

	ck_assert_msg(v && v->t == JSON_NUM && v->is_uint, "%s is no number", key);
	return v->u;
}

static const char *str(const struct json_val *obj, const char *key)
{
	const struct json_val *v = json_val_get(obj, key);

	return v && v->t == JSON_STR ? v->s : NULL;
}

/* the segments tile [start_ns, end_ns] in time order, and add up to total_ns */
static void check_tiling(const struct json_val *cp)
{
	const struct json_val *segs = json_val_get(cp, "segments");
	uint64_t at = num(cp, "start_ns"), sum = 0;
	size_t i;

	ck_assert_ptr_nonnull(segs);
	ck_assert_uint_gt(segs->n, 0);
	for (i = 0; i < segs->n; i++) {
		ck_assert_uint_eq(num(&segs->v[i], "start_ns"), at);
		ck_assert_uint_gt(num(&segs->v[i], "end_ns"), at);
		sum += num(&segs->v[i], "duration_ns");
		at = num(&segs->v[i], "end_ns");
	}
	ck_assert_uint_eq(at, num(cp, "end_ns"));
	ck_assert_uint_eq(sum, num(cp, "total_ns"));
	ck_assert_uint_eq(sum, num(cp, "segments_ns"));
	ck_assert_uint_eq(num(cp, "on_cpu_ns") + num(cp, "runq_ns") + num(cp, "off_cpu_ns") +
			  num(cp, "unknown_ns"), sum);
}

/* by_thread's row of @tid, or NULL */
static const struct json_val *row(const struct json_val *cp, int32_t tid)
{
	const struct json_val *rows = json_val_get(cp, "by_thread");
	size_t i;

	for (i = 0; rows && i < rows->n; i++)
		if ((int64_t)num(&rows->v[i], "tid") == tid)
			return &rows->v[i];
	return NULL;
}

/* the first segment of @tid in @st ("blocked", ...), or NULL */
static const struct json_val *seg_of(const struct json_val *cp, int32_t tid, const char *st)
{
	const struct json_val *segs = json_val_get(cp, "segments");
	size_t i;

	for (i = 0; segs && i < segs->n; i++)
		if ((int64_t)num(&segs->v[i], "tid") == tid && !strcmp(str(&segs->v[i], "state"), st))
			return &segs->v[i];
	return NULL;
}

/*
 * sh -c "sleep 0.4; burst 0.3": the shell (100) forks sleep (101), waits
 * in wait4 until its exit, forks the burst (102, preempted 10 ms by
 * another task), waits again, exits. The path: the sleep blocked, then
 * the burst on CPU; the shell's wait4 is not on it.
 */
static void feed_sleep_burst(void)
{
	on_cpu[0] = 1;				/* the tracer (1) releases the command */
	waking(1, 0, 100);
	wakeup(1.01, 0, 100);
	sw(2, 1, 0, "swapper/1", 0, 100, "sh");
	spawn(3, 1, 101);
	sw(4, 1, 100, "sh", S_SLEEP, 101, "sh");
	kstack(4, 1, 100, st_wait4, N(st_wait4));
	sw(6, 1, 101, "sleep", S_SLEEP, 0, "swapper/1");
	kstack(6, 1, 101, st_sleep, N(st_sleep));
	/* the timer on the idle CPU: no waking in the trace */
	sw(406, 1, 0, "swapper/1", 0, 101, "sleep");
	waking(407, 1, 100);			/* its exit wakes the shell */
	sw(407.01, 1, 101, "sleep", X_DEAD, 100, "sh");
	spawn(408, 1, 102);
	sw(409, 1, 100, "sh", S_SLEEP, 102, "sh");
	kstack(409, 1, 100, st_wait4, N(st_wait4));
	sw(509, 1, 102, "workload", PREEMPT, 999, "other");
	sw(519, 1, 999, "other", S_SLEEP, 102, "workload");
	waking(719, 1, 100);
	sw(719.01, 1, 102, "workload", X_DEAD, 100, "sh");
	sw(720, 1, 100, "sh", X_DEAD, 0, "swapper/1");
}

START_TEST(test_sleep_then_burst)
{
	struct json_val top;
	const struct json_val *cp, *r, *s;
	struct an_view v;
	char *out;

	start(100);
	feed_sleep_burst();
	analyzer_finish(&an);
	v = view(0);
	out = print_view(&v, FMT_JSON, false);
	cp = path_json(&top, out);
	check_tiling(cp);
	/* from the release to the shell's exit */
	ck_assert_uint_eq(num(cp, "start_ns"), 1 * MS);
	ck_assert_uint_eq(num(cp, "end_ns"), 720 * MS);
	ck_assert(json_val_get(cp, "ended")->t == JSON_TRUE);
	ck_assert(json_val_get(cp, "partial")->t == JSON_FALSE);
	/* the sleep blocked 400 ms, woken by a timer on an idle CPU */
	r = row(cp, 101);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(num(r, "off_cpu_s_ns"), 400 * MS);
	s = seg_of(cp, 101, "blocked");
	ck_assert_str_eq(str(s, "ended_by"), "idle_interrupt");
	ck_assert_str_eq(str(s, "where"), "do_nanosleep");
	ck_assert_str_eq(str(s, "sched_state"), "S");
	/* the burst on CPU 300 ms, 10 ms preempted by a task outside */
	r = row(cp, 102);
	ck_assert_uint_eq(num(r, "on_cpu_ns"), 300 * MS);
	ck_assert_uint_eq(num(r, "runq_ns"), 11 * MS);	/* and 1 ms new, before its first run */
	/* its first wait, new: the CPU held by the shell that created it */
	s = json_val_get(seg_of(cp, 102, "runq"), "held_by");
	ck_assert_int_eq(num(s, "tid"), 100);
	/* the shell's wait4 is not counted: the children's time is */
	r = row(cp, 100);
	ck_assert_uint_eq(num(r, "off_cpu_ns"), 0);
	ck_assert_uint_eq(num(cp, "off_cpu_ns"), 400 * MS);
	/* the crossings: created by sh, woken by the child's exit */
	s = seg_of(cp, 102, "runq");
	ck_assert_str_eq(str(s, "via"), "fork");
	json_val_fini(&top);
	free(out);

	out = unwrap(print_view(&v, FMT_BCC, false));
	ck_assert_ptr_nonnull(strstr(out, "Critical path of sh -c x: 0.719 s, from its start to "
					  "its exit\n"));
	ck_assert_ptr_nonnull(strstr(out, "0.40 s sleep (created by sh) blocked in do_nanosleep "
					  "(S, woken in an idle CPU's interrupt)"));
	ck_assert_ptr_nonnull(strstr(out, "0.31 s workload (created by sh) on CPU"));
	ck_assert_ptr_nonnull(strstr(out, "waiting for a CPU (preempted): CPU 1 held by other "
					  "(999)"));
	ck_assert_ptr_null(strstr(out, "# partial"));
	free(out);
	ck_assert(!o.an->partial(state));
	stop();
}
END_TEST

/* the folded lines of the path alone add up to it; blocked parts by their stack */
START_TEST(test_folded_path)
{
	struct an_view v;
	char *out, *line, *save = NULL;
	uint64_t sum = 0, n = 0;
	bool sleep_stack = false;

	start(100);
	feed_sleep_burst();
	analyzer_finish(&an);
	v = view(0);
	out = print_view(&v, FMT_BCC, true);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');

		ck_assert_ptr_nonnull(sp);
		sum += strtoull(sp + 1, NULL, 10);
		n++;
		if (!strncmp(line, "sleep-101;__x64_sys_clock_nanosleep;hrtimer_nanosleep;"
				   "do_nanosleep;schedule;__schedule;[off-cpu S] 400000", 73))
			sleep_stack = true;
		ck_assert_msg(strstr(line, ";[") != NULL, "no kind: %s", line);
	}
	ck_assert(sleep_stack);
	/* microseconds, each line floored */
	ck_assert_uint_le(sum, 719000);
	ck_assert_uint_ge(sum + n, 719000);
	free(out);
	stop();
}
END_TEST

/*
 * --format=perfetto: the threads' states, the path in a lane of its own
 * (its slices add up to it), marked on each thread inside the state it is
 * part of, and a flow at each crossing
 */
START_TEST(test_perfetto_marks_the_path)
{
	struct json_val top, cpj;
	const struct json_val *ev, *cp, *e, *x;
	struct an_view v;
	char *out, *js;
	uint64_t lane_us = 0, nlane = 0, nmark = 0, nested = 0, flows = 0, vias = 0;
	size_t i, k;
	struct json_reader jr;
	char err[128] = "";

	start(100);
	feed_sleep_burst();
	analyzer_finish(&an);
	v = view(0);
	js = print_view(&v, FMT_JSON, false);
	cp = path_json(&cpj, js);
	out = print_view(&v, FMT_PERFETTO, false);
	memset(&top, 0, sizeof(top));
	json_reader_init(&jr, out, strlen(out), 64, err, sizeof(err));
	ck_assert_msg(json_reader_value(&jr, &top) == 0, "%s", err);
	ev = json_val_get(&top, "traceEvents");
	ck_assert_ptr_nonnull(ev);
	for (i = 0; i < ev->n; i++) {
		e = &ev->v[i];
		if (!strcmp(str(e, "ph"), "s") && !strncmp(str(e, "name"), "critical path", 13))
			flows++;
		if (strcmp(str(e, "ph"), "X") || strcmp(str(e, "cat"), "critical_path"))
			continue;
		if (num(e, "pid") == 2000000001) {
			lane_us += num(e, "dur");
			nlane++;
			continue;
		}
		nmark++;
		/* inside one of its thread's states */
		for (k = 0; k < ev->n; k++) {
			x = &ev->v[k];
			if (!strcmp(str(x, "ph"), "X") && !strcmp(str(x, "cat"), "sched") &&
			    num(x, "tid") == num(e, "tid") && num(x, "ts") <= num(e, "ts") &&
			    num(x, "ts") + num(x, "dur") >= num(e, "ts") + num(e, "dur")) {
				nested++;
				break;
			}
		}
	}
	x = json_val_get(cp, "segments");
	for (i = 0; i < x->n; i++)
		vias += json_val_get(&x->v[i], "via") != NULL;
	ck_assert_uint_eq(nlane, x->n);
	ck_assert_uint_eq(nmark, x->n);
	ck_assert_uint_eq(lane_us * 1000, num(cp, "total_ns"));
	/* all but the wait after the release, before any state of the root */
	ck_assert_uint_eq(nested + 1, nmark);
	ck_assert_uint_eq(flows, vias);
	ck_assert_uint_eq(vias, 4);	/* two creations, two wakes */
	ck_assert_ptr_nonnull(strstr(out, "\"name\":\"sleep 101: blocked (S) in do_nanosleep\""));
	ck_assert_ptr_nonnull(strstr(out, "\"name\":\"Sleeping (S)\""));
	x = json_val_get(&top, "otherData");
	ck_assert_uint_eq(num(x, "critical_path_ns"), 719 * MS);
	json_val_fini(&top);
	json_val_fini(&cpj);
	free(out);
	free(js);
	stop();
}
END_TEST

/*
 * sh -c "writer | reader": the reader waits on the pipe, the writer on
 * its disk writes (D, completed by a kworker outside the command). The
 * path crosses from the reader to the writer's I/O.
 */
START_TEST(test_pipeline_crosses_to_writer_io)
{
	struct json_val top;
	const struct json_val *cp, *r, *s;
	struct an_view v;
	char *out;

	start(100);
	on_cpu[0] = 1;
	waking(1, 0, 100);
	sw(2, 0, 1, "offcpu-ftrace", S_SLEEP, 100, "sh");
	spawn(3, 0, 101);
	sw(4, 1, 0, "swapper/1", 0, 101, "writer");
	spawn(5, 0, 102);
	sw(6, 0, 100, "sh", S_SLEEP, 102, "reader");
	kstack(6, 0, 100, st_wait4, N(st_wait4));
	sw(7, 0, 102, "reader", S_SLEEP, 0, "swapper/0");
	kstack(7, 0, 102, st_pipe, N(st_pipe));
	/* the writer's disk write: D until the kworker completes it */
	sw(10, 1, 101, "writer", D_DISK, 500, "kworker/1:1");
	kstack(10, 1, 101, st_disk, N(st_disk));
	waking(60, 1, 101);
	sw(60.01, 1, 500, "kworker/1:1", S_SLEEP, 101, "writer");
	waking(61, 1, 102);			/* into the pipe: the reader */
	sw(61.05, 0, 0, "swapper/0", 0, 102, "reader");
	sw(62, 1, 101, "writer", D_DISK, 500, "kworker/1:1");
	kstack(62, 1, 101, st_disk, N(st_disk));
	sw(62, 0, 102, "reader", S_SLEEP, 0, "swapper/0");
	kstack(62, 0, 102, st_pipe, N(st_pipe));
	waking(112, 1, 101);
	sw(112.01, 1, 500, "kworker/1:1", S_SLEEP, 101, "writer");
	waking(113, 1, 102);			/* its exit closes the pipe */
	waking(113.005, 1, 100);
	sw(113.01, 1, 101, "writer", X_DEAD, 100, "sh");
	sw(113.1, 0, 0, "swapper/0", 0, 102, "reader");
	sw(114, 1, 100, "sh", S_SLEEP, 0, "swapper/1");
	kstack(114, 1, 100, st_wait4, N(st_wait4));
	waking(115, 0, 100);
	sw(115.01, 0, 102, "reader", X_DEAD, 100, "sh");
	sw(116, 0, 100, "sh", X_DEAD, 0, "swapper/0");
	analyzer_finish(&an);
	v = view(0);
	out = print_view(&v, FMT_JSON, false);
	cp = path_json(&top, out);
	check_tiling(cp);
	ck_assert_uint_eq(num(cp, "total_ns"), 115 * MS);
	/* both disk waits are on the path, with their waker outside the command */
	r = row(cp, 101);
	ck_assert_uint_eq(num(r, "off_cpu_d_ns"), 100 * MS);
	ck_assert_uint_eq(num(cp, "off_cpu_d_ns"), 100 * MS);
	s = seg_of(cp, 101, "blocked");
	ck_assert_str_eq(str(s, "ended_by"), "woken_outside");
	ck_assert_str_eq(str(json_val_get(s, "waker"), "comm"), "kworker/1:1");
	ck_assert_str_eq(str(s, "where"), "folio_wait_bit_common");
	/* the reader's waits on the pipe are the writer's time: not on the path */
	r = row(cp, 102);
	ck_assert_uint_eq(num(r, "off_cpu_ns"), 0);
	s = seg_of(cp, 102, "runq");	/* where the path comes to it: woken at 113 ms */
	ck_assert_uint_eq(num(s, "start_ns"), 113 * MS);
	ck_assert_str_eq(str(s, "via"), "wake");
	ck_assert_str_eq(str(json_val_get(s, "from"), "comm"), "writer");
	json_val_fini(&top);
	free(out);
	out = print_view(&v, FMT_BCC, false);
	ck_assert_ptr_nonnull(strstr(out, "blocked (D) in folio_wait_bit_common: woken by "
					  "kworker/1:1 (500), outside the command"));
	free(out);
	stop();
}
END_TEST

/* a make-like fan-out: three jobs, the slow one decides the end */
START_TEST(test_fanout_slow_job_decides)
{
	struct json_val top;
	const struct json_val *cp, *r;
	struct an_view v;
	char *out;

	start(100);
	on_cpu[0] = 1;
	waking(1, 0, 100);
	sw(2, 0, 1, "offcpu-ftrace", S_SLEEP, 100, "sh");
	spawn(3, 0, 101);			/* sleep 0.1 */
	spawn(4, 0, 102);			/* sleep 0.5 */
	spawn(5, 0, 103);			/* a 150 ms burst, on CPU 1 */
	sw(5.1, 1, 0, "swapper/1", 0, 103, "burst");
	sw(5.5, 0, 100, "sh", S_SLEEP, 101, "sleep");
	kstack(5.5, 0, 100, st_sigsuspend, N(st_sigsuspend));
	sw(6, 0, 101, "sleep", S_SLEEP, 102, "sleep");
	kstack(6, 0, 101, st_sleep, N(st_sleep));
	sw(6.5, 0, 102, "sleep", S_SLEEP, 0, "swapper/0");
	kstack(6.5, 0, 102, st_sleep, N(st_sleep));
	sw(106, 0, 0, "swapper/0", 0, 101, "sleep");
	waking(106.4, 0, 100);
	sw(106.5, 0, 101, "sleep", X_DEAD, 100, "sh");
	sw(107, 0, 100, "sh", S_SLEEP, 0, "swapper/0");
	kstack(107, 0, 100, st_sigsuspend, N(st_sigsuspend));
	waking(155, 1, 100);
	sw(155.1, 1, 103, "burst", X_DEAD, 100, "sh");
	sw(156, 1, 100, "sh", S_SLEEP, 0, "swapper/1");
	kstack(156, 1, 100, st_sigsuspend, N(st_sigsuspend));
	sw(506.5, 0, 0, "swapper/0", 0, 102, "sleep");
	waking(506.9, 0, 100);
	sw(507, 0, 102, "sleep", X_DEAD, 100, "sh");
	sw(508, 0, 100, "sh", X_DEAD, 0, "swapper/0");
	analyzer_finish(&an);
	v = view(0);
	out = print_view(&v, FMT_JSON, false);
	cp = path_json(&top, out);
	check_tiling(cp);
	ck_assert_uint_eq(num(cp, "total_ns"), 507 * MS);
	r = row(cp, 102);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(num(r, "off_cpu_s_ns"), 500 * MS);
	/* the quick jobs are not on the path */
	ck_assert_ptr_null(row(cp, 101));
	ck_assert_ptr_null(row(cp, 103));
	ck_assert_uint_eq(num(row(cp, 100), "off_cpu_ns"), 0);
	json_val_fini(&top);
	free(out);
	stop();
}
END_TEST

/*
 * The event that links two threads lost (events were lost: a wakeup the
 * trace does not have): the path says so there, the time stays with the
 * waiting thread, sized, and the result is partial (--strict fails).
 */
START_TEST(test_lost_link_stays_and_is_partial)
{
	struct json_val top;
	const struct json_val *cp, *s;
	struct an_view v;
	char *out;

	start(100);
	on_cpu[0] = 1;
	waking(1, 0, 100);
	sw(2, 0, 1, "offcpu-ftrace", S_SLEEP, 100, "sh");
	spawn(3, 0, 101);
	sw(4, 0, 100, "sh", S_SLEEP, 101, "reader");
	sw(5, 0, 101, "reader", S_SLEEP, 0, "swapper/0");
	kstack(5, 0, 101, st_pipe, N(st_pipe));
	/* woken by someone at about 50 ms: neither waking nor wakeup traced */
	sw(50, 0, 0, "swapper/0", 0, 101, "reader");
	waking(51, 0, 100);
	sw(51.5, 0, 101, "reader", X_DEAD, 100, "sh");
	sw(52, 0, 100, "sh", X_DEAD, 0, "swapper/0");
	analyzer_finish(&an);
	v = view(3);			/* the trace lost events */
	out = print_view(&v, FMT_JSON, false);
	cp = path_json(&top, out);
	check_tiling(cp);
	s = seg_of(cp, 101, "blocked");
	ck_assert_str_eq(str(s, "ended_by"), "wakeup_lost");
	ck_assert_uint_eq(num(s, "duration_ns"), 45 * MS);
	ck_assert_uint_eq(num(cp, "lost_link_ns"), 45 * MS);
	ck_assert(json_val_get(cp, "partial")->t == JSON_TRUE);
	ck_assert(json_val_get(&top, "partial")->t == JSON_TRUE);
	json_val_fini(&top);
	free(out);
	out = print_view(&v, FMT_BCC, false);
	ck_assert_ptr_nonnull(strstr(out, "# partial: 45.000 ms of the path are blocks whose "
					  "wakeup is not in the trace"));
	free(out);
	ck_assert(o.an->partial(state));
	stop();
}
END_TEST

/*
 * A timer's interrupt wakes the sleeper while a thread of the command
 * runs on that CPU: sched_waking names that thread, its stack says
 * interrupt, and the path stays on the sleeper. Without the waker's stack
 * the wake is followed (and counted as unchecked).
 */
static void feed_irq_wake(bool stack)
{
	on_cpu[0] = 1;
	waking(1, 0, 100);
	sw(2, 0, 1, "offcpu-ftrace", S_SLEEP, 100, "sh");
	spawn(3, 0, 101);
	spawn(3.5, 0, 102);
	sw(4, 1, 0, "swapper/1", 0, 102, "burst");
	sw(4.5, 0, 100, "sh", S_SLEEP, 101, "sleep");
	kstack(4.5, 0, 100, st_wait4, N(st_wait4));
	sw(5, 0, 101, "sleep", S_SLEEP, 0, "swapper/0");
	kstack(5, 0, 101, st_sleep, N(st_sleep));
	waking(200, 1, 101);			/* in the timer interrupt on CPU 1 */
	if (stack)
		kstack(200, 1, 102, st_irq_wake, N(st_irq_wake));
	sw(200.2, 0, 0, "swapper/0", 0, 101, "sleep");
	waking(201, 1, 100);			/* the burst ends first */
	sw(201.1, 1, 102, "burst", X_DEAD, 0, "swapper/1");
	sw(201.5, 0, 101, "sleep", S_SLEEP, 100, "sh");
	kstack(201.5, 0, 101, st_sleep, N(st_sleep));
	sw(201.6, 0, 100, "sh", S_SLEEP, 0, "swapper/0");
	sw(300, 0, 0, "swapper/0", 0, 101, "sleep");
	waking(300.5, 0, 100);
	sw(301, 0, 101, "sleep", X_DEAD, 100, "sh");
	sw(302, 0, 100, "sh", X_DEAD, 0, "swapper/0");
	analyzer_finish(&an);
}

START_TEST(test_interrupt_wake_is_not_a_link)
{
	struct json_val top;
	const struct json_val *cp, *s, *segs;
	struct an_view v;
	char *out;
	size_t i;

	start(100);
	feed_irq_wake(true);
	v = view(0);
	out = print_view(&v, FMT_JSON, false);
	cp = path_json(&top, out);
	check_tiling(cp);
	segs = json_val_get(cp, "segments");
	/* the first sleep's end: an interrupt, not the burst */
	for (i = 0, s = NULL; i < segs->n; i++)
		if (num(&segs->v[i], "end_ns") == 200 * MS)
			s = &segs->v[i];
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(str(s, "state"), "blocked");
	ck_assert_str_eq(str(s, "ended_by"), "interrupt");
	ck_assert_str_eq(str(json_val_get(s, "waker"), "comm"), "burst");
	ck_assert_ptr_null(row(cp, 102));
	/* the shell's wake by the sleep's exit had no stack in this trace */
	ck_assert_uint_eq(num(cp, "irq_unchecked"), 1);
	json_val_fini(&top);
	free(out);
	stop();

	start(100);
	feed_irq_wake(false);
	v = view(0);
	out = print_view(&v, FMT_JSON, false);
	cp = path_json(&top, out);
	check_tiling(cp);
	ck_assert_ptr_nonnull(row(cp, 102));	/* followed: nothing says interrupt */
	ck_assert_uint_eq(num(cp, "irq_unchecked"), 2);
	json_val_fini(&top);
	free(out);
	out = print_view(&v, FMT_BCC, false);
	ck_assert_ptr_nonnull(strstr(out, "# 2 wakes followed without the waker's stack"));
	free(out);
	stop();
}
END_TEST

/* the command still running when the window closes: the path from the window's end */
START_TEST(test_not_ended)
{
	struct json_val top;
	const struct json_val *cp, *s;
	struct an_view v;
	char *out;

	start(100);
	on_cpu[0] = 1;
	waking(1, 0, 100);
	sw(2, 0, 1, "offcpu-ftrace", S_SLEEP, 100, "sh");
	sw(10, 0, 100, "sh", S_SLEEP, 0, "swapper/0");
	kstack(10, 0, 100, st_wait4, N(st_wait4));
	feed((struct sched_event){ .ts = 30 * MS, .cpu = 1, .type = SEV_WAKEUP, .pid = 77,
				   .common_pid = 0 });
	analyzer_finish(&an);
	v = view(0);
	out = print_view(&v, FMT_JSON, false);
	cp = path_json(&top, out);
	check_tiling(cp);
	ck_assert(json_val_get(cp, "ended")->t == JSON_FALSE);
	ck_assert_uint_eq(num(cp, "end_ns"), 30 * MS);
	s = seg_of(cp, 100, "blocked");
	ck_assert_str_eq(str(s, "ended_by"), "open");
	ck_assert_uint_eq(num(s, "duration_ns"), 20 * MS);
	json_val_fini(&top);
	free(out);
	stop();
}
END_TEST

/* ... and preempted then: waiting for a CPU up to the window's end */
START_TEST(test_not_ended_preempted)
{
	struct json_val top;
	const struct json_val *cp, *s;
	struct an_view v;
	char *out;

	start(100);
	on_cpu[0] = 1;
	waking(1, 0, 100);
	sw(2, 0, 1, "offcpu-ftrace", S_SLEEP, 100, "sh");
	sw(20, 0, 100, "sh", PREEMPT, 55, "other");
	feed((struct sched_event){ .ts = 30 * MS, .cpu = 1, .type = SEV_WAKEUP, .pid = 77,
				   .common_pid = 0 });
	analyzer_finish(&an);
	v = view(0);
	out = print_view(&v, FMT_JSON, false);
	cp = path_json(&top, out);
	check_tiling(cp);
	s = json_val_get(cp, "segments");
	s = &s->v[s->n - 1];		/* the last: waiting since its preemption */
	ck_assert_str_eq(str(s, "state"), "runq");
	ck_assert_uint_eq(num(s, "start_ns"), 20 * MS);
	ck_assert_uint_eq(num(s, "end_ns"), 30 * MS);
	ck_assert(json_val_get(s, "preempted")->t == JSON_TRUE);
	ck_assert(json_val_get(cp, "partial")->t == JSON_FALSE);
	json_val_fini(&top);
	free(out);
	stop();
}
END_TEST

/* what the mode refuses, in one line each */
START_TEST(test_refusals)
{
	static const char *const bad[] = {
		"-P", "--by=comm", "--format=bpftrace", "-i 1", "--format=openmetrics",
		"-f --format=perfetto",
	};
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[128], *argv[12], *tok, *save = NULL;
		int argc = 0, fd, saved, ret;

		snprintf(line, sizeof(line), "profile --critical-path %s -- sh", bad[i]);
		for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			argv[argc++] = tok;
		argv[argc] = NULL;
		fflush(stderr);
		saved = dup(2);
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, 2);
		ret = trace_opts_parse(&o, "profile", argc, argv);
		dup2(saved, 2);
		close(fd);
		close(saved);
		ck_assert_msg(ret == 2, "%s: %d", bad[i], ret);
	}
}
END_TEST

/* --- the walk alone, on made-up timelines */

static void seg(struct cp_tl *tl, int32_t tid, uint8_t kind, uint64_t a, uint64_t b,
		int32_t other)
{
	struct cp_thread *t = cp_tl_thread(tl, tid, true);
	struct cp_seg s = { .start = a, .end = b, .kind = kind, .other = other, .cpu = 0,
			    .state = S_SLEEP };

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(cp_tl_add(tl, t, &s), 0);
}

static void tiles(const struct cp_walk_out *w, uint64_t start, uint64_t end)
{
	uint64_t at = start;
	size_t i;

	for (i = 0; i < w->n; i++) {
		ck_assert_uint_eq(w->seg[i].start, at);
		ck_assert_uint_gt(w->seg[i].end, at);
		at = w->seg[i].end;
	}
	ck_assert_uint_eq(at, end);
}

/* over the cap the oldest states go; the path before them says so, and still tiles */
START_TEST(test_walk_memory_cap)
{
	struct cp_tl tl;
	struct cp_walk_in in = { .tl = &tl, .root = 7, .start = 0, .end = 100 * MS,
				 .wakings_whole = true };
	struct cp_walk_out w;
	uint64_t t;

	ck_assert_int_eq(cp_tl_init(&tl, 8, 16, 4), 0);
	for (t = 0; t < 100; t++)
		seg(&tl, 7, t % 2 ? CP_RUNQ : CP_ON, t * MS, (t + 1) * MS, -1);
	ck_assert_uint_le(tl.nseg, 16);
	ck_assert_uint_gt(tl.dropped, 0);
	ck_assert_uint_gt(tl.kept_from, 0);
	ck_assert_int_eq(cp_walk(&in, &w), 0);
	tiles(&w, 0, 100 * MS);
	ck_assert_int_eq(w.seg[0].kind, CP_UNKNOWN);
	ck_assert_int_eq(w.seg[0].why, CPW_NOT_KEPT);
	ck_assert_uint_eq(w.seg[0].end, w.seg[1].start);
	ck_assert_int_eq(w.seg[w.n - 1].kind, CP_RUNQ);
	free(w.seg);
	cp_tl_fini(&tl);
}
END_TEST

/* two threads that woke each other at one instant: the walk ends, and tiles */
START_TEST(test_walk_cycle_and_gap)
{
	struct cp_tl tl;
	struct cp_walk_in in = { .tl = &tl, .root = 1, .start = 0, .end = 30 * MS,
				 .wakings_whole = true };
	struct cp_walk_out w;

	ck_assert_int_eq(cp_tl_init(&tl, 8, 64, 4), 0);
	seg(&tl, 1, CP_ON, 0, 5 * MS, 0);
	/* 5..8 ms: nothing of thread 1 (switches lost) */
	seg(&tl, 1, CP_BLOCKED, 8 * MS, 20 * MS, 2);
	seg(&tl, 1, CP_ON, 20 * MS, 30 * MS, 0);
	seg(&tl, 2, CP_BLOCKED, 0, 20 * MS, 1);
	ck_assert_int_eq(cp_walk(&in, &w), 0);
	tiles(&w, 0, 30 * MS);
	/* 1 hops to 2 at 20 ms, whose waker is 1, just left: 2 keeps the block */
	ck_assert_int_eq(w.n, 2);
	ck_assert_int_eq(w.seg[0].tid, 2);
	ck_assert_int_eq(w.seg[0].why, CPW_CYCLE);
	ck_assert_int_eq(w.seg[1].via, CPV_WAKE);
	free(w.seg);
	cp_tl_fini(&tl);

	/* the gap is said, not filled */
	ck_assert_int_eq(cp_tl_init(&tl, 8, 64, 4), 0);
	seg(&tl, 1, CP_ON, 0, 5 * MS, 0);
	seg(&tl, 1, CP_ON, 8 * MS, 30 * MS, 0);
	ck_assert_int_eq(cp_walk(&in, &w), 0);
	tiles(&w, 0, 30 * MS);
	ck_assert_int_eq(w.n, 3);
	ck_assert_int_eq(w.seg[1].kind, CP_UNKNOWN);
	ck_assert_int_eq(w.seg[1].why, CPW_GAP);
	free(w.seg);
	cp_tl_fini(&tl);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("critpath");
	TCase *tc = tcase_create("critpath");

	tcase_add_test(tc, test_sleep_then_burst);
	tcase_add_test(tc, test_folded_path);
	tcase_add_test(tc, test_perfetto_marks_the_path);
	tcase_add_test(tc, test_pipeline_crosses_to_writer_io);
	tcase_add_test(tc, test_fanout_slow_job_decides);
	tcase_add_test(tc, test_lost_link_stays_and_is_partial);
	tcase_add_test(tc, test_interrupt_wake_is_not_a_link);
	tcase_add_test(tc, test_not_ended);
	tcase_add_test(tc, test_not_ended_preempted);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_walk_memory_cap);
	tcase_add_test(tc, test_walk_cycle_and_gap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(suite());
}
