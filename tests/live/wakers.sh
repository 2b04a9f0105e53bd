#!/bin/bash
# offcpu --wakers (BCC's wakeuptime and offwaketime): a writer thread
# wakes a reader blocked on a pipe every 10 ms, 50 times, on an otherwise
# idle host (as users meet this kernel). Per backend (auto, ring):
#   - --wakers: the (writer -> reader) entry has the 50 wakeups, and its
#     time (switch-out to sched_waking) matches bpftrace's over the same
#     window within 2%; no other waker is credited with the reader's
#     wakeups;
#   - -K --wakers: the reader's stacks end in pipe_read, their waker's
#     hold pipe_write, with 50 intervals; the time (switch-out to
#     switch-in) matches bpftrace's within 2%, or the result says it is
#     partial (the ring backend here loses an idle CPU's switch-ins);
#   - -f: offwaketime's folded layout.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
N=50
BT=
if command -v bpftrace > /dev/null && bpftrace -e 'BEGIN { exit(); }' > /dev/null 2>&1; then
	BT=1
fi
snapshot_save
cat > "$TMP/wake.bt" <<'BTEOF'
BEGIN { printf("Attached\n"); }
tracepoint:sched:sched_switch {
	if (args->prev_comm == "workload") { @out[args->prev_pid] = nsecs; }
	$o = @in[args->next_pid];
	if ($o) { @off[args->next_pid] = sum(nsecs - $o); @offn[args->next_pid] = count();
		delete(@in[args->next_pid]); }
}
tracepoint:sched:sched_waking /@out[args->pid]/ {
	@w[tid, args->pid] = sum(nsecs - @out[args->pid]); @wn[tid, args->pid] = count();
	@in[args->pid] = @out[args->pid];
	delete(@out[args->pid]);
}
END { clear(@out); clear(@in); }
BTEOF

run_case() {	# BACKEND ARGS...: the JSON in $TMP/w.json, the workload's in $TMP/wl.json, bpftrace's in $TMP/bt.txt
	local be=$1
	shift
	if [ -n "$BT" ]; then
		: > "$TMP/bt.txt"	# not an earlier run's "Attached"
		bpftrace "$TMP/wake.bt" > "$TMP/bt.txt" 2> "$TMP/bt.err" &
		BT_PID=$!
		BG_PIDS="$BG_PIDS $BT_PID"
		for _ in $(seq 1 300); do grep -q Attached "$TMP/bt.txt" && break; sleep 0.05; done
		grep -q Attached "$TMP/bt.txt" || { cat "$TMP/bt.err"; fail "bpftrace did not attach"; }
	fi
	WORKLOAD_EXIT=1 "$BIN" offcpu "$@" --backend="$be" --format=json -- \
		"$WORKLOAD" wake $N 10 > "$TMP/w.json" 2> "$TMP/w.err" ||
		{ cat "$TMP/w.err"; fail "offcpu $* --backend=$be exited $?"; }
	[ -z "$BT" ] || stop_bpftrace "$BT_PID" || fail "bpftrace did not exit on SIGINT or SIGTERM"
	check_restored "offcpu $* --backend=$be -- workload wake"
	grep '^{"pid"' "$TMP/w.err" > "$TMP/wl.json" || { cat "$TMP/w.err"; fail "no workload output"; }
}

judge() {	# MODE BACKEND
	"$PY" - "$1" "$2" "$TMP/w.json" "$TMP/wl.json" "${BT:+$TMP/bt.txt}" <<'PYEOF'
import json, re, sys
mode, be, out, wl = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
bt = open(sys.argv[5]).read() if len(sys.argv) > 5 and sys.argv[5] else ""
reader, writer = wl["threads"][0]["tid"], wl["threads"][1]["tid"]
ents = out["wakers"]["entries"]
mine = [e for e in ents if e["tid"] == reader]
fromw = [e for e in mine if e["waker_tid"] == writer]
n = sum(e["count"] for e in fromw)
ns = sum(e["total_ns"] for e in fromw)
print("%s, %s: reader %d woken by writer %d: %d intervals, %.3f ms; partial %s" %
      (mode, be, reader, writer, n, ns / 1e6, out["partial"]))
ok = True
# its 50 reads block and are woken by the writer (one more: the first read
# may find its byte already there; at the end, an exit wakeup of its own)
if not (48 <= n <= 51):
    print("  expected about 50 wakeups by the writer"); ok = False
others = [e for e in mine if e["waker_tid"] not in (writer, 0)]
if sum(e["count"] for e in others) > 3:
    print("  wakeups of the reader credited to others:", others); ok = False
if mode == "offwaketime":
    piped = sum(e["count"] for e in fromw if any("pipe_write" in f for f in e["waker_frames"]))
    if piped < 48:
        print("  only %d of the writer's wakeups have pipe_write in its stack:" % piped,
              [e["waker_frames"][:6] for e in fromw]); ok = False
    if not any(any("pipe_read" in f for f in e["frames"]) for e in fromw):
        print("  no reader stack in pipe_read"); ok = False
if bt:
    if mode == "wakeuptime":
        m = {(int(a), int(b)): int(c) for a, b, c in re.findall(r"@w\[(\d+), (\d+)\]: (\d+)", bt)}
        want = m.get((writer, reader), 0)
    else:
        m = {int(a): int(b) for a, b in re.findall(r"@off\[(\d+)\]: (\d+)", bt)}
        want = m.get(reader, 0)
    err = (ns - want) / max(want, 1)
    print("  bpftrace: %.3f ms (%+.2f%%)" % (want / 1e6, 100 * err))
    if abs(err) > 0.02 and not (out["partial"] and mode == "offwaketime"):
        print("  complete by its own account, but not within 2% of bpftrace"); ok = False
sys.exit(0 if ok else 1)
PYEOF
}

for be in auto ring; do
	run_case "$be" --wakers
	judge wakeuptime "$be" || fail "$be: --wakers disagrees"
	run_case "$be" -K --wakers
	judge offwaketime "$be" || fail "$be: -K --wakers disagrees"
done

# offwaketime -f: target;frames;--;waker frames;waker N
WORKLOAD_EXIT=1 "$BIN" offcpu -K --wakers -f -- "$WORKLOAD" wake 20 5 > "$TMP/f.txt" 2> "$TMP/f.err" ||
	{ cat "$TMP/f.err"; fail "offcpu -K --wakers -f exited $?"; }
check_restored "offcpu -K --wakers -f"
grep -qE '^workload;[^ ]*pipe_read[^ ]*;--;[^ ]*pipe_write[^ ]*;workload [0-9]+$' "$TMP/f.txt" ||
	{ cat "$TMP/f.txt"; fail "no folded line joining pipe_read to pipe_write"; }
grep -qvE '^[^ ]+ [0-9]+$' "$TMP/f.txt" && { grep -vE '^[^ ]+ [0-9]+$' "$TMP/f.txt"; fail "a line not folded"; }
echo "PASS"
