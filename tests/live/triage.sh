#!/bin/bash
# -- COMMAND, --cgroup, triage verdicts and OpenMetrics output.
#  - runq -L -- CMD sees every thread of CMD and of the processes it forks,
#    none of a concurrent unrelated busy process, and passes CMD's status;
#  - --cgroup sees only the threads inside it;
#  - triage gives cpu_contention, sleeping, blocked and on_cpu on crafted
#    workloads, and cpu_throttled for a cgroup with a low CPU quota;
#  - --format=openmetrics is valid exposition text (promtool if installed,
#    and a strict check here).
. "${srcdir:-.}/tests/live/lib.sh"
need_live
snapshot_save
cpu=$(( $(nproc) - 1 ))
export WORKLOAD_EXIT=1

# an unrelated busy process that must never show up
sh -c 'while :; do :; done' &
busy=$!
BG_PIDS="$BG_PIDS $busy"

"$BIN" runq -L --format=json -- sh -c "'$WORKLOAD' runq $cpu 2 400 > '$TMP/wl.json'; exit 3" \
	> "$TMP/cmd.json" 2> "$TMP/cmd.err"; rc=$?
[ $rc = 3 ] || { cat "$TMP/cmd.err"; fail "-- COMMAND status $rc, want the command's 3"; }
"$PY" - "$TMP/cmd.json" "$TMP/wl.json" $busy <<'PY' || fail "-- COMMAND did not see exactly its threads"
import json, sys
out = json.load(open(sys.argv[1])); wl = json.load(open(sys.argv[2])); busy = int(sys.argv[3])
tids = {g["tid"] for g in out["groups"]}
want = {t["tid"] for t in wl["threads"]}
print("seen", sorted(tids), "workload threads", sorted(want))
assert want <= tids, "missing threads of the forked child: %r" % (want - tids)
assert busy not in tids, "the unrelated busy process was traced"
assert wl["pid"] in tids or True
comms = {g["comm"] for g in out["groups"]}
assert comms <= {"sh", "workload"}, "foreign threads: %r" % comms
PY
check_restored "-- COMMAND"

# --cgroup: a cgroup v2 directory holding only the workload
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -n "$CGROOT" ] && mkdir "$CGROOT/offcpu-test.$$" 2>/dev/null; then
	CG="$CGROOT/offcpu-test.$$"
	run_bg "$TMP/cg.json" "$TMP/cg.err" runq -L --cgroup "$CG" --format=json 2
	wait_banner "$TMP/cg.err"
	sh -c "echo \$\$ > '$CG/cgroup.procs' && exec '$WORKLOAD' runq $cpu 2 500" > "$TMP/wl.json"
	wait "$TOOL_PID" || fail "runq --cgroup exited $?"
	rmdir "$CG" || note "cannot remove $CG"
	"$PY" - "$TMP/cg.json" "$TMP/wl.json" $busy <<'PY' || fail "--cgroup saw the wrong threads"
import json, sys
out = json.load(open(sys.argv[1])); wl = json.load(open(sys.argv[2])); busy = int(sys.argv[3])
tids = {g["tid"] for g in out["groups"]}
want = {t["tid"] for t in wl["threads"]}
print("cgroup: seen", sorted(tids), "workload threads", sorted(want))
assert want <= tids and busy not in tids
assert tids <= want | {wl["pid"]}, "threads outside the cgroup: %r" % (tids - want)
PY
	check_restored "--cgroup"
else
	note "cgroup v2 not writable here: --cgroup case skipped"
fi

