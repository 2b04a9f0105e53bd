#!/bin/bash
# A thread blocked for the whole window is what a hang has to show: with
# no event in the trace, offcpu -K -p, offcpu --wakers and triage still
# name it (from /proc), with its state, where it sleeps and its time so
# far; a block begun inside the window and still open at its end is
# counted too. No partial claim for a filter its blocked threads explain.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
snapshot_save

sleep 300 &
sl=$!
BG_PIDS="$BG_PIDS $sl"
sleep 0.3	# asleep before the window begins

# offcpu -K -p: the whole window, in hrtimer_nanosleep (root reads the stack)
"$BIN" offcpu -K -p "$sl" --format=json -q 1 > "$TMP/k.json" 2> "$TMP/k.err" ||
	{ cat "$TMP/k.err"; fail "offcpu -K -p exited $?"; }
check_restored "offcpu -K -p"
"$PY" - "$TMP/k.json" "$sl" <<'PY' || fail "offcpu -K -p: the sleeper blocked the whole window not shown"
import json, sys
d, tid = json.load(open(sys.argv[1])), int(sys.argv[2])
ob = d["open_blocks"]
print("open blocks:", ob)
b = [x for x in ob["longest"] if x["tid"] == tid]
assert ob["count"] >= 1 and ob["whole_window"] >= 1 and b, ob
b = b[0]
assert b["whole_window"] and b["state"] == "S" and b["comm"] == "sleep", b
# at least the window (1 s), a lower bound
assert b["so_far_ns"] >= 0.9e9, b
assert b["where"] and "nanosleep" in b["where"], b
assert d["partial"] is False, "a filter its blocked thread explains is not partial"
PY

# the text says it, and --wakers too
"$BIN" offcpu --wakers -p "$sl" -q 1 > "$TMP/w.txt" 2>&1 || fail "offcpu --wakers -p exited $?"
grep -q "tid $sl sleep: S for >= .* (the whole window)" "$TMP/w.txt" ||
	{ cat "$TMP/w.txt"; fail "offcpu --wakers -p does not show the sleeper"; }

# triage: not "idle" but blocked the whole window, naming it
"$BIN" triage -p "$sl" --format=json -q 1 > "$TMP/t.json" 2> "$TMP/t.err" ||
	{ cat "$TMP/t.err"; fail "triage -p exited $?"; }
"$PY" - "$TMP/t.json" <<'PY' || fail "triage -p: no blocked_whole_window verdict"
import json, sys
d = json.load(open(sys.argv[1]))
print("verdict:", d["verdict"])
assert d["verdict"]["kind"] == "blocked_whole_window", d["verdict"]
assert "sleep" in d["verdict"]["why"] and "waits" in d["verdict"]["next"], d["verdict"]
PY

# a block that begins in the window and is still open at its end: counted,
# with its time so far (less than the window), not as the whole window
sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done; exec sleep 300' &
sp=$!
BG_PIDS="$BG_PIDS $sp"
"$BIN" offcpu -p "$sp" --format=json -q 3 > "$TMP/c.json" 2> "$TMP/c.err" ||
	{ cat "$TMP/c.err"; fail "offcpu -p (spin, then sleep) exited $?"; }
"$PY" - "$TMP/c.json" "$sp" <<'PY' || fail "a block begun in the window and open at its end: not counted as such"
import json, sys
d, tid = json.load(open(sys.argv[1])), int(sys.argv[2])
ob = d["open_blocks"]
print("open blocks:", ob)
b = [x for x in ob["longest"] if x["tid"] == tid]
assert b, "the spinner's final sleep is not among the open blocks"
assert len(b) == 1, ("one block counted twice", b)
b = b[0]
assert not b["whole_window"] and b["state"] == "S", b
assert 0 < b["so_far_ns"] < d["window"]["duration_s"] * 1e9, (b, d["window"])
PY
kill "$sp"
kill "$sl"
check_restored "open blocks"
echo "ok: blocks open at the window's end shown by offcpu -K, --wakers and triage"
