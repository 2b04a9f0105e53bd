# shellcheck shell=bash
# shellcheck disable=SC2034 # TOOL, TR_*: read by the scripts that source this
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shared by the bench/*.sh scripts: setup checks, a scratch directory,
# starting a tracer and knowing when it traces, its peak RSS, private
# tracefs instances, and a cleanup that runs on every exit path (normal
# end, error, Ctrl-C, SIGTERM): it ends what the scripts started (by
# process id), removes their instances, and checks that tracefs is as it
# was found.

set -u

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC_DIR=$(dirname "$BENCH_DIR")
T=""			# tracefs mount
WORK=""			# scratch directory, removed at exit
TOOL=""			# private copy of offcpu-ftrace
BG_PIDS=()		# background processes still to be ended at exit
TRACER_PIDS=()		# tracers (children of GNU time) still to be ended
TOOL_PIDS=()		# every offcpu-ftrace run: its instance must be gone
INSTANCES=()		# our own tracefs instances still to be removed
BENCH_CGROUPS=()	# cgroups made for the *cg workloads, removed at exit
LOCK_HELD=0
LIVE_LOCK=""
MAIN_PID=""

die() { echo "bench: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

# Everything at the top level of tracefs that a benchmark could change.
tracefs_snapshot() {
	local f
	echo "set_event: $(tr '\n' ' ' < "$T/set_event")"
	echo "tracing_on: $(cat "$T/tracing_on")"
	echo "trace_clock: $(cat "$T/trace_clock")"
	echo "current_tracer: $(cat "$T/current_tracer")"
	echo "set_event_pid: $(tr '\n' ' ' < "$T/set_event_pid")"
	echo "buffer_size_kb: $(cat "$T/buffer_size_kb")"
	echo "buffer_percent: $(cat "$T/buffer_percent" 2>/dev/null)"
	echo "options/overwrite: $(cat "$T/options/overwrite")"
	for f in "$T"/events/sched/*/enable; do
		echo "enable ${f#"$T"/}: $(cat "$f")"
	done
	for f in "$T"/events/sched/*/trigger; do
		echo "trigger ${f#"$T"/}: $(grep -v '^#' "$f" | tr '\n' ' ')"
	done
}

# bench_setup: checks, scratch dir, traps, the tool's private copy.
bench_setup() {
	[ "$(id -u)" = 0 ] || die "run as root (the benchmarks trace the whole host)"
	T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	[ -n "$T" ] || die "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)"
	[ -w "$T/instances" ] || die "$T is not writable"
	command -v jq >/dev/null || die "jq is needed (apt-get install -y jq)"
	command -v perf >/dev/null || die "perf is needed for the workload (apt-get install -y linux-perf)"
	[ -x /usr/bin/time ] || die "GNU time is needed for peak RSS (apt-get install -y time)"
	WORK=$(mktemp -d /tmp/offcpu-bench.XXXXXX)
	MAIN_PID=$BASHPID
	trap bench_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
	local src=${OFFCPU_FTRACE:-$SRC_DIR/offcpu-ftrace}
	[ -x "$src" ] || die "$src is not built (build the tree, or set OFFCPU_FTRACE=path)"
	# a private copy: the tree's binary may be rebuilt while we run
	cp "$src" "$WORK/offcpu-ftrace"
	TOOL=$WORK/offcpu-ftrace
	# the per-boot kernel facts (offcpu-ftrace-info(8), FILES): what this boot
	# knows, in a private copy, so the runs choose as a user's would and /run
	# is left as it was
	export OFFCPU_FTRACE_STATE=$WORK/kernel-facts
	[ -f /run/offcpu-ftrace/kernel-facts ] && cp -p /run/offcpu-ftrace/kernel-facts "$OFFCPU_FTRACE_STATE"
	# live tests of a concurrent "make check" compare tracefs snapshots:
	# take their lock around every traced run so neither disturbs the other
	LIVE_LOCK=${BENCH_LOCK:-${OFFCPU_LIVE_LOCK:-/tmp/offcpu-ftrace-live-tests.lock}}
	exec {LOCK_FD}>>"$LIVE_LOCK"
	# complete or absent: cleanup compares only against a whole snapshot
	tracefs_snapshot > "$WORK/tracefs.tmp" && mv "$WORK/tracefs.tmp" "$WORK/tracefs.before"
}

lock_tracefs() {
	flock "$LOCK_FD"
	LOCK_HELD=1
}

unlock_tracefs() {
	flock -u "$LOCK_FD"
	LOCK_HELD=0
}

# Remove a process id from an array variable named $1.
_forget() {
	local -n arr=$1
	local keep=() p
	for p in "${arr[@]}"; do
		[ "$p" = "$2" ] || keep+=("$p")
	done
	arr=("${keep[@]}")
}

# Process ids of the descendants of $1.
_descendants() {
	local c
	local -a kids
	read -r -a kids < <(cat /proc/"$1"/task/*/children 2> /dev/null | tr '\n' ' ')
	for c in "${kids[@]}"; do
		echo "$c"
		_descendants "$c"
	done
}

