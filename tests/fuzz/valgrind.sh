#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run the Check unit tests of a build tree under valgrind's memcheck:
#
#   tests/fuzz/valgrind.sh [BUILDDIR]
#
# BUILDDIR holds tests/unit/check_* (default $builddir, else "."); the
# sources and fixtures are $srcdir's (default: the tree of this script).
# CK_FORK=no keeps each test in the process valgrind watches. An invalid
# read or write, a use of uninitialised memory or a definite/indirect
# leak fails; valgrind.supp lists the system libraries' own leaks. Exit 0 clean, 1 on any error (valgrind's report is
# printed), 77 when valgrind is missing, no test is built, or the tests
# were built with AddressSanitizer (the two do not mix).
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
exit "$status"
