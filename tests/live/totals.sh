#!/bin/bash
# Every gap sized: waits the trace cannot time (this host's kernel loses
# what an idle CPU does; lost events anywhere) are counted and sized from
# their threads' schedstat run_delay, so the run-queue totals are the
# kernel's own though the histogram is partial.
#  1. Per process (-P, the default backend): three spinners sharing one
#     CPU, and a thread sleeping 5 ms 300 times (timer wakeups, on an
#     idle CPU when there is one: what this kernel loses); each process's
#     histogram time plus its waits not measured must be its threads'
#     run_delay within 2% (plus 5 us a wait: a wait timed from its
#     sched_waking is longer by the waking-to-enqueue gap). The sleeper's
#     waits are never below run_delay, but may be far above it: a wakeup
#     that preempts the woken CPU's task (its idle task, here) skips the
#     clock update of the switch it causes, so run_delay leaves out the
#     CPU's way to that switch (runq(8), schedstat): 0 us a wait where
#     this tool and bpftrace read 8 us on one host, 38 us on another. Its
#     upper bound is bpftrace's, timing the same waits over a window that
#     holds this one (sched_wakeup to sched_switch, as runqlat): at most
#     2% + 1 us a wait above it (ftrace's probe runs after BPF's on each
#     tracepoint), and a wait bpftrace lacks (this kernel loses the odd
#     switch to BPF too) at most the longest; without bpftrace that bound
#     is not checked (a note).
#  2. The default run (no options): its totals against the change in
#     every thread's schedstat over the run, read here before and after,
#     within 2% (what threads that exited in between waited is in the
#     tool's total, not in the difference: the check says how much). A
#     cross-CPU ping-pong beside spinners moves time between the kernel's
#     run_delays that no tracer sees (the preempted spinner's starts at
#     the stale clock of the wakeup that preempted it: 63 ms more than
#     this tool and bpftrace read over one run here, the ping-pong 32 ms
#     less): the reference is run_delay corrected, for the two workloads,
#     by what bpftrace read of them less their run_delay, less at most
#     what bpftrace read of their waits woken in an idle CPU's idle task
#     (those this kernel loses read 0 here, as in run_delay). Without
#     bpftrace, part 2 is skipped.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
[ -r /proc/self/schedstat ] || skip "no /proc/<pid>/schedstat (CONFIG_SCHED_INFO)"
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
snapshot_save
cpu=$(( $(nproc) - 1 ))

# bpftrace timing every thread's waits as runqlat does (bt_begin, then
# bt_end OUT: "TID NS N INS" lines, INS of NS in waits woken in an idle
# CPU's idle task; empty, with a note, where it cannot)
BT_PID=
BT_WHY=
if ! command -v bpftrace > /dev/null; then
	BT_WHY="bpftrace not installed"
elif ! bpftrace -e 'BEGIN { exit(); }' > /dev/null 2>&1; then
	BT_WHY="bpftrace cannot load programs here"
else
	bt_runq_prog "$TMP/runq.bt"
fi
bt_begin() {
	BT_PID=
	[ -z "$BT_WHY" ] || return 0
	bt_start "$TMP/runq.bt" "$TMP/bt.txt"
}
bt_end() {
	local misses
	: > "$1"
	if [ -z "$BT_PID" ]; then
		note "$BT_WHY"
		return 0
	fi
	misses=$(bt_misses "$BT_PID")
	stop_bpftrace "$BT_PID" || fail "bpftrace did not exit on SIGINT or SIGTERM"
	if [ "${misses:-0}" -gt 0 ]; then
		note "the kernel skipped bpftrace's programs $misses times: its numbers are not used"
		return 0
	fi
	"$PY" - "$TMP/bt.txt" > "$1" <<'PYEOF'
import re, sys
m = {}
for l in open(sys.argv[1]):
    r = re.match(r"@(sum|cnt|isum)\[(\d+)\]: (\d+)", l)
    if r:
        m.setdefault(int(r.group(2)), [0, 0, 0])[("sum", "cnt", "isum").index(r.group(1))] = int(r.group(3))
for t, (ns, n, ins) in sorted(m.items()):
    print(t, ns, n, ins)
PYEOF
}
# ps_tids PID...: every thread of each process, "PID TID" lines
ps_tids() {
	local p t
	for p in "$@"; do
		for t in /proc/"$p"/task/*; do echo "$p ${t##*/}"; done
	done
}