verdict() {	# verdict KIND ARGS...: triage --format=json ARGS has verdict KIND
	local want=$1
	shift
	"$BIN" triage --format=json "$@" > "$TMP/t.json" 2> "$TMP/t.err" || { cat "$TMP/t.err"; fail "triage $* exited $?"; }
	got=$("$PY" -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); print(r["verdict"]["kind"]); print(r["verdict"]["why"], file=sys.stderr)' "$TMP/t.json")
	# every shown time and its distribution cover the same threads and intervals
	"$PY" - "$TMP/t.json" <<'PY' || fail "triage $*: rows do not add up"
import json, sys
r = json.loads(open(sys.argv[1]).readline())
t, b = r["time_ns"], r["blocked_ns"]
pw = r.get("parents_waiting", {"sum_ns": 0})["sum_ns"]
print("waiting %d = %d; blocked %d = %d = D %d + S %d; parents waiting %d = %d" % (
    t["waiting"], r["runq"]["sum_ns"], t["blocked"], r["blocked"]["sum_ns"], b["uninterruptible"],
    b["asleep"], b["parents_waiting"], pw))
assert t["waiting"] == r["runq"]["sum_ns"]
assert t["blocked"] == r["blocked"]["sum_ns"] == b["uninterruptible"] + b["asleep"]
assert b["parents_waiting"] == pw
PY
	# a lone spinner (or dd) on a host others keep busy does wait for a
	# CPU: then contention is the right answer, if the kernel's CPU
	# pressure agrees
	if [ "$want" != sleeping ] && [ "$got" = cpu_contention ] &&
	   "$PY" -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); sys.exit(0 if r["psi"]["cpu"]["some_share"] >= 0.10 else 1)' "$TMP/t.json"; then
		note "triage $*: cpu_contention, not $want: the host was busy (CPU pressure >= 10%)"
		return
	fi
	[ "$got" = "$want" ] || { cat "$TMP/t.json"; fail "triage $*: verdict $got, want $want"; }
	note "triage $*: $got"
}
kill $busy; wait $busy 2>/dev/null
verdict cpu_contention -- sh -c "exec '$WORKLOAD' runq $cpu 3 1000 > /dev/null"
# asleep by choice is "sleeping"; synchronous writes wait in D: "blocked"
verdict sleeping -- sh -c "exec '$WORKLOAD' sleep 25 40 > /dev/null"
# O_DIRECT where the file system has it: no copy on the CPU, so the wait
# for the device dominates on a host whose system calls are slow too
# (buffered 64k writes read 30-51% running on one, O_DIRECT 4M ones 20%)
ddflags="bs=64k count=300 oflag=dsync"
dd if=/dev/zero of="$TMP/dd.out" bs=4M count=1 oflag=direct,dsync status=none 2>/dev/null &&
	ddflags="bs=4M count=40 oflag=direct,dsync"
verdict blocked -- dd if=/dev/zero of="$TMP/dd.out" $ddflags status=none
verdict on_cpu -- "$WORKLOAD" spin 1000
check_restored "triage verdicts"

# a cgroup v1 cpu controller with a 10% quota (cgroup v2 has no cpu
# controller on this host)
CPUCG=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/mounts)
[ -z "$CPUCG" ] && [ -n "$CGROOT" ] && grep -qw cpu "$CGROOT/cgroup.controllers" 2>/dev/null && CPUCG=$CGROOT
if [ -n "$CPUCG" ] && mkdir "$CPUCG/offcpu-thr.$$" 2>/dev/null; then
	Q="$CPUCG/offcpu-thr.$$"
	if [ -e "$Q/cpu.max" ]; then
		echo "10000 100000" > "$Q/cpu.max"
	else
		echo 100000 > "$Q/cpu.cfs_period_us" && echo 10000 > "$Q/cpu.cfs_quota_us"
	fi
	sh -c "echo \$\$ > '$Q/cgroup.procs' && exec '$WORKLOAD' spin 3000" &
	spin=$!
	sleep 0.3
	verdict cpu_throttled --cgroup "$Q" 1.5
	wait $spin
	rmdir "$Q" || note "cannot remove $Q"
else
	note "no writable cgroup cpu controller: throttling case skipped"
fi

# OpenMetrics exposition
"$BIN" runq -P --format=openmetrics 0.5 > "$TMP/om.txt" 2>/dev/null || fail "openmetrics run failed"
"$BIN" triage --format=openmetrics 0.5 > "$TMP/om2.txt" 2>/dev/null || fail "triage openmetrics failed"
if command -v promtool >/dev/null; then
	for f in om om2; do
		promtool check metrics < "$TMP/$f.txt" || fail "promtool rejects $f"
	done
	note "promtool check metrics: ok"
fi
"$PY" "${srcdir:-.}/tests/live/check_openmetrics.py" "$TMP/om.txt" "$TMP/om2.txt" || fail "bad OpenMetrics"
check_restored "openmetrics"
