/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event model every backend produces and the analyzer consumes: one
 * decoded scheduler tracepoint hit. Backends fill it from their own record
 * layout (field offsets resolved once from the format files); nothing here
 * knows about tracefs or perf.
 */
#ifndef OFFCPU_EVENT_H
#define OFFCPU_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define COMM_LEN 16	/* TASK_COMM_LEN: comm fields are char[16] */

/*
 * Copy a comm into a char[COMM_LEN], NUL-padded: up to its NUL or 16
 * bytes, so a shorter string (a parsed name, a test's literal) is never
 * read past its end.
 */
static inline void comm_copy(char *dst, const char *src)
{
	size_t n = strnlen(src, COMM_LEN);

	memcpy(dst, src, n);
	memset(dst + n, 0, COMM_LEN - n);
}

enum sched_ev_type {
	SEV_SWITCH = 1,
	SEV_WAKEUP,
	SEV_WAKEUP_NEW,
	SEV_WAKING,			/* only for --compat=perf */
	SEV_FORK,			/* sched_process_fork: -- COMMAND */
	SEV_NSCHED,			/* the sched events end here */
	SEV_KSTACK = SEV_NSCHED,	/* kernel stack of the event before it */
	SEV_USTACK,			/* user stack of the event before it */
	SEV_SAMPLE,			/* an on-CPU sample (profile): pid on cpu */
	/*
	 * --by cgroup: task pid moved to another cgroup (cgroup:cgroup_attach_task,
	 * one per write to tasks or cgroup.procs), or moved out of an emptied
	 * v1 cpuset (cgroup:cgroup_transfer_tasks, one per task)
	 */
	SEV_CGROUP_ATTACH,
	SEV_CGROUP_TRANSFER,
	SEV_NTYPES,
};

#define STACK_MAX_DEPTH 127	/* frames kept per stack (as BPF's default) */

struct sched_event {
	uint64_t ts;		/* ns in the trace clock */
	int32_t cpu;		/* CPU whose buffer recorded the event */
	int32_t common_pid;	/* task current on that CPU when it was recorded */
	uint8_t type;		/* enum sched_ev_type */
	int32_t pid;		/* switch: prev_pid; wakeup*: the woken tid;
				 * stacks: the thread (common_pid) */
	int32_t next_pid;	/* switch: next_pid; user stack, sample: the
				 * tgid; fork: the child (pid is the parent) */
	int64_t prev_state;	/* switch only: raw tracepoint value, or
				 * SCHED_STATE_UNKNOWN */
	/* wakeups: the CPU the task was woken onto (its run queue), when the
	 * format has target_cpu (has_target) */
	int32_t target_cpu;
	bool has_target;
	/*
	 * comm of pid / next_pid: borrowed pointers into the backend's
	 * record (char[16], NUL-padded), valid only during the callback.
	 */
	const char *comm;
	const char *next_comm;
	/*
	 * the kernel's priorities of pid / next_pid (120 = nice 0), where the
	 * event says them (has_prio: a tracepoint whose format has prio,
	 * prev_prio, next_prio; a perf switch record named from the stream)
	 */
	int32_t prio, next_prio;
	bool has_prio;
	/* SEV_KSTACK/SEV_USTACK: frames, innermost first; borrowed */
	const uint64_t *stack;
	uint32_t stack_depth;
	/*
	 * SEV_SAMPLE: the CPU time it stands for (ns since the CPU's last
	 * sample), its kernel frames in stack, its user frames here
	 */
	uint64_t period;
	const uint64_t *ustack;
	uint32_t ustack_depth;
	/*
	 * SEV_CGROUP_*: the hierarchy (0: cgroup v2, else the v1 hierarchy's
	 * id as in /proc/<tid>/cgroup), the cgroup's level and id there, and
	 * its path from the hierarchy's root: borrowed from the record,
	 * NUL-terminated, NULL when the record's string is malformed
	 */
	int32_t cg_root, cg_level;
	uint64_t cg_id;
	const char *cg_path;
};

/*
 * prev_state of a switch the tracepoint did not record (a backend that
 * knows it from another source, or the analyzer inferring it): blocked or
 * preempted, but in which state is unknown. Never runnable, never dead.
 */
#define SCHED_STATE_UNKNOWN INT64_MIN

/*
 * How prev_state is to be read on this kernel, taken from sched_switch's
 * print fmt (the values differ between kernels, so nothing is hard-coded).
 */
#define STATE_LETTERS 16
struct sched_states {
	uint64_t preempt_mask;	/* TASK_REPORT_MAX: "R+", preempted while runnable */
	unsigned nletters;
	struct {
		uint64_t bit;
		char letter;
	} letter[STATE_LETTERS];
};

/*
 * The letters of 4.14 and later's TASK_REPORT (S D T t X Z P I, then R+),
 * for a backend that has no format file to read them from (perf's
 * context-switch records alone, which say only "preempted" or not).
 */
void sched_states_default(struct sched_states *st);
/* Bits of prev_state whose letter is in @letters (e.g. "XZ"). */
uint64_t sched_states_mask(const struct sched_states *st, const char *letters);
/* prev_state says the task was still runnable (R or R+). */
static inline int sched_state_runnable(const struct sched_states *st, int64_t state)
{
	return ((uint64_t)state & ~st->preempt_mask) == 0;
}

const char *sched_ev_name(unsigned type);
/* A stack record (kernel_stack, user_stack), which follows the event it belongs to. */
static inline bool sched_ev_is_stack(unsigned type)
{
	return type == SEV_KSTACK || type == SEV_USTACK;
}
/* The tracefs system of event @type: "sched", "ftrace" (stacks) or "cgroup". */
const char *sched_ev_system(unsigned type);
/* prev_state as the kernel prints it ("S", "D|K", "R+"); returns @buf. */
char *sched_state_str(const struct sched_states *st, int64_t state, char *buf,
		      size_t len);

#endif
