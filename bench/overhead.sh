#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Tracing overhead on context-switch-heavy workloads, against a baseline
# measured in the same run, rounds interleaved.
#
#   bench/overhead.sh [--quick]        (root; run.sh runs it)
#
# For each workload, ROUNDS rounds; each round runs every mode once, in an
# order rotated from round to round, so that drift on the host (another
# job, thermal, caches) spreads over all modes instead of favouring one:
#
#   baseline           no tracing
#   ring runq ...      offcpu-ftrace runq/offcpu/offcpu -K, --backend=ring
#   perf runq ...      the same with --backend=perf
#   ...-offcpu-K-late  offcpu -K --late-stacks --min 1000 (stacks of long
#                      blocks, read from /proc while they last)
#   ...-runq-cg        runq --by cgroup: the cgroup cache and moves (issue 28;
#                      workloads pipe2cg and hackbenchcg split over two cgroups)
#   perf runq nosw     perf runq without perf's context-switch records
#                      (OFFCPU_FTRACE_NO_SWITCH_RECORDS): what they cost
#   bpftrace runqlat   bench/runqlat.bt          (when bpftrace is installed)
#   bpftrace offcpu -K bench/offcpu_kstack.bt    (when bpftrace is installed)
#   libbpf-*           libbpf-tools' runqlat, cpudist, offcputime (kernel and
#                      user stacks) as Debian ships them (installed, with BTF)
#   auto-*             runq, offcpu -K, oncpu with the backend auto picks
#   perf sched record  perf's own sched recorder, to a file in /tmp
#   floor              the three sched events enabled in a private tracefs
#                      instance (bench-floor.<pid>) that nothing reads
#   floor-mono         the same with the mono trace clock offcpu-ftrace uses
#
# A tracer is started, the script waits until it traces (its banner line),
# the workload is timed, then the tracer is stopped with SIGINT. Per run it
# records the workload's wall time and CPU time (its processes' user +
# system, where tracepoint handlers and BPF programs run), the CPU time the
# tracer's own threads used while the workload ran (schedstat), the
# tracer's peak RSS (GNU time), and where the tracer reports them, events
# and lost events.
#
# Writes $BENCH_RESULTS/overhead.tsv (one line per run) and prints it.
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

QUICK=0
[ "${1:-}" = --quick ] && QUICK=1
# sizes: about 1.5 s per workload run on the reference host (full run)
if [ "$QUICK" = 1 ]; then
	ROUNDS=${ROUNDS:-2}
	PIPE_LOOPS=${PIPE_LOOPS:-10000} PIPE2_LOOPS=${PIPE2_LOOPS:-6000}
	PINNED_LOOPS=${PINNED_LOOPS:-30000}
	HB_GROUPS=${HB_GROUPS:-4} HB_LOOPS=${HB_LOOPS:-100}
else
	ROUNDS=${ROUNDS:-5}
	PIPE_LOOPS=${PIPE_LOOPS:-50000} PIPE2_LOOPS=${PIPE2_LOOPS:-30000}
	PINNED_LOOPS=${PINNED_LOOPS:-150000}
	HB_GROUPS=${HB_GROUPS:-4} HB_LOOPS=${HB_LOOPS:-300}
fi
WORKLOADS=${WORKLOADS:-pinned pipe hackbench pipe2}
# the pinned pair's CPU: the last one (CPU 0 takes most interrupts)
PIN_CPU=${PIN_CPU:-$(($(nproc) - 1))}

bench_setup
OUT=${BENCH_RESULTS:-$WORK}/overhead.tsv
: > "$OUT"

