#!/bin/bash
# Names from the right moment: perf's context-switch records carry no
# name, so the perf backend names a switch from its own stream at that
# moment (the tracepoints' payloads, PERF_RECORD_COMM of an exec, a fork's
# parent, over a /proc snapshot taken once the events are on). The ring
# backend reads the kernel's name off every sched_switch: both, over one
# window of bash -c 'exec python3' under contention, must name every wait
# they both list (runq --slower -P --ran-instead) alike (never another
# name, "[unknown]" where the ring had one in at most one wait in 500: a
# process whose fork, exec and wakeups perf never saw, gone before /proc
# could name it), and nobody by a name from before an exec. A perf recording keeps priorities and exact kernel stacks: trace-cmd
# shows no "[0]" priority where the ring's shows [120], and no "=> 0" frame.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
command -v perf > /dev/null || note "perf(1) not installed (not needed)"
snapshot_save

cat > "$TMP/load.sh" <<'SH'
#!/bin/bash
for i in 1 2 3 4 5 6 7 8; do
	( bash -c 'exec python3 -c "sum(range(2*10**6))"' &
	  bash -c 'exec python3 -c "sum(range(2*10**6))"' &
	  bash -c 'exec python3 -c "sum(range(2*10**6))"' & wait )
done
SH
chmod +x "$TMP/load.sh"
run_bg "$TMP/p.json" "$TMP/p.err" runq --slower 1000 -P --ran-instead --backend=perf --format=json 8
P=$TOOL_PID
run_bg "$TMP/r.json" "$TMP/r.err" runq --slower 1000 -P --ran-instead --backend=ring --format=json 8
R=$TOOL_PID
wait_banner "$TMP/p.err"
wait_banner "$TMP/r.err"
"$TMP/load.sh"
wait "$P" || { cat "$TMP/p.err"; fail "runq --backend=perf exited with $?"; }
wait "$R" || { cat "$TMP/r.err"; fail "runq --backend=ring exited with $?"; }
check_restored "runq --slower -P --ran-instead, perf and ring at once"
"$PY" - "$TMP/p.json" "$TMP/r.json" <<'PYEOF' || fail "perf and ring name the same waits differently"
import json, sys
p, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
def idx(d):
    return {(w["tid"], round(w["ts_ns"] / 1e5)): w for w in d["slow_waits"]}
P, R = idx(p), idx(r)
both = sorted(set(P) & set(R))
# the same task, named alike (the task switched out for a wait can differ
# where the ring lost the switch from idle: another fact, not a name)
diff = [(k, "comm", P[k]["comm"], R[k]["comm"]) for k in both if P[k]["comm"] != R[k]["comm"]]
diff += [(k, "prev_comm", P[k]["prev_comm"], R[k]["prev_comm"]) for k in both
         if P[k]["prev_tid"] == R[k]["prev_tid"] and P[k]["prev_comm"] != R[k]["prev_comm"]]
unk = [k for k in both if "[unknown]" in (P[k]["comm"], P[k]["prev_comm"]) and
       "[unknown]" not in (R[k]["comm"], R[k]["prev_comm"])]
# who ran instead: blank nowhere; "[unknown]" only where the ring, reading
# the kernel's name off each switch, had none either
rnames = {x["tid"]: x["comm"] for w in r["slow_waits"] for x in w["ran_instead"]}
blank = sum(1 for w in p["slow_waits"] for x in w["ran_instead"] if x["comm"] == "" or
            (x["comm"] == "[unknown]" and rnames.get(x["tid"], "[unknown]") != "[unknown]"))
py = sum(1 for k in both if R[k]["comm"] == "python3")
print("perf %d waits, ring %d, %d in both (%d of python3 after its exec); names differ: %d; "
      "[unknown] in perf only: %d; perf's ran-instead names blank or unknown where the ring's is not: %d of %d; counted unnamed: %d"
      % (len(P), len(R), len(both), py, len(diff), len(unk), blank,
         sum(len(w["ran_instead"]) for w in p["slow_waits"]), p["slow_waits_unnamed"]))
for d in diff[:10]:
    print("  ", d)
# never another name; "[unknown]" where the ring had one (a process whose
# fork, exec and wakeups perf never saw, gone before it could be read) at
# most one wait in 500
wrong = [d for d in diff if "[unknown]" not in d[2:]]
ok = (len(both) >= 20 and py > 0 and not wrong and len(unk) * 500 <= len(both) and
      blank * 500 <= sum(len(w["ran_instead"]) for w in p["slow_waits"]))
sys.exit(0 if ok else 1)
PYEOF

# a perf recording: priorities and kernel stacks as the ring's
if command -v trace-cmd > /dev/null; then
	"$BIN" record -K --backend=perf -o "$TMP/p.dat" 1 2> "$TMP/rec.err" || { cat "$TMP/rec.err"; fail "record failed"; }
	trace-cmd report -i "$TMP/p.dat" > "$TMP/p.txt" 2> /dev/null || fail "trace-cmd cannot read the perf recording"
	n=$(grep -c "sched_switch:" "$TMP/p.txt")
	zero=$(grep -c "sched_switch: .* \[0\] .* ==> .* \[0\]$" "$TMP/p.txt")
	pad=$(grep -c "=> 0$" "$TMP/p.txt")
	note "perf recording: $n switches, $zero with both priorities [0], $pad '=> 0' frames"
	[ "$n" -gt 0 ] || fail "no switch in the recording"
	[ "$pad" = 0 ] || fail "$pad zero frames padding the perf recording's kernel stacks"
	[ "$zero" -lt "$n" ] && [ "$zero" -le $(( n / 20 )) ] || fail "priorities lost in the perf recording"
	check_restored "record -K --backend=perf"
else
	note "trace-cmd not installed: the recording's priorities and stacks are not checked"
fi
echo PASS
