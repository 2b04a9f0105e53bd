#!/bin/sh
# hist_check.sh: the kernel-matrix check, run inside each guest by
# tests/vm/check-vm.sh with /bin/offcpu-ftrace and /bin/workload.
#
#  - info reports this kernel's features and picks hist where it can;
#    its probe answers (none lost, or a loss it saw: under TCG one run of
#    the 6.1 guest saw 28 of 29 switches reach the tracepoint), never "not
#    known", and the choice follows from the answer: where a loss was seen
#    runq takes the ring (its gaps sized) and offcpu -K perf, each saying why;
#  - one event stream: the ring backend reads the hist backend's instance
#    while its triggers aggregate; runq and offcpu give identical buckets,
#    counts and sums for each workload thread;
#  - runq and offcpu with --backend=hist (where the kernel has hist
#    triggers) and --backend=ring in their own instances, at the same time
#    on the same workload, count the same intervals for each of its
#    threads;
#  - offcpu -K in the kernel where it passes stacks through synthetic
#    events (6.12): the same off-CPU time per workload thread as the ring
#    backend's, under the nanosleep stack;
#  - auto picks ring on 5.10 and hist on 6.1/6.12; offcpu -K falls back to
#    the ring backend with a notice on 6.1; -c, -t, --state, intervals;
#  - SIGKILL leaves triggers and synthetic events that cleanup removes;
#  - CPU hotplug (the guest's CPU 1, never the host's): each backend
#    finishes a window in which CPU 1 goes offline and back (slowly, and
#    at once) and reads CPU 1 after it is back, and reads CPU 1 when it
#    comes online after the window started;
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
# the probe answers, never "not known" on an idle guest; a loss it sees is
# kept for the boot (/run/offcpu-ftrace/kernel-facts) and decides auto's choice
LOSS=0
loss_seen() { grep -q '^idle_loss=seen' /run/offcpu-ftrace/kernel-facts 2>/dev/null; }
if grep -q '^switches recorded: *none lost while probed' /tmp/info.txt; then
	ok "probe: every switch recorded"
elif grep -q '^switches recorded: *NOT ALL: ' /tmp/info.txt && loss_seen; then
	LOSS=1
	echo "note: the probe saw this kernel lose a sched_switch hit: $(grep '^switches recorded' /tmp/info.txt)"
else
	fail "the switch probe says: $(grep '^switches recorded' /tmp/info.txt)"
fi
HAVE_HIST=0
grep -q '^hist triggers: *yes' /tmp/info.txt && grep -q '^synthetic events: *yes' /tmp/info.txt && HAVE_HIST=1
# what the kernel says, not the version
if grep -q 'hist trigger' $T/README; then [ $HAVE_HIST = 1 ] || fail "info misses hist triggers"; fi
if [ $LOSS = 1 ]; then
	# hist and ring miss the same hits: runq takes the ring, sizing its
	# gaps from schedstat; offcpu -K takes perf's switch records
	grep -q '^backend runq: *ring (this kernel loses' /tmp/info.txt &&
		ok "a loss seen: auto picks ring for runq, saying why" || fail "a loss seen, but: $(grep '^backend runq' /tmp/info.txt)"
	grep -q '^backend offcpu -K: *perf (this kernel loses' /tmp/info.txt &&
		ok "a loss seen: offcpu -K takes perf, saying why" || fail "a loss seen, but: $(grep '^backend offcpu -K' /tmp/info.txt)"
fi
KSTACK=ring
if [ $HAVE_HIST = 1 ]; then
	grep -q '^stacks in synthetic: *yes' /tmp/info.txt && KSTACK=hist
	if [ $LOSS = 0 ]; then
		grep -q '^backend runq: *hist' /tmp/info.txt && ok "auto picks hist for runq" || fail "auto does not pick hist"
		grep -q "^backend offcpu -K: *$KSTACK" /tmp/info.txt && ok "offcpu -K: $KSTACK backend" ||
			fail "offcpu -K backend is not $KSTACK"
	fi
else
	[ $LOSS = 1 ] || { grep -q '^backend runq: *ring' /tmp/info.txt && ok "auto picks ring" || fail "auto does not pick ring"; }
	$B runq --backend=hist 0.2 > /dev/null 2> /tmp/e && fail "--backend=hist worked without hist triggers"
	grep -q 'no hist triggers' /tmp/e && ok "--backend=hist refused: $(cat /tmp/e)" || fail "--backend=hist error unclear: $(cat /tmp/e)"
