#!/bin/bash
# --by cgroup against the kernel's own accounting: two cgroups made for the
# test (on the cpu controller's hierarchy, v1 here; v2 elsewhere), removed
# on every exit path: in one, three spinners and a reader pinned to one CPU
# (contended), in the other a thread sleeping 10 ms at a time on idle CPUs.
# Each process waits on a FIFO, in its cgroup, until the window has begun;
# its threads' schedstat run_delay then and once they are parked is the
# truth. Per cgroup, runq's total equals the run_delay its threads gained
# (within 2% plus 60 us a wait), or says it is partial, or is over it by
# no more than their sum_exec_runtime gained (the clock-update skip moves a
# woken thread's delivery from one to the other: runq(8)); offcpu's off-CPU
# total holds the sleeper's 30 sleeps; profile's on-CPU and run-queue time
# per cgroup equal its threads' sum_exec_runtime (plus the steal in the
# window, which that leaves out: oncpu(8) ACCURACY) and run_delay; triage's
# rows give the contended cgroup contention and the sleeper's sleeping,
# each waiting what its threads' run_delay gained; a recording made with
# --by cgroup reports per cgroup as the live run did; runq --slower's lines
# name the cgroup. On auto
# (perf), ring and proc. The cgroup's name and path in JSON, 'cgroup =
# NAME' in text, and the OpenMetrics cgroup label bounded by --top (the
# rest cgroup="other").
. "${srcdir:-.}/tests/live/lib.sh"
need_live
[ -r /proc/self/schedstat ] || skip "no /proc/<pid>/schedstat (CONFIG_SCHED_INFO)"
snapshot_save
cpu=$(( $(nproc) - 1 ))
make_cgroup busy
CGA=$CG
make_cgroup idle
CGB=$CG

# window OUT ARGS...: the tool's window (ARGS) over the contended workload
# in A and the sleeper in B, started together once it traces; their
# threads' schedstat sums before and after in a0 a1 b0 b1; the steal of
# A's CPU and of all CPUs (B is not pinned) over the window in st_a, st_b
window() {
	local out=$1 rc
	shift
	cg_held "$CGA" "$TMP/fa" "$TMP/wa.json" runq "$cpu" 3 300
	A=$HELD
	cg_held "$CGB" "$TMP/fb" "$TMP/wb.json" sleep 30 10
	B=$HELD
	run_bg "$out" "$TMP/w.err" "$@"
	wait_banner "$TMP/w.err"
	a0=$(sched_sum $A)
	b0=$(sched_sum $B)
	st_a=$(steal_ns "$cpu")
	st_b=$(steal_ns)
	echo go > "$TMP/fa"
	echo go > "$TMP/fb"
	wait "$TOOL_PID" || { rc=$?; cat "$TMP/w.err"; fail "$* exited with $rc"; }
	a1=$(sched_sum $A)
	b1=$(sched_sum $B)
	st_a=$(( $(steal_ns "$cpu") - st_a ))
	st_b=$(( $(steal_ns) - st_b ))
	[ "$st_b" -gt 0 ] && note "$*: steal grew $((st_a / 1000000)) ms on CPU $cpu, $((st_b / 1000000)) ms in all"
	kill $A $B; wait $A $B 2>/dev/null
	rm -f "$TMP/fa" "$TMP/fb"
	check_restored "$*"
}

