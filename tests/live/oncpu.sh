#!/bin/bash
# oncpu (BCC's cpudist): every timeslice, against the kernel's own
# accounting and bpftrace. Per thread, the slices' count is schedstat's
# pcount (times switched in) and their sum its exec time (sum_exec_runtime)
# within 2%, plus at most 60 us a slice: the kernel charges a woken
# thread from its run queue's last clock update, tens of microseconds
# before the switch a tracer sees (bpftrace reads what oncpu reads:
# offcpu-ftrace-oncpu(8), ACCURACY; where the reschedule reaches the
# CPU late, as between some hypervisors' virtual CPUs, that is more, and
# a count that matches with a sum bpftrace agrees with passes, saying
# so). Three spinners, a sleeper and a
# reader pinned to one CPU (busy: nothing lost), and a thread sleeping
# 20 ms at a time on idle CPUs, as users meet this kernel, each beside bpftrace
# where it runs: exact where the backend sees every switch (within 2% of
# bpftrace plus 10 us a slice: the two tools read the clock at different
# points of a switch, bpftrace in its program, the ring or perf as they
# write, and perf's switch records come after the context switch; 7.5 us
# a slice seen under a parallel make check), and where it cannot, partial
# and saying so. Auto and ring.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
[ -r /proc/self/schedstat ] || skip "no /proc/<pid>/schedstat (CONFIG_SCHED_INFO)"
snapshot_save
cpu=$(( $(nproc) - 1 ))
BT=
if command -v bpftrace > /dev/null && bpftrace -e 'BEGIN { exit(); }' > /dev/null 2>&1; then
	BT=1
	cat > "$TMP/on.bt" <<'BTEOF'
BEGIN { printf("Attached\n"); }
tracepoint:sched:sched_switch {
	$s = @s[args->prev_pid];
	if ($s) { @sum[args->prev_pid] = sum(nsecs - $s); @cnt[args->prev_pid] = count(); }
	delete(@s[args->prev_pid]);
	@s[args->next_pid] = nsecs;
}
END { clear(@s); }
BTEOF
fi