command -v hackbench > /dev/null ||
	{ note "hackbench not installed (apt-get install -y rt-tests): skipped"; WORKLOADS=${WORKLOADS//hackbenchcg/}
	  WORKLOADS=${WORKLOADS//hackbench/}; }
# pipe2cg, hackbenchcg (WORKLOADS="pipe2cg hackbenchcg"): split over two cgroups
case " $WORKLOADS " in *cg\ *) bench_cgroups ;; esac

MODES=(baseline ring-runq perf-runq perf-runq-tp perf-runq-nosw ring-offcpu perf-offcpu ring-offcpu-K perf-offcpu-K
	ring-offcpu-K-late perf-offcpu-K-late)
# the toolkit's analyses (issue 24's targets: runq --slower and oncpu at runq's
# cost; offcpu -K --wakers at offcpu -K's plus the waking events')
MODES+=(ring-slower perf-slower ring-oncpu perf-oncpu ring-offcpu-K-wakers perf-offcpu-K-wakers)
# the wall-clock profile at its default 99 Hz (issue 26): offcpu -K -U and the samples
MODES+=(ring-profile perf-profile)
# the flight recorder (issue 27) and a kernel overwrite buffer beside runq
MODES+=(ring-flight perf-flight ring-runq-ow)
# runq --by cgroup (issue 28): the cgroup cache and the cgroup moves, against
# runq (on the *cg workloads the threads are in two cgroups, entered in the window)
MODES+=(ring-runq-cg perf-runq-cg)
if command -v bpftrace > /dev/null; then
	MODES+=(bpftrace-runqlat bpftrace-offcpu-K)
else
	note "bpftrace not installed: its runs are skipped"
fi
# libbpf-tools as Debian 12 ships it (0.26): runqlat, cpudist, offcputime
LIBBPF_TOOLS=${LIBBPF_TOOLS:-/usr/sbin}
if [ -x "$LIBBPF_TOOLS/runqlat" ] && [ -r /sys/kernel/btf/vmlinux ]; then
	# offcputime 0.26 walks kernel and user stacks (it has no kernel-only option)
	MODES+=(libbpf-runqlat libbpf-cpudist libbpf-offcputime)
else
	note "libbpf-tools not installed (apt-get install -y libbpf-tools) or no BTF: its runs are skipped"
fi
MODES+=(perf-sched-record floor floor-mono)
# what a user gets without --backend (issue 38: the automatic choice against the peers)
MODES+=(auto-runq auto-offcpu-K auto-oncpu)
# EXTRA_MODES="ring-runq-b1024 ...": more modes, e.g. with another buffer size
[ -n "${EXTRA_MODES:-}" ] && read -r -a more <<< "$EXTRA_MODES" && MODES+=("${more[@]}")
# ONLY_MODES="baseline ring-offcpu-K ...": a subset, to compare a few quickly
if [ -n "${ONLY_MODES:-}" ]; then
	keep=()
	for m in "${MODES[@]}"; do
		case " $ONLY_MODES " in *" $m "*) keep+=("$m") ;; esac
	done
	MODES=("${keep[@]}")
fi

# bpftrace wants locked memory on older kernels; newer ones account it
# in the memory cgroup, where a refused raise is harmless
ulimit -l unlimited 2> /dev/null || true

# Run workload $1 timed: sets WL_S (wall) and WL_CPU (its processes' user +
# system CPU seconds, which include the tracepoint handlers and BPF
# programs that ran in their context). Nothing forks between the workload's
# end and the return, so that the tracer is stopped right after it.
timed_workload() {
	local s e
	times > "$WORK/times.0"
	s=$EPOCHREALTIME
	run_workload "$1"
	e=$EPOCHREALTIME
	times > "$WORK/times.1"
	WL_S=""
	WL_START=$s
	WL_END=$e
	WL_RANGE=1
}

# The numbers timed_workload left raw.
finish_timing() {
	WL_S=$(elapsed "$WL_START" "$WL_END")
	WL_CPU=$(awk -v a="$(children_cpu "$WORK/times.0")" -v b="$(children_cpu "$WORK/times.1")" \
		'BEGIN { printf "%.3f", b - a }')
}

# CPU time (ns) process $1 has run so far, all its threads (schedstat),
# into PROC_NS (no fork).
proc_cpu_ns() {
	local f ns
	PROC_NS=0
	for f in /proc/"$1"/task/*/schedstat; do
		read -r ns _ < "$f" 2> /dev/null && PROC_NS=$((PROC_NS + ns))
	done
}

# timed_workload with the tracer's own CPU time during the workload in
# TR_RUN_CPU (seconds): what its reader cost while the workload ran,
# without its startup (bpftrace compiles its program then) or exit.
traced_workload() {
	local c0
	proc_cpu_ns "$TR_PID"
	c0=$PROC_NS
	timed_workload "$1"
	proc_cpu_ns "$TR_PID"
	TR_RUN_CPU=$(((PROC_NS - c0) / 1000))	# us
}

FAILED=()	# modes that could not run: skipped afterwards

# run_mode WORKLOAD MODE ROUND: one run; appends a line to $OUT.
run_mode() {
	local w=$1 mode=$2 r=$3 name="$2.$1.$3" ev="" lost="" win="" rss="" rc=0 i cpu=0
	local -a cmd
	WL_S=""
	WL_CPU=""
	WL_RANGE=""
	TR_RUN_CPU=""
	case $mode in
	baseline)
		timed_workload "$w" ;;
	ring-* | auto-* | perf-runq | perf-runq-nosw | perf-runq-tp | perf-offcpu | perf-offcpu-K | perf-offcpu-K-late | \
	perf-slower | perf-oncpu | perf-offcpu-K-wakers | perf-profile | perf-runq-cg | perf-flight | perf-*-b[0-9]*)
		local -a env=() extra=()
		local m=$mode
		# MODE-bKIB: the same with --buffer-size KIB (per-CPU buffer)
		case $m in
		*-b[0-9]*) extra=(--buffer-size "${m##*-b}"); m=${m%-b*} ;;
		esac
		case $m in
		*-runq) cmd=(runq) ;;
		*-runq-cg) cmd=(runq --by cgroup) ;;
		*-runq-nosw)	# what perf's context-switch records cost
			cmd=(runq); env=(OFFCPU_FTRACE_NO_SWITCH_RECORDS=1) ;;
		*-runq-tp)	# runq with the sched_switch tracepoint beside the records
			cmd=(runq); env=(OFFCPU_FTRACE_SWITCH_TRACEPOINT=1) ;;
		*-offcpu) cmd=(offcpu) ;;
		*-offcpu-K) cmd=(offcpu -K) ;;
		*-offcpu-K-late)	# stacks of blocks >= 1 ms only, read from /proc
			cmd=(offcpu -K --late-stacks --min 1000) ;;
		*-slower) cmd=(runq --slower 10000) ;;	# runqslower's default threshold
		*-oncpu) cmd=(oncpu) ;;
		*-offcpu-K-wakers) cmd=(offcpu -K --wakers) ;;
		*-profile) cmd=(profile) ;;
		# the flight recorder (issue 27): runq keeping the last 30 s in its
		# user-space store, a trigger that never fires
		*-flight) cmd=(runq --record "$WORK/$name.dat" --flight 30 --runq-over 3600000000) ;;
		# the alternative it was chosen over: the window in a kernel buffer
		# in overwrite mode, a second instance beside the one runq reads
		*-runq-ow) cmd=(runq) ;;
		esac
		lock_tracefs
		if [ "$m" = ring-runq-ow ]; then
			local ow=bench-ow.$$ e
			instance_new "$ow"
			echo 65536 > "$T/instances/$ow/buffer_size_kb"
			echo mono > "$T/instances/$ow/trace_clock" 2> /dev/null
			for e in sched_switch sched_wakeup sched_wakeup_new sched_waking; do
				[ -e "$T/instances/$ow/events/sched/$e/enable" ] &&
					echo 1 > "$T/instances/$ow/events/sched/$e/enable"
			done
		fi
		if start_tracer "$name" stderr "Hit Ctrl-C" \
			env "${env[@]}" "$TOOL" "${cmd[@]}" "${extra[@]}" --backend="${mode%%-*}" --format=json; then
			TOOL_PIDS+=("$TR_PID")
			traced_workload "$w"
			stop_tracer
			rc=$TR_RC
			rss=$TR_RSS_KB
			if [ -s "$WORK/$name.out" ]; then
				ev=$(json_events "$WORK/$name.out")
				lost=$(jq .events.lost "$WORK/$name.out")
				win=$(jq .window.duration_s "$WORK/$name.out")
			fi
			[ -z "$(tool_leftovers)" ] || die "offcpu-ftrace left its instance behind ($mode)"
		else
			rc=1
		fi
		if [ "$m" = ring-runq-ow ]; then
			instance_remove "bench-ow.$$" || die "cannot remove bench-ow.$$"
		fi
		unlock_tracefs ;;
	bpftrace-*)
		local prog=runqlat.bt
		[ "$mode" = bpftrace-offcpu-K ] && prog=offcpu_kstack.bt
		if start_tracer "$name" stdout "Hit Ctrl-C" bpftrace "$BENCH_DIR/$prog"; then
			traced_workload "$w"
			stop_tracer
			rc=$TR_RC
			rss=$TR_RSS_KB
			win=$(elapsed "$TR_READY" "$TR_STOP")
		else
			rc=1
		fi ;;
	libbpf-*)
		# ready once its programs are attached (offcputime prints no banner)
		if start_tracer "$name" stdout "Tracing (attached" "$BENCH_DIR/libbpf_ready.sh" \
			"$LIBBPF_TOOLS/${mode#libbpf-}"; then
			traced_workload "$w"
			stop_tracer
			rc=$TR_RC
			rss=$TR_RSS_KB
			win=$(elapsed "$TR_READY" "$TR_STOP")
		else
			rc=1
		fi ;;
	perf-sched-record)
		if start_perf_sched "$name" "$WORK/$name.data"; then
			traced_workload "$w"
			stop_perf_sched
			rc=$TR_RC
			[ "$rc" = 130 ] && rc=0	# perf record exits 128+SIGINT
			rss=$TR_RSS_KB
			win=$(elapsed "$TR_READY" "$TR_STOP")
			ev=$(perf_stat "$WORK/$name.data" SAMPLE)
			lost=$(perf_stat "$WORK/$name.data" LOST)
			lost=${lost:-0}
		else
			rc=1
		fi
		rm -f "$WORK/$name.data" ;;
	floor | floor-mono)
		local inst=bench-floor.$$ s e st
		lock_tracefs
		instance_new "$inst"
		# floor-mono: the trace clock offcpu-ftrace sets (the floor keeps local)
		[ "$mode" = floor-mono ] && { echo mono > "$T/instances/$inst/trace_clock" ||
			echo global > "$T/instances/$inst/trace_clock"; }
		for e in sched_switch sched_wakeup sched_wakeup_new; do
			st=$T/instances/$inst/events/sched/$e/enable
			[ -e "$st" ] && echo 1 > "$st"
		done
		s=$EPOCHREALTIME
		timed_workload "$w"
		echo 0 > "$T/instances/$inst/tracing_on"
		win=$(elapsed "$s" "$EPOCHREALTIME")
		# written = still in the buffer + overwritten (no reader: it wraps)
		ev=0
		for st in "$T/instances/$inst"/per_cpu/cpu*/stats; do
			i=$(awk '/^entries:/ { e = $2 } /^overrun:/ { o = $2 } END { print e + o }' "$st")
			ev=$((ev + i))
		done
		instance_remove "$inst" || die "cannot remove $inst"
		unlock_tracefs ;;
	esac
	[ -n "$WL_RANGE" ] && finish_timing
	[ -n "$TR_RUN_CPU" ] && cpu=$(awk -v u="$TR_RUN_CPU" 'BEGIN { printf "%.3f", u / 1e6 }')
	if [ -z "$WL_S" ]; then
		# it never traced: no workload time; twice and the mode is dropped
		note "$mode on $w: failed to start (exit $rc; $(tail -n 2 "$WORK/$name.log" "$WORK/$name.out" 2> /dev/null | tr '\n' ' '))"
		FAILED+=("$mode")
		return 0
	fi
	# it traced the whole workload, but did not end cleanly: the time counts
	[ "$rc" = 0 ] || note "$mode on $w: the tracer exited $rc after the workload"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$mode" "$r" "$WL_S" \
		"${ev:--}" "${lost:--}" "${win:--}" "${rss:--}" "${WL_CPU:--}" "$cpu" >> "$OUT"
	rm -f "$WORK/$name".*
}

# a mode that failed to start twice is not tried again
failed() {
	local f n=0
	for f in "${FAILED[@]}"; do [ "$f" = "$1" ] && n=$((n + 1)); done
	[ "$n" -ge 2 ]
}

n=${#MODES[@]}
step=$(((n + ROUNDS - 1) / ROUNDS))
for w in $WORKLOADS; do
	note "workload $w: $(workload_desc "$w"), $ROUNDS rounds x ${#MODES[@]} modes"
	run_workload "$w"	# warm-up: page cache, binaries
	for ((r = 0; r < ROUNDS; r++)); do
		for ((k = 0; k < n; k++)); do
			mode=${MODES[((k + r * step) % n)]}
			failed "$mode" && continue
			run_mode "$w" "$mode" "$((r + 1))"
		done
	done
done
echo "# workload mode round workload_s events lost window_s peak_rss_kb workload_cpu_s tracer_cpu_s"
cat "$OUT"
