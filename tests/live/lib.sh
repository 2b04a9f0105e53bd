# shellcheck shell=bash
# Shared helpers for live tests: skip rules, tracefs snapshots, the tool.
# Each test exits 0 (pass), 1 (fail) or 77 (skip, with the reason printed).

set -u
BIN=${builddir:-.}/offcpu-ftrace
WORKLOAD=${builddir:-.}/tests/workload
PY=${PYTHON3:-python3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/offcpu-ftrace-test.XXXXXX")
T=""
BG_PIDS=""
# The per-boot kernel facts (offcpu-ftrace-info(8), FILES): a copy of what
# this boot already knows, private to the test, so that a test runs as a
# user would meet the host and leaves /run as it was
KFACTS_RUN=/run/offcpu-ftrace/kernel-facts
export OFFCPU_FTRACE_STATE="$TMP/kernel-facts"
[ -f "$KFACTS_RUN" ] && cp -p "$KFACTS_RUN" "$OFFCPU_FTRACE_STATE" 2> /dev/null

CGROUPS=""

cleanup_tmp() {
	local c p i
	for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
	# a workload still spinning takes SIGTERM only when its threads park
	for p in $BG_PIDS; do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = workload ] && kill -KILL "$p" 2>/dev/null
	done
	# the cgroups a test made: emptied (their tasks killed) and removed
	for c in $CGROUPS; do
		for i in $(seq 1 50); do
			for p in $(cat "$c/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
			rmdir "$c" 2>/dev/null && break
			sleep 0.1
		done
		[ -d "$c" ] && echo "# cannot remove cgroup $c" >&2
	done
	rm -rf "$TMP"
}

# make_cgroup NAME: a new cgroup on the cpu controller's hierarchy (v1)
# or in cgroup v2, removed on every exit path; its path in CG
make_cgroup() {
	local root
	root=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/mounts)
	[ -n "$root" ] || root=$(awk '$3 == "cgroup2" && $2 == "/sys/fs/cgroup" { print $2; exit }' /proc/mounts)
	[ -n "$root" ] || skip "no cgroup hierarchy with the cpu controller, and no cgroup v2 at /sys/fs/cgroup"
	CG="$root/offcpu-ftrace-test-$$-$1"
	mkdir "$CG" || skip "cannot make a cgroup in $root"
	CGROUPS="$CGROUPS $CG"
}
trap cleanup_tmp EXIT

# cg_held CGROUP FIFO OUT ARGS...: the workload (ARGS) in CGROUP, started
# when a word is written to FIFO (made here); its pid in HELD, stopped on
# every exit path
cg_held() {
	local cg=$1 fifo=$2 out=$3
	shift 3
	mkfifo "$fifo"
	# shellcheck disable=SC2016
	sh -c 'echo $$ > "$1/cgroup.procs" || exit 1; read -r _ < "$2"; shift 3; exec "$@"' \
		sh "$cg" "$fifo" "$out" "$WORKLOAD" "$@" > "$out" &
	HELD=$!
	BG_PIDS="$BG_PIDS $HELD"
	for _ in $(seq 1 100); do grep -qx "$HELD" "$cg/cgroup.procs" 2>/dev/null && return; sleep 0.02; done
	fail "the workload did not enter $cg"
}

# sched_sum PID: the run_delay (ns), pcount and exec time (ns) of all its
# threads (schedstat)
sched_sum() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null |
		awk '{ d += $2; n += $3; e += $1 } END { printf "%.0f %.0f %.0f\n", d, n, e }'
}

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
note() { echo "# $*"; }

# Live tests need root, a mounted tracefs with sched events, and python3
# (to read the JSON). They say which is missing and skip.
need_live() {
	[ "$(id -u)" = 0 ] || skip "not root: live tracing tests need root"
	T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	[ -n "$T" ] || skip "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)"
	[ -r "$T/events/sched/sched_switch/format" ] || skip "no sched_switch event in $T"
	[ -w "$T/instances" ] || skip "$T is not writable"
	command -v "$PY" >/dev/null 2>&1 || skip "python3 not found (needed to check JSON output)"
	[ -x "$BIN" ] || fail "$BIN not built"
	live_lock
}