check() {	# check OUT.json WHAT A-START A-END B-START B-END
	"$PY" - "$@" "$CGA" "$CGB" <<'PYEOF'
import json, os, sys
out, what = json.load(open(sys.argv[1])), sys.argv[2]
a0, a1, b0, b1 = (list(map(int, x.split())) for x in sys.argv[3:7])
cga, cgb = sys.argv[7], sys.argv[8]
groups = {g.get("cgroup_path"): g for g in out["groups"]}
ok = True
for cg, s0, s1 in ((cga, a0, a1), (cgb, b0, b1)):
    # the path below the hierarchy's root
    path = "/" + os.path.basename(cg)
    g = groups.get(path)
    want, waits = s1[0] - s0[0], s1[1] - s0[1]
    if g is None:
        print("%s: no group for %s (groups: %s)" % (what, path, sorted(groups, key=str)))
        ok = False
        continue
    assert g["cgroup"] == path, g["cgroup"]
    err = g["sum_ns"] - want
    print("%s: %s: %d waits, %.3f ms; schedstat %d waits, %.3f ms (%+.2f%%); unmeasured %d" %
          (what, path, g["count"], g["sum_ns"] / 1e6, waits, want / 1e6,
           100 * err / max(want, 1), g["unmeasured"]))
    if abs(err) <= 0.02 * want + 60000 * waits:
        continue
    if out["partial"] and g["unmeasured"] > 0 and g["sum_ns"] <= want + 60000 * waits:
        print("  (partial, and says so)")
        continue
    # the kernel's clock-update skip (runq(8), schedstat) ends run_delay at
    # the wakeup's clock reading and charges the rest as running: ours waits
    # more, by no more than what the threads were charged for running
    ran = s1[2] - s0[2]
    if 0 < err <= 0.02 * want + 60000 * waits + ran:
        print("  (%.3f ms over run_delay, within the %.3f ms charged as running: the "
              "kernel's clock-update skip)" % (err / 1e6, ran / 1e6))
        continue
    ok = False
sys.exit(0 if ok else 1)
PYEOF
}

for backend in auto ring proc; do
	window "$TMP/r.json" runq --by cgroup --format=json --backend=$backend 3
	check "$TMP/r.json" "$backend" "$a0" "$a1" "$b0" "$b1" ||
		fail "$backend: a cgroup's waits neither match its threads' schedstat nor say they are partial"
done

# offcpu: the sleeper's cgroup holds its 30 sleeps of 10 ms; text and OpenMetrics
cg_held "$CGB" "$TMP/fb" "$TMP/wb.json" sleep 30 10
B=$HELD
run_bg "$TMP/o.json" "$TMP/o.err" offcpu --by cgroup --format=json 2
wait_banner "$TMP/o.err"
echo go > "$TMP/fb"
wait "$TOOL_PID" || { cat "$TMP/o.err"; fail "offcpu --by cgroup exited with $?"; }
kill $B; wait $B 2>/dev/null
rm -f "$TMP/fb"
check_restored "offcpu --by cgroup"
"$PY" - "$TMP/o.json" "/${CGB##*/}" <<'PYEOF' || fail "offcpu --by cgroup: the sleeper's cgroup"
import json, sys
out, path = json.load(open(sys.argv[1])), sys.argv[2]
g = [g for g in out["groups"] if g.get("cgroup_path") == path]
assert g, "no group for %s" % path
print("offcpu: %s: %d intervals, %.1f ms off-CPU" % (path, g[0]["count"], g[0]["sum_ns"] / 1e6))
assert g[0]["count"] >= 30 and g[0]["sum_ns"] >= 30 * 10e6 * 0.98, g[0]
PYEOF

