"""The kernel's own accounting, and where it is known to differ from ours.

skip_split: the kernel's clock-update skip (offcpu-ftrace-runq(8)) moves a
slow reschedule's delivery from run_delay to sum_exec_runtime: the split
between on-CPU and run-queue time differs from schedstat's, their sum does
not, and ours waits more. Imported by the live tests' Python (sys.path gets
this folder: ${srcdir}/tests/live)."""


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
