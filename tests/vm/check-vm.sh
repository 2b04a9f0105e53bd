#!/bin/bash
# make check-vm: tests/vm/hist_check.sh on Debian's 5.10, 6.1 and 6.12
# cloud kernels under QEMU, with the built binary and workload. Exit 77
# with a reason when QEMU, busybox or the kernels are not available.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${builddir:-.}
bin=$(mktemp -d "${TMPDIR:-/tmp}/offcpu-vm.XXXXXX")
trap 'rm -rf "$bin"' EXIT
cp "$build/offcpu-ftrace" "$bin/offcpu-ftrace" || exit 1
cp "$build/tests/workload" "$bin/workload" || exit 1
pass=0 fail=0 skip=0
for suite in bullseye bookworm trixie; do
	"$here/run-vm.sh" --timeout 300 --quiet --log "$bin/$suite.log" "$suite" \
		"$here/hist_check.sh" "$bin/offcpu-ftrace" "$bin/workload"
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "PASS: $suite"; grep -E '^(ok|FAIL|==)' "$bin/$suite.log" ;;
	77) skip=$((skip + 1)); echo "SKIP: $suite" ;;
	*) fail=$((fail + 1)); echo "FAIL: $suite (status $rc)"; tail -n 60 "$bin/$suite.log" ;;
	esac
done
echo "check-vm: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ] || exit 1
[ $pass -gt 0 ] || { echo "SKIP: no kernel could be booted"; exit 77; }