# Is $1 running (a zombie is not)?
_alive() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null) || return 1
	[ -n "$st" ] && [ "${st%% *}" != Z ]
}

# end_tree PID SIG S: send SIG to PID and its descendants (by id, never by
# name), SIGKILL what is left after S seconds.
end_tree() {
	local p=$1 i left
	local -a all
	_alive "$p" || return 0
	mapfile -t all < <(echo "$p"; _descendants "$p")
	kill "-$2" "${all[@]}" 2> /dev/null
	for ((i = 0; i < $3 * 20; i++)); do
		left=0
		for p in "${all[@]}"; do
			_alive "$p" && left=1
		done
		[ "$left" = 0 ] && return 0
		sleep 0.05
	done
	kill -KILL "${all[@]}" 2> /dev/null
}

# Create our instance $1 (a name with our pid in it); removed at exit.
instance_new() {
	mkdir "$T/instances/$1" || die "cannot create instance $1"
	INSTANCES+=("$1")
}

instance_remove() {
	local d=$T/instances/$1
	if [ -d "$d" ]; then
		echo 0 > "$d/tracing_on" 2>/dev/null
		rmdir "$d" 2>/dev/null || sleep 0.2
		[ -d "$d" ] && rmdir "$d"
	fi
	_forget INSTANCES "$1"
	[ ! -d "$d" ]
}

# Did every offcpu-ftrace run remove its instance?
tool_leftovers() {
	local p
	for p in "${TOOL_PIDS[@]}"; do
		compgen -G "$T/instances/offcpu-ftrace.$p" >/dev/null && echo "offcpu-ftrace.$p"
		compgen -G "$T/instances/offcpu-ftrace.$p.*" >/dev/null && echo "offcpu-ftrace.$p.*"
	done
	return 0
}

bench_cleanup() {
	local rc=$? p i left
	# a subshell (forked, not yet exec'd) that got a signal runs the
	# inherited traps: only the script itself cleans up
	[ "$BASHPID" = "$MAIN_PID" ] || exit "$rc"
	trap - INT TERM HUP
	# tracers first (SIGINT: they remove what they set up), then the rest
	for p in "${TRACER_PIDS[@]}"; do end_tree "$p" INT 10; done
	for p in "${BG_PIDS[@]}"; do end_tree "$p" TERM 5; done
	wait 2>/dev/null
	cgroups_remove
	for i in "${INSTANCES[@]}"; do
		instance_remove "$i" || note "could not remove $T/instances/$i"
	done
	if [ -n "$T" ] && [ -n "$WORK" ] && [ -r "$WORK/tracefs.before" ]; then
		left=$(tool_leftovers)
		if [ -n "$left" ]; then
			note "offcpu-ftrace left instances behind: $left (run 'offcpu-ftrace cleanup')"
			rc=1
		fi
		tracefs_snapshot > "$WORK/tracefs.after"
		if ! diff -u "$WORK/tracefs.before" "$WORK/tracefs.after" >&2; then
			note "tracefs differs from what it was at the start (above)"
			rc=1
		fi
	fi
	[ "$LOCK_HELD" = 1 ] && unlock_tracefs
	if [ -n "$WORK" ]; then
		if [ -n "${BENCH_KEEP:-}" ]; then
			note "scratch files kept in $WORK"
		else
			rm -rf "$WORK"
		fi
	fi
	exit "$rc"
}

# Seconds between two $EPOCHREALTIME values.
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'; }

_child_of() {
	local i c=""
	for ((i = 0; i < 100; i++)); do
		c=$(cat "/proc/$1/task/$1/children" 2>/dev/null)
		c=${c%% *}
		[ -n "$c" ] && { echo "$c"; return 0; }
		sleep 0.01
	done
	return 1
}

