#!/bin/bash
# matrix.sh [--timeout SEC] [--logdir DIR] SCRIPT [FILES...]
#
# Run SCRIPT (with FILES) under run-vm.sh on each kernel of the matrix, one
# after the other, keeping each console in DIR/SUITE.log, and print one line
# per suite and a closing "N passed, N failed, N skipped" line.
#
# Environment: OFFCPU_VM_SUITES (default "bullseye bookworm trixie"), plus
# what run-vm.sh and fetch-kernel.sh read (OFFCPU_VM_CACHE, ...).
#
# Exit status: 0 when no suite failed and at least one passed; 77 when every
# suite was skipped; 1 when any suite failed; 2 on usage error.

set -uo pipefail

prog=${0##*/}
here=$(cd "$(dirname "$0")" && pwd)

usage() {
	echo "usage: $prog [--timeout SEC] [--logdir DIR] SCRIPT [FILES...]" >&2
	exit 2
}

timeout_args=()
logdir=
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) [ $# -ge 2 ] || usage; timeout_args=(--timeout "$2"); shift 2 ;;
	--logdir) [ $# -ge 2 ] || usage; logdir=$2; shift 2 ;;
	-h | --help) usage ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage

if [ -z "$logdir" ]; then
	logdir=$(mktemp -d "${TMPDIR:-/tmp}/offcpu-vm-matrix.XXXXXX")
fi
mkdir -p "$logdir" || exit 1

read -r -a suites <<<"${OFFCPU_VM_SUITES:-bullseye bookworm trixie}"
pass=0 fail=0 skipped=0
summary=()
for suite in "${suites[@]}"; do
	echo "=== $suite" >&2
	start=$(date +%s)
	"$here/run-vm.sh" "${timeout_args[@]}" --quiet --log "$logdir/$suite.log" \
		"$suite" "$@"
	rc=$?
	secs=$(($(date +%s) - start))
	case $rc in
	0) pass=$((pass + 1)); verdict=PASS ;;
	77) skipped=$((skipped + 1)); verdict=SKIP ;;
	*) fail=$((fail + 1)); verdict="FAIL (status $rc)" ;;
	esac
	summary+=("$verdict: $suite (${secs}s, log $logdir/$suite.log)")
done

for line in "${summary[@]}"; do
	echo "$line"
done
echo "$pass passed, $fail failed, $skipped skipped"
if [ "$fail" -gt 0 ]; then
	exit 1
fi
if [ "$pass" -eq 0 ]; then
	exit 77
fi
exit 0