# 1. per process
bt_begin
run_bg "$TMP/p.json" "$TMP/p.err" runq -P --format=json 4
wait_banner "$TMP/p.err"
"$WORKLOAD" sleep 300 5 > "$TMP/pp.json" &
pp=$!
"$WORKLOAD" runq "$cpu" 3 600 > "$TMP/rq.json" &
rq=$!
BG_PIDS="$BG_PIDS $pp $rq"
wait "$TOOL_PID" || { cat "$TMP/p.err"; fail "runq -P exited with $?"; }
[ -s "$TMP/pp.json" ] && [ -s "$TMP/rq.json" ] || fail "the workloads did not finish within the window"
# every thread of each, its main thread too (parked now: final)
echo "$pp $(sched_sum "$pp")" > "$TMP/sums"	# the sleeper first
echo "$rq $(sched_sum "$rq")" >> "$TMP/sums"
ps_tids "$pp" > "$TMP/pp.tids"
bt_end "$TMP/bt.sums"
kill "$pp" "$rq"; wait "$pp" "$rq" 2> /dev/null
check_restored "runq -P --format=json 4"
"$PY" - "$TMP/p.json" "$TMP/sums" "$TMP/bt.sums" "$TMP/pp.tids" <<'PYEOF' || fail "per-process totals do not match schedstat"
import json, sys
out = json.load(open(sys.argv[1]))
tids = [int(l.split()[1]) for l in open(sys.argv[4])]
bts = {int(a): (int(b), int(c)) for a, b, c, _ in (l.split() for l in open(sys.argv[3]))}
bt = [sum(bts.get(t, (0, 0))[k] for t in tids) for k in (0, 1)] if bts else None
groups = {g["pid"]: g for g in out["groups"]}
ok = True
print("backend %s, partial %s, unmeasured %d (%s ns), totals %s" % (
    out["backend"], out["partial"], out["incomplete"]["unmeasured"],
    out["incomplete"].get("unmeasured_ns"), out.get("totals")))
for i, line in enumerate(open(sys.argv[2])):
    pid, rd, n, _ = (int(x) for x in line.split())
    wl = {"pid": pid}
    g = groups.get(pid)
    if g is None:
        print("pid %d: not in the output" % wl["pid"]); ok = False; continue
    if "unmeasured_ns" not in g:
        print("pid %d: its waits not measured were not sized" % wl["pid"]); ok = False; continue
    tot = g["sum_ns"] + g["unmeasured_ns"]
    slack = 0.02 * rd + 5000 * n
    print("pid %d: histogram %.3f ms (%d waits) + %d not measured, %.3f ms = %.3f ms; "
          "schedstat %.3f ms (%d waits): %+.2f%%, exact %s" % (
              wl["pid"], g["sum_ns"] / 1e6, g["count"], g["unmeasured"],
              g["unmeasured_ns"] / 1e6, tot / 1e6, rd / 1e6, n,
              100 * (tot - rd) / max(rd, 1), g["totals_exact"]))
    if g["unmeasured"] and not g["totals_exact"] and out["events"]["lost"] == 0:
        print("  waits not measured, none lost, yet the totals are not called exact"); ok = False
    if tot < rd - slack and not out["events"]["lost"]:
        print("  below run_delay by more than 2%% + 5 us a wait: waits missing"); ok = False
    if i > 0 and tot > rd + 0.02 * rd + 5000 * n:
        print("  above run_delay by more than 2% + 5 us a wait"); ok = False
    if i == 0 and bt:	# the sleeper: wake-preempt waits, which run_delay leaves out
        print("  bpftrace: %.3f ms (%d waits): %+.2f%%" % (bt[0] / 1e6, bt[1], 100 * (tot - bt[0]) / max(bt[0], 1)))
        # a wait one tracer has and the other not: this kernel loses the
        # odd switch to BPF as well (a 4 ms wait ftrace timed, none of whose
        # switch-in bpftrace saw, once in a dozen runs here): at most the
        # longest wait, each
        extra = max(0, g["count"] - bt[1]) * (g["max"] + 1) * 1000
        if tot > bt[0] + 0.02 * bt[0] + 1000 * n + extra:
            print("  above bpftrace's by more than 2% + 1 us a wait + %d waits it lacks at %d us"
                  % (max(0, g["count"] - bt[1]), g["max"] + 1)); ok = False
sys.exit(0 if ok else 1)
PYEOF

