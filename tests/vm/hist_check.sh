#!/bin/sh
# hist_check.sh: the kernel-matrix check, run inside each guest by
# tests/vm/check-vm.sh with /bin/offcpu-ftrace and /bin/workload.
#
#  - info reports this kernel's features and picks hist where it can;
#  - runq and offcpu with --backend=hist (where the kernel has hist
#    triggers) and --backend=ring, run at the same time on the same
#    workload, give the same histogram shape (compare --tolerance) and
#    counts within 20%;
#  - auto picks ring on 5.10 and hist on 6.1/6.12; offcpu -K falls back to
#    the ring backend with a notice;
#  - afterwards tracefs has no instances, synthetic events or triggers.
T=/sys/kernel/tracing
B=/bin/offcpu-ftrace
W=/bin/workload
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
export WORKLOAD_EXIT=1

echo "== $(uname -r)"
$B info > /tmp/info.txt 2>&1 || fail "info exited $?"
cat /tmp/info.txt
HAVE_HIST=0
grep -q '^hist triggers: *yes' /tmp/info.txt && grep -q '^synthetic events: *yes' /tmp/info.txt && HAVE_HIST=1
# what the kernel says, not the version
if grep -q 'hist trigger' $T/README; then [ $HAVE_HIST = 1 ] || fail "info misses hist triggers"; fi
if [ $HAVE_HIST = 1 ]; then
	grep -q '^backend runq: *hist' /tmp/info.txt && ok "auto picks hist for runq" || fail "auto does not pick hist"
	grep -q '^backend offcpu -K: *ring' /tmp/info.txt && ok "offcpu -K falls back to ring" || fail "offcpu -K backend"
else
	grep -q '^backend runq: *ring' /tmp/info.txt && ok "auto picks ring" || fail "auto does not pick ring"
	$B runq --backend=hist 0.2 > /dev/null 2> /tmp/e && fail "--backend=hist worked without hist triggers"
	grep -q 'no hist triggers' /tmp/e && ok "--backend=hist refused: $(cat /tmp/e)" || fail "--backend=hist error unclear: $(cat /tmp/e)"
fi

load() {	# spinners and sleepers, well inside the windows (TCG is slow)
	$W runq 1 2 1500 > /dev/null &
	$W sleep 30 40 > /dev/null &
	wait
}

banner() {	# wait until a run says tracing is on
	i=0
	while ! grep -q "Hit Ctrl-C" "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 300 ] && return 1
		sleep 0.1
	done
}

both() {	# both CMD: the workload inside the windows of hist and ring
	cmd=$1
	$B $cmd --backend=hist --format=json 12 > /tmp/h.json 2> /tmp/h.err &
	h=$!
	$B $cmd --backend=ring --format=json 12 > /tmp/r.json 2> /tmp/r.err &
	r=$!
	banner /tmp/h.err || fail "$cmd --backend=hist did not start"
	banner /tmp/r.err || fail "$cmd --backend=ring did not start"
	load
	wait $h || { cat /tmp/h.err; fail "$cmd --backend=hist exited"; }
	wait $r || { cat /tmp/r.err; fail "$cmd --backend=ring exited"; }
	if $B compare --tolerance 0.1 /tmp/h.json /tmp/r.json > /tmp/cmp.txt; then
		ok "$cmd: hist and ring agree: $(grep '^distance' /tmp/cmp.txt)"
	else
		cat /tmp/cmp.txt; fail "$cmd: hist and ring differ"
	fi
	hc=$(sed -n 's/.*"count":\([0-9]*\),"sum".*/\1/p' /tmp/h.json | head -1)
	rc=$(sed -n 's/.*"count":\([0-9]*\),"sum".*/\1/p' /tmp/r.json | head -1)
	echo "   $cmd counts: hist $hc, ring $rc"
	[ -n "$hc" ] && [ -n "$rc" ] && [ $((hc * 10)) -ge $((rc * 8)) ] && [ $((rc * 10)) -ge $((hc * 8)) ] ||
		fail "$cmd counts differ: hist $hc ring $rc"
}

if [ $HAVE_HIST = 1 ]; then
	both runq
	both offcpu
	# per thread, and per-process in the kernel's keys
	$B runq -L --backend=hist --format=json 1 > /tmp/l.json 2>&1 && grep -q '"tid":' /tmp/l.json &&
		ok "runq -L in the kernel" || fail "runq -L --backend=hist"
	$B offcpu -K 0.5 > /dev/null 2> /tmp/k.err || fail "offcpu -K exited"
	grep -q 'using the ring backend, not the kernel' /tmp/k.err && ok "offcpu -K notice: $(cat /tmp/k.err | head -1)" ||
		fail "no fallback notice for -K: $(cat /tmp/k.err)"
	# a second signal mid-window still removes everything
	$B runq --backend=hist 30 > /dev/null 2>&1 &
	p=$!
	sleep 1
	kill -INT $p; kill -INT $p; wait $p
fi
$B runq --backend=ring 1 > /dev/null 2>&1 || fail "runq --backend=ring"

# left as found
left=$(ls $T/instances)
[ -z "$left" ] && ok "no instances left" || fail "instances left: $left"
if [ -e $T/synthetic_events ]; then
	s=$(cat $T/synthetic_events)
	[ -z "$s" ] && ok "no synthetic events left" || fail "synthetic events left: $s"
fi
for f in $T/events/sched/*/trigger; do
	t=$(grep -v '^#' "$f")
	[ -z "$t" ] || fail "trigger left on $f: $t"
done
echo "== $fails failures"
[ $fails = 0 ]
