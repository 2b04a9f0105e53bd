#!/bin/bash
# The flight recorder (record --flight SECS): an idle-burst-idle command,
# whose only run-queue waits over 6 ms are the burst's: exactly the window
# from SECS before the first to --after after it is saved, with the
# outlier in it (report lists it at SECS into the window, and nothing
# outside the window's bounds), the command's exit status returned;
# SIGUSR1 saves FILE, FILE.2 with --max-files 2; --offcpu-over with
# --state fires on S sleeps and not for D; runq --record --flight prints
# its histogram too; a store too small for SECS at the event rate says so;
# tracefs is restored after each.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
snapshot_save

# idle 2.5 s, 300 ms of three spinners and a sleeper on one CPU, idle 2.5 s
IDLE_BURST_IDLE="sleep 2.5; WORKLOAD_EXIT=1 '$WORKLOAD' runq 0 3 300 > /dev/null; sleep 2.5; exit 3"
# on each backend that records: perf (auto here, where switches are lost) and ring
for bk in perf ring; do
	rm -f "$TMP/f.dat" "$TMP/f.dat.2"
	"$BIN" record --backend "$bk" --flight 1 --after 0.5 --runq-over 6000 -o "$TMP/f.dat" \
		-- sh -c "$IDLE_BURST_IDLE" 2> "$TMP/f.err"
	rc=$?
	cat "$TMP/f.err"
	[ "$rc" = 3 ] || fail "record --flight -- COMMAND exited $rc, not the command's 3"
	check_restored "record --backend $bk --flight -- COMMAND"
	grep -q "saved $TMP/f.dat: 1.500 s of events around a run-queue wait of [0-9.]* ms by tid [0-9]* (workload)" \
		"$TMP/f.err" || fail "no one-line note of the save"
	[ "$(grep -c '^offcpu-ftrace: saved' "$TMP/f.err")" = 1 ] || fail "more than one file saved with --max-files 1"
	[ ! -e "$TMP/f.dat.2" ] || fail "a second file with --max-files 1"
	[ "$(stat -c %a "$TMP/f.dat")" = 600 ] || fail "the recording is not mode 0600"
	lat=$(sed -n 's/.*run-queue wait of \([0-9.]*\) ms.*/\1/p' "$TMP/f.err")
	# the metadata says which wait, whose, how long (plain key=value lines)
	ttid=$(sed -n 's/.* by tid \([0-9]*\) .*/\1/p' "$TMP/f.err")
	grep -aq "^flight_trigger_kind=runq$" "$TMP/f.dat" && grep -aq "^flight_trigger_tid=$ttid$" "$TMP/f.dat" &&
		grep -aq "^flight_secs=1$" "$TMP/f.dat" || fail "the recording's metadata lacks the trigger ($bk)"

	"$BIN" report "$TMP/f.dat" runq --slower 0 > "$TMP/slow.txt" 2> "$TMP/slow.err" ||
		{ cat "$TMP/slow.err"; fail "report of the flight recording failed"; }
	grep -q "is a flight recording: 1.500 s, .* saved on a run-queue wait" "$TMP/slow.err" ||
		fail "report does not say what the recording is: $(cat "$TMP/slow.err")"
	"$PY" - "$TMP/slow.txt" "$lat" <<'PY' || fail "the window is not the trigger's ($bk)"
import sys
lines = [l.split() for l in open(sys.argv[1]) if l[:1] == " " or l[:1].isdigit()]
waits = [(float(f[0]), f[1], int(f[2]), int(f[3])) for f in lines if len(f) >= 4]
assert waits, "no waits in the window"
# every wait ends inside the window's bounds (time from its start)
assert all(0 <= t <= 1.5 for t, _, _, _ in waits), [w for w in waits if not 0 <= w[0] <= 1.5][:3]
# the first over 6 ms is the trigger, SECS (1 s) into the window
over = [w for w in waits if w[3] > 6000]
t, comm, tid, us = over[0]
assert abs(t - 1.0) < 0.002, ("trigger not at 1 s", over[0])
assert comm == "workload" and abs(us / 1000.0 - float(sys.argv[2])) < 0.002, (over[0], sys.argv[2])
# the burst is in it (its spinners queue behind each other), the idle before is not
assert len(over) >= 10, ("the burst's waits are not in the window", len(over))
print("# %d waits in the window, %d over 6 ms, the first %.3f ms at %.3f s" % (len(waits), len(over), us / 1000.0, t))
PY
done