# One live test at a time on the host (make -j check, and several build
# trees: each compares tracefs snapshots, which another run would
# disturb); a test that traces without need_live (as root, beside what it
# checks) takes it too.
live_lock() {
	# OFFCPU_LIVE_LOCK: another lock file (a tree of its own on a host of its own)
	local lock=${OFFCPU_LIVE_LOCK:-/tmp/offcpu-ftrace-live-tests.lock}
	exec 9> "$lock"
	flock 9 || fail "cannot lock $lock"
}

# Everything a run could change in tracefs, as text.
snapshot() {
	local f i
	echo "instances: $(ls "$T/instances" | tr '\n' ' ')"
	echo "set_event: $(tr '\n' ' ' < "$T/set_event")"
	echo "tracing_on: $(cat "$T/tracing_on")"
	echo "trace_clock: $(cat "$T/trace_clock")"
	echo "current_tracer: $(cat "$T/current_tracer")"
	echo "set_event_pid: $(tr '\n' ' ' < "$T/set_event_pid")"
	echo "buffer_size_kb: $(cat "$T/buffer_size_kb")"
	echo "options/stacktrace: $(cat "$T/options/stacktrace")"
	echo "options/event-fork: $(cat "$T/options/event-fork")"
	[ -r "$T/synthetic_events" ] && echo "synthetic_events: $(tr '\n' ' ' < "$T/synthetic_events")"
	[ -r "$T/dynamic_events" ] && echo "dynamic_events: $(grep -v '^#' "$T/dynamic_events" | tr '\n' ' ')"
	for f in "$T"/events/sched/*/trigger; do
		echo "trigger ${f#"$T"/}: $(grep -v '^#' "$f" | tr '\n' ' ')"
	done
	for f in "$T"/events/sched/*/enable "$T"/events/cgroup/cgroup_attach_task/enable \
		"$T"/events/cgroup/cgroup_transfer_tasks/enable; do
		[ -r "$f" ] && echo "enable ${f#"$T"/}: $(cat "$f")"
	done
	# other tools' instances must be left exactly as they were too
	for i in "$T"/instances/*; do
		[ -d "$i" ] || continue
		echo "instance ${i##*/}: on=$(cat "$i/tracing_on") clock=$(cat "$i/trace_clock") events=$(tr '\n' ' ' < "$i/set_event")"
	done
}

snapshot_save() { snapshot > "$TMP/before"; }

# Fails the test when tracefs differs from the saved snapshot.
check_restored() {
	snapshot > "$TMP/after"
	diff -u "$TMP/before" "$TMP/after" || fail "tracefs not restored after: $1"
	note "tracefs restored after: $1"
}

# Wait until the tool says tracing is on (its banner on stderr).
wait_banner() {
	local i
	for i in $(seq 1 200); do
		grep -q "Hit Ctrl-C" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	cat "$1"
	fail "the tool did not start tracing within 10 s"
}

# steal_ns [CPU]: the time the hypervisor has taken from CPU (from all CPUs
# without one) since boot, in ns: /proc/stat's steal, in USER_HZ ticks.
# sum_exec_runtime leaves it out, a slice timed between switches holds it
# (offcpu-ftrace-oncpu(8), ACCURACY); kacct.py's steal_slack bounds that.
steal_ns() {
	awk -v c="cpu${1:-}" -v hz="$(getconf CLK_TCK)" '$1 == c { printf "%.0f\n", $9 * 1e9 / hz }' /proc/stat
}

# Start the tool in the background: run_bg OUT ERR ARGS...; sets TOOL_PID.
# OUT and ERR are emptied here, before the fork: the child's own truncation
# can come after wait_banner's first look, and a banner an earlier run left
# in ERR would then start the workload before this run traces.
run_bg() {
	local out=$1 err=$2
	shift 2
	: > "$out"
	: > "$err"
	"$BIN" "$@" > "$out" 2> "$err" &
	TOOL_PID=$!
	BG_PIDS="$BG_PIDS $TOOL_PID"
}

