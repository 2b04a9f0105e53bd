#!/bin/sh
# inside.sh OUT NAME CMD ARGS...: inside the container, run offcpu-ftrace
# CMD ARGS for a 4 s window and, once it traces, the workload (two
# spinners, a 1 ms sleeper and a /dev/zero reader pinned to one CPU, for
# 1 s); then stop the workload. Leaves in OUT: NAME.json (the result),
# NAME.err (its stderr), NAME.rc (its exit status), NAME.wl (the
# workload's own schedstat readings, as it saw them).
out=$1 name=$2
shift 2
B=/opt/t/offcpu-ftrace
"$B" "$@" > "$out/$name.json" 2> "$out/$name.err" &
tool=$!
i=0
while ! grep -q 'Hit Ctrl-C' "$out/$name.err" 2> /dev/null; do
	if ! kill -0 "$tool" 2> /dev/null; then
		wait "$tool"
		echo $? > "$out/$name.rc"
		exit 0
	fi
	i=$((i + 1))
	[ $i -gt 300 ] && { kill "$tool"; echo "no banner in 30 s" >> "$out/$name.err"; }
	sleep 0.1
done
/opt/t/workload runq 0 2 1000 > "$out/$name.wl" &
wl=$!
wait "$tool"
echo $? > "$out/$name.rc"
kill "$wl"
wait "$wl" 2> /dev/null
exit 0
