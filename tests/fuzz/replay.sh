#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Replay the saved fuzz inputs through the targets built as plain programs
# (no libFuzzer): every file under tests/fuzz/regress/<target>/ and the
# seed corpora seeds.sh makes from tests/fixtures. Meant for make check.
#
#   CC=gcc SANITIZE=1 tests/fuzz/replay.sh
#
# CC: the compiler (default cc). SANITIZE=1 (or yes) adds
# -fsanitize=address,undefined; FUZZ_CFLAGS adds any other flags.
# REPLAY_SEEDS=0 replays regress/ only. Exit 0 when every input ran
# clean, 1 when one crashed or a target does not build (the log names
# the input), 77 when the compiler cannot build with these flags or
# libtraceevent's headers are missing.
set -u

top=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top=$(cd "$top" && pwd)
CC=${CC:-cc}
work=$(mktemp -d "${TMPDIR:-/tmp}/offcpu-replay.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

skip() {
	echo "replay.sh: SKIP: $*"
	exit 77
}
fail() {
	echo "replay.sh: FAIL: $*"
	exit 1
}

san=
case ${SANITIZE:-0} in
1|yes) san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" ;;
esac
cflags="-g -O1 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter $san ${FUZZ_CFLAGS:-}"
tev_cflags=$(pkg-config --cflags libtraceevent 2>/dev/null)
tev_libs=$(pkg-config --libs libtraceevent 2>/dev/null || echo -ltraceevent)
tcmd_cflags=$(pkg-config --cflags libtracecmd 2>/dev/null)
tcmd_libs=$(pkg-config --libs libtracecmd 2>/dev/null || echo -ltracecmd -ltracefs -ltraceevent)

# Can $CC build and run anything with these flags, and with libtraceevent?
printf 'int main(void) { return 0; }\n' > "$work/probe.c"
# shellcheck disable=SC2086
if ! $CC $cflags "$work/probe.c" -o "$work/probe" > "$work/probe.log" 2>&1 ||
   ! "$work/probe" >> "$work/probe.log" 2>&1; then
	skip "$CC cannot build with '$cflags': $(head -n 3 "$work/probe.log")"
fi
printf '#include <traceevent/kbuffer.h>\nint main(void) { return kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE) == 0; }\n' \
	> "$work/probe_tev.c"
# shellcheck disable=SC2086
$CC $cflags $tev_cflags "$work/probe_tev.c" $tev_libs -o "$work/probe_tev" \
	> "$work/probe.log" 2>&1 ||
	skip "cannot build with libtraceevent (apt-get install libtraceevent-dev): $(head -n 3 "$work/probe.log")"

if [ "${REPLAY_SEEDS:-1}" != 0 ]; then
	sh "$top/tests/fuzz/seeds.sh" "$work/seeds" > "$work/seeds.log" 2>&1 ||
		{ cat "$work/seeds.log"; fail "seeds.sh"; }
fi

# libtraceevent leaks on some malformed formats: not ours to fix
LSAN_OPTIONS=suppressions=$top/tests/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}
UBSAN_OPTIONS=print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
srcdir=$top
export LSAN_OPTIONS UBSAN_OPTIONS srcdir
limit=
command -v timeout > /dev/null 2>&1 && limit="timeout 300"

status=0
. "$top/tests/fuzz/targets.sh"
for t in $FUZZ_TARGETS; do
	files=
	for s in $(fuzz_sources "$t"); do
		files="$files $top/$s"
	done
	# shellcheck disable=SC2086
	if ! $CC $cflags "-DFUZZ_SRCDIR=\"$top\"" $(fuzz_includes) \
		 $tev_cflags $(fuzz_flags "$t") "$(fuzz_main "$t")" $files $(fuzz_libs "$t") \
		-o "$work/fuzz_$t" > "$work/build_$t.log" 2>&1; then
		cat "$work/build_$t.log"
		fail "cannot build fuzz_$t with $CC"
	fi
	dirs=
	c=$(fuzz_corpus "$t")
	for d in "$top/tests/fuzz/regress/$c" "$work/seeds/$c"; do
		[ -d "$d" ] && [ -n "$(ls -A "$d")" ] && dirs="$dirs $d"
	done
	[ -n "$dirs" ] || continue
	# shellcheck disable=SC2086
	# a huge size from a corrupt file gets NULL, as from glibc's malloc,
	# not an ASan report (libtracecmd checks for NULL)
	asan=${ASAN_OPTIONS:-}
	[ "$c" = tdat ] &&
		asan=allocator_may_return_null=1:suppressions=$top/tests/fuzz/asan.supp${asan:+:$asan}
	if ASAN_OPTIONS=$asan $limit "$work/fuzz_$t" $dirs > "$work/run_$t.log" 2>&1; then
		tail -n 1 "$work/run_$t.log"
	else
		status=1
		tail -n 40 "$work/run_$t.log"
		last=$(grep '^running: ' "$work/run_$t.log" | tail -n 1)
		echo "replay.sh: FAIL: fuzz_$t crashed on the last input it was ${last:-running (none started)}"
	fi
done
[ "$status" -eq 0 ] && echo "replay.sh: PASS (${CC}${san:+, sanitized})"
exit "$status"