# start_tracer NAME STREAM BANNER CMD...
#   Runs CMD under GNU time (for its peak RSS) in the background and
#   returns once CMD printed a line containing BANNER on STREAM (stdout or
#   stderr): for offcpu-ftrace that line comes right after tracing is on.
#   Sets TR_NAME TR_PID TR_TIME_PID TR_LAUNCH TR_READY (EPOCHREALTIME).
#   The other stream goes to $WORK/NAME.out (stderr case) or NAME.log.
start_tracer() {
	local name=$1 stream=$2 banner=$3 fifo line fd
	shift 3
	TR_NAME=$name
	fifo=$WORK/$name.fifo
	rm -f "$fifo" "$WORK/$name.log" "$WORK/$name.out" "$WORK/$name.rss"
	mkfifo "$fifo"
	TR_LAUNCH=$EPOCHREALTIME
	if [ "$stream" = stderr ]; then
		/usr/bin/time -f '%M %U %S' -o "$WORK/$name.rss" "$@" > "$WORK/$name.out" 2> "$fifo" &
	else
		/usr/bin/time -f '%M %U %S' -o "$WORK/$name.rss" "$@" > "$fifo" 2> "$WORK/$name.out" &
	fi
	TR_TIME_PID=$!
	BG_PIDS+=("$TR_TIME_PID")
	exec {fd}< "$fifo"
	TR_PID=$(_child_of "$TR_TIME_PID") || TR_PID=""
	[ -n "$TR_PID" ] && TRACER_PIDS+=("$TR_PID")
	TR_READY=""
	while IFS= read -r -t 120 -u "$fd" line; do
		printf '%s\n' "$line" >> "$WORK/$name.log"
		case $line in
		*"$banner"*) TR_READY=$EPOCHREALTIME; break ;;
		esac
	done
	# keep reading, so that the tracer never blocks on a full pipe
	cat <&"$fd" >> "$WORK/$name.log" &
	TR_DRAIN_PID=$!
	BG_PIDS+=("$TR_DRAIN_PID")
	exec {fd}<&-
	if [ -z "$TR_READY" ]; then
		note "$name did not start tracing: $(tail -n 3 "$WORK/$name.log" 2>/dev/null | tr '\n' ' ')"
		stop_tracer
		return 1
	fi
	return 0
}

# stop_tracer: SIGINT to the tracer, wait for it to exit (20 s, then
#   SIGTERM and 10 s more, then SIGKILL: bpftrace 0.17 sometimes ignores a
#   SIGINT under load).
# wait_tracer S: no signal, wait up to S s for a tracer that ends by itself.
#   Both set TR_STOP TR_EXIT (EPOCHREALTIME), TR_RC, TR_RSS_KB, TR_CPU_S
#   (the tracer's own user + system CPU seconds, from GNU time).
stop_tracer() { _end_tracer INT 20; }
wait_tracer() { _end_tracer "" "$1"; }

# _wait_or_timer S: wait for the tracer's GNU time, at most S s. Returns 0
# when it ended (TR_RC set), 1 on timeout.
_wait_or_timer() {
	local timer first="" rc
	sleep "$1" &
	timer=$!
	wait -n -p first "$TR_TIME_PID" "$timer"
	rc=$?
	# killed before its exec, the forked shell would run our traps
	_exec_done "$timer" sleep
	kill "$timer" 2>/dev/null
	wait "$timer" 2>/dev/null
	[ "$first" = "$TR_TIME_PID" ] || return 1
	TR_RC=$rc
	return 0
}

# Wait (up to 1 s) until the background job $1 has exec'd command $2.
_exec_done() {
	local i c
	for ((i = 0; i < 1000; i++)); do
		c=""
		read -r c < "/proc/$1/comm" 2> /dev/null || return 0
		[ "$c" = "$2" ] && return 0
		sleep 0.001
	done
}

