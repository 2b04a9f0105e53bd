#!/bin/bash
# libbpf_ready.sh TOOL ARGS...: run a libbpf-tools tool (this process
# becomes it: signals are its own) and say "Tracing (attached)" on standard
# output once its BPF programs are attached: its BPF links, the same
# number twice 50 ms apart (offcputime 0.26 prints no banner; the others'
# waits in stdio's buffer). A watcher in the background says it, then ends.
me=$$
(
	last=-1
	for _ in $(seq 1 400); do
		[ -d "/proc/$me" ] || exit 0
		n=$(ls -l "/proc/$me/fd" 2> /dev/null | grep -c "anon_inode:bpf_link")
		if [ "$n" -gt 0 ] && [ "$n" = "$last" ]; then
			echo "Tracing (attached: $n BPF links)"
			exit 0
		fi
		last=$n
		sleep 0.05
	done
) &
exec "$@"
