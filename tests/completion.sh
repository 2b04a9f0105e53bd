#!/bin/bash
# The bash completion: commands, each command's options (from its --help),
# option values, and -- COMMAND. Runs without the bash-completion package.
srcdir=${srcdir:-.}
builddir=${builddir:-.}
PATH="$builddir:$PATH"
command -v offcpu-ftrace > /dev/null || { echo "SKIP: offcpu-ftrace not built"; exit 77; }
# shellcheck source=../completion/offcpu-ftrace
. "$srcdir/completion/offcpu-ftrace" || exit 1
fails=0

complete_line() {	# the words of a command line, the last one being completed
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_offcpu_ftrace
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}

expect() {	# expect "WORDS..." -- line...: every WORD is offered
	local want=$1 got w
	shift
	got=" $(complete_line "$@")"
	for w in $want; do
		case $got in
		*" $w "*) ;;
		*) echo "FAIL: '$*' does not offer '$w' (offered:$got)"; fails=$((fails + 1)) ;;
		esac
	done
}

expect_not() {
	local bad=$1 got
	shift
	got=" $(complete_line "$@")"
	case $got in
	*" $bad "*) echo "FAIL: '$*' offers '$bad'"; fails=$((fails + 1)) ;;
	esac
}

expect "runq offcpu triage oncpu runqlen profile timehist record report info compare cleanup overhead waits" offcpu-ftrace ""
expect "--runs --analysis --keep --format --output --quiet --dry-run" offcpu-ftrace overhead --
expect "runq offcpu triage oncpu runqlen profile record" offcpu-ftrace overhead --analysis ""
expect_not "report" offcpu-ftrace overhead --analysis ""
expect "offcpu" offcpu-ftrace overhead --analysis of
expect "sleep" offcpu-ftrace overhead -n 9 -- slee
expect "--output --kernel-stacks" offcpu-ftrace record --
expect "runq offcpu triage oncpu runqlen" offcpu-ftrace report some.dat ""
expect "--kernel-stacks --top" offcpu-ftrace report some.dat offcpu --
expect "--pids --compat" offcpu-ftrace report some.dat --
expect "runq" offcpu-ftrace ru
expect "--backend --compat --pid --interval --slower --ran-instead" offcpu-ftrace runq --
expect "--kernel-stacks --state --folded --wakers" offcpu-ftrace offcpu --
expect "--frequency --folded --pids --tids" offcpu-ftrace profile --
expect_not "--interval" offcpu-ftrace profile --
expect_not "--kernel-stacks" offcpu-ftrace runq --
expect "--dry-run --tracefs" offcpu-ftrace cleanup --
expect "--tree --watch --count --all --format --dry-run" offcpu-ftrace waits --
expect "text json" offcpu-ftrace waits --format ""
expect_not "svg" offcpu-ftrace waits --format ""
expect "$$" offcpu-ftrace waits --tree "$$"
expect "$$" offcpu-ftrace waits "$$"
expect "bash" offcpu-ftrace waits --watch 5 -- bas
expect "auto hist ring perf proc" offcpu-ftrace runq --backend ""
expect "openmetrics" offcpu-ftrace runq --format o
expect "bpftrace bcc kernel json" offcpu-ftrace compare --format-a ""
expect "bcc bpftrace perf" offcpu-ftrace runq -L --compat ""
expect "$$" offcpu-ftrace offcpu -p "$$"
expect "bash" offcpu-ftrace runq -L -- bas
expect_not "runq" offcpu-ftrace runq -L -- ru
expect "--wakeups --migrations --cpu-visual --state --summary --with-summary --idle-hist --by" offcpu-ftrace timehist --
expect "perfetto" offcpu-ftrace timehist --format ""
expect "perf perf6.1 bcc" offcpu-ftrace timehist --compat ""
expect_not "S,D" offcpu-ftrace timehist --state ""
expect "timehist" offcpu-ftrace report some.dat ""
expect "--summary --wakeups" offcpu-ftrace report some.dat timehist --
[ $fails = 0 ] && echo "completion: all offered"
[ $fails = 0 ]
