#!/bin/bash
# Least privilege (SECURITY in offcpu-ftrace(8)), as nobody, with each
# setup on a temporary copy of the binary, removed after:
#   - setuid and setgid copies refuse to run: one line, exit 1;
#   - no setup: proc; info says what perf lacks and prints root's command
#     lines; --backend perf fails in one line;
#   - cap_perfmon alone, tracefs 0700: still proc (the formats), and info
#     says so; with cap_dac_read_search too: perf (runq's JSON says so),
#     kernel frames raw where kallsyms hides them from nobody, info's
#     symbol line keeps the set; with cap_syslog too: named frames;
#     report and compare give up cap_dac_read_search before opening the
#     file named (root's 0600 file: EACCES), a run gives up both once
#     tracing is on (CapEff/CapPrm), record --flight keeps the formats' one;
#   - a tracefs group (remount gid=G,mode=0750; nobody gets G through
#     setpriv, no user or group is created): cap_perfmon alone runs perf;
#     the finding of SECURITY: the group cannot create an instance (mkdir
#     EACCES, with mode=0770 too), and with instances/ chmod 0770 it can
#     create one but not write in it; --backend ring fails in one line;
#   - tracefs owned by nobody (remount uid=65534): the ring backend runs
#     as nobody, no capability;
#   - tracefs (mount options, modes and owners of its top two levels, and
#     lib.sh's snapshot) is as it was, on every exit path.
# info's output as nobody is printed before and after each setup.
. "${srcdir:-.}/tests/live/lib.sh"
[ "$(id -u)" = 0 ] || skip "not root: the test sets file capabilities and remounts tracefs"
for t in setpriv setcap getcap mount; do
	command -v $t > /dev/null || skip "no $t (util-linux, libcap2-bin)"
done
command -v "$PY" > /dev/null || skip "python3 not found (needed to read the JSON)"
[ -r /proc/self/schedstat ] || skip "no /proc/<pid>/schedstat (CONFIG_SCHED_INFO)"
T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$T" ] || skip "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)"
[ "$(awk -v t="$T" '$2 == t && $3 == "tracefs"' /proc/mounts | wc -l)" = 1 ] ||
	skip "tracefs is mounted more than once at $T"
[ -r "$T/events/sched/sched_switch/format" ] || skip "no sched_switch event in $T"
live_lock	# remounts tracefs and traces: nothing else of ours beside it
abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
BIN=$(abs "$BIN")
[ -x "$BIN" ] || fail "$BIN not built"
# --enable-sanitizers: file capabilities and setid bits make the process
# non-dumpable, so LeakSanitizer can neither read its options
# (/proc/self/environ is root's then) nor ptrace its threads at exit and
# fails every run; the ordinary build runs this test
ldd "$BIN" 2> /dev/null | grep -q libasan &&
	skip "a sanitized build: LeakSanitizer cannot check a process with file capabilities (non-dumpable); the ordinary build runs this test"

# --- what is put back: tracefs's mount options, modes and owners
opts() { awk -v t="$T" '$2 == t && $3 == "tracefs" { print $4 }' /proc/mounts; }
opt() {	# NAME DEFAULT: a tracefs mount option's value
	local v
	v=$(opts | tr ',' '\n' | sed -n "s/^$1=//p")
	echo "${v:-$2}"
}
perms() { find "$T" -maxdepth 2 ! -path "$T/instances/*" -printf '%m %U %G %p\n' 2> /dev/null | sort; }
O_UID=$(opt uid 0) O_GID=$(opt gid 0) O_MODE=$(opt mode 700)
O_OPTS=$(opts)
O_INST=$(stat -c %a "$T/instances")
perms > "$TMP/perms.before"
snapshot_save
PROBE=$T/instances/offcpu-privtest.$$
restore_tracefs() {
	[ -d "$PROBE" ] && rmdir "$PROBE"
	chmod "$O_INST" "$T/instances"
	mount -o "remount,uid=$O_UID,gid=$O_GID,mode=$O_MODE" "$T"
}
trap 'restore_tracefs; cleanup_tmp' EXIT
trap 'exit 1' INT TERM HUP