check() {	# check OUT.json WORKLOAD.json WHAT [BPFTRACE.txt BPFTRACE_MISSES]
	"$PY" - "$@" <<'PYEOF'
import json, re, sys
out, wl, what = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
bt = open(sys.argv[4]).read() if len(sys.argv) > 4 else ""
misses = int(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[5] else None
print("%s: backend %s, %d switches from perf's context-switch records, bpftrace's programs "
      "skipped %s times (recursion_misses; counted for tracepoint programs from 6.7)" %
      (what, out["backend"], out["events"]["switch_records"], "?" if misses is None else misses))
bsum = {int(a): int(b) for a, b in re.findall(r"@sum\[(\d+)\]: (\d+)", bt)}
bcnt = {int(a): int(b) for a, b in re.findall(r"@cnt\[(\d+)\]: (\d+)", bt)}
assert out["command"] == "oncpu" and out["key"] == "tid", out["command"]
groups = {g["tid"]: g for g in out["groups"]}
inc = out["incomplete"]
ok = True
for t in wl["threads"]:
    g = groups.get(t["tid"], {"count": 0, "sum_ns": 0, "buckets": []})
    err = abs(g["sum_ns"] - t["run_ns"]) / max(t["run_ns"], 1)
    print("%s: tid %d: schedstat %d ns / %d slices, oncpu %d ns / %d (%.2f%%); slices "
          "not measured %d, missed switches %d, partial %s" %
          (what, t["tid"], t["run_ns"], t["pcount"], g["sum_ns"], g["count"], 100 * err,
           inc["slice_unmeasured"], inc["missed_switch"], out["partial"]))
    assert sum(b["count"] for b in g["buckets"]) == g["count"]
    if t["tid"] in bcnt:
        bdc = g["count"] - bcnt[t["tid"]]
        bds = (g["sum_ns"] - bsum[t["tid"]]) / max(bsum[t["tid"]], 1)
        print("  bpftrace: %d ns / %d slices (%+.2f%%)" % (bsum[t["tid"]], bcnt[t["tid"]], 100 * bds))
        # on a kernel that drops switches from idle, perf's switch records
        # come from its scheduler hooks, where bpftrace's program runs at
        # the sched_switch tracepoint before both: the switch-in record
        # after the context switch (ours shorter by 1.7-4.2 us a slice
        # here), the switch-out record after the switch's bookkeeping
        # before it (ours longer; on a host with a fast context switch
        # that wins: +0.7 us a slice seen); where both time the tracepoint,
        # each reads the clock at its own point of the switch (bpftrace in
        # its program, the ring or perf as they write): -7.5 us a slice for
        # a thread of short slices, once, under a parallel make check.
        # 2% plus 10 us a slice either way
        short = bsum[t["tid"]] - g["sum_ns"]
        bt_agrees = not (abs(bdc) > 2 or
                         abs(short) > 0.02 * bsum[t["tid"]] + 10000 * bcnt[t["tid"]])
        if not out["partial"] and not bt_agrees and misses:
            print("  not within 2% (plus 10 us a slice) of bpftrace, whose programs the "
                  "kernel skipped %d times: its numbers lack those switches" % misses)
        elif not out["partial"] and not bt_agrees:
            print("  complete by its own account, but not within 2% (plus 10 us a slice) "
                  "of bpftrace")
            ok = False
    else:
        bt_agrees = False
    slack = 0.02 * t["run_ns"] + 60000 * t["pcount"]
    if abs(g["sum_ns"] - t["run_ns"]) <= slack and abs(g["count"] - t["pcount"]) <= 2:
        continue
    if bt_agrees and abs(g["count"] - t["pcount"]) <= 2:
        # sum_exec_runtime starts at the wakeup's clock reading (the
        # clock-update skip): a reschedule slow to reach the CPU is in
        # it and in no tracer's slice; bpftrace, timing the switches
        # itself, is the check then
        print("  (schedstat %+.1f us a slice; bpftrace agrees: the kernel's clock-update "
              "skip, offcpu-ftrace-oncpu(8) ACCURACY)" %
              ((t["run_ns"] - g["sum_ns"]) / 1e3 / max(t["pcount"], 1)))
        continue
    # visibly partial: the slices the trace could not time are counted,
    # and what was timed is never more than the kernel's
    if (out["partial"] and g["count"] + inc["slice_unmeasured"] >= t["pcount"] - 2 and
            g["sum_ns"] <= t["run_ns"] + slack):
        print("  (partial, and says so)")
        continue
    ok = False
sys.exit(0 if ok else 1)
PYEOF
}

bt_on() {	# bpftrace beside the next window, where it runs
	[ -n "$BT" ] || return 0
	: > "$TMP/bt.txt"	# not an earlier run's "Attached"
	bpftrace "$TMP/on.bt" > "$TMP/bt.txt" 2> "$TMP/bt.err" &
	BT_PID=$!
	BG_PIDS="$BG_PIDS $BT_PID"
	for _ in $(seq 1 300); do grep -q Attached "$TMP/bt.txt" && break; sleep 0.05; done
	grep -q Attached "$TMP/bt.txt" || { cat "$TMP/bt.err"; fail "bpftrace did not attach"; }
}

for backend in auto ring; do
	bt_on
	run_bg "$TMP/on.json" "$TMP/on.err" oncpu -L --format=json --backend=$backend 4
	wait_banner "$TMP/on.err"
	"$WORKLOAD" runq "$cpu" 3 1000 > "$TMP/wl.json" &
	wl=$!
	BG_PIDS="$BG_PIDS $wl"
	wait "$TOOL_PID" || { cat "$TMP/on.err"; fail "oncpu exited with $?"; }
	if [ -n "$BT" ]; then
		misses=$(bt_misses "$BT_PID")
		stop_bpftrace "$BT_PID" || fail "bpftrace did not exit on SIGINT or SIGTERM"
	fi
	kill "$wl"; wait "$wl" 2>/dev/null
	check_restored "oncpu -L --format=json --backend=$backend 4"
	check "$TMP/on.json" "$TMP/wl.json" "$backend, busy CPU" ${BT:+"$TMP/bt.txt" "$misses"} ||
		fail "$backend: timeslices do not match schedstat"

	# idle CPUs: the sleeper's switch-ins are those this kernel may not record
	bt_on
	run_bg "$TMP/on.json" "$TMP/on.err" oncpu -L --format=json --backend=$backend 2
	wait_banner "$TMP/on.err"
	"$WORKLOAD" sleep 40 20 > "$TMP/wl.json" &
	wl=$!
	BG_PIDS="$BG_PIDS $wl"
	wait "$TOOL_PID" || { cat "$TMP/on.err"; fail "oncpu exited with $?"; }
	if [ -n "$BT" ]; then
		misses=$(bt_misses "$BT_PID")
		stop_bpftrace "$BT_PID" || fail "bpftrace did not exit on SIGINT or SIGTERM"
	fi
	kill "$wl"; wait "$wl" 2>/dev/null
	check_restored "oncpu -L --format=json --backend=$backend 2 (idle)"
	check "$TMP/on.json" "$TMP/wl.json" "$backend, idle CPUs" ${BT:+"$TMP/bt.txt" "$misses"} ||
		fail "$backend: the sleeper's timeslices neither match schedstat nor say they are partial"
done

# the text: cpudist's banner and histogram layout
run_bg "$TMP/on.txt" "$TMP/on.err" oncpu 2
wait_banner "$TMP/on.err"
WORKLOAD_EXIT=1 "$WORKLOAD" runq "$cpu" 2 500 > /dev/null
wait "$TOOL_PID" || fail "oncpu exited with $?"
check_restored "oncpu 2"
head -3 "$TMP/on.txt" | cmp -s - <(printf 'Tracing on-CPU time... Hit Ctrl-C to end.\n\n     usecs               : count     distribution\n') ||
	{ cat "$TMP/on.txt"; fail "not cpudist's banner and header"; }
echo "PASS"
