#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the libFuzzer targets with clang, seed them from tests/fixtures and
# run each for a while:
#
#   tests/fuzz/run.sh [SECONDS [TARGET...]]
#
# SECONDS per target (default 60); TARGET among decode, fmt, khist,
# peerhist (default all). Builds into $FUZZ_BUILD (default
# $TMPDIR/offcpu-fuzz); the corpus grown there is reused by later runs.
# CLANG names the compiler (default clang). Exit 0 when no target
# crashed, 1 when one did (the reproducer is printed: copy it into
# tests/fuzz/regress/<target>/), 77 when clang or its libFuzzer runtime
# is missing.
set -u

top=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top=$(cd "$top" && pwd)
. "$top/tests/fuzz/targets.sh"
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-$FUZZ_TARGETS}
CLANG=${CLANG:-clang}
build=${FUZZ_BUILD:-${TMPDIR:-/tmp}/offcpu-fuzz}

case $secs in
''|*[!0-9]*) echo "run.sh: SECONDS must be a number, not '$secs'" >&2; exit 2 ;;
esac

skip() {
	echo "run.sh: SKIP: $*"
	exit 77
}

command -v "$CLANG" >/dev/null 2>&1 || skip "no $CLANG (apt-get install clang)"
mkdir -p "$build" || exit 1
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return (int)(d && n) * 0; }\n' \
	> "$build/probe.c"
"$CLANG" -fsanitize=fuzzer,address,undefined "$build/probe.c" -o "$build/probe" \
	> "$build/probe.log" 2>&1 ||
	skip "$CLANG cannot link -fsanitize=fuzzer (libFuzzer runtime missing: apt-get install libclang-rt-14-dev); see $build/probe.log"

tev_cflags=$(pkg-config --cflags libtraceevent 2>/dev/null)
tev_libs=$(pkg-config --libs libtraceevent 2>/dev/null || echo -ltraceevent)
cflags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
	-fno-sanitize-recover=undefined -DFUZZ_LIBFUZZER -D_GNU_SOURCE"

# sources and include paths of each target (tests/fuzz/targets.sh), and -max_len
sources() { fuzz_sources "$1"; }
max_len() {
	case $1 in
	decode) echo 12289 ;;	# selector byte + 3 pages of 4096
	tdat|tdatown) echo 65536 ;;	# the fixture recordings are 8-53 KiB
	*) echo 16384 ;;
	esac
}

echo "run.sh: building into $build"
for t in $targets; do
	main=$(fuzz_main "$t")
	[ -f "$main" ] || { echo "run.sh: no target '$t'" >&2; exit 2; }
	srcs=
	for s in $(sources "$t"); do
		srcs="$srcs $top/$s"
	done
	# shellcheck disable=SC2086
	if ! "$CLANG" $cflags "-DFUZZ_SRCDIR=\"$top\"" $(fuzz_includes) \
		 $tev_cflags $(fuzz_flags "$t") "$main" $srcs $(fuzz_libs "$t") \
		-o "$build/fuzz_$t" > "$build/fuzz_$t.build.log" 2>&1; then
		cat "$build/fuzz_$t.build.log"
		echo "run.sh: FAIL: cannot build fuzz_$t"
		exit 1
	fi
done

rm -rf "$build/seeds"
sh "$top/tests/fuzz/seeds.sh" "$build/seeds" > "$build/seeds.log" 2>&1 ||
	{ cat "$build/seeds.log"; echo "run.sh: FAIL: seeds.sh"; exit 1; }

failed=0
for t in $targets; do
	corpus=$build/corpus/$t
	arts=$build/artifacts/$t
	mkdir -p "$corpus" "$arts"
	dict=
	c=$(fuzz_corpus "$t")
	[ -f "$top/tests/fuzz/$c.dict" ] && dict="-dict=$top/tests/fuzz/$c.dict"
	echo "run.sh: fuzz_$t for ${secs}s (log: $build/fuzz_$t.log)"
	# new inputs go to the first directory; seeds and regressions are read.
	# libtraceevent leaks on some malformed formats: not ours to fix.
	# a huge size from a corrupt file gets NULL, as from glibc's malloc,
	# not an ASan report (libtracecmd checks for NULL)
	asan=${ASAN_OPTIONS:-}
	[ "$c" = tdat ] &&
		asan=allocator_may_return_null=1:suppressions=$top/tests/fuzz/asan.supp${asan:+:$asan}
	# shellcheck disable=SC2086
	ASAN_OPTIONS=$asan srcdir=$top LSAN_OPTIONS=suppressions=$top/tests/fuzz/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1 \
	"$build/fuzz_$t" -timeout=5 -max_len="$(max_len "$t")" \
		-max_total_time="$secs" -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$arts/" $dict \
		"$corpus" "$build/seeds/$c" "$top/tests/fuzz/regress/$c" \
		> "$build/fuzz_$t.log" 2>&1
	rc=$?
	grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$build/fuzz_$t.log" | sed 's/^/    /'
	found=$(find "$arts" -type f -newer "$build/fuzz_$t" 2>/dev/null)
	if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
		failed=1
		grep -E -m3 'ERROR: |runtime error|fuzz_[a-z]*: ' "$build/fuzz_$t.log" | sed 's/^/    /'
		for a in $found; do
			echo "run.sh: FAIL: fuzz_$t crashed; reproducer: $a"
			echo "    replay: srcdir=$top $build/fuzz_$t $a"
			echo "    keep it: cp $a $top/tests/fuzz/regress/$t/"
		done
		[ -n "$found" ] || echo "run.sh: FAIL: fuzz_$t exited $rc; see $build/fuzz_$t.log"
	fi
done
[ "$failed" -eq 0 ] && echo "run.sh: PASS: no crash in $targets"
exit "$failed"
