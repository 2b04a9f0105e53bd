#!/bin/bash
# --by cgroup follows a thread moved mid-window (cgroup:cgroup_attach_task):
# two cgroups made for the test (the cpu controller's hierarchy, v1 here;
# v2 elsewhere), removed on every exit path. A contended workload (three
# spinners, a sleeper and a reader pinned to one CPU) starts in A; halfway
# through the window every one of its threads is moved to B (v1: one write
# to B/tasks per thread; v2: its pid to B/cgroup.procs, one event naming
# the leader). Its threads' schedstat run_delay when the window has begun,
# just before and just after the move (read and moved by one process, back
# to back: the move is between, a few ms apart) and once they are parked
# is the truth for each phase: A's total is the first phase's run_delay,
# B's the second's (each within 2% plus 60 us a wait, plus 30 ms for the
# waits the move interrupts, which count where they end, of the nearer
# bound), and the JSON counts the attach events. On auto (the ring for
# runq on a kernel that loses idle CPUs' events, else perf) and ring; the
# proc backend, which sees no moves, says so.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
[ -r /proc/self/schedstat ] || skip "no /proc/<pid>/schedstat (CONFIG_SCHED_INFO)"
[ -r "$T/events/cgroup/cgroup_attach_task/format" ] ||
	skip "no cgroup:cgroup_attach_task event in $T (CONFIG_CGROUPS)"
snapshot_save
cpu=$(( $(nproc) - 1 ))
make_cgroup a
CGA=$CG
make_cgroup b
CGB=$CG
V2=0
[ -e "$CGA/cgroup.type" ] && V2=1


check() {	# check OUT.json WHAT START MID-BEFORE MID-AFTER END
	"$PY" - "$@" "$CGA" "$CGB" <<'PYEOF'
import json, os, sys
out, what = json.load(open(sys.argv[1])), sys.argv[2]
s0, s1, s1b, s2 = (list(map(int, x.split())) for x in sys.argv[3:7])
cga, cgb = sys.argv[7], sys.argv[8]
groups = {g.get("cgroup_path"): g for g in out["groups"]}
moves = out["events"].get("cgroup_attach_task", 0)
print("%s: %d cgroup_attach_task events" % (what, moves))
ok = moves >= 1
# the move happened between the reads just before it (s1) and just after
# it (s1b): A's truth lies between s0..s1 and s0..s1b, B's between
# s1b..s2 and s1..s2; the nearer bound is the one to beat
for cg, a, b, lo, hi in ((cga, s0, s1, s1, s1b), (cgb, s1, s2, s1b, s1)):
    path = "/" + os.path.basename(cg)
    g = groups.get(path)
    want, waits = b[0] - a[0], b[1] - a[1]
    if g is not None:
        # the bound of the truth nearest to what was measured
        if cg == cga:
            cands = (lo[0] - a[0], hi[0] - a[0])
        else:
            cands = (b[0] - lo[0], b[0] - hi[0])
        print("%s: %s: schedstat %.3f..%.3f ms, the move between" %
              (what, path, min(cands) / 1e6, max(cands) / 1e6))
        want = min(cands, key=lambda w: abs(g["sum_ns"] - w)) \
            if not min(cands) <= g["sum_ns"] <= max(cands) else g["sum_ns"]
    if g is None:
        print("%s: no group for %s (groups: %s)" % (what, path, sorted(groups, key=str)))
        ok = False
        continue
    err = g["sum_ns"] - want
    print("%s: %s: %d waits, %.3f ms; schedstat %d waits, %.3f ms (%+.2f%%); unmeasured %d" %
          (what, path, g["count"], g["sum_ns"] / 1e6, waits, want / 1e6,
           100 * err / max(want, 1), g["unmeasured"]))
    if waits < 10 or want < 50e6:
        print("  too few waits in this phase to tell")
        ok = False
        continue
    slack = 0.02 * want + 60000 * waits + 30e6
    if abs(err) <= slack:
        continue
    if out["partial"] and g["unmeasured"] > 0 and g["sum_ns"] <= want + slack:
        print("  (partial, and says so)")
        continue
    ok = False
sys.exit(0 if ok else 1)
PYEOF
}

for backend in auto ring; do
	cg_held "$CGA" "$TMP/f" "$TMP/w.json" runq "$cpu" 3 2400
	W=$HELD
	run_bg "$TMP/r.json" "$TMP/r.err" runq --by cgroup --format=json --backend=$backend 4
	wait_banner "$TMP/r.err"
	s0=$(sched_sum $W)
	echo go > "$TMP/f"
	sleep 1.2
	# the reads and the move in one process, back to back: the moment of
	# the move is known to a few milliseconds
	mapfile -t mid < <("$PY" - "$W" "$CGB" "$V2" <<'PYEOF'
import glob, os, sys
pid, cg, v2 = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
def ssum():
    d = n = e = 0
    for f in glob.glob("/proc/%s/task/*/schedstat" % pid):
        try:
            x = open(f).read().split()
        except OSError:
            continue
        e += int(x[0]); d += int(x[1]); n += int(x[2])
    return "%d %d %d" % (d, n, e)
tids = [os.path.basename(t) for t in glob.glob("/proc/%s/task/*" % pid)]
before = ssum()
if v2:
    open(cg + "/cgroup.procs", "w").write(pid)
else:
    for t in tids:
        with open(cg + "/tasks", "w") as f:
            f.write(t)
print(before)
print(ssum())
PYEOF
)
	s1=${mid[0]:-}
	s1b=${mid[1]:-}
	[ -n "$s1b" ] || fail "cannot move the workload to $CGB"
	grep -qx "$W" "$CGB/cgroup.procs" || fail "the workload is not in $CGB after the move"
	wait "$TOOL_PID" || { cat "$TMP/r.err"; fail "runq --by cgroup --backend=$backend exited with $?"; }
	s2=$(sched_sum $W)
	kill $W; wait $W 2>/dev/null
	rm -f "$TMP/f"
	check_restored "runq --by cgroup --backend=$backend, a move in the window"
	if grep -q "cgroup moves\|cgroup_attach_task" "$TMP/r.err"; then
		cat "$TMP/r.err"
		fail "$backend: says cgroup moves are not traced on a kernel that has the event"
	fi
	check "$TMP/r.json" "$backend" "$s0" "$s1" "$s1b" "$s2" ||
		fail "$backend: the cgroups' waits before and after the move do not match the threads' schedstat"
done

# the proc backend samples /proc: no moves, and it says so
"$BIN" runq --by cgroup --backend=proc 0.3 > /dev/null 2> "$TMP/p.err" ||
	{ cat "$TMP/p.err"; fail "runq --by cgroup --backend=proc failed"; }
grep -q "sees no cgroup moves" "$TMP/p.err" || { cat "$TMP/p.err"; fail "proc: no note that moves are not seen"; }
check_restored "runq --by cgroup --backend=proc"
echo "PASS"
