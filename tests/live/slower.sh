#!/bin/bash
# runq --slower (BCC's runqslower): the waits it lists are the kernel's
# own. Three spinners, a sleeper and a reader pinned to one CPU: with a
# threshold of 0 every wait of 1 us or more is listed, and per thread the
# listed waits must add up to schedstat's run_delay (within 2%, as
# runq -L); with --ran-instead each wait's occupants must cover it and be
# the workload's other threads. The text layout is runqslower's, byte for
# byte in its header and columns. On the automatic backend and on ring.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
[ -r /proc/self/schedstat ] || skip "no /proc/<pid>/schedstat (CONFIG_SCHED_INFO)"
snapshot_save
cpu=$(( $(nproc) - 1 ))

for backend in auto ring; do
	run_bg "$TMP/slow.json" "$TMP/slow.err" runq --slower 0 -P --ran-instead \
		--format=json --backend=$backend 4
	wait_banner "$TMP/slow.err"
	"$WORKLOAD" runq "$cpu" 3 1000 > "$TMP/wl.json" &
	wl=$!
	BG_PIDS="$BG_PIDS $wl"
	wait "$TOOL_PID" || { cat "$TMP/slow.err"; fail "runq --slower exited with $?"; }
	kill "$wl"; wait "$wl" 2>/dev/null
	check_restored "runq --slower 0 -P --ran-instead --format=json --backend=$backend 4"
	"$PY" - "$TMP/slow.json" "$TMP/wl.json" <<'PYEOF' || fail "$backend: --slower's waits do not match schedstat"
import json, sys
out = json.load(open(sys.argv[1]))
wl = json.load(open(sys.argv[2]))
assert out["command"] == "runq" and out["slower_us"] == 0
tids = {t["tid"] for t in wl["threads"]}
waits = out["slow_waits"]
assert out["slow_waits_not_listed"] == 0
assert out["waits_over"] == len(waits), (out["waits_over"], len(waits))
# the histogram of the same run counts every wait, the list those >= 1 us
hist = out["groups"][0]
assert len(waits) <= hist["count"] and len(waits) >= hist["count"] - sum(
    b["count"] for b in hist["buckets"] if b["high"] < 1), (len(waits), hist["count"])
ok = True
tops = mine_top = 0
for t in wl["threads"]:
    mine = [w for w in waits if w["tid"] == t["tid"]]
    got = sum(w["lat_ns"] for w in mine)
    want = t["run_delay_ns"]
    err = abs(got - want) / max(want, 1)
    print("tid %d: schedstat %d ns / %d, listed %d ns / %d (%.2f%%), missed switches %d" %
          (t["tid"], want, t["pcount"], got, len(mine), 100 * err, out["incomplete"]["missed_switch"]))
    missed = out["incomplete"]["missed_switch"]
    if err > 0.02 and not (missed and got <= want * 1.02 and err <= 0.06):
        ok = False
    for w in mine:
        assert w["lat_ns"] >= 1000 and w["pid"] == wl["pid"], w
        ran = w["ran_instead"]
        assert len(ran) <= 3 and sum(r["ns"] for r in ran) <= w["ran_instead_seen_ns"] <= w["lat_ns"], w
        assert all(a["ns"] >= b["ns"] for a, b in zip(ran, ran[1:])), w
        if w["ran_instead_complete"] and w["lat_ns"] > 100000:
            # who ran instead covers the wait (every switch on that CPU seen)
            assert w["ran_instead_seen_ns"] >= 0.98 * w["lat_ns"], w
            tops += 1
            mine_top += ran[0]["tid"] in tids | {wl["pid"]}
# on a shared host others run too, but the spinners took most waits' CPU
print("the workload ran instead in %d of %d long waits" % (mine_top, tops))
assert tops > 10 and mine_top >= 0.5 * tops
assert sum(t["run_delay_ns"] for t in wl["threads"]) > 100e6, "the workload did not contend"
sys.exit(0 if ok else 1)
PYEOF
done

# the text: runqslower's banner, header and columns, one line per wait
run_bg "$TMP/slow.txt" "$TMP/slow.err" runq --slower 1000 -P 2
wait_banner "$TMP/slow.err"
WORKLOAD_EXIT=1 "$WORKLOAD" runq "$cpu" 2 500 > /dev/null
wait "$TOOL_PID" || { cat "$TMP/slow.err"; fail "runq --slower exited with $?"; }
check_restored "runq --slower 1000 -P 2"
head -2 "$TMP/slow.txt" > "$TMP/head"
printf '%s\n' "Tracing run queue latency higher than 1000 us" \
	"TIME     COMM             TID           LAT(us) PREV COMM        PREV TID" |
	cmp -s - "$TMP/head" || { cat "$TMP/slow.txt"; fail "not runqslower's header"; }
lines=$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2} .{16} [0-9 ]{6} +[0-9]+ .{16} [0-9 ]{6}$' "$TMP/slow.txt")
[ "$lines" -ge 10 ] || { cat "$TMP/slow.txt"; fail "only $lines runqslower lines"; }
# LAT(us) by its column (a COMM may hold spaces): after TIME, COMM and TID
awk 'NR > 2 && /^[0-9]/ { split(substr($0, 33), f, " "); if (f[1] + 0 <= 1000) { print; bad = 1 } }
	END { exit bad }' "$TMP/slow.txt" || fail "a line at or under the threshold"
grep -q '^# [0-9]* of [0-9]* run-queue waits over 1000 us$' "$TMP/slow.txt" ||
	fail "no summary line"
note "$lines lines in runqslower's layout"
echo "PASS"