fi

load() {	# spinners and sleepers, well inside the windows (TCG is slow)
	$W runq 1 2 1500 > /dev/null &
	$W sleep 30 40 > /dev/null &
	wait
}

banner() {	# wait until a run says tracing is on (callers start on a new file)
	i=0
	while ! grep -q "Hit Ctrl-C" "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 300 ] && return 1
		sleep 0.1
	done
}

threads() {	# threads FILE: "tid count sum_ns" of the workload's threads
	tr '{' '\n' < "$1" | grep '"comm":"workload"' |
		sed 's/.*"tid":\([0-9]*\),.*"count":\([0-9]*\),"sum":[0-9]*,"sum_ns":\([0-9]*\).*/\1 \2 \3/'
}

# both CMD: hist and ring on the same workload, per thread. The two runs
# perturb each other (each one's own wakeups, its start and teardown) and
# their windows differ by milliseconds, so whole-system totals differ a
# little; the workload's threads, which live inside both windows, must
# have the same intervals: counts within 1 each, sums of all of them
# within 1%. Each instance's buffer takes its own timestamp of the same
# tracepoint hit, one after the other; under TCG an interrupt between the
# two writes moves one by up to a millisecond or more (a third, top-level
# trace showed the same shifts against both, up to 7 ms), so one thread's
# sum may differ by 10 ms + 1 ms per interval, or 5%. one_stream() is the
# exact check.
both() {
	cmd=$1
	rm -f /tmp/h.err /tmp/r.err
	$B $cmd -L --backend=hist --format=json 12 > /tmp/h.json 2> /tmp/h.err &
	h=$!
	$B $cmd -L --backend=ring --format=json 12 > /tmp/r.json 2> /tmp/r.err &
	r=$!
	banner /tmp/h.err || fail "$cmd --backend=hist did not start"
	banner /tmp/r.err || fail "$cmd --backend=ring did not start"
	load
	wait $h || { cat /tmp/h.err; fail "$cmd --backend=hist exited"; }
	wait $r || { cat /tmp/r.err; fail "$cmd --backend=ring exited"; }
	$B compare /tmp/h.json /tmp/r.json > /tmp/cmp.txt 2>&1
	[ $? -le 1 ] || { cat /tmp/cmp.txt; fail "$cmd: compare cannot read the outputs"; }
	n=0 hsum=0 rsum=0
	threads /tmp/r.json > /tmp/thr.txt
	while read -r tid rc rs; do
		hl=$(tr '{' '\n' < /tmp/h.json | grep "^\"tid\":$tid,")
		hc=$(echo "$hl" | sed -n 's/.*"count":\([0-9]*\),.*/\1/p')
		hs=$(echo "$hl" | sed -n 's/.*"sum_ns":\([0-9]*\),.*/\1/p')
		[ -n "$hc" ] || { fail "$cmd: thread $tid ($rc intervals in ring) missing in hist"; continue; }
		d=$((hc - rc)); [ $d -lt 0 ] && d=$((-d))
		ds=$((hs - rs)); [ $ds -lt 0 ] && ds=$((-ds))
		hsum=$((hsum + hs)); rsum=$((rsum + rs))
		if [ $d -le 1 ] && { [ $((ds * 20)) -le $rs ] || [ $ds -le $((10000000 + rc * 1000000)) ]; }; then
			n=$((n + 1))
		else
			fail "$cmd: thread $tid: hist $hc intervals $hs ns, ring $rc intervals $rs ns"
			echo "   hist: $hl"
			echo "   ring: $(tr '{' '\n' < /tmp/r.json | grep "^\"tid\":$tid,")"
			echo "   ring $(grep -o '"incomplete":{[^}]*}' /tmp/r.json)"
		fi
	done < /tmp/thr.txt
	ds=$((hsum - rsum)); [ $ds -lt 0 ] && ds=$((-ds))
	[ $((ds * 100)) -le $rsum ] || fail "$cmd: workload sums: hist $hsum ns, ring $rsum ns"
	[ $n -ge 3 ] && ok "$cmd: hist and ring agree on $n workload threads, sums $hsum / $rsum ns ($(tr '\n' ';' < /tmp/thr.txt))" ||
		fail "$cmd: only $n workload threads compared"
}

