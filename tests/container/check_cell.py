#!/usr/bin/env python3
"""check_cell.py RESULT.json WORKLOAD.json MEASURE: one cell of the
container matrix against the workload's own schedstat (the kernel's
accounting of its threads, read inside the container by the workload).

MEASURE runq: each workload thread's run-queue sum is its run_delay
(within 2%, count within 2) when the result calls itself complete; a
partial result (perf's context-switch records alone: waits that begin
with a wakeup are not timed) must say so, never measure more than
run_delay, and size what it missed (incomplete.unmeasured_ns).
MEASURE oncpu: each thread's on-CPU sum is its run_ns (2% and 10 us a
slice: perf's records and the kernel's clock time a switch at different
points of it, as oncpu(8) says).
MEASURE offcpu: each thread's off-CPU sum lies between its wall minus CPU
time less its run_delay (the wait before its first run is no off-CPU
interval) and its wall minus CPU time.
Exit 0 pass, 1 fail; every thread's numbers are printed."""
import json
import sys

res = json.load(open(sys.argv[1]))
wl = json.load(open(sys.argv[2]))
measure = sys.argv[3]
groups = {g["tid"]: g for g in res.get("groups", [])}
partial = res.get("partial", False)
inc = res.get("incomplete", {})
ok = True
print("backend %s, partial %s, incomplete %s" % (res.get("backend"), partial,
      {k: v for k, v in inc.items() if v}))
if not wl["threads"]:
    print("the workload reported no threads")
    sys.exit(1)
missed_rd = 0
for t in wl["threads"]:
    g = groups.get(t["tid"])
    if g is None:
        # the pids must be the ones the container sees: the trap this checks
        print("tid %d: not in the result (groups: %s)" % (t["tid"], sorted(groups)[:12]))
        ok = False
        continue
    if measure == "runq":
        want, n = t["run_delay_ns"], t["pcount"]
        err = abs(g["sum_ns"] - want) / max(want, 1)
        print("tid %d: run_delay %d ns / %d, measured %d ns / %d (%.2f%%), unmeasured %d" %
              (t["tid"], want, n, g["sum_ns"], g["count"], 100 * err, g.get("unmeasured", 0)))
        if not partial:
            if err > 0.02 or abs(g["count"] - n) > 2:
                ok = False
        elif g["sum_ns"] > want * 1.02 + 100000:
            print("  measured more than the kernel's run_delay")
            ok = False
        elif err > 0.02 and not g.get("unmeasured"):
            print("  short of run_delay with no wait counted as not measured")
            ok = False
        else:
            missed_rd += want - min(g["sum_ns"], want)
    elif measure == "oncpu":
        want = t["run_ns"]
        err = abs(g["sum_ns"] - want) / max(want, 1)
        print("tid %d: run_ns %d, on-CPU %d / %d slices (%.2f%%)" %
              (t["tid"], want, g["sum_ns"], g["count"], 100 * err))
        # perf's records time a switch at its own point of the switch, the
        # kernel's clock at another: a few microseconds a slice (oncpu(8))
        if abs(g["sum_ns"] - want) > 0.02 * want + 10000 * g["count"]:
            ok = False
    elif measure == "offcpu":
        hi = t["life_ns"] - t["life_run_ns"]
        lo = hi - t["run_delay_ns"]
        print("tid %d: off-CPU %d ns in [%d, %d]" % (t["tid"], g["sum_ns"], lo, hi))
        if not (lo * 0.98 - 200000 <= g["sum_ns"] <= hi * 1.01 + 100000 * (g["count"] + 1)):
            ok = False
if measure == "runq" and partial and missed_rd > 1000000:
    # what the records could not time is sized from schedstat, host-wide
    if not inc.get("unmeasured") or not (inc.get("unmeasured_ns") or inc.get("unmeasured_unsized")):
        print("partial by %d ns of the workload's run_delay, yet nothing counted or sized" % missed_rd)
        ok = False
    elif inc.get("unmeasured_ns", 0) + 2000000 < missed_rd:
        print("sized %d ns, less than the workload's own missing %d ns" %
              (inc.get("unmeasured_ns", 0), missed_rd))
        ok = False
sys.exit(0 if ok else 1)