# profile --by cgroup: a row per cgroup, its on-CPU and run-queue time its
# threads' (within 2% plus 60 us a switch-in), on auto (perf: sampled)
window "$TMP/p.json" profile --by cgroup --format=json 3
"$PY" - "$TMP/p.json" "$a0" "$a1" "$b0" "$b1" "/${CGA##*/}" "/${CGB##*/}" "$st_a" "$st_b" <<'PYEOF' ||
import json, os, sys
sys.path.insert(0, os.path.join(os.environ.get("srcdir", "."), "tests", "live"))
from kacct import skip_split, steal_slack
out = json.load(open(sys.argv[1]))
a0, a1, b0, b1 = (list(map(int, x.split())) for x in sys.argv[2:6])
rows = {r["path"]: r for r in out["profile"]["cgroups"]}
ok = True
# on-CPU timed between switches holds the steal sum_exec_runtime leaves out
for path, s0, s1, steal in ((sys.argv[6], a0, a1, int(sys.argv[8])),
                            (sys.argv[7], b0, b1, int(sys.argv[9]))):
    r = rows.get(path)
    if r is None:
        print("profile: no row for %s (rows: %s)" % (path, sorted(rows, key=str)))
        ok = False
        continue
    runq, waits, on = s1[0] - s0[0], s1[1] - s0[1], s1[2] - s0[2]
    slack = 60000 * waits
    on_slack = 0.02 * on + slack + steal_slack(steal)	# ours over schedstat
    print("profile: %s (%s, %d threads): on-CPU %.3f ms, schedstat %.3f ms; run queue %.3f ms, "
          "schedstat %.3f ms; unplaced %.3f ms; partial %s" %
          (path, r["cgroup"], r["threads"], r["on_cpu_ns"] / 1e6, on / 1e6, r["runq_ns"] / 1e6,
           runq / 1e6, r["unplaced_ns"] / 1e6, out["partial"]))
    assert r["on_cpu_ns"] + r["runq_ns"] + r["off_cpu_ns"] + r["unplaced_ns"] <= r["wall_ns"] + 1000
    d_on = r["on_cpu_ns"] - on
    if (d_on > on_slack or -d_on > 0.02 * on + slack or
            (abs(r["runq_ns"] - runq) > 0.02 * runq + slack and not out["partial"])):
        # the kernel's clock-update skip (kacct.py): ours waits more
        skipped = skip_split(r["on_cpu_ns"], r["runq_ns"], on, runq,
                             on_slack + 0.02 * runq)
        if skipped:
            print("  (%s)" % skipped)
        else:
            ok = False
sys.exit(0 if ok else 1)
PYEOF
	fail "profile --by cgroup: a cgroup's on-CPU or run-queue time is not its threads'"

# triage --by cgroup: the contended cgroup's own verdict is contention,
# the sleeper's is sleeping, each row's wait its threads' run_delay
window "$TMP/t.json" triage --by cgroup --format=json 3
"$PY" - "$TMP/t.json" "$a0" "$a1" "$b0" "$b1" "/${CGA##*/}" "/${CGB##*/}" <<'PYEOF' ||
import json, sys
out = json.load(open(sys.argv[1]))
a0, a1, b0, b1 = (list(map(int, x.split())) for x in sys.argv[2:6])
rows = {r["path"]: r for r in out["cgroups"]}
ok = True
for path, s0, s1, kind in ((sys.argv[6], a0, a1, "cpu_contention"),
                           (sys.argv[7], b0, b1, "sleeping")):
    r = rows.get(path)
    if r is None:
        print("triage: no row for %s (rows: %s)" % (path, sorted(rows, key=str)))
        ok = False
        continue
    runq, waits = s1[0] - s0[0], s1[1] - s0[1]
    print("triage: %s: running %.0f%%, waiting %.0f%% (%.3f ms, schedstat %.3f ms), blocked "
          "%.0f%%: %s" % (path, 100 * r["share"]["running"], 100 * r["share"]["waiting"],
                          r["time_ns"]["waiting"] / 1e6, runq / 1e6, 100 * r["share"]["blocked"],
                          r["verdict"]["kind"]))
    got = r["verdict"]["kind"]
    # the sleeper, woken onto the spinners' CPU, waits behind them: where
    # that is most of its small demand (the demand rule, triage(8)), or
    # its p99 wait passes --runq-tail (the tail rule), contention for a
    # sleeper is the right answer, if it mostly slept
    if (kind == "sleeping" and got == "cpu_contention" and r["share"]["blocked"] >= 0.5 and
            (r["verdict"]["why"].startswith("of the time threads wanted a CPU") or
             "p99 wait" in r["verdict"]["why"])):
        print("  (a sleeper whose wakeups waited behind the spinners: %s)" % r["verdict"]["why"])
    elif got != kind:
        ok = False
    if abs(r["time_ns"]["waiting"] - runq) > 0.02 * runq + 60000 * waits and not out["partial"]:
        ok = False