stack_sums() {	# FILE [COMM]: "tid count total_ns" summed over each thread's stacks
	tr '{' '\n' < "$1" | grep "\"comm\":\"$2" | grep '"total_ns"' |
		sed 's/.*"tid":\([0-9]*\),.*"count":\([0-9]*\),"total":[0-9]*,"total_ns":\([0-9]*\).*/\1 \2 \3/' |
		awk '{ c[$1] += $2; s[$1] += $3 } END { for (t in c) print t, c[t], s[t] }'
}

# offcpu -K, hist and ring at once: per workload thread the same count
# and time (as both() allows), and the nanosleep stack in the kernel's
kstacks() {
	rm -f /tmp/h.err /tmp/r.err
	$B offcpu -K -L --backend=hist --format=json 12 > /tmp/h.json 2> /tmp/h.err &
	h=$!
	$B offcpu -K -L --backend=ring --format=json 12 > /tmp/r.json 2> /tmp/r.err &
	r=$!
	banner /tmp/h.err || fail "offcpu -K --backend=hist did not start: $(cat /tmp/h.err)"
	banner /tmp/r.err || fail "offcpu -K --backend=ring did not start"
	$W sleep 30 40 > /dev/null
	wait $h || fail "offcpu -K --backend=hist exited: $(cat /tmp/h.err)"
	wait $r || fail "offcpu -K --backend=ring exited"
	grep -q '"frames":\[[^]]*nanosleep' /tmp/h.json && ok "hist -K: a nanosleep stack" ||
		fail "hist -K: no nanosleep stack: $(head -c 600 /tmp/h.json)"
	stack_sums /tmp/r.json workload > /tmp/rs.txt	# names of gone threads: ring only
	n=0
	while read -r tid rc rs; do
		hl=$(stack_sums /tmp/h.json | grep "^$tid ")
		hc=$(echo "$hl" | cut -d' ' -f2); hs=$(echo "$hl" | cut -d' ' -f3)
		[ -n "$hc" ] || { fail "hist -K: thread $tid missing"; continue; }
		d=$((hc - rc)); [ $d -lt 0 ] && d=$((-d))
		ds=$((hs - rs)); [ $ds -lt 0 ] && ds=$((-ds))
		if [ $d -le 1 ] && { [ $((ds * 20)) -le $rs ] || [ $ds -le $((10000000 + rc * 1000000)) ]; }; then
			n=$((n + 1))
		else
			fail "-K thread $tid: hist $hc intervals $hs ns, ring $rc intervals $rs ns"
		fi
	done < /tmp/rs.txt
	[ $n -ge 2 ] && ok "offcpu -K: hist and ring agree on $n workload threads ($(tr '\n' ';' < /tmp/rs.txt))" ||
		fail "offcpu -K: only $n workload threads compared"
}

# one_stream CMD: the ring backend reads the hist backend's own instance
# (OFFCPU_FTRACE_RING_INSTANCE, for tests only), so the triggers and the
# ring analyzer see one event stream with the same timestamps: for each
# workload thread the buckets, counts and sums must be identical, with no
# event lost.
one_stream() {
	cmd=$1
	rm -f /tmp/h.err /tmp/r.err
	$B $cmd -L --backend=hist --format=json 16 > /tmp/h.json 2> /tmp/h.err &
	h=$!
	banner /tmp/h.err || fail "$cmd --backend=hist did not start"
	OFFCPU_FTRACE_RING_INSTANCE=offcpu-ftrace.$h \
		$B $cmd -L --backend=ring --format=json 12 > /tmp/r.json 2> /tmp/r.err &
	r=$!
	banner /tmp/r.err || fail "$cmd: ring on the hist instance did not start: $(cat /tmp/r.err)"
	load
	wait $r || fail "$cmd: ring on the hist instance exited: $(cat /tmp/r.err)"
	wait $h || fail "$cmd --backend=hist exited: $(cat /tmp/h.err)"
	grep -q '"lost":0,' /tmp/r.json || { fail "$cmd: events lost; cannot compare"; return; }
	n=0
	for tid in $(threads /tmp/r.json | cut -d' ' -f1); do
		rg=$(group_of /tmp/r.json "$tid")
		hg=$(group_of /tmp/h.json "$tid")
		if [ -n "$rg" ] && [ "$rg" = "$hg" ]; then
			n=$((n + 1))
		else
			fail "$cmd: one stream, thread $tid differs:"
			echo "   ring: $rg"
			echo "   hist: $hg"
		fi
	done
	[ $n -ge 3 ] && ok "$cmd: one stream, identical buckets, counts and sums for $n workload threads" ||
		fail "$cmd: one stream: only $n threads identical"
}