# 2. the default run, host-wide
sched_all() {	# every thread's run_delay: "TID NS" lines
	for f in /proc/[0-9]*/task/[0-9]*/schedstat; do
		{ read -r _ d _ < "$f"; } 2> /dev/null && { t=${f%/schedstat}; echo "${t##*/} $d"; }
	done
}
# an idle host, as the comparison needs: what the rest of it waits for a
# CPU in a second, with nothing of ours running (the edges between this
# script's readings and the tool's window hold as much again)
sched_all > "$TMP/sched0"
sleep 1
sched_all > "$TMP/sched1"
bg=$("$PY" - "$TMP/sched0" "$TMP/sched1" <<'PYEOF'
import sys
def load(p):
    return {int(a): int(b) for a, b in (l.split() for l in open(p) if len(l.split()) == 2)}
a, b = load(sys.argv[1]), load(sys.argv[2])
print(sum(v - a.get(t, 0) for t, v in b.items()) // 1000000)
PYEOF
)
if [ "$bg" -gt 20 ]; then
	note "the rest of the host waited $bg ms for a CPU in a second: not idle"
	skip "part 2 (the default run against every thread's schedstat) needs an idle host; part 1 passed"
fi
[ -n "$BT_WHY" ] && skip "part 2 (the default run against every thread's schedstat) needs bpftrace ($BT_WHY); part 1 passed"
bt_begin
sched_all > "$TMP/sched0"
run_bg "$TMP/d.json" "$TMP/d.err" runq --format=json 4
wait_banner "$TMP/d.err"
"$WORKLOAD" pingpong 3000 > /dev/null &
pp=$!
"$WORKLOAD" runq "$cpu" 3 600 > /dev/null &
rq=$!
BG_PIDS="$BG_PIDS $pp $rq"
wait "$TOOL_PID" || { cat "$TMP/d.err"; fail "runq exited with $?"; }
sched_all > "$TMP/sched1"
ps_tids "$pp" "$rq" > "$TMP/d.tids"
bt_end "$TMP/bt2.sums"
[ -s "$TMP/bt2.sums" ] || skip "part 2 needs bpftrace's numbers (above); part 1 passed"
kill "$pp" "$rq"; wait "$pp" "$rq" 2> /dev/null
check_restored "runq --format=json 4"
"$PY" - "$TMP/d.json" "$TMP/sched0" "$TMP/sched1" "$TMP/bt2.sums" "$TMP/d.tids" <<'PYEOF' || fail "the default run's totals do not match schedstat"
import json, sys
out = json.load(open(sys.argv[1]))
def load(p):
    return {int(a): int(b) for a, b in (l.split() for l in open(p) if len(l.split()) == 2)}
before, after = load(sys.argv[2]), load(sys.argv[3])
delta = sum(v - before.get(t, 0) for t, v in after.items())
born = sum(1 for t in after if t not in before)
# what exited before the end is in the tool's total, not in the difference
gone = out["schedstat"]["gone_measured_ns"]
tot = out["totals"]["sum_ns"] - gone
print("backend %s: totals %s, less %.3f ms measured in %d threads gone by the end: %.3f ms; "
      "schedstat of %d threads alive at the end (%d born): %.3f ms: %+.2f%%"
      % (out["backend"], out["totals"], gone / 1e6, out["schedstat"]["gone_threads"], tot / 1e6,
         len(after), born, delta / 1e6, 100 * (tot - delta) / max(delta, 1)))
print("the tool's own reading of the threads alive at both ends:", out["schedstat"])
# the workloads' waits as bpftrace timed them, less their run_delay: what
# the kernel's clock reads moved between threads (born in the run: whole)
bts = {int(a): (int(b), int(d)) for a, b, _, d in (l.split() for l in open(sys.argv[4]))}
shift = idle = 0
for p, tid in (l.split() for l in open(sys.argv[5])):
    tid = int(tid)
    ns, ins = bts.get(tid, (0, 0))
    shift += ns - (after.get(tid, 0) - before.get(tid, 0))
    idle += ins
ref = delta + shift
# a wait woken in an idle CPU's idle task that this kernel lost reads 0
# here (timed onto the idle CPU from its switch, or sized from run_delay)
low = ref - idle
print("the workloads: bpftrace less run_delay %+.3f ms, %.3f ms of it in waits woken in an "
      "idle CPU; the reference %.3f ms (%.3f ms at the least): %+.2f%%"
      % (shift / 1e6, idle / 1e6, ref / 1e6, low / 1e6, 100 * (tot - ref) / max(ref, 1)))
if not out["totals"]["exact"] and out["events"]["lost"] == 0 and out["incomplete"]["unmeasured_unsized"] == 0:
    print("totals not called exact"); sys.exit(1)
sys.exit(0 if low - 0.02 * ref <= tot <= ref + 0.02 * ref else 1)
PYEOF
echo PASS
