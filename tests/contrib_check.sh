#!/bin/bash
# The shipped fleet files: the Prometheus rules parse (promtool check
# rules), and the systemd units have no unknown key or bad value
# (systemd-analyze verify; a binary and man pages not installed yet are
# expected here). Each check skips when its tool is missing.
set -u
srcdir=${srcdir:-.}
builddir=${builddir:-.}
ran=0
if command -v promtool > /dev/null; then
	promtool check rules "$srcdir/contrib/prometheus/offcpu-ftrace.rules.yml" ||
		{ echo "FAIL: promtool check rules"; exit 1; }
	ran=1
fi
if command -v systemd-analyze > /dev/null; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/offcpu-ftrace-units.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	sed -e "s|%sbindir%|/usr/sbin|g" "$srcdir/contrib/systemd/offcpu-ftrace-sample.service.in" \
		> "$tmp/offcpu-ftrace-sample.service"
	cp "$srcdir/contrib/systemd/offcpu-ftrace-sample.timer" "$tmp/"
	systemd-analyze verify "$tmp/offcpu-ftrace-sample.timer" "$tmp/offcpu-ftrace-sample.service" \
		> "$tmp/out" 2>&1
	bad=$(grep -v -e 'is not executable' -e "Command 'man " -e '^$' "$tmp/out")
	[ -z "$bad" ] || { echo "$bad"; echo "FAIL: systemd-analyze verify"; exit 1; }
	grep -q 'ExecStart=%sbindir%/offcpu-ftrace triage --format=openmetrics -q -o ${TEXTFILE_DIR}/' \
		"$srcdir/contrib/systemd/offcpu-ftrace-sample.service.in" || { echo "FAIL: the service does not write with -o"; exit 1; }
	ran=1
fi
[ $ran = 1 ] || { echo "SKIP: neither promtool nor systemd-analyze installed"; exit 77; }
echo "# contrib: rules and units check"