# A burst of sched events no 64 KiB buffer holds (a ping-pong of 20000
# round trips, at least 80000 events), for tests that overload on purpose.
burst() {
	if command -v perf > /dev/null && perf bench sched pipe -l 10 > /dev/null 2>&1; then
		perf bench sched pipe -l 20000 > /dev/null 2>&1
	else
		WORKLOAD_EXIT=1 "$WORKLOAD" runq "$(( $(nproc) - 1 ))" 2 1000 > /dev/null
	fi
}

# bt_misses PID: how many times the kernel skipped bpftrace PID's programs
# (the sum of recursion_misses in /proc/PID/fdinfo: a program that would
# have run while another BPF program or a bpf() map call held the CPU is
# not run, so bpftrace's numbers lack that event); empty where fdinfo has
# no such line. Tracepoint programs' misses are counted from 6.7 on: 0
# before says nothing. Read before stop_bpftrace.
bt_misses() {
	cat /proc/"$1"/fdinfo/* 2> /dev/null |
		awk '$1 == "recursion_misses:" { n++; s += $2 } END { if (n) print s }'
}

# bt_runq_prog FILE [COMM...]: a bpftrace program timing run-queue waits
# as runqlat does (from sched_wakeup or _new, or from a preemption: R and
# R+ as this kernel prints them, to the switch-in), summed per thread
# (@sum, @cnt), and of that the waits whose wakeup fired in an idle CPU's
# idle task (@isum: the hits this kernel loses to ftrace and perf); with
# COMMs, only threads switched in under one of those names. It prints
# "Attached" once attached (bt_start).
bt_runq_prog() {
	local file=$1 mask filter= c
	shift
	mask=$("$BIN" info --format=json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["tracefs"]["preempt_mask"])')
	for c in "$@"; do
		filter="${filter:+$filter || }args->next_comm == \"$c\""
	done
	cat > "$file" <<BT
BEGIN { printf("Attached\n"); }
tracepoint:sched:sched_wakeup_new { @q[args->pid] = nsecs; }
tracepoint:sched:sched_wakeup {
	@q[args->pid] = nsecs;
	if (pid == 0) { @i[args->pid] = 1; }
}
tracepoint:sched:sched_switch {
	if (args->prev_state == 0 || args->prev_state == $mask) { @q[args->prev_pid] = nsecs; }
	\$ns = @q[args->next_pid];
	if (\$ns${filter:+ && ($filter)}) {
		@sum[args->next_pid] = sum(nsecs - \$ns); @cnt[args->next_pid] = count();
		if (@i[args->next_pid]) { @isum[args->next_pid] = sum(nsecs - \$ns); }
	}
	delete(@q[args->next_pid]);
	delete(@i[args->next_pid]);
}
END { clear(@q); clear(@i); }
BT
}

# bt_start PROGRAM OUT: bpftrace runs PROGRAM, printing to OUT (emptied
# first: an earlier run's "Attached" is not this one's), its errors to
# OUT.err; returns once it is attached. Sets BT_PID.
bt_start() {
	: > "$2"
	bpftrace "$1" > "$2" 2> "$2.err" &
	BT_PID=$!
	BG_PIDS="$BG_PIDS $BT_PID"
	for _ in $(seq 1 300); do grep -q Attached "$2" && return; sleep 0.05; done
	cat "$2.err"
	fail "bpftrace did not attach"
}

# stop_bpftrace PID: SIGINT (bpftrace prints its maps and exits); bpftrace
# 0.17 sometimes ignores it under load (docs/performance.md, "bpftrace
# exit"): SIGTERM after 20 s, which prints the maps as well, SIGKILL after
# 10 s more. Returns 1 when it had to be killed (no maps printed).
stop_bpftrace() {
	local pid=$1 i
	kill -INT "$pid" 2> /dev/null
	for i in $(seq 1 200); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2> /dev/null; then
		note "bpftrace ignored SIGINT for 20 s: SIGTERM"
		kill -TERM "$pid" 2> /dev/null
		for i in $(seq 1 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
	fi
	if kill -0 "$pid" 2> /dev/null; then
		kill -KILL "$pid" 2> /dev/null
		wait "$pid" 2> /dev/null
		return 1
	fi
	wait "$pid" 2> /dev/null
	return 0
}