_end_tracer() {
	TR_STOP=$EPOCHREALTIME
	[ -n "$1" ] && [ -n "$TR_PID" ] && kill "-$1" "$TR_PID" 2>/dev/null
	if ! _wait_or_timer "$2"; then
		note "$TR_NAME still running $2 s after SIG${1:-nothing}: SIGTERM"
		[ -n "$TR_PID" ] && kill -TERM "$TR_PID" 2>/dev/null
		if ! _wait_or_timer 10; then
			note "$TR_NAME still running: killed"
			[ -n "$TR_PID" ] && kill -KILL "$TR_PID" 2>/dev/null
			wait "$TR_TIME_PID"
			TR_RC=137
		fi
	fi
	TR_EXIT=$EPOCHREALTIME
	wait "$TR_DRAIN_PID" 2>/dev/null
	_forget BG_PIDS "$TR_TIME_PID"
	_forget BG_PIDS "$TR_DRAIN_PID"
	[ -n "$TR_PID" ] && _forget TRACER_PIDS "$TR_PID"
	local u s
	read -r TR_RSS_KB u s < <(tail -n 1 "$WORK/$TR_NAME.rss" 2>/dev/null)
	case $TR_RSS_KB in '' | *[!0-9]*) TR_RSS_KB="" ;; esac
	TR_CPU_S=$(awk -v u="${u:-}" -v s="${s:-}" 'BEGIN { if (u != "") printf "%.3f", u + s }')
	rm -f "$WORK/$TR_NAME.fifo"
}

# start_perf_sched NAME DATAFILE: "perf sched record" into DATAFILE, started
#   with its events disabled and enabled through its control fifo, so that
#   its "Events enabled" line says when it records.
start_perf_sched() {
	local ctl=$WORK/$1.ctl
	rm -f "$ctl"
	mkfifo "$ctl"
	exec {PERF_CTL_FD}<> "$ctl"
	# queued in the fifo; perf reads it once its events are set up
	echo enable >&"$PERF_CTL_FD"
	start_tracer "$1" stderr "Events enabled" \
		perf sched record -o "$2" -D -1 --control="fifo:$ctl"
}

stop_perf_sched() {
	stop_tracer
	exec {PERF_CTL_FD}>&-
	rm -f "$WORK/$TR_NAME.ctl"
}

# perf_stat FILE WHAT: WHAT = SAMPLE or LOST events in a perf.data file.
perf_stat() {
	perf report -i "$1" --stats 2> /dev/null |
		awk -v w="$2 events:" 'index($0, w) { print $3; exit }'
}

# bench_cgroups: two cgroups A and B (the cpu controller's v1 hierarchy,
# or cgroup v2) for the *cg workloads, in BENCH_CGROUPS; removed at exit.
bench_cgroups() {
	local root n
	[ "${#BENCH_CGROUPS[@]}" = 2 ] && return 0
	root=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/mounts)
	[ -n "$root" ] || root=$(awk '$3 == "cgroup2" && $2 == "/sys/fs/cgroup" { print $2; exit }' /proc/mounts)
	[ -n "$root" ] || die "no cgroup hierarchy with the cpu controller, and no cgroup v2 at /sys/fs/cgroup"
	for n in a b; do
		mkdir "$root/offcpu-bench-$$-$n" || die "cannot make a cgroup in $root"
		BENCH_CGROUPS+=("$root/offcpu-bench-$$-$n")
	done
}

# The cgroups bench_cgroups made: emptied (their tasks killed) and removed.
cgroups_remove() {
	local c p i
	for c in "${BENCH_CGROUPS[@]}"; do
		for i in $(seq 1 50); do
			while read -r p; do kill -9 "$p" 2> /dev/null; done 2> /dev/null < "$c/cgroup.procs"
			rmdir "$c" 2> /dev/null && break
			sleep 0.1
		done
		[ -d "$c" ] && note "cannot remove cgroup $c"
	done
	BENCH_CGROUPS=()
}

# in_cgroup CGROUP CMD...: CMD run in CGROUP (entered by a write to its
# cgroup.procs, in the timed window: a cgroup_attach_task event)
in_cgroup() {
	# shellcheck disable=SC2016
	sh -c 'echo $$ > "$1/cgroup.procs" || exit 1; shift; exec "$@"' sh "$@"
}