sys.exit(0 if ok else 1)
PYEOF
	fail "triage --by cgroup: a cgroup's verdict or wait is not its threads'"

# runq --slower --by cgroup: the contended cgroup's slow waits name it
window "$TMP/s.txt" runq --slower 5000 --by cgroup 3
grep -q "^Tracing run queue latency higher than 5000 us" "$TMP/s.txt" &&
	grep -q "^TIME     COMM             TID           LAT(us) CGROUP$" "$TMP/s.txt" ||
	{ head -3 "$TMP/s.txt"; fail "runq --slower --by cgroup: not runqslower's banner with a CGROUP column"; }
n=$(grep -c " /${CGA##*/}\$" "$TMP/s.txt")
note "runq --slower 5000 --by cgroup: $n waits over 5 ms named /${CGA##*/}"
[ "$n" -ge 3 ] || { cat "$TMP/s.txt"; fail "the contended cgroup's slow waits do not name it"; }

# a recording made with --by cgroup keeps its threads' cgroups: report
# keys on them and gives each cgroup what the live run gave it; one made
# without is refused with a line that says how to make one
window "$TMP/live.json" runq --by cgroup --format=json --record "$TMP/cg.dat" 3
"$BIN" report "$TMP/cg.dat" runq --by cgroup --format=json > "$TMP/rep.json" 2> "$TMP/e" ||
	{ cat "$TMP/e"; fail "report --by cgroup of a recording made with --by cgroup"; }
"$PY" - "$TMP/live.json" "$TMP/rep.json" "/${CGA##*/}" "/${CGB##*/}" <<'PYEOF' ||
import json, sys
live, rep = (json.loads(open(p).read().strip().splitlines()[-1]) for p in sys.argv[1:3])
lg = {g.get("cgroup_path"): g for g in live["groups"]}
rg = {g.get("cgroup_path"): g for g in rep["groups"]}
ok = True
for path in sys.argv[3:5]:
    a, b = lg.get(path), rg.get(path)
    if not a or not b:
        print("report: %s missing (live %s, report %s)" % (path, sorted(lg, key=str), sorted(rg, key=str)))
        ok = False
        continue
    print("report of the recording: %s: %d waits, %.3f ms; live %d, %.3f ms" %
          (path, b["count"], b["sum_ns"] / 1e6, a["count"], a["sum_ns"] / 1e6))
    if abs(a["count"] - b["count"]) > max(2, 0.02 * a["count"]) or \
            abs(a["sum_ns"] - b["sum_ns"]) > 0.02 * a["sum_ns"] + 100000:
        ok = False
sys.exit(0 if ok else 1)
PYEOF
	fail "report --by cgroup of the recording does not give each cgroup what the live run gave"
# runqslower -P's columns and the cgroup's, of the same recording: each
# slow wait of the contended cgroup names the task switched out for it
"$BIN" report "$TMP/cg.dat" runq --slower 5000 -P --by cgroup > "$TMP/sp.txt" 2> "$TMP/e" ||
	{ cat "$TMP/e"; fail "report runq --slower -P --by cgroup"; }
grep -q "^TIME     COMM             TID           LAT(us) PREV COMM        PREV TID CGROUP$" "$TMP/sp.txt" ||
	{ head -3 "$TMP/sp.txt"; fail "runq --slower -P --by cgroup: not runqslower -P's header with CGROUP"; }
