# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The fuzz targets, their sources and include paths: one list that run.sh
# (libFuzzer) and replay.sh (the regression inputs) both build from.
# Sourced with $top set to the source tree.

FUZZ_TARGETS="decode fmt khist peerhist tdat"

# the project's sources a target links, relative to $top
fuzz_sources() {
	case $1 in
	decode|fmt) echo "src/sched/decode.c src/sched/fmt.c src/core/event.c src/host/fileread.c" ;;
	khist) echo "src/parse/khist.c src/parse/linescan.c" ;;
	peerhist) echo "src/parse/peerhist.c src/parse/khist.c src/parse/linescan.c" ;;
	tdat) echo "tracefs/replay.c tracefs/tdat.c src/sched/fmt_tep.c src/sched/decode.c" \
		"src/sched/fmt.c src/core/event.c src/core/errf.c src/core/analyzer.c" \
		"src/core/tasktab.c src/core/posindex.c src/core/groups.c src/core/hist.c src/core/stacks.c" ;;
	esac
}

# -I flags: the layers a target's sources include
fuzz_includes() {
	for d in src/core src/sched src/parse src/host tracefs tracefs/include tests/fuzz; do
		printf ' -I%s/%s' "$top" "$d"
	done
}
