#!/bin/sh
# static_check.sh: guest side of tests/static/check-static.sh. The static
# binary alone is in /bin (no shared library in the guest: busybox is
# static too); tracefs is unmounted first, as on a fresh boot, so the
# binary mounts it itself. Runs info, runq, offcpu -K, triage, record and
# report, and exits with the number of failures.
B=/bin/offcpu-ftrace
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

echo "== $(uname -r)"
libs=$(find / -xdev -name '*.so*' 2>/dev/null | grep -v '^/proc' | head -3)
[ -z "$libs" ] && ok "no shared library in the guest" || fail "shared libraries present: $libs"
umount /sys/kernel/debug 2>/dev/null
umount /sys/kernel/tracing 2>/dev/null
grep -q tracefs /proc/mounts && fail "tracefs still mounted before the runs"

$B info > /tmp/info 2>&1 && ok "info" || { cat /tmp/info; fail "info exited $?"; }
grep -q '^tracefs: .*it was not mounted' /tmp/info && ok "info mounted tracefs to probe it" ||
	fail "info: $(grep '^tracefs' /tmp/info)"
$B runq 1 > /tmp/o 2> /tmp/e && grep -q '^count=' /tmp/o && ok "runq 1" || { cat /tmp/e; fail "runq 1"; }
grep -q 'mounted it at /sys/kernel/tracing' /tmp/e && ok "runq mounted tracefs" || fail "no mount notice: $(cat /tmp/e)"
$B offcpu -K 1 > /tmp/o 2> /tmp/e && grep -q '__schedule\|schedule' /tmp/o && ok "offcpu -K 1 names kernel frames" ||
	{ cat /tmp/e; head -20 /tmp/o; fail "offcpu -K 1"; }
$B triage 1 > /tmp/o 2> /tmp/e && grep -q '^verdict: ' /tmp/o && ok "triage 1" || { cat /tmp/e; fail "triage 1"; }
$B record -o /tmp/r.dat 1 2> /tmp/e && ok "record" || { cat /tmp/e; fail "record"; }
$B report /tmp/r.dat > /tmp/o 2> /tmp/e && grep -q '^count=' /tmp/o && ok "report of the recording" ||
	{ cat /tmp/e; fail "report"; }
$B report /tmp/r.dat offcpu -P > /dev/null 2> /tmp/e && ok "report offcpu -P" || { cat /tmp/e; fail "report offcpu"; }
grep -q tracefs /proc/mounts && fail "tracefs left mounted after the runs"
echo "== static: $fails failures"
exit $fails
