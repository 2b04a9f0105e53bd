#!/bin/bash
# Every exit path leaves tracefs as it was: normal end, SIGINT, SIGTERM,
# SIGHUP (results printed, exit 0), a second SIGINT (no output, 130), with
# another tool's instance present and untouched; and cleanup removes only
# instances of dead offcpu-ftrace runs. Runs use the ring backend, the one
# that writes to tracefs (auto picks perf on a kernel that loses switches).
. "${srcdir:-.}/tests/live/lib.sh"
need_live

# someone else's instance, with its own settings, must survive untouched
FOREIGN="$T/instances/foreign-test.$$"
mkdir "$FOREIGN" || fail "cannot create $FOREIGN"
trap 'rmdir "$FOREIGN" 2>/dev/null; cleanup_tmp' EXIT
echo global > "$FOREIGN/trace_clock"
echo 1 > "$FOREIGN/events/sched/sched_waking/enable"
snapshot_save

for sig in INT TERM HUP; do
	run_bg "$TMP/out" "$TMP/err" runq --backend=ring 30
	wait_banner "$TMP/err"
	sleep 0.3
	kill -$sig "$TOOL_PID"
	wait "$TOOL_PID"; rc=$?
	[ $rc = 0 ] || { cat "$TMP/err"; fail "runq stopped by SIG$sig exited $rc, want 0"; }
	grep -q "usecs *: count *distribution" "$TMP/out" || grep -q '^count=' "$TMP/out" ||
		fail "no histogram printed after SIG$sig"
	grep -q "stopped by SIG$sig" "$TMP/out" || { cat "$TMP/out"; fail "output does not say SIG$sig cut the window"; }
	check_restored "SIG$sig"
done

# a second SIGINT: restore, no output, exit 128+2
run_bg "$TMP/out" "$TMP/err" offcpu --backend=ring -L 30
wait_banner "$TMP/err"
kill -INT "$TOOL_PID"; kill -INT "$TOOL_PID"
wait "$TOOL_PID"; rc=$?
[ $rc = 130 ] || [ $rc = 0 ] || fail "double SIGINT exited $rc, want 130 (or 0 if the first finished first)"
check_restored "double SIGINT"

# a normal timed run, JSON, with intervals
run_bg "$TMP/out" "$TMP/err" offcpu --backend=ring --format=json 0.3 3
wait "$TOOL_PID" || fail "offcpu 0.3 3 exited $?"
[ "$(grep -c '"command":"offcpu"' "$TMP/out")" = 3 ] || { cat "$TMP/out"; fail "want 3 JSON intervals"; }
check_restored "offcpu 0.3 3"

# SIGKILL leaves the instance; cleanup removes it and nothing else
run_bg "$TMP/out" "$TMP/err" runq --backend=ring 30
wait_banner "$TMP/err"
kill -KILL "$TOOL_PID"; wait "$TOOL_PID" 2>/dev/null
ls "$T/instances" | grep -q "^offcpu-ftrace\.$TOOL_PID\$" || fail "SIGKILLed run left no instance (unexpected)"
# every backend's run warns about it (perf's too: the leftover still records), and info
for b in ring perf; do
	"$BIN" offcpu --backend=$b 0.1 > /dev/null 2> "$TMP/err" || fail "a $b run beside a leftover failed"
	grep -q "warning: 1 tracefs instance left by killed runs (offcpu-ftrace.$TOOL_PID)" "$TMP/err" ||
		{ cat "$TMP/err"; fail "no warning about the leftover instance from a $b run"; }
done
"$BIN" info > "$TMP/info" 2>&1 || fail "info beside a leftover exited $?"
grep -q "^left by killed runs:  1 tracefs instance left by killed runs (offcpu-ftrace.$TOOL_PID)" "$TMP/info" ||
	{ cat "$TMP/info"; fail "info does not show the leftover instance"; }
"$BIN" cleanup > "$TMP/clean" 2>&1 || { cat "$TMP/clean"; fail "cleanup exited $?"; }
grep -q "removed instances/offcpu-ftrace.$TOOL_PID" "$TMP/clean" || { cat "$TMP/clean"; fail "cleanup did not report the removal"; }
check_restored "SIGKILL + cleanup"

# cleanup never touches a live run's instance
run_bg "$TMP/out" "$TMP/err" runq --backend=ring 30
wait_banner "$TMP/err"
"$BIN" cleanup > "$TMP/clean" 2>&1
ls "$T/instances" | grep -q "^offcpu-ftrace\.$TOOL_PID\$" || fail "cleanup removed a running tool's instance"
kill -INT "$TOOL_PID"; wait "$TOOL_PID"
check_restored "cleanup beside a live run"

# ... whatever its binary is named (a copy, a symlink): the owner is the
# live process that started before the instance, not a name
cp "$BIN" "$TMP/oft"
BIN_SAVED=$BIN BIN=$TMP/oft
run_bg "$TMP/out" "$TMP/err" runq --backend=ring 30
BIN=$BIN_SAVED
wait_banner "$TMP/err"
[ "$(cat /proc/$TOOL_PID/comm)" = oft ] || fail "the copy runs as $(cat /proc/$TOOL_PID/comm), not oft"
"$BIN" cleanup > "$TMP/clean" 2>&1
ls "$T/instances" | grep -q "^offcpu-ftrace\.$TOOL_PID\$" ||
	{ cat "$TMP/clean"; fail "cleanup removed the instance of a running copy named oft"; }
kill -INT "$TOOL_PID"; wait "$TOOL_PID"
check_restored "cleanup beside a live run of a renamed copy"