# The workloads: perf bench sched pipe (a context switch ping-pong), two of
# them at once (one per CPU on a 2-CPU host: the highest sched event rate
# here), and hackbench (many tasks, both CPUs saturated). pipe2cg and
# hackbenchcg split them over two cgroups (half of hackbench's groups in
# each), for --by cgroup.
run_workload() {
	local q
	case $1 in
	pipe2cg)
		in_cgroup "${BENCH_CGROUPS[0]}" perf bench sched pipe -l "${PIPE2_LOOPS:-$PIPE_LOOPS}" &
		q=$!
		BG_PIDS+=("$q")
		in_cgroup "${BENCH_CGROUPS[1]}" perf bench sched pipe -l "${PIPE2_LOOPS:-$PIPE_LOOPS}"
		wait "$q"
		_forget BG_PIDS "$q" ;;
	hackbenchcg)
		in_cgroup "${BENCH_CGROUPS[0]}" hackbench -g "$(((HB_GROUPS + 1) / 2))" -l "$HB_LOOPS" &
		q=$!
		BG_PIDS+=("$q")
		in_cgroup "${BENCH_CGROUPS[1]}" hackbench -g "$((HB_GROUPS / 2 > 0 ? HB_GROUPS / 2 : 1))" \
			-l "$HB_LOOPS"
		wait "$q"
		_forget BG_PIDS "$q" ;;
	pipe)
		perf bench sched pipe -l "$PIPE_LOOPS" ;;
	pinned)
		# both ends on one CPU: every switch is a sleep and a wakeup, the
		# highest switch rate one CPU gives; the other CPU idles
		taskset -c "$PIN_CPU" perf bench sched pipe -l "$PINNED_LOOPS" ;;
	pipe2)
		perf bench sched pipe -l "${PIPE2_LOOPS:-$PIPE_LOOPS}" &
		q=$!
		BG_PIDS+=("$q")
		perf bench sched pipe -l "${PIPE2_LOOPS:-$PIPE_LOOPS}"
		wait "$q"
		_forget BG_PIDS "$q" ;;
	hackbench)
		hackbench -g "$HB_GROUPS" -l "$HB_LOOPS" ;;
	*)
		die "unknown workload $1" ;;
	esac > /dev/null 2>&1
}

workload_desc() {
	case $1 in
	pipe) echo "perf bench sched pipe -l $PIPE_LOOPS" ;;
	pinned) echo "taskset -c $PIN_CPU perf bench sched pipe -l $PINNED_LOOPS (one CPU)" ;;
	pipe2) echo "2 x perf bench sched pipe -l ${PIPE2_LOOPS:-$PIPE_LOOPS}, at once" ;;
	hackbench) echo "hackbench -g $HB_GROUPS -l $HB_LOOPS" ;;
	pipe2cg) echo "2 x perf bench sched pipe -l ${PIPE2_LOOPS:-$PIPE_LOOPS}, at once, one in each of two cgroups" ;;
	hackbenchcg) echo "2 x hackbench -g $((HB_GROUPS / 2)) -l $HB_LOOPS, at once, one in each of two cgroups" ;;
	esac
}

# User + system CPU seconds of the shell's reaped children (bash "times",
# second line), read without forking: write "times" to a file first.
children_cpu() {
	awk 'NR == 2 {
		t = 0
		for (i = 1; i <= 2; i++) { split($i, a, "m"); sub(/s$/, "", a[2]); t += a[1] * 60 + a[2] }
		printf "%.3f", t
	}' "$1"
}

# Sum of the event counts in the tool's JSON (lost counts aside).
json_events() {
	jq '[.events | to_entries[] | select(.key | startswith("lost") | not) | .value] | add' "$1"
}

# The load of memory.sh, startup.sh and flight.sh: two loops of "perf bench
# sched pipe -l $PIPE_LOOPS" (the highest sched event rate on a 2-CPU
# host) until load_stop; "load_start count": each loop also counts its
# runs, which load_runs adds up.
LOAD_PIDS=()
load_start() {
	local i
	rm -f "$WORK/load.stop" "$WORK"/load.*.count
	for i in 1 2; do
		(
			while [ ! -e "$WORK/load.stop" ]; do
				perf bench sched pipe -l "$PIPE_LOOPS" > /dev/null 2>&1
				[ "${1:-}" = count ] && echo >> "$WORK/load.$i.count"
			done
		) &
		LOAD_PIDS+=("$!")
		BG_PIDS+=("$!")
	done
}

load_stop() {
	local p
	touch "$WORK/load.stop"
	for p in "${LOAD_PIDS[@]}"; do
		wait "$p"
		_forget BG_PIDS "$p"
	done
	LOAD_PIDS=()
}

load_runs() { cat "$WORK"/load.*.count 2> /dev/null | wc -l; }