# SIGUSR1 saves now, twice with --max-files 2
run_bg "$TMP/u.out" "$TMP/u.err" record --flight 1 --after 0.2 --max-files 2 -o "$TMP/u.dat" 4
wait_banner "$TMP/u.err"
sleep 1.5
kill -USR1 "$TOOL_PID"
sleep 1.5
kill -USR1 "$TOOL_PID"
wait "$TOOL_PID" || { cat "$TMP/u.err"; fail "record --flight with SIGUSR1 exited $?"; }
check_restored "record --flight SIGUSR1"
cat "$TMP/u.err"
[ -s "$TMP/u.dat" ] && [ -s "$TMP/u.dat.2" ] || fail "SIGUSR1 twice did not save FILE and FILE.2"
grep -q "saved $TMP/u.dat.2: 1.200 s of events around a SIGUSR1" "$TMP/u.err" || fail "no note of FILE.2's save"
"$BIN" report "$TMP/u.dat.2" runq 2>&1 >/dev/null | grep -q "flight recording: 1.200 s" ||
	fail "FILE.2 does not hold 1.2 s"

# --offcpu-over 1 s --state: sleep(1)'s 1.5 s in S fires it; D does not
for st in S D; do
	"$BIN" record --flight 1 --after 0.1 --offcpu-over 1000000 --state "$st" -o "$TMP/o$st.dat" \
		-- sh -c "sleep 1.5; sleep 0.5" > /dev/null 2> "$TMP/o$st.err" ||
		{ cat "$TMP/o$st.err"; fail "record --offcpu-over --state $st exited $?"; }
	check_restored "record --offcpu-over --state $st"
done
grep -q "saved $TMP/oS.dat: 1.100 s of events around an off-CPU interval of 1[45][0-9][0-9].[0-9]* ms by tid [0-9]* (sleep), state S" \
	"$TMP/oS.err" || { cat "$TMP/oS.err"; fail "--offcpu-over --state S did not save on the sleep"; }
grep -q "no trigger fired in .*: nothing saved" "$TMP/oD.err" && [ ! -e "$TMP/oD.dat" ] ||
	{ cat "$TMP/oD.err"; fail "--state D fired on S sleeps"; }

# runq --record --flight: the analysis prints, the window is saved
"$BIN" runq --record "$TMP/r.dat" --flight 1 --after 0.2 --runq-over 6000 -- sh -c "$IDLE_BURST_IDLE" \
	> "$TMP/r.out" 2> "$TMP/r.err"
[ $? = 3 ] || { cat "$TMP/r.err"; fail "runq --record --flight did not exit with the command's status"; }
check_restored "runq --record --flight"
grep -q "usecs *: count" "$TMP/r.out" || fail "runq --flight printed no histogram"
grep -q "saved $TMP/r.dat: 1.200 s" "$TMP/r.err" || { cat "$TMP/r.err"; fail "runq --flight saved no window"; }

# a store too small for SECS at this rate: a warning, and the save says so
"$BIN" record --flight 30 --buffer-size 64 -o "$TMP/s.dat" -- sh -c \
	"WORKLOAD_EXIT=1 '$WORKLOAD' pingpong 20000 > /dev/null; kill -USR1 \$PPID; sleep 0.3" 2> "$TMP/s.err" ||
	{ cat "$TMP/s.err"; fail "record --flight with a small store exited $?"; }
check_restored "record --flight, store too small"
grep -q "warning: the flight store (512 KiB per CPU) holds only .* s of events at this rate, not --flight 30 s: raise --buffer-size" \
	"$TMP/s.err" || { cat "$TMP/s.err"; fail "no warning of a store too small"; }
grep -q "saved $TMP/s.dat: .*the store held less than --flight: raise --buffer-size" "$TMP/s.err" ||
	{ cat "$TMP/s.err"; fail "the save does not say it holds less than asked"; }
echo "PASS: flight recorder"
