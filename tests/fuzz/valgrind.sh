#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run the Check unit tests of a build tree under valgrind's memcheck, then
# the binary's `report` on every hostile recording (regress/tdat, the
# fixtures, craft.py's):
#
#   tests/fuzz/valgrind.sh [BUILDDIR]
#
# BUILDDIR holds tests/unit/check_* and offcpu-ftrace (default $builddir,
# else "."); the sources and fixtures are $srcdir's (default: the tree of
# this script). CK_FORK=no keeps each test in the process valgrind
# watches. An invalid read or write, a use of uninitialised memory or a
# definite/indirect leak fails; valgrind.supp lists the system libraries'
# own leaks. For `report` a memory error anywhere fails, in libtracecmd
# and libtraceevent too (reached through a recording it is ours to stop),
# in the forked probe as well as the tool; leaks are not counted there
# (libtracecmd keeps a handle it cannot close after some failures). Exit
# 0 clean, 1 on any error (valgrind's report is printed), 77 when
# valgrind is missing, no test is built, or the tests were built with
# AddressSanitizer (the two do not mix).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=${srcdir:-$here/../..}
top=$(cd "$top" && pwd)
build=${1:-${builddir:-.}}
build=$(cd "$build" && pwd) || exit 1

skip() {
	echo "valgrind.sh: SKIP: $*"
	exit 77
}

command -v valgrind > /dev/null 2>&1 || skip "no valgrind (apt-get install valgrind)"

tests=
for t in "$build"/tests/unit/check_*; do
	case ${t##*/} in *.*) continue ;; esac	# .o, .log, .trs
	if [ ! -f "$t" ] || [ ! -x "$t" ]; then
		continue
	fi
	if grep -q __asan_init "$t" 2>/dev/null; then
		skip "${t##*/} is built with AddressSanitizer: configure without --enable-sanitizers"
	fi
	tests="$tests $t"
done
[ -n "$tests" ] || skip "no tests/unit/check_* built in $build (make check TESTS= first)"

log=$(mktemp "${TMPDIR:-/tmp}/offcpu-valgrind.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
status=0
for t in $tests; do
	# as Makefile.am's AM_TESTS_ENVIRONMENT
	if CK_FORK=no srcdir=$top builddir=$build \
	   valgrind -q --error-exitcode=99 --leak-check=full \
		--show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
		--num-callers=30 --track-origins=yes \
		--suppressions="$here/valgrind.supp" "$t" > "$log" 2>&1; then
		echo "PASS: ${t##*/}"
	else
		rc=$?
		status=1
		cat "$log"
		if [ "$rc" -eq 99 ]; then
			echo "FAIL: ${t##*/}: valgrind found errors (above)"
		else
			echo "FAIL: ${t##*/}: exit $rc under valgrind"
		fi
	fi
done

# report on hostile recordings: the forked probe's errors are only in the
# logs (its exit status is not report's), so every process logs to a file
bin=$build/offcpu-ftrace
if [ ! -x "$bin" ]; then
	echo "SKIP: report under valgrind: $bin not built"
	exit "$status"
fi
rec=$(mktemp -d "${TMPDIR:-/tmp}/offcpu-valgrind-rec.XXXXXX") || exit 1
trap 'rm -f "$log"; rm -rf "$rec"' EXIT
"${PYTHON3:-python3}" "$here/craft.py" "$top" "$rec" > /dev/null 2>&1 ||
	echo "# craft.py could not run: the crafted recordings are left out"
n=0
for f in "$here"/regress/tdat/* "$top"/tests/fixtures/trace-cmd/*.dat \
	 "$top"/tests/fixtures/recordings/*.dat "$rec"/*.dat; do
	[ -f "$f" ] || continue
	rm -f "$rec"/vg.*
	valgrind -q --leak-check=no --num-callers=30 --track-origins=yes \
		--suppressions="$here/valgrind.supp" --log-file="$rec/vg.%p" \
		"$bin" report "$f" runq -q > /dev/null 2>&1
	n=$((n + 1))
	for l in "$rec"/vg.*; do
		if [ -s "$l" ]; then
			status=1
			cat "$l"
			echo "FAIL: report ${f#"$top"/} under valgrind: errors (above)"
		fi
	done
done
echo "report under valgrind: $n recordings"
exit "$status"