# FILE TID: that thread's group, buckets included, without its name nor
# the ring's sizing of unmeasured waits from schedstat where it sized
# nothing (runq: the hist backend has no such gap; a ring run that did
# miss a wait keeps the fields, and differs)
group_of() {
	sed -e 's/},{"tid"/}@{"tid"/g' -e 's/"groups":\[{"tid"/"groups":[@{"tid"/' "$1" |
		tr '@' '\n' | grep "^{\"tid\":$2," |
		sed -e 's/"comm":"[^"]*",//' -e 's/\]}.*/]}/' \
		    -e 's/,"unmeasured_ns":0,"unmeasured_unsized":0,"totals_exact":true//'
}

if [ $HAVE_HIST = 1 ]; then
	one_stream runq
	one_stream offcpu
	both runq
	both offcpu
	both "offcpu -c workload --state S"	# -c and --state in the trigger filters
	$B runq --backend=hist -t 1 0.5 > /dev/null 2> /tmp/t.err && ok "runq -t in the kernel" ||
		fail "runq --backend=hist -t 1: $(cat /tmp/t.err)"
	# intervals: the kernel's histogram read and cleared at each boundary
	$B runq --backend=hist --format=json 1 3 > /tmp/i.json 2> /tmp/i.err || fail "runq 1 3 exited: $(cat /tmp/i.err)"
	ni=$(grep -c '"command":"runq"' /tmp/i.json)
	nf=$(grep -c '"final":true' /tmp/i.json)
	[ "$ni" = 3 ] && [ "$nf" = 1 ] && ok "runq --backend=hist 1 3: three reports" ||
		fail "runq --backend=hist 1 3: $ni reports, $nf final"
	# per thread, and per-process in the kernel's keys
	$B runq -L --backend=hist --format=json 1 > /tmp/l.json 2>&1 && grep -q '"tid":' /tmp/l.json &&
		ok "runq -L in the kernel" || fail "runq -L --backend=hist"
	$B offcpu -K 0.5 > /dev/null 2> /tmp/k.err || fail "offcpu -K exited"
	if loss_seen; then
		# seen by the first probe, or since by a run (kept for the boot)
		grep -q 'using the perf backend: this kernel loses sched_switch hits' /tmp/k.err &&
			ok "offcpu -K notice: $(head -1 /tmp/k.err)" || fail "a loss seen, but offcpu -K said: $(cat /tmp/k.err)"
	elif [ $KSTACK = ring ]; then
		grep -q 'using the ring backend, not the kernel' /tmp/k.err && ok "offcpu -K notice: $(head -1 /tmp/k.err)" ||
			fail "no fallback notice for -K: $(cat /tmp/k.err)"
	else
		grep -q 'backend hist' /tmp/k.err && ok "offcpu -K in the kernel" || fail "offcpu -K: $(cat /tmp/k.err)"
		kstacks
	fi
	# a second signal mid-window still removes everything
	$B runq --backend=hist 30 > /dev/null 2>&1 &
	p=$!
	sleep 1
	kill -INT $p; kill -INT $p; wait $p
	# SIGKILL leaves triggers and synthetic events: cleanup removes them
	rm -f /tmp/kill.err
	$B runq --backend=hist 30 > /dev/null 2> /tmp/kill.err &
	p=$!
	banner /tmp/kill.err || fail "runq --backend=hist did not start"
	kill -KILL $p; wait $p
	grep -q "ofr_${p}_lat" $T/synthetic_events && ok "SIGKILL left ofr_${p}_*" ||
		fail "SIGKILL left no synthetic events (nothing to test)"
	$B cleanup > /tmp/c.out 2>&1 || fail "cleanup exited $?"
	grep -q "removed synthetic event ofr_${p}_start" /tmp/c.out &&
		grep -q "removed instances/offcpu-ftrace.$p" /tmp/c.out &&
		ok "cleanup: $(tr '\n' ';' < /tmp/c.out)" || fail "cleanup: $(cat /tmp/c.out)"
fi
$B runq --backend=ring 1 > /dev/null 2>&1 || fail "runq --backend=ring"

