#!/bin/bash
# Which options each tracing command takes: the parser's answer for every
# option any command has, against tests/fixtures/options/accepted.txt
# (made from the parser before the options moved into the analyses'
# descriptors: "COMMAND OPTION" per line). And --help lists exactly the
# options the command takes. Usage: options.sh [--write] (rewrites the list).
set -u
srcdir=${srcdir:-.}
builddir=${builddir:-.}
B=$builddir/offcpu-ftrace
list=$srcdir/tests/fixtures/options/accepted.txt
cmds="runq offcpu oncpu runqlen triage profile timehist record"
# every option of any command, and an argument it takes
opts="--dry-run -p:1 -t:1 -c:x -P -L -C -m -T --pid:1 --tid:1 --comm:x --pids --tids --cpus
--milliseconds --timestamp --format:json --backend:auto --tracefs:/sys/kernel/tracing
--buffer-size:1024 --max-tasks:10 --max-groups:10 --state:S --min:1 --max:2 --strict --all
-q --quiet --cgroup:/ --wait-p99:10 --wait-share:10 --blocked-share:10 --oncpu-share:10
--throttle-share:10 --wait-demand:10 --unclaimed-share:10 -i:1 --interval:1 --compat:bcc
--xval -K --kernel-stacks -U --user-stacks -f --folded -d --delimited --stack-depth:5
--late-stacks --top:3 --by:pid --cgroup-depth:2 --cgroup-controller:cpu --max-stacks:10
--record:/tmp/x.dat -o:/tmp/x --output:/tmp/x --rate:10 --slower:10 -O --offcpu --occupancy
-F:10 --frequency:10 --wakers --ran-instead --flight:1 --after:1 --runq-over:10
--offcpu-over:10 --max-files:2 --keep-going -w --wakeups -M --migrations -V --cpu-visual -s
--summary -S --with-summary -I --idle-hist --critical-path"
# refused as not this command's (any other usage error is about the value or a combination)
not_mine='unknown option|is an option of|are options of|give it to .offcpu-ftrace report'
got=$(mktemp)
trap 'rm -f "$got"' EXIT
for c in $cmds; do
	for o in $opts; do
		name=${o%%:*}
		arg=
		[ "$o" != "$name" ] && arg=${o#*:}
		if [ -n "$arg" ]; then
			OFFCPU_FTRACE_PARSE_ONLY=1 "$B" "$c" --dry-run "$name" "$arg" > /dev/null 2> "$got.e"
		else
			OFFCPU_FTRACE_PARSE_ONLY=1 "$B" "$c" --dry-run "$name" > /dev/null 2> "$got.e"
		fi
		grep -qE "$not_mine" "$got.e" || echo "$c $name"
	done
done > "$got"
rm -f "$got.e"
if [ "${1:-}" = --write ]; then
	cp "$got" "$list"
	exit 0
fi
fails=0
if ! diff -u "$list" "$got"; then
	echo "FAIL: the options each command takes changed (- before, + now)"
	fails=$((fails + 1))
fi
# --help lists what the command takes, no more and no less (--all is
# report's: 'report FILE runq --all'; a live run refuses it)
for c in $cmds; do
	"$B" "$c" --help | grep -oE '^(  -[a-zA-Z](, --[a-z][-a-z0-9]*)?|      --[a-z][-a-z0-9]*)' |
		sed -E 's/^ +//; s/, / /' | tr ' ' '\n' | sort -u > "$got.help"
	grep "^$c " "$got" | cut -d' ' -f2 | sort -u > "$got.took"
	if ! diff -u "$got.took" <(grep -vxE -- "-h|--help|--all" "$got.help") > "$got.diff"; then
		echo "FAIL: $c --help does not list exactly the options it takes (- taken, + listed):"
		cat "$got.diff"
		fails=$((fails + 1))
	fi
done
rm -f "$got.help" "$got.took" "$got.diff"
[ $fails = 0 ] && echo "ok: $(wc -l < "$got") command-option pairs as before; --help lists them"
[ $fails = 0 ]
