#!/bin/bash
# report never crashes: every analysis (runq, -P/-L/-C, offcpu, -K/-U/-f,
# --state, triage) in every output format, on every kind of recording
# (plain, -K, -U, -K -U, a live run's --record with stacks). Each run
# either succeeds or fails with exit 1 and the one line that says the
# recording lacks what the analysis needs; never a signal, never exit 2.
. "${srcdir:-.}/tests/live/lib.sh"
need_live
snapshot_save

# a workload that blocks, sleeps and contends, so stacks are real
load() {
	"$WORKLOAD" runq 0 2 200 > /dev/null &
	BG_PIDS="$BG_PIDS $!"
	sleep 0.3
}

rec() {	# NAME ARGS...: record 1 s with a workload
	local name=$1
	shift
	run_bg /dev/null "$TMP/$name.err" record -o "$TMP/$name.dat" "$@" 1
	wait_banner "$TMP/$name.err"
	load
	wait "$TOOL_PID" || { cat "$TMP/$name.err"; fail "record $* exited"; }
	check_restored "record $*"
}
rec plain
rec k -K
rec u -U
rec ku -K -U
# a live run's --record, with kernel stacks
run_bg /dev/null "$TMP/live.err" offcpu -K --record "$TMP/live.dat" 1
wait_banner "$TMP/live.err"
load
wait "$TOOL_PID" || { cat "$TMP/live.err"; fail "offcpu -K --record exited"; }
check_restored "offcpu -K --record"

n=0
check_one() {	# FILE ANALYSIS...
	local f=$1 rc
	shift
	"$BIN" report "$TMP/$f.dat" "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	n=$((n + 1))
	if [ $rc = 0 ]; then
		[ -s "$TMP/out" ] || fail "report $f.dat $*: exit 0 but no output"
		return
	fi
	[ $rc -ge 128 ] && fail "report $f.dat $*: killed by signal $((rc - 128))"
	[ $rc = 1 ] || { cat "$TMP/err"; fail "report $f.dat $*: exit $rc"; }
	grep -qE "has no (kernel|user) stacks: record with" "$TMP/err" ||
		fail "report $f.dat $*: exit 1: $(cat "$TMP/err")"
	# only when the recording really lacks them
	case "$f:$*" in
	plain:*-K* | plain:*-U* | k:*-U* | u:*-K* | live:*-U*) ;;
	*) fail "report $f.dat $*: refused: $(cat "$TMP/err")" ;;
	esac
}

for f in plain k u ku live; do
	for fmt in bcc bpftrace json openmetrics; do
		tfmt=$fmt; [ $fmt = bpftrace ] && tfmt=bcc
		check_one $f --format=$fmt
		check_one $f runq --format=$fmt
		check_one $f runq -P --format=$fmt
		check_one $f runq -L --format=$fmt
		check_one $f runq -C --format=$fmt
		check_one $f offcpu --format=$fmt
		check_one $f offcpu -L --state S --format=$fmt
		check_one $f offcpu --state D,R --format=$fmt
		check_one $f triage --format=$tfmt
	done
	for fmt in bcc json; do
		check_one $f offcpu -K --format=$fmt
		check_one $f offcpu -U --format=$fmt
		check_one $f offcpu -K -U --format=$fmt
		check_one $f offcpu -K -P --format=$fmt
		check_one $f offcpu -K --state S --format=$fmt
	done
	check_one $f offcpu -K -f
	check_one $f offcpu -K -U -f -d
	check_one $f offcpu -U -f
done
note "$n report runs: none crashed, every refusal named what the recording lacks"
exit 0
