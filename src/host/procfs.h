/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the tool reads from /proc about tasks. */
#ifndef OFFCPU_PROCFS_H
#define OFFCPU_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Process id of thread @tid from /proc/<tid>/status; -1 when gone. */
int32_t proc_tgid(int32_t tid, void *unused);
/*
 * Thread ids of process @pid (/proc/<pid>/task). Returns the count, or a
 * negative errno; *tids is malloc'd, caller frees.
 */
int proc_threads(int32_t pid, int32_t **tids);

/*
 * The run_delay (ns waiting for a CPU, the kernel's own accounting) of
 * thread @tid from /proc/<tid>/schedstat; 0, or -errno when it is gone or
 * schedstat is missing (CONFIG_SCHED_INFO).
 */
int proc_run_delay(int32_t tid, uint64_t *ns);
/* Thread @tid's /proc schedstat: CPU time, run-queue wait (ns), times it ran. 0 or -errno. */
int proc_schedstat(int32_t tid, uint64_t *exec_ns, uint64_t *delay_ns, uint64_t *pcount);
/*
 * A schedstat text ("exec delay pcount\n": three decimal numbers, nothing
 * else) into the three; 0, or -EINVAL. The one parser of it.
 */
int proc_schedstat_parse(const char *text, size_t len, uint64_t *exec_ns, uint64_t *delay_ns,
			 uint64_t *pcount);
/*
 * Is thread @tid blocked now? Its state letter into @state and the
 * kernel function it sleeps in into @where (its stack's first frame that
 * is not the scheduler's, where /proc/TID/stack is readable: root; else
 * wchan, readable for one's own processes; "" when neither says). 1
 * blocked (any state but R), 0 running or runnable, -errno gone.
 */
int proc_task_blocked(int32_t tid, char *state, size_t slen, char *where, size_t wlen);
/*
 * Every process id in /proc. Returns the count, or a negative errno;
 * *pids is malloc'd, caller frees.
 */
int proc_pids(int32_t **pids);

/* /proc/<tid>/comm into @buf, without the newline (a kworker without its
 * queue suffix, as its events name it); -errno if gone */
int proc_comm(int32_t tid, char *buf, size_t len);

/* a name read from /proc as the task's own: "kworker/1:0-events" -> "kworker/1:0" */
void proc_comm_tidy(char *name);

/*
 * A /proc/<tid>/stat text split: the name (between the first "(" and the
 * last ")": it may hold both) into @comm (@len bytes with its NUL, cut to
 * fit; NULL: not wanted), the state letter into *@state (NULL: not
 * wanted), and fields 4 (ppid) to 22 (starttime) into @v: v[0] is field 4,
 * v[18] field 22. 0, or -EINVAL for a text that is not one.
 */
#define PROC_STAT_NFIELDS 19
int proc_stat_split(const char *text, char *comm, size_t len, char *state,
		    unsigned long long v[PROC_STAT_NFIELDS]);

/*
 * Field @field (4 or later: 39 is the CPU it last ran on) of a
 * /proc/<tid>/stat text into *@v. 0, or -EINVAL when the text has no such
 * number.
 */
int proc_stat_field(const char *text, int field, long long *v);

/*
 * When process @pid started, in ns since boot (CLOCK_BOOTTIME: the
 * starttime of /proc/<pid>/stat); 0, or -errno when it is gone
 */
int proc_start_ns(int32_t pid, uint64_t *ns);

/*
 * The time the hypervisor has taken from this host's CPUs since boot, all
 * CPUs added (steal, /proc/stat's eighth number, in USER_HZ ticks), in ns;
 * 0, or -errno when unreadable.
 */
int proc_steal_ns(uint64_t *ns);

/*
 * Each CPU's idle time since boot from /proc/stat's text @text: idle +
 * iowait of its "cpuN" line (the CPU was idle either way), in USER_HZ
 * ticks of @tick_ns each, into @ns[N] for N < @max, and @listed[N] set;
 * a CPU with no line (offline) is left 0 and unlisted. Returns the
 * highest N listed + 1, or -EINVAL for a text that is not /proc/stat's.
 */
int proc_stat_cpu_idle(const char *text, uint64_t tick_ns, uint64_t *ns, bool *listed,
		       unsigned max);
/* proc_stat_cpu_idle() of this host's /proc/stat; -errno when unreadable. */
int proc_cpu_idle(uint64_t *ns, bool *listed, unsigned max);
/* /proc/stat's unit, one USER_HZ tick, in ns (its times are that accurate) */
uint64_t proc_tick_ns(void);

/*
 * Does this process live in a pid namespace other than the kernel's
 * initial one (a container's)? 1 yes, 0 no, -errno when
 * /proc/self/ns/pid cannot be read. The sched tracepoints (tracefs and
 * perf's raw payloads) name tasks by the initial namespace's pids, which
 * such a process cannot map to the pids /proc shows it.
 */
int proc_pidns_foreign(void);
/*
 * Does this process live in a user namespace other than the initial one
 * (a rootless container's)? 1 yes, 0 no, -errno unreadable. Its root's
 * capabilities hold there only: neither tracefs nor perf events take them.
 */
int proc_userns_foreign(void);

/* Process @pid's main thread sleeps in wait4()/waitid() (its wchan, now). */
bool proc_waits_for_child(int32_t pid);

/* One frame of a /proc/<tid>/stack text, pointing into it. */
struct proc_kframe {
	const char *name;	/* the function, @len bytes; NULL: not a frame line */
	size_t len;
	uint64_t off;		/* its offset into the function */
	const char *mod;	/* the module, @mod_len bytes (0: vmlinux) */
	size_t mod_len;
};

/*
 * The line at @p ("[<0>] func+0x1b/0x80 [mod]") into @f; returns the start
 * of the next line (at the text's NUL after the last one).
 */
const char *proc_kstack_line(const char *p, struct proc_kframe *f);

#endif
