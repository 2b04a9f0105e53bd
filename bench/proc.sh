#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The proc backend's own cost: the CPU time offcpu-ftrace uses sampling
# /proc with 1, 100 and 1000 threads selected (-p of a process whose
# threads sleep), at the default 20 Hz and at 100 Hz, for runq (schedstat
# and stat per thread and sample) and offcpu -K (also status and wchan or
# stack while asleep).
#
#   bench/proc.sh [--quick]        (any user; run.sh runs it)
#
# CPU: the tool's user + system time (its rusage, from the shell's
# `times` after it exits), over a WINDOW-second window; shown as seconds
# and as a share of one core. No tracefs, no privileges.
#
# Writes $BENCH_RESULTS/proc.tsv and prints it.
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

QUICK=0
[ "${1:-}" = --quick ] && QUICK=1
WINDOW=${PROC_WINDOW:-10}
[ "$QUICK" = 1 ] && WINDOW=${PROC_WINDOW_QUICK:-3}
THREADS=${PROC_THREADS:-"1 100 1000"}
RATES=${PROC_RATES:-"20 100"}
OUT_DIR=${BENCH_RESULTS:-${TMPDIR:-/tmp}}
OUT=$OUT_DIR/proc.tsv
BIN=${OFFCPU_FTRACE:-${BUILD_DIR:-.}/offcpu-ftrace}
[ -x "$BIN" ] || { echo "proc.sh: $BIN not built" >&2; exit 1; }

SLEEPERS=
cleanup() { [ -n "$SLEEPERS" ] && kill "$SLEEPERS" 2>/dev/null; wait 2>/dev/null; }
trap cleanup EXIT INT TERM

# a process of N threads that sleep (woken every 100 ms, as idle services are)
sleepers() {
	python3 -c '
import sys, threading, time
def nap():
    while True:
        time.sleep(0.1)
for _ in range(int(sys.argv[1]) - 1):
    threading.Thread(target=nap, daemon=True).start()
print("ready", flush=True)
nap()' "$1" &
	SLEEPERS=$!
	sleep 1
}

# the tool's CPU seconds (user+system) for one run
tool_cpu() {
	bash -c '"$@" > /dev/null 2>&1; times' _ "$@" | awk 'NR == 2 {
		split($1, u, "m"); split($2, s, "m")
		sub("s", "", u[2]); sub("s", "", s[2])
		printf "%.3f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}

printf 'threads\trate_hz\tmode\twindow_s\tcpu_s\tcore_pct\n' > "$OUT"
for n in $THREADS; do
	sleepers "$n"
	for hz in $RATES; do
		for mode in runq "offcpu -K"; do
			cpu=$(tool_cpu "$BIN" $mode --backend=proc --rate "$hz" -p "$SLEEPERS" "$WINDOW")
			printf '%s\t%s\t%s\t%s\t%s\t%.2f\n' "$n" "$hz" "$mode" "$WINDOW" "$cpu" \
				"$(echo "$cpu $WINDOW" | awk '{ print 100 * $1 / $2 }')" >> "$OUT"
		done
	done
	kill "$SLEEPERS" 2>/dev/null
	wait "$SLEEPERS" 2>/dev/null
	SLEEPERS=
done
column -t -s "$(printf '\t')" "$OUT"