n=$(grep -cE " [0-9]+ +[^ ].* [0-9]+ +/${CGA##*/}\$" "$TMP/sp.txt")
note "report runq --slower 5000 -P --by cgroup: $n waits over 5 ms of /${CGA##*/} with the task switched out"
[ "$n" -ge 3 ] || { cat "$TMP/sp.txt"; fail "the contended cgroup's slow waits lack PREV COMM/TID"; }
"$BIN" record -o "$TMP/plain.dat" 0.3 > /dev/null 2>&1 || fail "record 0.3"
"$BIN" report "$TMP/plain.dat" runq --by cgroup > /dev/null 2> "$TMP/e"
rc=$?
[ $rc = 1 ] || { cat "$TMP/e"; fail "report --by cgroup of a recording without cgroups exited $rc, not 1 (what the recording lacks)"; }
grep -q "holds no cgroups: a file that keeps them is made by a live analysis with --by cgroup" "$TMP/e" ||
	{ cat "$TMP/e"; fail "no clear line for a recording without cgroups"; }
"$BIN" record --by cgroup -o "$TMP/x.dat" 1 > /dev/null 2> "$TMP/e" && fail "record --by cgroup ran"
grep -q "runq --by cgroup --record FILE" "$TMP/e" || { cat "$TMP/e"; fail "record --by does not say how to keep the cgroups"; }
check_restored "record, report --by cgroup"

# the hierarchy keyed on, in the plan; in a cgroup namespace of its own
# (unshare -C) the plan says /proc's paths are relative to it
"$BIN" runq --by cgroup --dry-run 1 > "$TMP/plan" 2> "$TMP/e" || { cat "$TMP/e"; fail "runq --by cgroup --dry-run"; }
grep -q '^cgroups:  keyed on the .* at /' "$TMP/plan" || { cat "$TMP/plan"; fail "the plan names no hierarchy"; }
grep -q "namespace" "$TMP/plan" && { cat "$TMP/plan"; fail "a namespace said where the test runs in the initial one"; }
if command -v unshare > /dev/null && unshare -C true 2> /dev/null; then
	unshare -C "$BIN" runq --by cgroup --dry-run 1 > "$TMP/plan" 2> "$TMP/e" ||
		{ cat "$TMP/e"; fail "runq --by cgroup --dry-run in a cgroup namespace"; }
	grep -q "relative to this process's cgroup namespace" "$TMP/plan" ||
		{ cat "$TMP/plan"; fail "in a cgroup namespace, the plan does not say so"; }
fi

"$BIN" runq --by cgroup 0.5 > "$TMP/r.txt" 2> "$TMP/e" || { cat "$TMP/e"; fail "runq --by cgroup (text) failed"; }
grep -q '^cgroup = /' "$TMP/r.txt" || { head "$TMP/r.txt"; fail "no 'cgroup = NAME' section"; }
cg_held "$CGA" "$TMP/fa" "$TMP/wa.json" runq "$cpu" 2 200
A=$HELD
run_bg "$TMP/r.prom" "$TMP/r.err" runq --by cgroup --top 1 --format=openmetrics 2
wait_banner "$TMP/r.err"
echo go > "$TMP/fa"
wait "$TOOL_PID" || { cat "$TMP/r.err"; fail "runq --by cgroup --format=openmetrics exited with $?"; }
kill $A; wait $A 2>/dev/null
check_restored "runq --by cgroup --format=openmetrics"
grep -q "^offcpu_ftrace_runq_latency_seconds_count{command=\"runq\",cgroup=\"/${CGA##*/}\"}" "$TMP/r.prom" ||
	{ grep _count "$TMP/r.prom"; fail "the contended cgroup is not the --top 1 series"; }
grep -q '^offcpu_ftrace_runq_latency_seconds_count{command="runq",cgroup="other"}' "$TMP/r.prom" ||
	{ grep _count "$TMP/r.prom"; fail "the rest is not cgroup=\"other\""; }
if command -v promtool > /dev/null; then
	promtool check metrics < "$TMP/r.prom" > "$TMP/pc" 2>&1 || { cat "$TMP/pc"; fail "promtool check metrics"; }
fi
echo "PASS"
