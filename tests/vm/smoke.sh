#!/bin/sh
# smoke.sh: guest-side sample script for run-vm.sh.
#
#   tests/vm/run-vm.sh bookworm tests/vm/smoke.sh ./offcpu-ftrace
#
# Prints the kernel release, the trace clock and whether synthetic events
# exist; if /bin/offcpu-ftrace was passed in, runs `offcpu-ftrace info` and
# `offcpu-ftrace runq 1` and exits with the first failing status (0 if both
# pass). Without the binary it only reports and exits 0.

T=/sys/kernel/tracing

echo "== uname -r: $(uname -r)"
echo "== hostname: $(hostname)  cpus: $(nproc)"
if [ -r "$T/trace_clock" ]; then
	echo "== trace_clock: $(cat "$T/trace_clock")"
else
	echo "== trace_clock: (no $T/trace_clock: tracefs not mounted?)"
fi
if [ -e "$T/synthetic_events" ]; then
	echo "== synthetic_events: yes"
else
	echo "== synthetic_events: no"
fi

if [ ! -x /bin/offcpu-ftrace ]; then
	echo "== /bin/offcpu-ftrace not present: nothing more to run"
	exit 0
fi

status=0

echo "== offcpu-ftrace info"
/bin/offcpu-ftrace info
rc=$?
echo "== offcpu-ftrace info: exit $rc"
[ "$rc" -eq 0 ] || status=$rc

# A little load (three busy loops on two vCPUs) so that the run-queue
# histogram has something in it.
while :; do :; done &
load1=$!
while :; do :; done &
load2=$!
while :; do :; done &
load3=$!

echo "== offcpu-ftrace runq 1"
/bin/offcpu-ftrace runq 1
rc=$?
echo "== offcpu-ftrace runq 1: exit $rc"
[ "$status" -ne 0 ] || status=$rc

kill "$load1" "$load2" "$load3" 2>/dev/null
wait 2>/dev/null

# Whatever the tool left behind in tracefs (it should leave nothing).
left=$(ls "$T/instances" 2>/dev/null)
echo "== instances left: ${left:-none}"

exit "$status"
