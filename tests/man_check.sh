#!/bin/bash
# Man pages lint clean, and every command line in their EXAMPLES and in
# each --help's Examples block parses (run with --dry-run), so pages and
# help cannot drift from the options.
set -u
srcdir=${srcdir:-.}
BIN=${builddir:-.}/offcpu-ftrace
fail() { echo "FAIL: $*"; exit 1; }
ERR=$(mktemp "${TMPDIR:-/tmp}/man_check.XXXXXX") || fail "mktemp failed"
trap 'rm -f "$ERR"' EXIT

pages=$(ls "$srcdir"/man/*.8)
if command -v mandoc >/dev/null; then
	out=$(mandoc -T lint -W warning $pages 2>&1) || true
	[ -z "$out" ] || fail "mandoc -T lint: $out"
elif command -v groff >/dev/null; then
	for p in $pages; do
		out=$(groff -man -ww -z "$p" 2>&1)
		[ -z "$out" ] || fail "groff -ww $p: $out"
	done
else
	echo "SKIP: neither mandoc nor groff to lint the man pages"; exit 77
fi

# command lines: "offcpu-ftrace ..." or "# offcpu-ftrace ..." in .EX blocks
lines=$(for p in $pages; do
	awk '/^\.EX/ { ex = 1; next } /^\.EE/ { ex = 0 } ex' "$p"
done | sed -n 's/^\(# \)\{0,1\}\(offcpu-ftrace .*\)$/\2/p' | sed 's/\\-/-/g; s/\\&//g')
# every command the binary lists (its --help's Commands block)
cmds=$("$BIN" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on { exit }')
[ -n "$cmds" ] || fail "offcpu-ftrace --help lists no commands"
helps=$(for c in $cmds; do "$BIN" $c --help; done; "$BIN" --help)
lines="$lines
$(echo "$helps" | sed -n 's/^  \(offcpu-ftrace .*\)$/\1/p')"

n=0
while IFS= read -r line; do
	[ -n "$line" ] || continue
	cmd=${line%%#*}			# drop trailing comments
	cmd=${cmd%%|*}			# and pipes
	cmd=${cmd%%>*}			# and redirections
	# words as a shell splits them, quotes too (--analysis 'offcpu -K'),
	# without expanding anything
	mapfile -t argv < <(printf '%s\n' "$cmd" | xargs printf '%s\n')
	sub=${argv[1]}
	case " $(echo $cmds) " in
	*" $sub "*) ;;
	*) fail "example uses unknown command: $line" ;;
	esac
	case $sub in
	info|report) extra= ;;
	*) extra=--dry-run ;;
	esac
	# the dry-run flag goes first: after "--" it would be the command's;
	# report's first argument is the FILE, it has no "--": last
	# OFFCPU_FTRACE_PARSE_ONLY: --dry-run only parses (the examples name
	# processes, cgroups and files of their own)
	if [ "$sub" = report ]; then
		OFFCPU_FTRACE_PARSE_ONLY=1 "$BIN" report "${argv[@]:2}" --dry-run
	else
		OFFCPU_FTRACE_PARSE_ONLY=1 "$BIN" "$sub" $extra "${argv[@]:2}"
	fi > /dev/null 2> "$ERR" ||
		fail "example does not parse: '$line': $(cat "$ERR")"
	n=$((n + 1))
done <<< "$lines"
[ $n -ge 10 ] || fail "only $n example command lines found"
echo "# $n example command lines parse; $(echo $pages | wc -w) pages lint clean"
