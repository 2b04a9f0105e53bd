# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The fuzz targets, their sources and include paths: one list that run.sh
# (libFuzzer) and replay.sh (the regression inputs) both build from.
# Sourced with $top set to the source tree.

FUZZ_TARGETS="decode fmt khist peerhist tdat tdatown"

# the project's sources a target links, relative to $top
fuzz_sources() {
	case $1 in
	decode|fmt) echo "src/sched/decode.c src/sched/fmt.c src/core/event.c src/host/fileread.c src/core/grow.c" ;;
	khist) echo "src/parse/khist.c src/parse/linescan.c src/core/grow.c" ;;
	peerhist) echo "src/parse/peerhist.c src/parse/histbuild.c src/parse/khistpeer.c" \
		"src/parse/ourjson.c src/parse/jsonread.c src/parse/histmerge.c" \
		"src/parse/khist.c src/parse/linescan.c src/core/grow.c" ;;
	tdat) echo "tracefs/replay.c tracefs/recshell.c tracefs/tdat.c tracefs/tdatrd.c tracefs/tdatpart.c tracefs/tdatsec.c tracefs/recmeta.c src/parse/numparse.c tracefs/tdatz.c src/sched/fmt_tep.c src/sched/decode.c" \
		"src/host/fileread.c src/sched/fmt.c src/core/event.c src/core/errf.c src/core/analyzer.c src/core/anselect.c src/core/ansinks.c src/core/anrunq.c src/core/anoff.c src/core/anstacks.c" \
		"src/core/cpustate.c src/core/tasktab.c src/core/posindex.c src/core/groups.c src/core/hist.c src/core/stacks.c src/core/grow.c" ;;
	tdatown) echo "tracefs/tdatread.c tracefs/recshell.c tracefs/tdat.c tracefs/tdatrd.c tracefs/tdatpart.c tracefs/tdatsec.c tracefs/recmeta.c src/parse/numparse.c tracefs/tdatz.c src/sched/decode.c src/sched/fmt.c" \
		"src/sym/ksym.c src/host/procfs.c src/parse/linescan.c src/host/fileread.c src/core/event.c" \
		"src/core/errf.c src/core/analyzer.c src/core/anselect.c src/core/ansinks.c src/core/anrunq.c src/core/anoff.c src/core/anstacks.c" \
		"src/core/cpustate.c src/core/tasktab.c src/core/posindex.c src/core/groups.c src/core/hist.c src/core/stacks.c src/core/grow.c" ;;
	esac
}

# the target's source file (tdatown: fuzz_tdat.c with the own reader)
fuzz_main() {
	case $1 in
	tdatown) echo "$top/tests/fuzz/fuzz_tdat.c" ;;
	*) echo "$top/tests/fuzz/fuzz_$1.c" ;;
	esac
}

# its regression inputs and seeds are those of this target
fuzz_corpus() {
	case $1 in
	tdatown) echo tdat ;;
	*) echo "$1" ;;
	esac
}

# extra compiler flags and libraries (after the project's sources)
# (both recording readers decompress: tdat_scan() checks compressed sections)
fuzz_flags() {
	case $1 in
	tdat) echo "$(pkg-config --cflags libtracecmd 2>/dev/null)" \
		"$(pkg-config --exists libzstd 2>/dev/null && echo -DHAVE_ZSTD)" ;;
	tdatown) echo "-DOWN_READER $(pkg-config --exists libzstd 2>/dev/null && echo -DHAVE_ZSTD)" ;;
	esac
}
fuzz_libs() {
	case $1 in
	decode|fmt) pkg-config --libs libtraceevent 2>/dev/null || echo -ltraceevent ;;
	tdat) echo "$(pkg-config --libs libtracecmd 2>/dev/null || echo -ltracecmd -ltracefs -ltraceevent)" \
		"$(pkg-config --libs zlib 2>/dev/null || echo -lz)" "$(pkg-config --libs libzstd 2>/dev/null)" -lm ;;
	tdatown) echo "$(pkg-config --libs libtraceevent zlib 2>/dev/null || echo -ltraceevent -lz)" \
		"$(pkg-config --libs libzstd 2>/dev/null)" -lm ;;
	esac
}

# -I flags: the layers a target's sources include
fuzz_includes() {
	for d in src/core src/sched src/parse src/host src/sym tracefs tracefs/include tests/fuzz; do
		printf ' -I%s/%s' "$top" "$d"
	done
}
