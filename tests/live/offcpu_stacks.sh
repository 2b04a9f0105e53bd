#!/bin/bash
# offcpu -K/-U: a thread blocked ~1 s reading a pipe nobody writes and a
# thread sleeping in nanosleep show stacks with the expected kernel
# functions and totals within 5% of the blocked time; with -U the
# workload's own blocking function appears; folded output is valid.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
# the blocked threads share a CPU with a SCHED_IDLE spinner: see offcpu_sleep.sh
cpu=$(( $(nproc) - 1 ))
# the pipe's read function: pipe_read, anon_pipe_read since 6.15
PIPE_READ=$(awk '$3 == "pipe_read" || $3 == "anon_pipe_read" { print $3; exit }' /proc/kallsyms)
[ -n "$PIPE_READ" ] || skip "no pipe_read in /proc/kallsyms"
awk '$3 == "'"$PIPE_READ"'" { exit $1 ~ /^0+$/ ? 0 : 1 }' /proc/kallsyms && skip "kallsyms addresses are hidden (kptr_restrict)"
snapshot_save
BLOCK_MS=1000

run_bg "$TMP/k.json" "$TMP/k.err" offcpu -K -U --format=json 3
wait_banner "$TMP/k.err"
"$WORKLOAD" pipe $BLOCK_MS $cpu > "$TMP/pipe.json" &
p1=$!
"$WORKLOAD" sleep 5 100 $cpu > "$TMP/sleep.json" &
p2=$!
BG_PIDS="$BG_PIDS $p1 $p2"
wait "$TOOL_PID" || { cat "$TMP/k.err"; fail "offcpu -K -U exited with $?"; }
kill $p1 $p2; wait $p1 $p2 2>/dev/null
check_restored "offcpu -K -U"

"$PY" - "$TMP/k.json" "$TMP/pipe.json" "$TMP/sleep.json" $BLOCK_MS "$PIPE_READ" <<'PY' || fail "stacks wrong"
import json, sys
out = json.load(open(sys.argv[1]))
pipe_tid = json.load(open(sys.argv[2]))["threads"][0]["tid"]
sleep_tid = json.load(open(sys.argv[3]))["threads"][0]["tid"]
block_us = int(sys.argv[4]) * 1000
pipe_read = sys.argv[5]
st = out["stacks"]
assert st, "no stacks"
tot = [s["total"] for s in st]
assert tot == sorted(tot, reverse=True), "JSON stacks not sorted by total"

def find(tid, fn):
    return [s for s in st if s["tid"] == tid and any(f == fn or f.startswith(fn + " ") for f in s["frames"])]

p = find(pipe_tid, pipe_read)
assert p, "no stack with %s for tid %d: %r" % (pipe_read, pipe_tid, [s for s in st if s["tid"] == pipe_tid])
total = max(s["total"] for s in p)
print("pipe reader: %d us in pipe_read (blocked %d us)" % (total, block_us))
assert abs(total - block_us) <= 0.05 * block_us, "pipe_read total %d not within 5%% of %d" % (total, block_us)
top = max(p, key=lambda s: s["total"])
print("  kernel:", top["frames"][:top["kernel_frames"]][:8])
print("  user:", top["frames"][top["kernel_frames"]:])
assert top["frames"][0] == "__schedule", "kernel stack should start at __schedule: %r" % top["frames"][:3]
assert "blocked_in_pipe_read" in top["frames"][top["kernel_frames"]:], "user stack lacks blocked_in_pipe_read"

s = find(sleep_tid, "do_nanosleep") or find(sleep_tid, "hrtimer_nanosleep")
assert s, "no nanosleep stack for tid %d" % sleep_tid
total = sum(x["total"] for x in s)
print("sleeper: %d us in nanosleep over %d intervals (slept 500000 us)" % (total, sum(x["count"] for x in s)))
assert abs(total - 500000) <= 0.05 * 500000, "nanosleep total %d not within 5%% of 500000" % total
PY

# folded: "comm;frame;...;frame N" lines only, nothing else on stdout
run_bg "$TMP/f.txt" "$TMP/f.err" offcpu -K -f 1
wait_banner "$TMP/f.err"
"$WORKLOAD" pipe 500 $cpu > /dev/null &
p1=$!
BG_PIDS="$BG_PIDS $p1"
wait "$TOOL_PID" || fail "offcpu -K -f exited with $?"
kill $p1; wait $p1 2>/dev/null
[ -s "$TMP/f.txt" ] || fail "no folded output"
bad=$(grep -cvE '^[^ ;]+(;[^;]+)+ [0-9]+$' "$TMP/f.txt")
[ "$bad" = 0 ] || { grep -vE '^[^ ;]+(;[^;]+)+ [0-9]+$' "$TMP/f.txt" | head; fail "$bad lines are not folded stacks"; }
grep -qE "^workload;.*;$PIPE_READ;.*;__schedule [0-9]+\$" "$TMP/f.txt" ||
	fail "no folded workload stack through $PIPE_READ ending at __schedule"
note "folded: $(grep -m1 "$PIPE_READ" "$TMP/f.txt")"
check_restored "offcpu -K -f"

# SIGINT mid-window with the trigger set: restored too
run_bg "$TMP/f.txt" "$TMP/f.err" offcpu -K 30
wait_banner "$TMP/f.err"
kill -INT "$TOOL_PID"; wait "$TOOL_PID" || fail "offcpu -K stopped by SIGINT exited $?"
check_restored "offcpu -K, SIGINT"
