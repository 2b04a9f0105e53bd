"""The kernel's own accounting, and where it is known to differ from ours.

skip_split: the kernel's clock-update skip (offcpu-ftrace-runq(8)) moves a
slow reschedule's delivery from run_delay to sum_exec_runtime: the split
between on-CPU and run-queue time differs from schedstat's, their sum does
not, and ours waits more. Imported by the live tests' Python (sys.path gets
this folder: ${srcdir}/tests/live).

steal_slack: sum_exec_runtime leaves out the time the hypervisor took the
virtual CPU away (steal), which a slice timed between switches holds."""

import os


def skip_split(on, runq, k_on, k_runq, slack):
    """A line saying the difference is the clock-update skip, or None.

    on, runq: ours (ns); k_on, k_runq: sum_exec_runtime and run_delay (ns);
    slack: what the sum may differ by (ns)."""
    both, kboth = on + runq, k_on + k_runq
    if runq <= k_runq or abs(both - kboth) > slack:
        return None
    return ("%.3f ms moved from run_delay to sum_exec_runtime by the kernel's "
            "clock-update skip; on-CPU + run queue agree: %.3f ms, schedstat %.3f ms" %
            ((runq - k_runq) / 1e6, both / 1e6, kboth / 1e6))


def steal_slack(steal_ns):
    """What on-CPU time timed between switches may exceed sum_exec_runtime by.

    steal_ns: the growth of /proc/stat's steal over the window (lib.sh
    steal_ns), on the CPUs the threads ran on. The counter moves in whole
    USER_HZ ticks: where it moved, up to a tick more may have been taken;
    where it did not, none is allowed."""
    if steal_ns <= 0:
        return 0
    return steal_ns + 1e9 / os.sysconf("SC_CLK_TCK")