chmod 0711 "$TMP"
mkdir -m 0755 "$TMP/bin"
copy() {	# NAME [CAPS]: b= a copy of the binary, with those file capabilities
	b=$TMP/bin/$1
	cp "$BIN" "$b" && chmod 0755 "$b" || fail "cannot copy $BIN"
	[ -z "${2:-}" ] || setcap "$2" "$b" || fail "setcap $2 failed"
}
asnobody() {	# GROUP OUT ERR CMD...: as nobody, plus group GROUP ("-": none), no inherited capability
	local g=--clear-groups out=$2 err=$3
	[ "$1" = - ] || g=--groups=$1
	shift 3
	# emptied before a background call forks: wait_banner must not read an earlier run's banner
	[ "$out" = /dev/null ] || : > "$out"
	: > "$err"
	(cd "$TMP" && setpriv --reuid=65534 --regid=65534 $g --inh-caps=-all --reset-env -- "$@") \
		> "$out" 2> "$err"
}
json() {	# FILE EXPR: a value of a JSON document
	"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
show_info() {	# LABEL FILE: info's least-privilege block as nobody, for the log
	note "info as nobody, $1:"
	sed -n '/^least privilege:/,/^  proc backend:/p' "$2" | sed 's/^/#   /'
	grep '^backend runq:' "$2" | sed 's/^/#   /'
}
runq_backend() {	# GROUP BIN: rb= the backend runq 1 reports as nobody
	asnobody "$1" "$TMP/r.json" "$TMP/r.err" "$2" runq --format=json 1 ||
		{ cat "$TMP/r.err"; fail "runq 1 as nobody ($2) exited $?"; }
	rb=$(json "$TMP/r.json" 'd["backend"]')
}
one_line_fail() {	# WHAT ERR RC: exit 1 and one line
	[ "$3" = 1 ] || fail "$1 exited $3, not 1: $(cat "$2")"
	[ "$(wc -l < "$2")" = 1 ] || fail "$1: not one line: $(cat "$2")"
}

# --- setuid and setgid: refused
copy suid
chmod 4755 "$b"
asnobody - "$TMP/o" "$TMP/e" "$b" info; rc=$?
one_line_fail "setuid info" "$TMP/e" $rc
grep -q 'refusing to run setuid' "$TMP/e" || fail "setuid: $(cat "$TMP/e")"
[ -s "$TMP/o" ] && fail "setuid: printed a report"
copy sgid
chmod 2755 "$b"
asnobody - "$TMP/o" "$TMP/e" "$b" --version; rc=$?
one_line_fail "setgid --version" "$TMP/e" $rc
grep -q 'refusing to run setgid' "$TMP/e" || fail "setgid: $(cat "$TMP/e")"
rm -f "$TMP/bin/suid" "$TMP/bin/sgid"
note "setuid and setgid copies refused: $(cat "$TMP/e")"

# does /proc/kallsyms hide addresses from nobody without CAP_SYSLOG?
hidden=$(asnobody - /dev/stdout /dev/null awk '$2 ~ /^[tT]$/ { print ($1 ~ /^0+$/); exit }' /proc/kallsyms)

# --- no setup
copy plain
plain=$b
asnobody - "$TMP/info.0" "$TMP/e" "$plain" info || fail "info as nobody exited $?"
asnobody - "$TMP/info.0.json" "$TMP/e" "$plain" info --format=json || fail "info --format=json as nobody exited $?"
show_info "no setup" "$TMP/info.0"
grep -q '^backend runq: *proc (' "$TMP/info.0" || skip "nobody can trace here without any setup: $(grep '^backend runq' "$TMP/info.0")"
[ "$(json "$TMP/info.0.json" 'd["least_privilege"]["perf"]["ready"]')" = False ] || fail "info: perf ready with no setup"
grep -q "mount -o remount,gid=tracing,mode=0750 $T" "$TMP/info.0" || fail "info gives no tracefs group line"
grep -qE "setcap cap_perfmon(,cap_syslog)?\+ep $plain" "$TMP/info.0" || fail "info gives no setcap line for $plain"
runq_backend - "$plain"; [ "$rb" = proc ] || fail "runq as nobody, no setup: not proc"
asnobody - /dev/null "$TMP/e" "$plain" runq --backend perf 1; rc=$?
one_line_fail "--backend perf, no setup" "$TMP/e" $rc
grep -q CAP_PERFMON "$TMP/e" || fail "--backend perf does not name CAP_PERFMON: $(cat "$TMP/e")"

# --- cap_perfmon alone: the formats are still missing
copy perfmon cap_perfmon+ep
asnobody - "$TMP/info.1" "$TMP/e" "$b" info || fail "info exited $?"
show_info "setcap cap_perfmon+ep, tracefs $O_MODE" "$TMP/info.1"
grep -q '^  perf backend: *needs the event formats' "$TMP/info.1" || fail "info: perf does not lack just the formats"
# runq needs of a switch only who left, preempted or not, and who came:
# perf's context-switch records alone (no formats), partial and sized
runq_backend - "$b"; [ "$rb" = perf ] || fail "cap_perfmon alone, tracefs unreadable: not perf"
grep -q "context-switch records alone" "$TMP/r.json" ||
	fail "cap_perfmon alone: runq does not say it has the switch records alone"
# what the records cannot serve (stacks) is refused in one line naming the formats' fix
asnobody - /dev/null "$TMP/e" "$b" offcpu -K --backend perf 1; rc=$?
one_line_fail "offcpu -K --backend perf with cap_perfmon alone" "$TMP/e" $rc
grep -q CAP_DAC_READ_SEARCH "$TMP/e" || fail "--backend perf does not say what reads the formats: $(cat "$TMP/e")"

# --- cap_perfmon and cap_dac_read_search: perf
copy dac cap_perfmon,cap_dac_read_search+ep
asnobody - "$TMP/info.2" "$TMP/e" "$b" info || fail "info exited $?"
show_info "setcap cap_perfmon,cap_dac_read_search+ep" "$TMP/info.2"
grep -q '^  perf backend: *ready' "$TMP/info.2" || fail "info: perf not ready"
runq_backend - "$b"; [ "$rb" = perf ] || fail "cap_perfmon,cap_dac_read_search: not perf"
# capabilities held no longer than needed: report and compare give up
# CAP_DAC_READ_SEARCH before they open the file named (root's 0600 file:
# EACCES, not read); a run gives up CAP_PERFMON and it once tracing is on
# (/proc's CapEff and CapPrm of the running process: none left), a flight
# recorder keeps CAP_DAC_READ_SEARCH to read the formats for each save
printf 'not a recording\n' > "$TMP/secret"
chmod 0600 "$TMP/secret"
asnobody - /dev/null "$TMP/e" "$b" report "$TMP/secret"; rc=$?
one_line_fail "report of root's 0600 file" "$TMP/e" $rc
grep -q 'Permission denied' "$TMP/e" || fail "report read root's 0600 file with CAP_DAC_READ_SEARCH: $(cat "$TMP/e")"
asnobody - /dev/null "$TMP/e" "$b" compare "$TMP/secret" "$TMP/secret"; rc=$?
grep -q 'Permission denied' "$TMP/e" || fail "compare read root's 0600 file with CAP_DAC_READ_SEARCH: $(cat "$TMP/e")"
capsof() {	# PID: "CapEff CapPrm" of a running process
	awk '$1 == "CapEff:" { e = $2 } $1 == "CapPrm:" { p = $2 } END { print e, p }' "/proc/$1/status"
}
asnobody - "$TMP/r.txt" "$TMP/r.err" "$b" runq 3 &
nb=$!
BG_PIDS="$BG_PIDS $nb"
wait_banner "$TMP/r.err"
pid=$(pgrep -n -x dac)
caps=$(capsof "$pid")
wait "$nb" || { cat "$TMP/r.err"; fail "runq 3 as nobody with capabilities exited $?"; }
[ "$caps" = "0000000000000000 0000000000000000" ] ||
	fail "runq as nobody kept capabilities once tracing: CapEff CapPrm $caps"
mkdir -m 0700 "$TMP/nb" && chown 65534 "$TMP/nb"
asnobody - /dev/null "$TMP/f.err" "$b" record --flight 1 --runq-over 1 --after 0.2 -o "$TMP/nb/f.dat" 2 &
nb=$!
BG_PIDS="$BG_PIDS $nb"
wait_banner "$TMP/f.err"
pid=$(pgrep -n -x dac)
caps=$(capsof "$pid")
wait "$nb" || { cat "$TMP/f.err"; fail "record --flight as nobody with capabilities exited $?"; }
[ "$caps" = "0000000000000004 0000000000000004" ] ||
	fail "record --flight as nobody: CapEff CapPrm $caps, not CAP_DAC_READ_SEARCH alone"
[ -s "$TMP/nb/f.dat" ] || { cat "$TMP/f.err"; fail "record --flight as nobody saved nothing"; }
"$BIN" report "$TMP/nb/f.dat" > /dev/null 2>&1 || fail "the flight file nobody saved does not read"
note "capabilities: report/compare refuse root's 0600 file; runq holds none once tracing, record --flight CAP_DAC_READ_SEARCH alone; flight file saved"
if [ "$hidden" = 1 ]; then
	grep -qE "setcap cap_perfmon,cap_syslog,cap_dac_read_search\+ep $b" "$TMP/info.2" ||
		fail "info's symbol line does not keep the set: $(grep -A1 'kernel symbols' "$TMP/info.2")"
	asnobody - "$TMP/k.txt" "$TMP/k.err" "$b" offcpu -K -f 1 || fail "offcpu -K as nobody exited $?"
	grep -q 'hides kernel addresses' "$TMP/k.err" || fail "no note of hidden kernel addresses: $(cat "$TMP/k.err")"
	grep -q ';0x' "$TMP/k.txt" || fail "frames are not raw addresses without CAP_SYSLOG"
	# --- and cap_syslog: names
	copy syslog cap_perfmon,cap_dac_read_search,cap_syslog+ep
	asnobody - "$TMP/info.3" "$TMP/e" "$b" info || fail "info exited $?"
	show_info "setcap cap_perfmon,cap_dac_read_search,cap_syslog+ep" "$TMP/info.3"
	grep -q '^  kernel symbols: *visible' "$TMP/info.3" || fail "info: symbols not visible with cap_syslog"
	asnobody - "$TMP/k.txt" "$TMP/k.err" "$b" offcpu -K -f 1 || fail "offcpu -K as nobody exited $?"
	grep -q ';schedule' "$TMP/k.txt" || fail "no named kernel frames with cap_syslog: $(head -3 "$TMP/k.txt")"
	note "cap_syslog: kernel frames named ($(grep -c ';schedule' "$TMP/k.txt") stacks through schedule)"
else
	note "kallsyms shows nobody addresses already: the CAP_SYSLOG checks do not apply"
fi
rm -f "$TMP"/bin/dac "$TMP"/bin/syslog

# --- a tracefs group
G=20000
while getent group "$G" > /dev/null; do G=$((G + 1)); done
mount -o "remount,gid=$G,mode=0750" "$T" || fail "remount gid=$G,mode=0750 failed"
copy perfmon cap_perfmon+ep
asnobody "$G" "$TMP/info.4" "$TMP/e" "$b" info || fail "info exited $?"
show_info "tracefs gid=$G,mode=0750 and setcap cap_perfmon+ep" "$TMP/info.4"
grep -q '^  perf backend: *ready' "$TMP/info.4" || fail "info: perf not ready with the group"
runq_backend "$G" "$b"; [ "$rb" = perf ] || fail "tracefs group + cap_perfmon: not perf"
asnobody "$G" "$TMP/info.5" "$TMP/e" "$plain" info || fail "info exited $?"
show_info "tracefs gid=$G,mode=0750, no capability" "$TMP/info.5"
grep -qE "setcap cap_perfmon(,cap_syslog)?\+ep $plain" "$TMP/info.5" || fail "info: no setcap line in the group"
grep -q "remount,gid=" "$TMP/info.5" && fail "info asks for the group it has"
asnobody "$G" /dev/null "$TMP/e" "$b" runq --backend ring 1; rc=$?
one_line_fail "--backend ring in the tracefs group" "$TMP/e" $rc
# the finding: no instance for the group
asnobody "$G" /dev/null "$TMP/e" mkdir "$PROBE" && fail "a tracefs group member created an instance: SECURITY is wrong"
grep -q 'Permission denied' "$TMP/e" || fail "mkdir in instances/: $(cat "$TMP/e")"
mount -o "remount,mode=0770" "$T" || fail "remount mode=0770 failed"
asnobody "$G" /dev/null "$TMP/e" mkdir "$PROBE" && fail "with mode=0770 the group created an instance: SECURITY is wrong"
mount -o "remount,mode=0750" "$T"
chmod 0770 "$T/instances" || fail "tracefs refused chmod (SECURITY says it accepts it)"
asnobody "$G" /dev/null "$TMP/e" mkdir "$PROBE" || fail "instances/ 0770: the group cannot create an instance: $(cat "$TMP/e")"
asnobody "$G" /dev/null "$TMP/e" sh -c "echo 0 > '$PROBE/tracing_on'" &&
	fail "the group wrote tracing_on in its instance: SECURITY is wrong"
asnobody "$G" /dev/null "$TMP/e" sh -c "echo 1 > '$PROBE/events/sched/sched_switch/enable'" &&
	fail "the group enabled an event in its instance: SECURITY is wrong"
note "instance made by the group: $(stat -c '%a %U:%g' "$PROBE/tracing_on") tracing_on, $(stat -c '%a' "$PROBE/per_cpu/cpu0/trace_pipe_raw") trace_pipe_raw: not writable"
asnobody "$G" /dev/null "$TMP/e" rmdir "$PROBE" || fail "the group could not remove the instance it made"
chmod "$O_INST" "$T/instances"
note "tracefs group: reads the formats (perf with cap_perfmon alone); mkdir in instances/ EACCES (mode=0750 and 0770); instances/ 0770: an instance, nothing writable in it"
mount -o "remount,gid=$O_GID,mode=$O_MODE" "$T"

# --- tracefs owned by nobody: the ring backend, no capability
mount -o "remount,uid=65534" "$T" || fail "remount uid=65534 failed"
asnobody - "$TMP/info.6" "$TMP/e" "$plain" info || fail "info exited $?"
show_info "tracefs uid=65534 (nobody owns it), no capability" "$TMP/info.6"
grep -q '^  ring/hist backends: *ready' "$TMP/info.6" || fail "info: ring not ready with tracefs owned by nobody"
asnobody - "$TMP/r.json" "$TMP/r.err" "$plain" runq --backend ring --format=json 1 ||
	{ cat "$TMP/r.err"; fail "runq --backend ring as tracefs's owner exited $?"; }
[ "$(json "$TMP/r.json" 'd["backend"]')" = ring ] || fail "tracefs owner: not ring"
[ "$(json "$TMP/r.json" 'd["events"]["sched_switch"] > 0')" = True ] || fail "ring as nobody saw no switch"
mount -o "remount,uid=$O_UID" "$T"
note "tracefs uid=nobody: runq --backend ring as nobody, $(json "$TMP/r.json" 'd["events"]["sched_switch"]') switches"

# --- put back, and checked
restore_tracefs
[ "$(opts)" = "$O_OPTS" ] || fail "tracefs mount options: '$(opts)', were '$O_OPTS'"
perms > "$TMP/perms.after"
diff -u "$TMP/perms.before" "$TMP/perms.after" || fail "tracefs modes or owners not restored"
check_restored "the privilege setups"
note "least privilege: setid refused; perf with cap_perfmon + (group | cap_dac_read_search), names with cap_syslog; ring only as tracefs's owner"
exit 0