# CPU hotplug. A: CPU 1 goes offline and comes back mid-window; the run
# ends normally, and a thread pinned to CPU 1 afterwards sleeps 20 times
# 40 ms: those 20 intervals are seen only if CPU 1 is read again. B: CPU 1 is offline when the run starts and comes online
# in the window; a thread pinned there sleeps 30 times 40 ms, and those 30
# off-CPU intervals are seen only if CPU 1's buffer (or events) is read.
sleeps() {	# OUT WL: off-CPU intervals OUT has for WL's sleeping thread
	# (by tid alone: the hist backend names exited threads "")
	st=$(sed -n 's/.*"threads":\[{"tid":\([0-9]*\).*/\1/p' "$2")
	tr '{' '\n' < "$1" | sed -n "s/^\"tid\":${st:-none},.*\"count\":\([0-9]*\),.*/\1/p" |
		grep . || echo 0
}
hotplug() {
	be=$1
	c=/sys/devices/system/cpu/cpu1/online
	rm -f /tmp/hp.err /tmp/hp2.err
	$B offcpu -L --backend=$be --format=json 12 > /tmp/hp.json 2> /tmp/hp.err &
	p=$!
	banner /tmp/hp.err || fail "hotplug $be: did not start: $(cat /tmp/hp.err)"
	$W sleep 40 50 1 > /dev/null 2>&1 &
	w=$!
	sleep 1
	echo 0 > $c || fail "cannot take CPU 1 offline"
	sleep 1
	echo 1 > $c || fail "cannot bring CPU 1 online"
	wait $w
	sleep 1
	$W sleep 20 40 1 > /tmp/hpw.json 2>&1
	wait $p
	rc=$?
	n=$(sleeps /tmp/hp.json /tmp/hpw.json)
	[ $rc = 0 ] && [ "$n" -ge 20 ] &&
		ok "hotplug $be: CPU 1 offline and online mid-window, read again after (20 sleeps seen there)" ||
		fail "hotplug $be: CPU 1 offline and online mid-window: exit $rc, sleeper pinned after seen $n times: $(threads /tmp/hp.json | tr '\n' ';') $(cat /tmp/hp.err)"
	# C: offline and online again at once, quicker than a read
	rm -f /tmp/hp3.err
	$B offcpu -L --backend=$be --format=json 10 > /tmp/hp3.json 2> /tmp/hp3.err &
	p=$!
	banner /tmp/hp3.err || fail "hotplug $be: did not start: $(cat /tmp/hp3.err)"
	echo 0 > $c && echo 1 > $c || fail "cannot cycle CPU 1"
	sleep 1.5
	$W sleep 20 40 1 > /tmp/hpw.json 2>&1
	wait $p
	rc=$?
	n=$(sleeps /tmp/hp3.json /tmp/hpw.json)
	[ $rc = 0 ] && [ "$n" -ge 20 ] &&
		ok "hotplug $be: a quick offline-online cycle, CPU 1 read again after (20 sleeps seen there)" ||
		fail "hotplug $be: quick cycle: exit $rc, sleeper pinned after seen $n times: $(cat /tmp/hp3.err)"
	echo 0 > $c || fail "cannot take CPU 1 offline"
	$B offcpu -L --backend=$be --format=json 10 > /tmp/hp2.json 2> /tmp/hp2.err &
	p=$!
	banner /tmp/hp2.err || fail "hotplug $be: did not start with CPU 1 offline: $(cat /tmp/hp2.err)"
	echo 1 > $c || fail "cannot bring CPU 1 online"
	sleep 1
	$W sleep 30 40 1 > /tmp/hpw.json 2>&1
	wait $p
	rc=$?
	n=$(sleeps /tmp/hp2.json /tmp/hpw.json)
	[ $rc = 0 ] && [ "$n" -ge 30 ] &&
		ok "hotplug $be: CPU 1 online mid-window is read (30 sleeps seen there)" ||
		{ fail "hotplug $be: CPU 1 online mid-window: exit $rc, pinned sleeper seen $n times: $(threads /tmp/hp2.json | tr '\n' ';') $(cat /tmp/hp2.err)"; }
	grep -q . $c && [ "$(cat $c)" = 1 ] || echo 1 > $c
}
if [ -w /sys/devices/system/cpu/cpu1/online ]; then
	hotplug ring
	hotplug perf
	[ $HAVE_HIST = 1 ] && hotplug hist
else
	echo "skip: CPU 1 cannot be taken offline here"
fi

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
